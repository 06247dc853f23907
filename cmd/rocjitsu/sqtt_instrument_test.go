package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// TestSQTTInstrumentCLI instruments a test kernel through the CLI, reads
// the funcmap back with `sqtt funcmap`, and checks flag errors.
func TestSQTTInstrumentCLI(t *testing.T) {
	in := filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "gfx1201", "matmul_tiled.co")
	out := filepath.Join(t.TempDir(), "out.co")
	stdout, errs, code := runSQTTCmd(t, "instrument", in, "-o", out, "--barriers", "--memory", "4:8", "--loops",
		"--scope-simd", "0x1", "--sites")
	if code != 0 || !strings.Contains(stdout, "gfx1201, ") || !strings.Contains(stdout, "matmul_tiled\tbefore 0x") {
		t.Fatalf("instrument: %d\n%s%s", code, stdout, errs)
	}
	fm, errs, code := runSQTTCmd(t, "funcmap", "-format", "section", out)
	if code != 0 || !strings.Contains(fm, "K:matmul_tiled\n") || !strings.Contains(fm, ":barrier\n") || !strings.Contains(fm, ":vmem_load\n") ||
		!strings.Contains(fm, "U:") {
		t.Fatalf("funcmap: %d\n%s%s", code, fm, errs)
	}
	for _, bad := range [][]string{
		{"instrument", in}, // no -o
		{"instrument", in, "-o", out, "--memory", "4"},           // bad N:M
		{"instrument", in, "-o", out, "--functions", "cost:x"},   // bad threshold
		{"instrument", in, "-o", out, "--region", "a=0x10"},      // bad region
		{"instrument", in, "-o", out, "--scope-wave", "zz"},      // bad mask
		{"instrument", in, "-o", out, "--addresses", "register"}, // bad class
	} {
		if _, _, code := runSQTTCmd(t, bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
	if _, errs, code := runSQTTCmd(t, "instrument", in, "-o", out, "--memory", "4:8", "--addresses", "memory"); code != 1 || !strings.Contains(errs, "mutually exclusive") {
		t.Errorf("--memory with --addresses: exit %d %s", code, errs)
	}
}

// TestSQTTMemtraceCLI: usage and missing-trace errors.
func TestSQTTMemtraceCLI(t *testing.T) {
	if _, _, code := runSQTTCmd(t, "memtrace"); code != 2 {
		t.Errorf("no dir: exit %d, want 2", code)
	}
	if _, errs, code := runSQTTCmd(t, "memtrace", t.TempDir()); code != 1 || !strings.Contains(errs, "no ui_* directory") {
		t.Errorf("empty dir: exit %d %s", code, errs)
	}
}
