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

// TestFP8MFMASharedTailOnSimulator runs a guest with two distinct
// zero-C FP8 MFMAs (16x16x128 f8f6f4, AGPR operands with -0 bytes) that
// write the same D, each in a loop and again after it, on simulated
// gfx950, and its translation on simulated gfx942. Both MFMAs get a
// subroutine body, and both bodies end with the same scaling of D by 4:
// the translation must store what the guest stores and hold that tail
// once (the second body branches into the first one's).
func TestFP8MFMASharedTailOnSimulator(t *testing.T) {
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n  v_mov_b32 v52, 0x80\n")
	for i := 0; i < 24; i++ {
		writeLaneOperand(&s, i, 11*i+3, fp8Fill, fmt.Sprintf("v_accvgpr_write_b32 a%d", i))
	}
	for r := 0; r < 4; r++ {
		fmt.Fprintf(&s, "  v_mov_b32 v%d, 0\n", 40+r)
	}
	// v_mfma_f32_16x16x128_f8f6f4 v[30:33], a[a:a+7], a[b:b+7], 0, then
	// v[40:43] += v[30:33].
	mf := func(a, b int) {
		w0 := uint32(0xd3800000 | 0x2d<<16 | 30)
		w1 := uint32(256+a) | uint32(256+b)<<9 | 128<<18 | 1<<27 | 1<<28
		fmt.Fprintf(&s, "  .long %#x, %#x\n  s_nop 7\n  s_nop 7\n  s_nop 7\n", w0, w1)
		for r := 0; r < 4; r++ {
			fmt.Fprintf(&s, "  v_add_f32_e32 v%d, v%d, v%d\n", 40+r, 30+r, 40+r)
		}
	}
	body := func() {
		mf(0, 8)
		mf(16, 8)
	}
	s.WriteString("  s_mov_b32 s20, 3\nloop:\n")
	body()
	s.WriteString("  s_sub_u32 s20, s20, 1\n  s_cmp_lg_u32 s20, 0\n  s_cbranch_scc1 loop\n")
	body()
	s.WriteString("  v_lshlrev_b32_e32 v60, 4, v0\n  s_waitcnt lgkmcnt(0)\n  global_store_dwordx4 v60, v[40:43], s[8:9]\n  s_endpgm\n")
	s.WriteString(".rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 128\n  .amdhsa_next_free_sgpr 24\n  .amdhsa_accum_offset 64\n.end_amdhsa_kernel\n")
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	guest := buildGuestFrom(t, path)
	size := 64 * 16
	want := runKernelOn(t, guest, "gfx950", size)
	if nonzero := nonzeroDwords(want); nonzero < size/8 {
		t.Fatalf("only %d nonzero dwords in the gfx950 result", nonzero)
	}
	res, err := Translate(guest, Options{Name: "fp8tail"})
	if err != nil {
		t.Fatalf("%v\n%+v", err, res.Report)
	}
	notes := fmt.Sprint(res.Report.Kernels[0].Notes)
	if !strings.Contains(notes, "4 long expansions call 2 per-kernel subroutines") {
		t.Fatalf("subroutine notes %q", notes)
	}
	f, err := objfile.Parse(res.Object, "fp8tail")
	if err != nil {
		t.Fatal(err)
	}
	var text []byte
	for _, sec := range f.Sections {
		if sec.Name == ".text" {
			text = sec.Data
		}
	}
	// v_mul_f32_e32 v30, 4.0, v30: the first word of the scaling of D.
	mul := binary.LittleEndian.AppendUint32(nil, 5<<25|30<<17|30<<9|246)
	if n := bytes.Count(text, mul); n != 1 {
		t.Errorf("the scaling of D by 4 occurs %d times in .text, want once (a tail shared by both bodies)", n)
	}
	equalDwords(t, "fp8tail", runKernelOn(t, res.Object, "gfx942", size), want, 16)
}
