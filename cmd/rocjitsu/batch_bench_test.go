package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
// It reports both wall times, the wall and CPU-time ratios and the
// batch's MB of guest .text per wall and per CPU second.
func BenchmarkTranslateBatch(b *testing.B) {
	bin := buildCLI(b)
	ins, text := translateInputs(b)
	dir := b.TempDir()
	var per, batch, perCPU, batchCPU time.Duration
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		t0 := time.Now()
		for _, in := range ins {
			// Exit 3 (rejected) is an outcome, not a failure.
			cmd := exec.Command(bin, "translate", "--to", "gfx942", in, "-o", filepath.Join(dir, "one.co"))
			if err := cmd.Run(); err != nil {
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
					b.Fatalf("%s: %v", in, err)
				}
			}
			perCPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		per += time.Since(t0)
		t0 = time.Now()
		cmd := exec.Command(bin, append([]string{"translate", "--to", "gfx942", "-o", filepath.Join(dir, "batch")}, ins...)...)
		if err := cmd.Run(); err != nil {
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
				b.Fatalf("batch: %v", err)
			}
		}
		batch += time.Since(t0)
		batchCPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	b.StopTimer()
	N := float64(b.N)
	b.ReportMetric(float64(len(ins)), "objects")
	b.ReportMetric(per.Seconds()/N*1e3, "per-process-ms")
	b.ReportMetric(batch.Seconds()/N*1e3, "batch-ms")
	b.ReportMetric(per.Seconds()/batch.Seconds(), "x-batch-vs-per-process")
	b.ReportMetric(perCPU.Seconds()/batchCPU.Seconds(), "x-cpu-batch-vs-per-process")
	b.ReportMetric(float64(text)*N/batch.Seconds()/1e6, "batch-text-MB/s")
	b.ReportMetric(float64(text)*N/batchCPU.Seconds()/1e6, "batch-text-MB/cpu-s")
}
