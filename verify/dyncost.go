package verify

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/cost"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// DynamicCost is the executed cost of translated code against its guest
// over the kernels that ran alike (Identical or WithinBound) with guest
// instructions: the host/guest ratio of executed instructions and of
// their weight in dbt/cost's issue-cycle model (a model: MFMA passes per
// ISA, one per other instruction), per kernel (median, max) and in total
// (sum of host over sum of guest), and the per-class totals.
type DynamicCost struct {
	// Kernels is the number of kernels counted.
	Kernels int
	// P50, Max and Total are the executed-instruction ratios.
	P50, Max, Total float64
	// PassesP50 and PassesTotal are the issue-cycle model's ratios.
	PassesP50, PassesTotal float64
	// Guest and Host are the executed instructions by class, summed.
	Guest, Host cost.Counts
	// GuestPasses and HostPasses are the model's weights, summed.
	GuestPasses, HostPasses uint64
}

// Counted reports whether r counts in a DynamicCost: its sides ran alike
// and the guest executed something.
func Counted(r Result) bool {
	return (r.Outcome == Identical || r.Outcome == WithinBound) && r.GuestInstructions > 0
}

// CostOf summarizes the counted results of rs (Counted).
func CostOf(rs []Result) DynamicCost {
	var d DynamicCost
	var ratios, passes []float64
	for _, r := range rs {
		if !Counted(r) {
			continue
		}
		d.Kernels++
		ratios = append(ratios, float64(r.HostInstructions)/float64(r.GuestInstructions))
		if r.GuestPasses > 0 {
			passes = append(passes, float64(r.HostPasses)/float64(r.GuestPasses))
		}
		d.Guest.AddCounts(countsOf(r.GuestClasses))
		d.Host.AddCounts(countsOf(r.HostClasses))
		d.GuestPasses += r.GuestPasses
		d.HostPasses += r.HostPasses
	}
	if d.Kernels == 0 {
		return d
	}
	slices.Sort(ratios)
	slices.Sort(passes)
	d.P50, d.Max = ratios[len(ratios)/2], ratios[len(ratios)-1]
	_, d.Total = cost.Ratio(d.Guest, d.Host)
	if len(passes) > 0 {
		d.PassesP50 = passes[len(passes)/2]
	}
	if d.GuestPasses > 0 {
		d.PassesTotal = float64(d.HostPasses) / float64(d.GuestPasses)
	}
	return d
}

// String is the summary line: "executed host/guest over N kernels: p50
// R, total T (mfma …, valu …, memory …, salu …); issue-cycle model: p50
// R, total T".
func (d DynamicCost) String() string {
	if d.Kernels == 0 {
		return "executed host/guest: no kernel ran alike"
	}
	per, _ := cost.Ratio(d.Guest, d.Host)
	var cl []string
	for c := cost.Class(0); c < cost.NumClasses; c++ {
		if d.Guest[c] > 0 {
			cl = append(cl, fmt.Sprintf("%s %.2fx", c, per[c]))
		}
	}
	return fmt.Sprintf("executed host/guest over %d kernels: p50 %.2fx, max %.2fx, total %.2fx (%s); issue-cycle model (MFMA passes, 1 per other instruction): p50 %.2fx, total %.2fx",
		d.Kernels, d.P50, d.Max, d.Total, strings.Join(cl, ", "), d.PassesP50, d.PassesTotal)
}

// countsOf converts report counts to a cost tally.
func countsOf(c report.ClassCounts) cost.Counts {
	var out cost.Counts
	out[cost.MFMA], out[cost.VALU], out[cost.Memory], out[cost.SALU], out[cost.Other] = c.MFMA, c.VALU, c.Memory, c.SALU, c.Other
	return out
}
