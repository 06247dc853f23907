package dbt

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
)

// scaleCvtCase is one gfx950 scaled conversion of the differential test and
// how to compare the dword it writes.
type scaleCvtCase struct {
	name  string
	words [2]uint32
	// kind: "fp4" (nibble codes), "fp8" (E4M3 bytes), "f32", "h16" (f16
	// halves), "b16" (bf16 halves); dwords is how many it writes.
	kind   string
	dwords int
}

func scaleVOP3Words(op, vdst, opsel, abs uint32, src0, src1, src2, neg uint32) [2]uint32 {
	return [2]uint32{0xd2000000 | op<<16 | opsel<<11 | abs<<8 | vdst, src0 | src1<<9 | src2<<18 | neg<<29}
}

// scaleCvtCases writes results from v10 on. Inputs: v1 = (lane-32)/8 (the
// FP4 grid, its midpoints and beyond), v6 = 16*v1 (overflow), v2 = lane
// bit patterns of every class, v3 = scale 2^-1..2^2 with mantissa noise,
// v4 = element codes.
var scaleCvtCases = []scaleCvtCase{
	{"pk_fp4_f32 v10, v1, v2, v3", scaleVOP3Words(0x23d, 10, 0, 0, 257, 258, 259, 0), "fp4", 1},
	{"pk_fp4_f32 v10, |v6|, -v1, v3 op_sel:[0,0,1,1]", scaleVOP3Words(0x23d, 10, 3<<2, 1, 262, 257, 259, 2), "fp4", 1},
	{"pk_fp4_f32 v11, v2, v6, v2 op_sel:[0,0,1,0]", scaleVOP3Words(0x23d, 11, 1<<2, 0, 258, 262, 258, 0), "fp4", 1},
	{"pk_fp4_f32 v11, -v6, v3, 1.0 op_sel:[0,0,0,1]", scaleVOP3Words(0x23d, 11, 2<<2, 0, 262, 259, 242, 1), "fp4", 1},
	{"pk_fp8_f32 v12, v1, v6, v3", scaleVOP3Words(0x235, 12, 0, 0, 257, 262, 259, 0), "fp8", 1},
	{"pk_fp8_f32 v12, v2, v1, v2 op_sel:[0,0,0,1]", scaleVOP3Words(0x235, 12, 8, 0, 258, 257, 258, 0), "fp8", 1},
	{"pk_f32_fp4 v[14:15], v4, v3 op_sel:[1,0,0]", scaleVOP3Words(0x23f, 14, 1, 0, 260, 259, 0, 0), "f32", 2},
	{"pk_f32_fp8 v[16:17], v4, v2", scaleVOP3Words(0x239, 16, 0, 0, 260, 258, 0, 0), "f32", 2},
	{"pk_f32_bf8 v[18:19], v4, v3 op_sel:[1,0,0]", scaleVOP3Words(0x23a, 18, 1, 0, 260, 259, 0, 0), "f32", 2},
	{"f32_fp8 v20, v4, v3 op_sel:[1,1,0]", scaleVOP3Words(0x23b, 20, 3, 0, 260, 259, 0, 0), "f32", 1},
	{"f32_bf8 v21, v4, v2 op_sel:[0,1,0]", scaleVOP3Words(0x23c, 21, 2, 0, 260, 258, 0, 0), "f32", 1},
	{"pk_bf16_fp8 v22, v4, v3 op_sel:[1,0,0]", scaleVOP3Words(0x269, 22, 1, 0, 260, 259, 0, 0), "b16", 1},
	{"pk_bf16_bf8 v23, v4, v2", scaleVOP3Words(0x26a, 23, 0, 0, 260, 258, 0, 0), "b16", 1},
	{"pk_f16_fp8 v24, v4, v3", scaleVOP3Words(0x248, 24, 0, 0, 260, 259, 0, 0), "h16", 1},
	{"pk_f16_bf8 v25, v4, v3 op_sel:[1,0,0]", scaleVOP3Words(0x249, 25, 1, 0, 260, 259, 0, 0), "h16", 1},
	{"pk_f16_fp4 v26, v4, v3 op_sel:[1,1,0]", scaleVOP3Words(0x250, 26, 3, 0, 260, 259, 0, 0), "h16", 1},
	{"pk_bf16_fp4 v27, v4, v2 op_sel:[0,1,0]", scaleVOP3Words(0x251, 27, 2, 0, 260, 258, 0, 0), "b16", 1},
	{"pk_fp4_f16 v28, v7, v3 op_sel:[0,0,1,0]", scaleVOP3Words(0x24c, 28, 1<<2, 0, 263, 259, 0, 0), "fp4", 1},
	{"pk_fp4_bf16 v28, v8, v3 op_sel:[0,0,1,1]", scaleVOP3Words(0x24d, 28, 3<<2, 0, 264, 259, 0, 0), "fp4", 1},
	{"pk_fp8_f16 v29, v7, v3", scaleVOP3Words(0x240, 29, 0, 0, 263, 259, 0, 0), "fp8", 1},
	{"pk_fp8_bf16 v29, v8, v2 op_sel:[0,0,0,1]", scaleVOP3Words(0x244, 29, 8, 0, 264, 258, 0, 0), "fp8", 1},
	{"pk_bf8_f32 v30, v5, v2, v3", scaleVOP3Words(0x236, 30, 0, 0, 261, 258, 259, 0), "bf8", 1},
	{"pk_bf8_f32 v32, v6, v5, v3 op_sel:[0,0,0,1]", scaleVOP3Words(0x236, 32, 8, 0, 262, 261, 259, 0), "bf8", 1},
	{"pk_fp8_f32 v33, v5, v1, 1.0", scaleVOP3Words(0x235, 33, 0, 0, 261, 257, 242, 0), "fp8", 1},
	{"pk_bf8_f32 v30, v1, v6, v2 op_sel:[0,0,0,1]", scaleVOP3Words(0x236, 30, 8, 0, 257, 262, 258, 0), "bf8", 1},
	{"pk_bf8_f16 v31, v7, v3", scaleVOP3Words(0x241, 31, 0, 0, 263, 259, 0, 0), "bf8", 1},
	{"pk_bf8_bf16 v31, v8, v2 op_sel:[0,0,0,1]", scaleVOP3Words(0x245, 31, 8, 0, 264, 258, 0, 0), "bf8", 1},
}

