package dbt

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/cost"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/internal/simcost"
)

// quantile returns the q-quantile (nearest rank) of sorted xs.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	i := int(q*float64(len(xs))+0.5) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}

// BenchmarkStaticGrowth translates every aiter gfx950 object and every
// gfx950 test kernel for gfx942 and reports the per-object .text growth
// (host bytes / guest bytes) p50, p90, p99 and max over the committed
// objects (and p50/p99 over the aiter objects alone), the total growth, and the static host/guest instruction ratio
// by class over all committed kernels. The guest itself is the baseline
// (growth 1).
func BenchmarkStaticGrowth(b *testing.B) {
	aiter := corpus(b, "gfx950")
	paths := append(aiter, testKernels(b, "gfx950")...)
	objs := make([][]byte, len(paths))
	for i, p := range paths {
		objs[i] = readFile(b, p)
	}
	var growth, aiterGrowth []float64
	var src, host int
	var g, h cost.Counts
	for n := 0; n < b.N; n++ {
		growth, aiterGrowth, src, host, g, h = growth[:0], aiterGrowth[:0], 0, 0, cost.Counts{}, cost.Counts{}
		for i, o := range objs {
			res, err := Translate(o, Options{Host: isa.GFX942, Stats: true, Name: filepath.Base(paths[i])})
			if err != nil || !res.Report.Committed {
				continue
			}
			growth = append(growth, res.Report.Growth())
			if i < len(aiter) {
				aiterGrowth = append(aiterGrowth, res.Report.Growth())
			}
			src += res.Report.SourceText
			host += res.Report.HostText
			for _, k := range res.Report.Kernels {
				if k.Static == nil {
					b.Fatalf("%s: kernel %s has no static counts", paths[i], k.Name)
				}
				g.AddCounts(countsOf(k.Static.Guest))
				h.AddCounts(countsOf(k.Static.Host))
			}
		}
	}
	if len(growth) == 0 {
		b.Fatal("nothing committed")
	}
	sort.Float64s(growth)
	sort.Float64s(aiterGrowth)
	b.ReportMetric(float64(len(growth)), "objects")
	b.ReportMetric(float64(len(aiterGrowth)), "aiter-objects")
	b.ReportMetric(quantile(aiterGrowth, 0.5), "aiter-p50-growth")
	b.ReportMetric(quantile(aiterGrowth, 0.99), "aiter-p99-growth")
	b.ReportMetric(quantile(growth, 0.5), "p50-growth")
	b.ReportMetric(quantile(growth, 0.9), "p90-growth")
	b.ReportMetric(quantile(growth, 0.99), "p99-growth")
	b.ReportMetric(growth[len(growth)-1], "max-growth")
	b.ReportMetric(float64(host)/float64(src), "total-growth")
	per, tot := cost.Ratio(g, h)
	b.ReportMetric(tot, "static-insn-ratio")
	b.ReportMetric(per[cost.MFMA], "static-mfma-ratio")
	b.ReportMetric(per[cost.VALU], "static-valu-ratio")
	b.ReportMetric(per[cost.Memory], "static-mem-ratio")
	b.ReportMetric(per[cost.SALU], "static-salu-ratio")
}

