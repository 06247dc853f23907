package dbt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
)

// TestFP8ScaleFoldOnSimulator runs a guest shaped like the aiter FP8
// GEMM epilogues on simulated gfx950 and its translation on simulated
// gfx942: chains of 16x16x32 FP8 MFMAs (operands with -0 bytes) whose D
// is read only by fmas with a block scale, v_fma_f32 with one scale VGPR
// and v_pk_fma_f32 with a pair shared by two chains, each scale written
// again (a DPP row_newbcast multiply, a move) before anything else reads
// it and D rewritten by the next chain. Those fold the factor 4 into the
// scale (rule fp8-scale-fold at the first and the last fma of each), as
// does a block's last chain whose D the next block rewrites before any
// read (six such fmas in all); a chain whose D an add reads, in its block
// or the next, and one whose scale another instruction reads, keep their
// own scaling. The stored accumulators
// (and the scale, which a move reads after the folded fmas) must be
// equal, with and without subroutines.
func TestFP8ScaleFoldOnSimulator(t *testing.T) {
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n  v_mov_b32 v52, 0x80\n")
	fill := func(i int, dst string) {
		fmt.Fprintf(&s, "  v_mul_u32_u24_e32 v50, %#x, v0\n  v_add_u32_e32 v50, %d, v50\n", 0x01030507+2*i*0x01010101, 13*i+1)
		s.WriteString("  " + strings.ReplaceAll(fp8Fill, "\n", "\n  "))
		fmt.Fprintf(&s, "  %s, v50\n", dst)
	}
	for i := 0; i < 8; i++ {
		fill(i, fmt.Sprintf("v_mov_b32_e32 v%d", 10+i))
	}
	// Scales and accumulators: lane-dependent floats, some scales large
	// (2^100: scaled by 4 they stay finite).
	s.WriteString("  v_cvt_f32_u32_e32 v60, v0\n  v_add_f32_e32 v61, 0.5, v60\n  v_mul_f32_e32 v62, 0x71800000, v61\n")
	s.WriteString("  v_and_b32_e32 v51, 7, v0\n  v_cmp_eq_u32_e32 vcc, 5, v51\n  v_cndmask_b32_e32 v20, v61, v62, vcc\n  v_mov_b32_e32 v21, v60\n")
	for i := 0; i < 16; i++ {
		fmt.Fprintf(&s, "  v_mov_b32_e32 v%d, v61\n", 64+i)
	}
	const op = "v_mfma_f32_16x16x32_fp8_fp8"
	mf := func(d, a, b, c string) { fmt.Fprintf(&s, "  %s %s, %s, %s, %s\n", op, d, a, b, c) }
	s.WriteString("  s_nop 7\n  s_nop 7\n")
	// 1. v_fma_f32 with the scale v20, then v20 rewritten (DPP
	// row_newbcast, all rows and banks), D rewritten by the next chain.
	mf("v[30:33]", "v[10:11]", "v[12:13]", "0")
	mf("v[30:33]", "v[14:15]", "v[16:17]", "v[30:33]")
	s.WriteString("  s_nop 7\n  s_nop 7\n")
	for i := 0; i < 4; i++ {
		fmt.Fprintf(&s, "  v_fma_f32 v%d, v%d, v20, v%d\n", 64+i, 30+i, 64+i)
	}
	s.WriteString("  v_mul_f32_dpp v20, v21, v61 row_newbcast:1 row_mask:0xf bank_mask:0xf\n")
	// 2. Two chains whose v_pk_fma_f32 readers share the pair v[22:23].
	s.WriteString("  v_mov_b32_e32 v22, v20\n  v_mov_b32_e32 v23, v22\n")
	mf("v[34:37]", "v[10:11]", "v[16:17]", "0")
	mf("v[38:41]", "v[12:13]", "v[14:15]", "0")
	s.WriteString("  s_nop 7\n  s_nop 7\n")
	s.WriteString("  v_pk_fma_f32 v[68:69], v[34:35], v[22:23], v[68:69]\n  v_pk_fma_f32 v[70:71], v[36:37], v[22:23], v[70:71]\n")
	s.WriteString("  v_pk_fma_f32 v[72:73], v[38:39], v[22:23], v[72:73]\n  v_pk_fma_f32 v[74:75], v[40:41], v[22:23], v[74:75]\n")
	s.WriteString("  v_mov_b32_e32 v22, v61\n  v_mov_b32_e32 v23, v60\n")
	// 3. D read by an add: scaled by the expansion as before.
	mf("v[30:33]", "v[12:13]", "v[10:11]", "0")
	s.WriteString("  s_nop 7\n  s_nop 7\n  v_add_f32_e32 v76, v30, v76\n")
	for i := 1; i < 4; i++ {
		fmt.Fprintf(&s, "  v_fma_f32 v%d, v%d, v20, v%d\n", 76+i, 30+i, 76+i)
	}
	// 4. The scale v20 also read by a move: no fold.
	mf("v[34:37]", "v[14:15]", "v[12:13]", "0")
	s.WriteString("  s_nop 7\n  s_nop 7\n")
	for i := 0; i < 4; i++ {
		fmt.Fprintf(&s, "  v_fma_f32 v%d, v%d, v20, v%d\n", 64+i, 34+i, 64+i)
	}
	s.WriteString("  v_mov_b32_e32 v80, v20\n  v_mov_b32_e32 v20, 0\n")
	mf("v[30:33]", "v[10:11]", "v[10:11]", "0")
	mf("v[34:37]", "v[10:11]", "v[10:11]", "0")
	// 5. The last chain of a block, its D rewritten in the next block
	// before any read: folded (the scale v21). 6. One whose D the next
	// block reads: not folded.
	for i := 0; i < 4; i++ {
		fmt.Fprintf(&s, "  v_mov_b32_e32 v%d, v60\n", 84+i)
	}
	mf("v[38:41]", "v[12:13]", "v[16:17]", "0")
	mf("v[42:45]", "v[14:15]", "v[10:11]", "0")
	s.WriteString("  s_nop 7\n  s_nop 7\n")
	for i := 0; i < 4; i++ {
		fmt.Fprintf(&s, "  v_fma_f32 v%d, v%d, v21, v%d\n", 84+i, 38+i, 84+i)
	}
	for i := 0; i < 4; i++ {
		fmt.Fprintf(&s, "  v_fma_f32 v%d, v%d, v23, v%d\n", 88+i, 42+i, 88+i)
	}
	s.WriteString("  s_cmp_eq_u32 s0, s0\n  s_cbranch_scc1 next\n  v_mov_b32_e32 v92, 0\nnext:\n  v_add_f32_e32 v92, v45, v61\n")
	mf("v[38:41]", "v[10:11]", "v[10:11]", "0")
	mf("v[42:45]", "v[10:11]", "v[10:11]", "0")
	s.WriteString("  s_nop 7\n  s_nop 7\n  v_lshlrev_b32_e32 v90, 8, v0\n  s_waitcnt lgkmcnt(0)\n")
	for i := 0; i < 5; i++ {
		fmt.Fprintf(&s, "  global_store_dwordx4 v90, v[%d:%d], s[8:9] offset:%d\n", 64+4*i, 67+4*i, 16*i)
	}
	s.WriteString("  global_store_dword v90, v80, s[8:9] offset:80\n  global_store_dwordx4 v90, v[30:33], s[8:9] offset:96\n")
	s.WriteString("  global_store_dwordx4 v90, v[84:87], s[8:9] offset:112\n  global_store_dwordx4 v90, v[88:91], s[8:9] offset:128\n  global_store_dwordx4 v90, v[38:41], s[8:9] offset:144\n  global_store_dword v90, v92, s[8:9] offset:160\n  s_endpgm\n")
	s.WriteString(".rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 128\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 128\n.end_amdhsa_kernel\n")
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	guest := buildGuestFrom(t, path)
	size := 64 * 256
	want := runKernelOn(t, guest, "gfx950", size)
	if nonzero := nonzeroDwords(want); nonzero < size/8 {
		t.Fatalf("only %d nonzero dwords in the gfx950 result", nonzero)
	}
	for _, opt := range []Options{{Name: "fold"}, {Name: "fold-shared", forceShared: true}, {Name: "fold-inline", noShared: true}} {
		res, err := Translate(guest, opt)
		if err != nil {
			t.Fatalf("%v\n%+v", err, res.Report)
		}
		equalDwords(t, opt.Name, runKernelOn(t, res.Object, "gfx942", size), want, 256)
		folds := 0
		for _, k := range res.Report.Kernels[0].Kinds {
			if k.Rule == rules.FP8ScaleFoldRuleName {
				folds += k.Count
				if k.Fidelity != report.Approximate || k.Bound == "" {
					t.Errorf("%s: %+v", opt.Name, k)
				}
			}
		}
		if folds != 6 {
			t.Errorf("%s: %d fmas around folded scales, want 6 (%+v)", opt.Name, folds, res.Report.Kernels[0].Kinds)
		}
	}
}