// TestScaleCvtRulesAgainstGFX950Simulator is the differential test of the
// scaled-conversion rules: each gfx950 v_cvt_scalef32_* runs on the
// simulated gfx950 agent and its translation on the simulated gfx942
// agent, over lane inputs that cover the FP4 grid and its ties, overflow,
// every float class and every element code; results must be equal (NaN
// matches NaN: the documented bound).
func TestScaleCvtRulesAgainstGFX950Simulator(t *testing.T) {
	guest := scaleCvtGuest(t, scaleCvtCases)
	res, err := Translate(guest, Options{Name: "scalecvt"})
	if err != nil {
		t.Fatalf("%v\n%+v", err, res.Report)
	}
	size := 64 * 4 * scaleCvtDwords
	want := runKernelOn(t, guest, "gfx950", size)
	got := runKernelOn(t, res.Object, "gfx942", size)
	compareScaleCvt(t, scaleCvtCases, got, want)
}

// scaleCvtDwords is how many dwords (v10..v33) the kernel of
// scaleCvtGuest stores per lane.
const scaleCvtDwords = 24

// scaleCvtGuest assembles the gfx950 kernel k running cases on the lane
// inputs described at scaleCvtCases and storing v10..v33.
func scaleCvtGuest(t *testing.T, cases []scaleCvtCase) []byte {
	t.Helper()
	const n = scaleCvtDwords
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n")
	s.WriteString("  v_subrev_u32_e32 v1, 32, v0\n  v_cvt_f32_i32_e32 v1, v1\n  v_mul_f32_e32 v1, 0x3e000000, v1\n  v_mul_f32_e32 v6, 0x41800000, v1\n")
	s.WriteString("  v_mul_u32_u24_e32 v2, 0x7f4a7c, v0\n  v_lshlrev_b32_e32 v2, 6, v2\n  v_xor_b32_e32 v2, 0x3e000000, v2\n")
	s.WriteString("  v_and_b32_e32 v3, 3, v0\n  v_add_u32_e32 v3, 126, v3\n  v_lshlrev_b32_e32 v3, 23, v3\n  v_or_b32_e32 v3, 0x80012345, v3\n")
	s.WriteString("  v_mul_u32_u24_e32 v4, 0x01030507, v0\n  v_xor_b32_e32 v4, v4, v2\n")
	// v7: f16 pair (v1 and -v6/4), v8: bf16 pair (v6 and v2's upper half).
	s.WriteString("  v_cvt_f16_f32_e32 v7, v1\n  v_mul_f32_e32 v9, 0xbe800000, v6\n  v_cvt_f16_f32_e32 v9, v9\n  v_lshl_or_b32 v7, v9, 16, v7\n")
	s.WriteString("  v_lshrrev_b32_e32 v8, 16, v6\n  v_and_b32_e32 v9, 0xffff0000, v2\n  v_or_b32_e32 v8, v8, v9\n")
	// v5: 2^14 * v1 (the BF8/FP8 top range and overflow ties), NaN in every 8th lane.
	s.WriteString("  v_mul_f32_e32 v5, 0x46800000, v1\n  v_and_b32_e32 v9, 7, v0\n  v_cmp_eq_u32_e32 vcc, 7, v9\n  v_mov_b32 v9, 0xffc00123\n  v_cndmask_b32_e32 v5, v5, v9, vcc\n")
	for r := 10; r < 10+n; r++ {
		fmt.Fprintf(&s, "  v_mov_b32 v%d, 0x%08x\n", r, 0x5a5a5a5a^uint32(r)*0x01010101)
	}
	for _, c := range cases {
		fmt.Fprintf(&s, "  .long %#x, %#x // %s\n", c.words[0], c.words[1], c.name)
	}
	s.WriteString("  v_mul_u32_u24_e32 v40, 96, v0\n  s_waitcnt lgkmcnt(0)\n")
	for i := 0; i < n; i += 4 {
		fmt.Fprintf(&s, "  global_store_dwordx4 v40, v[%d:%d], s[8:9] offset:%d\n", 10+i, 13+i, 4*i)
	}
	s.WriteString("  s_endpgm\n")
	s.WriteString(".rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 48\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 48\n.end_amdhsa_kernel\n")
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return buildGuestFrom(t, path)
}

