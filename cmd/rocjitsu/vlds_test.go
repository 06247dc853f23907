package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

func TestVLDSCommand(t *testing.T) {
	in := filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "gfx950", "reduce_sum_u32.co")
	out := filepath.Join(t.TempDir(), "out.co")
	var stdout, stderr bytes.Buffer
	if rc := runMain([]string{"vlds", in, "-all", "-o", out}, &stdout, &stderr); rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr.String())
	}
	if !strings.Contains(stdout.String(), "reduce_sum_u32: sidecar kd ") || !strings.Contains(stdout.String(), "1 of 1 kernels") {
		t.Fatalf("output:\n%s", stdout.String())
	}
	stdout.Reset()
	if rc := runMain([]string{"vlds", out}, &stdout, &stderr); rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr.String())
	}
	if !strings.Contains(stdout.String(), ".rocjitsu.lds v1: host LDS 65536 bytes, 1 sidecars") || !strings.Contains(stdout.String(), "reduce_sum_u32: normal kd ") {
		t.Fatalf("show output:\n%s", stdout.String())
	}
	// Without -all, a kernel within the host limit gets no sidecar.
	stdout.Reset()
	if rc := runMain([]string{"vlds", in}, &stdout, &stderr); rc != 0 || !strings.Contains(stdout.String(), "0 of 0 kernels") {
		t.Fatalf("exit %d:\n%s", rc, stdout.String())
	}
	if rc := runMain([]string{"vlds"}, &stdout, &stderr); rc != 2 {
		t.Fatalf("no input: exit %d", rc)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
}

// TestVLDSCommandGFX12: --to gfx1201 makes a gfx12 sidecar for the 96 KiB
// dynamic-LDS kernel (with -all), whose object the show mode reads back
// and llvm-objdump-19 disassembles for gfx1201; a bad --to is a usage
// error.
func TestVLDSCommandGFX12(t *testing.T) {
	in := filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "gfx950", "lds_big_dynamic.co")
	out := filepath.Join(t.TempDir(), "out.co")
	var stdout, stderr bytes.Buffer
	if rc := runMain([]string{"vlds", "--to", "gfx1201", in, "-all", "-o", out}, &stdout, &stderr); rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr.String())
	}
	if !strings.Contains(stdout.String(), "lds_big_dynamic: sidecar kd ") || !strings.Contains(stdout.String(), "1 of 1 kernels") {
		t.Fatalf("output:\n%s", stdout.String())
	}
	stdout.Reset()
	if rc := runMain([]string{"vlds", out}, &stdout, &stderr); rc != 0 || !strings.Contains(stdout.String(), "1 sidecars") {
		t.Fatalf("exit %d:\n%s", rc, stdout.String())
	}
	objdump := llvmtool.Require(t, llvmtool.Objdump)
	dis, err := exec.Command(objdump, "-d", "--mcpu=gfx1201", "--mattr=+wavefrontsize64", out).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, dis)
	}
	if !strings.Contains(string(dis), "global_store_b32") || !strings.Contains(string(dis), "ttmp9") {
		t.Error("the disassembly shows no lowered LDS store or TTMP9 prologue")
	}
	if rc := runMain([]string{"vlds", "--to", "gfx9999", in}, &stdout, &stderr); rc != 2 {
		t.Fatalf("bad --to: exit %d", rc)
	}
}
