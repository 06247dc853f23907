package dbt

import (
	"encoding/binary"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/loader/kd"
	"github.com/rocjitsu/rocjitsu/loader/target"
)

// TestKernargPreloadStubs translates a kernarg-preload kernel (two entries,
// 256 bytes apart) whose first 256 bytes contain a gfx950-only v_bitop3_b32,
// so the translated preamble no longer ends at +256: the translator must
// emit entry stubs at the entry and at entry+256 that branch to the
// translated blocks of the two source entries.
func TestKernargPreloadStubs(t *testing.T) {
	clang := llvmtool.Require(t, llvmtool.Clang)
	lld := llvmtool.Require(t, llvmtool.LLD)
	dir := t.TempDir()
	obj, co := filepath.Join(dir, "k.o"), filepath.Join(dir, "k.co")
	if out, err := exec.Command(clang, "-x", "assembler", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-c", "testdata/preload.s", "-o", obj).CombinedOutput(); err != nil {
		t.Fatalf("clang: %v\n%s", err, out)
	}
	if out, err := exec.Command(lld, "-shared", obj, "-o", co).CombinedOutput(); err != nil {
		t.Fatalf("ld.lld: %v\n%s", err, out)
	}
	host, err := loader.Parse(readFile(t, co))
	if err != nil {
		t.Fatal(err)
	}
	gf, err := loader.Patch(host, loader.PatchSpec{Mach: target.MachGFX950})
	if err != nil {
		t.Fatal(err)
	}
	guest := gf.Raw()
	src, _ := loader.Parse(guest)
	if src.Kernels()[0].Descriptor.Get(kd.KERNARG_PRELOAD_SPEC_LENGTH) == 0 {
		t.Fatal("test kernel has no kernarg preload")
	}
	res, err := Translate(guest, Options{Name: "preload"})
	if err != nil {
		t.Fatalf("%v\n%+v", err, res.Report)
	}
	verifyObject(t, "preload", guest, res.Object)
	f, err := loader.Parse(res.Object)
	if err != nil {
		t.Fatal(err)
	}
	k := f.Kernels()[0]
	tx := f.Section(".text")
	word := func(a uint64) uint32 { return binary.LittleEndian.Uint32(tx.Data[a-tx.Addr:]) }
	target := func(a uint64) uint64 { return uint64(int64(a) + 4 + 4*int64(int16(word(a)))) }
	e := k.EntryAddr
	if word(e)>>16 != 0xbf82 || word(e+256)>>16 != 0xbf82 {
		t.Fatalf("no s_branch stubs at entry %#x (%#x) and entry+256 (%#x)", e, word(e), word(e+256))
	}
	// The entry stub reaches the expanded v_bitop3 (VOP3 v_* words), the
	// preload stub the translated v_mov_b32 v1, s2 (0x7e020202).
	if w := word(target(e)); w>>26 != 0x34 {
		t.Fatalf("entry stub lands on %#x, not the translated first instruction", w)
	}
	if w := word(target(e + 256)); w != 0x7e020202 {
		t.Fatalf("preload stub lands on %#x, want v_mov_b32 v1, s2", w)
	}
}