// BenchmarkDynamicRatio runs every gfx950 test kernel (without dynamic
// LDS) on the simulator: the gfx950 guest on gfx950 and its gfx942
// translation on gfx942, and, where the kernel is also built for gfx942,
// the native gfx942 build (the baseline compiled for the host). The
// translation's results must match the reference. It reports the median
// and max over kernels of executed host/guest instructions, the same over
// the gfx950-only kernels (the ones that exercise expansions: MFMA splits,
// conversions, permlane swaps...), the class-weighted ratio
// (cost.DefaultWeights), the per-class ratios over all kernels, the
// translation against the native gfx942 build, and the median and total
// ratios in dbt/cost's issue-cycle model (passes: each MFMA weighs its
// passes on its ISA, every other instruction one; a model, not cycles).
func BenchmarkDynamicRatio(b *testing.B) {
	root := projectpath.MustRoot(b)
	cases := kernelref.AllCases()
	var ratios, only950, weighted, native, passes, nativePasses, only950Passes []float64
	var g, h cost.Counts
	var gp, hp uint64
	for n := 0; n < b.N; n++ {
		ratios, only950, weighted, native, g, h = ratios[:0], only950[:0], weighted[:0], native[:0], cost.Counts{}, cost.Counts{}
		passes, nativePasses, only950Passes, gp, hp = passes[:0], nativePasses[:0], only950Passes[:0], 0, 0
		for i := range cases {
			c := &cases[i]
			if !c.HasTarget("gfx950") || c.DynamicLDS() != 0 {
				continue
			}
			guest, err := os.ReadFile(filepath.Join(root, c.Object("gfx950")))
			if err != nil {
				b.Fatal(err)
			}
			res, err := Translate(guest, Options{Name: c.Name})
			if err != nil {
				continue // expected rejections (indirect calls through memory)
			}
			gm, _, err := simcost.Measure(c, guest, "gfx950")
			if err != nil {
				b.Fatal(err)
			}
			hm, out, err := simcost.Measure(c, res.Object, "gfx942")
			if err != nil {
				b.Fatal(err)
			}
			gc, hc := gm.Counts, hm.Counts
			passes = append(passes, float64(hm.Passes)/float64(gm.Passes))
			gp, hp = gp+gm.Passes, hp+hm.Passes
			if err := c.Check(out); err != nil {
				b.Fatalf("%s: translation on gfx942: %v", c.Name, err)
			}
			_, r := cost.Ratio(gc, hc)
			ratios = append(ratios, r)
			weighted = append(weighted, cost.WeightedBy(gc, hc, cost.DefaultWeights))
			g.AddCounts(gc)
			h.AddCounts(hc)
			nativeN := "-"
			if c.HasTarget("gfx942") {
				nat, err := os.ReadFile(filepath.Join(root, c.Object("gfx942")))
				if err != nil {
					b.Fatal(err)
				}
				nm, _, err := simcost.Measure(c, nat, "gfx942")
				if err != nil {
					b.Fatal(err)
				}
				nc := nm.Counts
				_, rn := cost.Ratio(nc, hc)
				native = append(native, rn)
				nativePasses = append(nativePasses, float64(hm.Passes)/float64(nm.Passes))
				nativeN = fmt.Sprint(nc.Total())
			} else {
				only950 = append(only950, r)
				only950Passes = append(only950Passes, passes[len(passes)-1])
			}
			if n == 0 {
				b.Logf("%-32s guest %9d host %9d  %.3fx  weighted %.3fx  passes %.3fx  (native gfx942 %s)", c.Name, gc.Total(), hc.Total(), r, weighted[len(weighted)-1], passes[len(passes)-1], nativeN)
			}
		}
	}
	if len(ratios) == 0 {
		b.Fatal("no kernel ran")
	}
	for _, xs := range [][]float64{ratios, only950, weighted, native, passes, nativePasses, only950Passes} {
		sort.Float64s(xs)
	}
	b.ReportMetric(float64(len(ratios)), "kernels")
	b.ReportMetric(quantile(ratios, 0.5), "p50-dyn-ratio")
	b.ReportMetric(ratios[len(ratios)-1], "max-dyn-ratio")
	b.ReportMetric(quantile(weighted, 0.5), "p50-weighted-ratio")
	if len(only950) > 0 {
		b.ReportMetric(float64(len(only950)), "gfx950-only-kernels")
		b.ReportMetric(quantile(only950, 0.5), "gfx950-only-p50-ratio")
		b.ReportMetric(only950[len(only950)-1], "gfx950-only-max-ratio")
		b.ReportMetric(quantile(only950Passes, 0.5), "gfx950-only-p50-passes-ratio")
	}
	b.ReportMetric(quantile(native, 0.5), "p50-vs-native-gfx942")
	b.ReportMetric(quantile(passes, 0.5), "p50-passes-ratio")
	b.ReportMetric(float64(hp)/float64(gp), "total-passes-ratio")
	b.ReportMetric(quantile(nativePasses, 0.5), "p50-passes-vs-native-gfx942")
	per, tot := cost.Ratio(g, h)
	b.ReportMetric(tot, "total-dyn-ratio")
	b.ReportMetric(per[cost.MFMA], "mfma-ratio")
	b.ReportMetric(per[cost.VALU], "valu-ratio")
	b.ReportMetric(per[cost.Memory], "mem-ratio")
	b.ReportMetric(per[cost.SALU], "salu-ratio")
}
