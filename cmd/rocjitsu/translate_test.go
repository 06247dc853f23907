package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader"
)

func TestTranslateCommand(t *testing.T) {
	in := filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "gfx950", "gfx950_bitop3.co")
	dir := t.TempDir()
	out, rep := filepath.Join(dir, "out.co"), filepath.Join(dir, "r.json")
	var stdout, stderr bytes.Buffer
	if rc := runMain([]string{"translate", "--to", "gfx942", in, "-o", out, "--report", rep, "--diff"}, &stdout, &stderr); rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	f, err := loader.Parse(b)
	if err != nil || f.Processor.Name != "gfx942" {
		t.Fatalf("output: %v %q", err, f.Processor.Name)
	}
	j, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := report.Unmarshal(j)
	if err != nil || len(objs) != 1 || !objs[0].Committed {
		t.Fatalf("report: %v %+v", err, objs)
	}
	if !strings.Contains(stdout.String(), "- v_bitop3_b32") || !strings.Contains(stdout.String(), "+ v_") {
		t.Fatalf("--diff output lacks the bitop3 expansion:\n%s", stdout.String())
	}
}

func TestTranslateCommandRejects(t *testing.T) {
	// A call through a function-pointer table loaded from memory: no
	// concrete target set can be proven, so the translator fails closed.
	in := filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "gfx950", "indirect_call.co")
	out := filepath.Join(t.TempDir(), "out.co")
	var stdout, stderr bytes.Buffer
	if rc := runMain([]string{"translate", in, "-o", out}, &stdout, &stderr); rc != 3 {
		t.Fatalf("exit %d, want 3 (rejected): %s", rc, stderr.String())
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("rejected translation wrote an output")
	}
	if !strings.Contains(stderr.String(), "s_swappc_b64") || !strings.Contains(stderr.String(), "unrecovered indirect transfer") {
		t.Fatalf("no rejection reason:\n%s", stderr.String())
	}
}

func TestTranslateHistogram(t *testing.T) {
	var stdout, stderr bytes.Buffer
	in := filepath.Join(projectpath.MustShared(t, "corpus", "aiter", "gfx950"), "bf16gemm_bf16gemm_bf16_tn_256x256.co")
	if rc := runMain([]string{"translate", "--histogram", in}, &stdout, &stderr); rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr.String())
	}
	if !strings.Contains(stdout.String(), "v_mfma_f32_16x16x32_bf16") || !strings.Contains(stdout.String(), "mfma-split") {
		t.Fatalf("histogram:\n%s", stdout.String())
	}
	if rc := runMain([]string{"translate", "--to", "gfx1"}, &stdout, &stderr); rc != 2 {
		t.Fatalf("bad target: exit %d", rc)
	}
}

// TestTranslateCommandGFX12: --to gfx1201 writes a gfx1201 object, --diff
// prints the gfx12 host code (the split wait counters), and a kernel
// without a rule is rejected with exit 3 and its reason.
func TestTranslateCommandGFX12(t *testing.T) {
	root := projectpath.MustRoot(t)
	in := filepath.Join(root, "testdata", "kernels", "gfx950", "vector_add.co")
	out := filepath.Join(t.TempDir(), "out.co")
	var stdout, stderr bytes.Buffer
	if rc := runMain([]string{"translate", "--to", "gfx1201", in, "-o", out, "--diff"}, &stdout, &stderr); rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	f, err := loader.Parse(b)
	if err != nil || f.Processor.Name != "gfx1201" {
		t.Fatalf("output: %v %q", err, f.Processor.Name)
	}
	if !strings.Contains(stdout.String(), "- s_waitcnt") || !strings.Contains(stdout.String(), "+ s_wait_loadcnt") {
		t.Fatalf("--diff output lacks the wait split:\n%s", stdout.String())
	}
	stdout.Reset()
	stderr.Reset()
	in = filepath.Join(root, "testdata", "kernels", "gfx950", "indirect_call.co")
	if rc := runMain([]string{"translate", "--to", "gfx1200", in, "-o", out + "2"}, &stdout, &stderr); rc != 3 {
		t.Fatalf("exit %d, want 3: %s", rc, stderr.String())
	}
	if !strings.Contains(stderr.String(), "unrecovered indirect transfer") {
		t.Fatalf("no rejection reason:\n%s", stderr.String())
	}
}
