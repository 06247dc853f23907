package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader"
)

// buildCLI builds this command into a temporary directory.
func buildCLI(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "rocjitsu")
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// translateInputs lists the aiter gfx950 objects and the gfx950 test
// kernels, and their total .text bytes.
func translateInputs(b *testing.B) ([]string, int) {
	b.Helper()
	aiter, _ := filepath.Glob(filepath.Join(projectpath.MustShared(b, "corpus", "aiter", "gfx950"), "*.co"))
	tk, _ := filepath.Glob(filepath.Join(projectpath.MustRoot(b), "testdata", "kernels", "gfx950", "*.co"))
	ins := append(aiter, tk...)
	if len(aiter) == 0 || len(tk) == 0 {
		b.Fatal("no inputs")
	}
	text := 0
	for _, p := range ins {
		raw, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		f, err := loader.Parse(raw)
		if err != nil {
			b.Fatal(err)
		}
		if s := f.Section(".text"); s != nil {
			text += len(s.Data)
		}
	}
	return ins, text
}

// BenchmarkTranslateBatch translates the aiter gfx950 objects and the
// gfx950 test kernels for gfx942 twice per iteration with the built CLI:
// one `rocjitsu translate IN -o OUT` process per object, one after another
// (the baseline), and one `rocjitsu translate -o DIR IN...` batch process.
// Both sides write every translation to its own new file in a directory of
// their own for the iteration (rewriting one file per process would make
// the baseline pay the file system's truncation and early writeback that
// the batch does not). It reports both wall times, the CPU time per object
// of each side and of starting a process (`rocjitsu version`, the part of
// the baseline a batch pays once), the wall and CPU-time ratios and the
// batch's MB of guest .text per wall and per CPU second.
func BenchmarkTranslateBatch(b *testing.B) {
	bin := buildCLI(b)
	ins, text := translateInputs(b)
	dir := b.TempDir()
	var per, batch, perCPU, batchCPU, startCPU time.Duration
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		perDir := filepath.Join(dir, fmt.Sprintf("per%d", n))
		if err := os.Mkdir(perDir, 0o755); err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		for _, in := range ins {
			perCPU += runCLI(b, bin, "translate", "--to", "gfx942", in, "-o", filepath.Join(perDir, filepath.Base(in)))
		}
		per += time.Since(t0)
		t0 = time.Now()
		batchCPU += runCLI(b, bin, append([]string{"translate", "--to", "gfx942", "-o", filepath.Join(dir, fmt.Sprintf("batch%d", n))}, ins...)...)
		batch += time.Since(t0)
		for range startRuns {
			startCPU += runCLI(b, bin, "version")
		}
	}
	b.StopTimer()
	N := float64(b.N)
	objs := float64(len(ins))
	b.ReportMetric(objs, "objects")
	b.ReportMetric(per.Seconds()/N*1e3, "per-process-ms")
	b.ReportMetric(batch.Seconds()/N*1e3, "batch-ms")
	b.ReportMetric(perCPU.Seconds()/N/objs*1e3, "per-process-cpu-ms/object")
	b.ReportMetric(batchCPU.Seconds()/N/objs*1e3, "batch-cpu-ms/object")
	b.ReportMetric(startCPU.Seconds()/N/startRuns*1e3, "start-cpu-ms/process")
	b.ReportMetric(per.Seconds()/batch.Seconds(), "x-batch-vs-per-process")
	b.ReportMetric(perCPU.Seconds()/batchCPU.Seconds(), "x-cpu-batch-vs-per-process")
	b.ReportMetric(float64(text)*N/batch.Seconds()/1e6, "batch-text-MB/s")
	b.ReportMetric(float64(text)*N/batchCPU.Seconds()/1e6, "batch-text-MB/cpu-s")
}

// startRuns is the number of `rocjitsu version` processes an iteration of
// BenchmarkTranslateBatch times for the cost of starting one.
const startRuns = 20

// runCLI runs bin with args, its output discarded, and returns the CPU
// time (user and system) the process used. Exit 3 (a rejected
// translation) is an outcome, not a failure.
func runCLI(b *testing.B, bin string, args ...string) time.Duration {
	b.Helper()
	cmd := exec.Command(bin, args...)
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
			b.Fatalf("rocjitsu %s: %v", strings.Join(args[:min(len(args), 4)], " "), err)
		}
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}
