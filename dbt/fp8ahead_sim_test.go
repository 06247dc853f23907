package dbt

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFP8MFMAClearAheadOnSimulator runs a guest shaped like the aiter FP8
// GEMM main loops (chains of 16x16x32 FP8 MFMAs whose AGPR and VGPR
// operands are only read by FP8 MFMAs, with -0 and subnormal bytes) on
// simulated gfx950 and its translation on simulated gfx942 (inline and
// with subroutines forced). The first MFMA of the block clears the
// operands of the later ones ahead of them, except across what must stop
// it: a redefinition of an operand (an AGPR write, and a VGPR written
// under a partial EXEC), an s_waitcnt and EXEC writes; operands that
// become the D of a later MFMA and are read as such, or are zeroed by
// moves before a read in the next block, are still cleared in place. The stored
// accumulators must be equal, and the chained MFMA whose operands were
// cleared ahead must translate to the host MFMA alone (its own bytes).
func TestFP8MFMAClearAheadOnSimulator(t *testing.T) {
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n  v_mov_b32 v52, 0x80\n")
	// a[0:15] and v[10:17]: normal FP8 codes with -0 bytes in some lanes;
	// a[12:15] and v[16:17] subnormal codes with both signs (0x80 where
	// the mantissa is 0).
	fill := func(i int, dst string, subnormal bool) {
		fmt.Fprintf(&s, "  v_mul_u32_u24_e32 v50, %#x, v0\n  v_add_u32_e32 v50, %d, v50\n", 0x01030507+2*i*0x01010101, 13*i+1)
		if subnormal {
			s.WriteString("  v_and_b32_e32 v50, 0x87878787, v50\n")
		} else {
			s.WriteString("  " + strings.ReplaceAll(fp8Fill, "\n", "\n  "))
		}
		fmt.Fprintf(&s, "  %s, v50\n", dst)
	}
	for i := 0; i < 16; i++ {
		fill(i, fmt.Sprintf("v_accvgpr_write_b32 a%d", i), i >= 12)
	}
	for i := 0; i < 8; i++ {
		fill(16+i, fmt.Sprintf("v_mov_b32_e32 v%d", 10+i), i >= 6)
	}
	// v[40:41]: the value written under a partial EXEC.
	fill(30, "v_mov_b32_e32 v40", false)
	fill(31, "v_mov_b32_e32 v41", true)
	const op = "v_mfma_f32_16x16x32_fp8_fp8"
	mf := func(d, a, b, c string) { fmt.Fprintf(&s, "  %s %s, %s, %s, %s\n", op, d, a, b, c) }
	s.WriteString("  s_nop 7\n  s_nop 7\n")
	mf("v[30:33]", "a[0:1]", "a[8:9]", "0")
	mf("v[30:33]", "a[2:3]", "a[10:11]", "v[30:33]") // cleared ahead: the host MFMA alone
	s.WriteString("  v_accvgpr_write_b32 a4, v50\n  s_nop 1\n")
	mf("v[30:33]", "a[4:5]", "v[10:11]", "v[30:33]") // a[4:5] redefined: cleared here
	mf("v[34:37]", "a[4:5]", "v[12:13]", "0")
	s.WriteString("  s_waitcnt vmcnt(0)\n")
	mf("v[34:37]", "a[6:7]", "v[14:15]", "v[34:37]")
	mf("v[34:37]", "a[12:13]", "v[16:17]", "v[34:37]")
	// v[10:11] rewritten in the lanes of a partial EXEC, then read again.
	s.WriteString("  s_mov_b64 exec, 0xffff\n  v_mov_b32_e32 v10, v40\n  v_mov_b32_e32 v11, v41\n  s_mov_b64 exec, -1\n  s_nop 4\n")
	mf("v[38:41]", "a[14:15]", "v[10:11]", "0")
	mf("v[38:41]", "a[0:1]", "v[16:17]", "v[38:41]")
	// v[14:17], FP8 operands above, become the D of a zero-C MFMA that a
	// VALU operation and a store read: those reads see the MFMA's values,
	// so the operands were still cleared in place, not copied.
	mf("v[14:17]", "a[2:3]", "a[8:9]", "0")
	s.WriteString("  s_nop 7\n  s_nop 7\n  s_nop 7\n  v_add_f32_e32 v14, 1.0, v14\n")
	// v[12:13], FP8 operands above, zeroed by moves and read (stored) in
	// the next block: every path to the store has the moves, so they are
	// still cleared ahead.
	s.WriteString("  v_mov_b32_e32 v12, 0\n  v_mov_b32_e32 v13, 1.0\n  s_cmp_eq_u32 s0, s0\n  s_cbranch_scc1 next\n  v_mov_b32_e32 v12, 2.0\nnext:\n  v_add_f32_e32 v13, v13, v12\n")
	s.WriteString("  v_lshlrev_b32_e32 v60, 7, v0\n  s_waitcnt lgkmcnt(0)\n  global_store_dwordx4 v60, v[30:33], s[8:9]\n  global_store_dwordx4 v60, v[34:37], s[8:9] offset:16\n  global_store_dwordx4 v60, v[38:41], s[8:9] offset:32\n  global_store_dwordx4 v60, v[14:17], s[8:9] offset:48\n  global_store_dwordx2 v60, v[12:13], s[8:9] offset:64\n  s_endpgm\n")
	s.WriteString(".rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 144\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 128\n.end_amdhsa_kernel\n")
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	guest := buildGuestFrom(t, path)
	size := 64 * 128
	want := runKernelOn(t, guest, "gfx950", size)
	if nonzero := nonzeroDwords(want); nonzero < size/16 {
		t.Fatalf("only %d nonzero dwords in the gfx950 result", nonzero)
	}
	// The AGPR operands stay AGPRs (noAGPRRename): their clearing is
	// what is tested; the renamed form runs as a third translation.
	for _, opt := range []Options{{Name: "fp8ahead", Diff: true, noAGPRRename: true}, {Name: "fp8ahead-shared", forceShared: true, noAGPRRename: true}, {Name: "fp8ahead-renamed"}} {
		res, err := Translate(guest, opt)
		if err != nil {
			t.Fatalf("%v\n%+v", err, res.Report)
		}
		equalDwords(t, opt.Name, runKernelOn(t, res.Object, "gfx942", size), want, 128)
		if !opt.Diff {
			continue
		}
		var d strings.Builder
		if err := WriteDiff(&d, res.Changes); err != nil {
			t.Fatal(err)
		}
		// The second MFMA is translated to its own bytes (the host MFMA
		// alone: no change listed), the first clears ahead for it.
		text := d.String()
		if strings.Contains(text, "a[2:3], a[10:11]") || !strings.Contains(text, "v_accvgpr_write_b32 a10") {
			t.Errorf("the second MFMA's operands are not cleared ahead by the first:\n%s", text)
		}
		if strings.Contains(text, "a[4:5], v[12:13]") {
			t.Errorf("v[12:13] (zeroed before a read in the next block) is copied, not cleared ahead:\n%s", text)
		}
		if !regexp.MustCompile(`\+ v_mfma_f32_16x16x32_fp8_fp8 v\[34:37\], v\[\d+:\d+\], v\[14:15\]`).MatchString(text) {
			t.Errorf("v[14:15] (read later only as the D of an MFMA) is copied, not cleared in place:\n%s", text)
		}
	}
}
