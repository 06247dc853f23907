package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// TestVerifyCommand: two objects, two seeds; the last line has the issue's
// form and counts, and --json lists every kernel with its outcome.
func TestVerifyCommand(t *testing.T) {
	dir := filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "gfx950")
	js := filepath.Join(t.TempDir(), "v.json")
	var out, errb bytes.Buffer
	code := runMain([]string{"verify", filepath.Join(dir, "vector_add.co"), filepath.Join(dir, "indirect_call.co"), "--seeds", "2", "--fill", "int", "--json", js}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := lines[len(lines)-1]
	if !regexp.MustCompile(`^\d+ kernels: \d+ identical, \d+ within bound, \d+ different, \d+ faulted alike, \d+ fault differs, \d+ timed out, \d+ not run$`).MatchString(last) {
		t.Fatalf("last line %q", last)
	}
	if last != "4 kernels: 2 identical, 0 within bound, 0 different, 0 faulted alike, 0 fault differs, 0 timed out, 2 not run" {
		t.Fatalf("summary %q", last)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Kernels []struct {
			Object, Name, Host, Outcome, Reason string
			Seed                                uint64
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Kernels) != 4 || doc.Kernels[0].Outcome != "identical" || doc.Kernels[0].Host != "gfx942" || doc.Kernels[1].Seed != 1 {
		t.Fatalf("json %+v", doc.Kernels)
	}
	if doc.Kernels[2].Outcome != "not-run" || !strings.Contains(doc.Kernels[2].Reason, "s_swappc_b64") {
		t.Fatalf("indirect_call: %+v", doc.Kernels[2])
	}
	if code := runMain([]string{"verify"}, &out, &errb); code != 2 {
		t.Fatalf("no input: exit %d", code)
	}
	if code := runMain([]string{"verify", filepath.Join(dir, "vector_add.co"), "--fill", "bogus"}, &out, &errb); code != 2 {
		t.Fatalf("bad fill: exit %d", code)
	}
}

// TestVerifyInstrument: --instrument compares each object's instrumented
// run with its plain one on the object's own target; bad options are
// usage errors and an object the pass refuses is an error.
func TestVerifyInstrument(t *testing.T) {
	dir := filepath.Join(projectpath.MustRoot(t), "testdata", "kernels")
	var out, errb bytes.Buffer
	code := runMain([]string{"verify", filepath.Join(dir, "gfx942", "stencil_lds.co"), filepath.Join(dir, "gfx1201", "stencil_lds.co"),
		"--instrument", "--barriers --memory 4:8 --loops", "--workgroups", "1"}, &out, &errb)
	if code != 0 || !strings.Contains(out.String(), "stencil_lds.co stencil_lds -> gfx942: identical") ||
		!strings.Contains(out.String(), "stencil_lds.co stencil_lds -> gfx1201: identical") ||
		!strings.Contains(out.String(), "2 kernels: 2 identical") {
		t.Errorf("code %d\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := runMain([]string{"verify", filepath.Join(dir, "gfx942", "stencil_lds.co"), "--instrument", "--memory 0:1"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--instrument") {
		t.Errorf("bad options: code %d %s", code, errb.String())
	}
	errb.Reset()
	if code := runMain([]string{"verify", filepath.Join(dir, "gfx942", "indirect_call.co"), "--instrument", "--loops"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "indirect") {
		t.Errorf("refused object: code %d %s", code, errb.String())
	}
}

// TestVerifyProfiles: an aiter object of a profiled family reports its
// argument profile in --json, and --no-profiles gives it the plain
// synthesis.
func TestVerifyProfiles(t *testing.T) {
	obj := projectpath.MustShared(t, "corpus", "aiter", "gfx950", "topksoftmax_topksoftmax_12x128x4.co")
	for _, c := range []struct {
		flags   []string
		profile string
	}{{nil, "aiter-topksoftmax"}, {[]string{"--no-profiles"}, ""}} {
		js := filepath.Join(t.TempDir(), "v.json")
		var out, errb bytes.Buffer
		args := append([]string{"verify", obj, "--fill", "int", "--workgroups", "1", "--json", js}, c.flags...)
		if code := runMain(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.flags, code, errb.String())
		}
		b, err := os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Kernels []struct{ Outcome, Profile string }
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Kernels) != 1 || doc.Kernels[0].Profile != c.profile || doc.Kernels[0].Outcome != "identical" {
			t.Fatalf("%v: %+v", c.flags, doc.Kernels)
		}
	}
}
