package verify

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/sim/mem"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// BenchmarkDynamicRatioAiter reports the executed host/guest instruction
// ratio of the aiter gfx950 kernels translated for gfx942 (issue 15's
// dynamic cost): each kernel runs as guest on the simulated gfx950 and as
// its translation on the simulated gfx942 with the verify harness's inputs
// (int fill, seed 0, one workgroup), and only runs that end alike on both
// sides (identical or within bound) count. p50 is over the GEMM, attention
// and MoE kernels (every family but topksoftmax), total is the sum of host
// over the sum of guest instructions of those. The guessed arguments make
// some kernels exit early, so the ratio is of the code each run reaches.
func BenchmarkDynamicRatioAiter(b *testing.B) {
	files := objects(b, projectpath.MustShared(b, "corpus", "aiter", "gfx950"))
	opt := Options{Host: "gfx942", Workgroups: 1, MaxInstructions: 400_000, Fill: mem.FillInt}
	var ratios []float64
	var guest, host uint64
	for i := 0; i < b.N; i++ {
		ratios, guest, host = ratios[:0], 0, 0
		for _, r := range verifyAll(b, files, opt) {
			if r.Outcome != Identical && r.Outcome != WithinBound || r.GuestInstructions == 0 {
				continue
			}
			if strings.HasPrefix(filepath.Base(r.Object), "topksoftmax") {
				continue
			}
			ratios = append(ratios, float64(r.HostInstructions)/float64(r.GuestInstructions))
			guest += r.GuestInstructions
			host += r.HostInstructions
		}
	}
	if len(ratios) == 0 {
		b.Fatal("no aiter kernel ran alike on both sides")
	}
	slices.Sort(ratios)
	b.ReportMetric(float64(len(ratios)), "kernels")
	b.ReportMetric(ratios[len(ratios)/2], "p50-host/guest")
	b.ReportMetric(ratios[len(ratios)-1], "max-host/guest")
	b.ReportMetric(float64(host)/float64(guest), "total-host/guest")
}
