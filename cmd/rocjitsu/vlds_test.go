package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
