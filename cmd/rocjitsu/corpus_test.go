package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

func TestCorpusList(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain([]string{"corpus", "list"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if n := strings.Count(out.String(), "\n"); n != len(kernelref.AllCases()) {
		t.Errorf("%d lines for %d cases", n, len(kernelref.AllCases()))
	}
	out.Reset()
	if code := runMain([]string{"corpus", "list", "--json"}, &out, &errb); code != 0 || !json.Valid(out.Bytes()) {
		t.Fatalf("list --json: exit %d, valid %v", code, json.Valid(out.Bytes()))
	}
}

func TestCorpusCheck(t *testing.T) {
	root := projectpath.MustRoot(t)
	for _, c := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"--target", "gfx942", "saxpy", "indirect_call", "fp8_fnuz_to_f32"}, 0, []string{"ok   saxpy", "ok   indirect_call", "3 ok, 0 failed"}},
		{[]string{"--target", "gfx950", "gfx950_bitop3", "fp8_ocp_to_f32", "dynamic_lds"}, 0, []string{"ok   gfx950_bitop3", "3 ok, 0 failed"}},
		// The OCP object run as gfx942 decodes FNUZ: same code, other meaning.
		{[]string{"--target", "gfx942", "--object", filepath.Join(root, "testdata/kernels/gfx950/fp8_ocp_to_f32.co"), "fp8_ocp_to_f32"}, 1, []string{"FAIL fp8_ocp_to_f32", "elements differ", "0 ok, 1 failed"}},
		// Not built for the target.
		{[]string{"--target", "gfx942", "wmma_f32_16x16x16f16"}, 1, []string{"0 ok, 1 failed"}},
		// An object without the kernel.
		{[]string{"--object", filepath.Join(root, "testdata/kernels/gfx942/vector_add.co"), "saxpy"}, 1, []string{"FAIL saxpy"}},
		{[]string{"no_such_kernel"}, 2, nil},
		{[]string{}, 2, nil},
		{[]string{"--all", "saxpy"}, 2, nil},
		{[]string{"--object", "x.co", "saxpy", "vector_add"}, 2, nil},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"corpus", "check", "--root", root}, c.args...)
		code := runMain(args, &out, &errb)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d\n%s%s", c.args, code, c.code, out.String(), errb.String())
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%v: output lacks %q:\n%s", c.args, w, out.String())
			}
		}
	}
}

func TestCorpusCheckAllGFX950(t *testing.T) { corpusCheckAll(t, "gfx950") }

// TestCorpusCheckAllGFX1201 checks every gfx1201 object on the simulated
// gfx1201 (wave32 RDNA4 code).
func TestCorpusCheckAllGFX1201(t *testing.T) { corpusCheckAll(t, "gfx1201") }

func corpusCheckAll(t *testing.T, target string) {
	root := projectpath.MustRoot(t)
	if _, err := os.Stat(filepath.Join(root, "testdata/kernels", target)); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := runMain([]string{"corpus", "check", "--root", root, "--target", target, "--all"}, &out, &errb)
	n := 0
	for _, c := range kernelref.AllCases() {
		if c.HasTarget(target) {
			n++
		}
	}
	if code != 0 || !strings.Contains(out.String(), " ok, 0 failed") || strings.Count(out.String(), "\nok   ")+1 < n {
		t.Fatalf("exit %d (%d %s cases):\n%s%s", code, n, target, out.String(), errb.String())
	}
}

// TestCorpusStatus runs `corpus status --json` on the project and checks
// the shape, and the errors of a bad host and of a root without corpora.
func TestCorpusStatus(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain([]string{"corpus", "status", "--host", "gfx9999"}, &out, &errb); code != 2 {
		t.Fatalf("bad host: exit %d", code)
	}
	errb.Reset()
	if code := runMain([]string{"corpus", "status", "--root", t.TempDir()}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "no *.co") {
		t.Fatalf("empty root: exit %d: %s", code, errb.String())
	}
	if testing.Short() {
		return
	}
	errb.Reset()
	if code := runMain([]string{"corpus", "status", "--json", "--root", projectpath.MustRoot(t)}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var st struct {
		Groups []struct {
			Name    string `json:"name"`
			Objects int    `json:"objects"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Groups) != 2 || st.Groups[0].Objects == 0 || st.Groups[1].Objects == 0 {
		t.Fatalf("groups %+v", st.Groups)
	}
}
