package pipeline

import (
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rocjitsu/rocjitsu/sqtt/attdir"
	"github.com/rocjitsu/rocjitsu/sqtt/flame"
	"github.com/rocjitsu/rocjitsu/sqtt/perfetto"
	"github.com/rocjitsu/rocjitsu/sqtt/waves"
)

// The benchmarks run on a trace of 10 million shaderdata records over 2,000
// waves written by ../shared/tools/gen_sqtt_trace.py (seed 42) into a
// temporary directory, generated once per test binary. Set
// ROCJITSU_SQTT_BENCH_DIR to reuse an existing tree, or
// ROCJITSU_SQTT_BENCH_RECORDS to change the size.
var (
	benchOnce sync.Once
	benchDir  string
	benchTmp  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchTmp != "" {
		os.RemoveAll(benchTmp)
	}
	os.Exit(code)
}

func benchTrace(b *testing.B) string {
	benchOnce.Do(func() {
		if d := os.Getenv("ROCJITSU_SQTT_BENCH_DIR"); d != "" {
			benchDir = d
			return
		}
		records := 10_000_000
		if s := os.Getenv("ROCJITSU_SQTT_BENCH_RECORDS"); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				b.Fatalf("ROCJITSU_SQTT_BENCH_RECORDS: %v", err)
			}
			records = n
		}
		tmp, err := os.MkdirTemp("", "sqtt-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchTmp = tmp
		start := time.Now()
		benchDir = generateInto(b, tmp, records, 2000, 42)
		b.Logf("generated %d records in %v", records, time.Since(start).Round(time.Second))
	})
	if benchDir == "" {
		b.Fatal("no benchmark trace")
	}
	return benchDir
}

// peakHeap samples the Go heap while fn runs and returns the largest heap
// in use (live and not yet swept objects plus free space in in-use spans)
// above the level before the run. It reads runtime/metrics, which does not
// stop the world.
func peakHeap(fn func()) (uint64, time.Duration) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64() + sample[1].Value.Uint64()
	}
	runtime.GC()
	base := read()
	cpu0 := cpuTime()
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if v := read(); v > peak.Load() {
					peak.Store(v)
				}
			}
		}
	}()
	start := time.Now()
	fn()
	el := time.Since(start)
	close(done)
	wg.Wait()
	lastCPU = cpuTime() - cpu0
	p := max(peak.Load(), read())
	if p > base {
		return p - base, el
	}
	return 0, el
}

// lastCPU is the process CPU time (user + system) of the last peakHeap
// run: the machine is shared, so wall time alone overstates the cost.
var lastCPU time.Duration

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type benchResult struct {
	records int64
	peak    uint64
	elapsed time.Duration
	cpu     time.Duration
}

func runFlame(b *testing.B, dir string, loadAll bool) benchResult {
	c, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	var res benchResult
	res.peak, res.elapsed = peakHeap(func() {
		var stacks []flame.Stack
		for _, tdir := range c.Traces {
			if loadAll {
				tr, err := attdir.OpenTrace(tdir)
				if err != nil {
					b.Fatal(err)
				}
				trie := waves.NewTrie()
				p := waves.NewProcessor(waves.Config{Funcmaps: c.Funcmaps(tr), Occupancy: tr.Occupancy, Trie: trie}, &flame.Collector{})
				if err := tr.Sorted(func(r attdir.Record) error { p.Record(r); return nil }); err != nil {
					b.Fatal(err)
				}
				p.Close()
				res.records += p.Records
				stacks = append(stacks, flame.Stacks(trie, true)...)
				continue
			}
			var trie *waves.Trie
			st, err := c.Run(tdir, func() (waves.Sink, *waves.Trie) { trie = waves.NewTrie(); return &flame.Collector{}, trie })
			if err != nil {
				b.Fatal(err)
			}
			res.records += st.Records
			stacks = append(stacks, flame.Stacks(trie, true)...)
		}
		if err := flame.WriteSVG(io.Discard, flame.Merge(stacks), benchSVG); err != nil {
			b.Fatal(err)
		}
	})
	res.cpu = lastCPU
	return res
}

var benchSVG = flame.SVGOptions{Title: "bench"}

func report(b *testing.B, ours, peer benchResult) {
	b.ReportMetric(float64(ours.records)/ours.elapsed.Seconds(), "records/s")
	b.ReportMetric(float64(ours.peak)/(1<<20), "peak-heap-MB")
	if ours.cpu > 0 {
		b.ReportMetric(float64(ours.records)/ours.cpu.Seconds(), "records/cpu-s")
	}
	if peer.elapsed > 0 {
		b.ReportMetric(float64(peer.peak)/float64(max(ours.peak, 1)), "mem-x-vs-load-all")
		b.ReportMetric(peer.elapsed.Seconds()/ours.elapsed.Seconds(), "speed-x-vs-load-all")
	}
}

// BenchmarkFlamegraph measures streaming flamegraph generation (SVG) and,
// as the same-run peer, the load-all-records-then-sort approach of the
// upstream scripts implemented with the same decoder.
func BenchmarkFlamegraph(b *testing.B) {
	dir := benchTrace(b)
	b.ResetTimer()
	var ours, peer benchResult
	for i := 0; i < b.N; i++ {
		ours = runFlame(b, dir, false)
	}
	b.StopTimer()
	if os.Getenv("ROCJITSU_SQTT_BENCH_NO_PEER") == "" {
		peer = runFlame(b, dir, true)
	}
	report(b, ours, peer)
	if benchTmp != "" && ours.records >= 1_000_000 {
		// Same 2,000 waves, a tenth of the records: the peak heap should
		// not change, because state is per wave, not per record.
		small := generateInto(b, b.TempDir(), int(ours.records/10), 2000, 42)
		s := runFlame(b, small, false)
		b.ReportMetric(float64(ours.peak)/float64(max(s.peak, 1)), "heap-x-for-10x-records")
	}
}

// BenchmarkPerfetto measures streaming Perfetto JSON generation; the
// output goes to a temporary file that is removed.
func BenchmarkPerfetto(b *testing.B) {
	dir := benchTrace(b)
	c, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	out := b.TempDir()
	b.ResetTimer()
	var ours benchResult
	for i := 0; i < b.N; i++ {
		ours = benchResult{}
		ours.peak, ours.elapsed = peakHeap(func() {
			for _, tdir := range c.Traces {
				var w *perfetto.Writer
				st, err := c.Run(tdir, func() (waves.Sink, *waves.Trie) {
					if w != nil {
						w.Close()
					}
					var err error
					if w, err = perfetto.NewWriter(out, perfetto.Options{Demangle: true}); err != nil {
						b.Fatal(err)
					}
					return w, nil
				})
				if err != nil {
					b.Fatal(err)
				}
				f, err := os.Create(out + "/trace.perfetto.json")
				if err != nil {
					b.Fatal(err)
				}
				if err := w.Finish(f); err != nil {
					b.Fatal(err)
				}
				f.Close()
				ours.records += st.Records
			}
		})
		ours.cpu = lastCPU
	}
	b.StopTimer()
	report(b, ours, benchResult{})
}
