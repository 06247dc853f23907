package rocmroot

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRootMissing(t *testing.T) {
	t.Setenv(EnvPath, filepath.Join(t.TempDir(), "none"))
	_, err := Root()
	if err == nil || !strings.Contains(err.Error(), "run make deps") {
		t.Fatalf("Root() of a missing root: %v, want an error saying to run make deps", err)
	}
}

func TestCommand(t *testing.T) {
	MustRoot(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in"), []byte("from the host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HSA_LEAK_TEST", "host value") // must not reach the root: Command passes only Options.Env
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := Command(ctx, Options{
		Binds: []Bind{{Host: dir, Root: "/tmp/bound"}},
		Env:   []string{"ROCJITSU_X=1", "HSA_Y=two"},
		Dir:   "/tmp/bound",
	}, "sh", "-c", `cat /etc/debian_version; cat in; echo "x=$ROCJITSU_X y=$HSA_Y leak=$HSA_LEAK_TEST pwd=$(pwd)"; echo out >out; exit 9`)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 9 {
		t.Fatalf("exit status: %v, want 9\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{"13.", "from the host", "x=1 y=two leak= pwd=/tmp/bound"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out")); err != nil || string(b) != "out\n" {
		t.Errorf("file written through the bind: %q, %v", b, err)
	}
}

func TestCommandCancelKillsTheNamespace(t *testing.T) {
	MustRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	cmd := Command(ctx, Options{}, "sleep", "600")
	if err := cmd.Run(); err == nil {
		t.Fatal("a cancelled command succeeded")
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("cancel took %v", d)
	}
}

func TestGCCAndHIPCC(t *testing.T) {
	MustRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	c := filepath.Join(dir, "probe.c")
	hdr := filepath.Join(dir, "probe.h")
	hip := filepath.Join(dir, "probe_hip.hip")
	must(t, os.WriteFile(hdr, []byte("#define WORD \"probe\"\n"), 0o644))
	must(t, os.WriteFile(c, []byte(`#include <stdio.h>
#include <hsa/hsa.h>
#include "probe.h"
int main(void) { hsa_status_t st = hsa_init(); printf("%s %#x\n", WORD, st); return 0; }
`), 0o644))
	must(t, os.WriteFile(hip, []byte(`#include <hip/hip_runtime.h>
#include <stdio.h>
__global__ void k(int *p) { p[threadIdx.x] = 1; }
int main(void) { int n = -1; hipError_t e = hipGetDeviceCount(&n); printf("%s %d\n", hipGetErrorName(e), n); return 0; }
`), 0o644))

	bin, err := GCC(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	again, err := GCC(ctx, c)
	if err != nil || again != bin {
		t.Fatalf("second GCC: %q, %v; want the cached %q", again, err, bin)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cached GCC took %v", d)
	}
	host, err := HostPath(bin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(host); err != nil {
		t.Fatal(err)
	}
	out, err := Command(ctx, Options{}, bin).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "probe 0x") {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	// A changed header is a changed build.
	must(t, os.WriteFile(hdr, []byte("#define WORD \"changed\"\n"), 0o644))
	bin2, err := GCC(ctx, c)
	if err != nil || bin2 == bin {
		t.Fatalf("GCC after a header change: %q, %v (old %q)", bin2, err, bin)
	}

	hb, err := HIPCC(ctx, hip)
	if err != nil {
		t.Fatal(err)
	}
	out, err = Command(ctx, Options{}, hb).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "hipErrorNoDevice") {
		t.Fatalf("%s without a device: %v\n%s (want hipErrorNoDevice)", hb, err, out)
	}
	// A compile error is reported with the compiler's message.
	bad := filepath.Join(dir, "bad.hip")
	must(t, os.WriteFile(bad, []byte("int main(void) { return undeclared; }\n"), 0o644))
	if _, err := HIPCC(ctx, bad); err == nil || !strings.Contains(err.Error(), "undeclared") {
		t.Fatalf("HIPCC of a broken source: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
