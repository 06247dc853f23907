package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// The marker kernels of hsa/sim/att/testdata/markers.cl: nested(out, in,
// n, m) with scope outer around n iterations of scope inner (around a loop
// of m loads) followed by point tick.
var attKernels = []struct {
	file  string
	lanes int
}{
	{"gfx942_markers.co", 64},
	{"gfx1201_markers.co", 32},       // s_ttracedata_imm
	{"gfx1201_markers_clock.co", 32}, // gfx12 packed shader-clock headers
}

const attN, attM, attGrid, attBlock = 3, 5, 256, 128

func attInput(t *testing.T, dir string) string {
	t.Helper()
	in := make([]byte, 4*attM)
	for j := 0; j < attM; j++ {
		binary.LittleEndian.PutUint32(in[4*j:], uint32(j+1))
	}
	p := filepath.Join(dir, "in.bin")
	if err := os.WriteFile(p, in, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func checkAttResult(t *testing.T, path string) {
	t.Helper()
	res, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for g := 0; g < attGrid; g++ {
		want := uint32(attN*(attN-1)/2*attM*(attM+1)/2) + uint32(g%attBlock)*attN*attM
		if got := binary.LittleEndian.Uint32(res[4*g:]); got != want {
			t.Fatalf("%s: out[%d] = %d, want %d", path, g, got, want)
		}
	}
}

var foldedLine = regexp.MustCompile(`(?m)^(\S+) (\d+)$`)

// checkAttTrace runs decode, flamegraph and perfetto on a simulated
// capture: the marker counts are waves x executions and the flamegraph
// nests inner in outer under the kernel.
func checkAttTrace(t *testing.T, trace string, waves int) {
	t.Helper()
	out, errs, code := runSQTTCmd(t, "decode", trace)
	if code != 0 {
		t.Fatalf("decode: %d %s", code, errs)
	}
	for _, c := range []struct {
		what string
		n    int
	}{{"wave      dispatch 1: nested", waves}, {"enter     outer", waves}, {"enter     inner", waves * attN},
		{"point     tick", waves * attN}, {"exit      inner", waves * attN}, {"exit      outer", waves}} {
		if got := strings.Count(out, c.what+"\n"); got != c.n {
			t.Errorf("decode: %d lines %q, want %d (waves x executions)", got, c.what, c.n)
		}
	}
	if !strings.Contains(errs, " 0 unmatched exits") {
		t.Errorf("decode: %s", errs)
	}
	folded, errs, code := runSQTTCmd(t, "flamegraph", "-format", "folded", "-o", "-", trace)
	if code != 0 {
		t.Fatalf("flamegraph: %d %s", code, errs)
	}
	stacks := map[string]int{}
	for _, m := range foldedLine.FindAllStringSubmatch(folded, -1) {
		stacks[m[1]], _ = strconv.Atoi(m[2])
	}
	outer, inner := stacks["code_object_1;nested;outer"], stacks["code_object_1;nested;outer;inner"]
	if len(stacks) != 2 || outer <= 0 || inner <= outer {
		t.Errorf("folded stacks %v: want outer and outer;inner, inner (the loads) heavier", stacks)
	}
	pdir := filepath.Join(t.TempDir(), "perfetto")
	if _, errs, code := runSQTTCmd(t, "perfetto", "-o", pdir, trace); code != 0 {
		t.Fatalf("perfetto: %d %s", code, errs)
	}
	pj, err := os.ReadFile(filepath.Join(pdir, "ui_output_agent_1_dispatch_1.perfetto.json"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(pj, []byte(`"ph":"B"`)); n != waves*(1+attN) {
		t.Errorf("perfetto: %d B slices, want %d", n, waves*(1+attN))
	}
}

// TestRunATT: rocjitsu run --att on the gfx942 and gfx1201 marker kernels
// writes a capture that decode, flamegraph and perfetto read, with the
// results unchanged; a faulting dispatch still writes its trace.
func TestRunATT(t *testing.T) {
	root := projectpath.MustRoot(t)
	for _, kc := range attKernels {
		t.Run(kc.file, func(t *testing.T) {
			obj := filepath.Join(root, "hsa/sim/att/testdata", kc.file)
			dir := t.TempDir()
			in, res, trace := attInput(t, dir), filepath.Join(dir, "out.bin"), filepath.Join(dir, "att")
			args := []string{"run", obj, "nested", "--grid", strconv.Itoa(attGrid), "--block", strconv.Itoa(attBlock),
				"--arg", "buf:1024", "--arg", "buf:@" + in, "--arg", "u32:3", "--arg", "u32:5", "--dump", "0=" + res, "--att", trace}
			var out, errb bytes.Buffer
			if code := runMain(args, &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			waves := attGrid / attBlock * (attBlock / kc.lanes)
			if want := strconv.Itoa(waves*(2+3*attN)) + " marker records in"; !strings.Contains(errb.String(), want) {
				t.Errorf("stderr %q, want %q", errb.String(), want)
			}
			checkAttResult(t, res)
			checkAttTrace(t, trace, waves)

			// A null output pointer faults at the store after the markers:
			// exit 1, and the first wave's trace is there.
			ftrace := filepath.Join(dir, "fault")
			args = []string{"run", obj, "nested", "--grid", strconv.Itoa(attGrid), "--block", strconv.Itoa(attBlock),
				"--arg", "u64:0", "--arg", "buf:@" + in, "--arg", "u32:3", "--arg", "u32:5", "--att", ftrace}
			errb.Reset()
			if code := runMain(args, &out, &errb); code != 1 || !strings.Contains(errb.String(), "marker records in") {
				t.Fatalf("faulting run: exit %d: %s", code, errb.String())
			}
			checkAttTrace(t, ftrace, 1)
		})
	}
	var out, errb bytes.Buffer
	if code := runMain([]string{"run", filepath.Join(root, "hsa/sim/att/testdata", attKernels[0].file), "nested", "--grid", "64", "--block", "64",
		"--arg", "buf:256", "--arg", "buf:64", "--arg", "u32:1", "--arg", "u32:1", "--att", "/dev/null/x"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "--att") {
		t.Errorf("--att into a file: exit %d: %s", code, errb.String())
	}
}

// TestSilkRunATT: rocjitsu silk run --provider sim --att on bundles of the
// marker kernels.
func TestSilkRunATT(t *testing.T) {
	root := projectpath.MustRoot(t)
	for _, kc := range attKernels[:2] {
		t.Run(kc.file, func(t *testing.T) {
			obj := filepath.Join(root, "hsa/sim/att/testdata", kc.file)
			dir := t.TempDir()
			exe := filepath.Join(dir, "app")
			if err := os.WriteFile(exe, []byte("host"), 0o755); err != nil {
				t.Fatal(err)
			}
			if code, out, errs := run("silk", "bundle", "--entry", "nested="+obj, "--into", exe); code != 0 {
				t.Fatalf("bundle: %d %s %s", code, out, errs)
			}
			in, res, trace := attInput(t, dir), filepath.Join(dir, "out.bin"), filepath.Join(dir, "att")
			code, out, errs := run("silk", "run", exe, "nested", "--provider", "sim", "--grid", strconv.Itoa(attGrid), "--block", strconv.Itoa(attBlock),
				"--arg", "out:"+res+":1024", "--arg", "in:"+in, "--arg", "u32:3", "--arg", "u32:5", "--att", trace)
			waves := attGrid / attBlock * (attBlock / kc.lanes)
			if code != 0 || !strings.Contains(out, strconv.Itoa(waves*(2+3*attN))+" marker records in") {
				t.Fatalf("silk run: %d %q %q", code, out, errs)
			}
			checkAttResult(t, res)
			checkAttTrace(t, trace, waves)
		})
	}
}