// compareScaleCvt compares the stored dwords of a translation (got) with
// the gfx950 run (want): equal, or NaN for NaN in the result kind.
func compareScaleCvt(t *testing.T, cases []scaleCvtCase, got, want []byte) {
	t.Helper()
	const n = scaleCvtDwords
	// The kind of each result dword: the last case writing it decides.
	kind := make([]string, n)
	for _, c := range cases {
		d := int(c.words[0]&0xff) - 10
		for i := 0; i < c.dwords; i++ {
			kind[d+i] = c.kind
		}
	}
	for lane := 0; lane < 64; lane++ {
		for d := 0; d < n; d++ {
			o := 4 * (lane*n + d)
			g, w := binary.LittleEndian.Uint32(got[o:]), binary.LittleEndian.Uint32(want[o:])
			if g == w || nanEqual(kind[d], g, w) {
				continue
			}
			t.Errorf("lane %d v%d (%s): translated %#x, gfx950 %#x", lane, 10+d, kind[d], g, w)
		}
	}
}

// nanEqual reports whether g and w differ only in NaN encodings of kind.
func nanEqual(kind string, g, w uint32) bool {
	switch kind {
	case "fp8", "bf8":
		f := fp.E4M3FN
		if kind == "bf8" {
			f = fp.E5M2
		}
		for b := 0; b < 4; b++ {
			gb, wb := uint8(g>>(8*b)), uint8(w>>(8*b))
			if gb != wb && !(f.IsNaN(gb) && f.IsNaN(wb)) {
				return false
			}
		}
		return true
	case "f32":
		return math.IsNaN(float64(math.Float32frombits(g))) && math.IsNaN(float64(math.Float32frombits(w)))
	case "h16", "b16":
		nan := func(h uint32) bool {
			if kind == "h16" {
				return h&0x7c00 == 0x7c00 && h&0x3ff != 0
			}
			return h&0x7f80 == 0x7f80 && h&0x7f != 0
		}
		for _, sh := range []uint{0, 16} {
			gh, wh := g>>sh&0xffff, w>>sh&0xffff
			if gh != wh && !(nan(gh) && nan(wh)) {
				return false
			}
		}
		return true
	}
	return false
}
