package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets the test binary act as the rocjitsu command when
// ROCJITSU_TEST_AS_MAIN is set (TestExecReplacesProcess runs it so).
func TestMain(m *testing.M) {
	if os.Getenv("ROCJITSU_TEST_AS_MAIN") == "1" {
		os.Unsetenv("ROCJITSU_TEST_AS_MAIN")
		os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestExecPlan(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "rocjitsu")
	lib := filepath.Join(dir, libName)
	for _, f := range []string{self, lib} {
		if err := os.WriteFile(f, []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	environ := []string{"PATH=/usr/bin:/bin", "LD_PRELOAD=/other.so", "HOME=/h", "ROCJITSU_GPU=old"}
	var stderr bytes.Buffer
	plan, help, err := planExec([]string{"--gpu", "gfx950", "--guest", "gfx950", "--", "sh", "-c", "true"}, environ, self, &stderr)
	if err != nil || help {
		t.Fatalf("planExec: %v (help %v)\n%s", err, help, stderr.String())
	}
	if !strings.HasSuffix(plan.path, "/sh") || strings.Join(plan.argv, " ") != "sh -c true" {
		t.Errorf("plan runs %s %q", plan.path, plan.argv)
	}
	env := envMap(plan.env)
	want := map[string]string{
		"LD_PRELOAD":     lib + ":/other.so",
		"ROCJITSU_GPU":   "gfx950",
		"ROCJITSU_GUEST": "gfx950",
		"HSA_TOOLS_LIB":  lib,
		"HOME":           "/h",
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s=%q, want %q", k, env[k], v)
		}
	}
	if n := strings.Count(strings.Join(plan.env, "\n"), "ROCJITSU_GPU="); n != 1 {
		t.Errorf("ROCJITSU_GPU set %d times", n)
	}

	// Without --guest: no tool library, default GPU, the library not
	// preloaded twice.
	plan, _, err = planExec([]string{"sh"}, []string{"PATH=/bin", "LD_PRELOAD=" + lib}, self, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	env = envMap(plan.env)
	if env["LD_PRELOAD"] != lib || env["ROCJITSU_GPU"] != "gfx942" || env["HSA_TOOLS_LIB"] != "" || env["ROCJITSU_GUEST"] != "" {
		t.Errorf("plain exec env: %q", plan.env)
	}

	// ROCJITSU_LIB wins over the library beside the executable.
	other := filepath.Join(t.TempDir(), "custom.so")
	if err := os.WriteFile(other, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	plan, _, err = planExec([]string{"sh"}, []string{"PATH=/bin", "ROCJITSU_LIB=" + other}, self, &stderr)
	if err != nil || envMap(plan.env)["LD_PRELOAD"] != other {
		t.Errorf("ROCJITSU_LIB: %v, env %q", err, plan.env)
	}
}

func TestExecErrors(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "rocjitsu")
	if err := os.WriteFile(self, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	withLib := filepath.Join(t.TempDir(), libName)
	if err := os.WriteFile(withLib, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args    []string
		environ []string
		want    string
	}{
		{[]string{"sh"}, []string{"PATH=/bin"}, "librocjitsu.so not found beside " + self},
		{[]string{"sh"}, []string{"PATH=/bin", "ROCJITSU_LIB=/nonexistent/librocjitsu.so"}, "ROCJITSU_LIB=/nonexistent/librocjitsu.so: no such library"},
		{[]string{"no-such-app-here"}, []string{"PATH=/bin", "ROCJITSU_LIB=" + withLib}, "no-such-app-here: executable file not found in $PATH"},
		{[]string{"./no/such/app"}, []string{"PATH=/bin", "ROCJITSU_LIB=" + withLib}, "./no/such/app: no such file"},
		{[]string{"--gpu", "gfx9000", "sh"}, []string{"PATH=/bin", "ROCJITSU_LIB=" + withLib}, `no simulated device for "gfx9000"`},
		{[]string{"--guest", "gfx1", "sh"}, []string{"PATH=/bin", "ROCJITSU_LIB=" + withLib}, "--guest gfx1: want one of"},
		{nil, []string{"PATH=/bin", "ROCJITSU_LIB=" + withLib}, "no application given"},
		{[]string{"--bogus", "sh"}, []string{"PATH=/bin", "ROCJITSU_LIB=" + withLib}, "flag provided but not defined"},
	} {
		var stderr bytes.Buffer
		_, _, err := planExec(tc.args, tc.environ, self, &stderr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("planExec(%q): %v, want an error with %q", tc.args, err, tc.want)
		}
	}
	var stderr bytes.Buffer
	if _, help, err := planExec([]string{"--help"}, nil, self, &stderr); !help || err != nil || !strings.Contains(stderr.String(), "usage: rocjitsu exec") {
		t.Errorf("--help: help %v, err %v, output %q", help, err, stderr.String())
	}
}

// TestExecReplacesProcess runs "rocjitsu exec" for real: the application's
// exit status and output are the command's, with the environment set.
func TestExecReplacesProcess(t *testing.T) {
	lib := filepath.Join(t.TempDir(), libName)
	// An empty file: the dynamic loader says on standard error that it
	// cannot preload it and goes on, which is all this test needs.
	if err := os.WriteFile(lib, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "exec", "--gpu", "gfx942", "--guest", "gfx950", "--", "sh", "-c",
		`echo "preload=$LD_PRELOAD gpu=$ROCJITSU_GPU guest=$ROCJITSU_GUEST tools=$HSA_TOOLS_LIB"; exit 7`)
	cmd.Env = append(os.Environ(), "ROCJITSU_TEST_AS_MAIN=1", "ROCJITSU_LIB="+lib, "LD_PRELOAD=", "HSA_TOOLS_LIB=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Fatalf("exit status %v, want 7 (the application's)\n%s%s", err, out.String(), errb.String())
	}
	if want := "preload=" + lib + " gpu=gfx942 guest=gfx950 tools=" + lib + "\n"; out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
}
