package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

func TestDisasmMatchesObjdump(t *testing.T) {
	tool := llvmtool.Require(t, llvmtool.Objdump)
	path := filepath.Join(projectpath.MustShared(t, "corpus", "aiter", "gfx942"), "all_reduce.co")
	want, err := exec.Command(tool, "-d", "--mcpu=gfx942", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := runMain([]string{"disasm", path}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("listing differs from llvm-objdump-19 -d (%d vs %d bytes)", out.Len(), len(want))
	}
}

func TestDisasmStatsGFX950(t *testing.T) {
	dir := projectpath.MustShared(t, "corpus", "aiter", "gfx950")
	files, _ := filepath.Glob(filepath.Join(dir, "*.co"))
	if len(files) == 0 {
		t.Fatal("no gfx950 objects")
	}
	var out, errb bytes.Buffer
	if code := runMain(append([]string{"disasm", "--stats"}, files...), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	first, _, _ := strings.Cut(out.String(), "\n")
	if !strings.Contains(first, "unknown words: 0") {
		t.Errorf("stats header %q", first)
	}
	for _, m := range []string{"v_mfma_scale_f32_16x16x128_f8f6f4", "ds_read_b64_tr_b16", "s_waitcnt"} {
		if !strings.Contains(out.String(), m) {
			t.Errorf("histogram lacks %s", m)
		}
	}
}

func TestDisasmErrors(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain([]string{"disasm", "/nonexistent.co"}, &out, &errb); code != 1 {
		t.Errorf("missing file: exit %d", code)
	}
	if code := runMain([]string{"disasm", "--mcpu", "gfx1"}, &out, &errb); code != 2 {
		t.Errorf("no file: exit %d", code)
	}
	path := filepath.Join(projectpath.MustShared(t, "corpus", "aiter", "gfx942"), "all_reduce.co")
	if code := runMain([]string{"disasm", "--mcpu", "gfx1", path}, &out, &errb); code != 2 {
		t.Errorf("bad --mcpu: exit %d", code)
	}
	if code := runMain([]string{"disasm", "--mcpu", "gfx1200", path}, &out, &errb); code != 1 {
		t.Errorf("non-GFX9 target: exit %d", code)
	}
}
