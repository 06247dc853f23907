package dbt

import (
	"syscall"
	"testing"
	"time"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// cpuTime is the process's user+system CPU time.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTranslateThroughput translates every aiter gfx950 object and
// every gfx950 test kernel for gfx942 per iteration, in this process, one
// object after another, and reports guest .text MB per wall second and per
// CPU second (the per-core figure: kernels of one object may be translated
// on several cores).
func BenchmarkTranslateThroughput(b *testing.B) {
	paths := append(corpus(b, "gfx950"), testKernels(b, "gfx950")...)
	objs := make([][]byte, len(paths))
	textBytes := 0
	for i, p := range paths {
		objs[i] = readFile(b, p)
		textBytes += len(textOf(b, objs[i]))
	}
	b.SetBytes(int64(textBytes))
	b.ResetTimer()
	c0, t0 := cpuTime(b), time.Now()
	for n := 0; n < b.N; n++ {
		for _, o := range objs {
			_, _ = Translate(o, Options{Host: isa.GFX942})
		}
	}
	wall, cpu := time.Since(t0), cpuTime(b)-c0
	b.StopTimer()
	total := float64(textBytes) * float64(b.N) / 1e6
	b.ReportMetric(total/wall.Seconds(), "text-MB/s")
	b.ReportMetric(total/cpu.Seconds(), "text-MB/cpu-s")
}
