package dbt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSMFMACRulesAgainstGFX950Simulator is a differential test of the
// sparse MFMA rules: a kernel fills A (4 VGPRs), B (8 VGPRs), the index
// VGPR (random 2-bit positions) and the accumulator D with lane-dependent
// values whose products and sums are exact in f32, runs one gfx950
// v_smfmac_* given as raw words (VGPR or AGPR accumulator, every index
// set), and stores D. The guest runs on the simulated gfx950 agent, the
// translation on the simulated gfx942 agent; the stored bytes must be
// equal.
func TestSMFMACRulesAgainstGFX950Simulator(t *testing.T) {
	fills := map[string]string{
		"fp8": fp8Fill,
		// f16 pairs in [1, 2) with 4 mantissa bits.
		"f16": "v_and_b32_e32 v50, 0x000f000f, v50\n  v_lshlrev_b32_e32 v50, 6, v50\n  v_or_b32_e32 v50, 0x3c003c00, v50\n",
		// bf16 pairs in [1, 2) with 4 mantissa bits.
		"bf16": "v_and_b32_e32 v50, 0x000f000f, v50\n  v_lshlrev_b32_e32 v50, 3, v50\n  v_or_b32_e32 v50, 0x3f803f80, v50\n",
		// small signed bytes.
		"i8": "v_and_b32_e32 v50, 0x0f0f0f0f, v50\n  v_sub_u32_e32 v50, v50, v51\n",
	}
	type scase struct {
		name string
		op   uint32
		cd   int
		fill string
		abid uint32
		acc  bool
		f32  bool
	}
	cases := []scase{
		{"v_smfmac_f32_16x16x128_fp8_fp8", 0x43, 4, "fp8", 0, false, true},
		{"v_smfmac_f32_16x16x128_fp8_fp8", 0x43, 4, "fp8", 0, true, true},
		{"v_smfmac_f32_16x16x128_bf8_fp8", 0x3c, 4, "fp8", 0, false, true},
		{"v_smfmac_f32_32x32x64_fp8_fp8", 0x53, 16, "fp8", 0, false, true},
		{"v_smfmac_f32_32x32x64_fp8_bf8", 0x4f, 16, "fp8", 0, true, true},
		{"v_smfmac_f32_16x16x64_f16", 0x5a, 4, "f16", 0, false, true},
		{"v_smfmac_f32_16x16x64_f16", 0x5a, 4, "f16", 1, true, true},
		{"v_smfmac_f32_16x16x64_bf16", 0x39, 4, "bf16", 1, false, true},
		{"v_smfmac_f32_32x32x32_bf16", 0x46, 16, "bf16", 0, false, true},
		{"v_smfmac_f32_32x32x32_f16", 0x5b, 16, "f16", 1, false, true},
		{"v_smfmac_i32_16x16x128_i8", 0x3a, 4, "i8", 0, false, false},
		{"v_smfmac_i32_32x32x64_i8", 0x47, 16, "i8", 0, true, false},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s_abid%d_acc%v", c.name, c.abid, c.acc), func(t *testing.T) {
			var s strings.Builder
			s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n  v_mov_b32 v51, 0x04040404\n  v_mov_b32 v52, 0x80\n")
			for i := 0; i < 12; i++ {
				reg := 10 + i // A in v[10:13], B in v[14:21]
				writeLaneOperand(&s, i, 13*i+1, fills[c.fill], fmt.Sprintf("v_mov_b32_e32 v%d", reg))
			}
			// Index VGPR v22: a hash of the lane.
			s.WriteString("  s_mov_b32 s10, 0x9e3779b1\n  v_mul_lo_u32 v22, v0, s10\n  v_xor_b32 v22, 0x5bd1e995, v22\n")
			// D: small integers (f32 or i32) per lane and register.
			for r := 0; r < c.cd; r++ {
				fmt.Fprintf(&s, "  v_add_u32 v53, %d, v0\n  v_and_b32 v53, 7, v53\n", r)
				if c.f32 {
					s.WriteString("  v_cvt_f32_u32 v53, v53\n")
				}
				if c.acc {
					fmt.Fprintf(&s, "  v_accvgpr_write_b32 a%d, v53\n", r)
				} else {
					fmt.Fprintf(&s, "  v_mov_b32 v%d, v53\n", 30+r)
				}
			}
			d := uint32(30)
			if c.acc {
				d = 0
			}
			w0 := 0xd3800000 | c.op<<16 | c.abid<<11 | d
			if c.acc {
				w0 |= 1 << 15
			}
			w1 := uint32(256+10) | (256+14)<<9 | (256+22)<<18
			fmt.Fprintf(&s, "  s_nop 4\n  .long %#x, %#x\n  s_nop 7\n  s_nop 7\n  s_nop 7\n", w0, w1)
			if c.acc {
				for r := 0; r < c.cd; r++ {
					fmt.Fprintf(&s, "  v_accvgpr_read_b32 v%d, a%d\n", 30+r, r)
				}
			}
			fmt.Fprintf(&s, "  v_lshlrev_b32_e32 v60, %d, v0\n  s_waitcnt lgkmcnt(0)\n", 2+bitsLen(c.cd))
			for r := 0; r < c.cd; r += 4 {
				fmt.Fprintf(&s, "  global_store_dwordx4 v60, v[%d:%d], s[8:9] offset:%d\n", 30+r, 33+r, 4*r)
			}
			s.WriteString("  s_endpgm\n.rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 144\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 128\n.end_amdhsa_kernel\n")
			path := filepath.Join(t.TempDir(), "k.s")
			if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			guest := buildGuestFrom(t, path)
			res, err := Translate(guest, Options{Name: c.name})
			if err != nil {
				t.Fatalf("%v\n%+v", err, res.Report)
			}
			size := 64 * 4 * c.cd
			want := runKernelOn(t, guest, "gfx950", size)
			equalDwords(t, c.name, runKernelOn(t, res.Object, "gfx942", size), want, 4*c.cd)
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
