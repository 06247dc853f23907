package dbt

import (
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
)

// BenchmarkTranslateCorpus translates every aiter gfx950 object and every
// gfx950 test kernel per iteration. It reports translated source .text
// MB/s, the per-object latency p50/p99, and the throughput ratio against
// llvm-objdump-19 -d --mcpu=gfx942 disassembling the same objects in the
// same run (a peer that only decodes; > 1 means faster than it). One
// sub-benchmark per host: gfx942 and gfx1201 (where most aiter objects are
// rejected early, so its figure mostly measures the test kernels).
func BenchmarkTranslateCorpus(b *testing.B) {
	for _, host := range []isa.Target{isa.GFX942, isa.GFX1201} {
		b.Run(host.String(), func(b *testing.B) { benchTranslateCorpus(b, host) })
	}
}

func benchTranslateCorpus(b *testing.B, host isa.Target) {
	objdump := llvmtool.Require(b, llvmtool.Objdump)
	paths := append(corpus(b, "gfx950"), testKernels(b, "gfx950")...)
	objs := make([][]byte, len(paths))
	textBytes := 0
	for i, p := range paths {
		objs[i] = readFile(b, p)
		textBytes += len(textOf(b, objs[i]))
	}
	// Peer: llvm-objdump over the same objects, timed once.
	peerStart := time.Now()
	for _, p := range paths {
		if out, err := exec.Command(objdump, "-d", "--mcpu=gfx942", p).CombinedOutput(); err != nil {
			b.Fatalf("%s: %v\n%s", p, err, out)
		}
	}
	peer := time.Since(peerStart)

	lat := make([]time.Duration, 0, b.N*len(objs))
	b.SetBytes(int64(textBytes))
	b.ResetTimer()
	start := time.Now()
	for n := 0; n < b.N; n++ {
		for _, o := range objs {
			t0 := time.Now()
			_, _ = Translate(o, Options{Host: host})
			lat = append(lat, time.Since(t0))
		}
	}
	total := time.Since(start)
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	mbps := float64(textBytes) * float64(b.N) / total.Seconds() / 1e6
	peerMBps := float64(textBytes) / peer.Seconds() / 1e6
	b.ReportMetric(mbps, "text-MB/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-us/object")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-us/object")
	b.ReportMetric(mbps/peerMBps, "x-vs-llvm-objdump")
	_ = filepath.Base
}
