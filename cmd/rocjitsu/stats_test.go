package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

func TestTranslateStats(t *testing.T) {
	in := filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "gfx950", "gfx950_minmax3.co")
	dir := t.TempDir()
	out, rep := filepath.Join(dir, "out.co"), filepath.Join(dir, "r.json")
	var stdout, stderr bytes.Buffer
	if rc := runMain([]string{"translate", "--to", "gfx942", "--stats", in, "-o", out, "--report", rep}, &stdout, &stderr); rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr.String())
	}
	for _, want := range []string{"x)", "static instructions: guest", "executed instructions: guest", "issue-cycle model"} {
		if !strings.Contains(stderr.String(), want) {
			t.Fatalf("no %q in\n%s", want, stderr.String())
		}
	}
	j, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := report.Unmarshal(j)
	if err != nil || len(objs) != 1 || len(objs[0].Kernels) != 1 {
		t.Fatalf("report: %v %+v", err, objs)
	}
	k := objs[0].Kernels[0]
	if k.Static == nil || k.Dynamic == nil {
		t.Fatalf("kernel %s: static %v dynamic %v", k.Name, k.Static, k.Dynamic)
	}
	// v_maximum3/v_minimum3-style ops expand on gfx942: the host executes
	// more VALU instructions than the guest, and the same memory ones.
	if k.Dynamic.Host.VALU <= k.Dynamic.Guest.VALU || k.Dynamic.Host.Memory != k.Dynamic.Guest.Memory {
		t.Fatalf("dynamic counts %+v", *k.Dynamic)
	}
	// No MFMA on either side: every executed instruction weighs one pass.
	if k.Dynamic.GuestPasses != k.Dynamic.Guest.Total() || k.Dynamic.HostPasses != k.Dynamic.Host.Total() {
		t.Fatalf("issue-cycle passes %d/%d, counts %d/%d", k.Dynamic.GuestPasses, k.Dynamic.HostPasses, k.Dynamic.Guest.Total(), k.Dynamic.Host.Total())
	}
	if k.Static.Ratio() <= 1 || k.Dynamic.Ratio() <= 1 {
		t.Fatalf("ratios static %v dynamic %v", k.Static.Ratio(), k.Dynamic.Ratio())
	}
}
