package dbt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa/objfile"
)

// TestBufferLoadLDSSharedTailOnSimulator: gfx950 buffer_load_dwordx4 ...
// offen lds through two address VGPRs (two encodings, one body each),
// each used twice under different M0 values; the bodies differ only in
// the load, so the second ends with a branch into the first one's wait,
// LDS address and ds_write_b128, which .text must hold once. The LDS
// contents the translation writes, read back and stored on the simulated
// gfx942, must be what the guest stores on the simulated gfx950.
func TestBufferLoadLDSSharedTailOnSimulator(t *testing.T) {
	// buffer_load_dwordx4 vADDR, s[12:15], 0 offen lds (gfx950).
	load := func(addr uint32) string { return fmt.Sprintf("  .long %#x, %#x\n", 0xe05d1000, 0x80030000|addr) }
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n")
	s.WriteString("  v_lshlrev_b32 v1, 4, v0\n  s_mov_b32 s11, 0x9e3779b1\n  v_mul_lo_u32 v2, v0, s11\n  v_alignbit_b32 v3, v2, v2, 7\n  v_xor_b32 v4, 0x5bd1e995, v2\n  v_add_u32 v5, v3, v4\n  v_sub_u32 v6, v4, v3\n  v_not_b32 v7, v5\n  v_xor_b32 v8, 0x210, v1\n")
	s.WriteString("  s_waitcnt lgkmcnt(0)\n  global_store_dwordx4 v1, v[2:5], s[8:9]\n  global_store_dwordx4 v1, v[4:7], s[8:9] offset:1024\n  s_waitcnt vmcnt(0)\n")
	s.WriteString("  s_mov_b32 s12, s8\n  s_mov_b32 s13, s9\n  s_mov_b32 s14, -1\n  s_mov_b32 s15, 0x27000\n")
	s.WriteString("  s_mov_b32 m0, 0\n" + load(1))
	s.WriteString("  s_mov_b32 m0, 0x800\n" + load(8))
	s.WriteString("  v_xor_b32 v1, 16, v1\n  s_mov_b32 m0, 0x1000\n" + load(1))
	s.WriteString("  v_add_u32 v8, 0x100, v8\n  s_mov_b32 m0, 0x1800\n" + load(8))
	s.WriteString("  s_waitcnt vmcnt(0)\n  v_lshlrev_b32 v10, 4, v0\n")
	for i, off := range []int{0, 0x800, 0x1000, 0x1800} {
		fmt.Fprintf(&s, "  ds_read_b128 v[12:15], v10 offset:%d\n  s_waitcnt lgkmcnt(0)\n  v_add_u32 v11, %d, v10\n  global_store_dwordx4 v11, v[12:15], s[8:9]\n", off, 2048+1024*i)
	}
	s.WriteString("  s_endpgm\n.rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_group_segment_fixed_size 8192\n  .amdhsa_next_free_vgpr 24\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 24\n.end_amdhsa_kernel\n")
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	guest := buildGuestFrom(t, path)
	const size = 2048 + 4*1024
	want := runKernelOn(t, guest, "gfx950", size)
	if bytes.Equal(want[2048:], make([]byte, size-2048)) {
		t.Fatal("the guest stored nothing from LDS")
	}
	res, err := Translate(guest, Options{Name: "ldsdma-tail"})
	if err != nil {
		t.Fatal(err)
	}
	if notes := fmt.Sprint(res.Report.Kernels[0].Notes); !strings.Contains(notes, "4 long expansions call 2 per-kernel subroutines placed after the code") {
		t.Fatalf("notes %s", notes)
	}
	f, err := objfile.Parse(res.Object, "ldsdma-tail")
	if err != nil {
		t.Fatal(err)
	}
	var text []byte
	for _, sec := range f.Sections {
		if sec.Name == ".text" {
			text = sec.Data
		}
	}
	// ds_write_b128 (offset 0): the first word of the shared tail's write.
	if n := bytes.Count(text, binary.LittleEndian.AppendUint32(nil, 0xd8000000|0xdf<<17)); n != 1 {
		t.Errorf("ds_write_b128 occurs %d times in .text, want once (a tail shared by both bodies)", n)
	}
	verifyObject(t, "ldsdma-tail", guest, res.Object)
	if got := runKernelOn(t, res.Object, "gfx942", size); !bytes.Equal(got, want) {
		for i := 0; i < len(got); i += 4 {
			if !bytes.Equal(got[i:i+4], want[i:i+4]) {
				t.Fatalf("byte %d: translated % x, gfx950 % x", i, got[i:i+4], want[i:i+4])
			}
		}
	}
}
