package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// disasmListing is the many-object listing of the disassembly benchmark:
// the aiter gfx942 objects and the gfx942 test kernels, repeated in order
// until there are n paths.
func disasmListing(b *testing.B, n int) []string {
	b.Helper()
	aiter, _ := filepath.Glob(filepath.Join(projectpath.MustShared(b, "corpus", "aiter", "gfx942"), "*.co"))
	tk, _ := filepath.Glob(filepath.Join(projectpath.MustRoot(b), "testdata", "kernels", "gfx942", "*.co"))
	all := append(aiter, tk...)
	if len(aiter) == 0 {
		b.Fatal("no gfx942 objects")
	}
	out := make([]string, n)
	for i := range out {
		out[i] = all[i%len(all)]
	}
	return out
}

// runTimed runs cmd with its stdout in out (reset first) and returns the
// output, wall time and CPU time.
func runTimed(b *testing.B, out *bytes.Buffer, name string, args ...string) ([]byte, time.Duration, time.Duration) {
	b.Helper()
	out.Reset()
	var errb bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = out, &errb
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s: %v\n%s", name, err, errb.String())
	}
	wall := time.Since(t0)
	return out.Bytes(), wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// BenchmarkDisasmListing disassembles, with one `rocjitsu disasm` process
// and with one `llvm-objdump-19 -d --mcpu=gfx942` process, interleaved, a
// listing of 300 gfx942 objects (paths repeat: the project holds fewer;
// sub-benchmark objects=300) and the listing of each object once
// (distinct, where no object's code is seen twice), checks the two
// outputs are identical, and reports the wall-time and CPU-time ratios
// (objdump / rocjitsu).
func BenchmarkDisasmListing(b *testing.B) {
	objdump := llvmtool.Require(b, llvmtool.Objdump)
	bin := buildCLI(b)
	all := disasmListing(b, 300)
	distinct := disasmListing(b, 1)
	for _, p := range all[1:] {
		if p == distinct[0] {
			break
		}
		distinct = append(distinct, p)
	}
	b.Run("objects=300", func(b *testing.B) { benchListing(b, objdump, bin, all) })
	b.Run("distinct", func(b *testing.B) { benchListing(b, objdump, bin, distinct) })
}

func benchListing(b *testing.B, objdump, bin string, files []string) {
	// The listing is ~73 MB: both outputs go to buffers sized and paged in
	// before timing, so that neither tool's figure includes this process
	// growing a bytes.Buffer while it waits on the pipe.
	var oursOut, theirsOut bytes.Buffer
	for _, buf := range []*bytes.Buffer{&oursOut, &theirsOut} {
		buf.Write(make([]byte, 96<<20))
	}
	var oursW, oursC, theirsW, theirsC time.Duration
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		ours, w, c := runTimed(b, &oursOut, bin, append([]string{"disasm"}, files...)...)
		oursW, oursC = oursW+w, oursC+c
		theirs, w, c := runTimed(b, &theirsOut, objdump, append([]string{"-d", "--mcpu=gfx942"}, files...)...)
		theirsW, theirsC = theirsW+w, theirsC+c
		if n == 0 && !bytes.Equal(ours, theirs) {
			b.Fatalf("rocjitsu disasm output (%d bytes) differs from llvm-objdump's (%d bytes)", len(ours), len(theirs))
		}
	}
	b.StopTimer()
	N := float64(b.N)
	b.ReportMetric(float64(len(files)), "objects")
	b.ReportMetric(oursW.Seconds()/N*1e3, "rocjitsu-ms")
	b.ReportMetric(oursC.Seconds()/N*1e3, "rocjitsu-cpu-ms")
	b.ReportMetric(theirsW.Seconds()/N*1e3, "objdump-ms")
	b.ReportMetric(theirsC.Seconds()/N*1e3, "objdump-cpu-ms")
	b.ReportMetric(theirsW.Seconds()/oursW.Seconds(), "x-wall-vs-objdump")
	b.ReportMetric(theirsC.Seconds()/oursC.Seconds(), "x-cpu-vs-objdump")
}
