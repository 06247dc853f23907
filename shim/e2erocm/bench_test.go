package e2erocm

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// BenchmarkHIPLaunch measures, in one run, the round trip of an empty HIP
// kernel launch followed by hipDeviceSynchronize on the simulated gfx942
// through the real HIP 5.7 and ROCR 6.1 (hip_bench, 2,000 launches), and
// the CPU an idle process with four open streams uses. The baseline,
// measured in the same run, is the simulator alone dispatching an
// early-exit kernel (vector_add with n = 0) through sim.Agent: the ratio
// says what the driver boundary, the command processor and the ROCm
// userland add. Metrics: p50-us, p90-us, idle-cpu-pct, sim-dispatch-us,
// p50-x-vs-sim-dispatch. The aims: p50 under 50 us, idle CPU
// under 1%.
func BenchmarkHIPLaunch(b *testing.B) {
	bt := setup(b)
	base := simDispatch(b)
	var p50, p90, idle float64
	for i := 0; i < b.N; i++ {
		r := bt.run(b, b.TempDir(), runOpts{timeout: 5 * time.Minute}, "hip_bench", "-n", "2000", "-idle", "2")
		expectPass(b, r)
		if b.Failed() {
			return
		}
		rt, _ := r.line("ok launch-roundtrip ")
		id, _ := r.line("ok idle-cpu ")
		p50, p90, idle = field(b, rt, "p50_us"), field(b, rt, "p90_us"), field(b, id, "percent")
	}
	b.ReportMetric(p50, "p50-us")
	b.ReportMetric(p90, "p90-us")
	b.ReportMetric(idle, "idle-cpu-pct")
	b.ReportMetric(base, "sim-dispatch-us")
	b.ReportMetric(p50/base, "p50-x-vs-sim-dispatch")
}

// simDispatch returns the median time of a direct simulator dispatch of an
// early-exit kernel, in microseconds.
func simDispatch(b *testing.B) float64 {
	root := projectpath.MustRoot(b)
	img, err := os.ReadFile(filepath.Join(root, "testdata/kernels/gfx942/vector_add.co"))
	if err != nil {
		b.Fatal(err)
	}
	a, err := sim.NewAgent("gfx942")
	if err != nil {
		b.Fatal(err)
	}
	ex, err := a.LoadCodeObject(img)
	if err != nil {
		b.Fatal(err)
	}
	k, err := ex.Kernel("vector_add")
	if err != nil {
		b.Fatal(err)
	}
	ka := make([]byte, k.KernargSegmentSize) // null pointers, n = 0: every lane exits
	var ts []float64
	for i := 0; i < 2000; i++ {
		t0 := time.Now()
		if err := a.Dispatch(k, [3]uint32{64, 1, 1}, [3]uint32{64, 1, 1}, ka); err != nil {
			b.Fatalf("direct dispatch: %v", err)
		}
		ts = append(ts, float64(time.Since(t0).Nanoseconds())/1e3)
	}
	sort.Float64s(ts)
	if !strings.Contains(k.Name, "vector_add") {
		b.Fatalf("kernel %q", k.Name)
	}
	return ts[len(ts)/2]
}
