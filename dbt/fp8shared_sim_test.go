package dbt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa/objfile"
)

// TestFP8MFMASubroutinesOnSimulator runs a guest shaped like the aiter FP8
// block-scale GEMMs (16x16x128 f8f6f4 MFMAs on AGPR operands with -0
// bytes, the same two MFMAs in a loop and again in its tail) on simulated
// gfx950, and its translation on simulated gfx942, unforced: each distinct
// MFMA occurs twice, so the translation calls per-kernel subroutines, must
// store what the guest stores, and must be smaller than the inline one
// (which must store the same).
func TestFP8MFMASubroutinesOnSimulator(t *testing.T) {
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n  v_mov_b32 v52, 0x80\n")
	// a[0:23]: FP8 operands with -0 bytes in some lanes.
	for i := 0; i < 24; i++ {
		writeLaneOperand(&s, i, 13*i+1, fp8Fill, fmt.Sprintf("v_accvgpr_write_b32 a%d", i))
	}
	// v[30:37]: small floats from the lane id.
	for r := 0; r < 8; r++ {
		fmt.Fprintf(&s, "  v_add_u32_e32 v50, %d, v0\n  v_cvt_f32_u32_e32 v%d, v50\n", r, 30+r)
	}
	// v_mfma_f32_16x16x128_f8f6f4 v[d:d+3], a[a:a+7], a[b:b+7], v[d:d+3]
	mf := func(d, a, b int) {
		w0 := uint32(0xd3800000 | 0x2d<<16 | d)
		w1 := uint32(256+a) | uint32(256+b)<<9 | uint32(256+d)<<18 | 1<<27 | 1<<28
		fmt.Fprintf(&s, "  .long %#x, %#x\n", w0, w1)
	}
	body := func() {
		mf(30, 0, 8)
		mf(34, 0, 16)
		s.WriteString("  s_nop 7\n  s_nop 7\n  s_nop 7\n")
	}
	s.WriteString("  s_mov_b32 s20, 3\nloop:\n")
	body()
	s.WriteString("  s_sub_u32 s20, s20, 1\n  s_cmp_lg_u32 s20, 0\n  s_cbranch_scc1 loop\n")
	body()
	s.WriteString("  v_lshlrev_b32_e32 v60, 5, v0\n  s_waitcnt lgkmcnt(0)\n  global_store_dwordx4 v60, v[30:33], s[8:9]\n  global_store_dwordx4 v60, v[34:37], s[8:9] offset:16\n  s_endpgm\n")
	s.WriteString(".rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 128\n  .amdhsa_next_free_sgpr 24\n  .amdhsa_accum_offset 64\n.end_amdhsa_kernel\n")
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	guest := buildGuestFrom(t, path)
	size := 64 * 32
	want := runKernelOn(t, guest, "gfx950", size)
	if nonzero := nonzeroDwords(want); nonzero < size/8 {
		t.Fatalf("only %d nonzero dwords in the gfx950 result", nonzero)
	}
	text := map[string]int{}
	for _, opt := range []Options{{Name: "fp8shared-inline", noShared: true}, {Name: "fp8shared"}} {
		res, err := Translate(guest, opt)
		if err != nil {
			t.Fatalf("%v\n%+v", err, res.Report)
		}
		notes := fmt.Sprint(res.Report.Kernels[0].Notes)
		if called := strings.Contains(notes, "4 long expansions call 2 per-kernel subroutines"); called == opt.noShared {
			t.Fatalf("%s: subroutine notes %q", opt.Name, notes)
		}
		f, err := objfile.Parse(res.Object, opt.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, sec := range f.Sections {
			if sec.Name == ".text" {
				text[opt.Name] = len(sec.Data)
			}
		}
		if text[opt.Name] == 0 {
			t.Fatalf("%s: no .text", opt.Name)
		}
		equalDwords(t, opt.Name, runKernelOn(t, res.Object, "gfx942", size), want, 32)
	}
	t.Logf(".text %d bytes with subroutines, %d inline", text["fp8shared"], text["fp8shared-inline"])
	if text["fp8shared"] >= text["fp8shared-inline"] {
		t.Errorf(".text %d bytes with subroutines, %d inline: no smaller", text["fp8shared"], text["fp8shared-inline"])
	}
}
