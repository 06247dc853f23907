package main

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

func TestRunVectorAdd(t *testing.T) {
	root := projectpath.MustRoot(t)
	obj := filepath.Join(root, "testdata/kernels/gfx942/vector_add.co")
	dir := t.TempDir()
	const n = 1000
	a, b := make([]byte, 4*n), make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(a[4*i:], math.Float32bits(float32(i)*0.5))
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(n-i)))
	}
	pa, pb, pc := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	os.WriteFile(pa, a, 0o644)
	os.WriteFile(pb, b, 0o644)
	for _, target := range []string{"", "gfx950", "gfx1201"} {
		obj := obj
		if target == "gfx1201" { // gfx12 code on the gfx12 simulator, wave32
			obj = filepath.Join(root, "testdata/kernels/gfx1201/vector_add.co")
		}
		args := []string{"run", obj, "vector_add", "--grid", "1024", "--block", "64",
			"--arg", "buf:@" + pa, "--arg", "buf:@" + pb, "--arg", "buf:4000", "--arg", "u32:1000", "--dump", "2=" + pc}
		if target != "" {
			args = append(args, "--target", target)
		}
		var out, errb bytes.Buffer
		if code := runMain(args, &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		c, err := os.ReadFile(pc)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			want := float32(i)*0.5 + float32(n-i)
			if got := math.Float32frombits(binary.LittleEndian.Uint32(c[4*i:])); got != want {
				t.Fatalf("c[%d] = %v, want %v", i, got, want)
			}
		}
	}
}

func TestRunErrors(t *testing.T) {
	root := projectpath.MustRoot(t)
	obj := filepath.Join(root, "testdata/kernels/gfx942/vector_add.co")
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		// A null output buffer: the fault names kernel, wave, PC and instruction.
		{[]string{"run", obj, "vector_add", "--grid", "64", "--block", "64", "--arg", "buf:256", "--arg", "buf:256", "--arg", "u64:0", "--arg", "u32:64"},
			1, "kernel vector_add: wave 0, pc 0x"},
		{[]string{"run", obj, "nope", "--grid", "64", "--block", "64"}, 1, "no kernel \"nope\""},
		{[]string{"run", obj, "vector_add", "--grid", "64", "--block", "64", "--arg", "buf:4"}, 2, "takes 4 explicit arguments"},
		{[]string{"run", obj, "vector_add", "--grid", "0", "--block", "64"}, 2, "--grid"},
		{[]string{"run", obj, "vector_add", "--grid", "64", "--block", "64", "--target", "gfx1100",
			"--arg", "buf:4", "--arg", "buf:4", "--arg", "buf:4", "--arg", "u32:1"}, 1, "unsupported target"},
		{[]string{"run", obj, "vector_add", "--grid", "64", "--block", "64", "--target", "gfx1201",
			"--arg", "buf:4", "--arg", "buf:4", "--arg", "buf:4", "--arg", "u32:1"}, 1, "cannot run on the simulated gfx1201"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := runMain(c.args, &out, &errb)
		if code != c.code || !strings.Contains(errb.String(), c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", c.args[2:], code, errb.String(), c.code, c.msg)
		}
	}
}

func TestRunTrace(t *testing.T) {
	obj := filepath.Join(projectpath.MustRoot(t), "testdata/kernels/gfx942/vector_add.co")
	var out, errb bytes.Buffer
	code := runMain([]string{"run", obj, "vector_add", "--grid", "64", "--block", "64", "--arg", "buf:256",
		"--arg", "buf:256", "--arg", "buf:256", "--arg", "u32:64", "--trace", "--stats"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 10 || !strings.HasPrefix(lines[0], "wave 0 0x") || !strings.Contains(out.String(), "s_endpgm") {
		t.Fatalf("trace output:\n%s", out.String())
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "1 waves") {
		t.Errorf("stats line %q", last)
	}
}
