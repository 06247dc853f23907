package verify

import (
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/cost"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// TestCostOf: only kernels that ran alike count; the ratios are the
// median and the sum ratio of instructions and of model passes.
func TestCostOf(t *testing.T) {
	rs := []Result{
		{Outcome: Identical, GuestInstructions: 100, HostInstructions: 200, GuestPasses: 160, HostPasses: 200,
			GuestClasses: report.ClassCounts{MFMA: 10, VALU: 90}, HostClasses: report.ClassCounts{MFMA: 40, VALU: 160}},
		{Outcome: WithinBound, GuestInstructions: 300, HostInstructions: 300, GuestPasses: 300, HostPasses: 300,
			GuestClasses: report.ClassCounts{SALU: 300}, HostClasses: report.ClassCounts{SALU: 300}},
		{Outcome: Identical, GuestInstructions: 10, HostInstructions: 40, GuestPasses: 10, HostPasses: 40,
			GuestClasses: report.ClassCounts{Memory: 10}, HostClasses: report.ClassCounts{Memory: 40}},
		{Outcome: Different, GuestInstructions: 10, HostInstructions: 1000, GuestClasses: report.ClassCounts{VALU: 10}, HostClasses: report.ClassCounts{VALU: 1000}},
		{Outcome: Identical}, // ran nothing
	}
	d := CostOf(rs)
	if d.Kernels != 3 || d.P50 != 2 || d.Max != 4 {
		t.Errorf("kernels %d p50 %v max %v", d.Kernels, d.P50, d.Max)
	}
	if d.Total != 540.0/410 || d.PassesTotal != 540.0/470 || d.PassesP50 != 1.25 {
		t.Errorf("total %v passes total %v p50 %v", d.Total, d.PassesTotal, d.PassesP50)
	}
	if d.Guest[cost.MFMA] != 10 || d.Host[cost.MFMA] != 40 || d.Host[cost.VALU] != 160 {
		t.Errorf("classes %v / %v", d.Guest, d.Host)
	}
	if s := d.String(); !strings.Contains(s, "over 3 kernels: p50 2.00x, max 4.00x") || !strings.Contains(s, "mfma 4.00x") {
		t.Errorf("String %q", s)
	}
	if d := CostOf(rs[3:]); d.Kernels != 0 || !strings.Contains(d.String(), "no kernel") {
		t.Errorf("nothing alike: %+v", d)
	}
}
