package sim

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

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

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// BenchmarkMatmulNaive runs the compute-heavy matmul_naive corpus kernel on
// the simulator and the same computation in Go in the same run. It reports
// simulated lane-instructions per second and the simulator's time as a
// multiple of the Go reference's.
func BenchmarkMatmulNaive(b *testing.B) {
	c, ok := kernelref.Lookup("matmul_naive")
	if !ok {
		b.Fatal("no matmul_naive case")
	}
	image, err := os.ReadFile(filepath.Join(projectpath.MustRoot(b), c.Object("gfx942")))
	if err != nil {
		b.Fatal(err)
	}
	a, err := NewAgent("gfx942")
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
	b.ResetTimer()
	lanes0 := a.Stats.LaneInstructions
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if err := a.Dispatch(k, c.Grid, c.Block, ka); err != nil {
			b.Fatal(err)
		}
	}
	simT := time.Since(start)
	start = time.Now()
	for i := 0; i < b.N; i++ {
		goMatmul(A, B, C, M, N, K)
	}
	goT := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(a.Stats.LaneInstructions-lanes0)/simT.Seconds(), "lane-inst/s")
	b.ReportMetric(simT.Seconds()/goT.Seconds(), "x-time-vs-go-reference")
}
