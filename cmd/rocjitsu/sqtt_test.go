package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

func runSQTTCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runMain(append([]string{"sqtt"}, args...), &out, &errb)
	return out.String(), errb.String(), code
}

func TestSQTTCLI(t *testing.T) {
	trace := projectpath.MustShared(t, "testdata", "sqtt", "pipeline_late_records", "trace")
	expected := projectpath.MustShared(t, "testdata", "sqtt", "pipeline_late_records", "expected")
	elfDir := projectpath.MustShared(t, "testdata", "sqtt", "elf")
	tmp := t.TempDir()

	out, errs, code := runSQTTCmd(t, "funcmap", filepath.Join(elfDir, "packed_code_object_id_8.out"))
	if code != 0 || !strings.Contains(out, "kernel         -  0x0000000000001900  packed_kernel  @ k.hip:10\n") {
		t.Errorf("funcmap: code %d\n%s%s", code, out, errs)
	}
	if _, _, code := runSQTTCmd(t, "funcmap", filepath.Join(elfDir, "no_funcmap_code_object_id_9.out")); code != 1 {
		t.Errorf("funcmap without section: exit %d, want 1", code)
	}

	folded := filepath.Join(tmp, "out.folded")
	if _, errs, code := runSQTTCmd(t, "flamegraph", "-format", "upstream-folded", "-o", folded, trace); code != 0 {
		t.Fatalf("flamegraph: %d %s", code, errs)
	}
	got, _ := os.ReadFile(folded)
	want, _ := os.ReadFile(filepath.Join(expected, "sqtt_flamegraph.folded.txt"))
	if !bytes.Equal(got, want) {
		t.Errorf("folded:\n%s", got)
	}
	out, _, code = runSQTTCmd(t, "flamegraph", trace, "-o", "-", "-format", "folded")
	want, _ = os.ReadFile(filepath.Join(expected, "folded_2col.txt"))
	if code != 0 || out != string(want) {
		t.Errorf("2-col folded: %q", out)
	}
	svg := filepath.Join(tmp, "f.svg")
	if _, errs, code := runSQTTCmd(t, "flamegraph", "-o", svg, trace); code != 0 {
		t.Fatalf("svg: %s", errs)
	}
	if b, _ := os.ReadFile(svg); !bytes.Contains(b, []byte(`data-name="inner"`)) {
		t.Error("svg lacks the inner frame")
	}
	ss := filepath.Join(tmp, "s.json")
	if _, errs, code := runSQTTCmd(t, "speedscope", "-o", ss, trace); code != 0 {
		t.Fatalf("speedscope: %s", errs)
	}
	if b, _ := os.ReadFile(ss); !bytes.Contains(b, []byte(`"weights": [32, 16]`)) {
		t.Errorf("speedscope: %s", b)
	}
	pdir := filepath.Join(tmp, "perfetto")
	if _, errs, code := runSQTTCmd(t, "perfetto", "-o", pdir, trace); code != 0 || !strings.Contains(errs, "1 unmatched exits") {
		t.Fatalf("perfetto: %d %s", code, errs)
	}
	got, _ = os.ReadFile(filepath.Join(pdir, "ui_output_agent_1_dispatch_1.perfetto.json"))
	want, _ = os.ReadFile(filepath.Join(expected, "sqtt_perfetto.ui_output_agent_1_dispatch_1.perfetto.json"))
	if !bytes.Equal(got, want) {
		t.Errorf("perfetto:\n%s", got)
	}
	out, _, code = runSQTTCmd(t, "decode", trace)
	if code != 0 || !strings.Contains(out, "191 SE0/CU1/SIMD2/W3#0 enter     outer") || !strings.Contains(out, "(unmatched)") {
		t.Errorf("decode:\n%s", out)
	}
	out, _, code = runSQTTCmd(t, "decode", "-value", "0xabc000aa", "-layout", "12:4")
	if code != 0 || !strings.Contains(out, "id=42 enter=1 exit_prev=0 clock=0xabc") {
		t.Errorf("decode -value: %s", out)
	}
	if _, _, code := runSQTTCmd(t, "flamegraph", filepath.Join(tmp, "nope")); code != 1 {
		t.Errorf("missing dir: exit %d", code)
	}
	if _, _, code := runSQTTCmd(t, "bogus"); code != 2 {
		t.Errorf("unknown subcommand: exit %d", code)
	}
}
