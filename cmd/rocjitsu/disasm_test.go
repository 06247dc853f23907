package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa/disasm"
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
	// An object whose e_flags mach names a target no family decodes
	// (gfx90a, 0x3f) fails with exit 1 and a message naming e_flags.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(b[0x30:], binary.LittleEndian.Uint32(b[0x30:])&^0xff|0x3f)
	other := filepath.Join(t.TempDir(), "gfx90a.co")
	if err := os.WriteFile(other, b, 0o644); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := runMain([]string{"disasm", other}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "e_flags") {
		t.Errorf("unknown mach: exit %d, %q", code, errb.String())
	}
	if code := runMain([]string{"disasm", "--mcpu", "gfx942", other}, &out, &errb); code != 0 {
		t.Errorf("unknown mach with --mcpu: exit %d", code)
	}
}

// TestDisasmGFX12MatchesObjdump runs the command on a gfx1200 and a gfx1201
// kernel (target from e_flags) and with --mcpu, and compares with
// llvm-objdump-19 -d --mcpu=...; --wave64 matches --mattr=+wavefrontsize64.
func TestDisasmGFX12MatchesObjdump(t *testing.T) {
	tool := llvmtool.Require(t, llvmtool.Objdump)
	root := projectpath.MustRoot(t)
	cases := []struct {
		arch  string
		flags []string
		mattr []string
	}{
		{"gfx1200", nil, nil},
		{"gfx1201", nil, nil},
		{"gfx1201", []string{"--mcpu", "gfx1200"}, nil},
		{"gfx1201", []string{"--wave64"}, []string{"--mattr=+wavefrontsize64"}},
	}
	for _, c := range cases {
		path := filepath.Join(root, "testdata", "kernels", c.arch, "early_exit_loop.co")
		mcpu := c.arch
		if len(c.flags) == 2 && c.flags[0] == "--mcpu" {
			mcpu = c.flags[1]
		}
		want, err := exec.Command(tool, append(append([]string{"-d", "--mcpu=" + mcpu}, c.mattr...), path)...).Output()
		if err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		if code := runMain(append(append([]string{"disasm"}, c.flags...), path), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.flags, code, errb.String())
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%s %v: listing differs from llvm-objdump-19 (%d vs %d bytes)", c.arch, c.flags, out.Len(), len(want))
		}
	}
	if !strings.Contains(string(mustRun(t, "--wave64", filepath.Join(root, "testdata", "kernels", "gfx1201", "early_exit_loop.co"))), ".long 0x") {
		t.Errorf("--wave64: VOPD words not printed as .long")
	}
	var out, errb bytes.Buffer
	if code := runMain([]string{"disasm", "--stats", filepath.Join(root, "testdata", "kernels", "gfx1201", "early_exit_loop.co")}, &out, &errb); code != 0 {
		t.Fatalf("--stats: exit %d: %s", code, errb.String())
	}
	if first, _, _ := strings.Cut(out.String(), "\n"); !strings.Contains(first, "unknown words: 0") || !strings.Contains(out.String(), "s_wait_kmcnt") {
		t.Errorf("gfx1201 stats:\n%s", out.String())
	}
}

func mustRun(t *testing.T, args ...string) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	if code := runMain(append([]string{"disasm"}, args...), &out, &errb); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errb.String())
	}
	return out.Bytes()
}

// TestDisasmParallelMatchesStream: listing on several goroutines (as on
// machines with more cores) writes what streaming from one Lister writes,
// errors included and in the same place, and counts the same.
func TestDisasmParallelMatchesStream(t *testing.T) {
	aiter, _ := filepath.Glob(filepath.Join(projectpath.MustShared(t, "corpus", "aiter", "gfx942"), "*.co"))
	if len(aiter) < 6 {
		t.Fatal("too few gfx942 objects")
	}
	files := append(append(append([]string{}, aiter[:6]...), filepath.Join(t.TempDir(), "missing.co")), aiter[:6]...)
	var streamOut, streamErr, parOut, parErr bytes.Buffer
	one := disasm.NewListers(1, 1<<20)
	codeStream := disasmStream(files, disasm.Options{}, one[0], 0, &streamOut, &streamErr)
	many := disasm.NewListers(3, 1<<20)
	codePar := disasmParallel(files, disasm.Options{}, many, &parOut, &parErr)
	if codeStream != 1 || codePar != 1 {
		t.Fatalf("exit codes %d (stream), %d (parallel); want 1 for the missing file", codeStream, codePar)
	}
	if !bytes.Equal(streamOut.Bytes(), parOut.Bytes()) || streamErr.String() != parErr.String() {
		t.Fatalf("parallel listing (%d bytes, errors %q) differs from the streamed one (%d bytes, errors %q)", parOut.Len(), parErr.String(), streamOut.Len(), streamErr.String())
	}
	total := &disasm.Stats{}
	for _, l := range many {
		total.Add(l.Stats())
	}
	if want := one[0].Stats(); !reflect.DeepEqual(total, want) || want.Instructions == 0 {
		t.Fatalf("parallel counts %d instructions, streamed %d", total.Instructions, want.Instructions)
	}
}

// TestGrowPipe: growPipe raises a pipe's buffer to pipeSize (Linux, where
// the system's limit allows it).
func TestGrowPipe(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("F_SETPIPE_SZ is Linux's")
	}
	if b, err := os.ReadFile("/proc/sys/fs/pipe-max-size"); err == nil {
		if n, _ := strconv.Atoi(strings.TrimSpace(string(b))); n < pipeSize {
			t.Skipf("pipe-max-size %d < %d", n, pipeSize)
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	const fGetPipeSz = 1032
	size := func() int {
		rc, err := w.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var n uintptr
		rc.Control(func(fd uintptr) { n, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, fGetPipeSz, 0) })
		return int(n)
	}
	before := size()
	growPipe(w)
	if got := size(); got != pipeSize || before == pipeSize {
		t.Fatalf("pipe buffer %d bytes before growPipe, %d after; want %d after", before, got, pipeSize)
	}
}
