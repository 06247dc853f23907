package dbt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFP8MFMAChainsOnSimulator runs a guest with two interleaved chains of
// three FP8 MFMAs each (C = D, one chain starting from a loaded
// accumulator, one from zero, VGPR and AGPR accumulators), a VALU reader
// of one accumulator between chains, on simulated gfx950, and its
// translation on simulated gfx942; the stored accumulators and one A
// operand with -0 bytes (stored, so cleared in copies, not in place) must
// be equal,
// and the translation must keep the accumulators scaled inside the chains
// (fewer host instructions than the unchained expansions).
func TestFP8MFMAChainsOnSimulator(t *testing.T) {
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n  v_mov_b32 v52, 0x80\n")
	for i := 0; i < 12; i++ {
		writeLaneOperand(&s, i, 13*i+1, fp8Fill, fmt.Sprintf("v_mov_b32_e32 v%d", 10+i))
	}
	// v[30:33] = small floats from the lane id; a[0:3] starts at zero.
	for r := 0; r < 4; r++ {
		fmt.Fprintf(&s, "  v_add_u32_e32 v50, %d, v0\n  v_cvt_f32_u32_e32 v%d, v50\n", r, 30+r)
	}
	mf := func(fp8 string, d, a, b, c string) {
		fmt.Fprintf(&s, "  %s %s, %s, %s, %s\n", fp8, d, a, b, c)
	}
	// Interleaved chains: v[30:33] (C loaded) and a[0:3] (C = 0 first).
	const op = "v_mfma_f32_16x16x32_fp8_fp8"
	mf(op, "v[30:33]", "v[10:11]", "v[12:13]", "v[30:33]")
	mf(op, "a[0:3]", "v[14:15]", "v[16:17]", "0")
	s.WriteString("  s_nop 0\n")
	mf(op, "v[30:33]", "v[18:19]", "v[20:21]", "v[30:33]")
	s.WriteString("  v_accvgpr_write_b32 a8, v14\n  v_accvgpr_write_b32 a9, v15\n  s_nop 1\n")
	mf(op, "a[0:3]", "a[8:9]", "v[20:21]", "a[0:3]")
	mf(op, "v[30:33]", "v[12:13]", "v[14:15]", "v[30:33]")
	mf(op, "a[0:3]", "a[8:9]", "v[18:19]", "a[0:3]")
	// A VALU reader of v30 ends the first chain; a second one starts.
	s.WriteString("  s_nop 7\n  s_nop 7\n  s_nop 7\n  v_add_f32_e32 v30, 1.0, v30\n")
	mf(op, "v[30:33]", "v[10:11]", "v[14:15]", "v[30:33]")
	mf(op, "v[30:33]", "v[16:17]", "v[12:13]", "v[30:33]")
	s.WriteString("  s_nop 7\n  s_nop 7\n  s_nop 7\n")
	for r := 0; r < 4; r++ {
		fmt.Fprintf(&s, "  v_accvgpr_read_b32 v%d, a%d\n", 34+r, r)
	}
	s.WriteString("  v_lshlrev_b32_e32 v60, 6, v0\n  s_waitcnt lgkmcnt(0)\n  global_store_dwordx4 v60, v[30:33], s[8:9]\n  global_store_dwordx4 v60, v[34:37], s[8:9] offset:16\n  global_store_dwordx2 v60, v[10:11], s[8:9] offset:32\n  s_endpgm\n")
	s.WriteString(".rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 136\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 128\n.end_amdhsa_kernel\n")
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	guest := buildGuestFrom(t, path)
	size := 64 * 64
	want := runKernelOn(t, guest, "gfx950", size)
	// Inline, and with every expansion that pays called as a per-kernel
	// subroutine (forced: each key has one use).
	for _, opt := range []Options{{Name: "fp8chain"}, {Name: "fp8chain-shared", forceShared: true}} {
		res, err := Translate(guest, opt)
		if err != nil {
			t.Fatalf("%v\n%+v", err, res.Report)
		}
		if notes := fmt.Sprint(res.Report.Kernels[0].Notes); opt.forceShared != strings.Contains(notes, "per-kernel subroutines") {
			t.Fatalf("%s: subroutine notes %q", opt.Name, notes)
		}
		equalDwords(t, opt.Name, runKernelOn(t, res.Object, "gfx942", size), want, 64)
	}
	if nonzero := nonzeroDwords(want); nonzero < size/8 {
		t.Fatalf("only %d nonzero dwords in the gfx950 result", nonzero)
	}
	// Eight MFMAs, unchained, would scale D by 4 eight times (v_mul_f32
	// with the inline 4.0, once per register); the chains leave three:
	// the ends of the two v[30:33] chains and of the a[0:3] chain.
	chained, err := Translate(guest, Options{Name: "fp8chain", Diff: true})
	if err != nil {
		t.Fatal(err)
	}
	var d strings.Builder
	if err := WriteDiff(&d, chained.Changes); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(d.String(), ", 4.0, v"); n != 3*4 {
		t.Errorf("%d scalings by 4 in the translation, want 12 (3 chain ends of 4 registers)\n%s", n, d.String())
	}
}
