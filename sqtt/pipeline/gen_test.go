package pipeline

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// generate writes a synthetic rocprofv3 --att tree with the shared
// generator (gen_sqtt_trace.py) into a temporary directory.
func generate(tb testing.TB, records, waves int, seed int) string {
	tb.Helper()
	return generateInto(tb, tb.TempDir(), records, waves, seed)
}

// generateInto runs the generator with its output in parent/trace.
func generateInto(tb testing.TB, parent string, records, waves int, seed int) string {
	tb.Helper()
	gen := projectpath.MustShared(tb, "tools", "gen_sqtt_trace.py")
	py, err := exec.LookPath("python3")
	if err != nil {
		tb.Fatalf("python3 is needed to run %s (install the python3 package): %v", gen, err)
	}
	out := filepath.Join(parent, "trace")
	cmd := exec.Command(py, gen, "--waves", fmt.Sprint(waves), "--records", fmt.Sprint(records), "--seed", fmt.Sprint(seed), "--out", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("%s: %v\n%s", gen, err, msg)
	}
	return out
}
