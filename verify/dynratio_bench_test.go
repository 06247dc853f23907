package verify

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/cost"
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
// over the sum of guest instructions of those; the per-class ratios are
// of the class sums. The passes metrics are the same ratios in dbt/cost's
// issue-cycle model (a model: each MFMA weighs its passes on its ISA from
// LLVM's scheduling model, every other instruction one). The profiled
// families (Profiles) run their main loops on small problems; the others
// get guessed arguments and may exit early, so the ratio is of the code
// each run reaches.
//
// The native metrics compare the translation with the native gfx942 build
// of the same kernel (../shared/corpus/aiter/gfx942, same file name, same
// kernarg layout; Native) run with the same inputs, over every family,
// where both the translation and the native build end alike with the
// guest: translated/native executed instructions and passes.
func BenchmarkDynamicRatioAiter(b *testing.B) {
	files := objects(b, projectpath.MustShared(b, "corpus", "aiter", "gfx950"))
	nativeDir := projectpath.MustShared(b, "corpus", "aiter", "gfx942")
	opt := Options{Host: "gfx942", Workgroups: 1, MaxInstructions: 400_000, Fill: mem.FillInt}
	var d DynamicCost
	var vsNative, passesVsNative []float64
	var tHost, nHost, tPasses, nPasses uint64
	for i := 0; i < b.N; i++ {
		var gemm []Result
		all := verifyAll(b, files, opt)
		for _, r := range all {
			if !strings.HasPrefix(r.Object, "topksoftmax") {
				gemm = append(gemm, r)
			}
		}
		d = CostOf(gemm)
		vsNative, passesVsNative, tHost, nHost, tPasses, nPasses = vsNative[:0], passesVsNative[:0], 0, 0, 0, 0
		native := nativeAll(b, files, nativeDir, opt)
		for _, r := range all {
			n, ok := native[r.Object+" "+r.Name]
			if !ok {
				continue
			}
			switch {
			case !Counted(r):
				b.Logf("%s %s: translation %s, not compared with the native build", r.Object, r.Name, r.Outcome)
				continue
			case !Counted(n):
				b.Logf("%s %s: native build %s (%s), not counted", r.Object, r.Name, n.Outcome, n.Reason)
				continue
			case n.GuestInstructions != r.GuestInstructions:
				b.Fatalf("%s %s: the guest ran %d instructions beside the native build, %d beside the translation", r.Object, r.Name, n.GuestInstructions, r.GuestInstructions)
			}
			vsNative = append(vsNative, float64(r.HostInstructions)/float64(n.HostInstructions))
			passesVsNative = append(passesVsNative, float64(r.HostPasses)/float64(n.HostPasses))
			tHost, nHost, tPasses, nPasses = tHost+r.HostInstructions, nHost+n.HostInstructions, tPasses+r.HostPasses, nPasses+n.HostPasses
			if i == 0 {
				b.Logf("%s %s: native %s; translated/native %d/%d instructions (%.2fx), %d/%d passes (%.2fx); guest %d",
					r.Object, r.Name, n.Outcome, r.HostInstructions, n.HostInstructions, vsNative[len(vsNative)-1], r.HostPasses, n.HostPasses, passesVsNative[len(passesVsNative)-1], r.GuestInstructions)
			}
		}
	}
	if d.Kernels == 0 {
		b.Fatal("no aiter kernel ran alike on both sides")
	}
	b.Log(d)
	b.ReportMetric(float64(d.Kernels), "kernels")
	b.ReportMetric(d.P50, "p50-host/guest")
	b.ReportMetric(d.Max, "max-host/guest")
	b.ReportMetric(d.Total, "total-host/guest")
	b.ReportMetric(d.PassesP50, "p50-passes-host/guest")
	b.ReportMetric(d.PassesTotal, "total-passes-host/guest")
	per, _ := cost.Ratio(d.Guest, d.Host)
	for c := cost.Class(0); c < cost.NumClasses; c++ {
		if d.Guest[c] > 0 {
			b.ReportMetric(per[c], c.String()+"-host/guest")
		}
	}
	b.ReportMetric(float64(len(vsNative)), "native-kernels")
	if len(vsNative) > 0 {
		slices.Sort(vsNative)
		slices.Sort(passesVsNative)
		b.ReportMetric(vsNative[len(vsNative)/2], "p50-translated/native")
		b.ReportMetric(float64(tHost)/float64(nHost), "total-translated/native")
		b.ReportMetric(passesVsNative[len(passesVsNative)/2], "p50-passes-translated/native")
		b.ReportMetric(float64(tPasses)/float64(nPasses), "total-passes-translated/native")
	}
}

// nativeAll runs Native for every object of files that has a same-named
// native build in nativeDir, keyed by "object kernel".
func nativeAll(b *testing.B, files []string, nativeDir string, opt Options) map[string]Result {
	b.Helper()
	out := map[string]Result{}
	for _, f := range files {
		nat, err := os.ReadFile(filepath.Join(nativeDir, filepath.Base(f)))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			b.Fatal(err)
		}
		guest, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		rs, err := Native(filepath.Base(f), guest, nat, opt)
		if err != nil {
			b.Fatalf("%s: %v", f, err)
		}
		for _, r := range rs {
			out[r.Object+" "+r.Name] = r
		}
	}
	return out
}
