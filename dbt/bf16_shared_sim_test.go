package dbt

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// TestCvtPkBF16SharedAgainstGFX950Simulator: five v_cvt_pk_bf16_f32 with
// VGPR, SGPR and inline-constant sources, NaN/inf and tie inputs, and a
// destination that is also a source, translated with one per-kernel
// subroutine (after the code, and a copy before each use) and inline; each
// translation on the simulated gfx942 must store what the guest stores on
// the simulated gfx950.
func TestCvtPkBF16SharedAgainstGFX950Simulator(t *testing.T) {
	cvt := func(vdst int, src0, src1 uint32) string {
		return fmt.Sprintf("  .long %#x, %#x\n", 0xd2680000|uint32(vdst), src0|src1<<9)
	}
	v := func(r int) uint32 { return uint32(256 + r) }
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n")
	s.WriteString("  s_mov_b32 s11, 0x9e3779b1\n  v_mul_lo_u32 v1, v0, s11\n  v_or_b32 v2, 0x7f800000, v1\n  v_alignbit_b32 v3, v1, v1, 13\n  v_lshlrev_b32 v4, 16, v0\n  v_or_b32 v4, 0x8000, v4\n  s_mov_b32 s10, 0x3fc18000\n")
	// s_nop between them: no two make a copy run.
	s.WriteString(cvt(20, v(1), v(2)) + "  s_nop 0\n")
	s.WriteString(cvt(21, 10, v(4)) + "  s_nop 0\n")
	s.WriteString(cvt(22, v(3), 242) + "  s_nop 0\n")
	s.WriteString(cvt(23, v(4), v(4)) + "  s_nop 0\n")
	s.WriteString(cvt(1, v(1), v(3)))
	s.WriteString("  v_mul_u32_u24 v30, 20, v0\n  s_waitcnt lgkmcnt(0)\n")
	for i, r := range []int{20, 21, 22, 23, 1} {
		fmt.Fprintf(&s, "  global_store_dword v30, v%d, s[8:9] offset:%d\n", r, 4*i)
	}
	guest := buildCvtKernel(t, s.String())
	want := runKernelOn(t, guest, "gfx950", 64*20)
	for _, c := range []struct {
		name string
		opt  Options
		note string
	}{
		{"subroutine", Options{}, "5 long expansions call 1 per-kernel subroutines placed after the code"},
		{"copies", Options{sharedReach: 1}, "5 long expansions call 5 per-kernel subroutines placed in the code"},
		{"inline", Options{noShared: true}, ""},
	} {
		c.opt.Name = "cvtpk-" + c.name
		res, err := Translate(guest, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		notes := fmt.Sprint(res.Report.Kernels[0].Notes)
		if c.note != "" && !strings.Contains(notes, c.note) || c.note == "" && strings.Contains(notes, "subroutine") {
			t.Fatalf("%s: notes %s, want %q", c.name, notes, c.note)
		}
		verifyObject(t, c.opt.Name, guest, res.Object)
		if got := runKernelOn(t, res.Object, "gfx942", 64*20); !bytes.Equal(got, want) {
			for i := 0; i < len(got); i += 4 {
				if !bytes.Equal(got[i:i+4], want[i:i+4]) {
					t.Fatalf("%s: lane %d store %d: translated % x, gfx950 % x", c.name, i/20, i%20/4, got[i:i+4], want[i:i+4])
				}
			}
		}
	}
}

// TestCvtPkBF16InPlaceAgainstGFX950Simulator: two register triples of
// v_cvt_pk_bf16_f32 used eight times each (one whose destination is its
// first source), the sources changed between uses (NaNs, infinities and
// ties among them), translated with the in-place subroutine form (one body
// per triple on the guest's registers: a use is the call alone) and inline;
// each translation on the simulated gfx942 must store what the guest
// stores on the simulated gfx950.
//
// With the two conversions adjacent they are a run: its first conversion
// calls one body converting both (8 calls, one body; the second emits
// nothing), which must also store what the guest stores.
func TestCvtPkBF16InPlaceAgainstGFX950Simulator(t *testing.T) {
	t.Run("separate", func(t *testing.T) {
		testCvtPkBF16InPlace(t, "  s_nop 0\n", "16 long expansions call 2 per-kernel subroutines placed after the code", 16)
	})
	t.Run("run", func(t *testing.T) {
		testCvtPkBF16InPlace(t, "", "8 long expansions call 1 per-kernel subroutines placed after the code", 8)
	})
	// With the second destination apart from the sources, the run's body
	// is the checked form (the NaN fix-up skipped where no lane has one).
	t.Run("checked-run", func(t *testing.T) {
		testCvtPkBF16InPlaceDst(t, "", "8 long expansions call 1 per-kernel subroutines placed after the code", 8, 21)
	})
}

// testCvtPkBF16InPlace is TestCvtPkBF16InPlaceAgainstGFX950Simulator with
// sep between the two conversions, the subroutine note want and calls
// uses of the bodies.
func testCvtPkBF16InPlace(t *testing.T, sep, want string, calls int) {
	testCvtPkBF16InPlaceDst(t, sep, want, calls, 3)
}

// testCvtPkBF16InPlaceDst is testCvtPkBF16InPlace with dst2 the second
// conversion's destination (3 is its first source).
func testCvtPkBF16InPlaceDst(t *testing.T, sep, want string, calls, dst2 int) {
	cvt := func(vdst int, src0, src1 uint32) string {
		return fmt.Sprintf("  .long %#x, %#x\n", 0xd2680000|uint32(vdst), src0|src1<<9)
	}
	v := func(r int) uint32 { return uint32(256 + r) }
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n")
	s.WriteString("  s_mov_b32 s11, 0x9e3779b1\n  v_mul_lo_u32 v1, v0, s11\n  v_or_b32 v2, 0x7f800000, v1\n  v_alignbit_b32 v3, v1, v1, 13\n  v_lshlrev_b32 v4, 16, v0\n  v_or_b32 v4, 0x8000, v4\n  v_mul_u32_u24 v30, 64, v0\n  s_waitcnt lgkmcnt(0)\n")
	for i := 0; i < 8; i++ {
		s.WriteString(cvt(20, v(1), v(2)))
		s.WriteString(sep)
		s.WriteString(cvt(dst2, v(3), v(4)))
		fmt.Fprintf(&s, "  global_store_dword v30, v20, s[8:9] offset:%d\n  global_store_dword v30, v%d, s[8:9] offset:%d\n", 8*i, dst2, 8*i+4)
		s.WriteString("  v_alignbit_b32 v1, v2, v1, 7\n  v_xor_b32 v2, v1, v2\n  v_add_u32 v3, v3, v1\n  v_alignbit_b32 v4, v4, v2, 19\n")
	}
	guest := buildCvtKernel(t, s.String())
	gfx950 := runKernelOn(t, guest, "gfx950", 64*64)
	var sizes []int
	for _, c := range []struct {
		name string
		opt  Options
		note string
	}{
		{"subroutine", Options{}, want},
		{"inline", Options{noShared: true}, ""},
	} {
		c.opt.Name = "cvtpk-inplace-" + c.name
		res, err := Translate(guest, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		notes := fmt.Sprint(res.Report.Kernels[0].Notes)
		if c.note != "" && !strings.Contains(notes, c.note) || c.note == "" && strings.Contains(notes, "subroutine") {
			t.Fatalf("%s: notes %s, want %q", c.name, notes, c.note)
		}
		verifyObject(t, c.opt.Name, guest, res.Object)
		text := textOf(t, res.Object)
		sizes = append(sizes, len(text))
		if c.name == "subroutine" {
			// No operand is copied in or out at a use: no whole-register
			// v_mov_b32 just before or after a call (the guest has none;
			// the bodies move staged results, and their SDWA moves write
			// half a register). The bodies test for NaNs with
			// s_cbranch_execz: the checked form where no destination is a
			// source, else the staged form (v3 <- v3,v4).
			var insts []isa.Inst
			for off := 0; off < len(text); {
				in, err := gfx9DecodeForTest(text[off:], uint64(off))
				if err != nil {
					t.Fatalf("host code at %#x: %v", off, err)
				}
				insts = append(insts, in)
				off += int(in.Size)
			}
			checked := false
			copyAt := func(j int) bool {
				return j >= 0 && j < len(insts) && insts[j].Name() == "v_mov_b32" && insts[j].Format != isa.SDWA
			}
			for j, in := range insts {
				if in.Name() == "s_call_b64" && (copyAt(j-1) || copyAt(j+1)) {
					t.Fatalf("a copy at the call at %#x: the uses are not the call alone", in.PC)
				}
				checked = checked || in.Name() == "s_cbranch_execz"
			}
			if !checked {
				t.Fatalf("no checked body, separator %q, second destination v%d", sep, dst2)
			}
		}
		if got := runKernelOn(t, res.Object, "gfx942", 64*64); !bytes.Equal(got, gfx950) {
			for i := 0; i < len(got); i += 4 {
				if !bytes.Equal(got[i:i+4], gfx950[i:i+4]) {
					t.Fatalf("%s: lane %d store %d: translated % x, gfx950 % x", c.name, i/64, i%64/4, got[i:i+4], gfx950[i:i+4])
				}
			}
		}
	}
	// The calls and bodies, against 16 copies of the 100-byte expansion.
	if sizes[0] >= sizes[1]-16*100+4*calls+2*104+64 {
		t.Fatalf(".text %d bytes with the in-place subroutines, %d inline", sizes[0], sizes[1])
	}
}

// TestCvtPkBF16CopyRunAgainstGFX950Simulator: runs of v_cvt_pk_bf16_f32
// whose triples have too few uses for in-place bodies, shaped as in the
// fmha_v3 kernels (v8 <- v8,v9; v9 <- v10,v11; ...: each destination a
// source of the same or an earlier conversion), NaNs, infinities and ties
// among the sources, in a loop with two runs of three and a run of two,
// and a run of three after the loop, translated with the copy-run
// subroutine (one body per run length used twice or more: the conversions
// of the run of two are calls of the copying form) and inline. A run that reads an earlier destination of
// its own (v20 <- v1,v2; v21 <- v20,v3) is not a copy run. Each
// translation on the simulated gfx942 must store what the guest stores on
// the simulated gfx950.
func TestCvtPkBF16CopyRunAgainstGFX950Simulator(t *testing.T) {
	cvt := func(vdst int, src0, src1 uint32) string {
		return fmt.Sprintf("  .long %#x, %#x\n", 0xd2680000|uint32(vdst), src0|src1<<9)
	}
	v := func(r int) uint32 { return uint32(256 + r) }
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n")
	s.WriteString("  s_mov_b32 s11, 0x9e3779b1\n  v_mul_lo_u32 v1, v0, s11\n  v_or_b32 v2, 0x7f800000, v1\n  v_alignbit_b32 v3, v1, v1, 13\n  v_lshlrev_b32 v4, 16, v0\n  v_or_b32 v4, 0x8000, v4\n  v_mul_u32_u24 v30, 64, v0\n  s_waitcnt lgkmcnt(0)\n")
	fill := "  v_mov_b32 v8, v1\n  v_mov_b32 v9, v2\n  v_mov_b32 v10, v3\n  v_mov_b32 v11, v4\n  v_xor_b32 v12, v1, v4\n  v_alignbit_b32 v13, v2, v3, 9\n"
	store := func(off int, regs ...int) {
		for k, r := range regs {
			fmt.Fprintf(&s, "  global_store_dword v30, v%d, s[8:9] offset:%d\n", r, off+4*k)
		}
	}
	mutate := "  v_alignbit_b32 v1, v2, v1, 7\n  v_xor_b32 v2, v1, v2\n  v_add_u32 v3, v3, v1\n  v_alignbit_b32 v4, v4, v2, 19\n"
	s.WriteString("  s_mov_b32 s12, 2\nloop:\n")
	s.WriteString(fill)
	s.WriteString(cvt(8, v(8), v(9)) + cvt(9, v(10), v(11)) + cvt(10, v(12), v(13)))
	store(0, 8, 9, 10)
	s.WriteString(mutate)
	s.WriteString(fill)
	s.WriteString(cvt(8, v(8), v(9)) + cvt(9, v(10), v(11)) + cvt(10, v(12), v(13)))
	store(12, 8, 9, 10)
	s.WriteString(cvt(14, v(1), v(2)) + cvt(15, v(3), 10))
	store(24, 14, 15)
	s.WriteString(cvt(20, v(1), v(2)) + cvt(21, v(20), v(3)))
	store(32, 20, 21)
	s.WriteString(mutate)
	s.WriteString("  s_sub_u32 s12, s12, 1\n  s_cmp_lg_u32 s12, 0\n  s_cbranch_scc1 loop\n")
	// After the loop: a run of three not in a loop.
	s.WriteString(fill)
	s.WriteString(cvt(8, v(8), v(9)) + cvt(9, v(10), v(11)) + cvt(10, v(12), v(13)))
	store(40, 8, 9, 10)
	guest := buildCvtKernel(t, s.String())
	gfx950 := runKernelOn(t, guest, "gfx950", 64*64)
	for _, c := range []struct {
		name string
		opt  Options
		note string
	}{
		{"subroutine", Options{}, "long expansions call 2 per-kernel subroutines placed after the code"},
		{"inline", Options{noShared: true}, ""},
	} {
		c.opt.Name = "cvtpk-copyrun-" + c.name
		res, err := Translate(guest, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		notes := fmt.Sprint(res.Report.Kernels[0].Notes)
		if c.note != "" && !strings.Contains(notes, c.note) || c.note == "" && strings.Contains(notes, "subroutine") {
			t.Fatalf("%s: notes %s, want %q", c.name, notes, c.note)
		}
		verifyObject(t, c.opt.Name, guest, res.Object)
		if c.name == "subroutine" {
			// Three calls of the run body, and the copying form's calls
			// for the four conversions outside copy runs (the run of two,
			// its length used once, and the run that reads its own
			// destination).
			text := textOf(t, res.Object)
			calls := 0
			for off := 0; off < len(text); {
				in, err := gfx9DecodeForTest(text[off:], uint64(off))
				if err != nil {
					t.Fatalf("host code at %#x: %v", off, err)
				}
				if in.Name() == "s_call_b64" {
					calls++
				}
				off += int(in.Size)
			}
			if calls != 7 {
				t.Fatalf("%d calls, want 7 (3 runs, 4 single conversions)", calls)
			}
		}
		if got := runKernelOn(t, res.Object, "gfx942", 64*64); !bytes.Equal(got, gfx950) {
			for i := 0; i < len(got); i += 4 {
				if !bytes.Equal(got[i:i+4], gfx950[i:i+4]) {
					t.Fatalf("%s: lane %d store %d: translated % x, gfx950 % x", c.name, i/64, i%64/4, got[i:i+4], gfx950[i:i+4])
				}
			}
		}
	}
}

// buildCvtKernel ends the code of kernel k with s_endpgm and its
// descriptor (kernarg pointer, 40 VGPRs, 16 SGPRs) and builds it.
func buildCvtKernel(t *testing.T, code string) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(code+"  s_endpgm\n.rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 40\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 40\n.end_amdhsa_kernel\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return buildGuestFrom(t, path)
}
