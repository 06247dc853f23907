package sim

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// goMatmul is the Go CPU reference of matmul_naive: the same computation
// (f32 products accumulated in f32) as the kernel.
func goMatmul(A, B, C []float32, M, N, K int) {
	for r := 0; r < M; r++ {
		for c := 0; c < N; c++ {
			var acc float32
			for k := 0; k < K; k++ {
				acc += A[r*K+k] * B[k*N+c]
			}
			C[r*N+c] = acc
		}
	}
}

// threadCPU returns the calling OS thread's user+system CPU time, so
// throughput is measured per core even on a loaded machine.
func threadCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// BenchmarkMatmulNaive runs the compute-heavy matmul_naive corpus kernel on
// the simulator, as gfx942 wave64 code and as gfx1201 wave32 code, and the
// same computation in Go in the same run. It reports simulated
// lane-instructions per second and the simulator's time as a multiple of
// the Go reference's.
func BenchmarkMatmulNaive(b *testing.B) {
	for _, target := range []string{"gfx942", "gfx1201"} {
		b.Run(target, func(b *testing.B) { benchMatmul(b, target) })
	}
}

func benchMatmul(b *testing.B, target string) {
	c, ok := kernelref.Lookup("matmul_naive")
	if !ok {
		b.Fatal("no matmul_naive case")
	}
	image, err := os.ReadFile(filepath.Join(projectpath.MustRoot(b), c.Object(target)))
	if err != nil {
		b.Fatal(err)
	}
	a, err := NewAgent(target)
	if err != nil {
		b.Fatal(err)
	}
	ex, err := a.LoadCodeObject(image)
	if err != nil {
		b.Fatal(err)
	}
	k, err := ex.Kernel(c.Name)
	if err != nil {
		b.Fatal(err)
	}
	addrs := map[int]uint64{}
	for _, i := range c.Buffers() {
		addr, err := a.Alloc(uint64(len(c.Args[i].Init)))
		if err != nil {
			b.Fatal(err)
		}
		if err := a.CopyIn(addr, c.Args[i].Init); err != nil {
			b.Fatal(err)
		}
		addrs[i] = addr
	}
	ka, err := c.Kernarg(addrs)
	if err != nil {
		b.Fatal(err)
	}
	A, B := f32s(c.Args[0].Init), f32s(c.Args[1].Init)
	M := int(binary.LittleEndian.Uint32(c.Args[3].Value))
	N := int(binary.LittleEndian.Uint32(c.Args[4].Value))
	K := int(binary.LittleEndian.Uint32(c.Args[5].Value))
	C := make([]float32, M*N)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	lanes0 := a.Stats.LaneInstructions
	cpu0 := threadCPU()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if err := a.Dispatch(k, c.Grid, c.Block, ka); err != nil {
			b.Fatal(err)
		}
	}
	simT := time.Since(start)
	simCPU := threadCPU() - cpu0
	cpu0 = threadCPU()
	for i := 0; i < b.N; i++ {
		goMatmul(A, B, C, M, N, K)
	}
	goCPU := threadCPU() - cpu0
	b.StopTimer()
	lanes := float64(a.Stats.LaneInstructions - lanes0)
	b.ReportMetric(lanes/simT.Seconds(), "lane-inst/s")
	if simCPU > 0 && goCPU > 0 {
		// Per core: CPU time of this thread, immune to other processes.
		b.ReportMetric(lanes/simCPU.Seconds(), "lane-inst/cpu-s")
		b.ReportMetric(simCPU.Seconds()/goCPU.Seconds(), "x-cputime-vs-go-reference")
	}
}
