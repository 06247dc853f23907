package dbt

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/sim"
)

// runKernelOn runs kernel k of obj on a simulated agent for target with
// one 64-lane workgroup and a single buffer argument of size bytes.
func runKernelOn(t *testing.T, obj []byte, target string, size int) []byte {
	t.Helper()
	ag, err := sim.NewAgent(target)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := ag.LoadCodeObject(obj)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	k, err := ex.Kernel("k")
	if err != nil {
		t.Fatal(err)
	}
	buf, err := ag.Alloc(uint64(size))
	if err != nil {
		t.Fatal(err)
	}
	if err := ag.Dispatch(k, [3]uint32{64, 1, 1}, [3]uint32{64, 1, 1}, binary.LittleEndian.AppendUint64(nil, buf)); err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	out := make([]byte, size)
	if err := ag.CopyOut(buf, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMFMARulesAgainstGFX950Simulator is a differential test of the MFMA
// rules: a kernel fills A and B with lane-dependent values (chosen so
// every sum is exact in f32, so the summation order does not matter),
// runs one gfx950 MFMA given as raw words, and stores D. The guest runs on
// the simulated gfx950 agent, its translation on the simulated gfx942
// agent; the stored bytes must be equal.
func TestMFMARulesAgainstGFX950Simulator(t *testing.T) {
	type mcase struct {
		name       string
		op         uint32
		abRegs, cd int
		fill       string // how a value dword is formed from the lane-dependent x
	}
	fills := map[string]string{
		"fp8": fp8Fill,
		// bf16 pairs in [1, 2) with 4 mantissa bits.
		"bf16": "v_and_b32_e32 v50, 0x000f000f, v50\n  v_lshlrev_b32_e32 v50, 3, v50\n  v_or_b32_e32 v50, 0x3f803f80, v50\n",
		// small signed bytes.
		"i8": "v_and_b32_e32 v50, 0x0f0f0f0f, v50\n  v_sub_u32_e32 v50, v50, v51\n",
	}
	cases := []mcase{
		{"v_mfma_f32_16x16x32_bf16", 0x35, 4, 4, "bf16"},
		{"v_mfma_f32_32x32x16_bf16", 0x37, 4, 16, "bf16"},
		{"v_mfma_i32_16x16x64_i8", 0x36, 4, 4, "i8"},
		{"v_mfma_i32_32x32x32_i8", 0x38, 4, 16, "i8"},
		{"v_mfma_f32_16x16x32_fp8_fp8", 0x73, 2, 4, "fp8"},
		{"v_mfma_f32_32x32x16_fp8_fp8", 0x77, 2, 16, "fp8"},
		{"v_mfma_f32_16x16x128_f8f6f4", 0x2d, 8, 4, "fp8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s strings.Builder
			s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n  v_mov_b32 v51, 0x04040404\n  v_mov_b32 v52, 0x80\n")
			for i := 0; i < 2*c.abRegs; i++ {
				reg := 10 + i
				if i >= c.abRegs {
					reg = 100 + i - c.abRegs
				}
				// x = lane * odd constant + i, spread into every byte.
				writeLaneOperand(&s, i, 13*i+1, fills[c.fill], fmt.Sprintf("v_mov_b32_e32 v%d", reg))
			}
			w0 := 0xd3800000 | c.op<<16 | 30
			w1 := uint32(256+10) | (256+100)<<9 | 128<<18
			fmt.Fprintf(&s, "  .long %#x, %#x\n  s_nop 7\n  s_nop 7\n  s_nop 7\n  v_lshlrev_b32_e32 v60, %d, v0\n  s_waitcnt lgkmcnt(0)\n", w0, w1, 2+bitsLen(c.cd))
			for r := 0; r < c.cd; r += 4 {
				fmt.Fprintf(&s, "  global_store_dwordx4 v60, v[%d:%d], s[8:9] offset:%d\n", 30+r, 33+r, 4*r)
			}
			s.WriteString("  s_endpgm\n.rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 128\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 128\n.end_amdhsa_kernel\n")
			path := filepath.Join(t.TempDir(), "k.s")
			if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			guest := buildGuestFrom(t, path)
			// Inline, and with the expansion called as a per-kernel
			// subroutine (forced: the kernel has one use; the FP8 rule is
			// the one with a subroutine form).
			size := 64 * 4 * c.cd
			want := runKernelOn(t, guest, "gfx950", size)
			for _, opt := range []Options{{Name: c.name}, {Name: c.name + "-shared", forceShared: true}} {
				res, err := Translate(guest, opt)
				if err != nil {
					t.Fatalf("%v\n%+v", err, res.Report)
				}
				if notes := fmt.Sprint(res.Report.Kernels[0].Notes); (opt.forceShared && c.fill == "fp8") != strings.Contains(notes, "per-kernel subroutines") {
					t.Fatalf("%s: subroutine notes %q", opt.Name, notes)
				}
				equalDwords(t, opt.Name, runKernelOn(t, res.Object, "gfx942", size), want, 4*c.cd)
			}
			nonzero := false
			for _, b := range want {
				nonzero = nonzero || b != 0
			}
			if !nonzero {
				t.Fatal("the gfx950 run stored only zeros")
			}
		})
	}
}

// bitsLen is log2 of a power of two.
func bitsLen(n int) int {
	b := 0
	for n > 1 {
		n >>= 1
		b++
	}
	return b
}

// fp8Fill forms an FP8 operand dword in v50 from the lane-dependent x in
// v50: OCP E4M3 codes with exponent 6..9 (values in [0.5, 8)), and the OCP
// -0 byte (v52, which holds 0x80) in lanes where lane&15 == 3. It uses v51
// and VCC.
const fp8Fill = "v_and_b32_e32 v50, 0x1f1f1f1f, v50\n  v_or_b32_e32 v50, 0x30303030, v50\n  v_and_b32_e32 v51, 15, v0\n  v_cmp_eq_u32_e32 vcc, 3, v51\n  v_cndmask_b32_e32 v50, v50, v52, vcc\n"

// equalDwords fails t when the dwords of got and want differ, naming what,
// the first differing dword and its lane (laneBytes bytes per lane).
func equalDwords(t *testing.T, what string, got, want []byte, laneBytes int) {
	t.Helper()
	for i := 0; i+4 <= len(want); i += 4 {
		if g, w := binary.LittleEndian.Uint32(got[i:]), binary.LittleEndian.Uint32(want[i:]); g != w {
			t.Fatalf("%s: dword %d (lane %d): translated %#x, gfx950 %#x", what, i/4, i/laneBytes, g, w)
		}
	}
}

// nonzeroDwords counts the non-zero dwords of b.
func nonzeroDwords(b []byte) int {
	n := 0
	for i := 0; i+4 <= len(b); i += 4 {
		if binary.LittleEndian.Uint32(b[i:]) != 0 {
			n++
		}
	}
	return n
}

// writeLaneOperand writes guest code that makes v50 a lane-dependent word
// (the i-th multiplier of lane ID, plus add), passes it through fill (code
// that reads and writes v50, such as fp8Fill) and moves it with mov (an
// instruction and destination, "v_mov_b32 v10" or
// "v_accvgpr_write_b32 a3").
func writeLaneOperand(s *strings.Builder, i, add int, fill, mov string) {
	fmt.Fprintf(s, "  v_mul_u32_u24_e32 v50, %#x, v0\n  v_add_u32_e32 v50, %d, v50\n  %s  %s, v50\n",
		0x01030507+2*i*0x01010101, add, strings.ReplaceAll(fill, "\n", "\n  "), mov)
}
