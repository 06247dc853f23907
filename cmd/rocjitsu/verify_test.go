package main

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// TestVerifyStats: --stats prints each kernel's executed instructions by
// class and its issue-cycle weight on both sides, and the host/guest
// summary; the JSON has the same counts, whose classes add up to the
// instructions. The scaled FP8 MFMA of gfx950_mfma_scale_agpr becomes
// several gfx942 MFMAs, so the host runs more MFMAs and MFMA passes.
func TestVerifyStats(t *testing.T) {
	dir := filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "gfx950")
	js := filepath.Join(t.TempDir(), "v.json")
	var out, errb bytes.Buffer
	code := runMain([]string{"verify", filepath.Join(dir, "gfx950_mfma_scale_agpr.co"), filepath.Join(dir, "vector_add.co"), "--fill", "int", "--stats", "--json", js}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	type classes struct{ MFMA, VALU, Memory, SALU, Other uint64 }
	var doc struct {
		Kernels []struct {
			Name              string
			GuestInstructions uint64  `json:"guest_instructions"`
			HostInstructions  uint64  `json:"host_instructions"`
			GuestClasses      classes `json:"guest_classes"`
			HostClasses       classes `json:"host_classes"`
			GuestPasses       uint64  `json:"guest_passes"`
			HostPasses        uint64  `json:"host_passes"`
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Kernels) != 2 {
		t.Fatalf("json %+v", doc.Kernels)
	}
	sum := func(c classes) uint64 { return c.MFMA + c.VALU + c.Memory + c.SALU + c.Other }
	text := out.String()
	for _, k := range doc.Kernels {
		if sum(k.GuestClasses) != k.GuestInstructions || sum(k.HostClasses) != k.HostInstructions || k.GuestInstructions == 0 {
			t.Errorf("%s: classes %+v / %+v do not add up to %d / %d", k.Name, k.GuestClasses, k.HostClasses, k.GuestInstructions, k.HostInstructions)
		}
		want := fmt.Sprintf("  executed guest/host: %d/%d (mfma %d/%d, valu %d/%d, memory %d/%d, salu %d/%d, other %d/%d); issue-cycle model %d/%d passes\n",
			k.GuestInstructions, k.HostInstructions, k.GuestClasses.MFMA, k.HostClasses.MFMA, k.GuestClasses.VALU, k.HostClasses.VALU,
			k.GuestClasses.Memory, k.HostClasses.Memory, k.GuestClasses.SALU, k.HostClasses.SALU, k.GuestClasses.Other, k.HostClasses.Other, k.GuestPasses, k.HostPasses)
		if !strings.Contains(text, want) {
			t.Errorf("%s: no line %q in\n%s", k.Name, want, text)
		}
	}
	m, va := doc.Kernels[0], doc.Kernels[1]
	if m.HostClasses.MFMA <= m.GuestClasses.MFMA || m.GuestPasses <= m.GuestInstructions || m.HostPasses <= m.GuestPasses {
		t.Errorf("scaled MFMA: %+v", m)
	}
	if va.GuestClasses.MFMA != 0 || va.GuestPasses != va.GuestInstructions {
		t.Errorf("vector_add: %+v", va)
	}
	if !regexp.MustCompile(`(?m)^executed host/guest over 2 kernels: p50 [0-9.]+x, max [0-9.]+x, total [0-9.]+x \(mfma [0-9.]+x, valu [0-9.]+x, memory [0-9.]+x, salu [0-9.]+x\); issue-cycle model \(MFMA passes, 1 per other instruction\): p50 [0-9.]+x, total [0-9.]+x$`).MatchString(text) {
		t.Errorf("no summary line in\n%s", text)
	}
}

// TestVerifyHot: --hot N prints the guest mnemonics and instructions with
// excess host executions under the kernel's line; the only expanded
// instruction of gfx950_cvt_pk_bf16_f32 has all of it.
func TestVerifyHot(t *testing.T) {
	dir := filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "gfx950")
	var out, errb bytes.Buffer
	code := runMain([]string{"verify", filepath.Join(dir, "gfx950_cvt_pk_bf16_f32.co"), "--fill", "int", "--hot", "3"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	text := out.String()
	for _, re := range []string{
		`(?m)^  hot guest instructions by excess \(host minus guest executions\):$`,
		`(?m)^    excess +[1-9][0-9]*  v_cvt_pk_bf16_f32 +guest +1 host +[0-9]+ \(called 0, stub 0\) at 1 sites; cvt-pk-bf16$`,
		`(?m)^    excess +[1-9][0-9]*  0x[0-9a-f]+ v_cvt_pk_bf16_f32 v[0-9]+, `,
		`(?m)^    prologue 0$`,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("no match for %s in\n%s", re, text)
		}
	}
}

// TestVerifyNative: --native DIR runs the same-named native gfx942 build
// instead of a translation and compares it with the guest; a missing
// native object is an error, and --native excludes --instrument.
func TestVerifyNative(t *testing.T) {
	root := filepath.Join(projectpath.MustRoot(t), "testdata", "kernels")
	var out, errb bytes.Buffer
	code := runMain([]string{"verify", filepath.Join(root, "gfx950", "vector_add.co"), "--native", filepath.Join(root, "gfx942"), "--fill", "int", "--stats"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "vector_add.co vector_add -> gfx942: identical") || !strings.Contains(out.String(), "1 kernels: 1 identical") {
		t.Fatalf("output:\n%s", out.String())
	}
	out.Reset()
	errb.Reset()
	if code := runMain([]string{"verify", filepath.Join(root, "gfx950", "vector_add.co"), "--native", t.TempDir()}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "native build") {
		t.Fatalf("missing native object: exit %d: %s", code, errb.String())
	}
	if code := runMain([]string{"verify", filepath.Join(root, "gfx950", "vector_add.co"), "--native", filepath.Join(root, "gfx942"), "--instrument", "--barriers"}, &out, &errb); code != 2 {
		t.Fatalf("--native with --instrument: exit %d", code)
	}
}
