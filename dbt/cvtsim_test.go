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

// TestFP8ConversionRulesAgainstGFX950Simulator is a differential test of
// the OCP FP8 conversion rules: lane-dependent f32 bit patterns (all
// classes: zeros, denormals, normals, infinities, NaNs) are converted by
// the gfx950 instruction on the simulated gfx950 agent and by the
// translation on the simulated gfx942 agent. Codes must be equal, except
// that any NaN matches any NaN (the documented bound). The four
// v_cvt_pk_fp8_f32 (two per destination half, VGPR, SGPR and constant
// sources, one destination also a source) stay inline (Shared.Inline);
// the same kernel is checked with forced per-kernel subroutines too.
func TestFP8ConversionRulesAgainstGFX950Simulator(t *testing.T) {
	const n = 10 // dwords stored per lane
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n")
	// v1, v2: f32 patterns; v3: a dword of fp8 codes.
	s.WriteString("  v_mul_u32_u24_e32 v1, 0x9e3779, v0\n  v_lshlrev_b32_e32 v1, 7, v1\n  v_xor_b32_e32 v1, 0x3c000000, v1\n")
	s.WriteString("  v_mul_u32_u24_e32 v2, 0x7f4a7c, v0\n  v_lshlrev_b32_e32 v2, 6, v2\n  v_xor_b32_e32 v2, 0x42000000, v2\n")
	s.WriteString("  v_mul_u32_u24_e32 v3, 0x01030507, v0\n  v_mov_b32 v10, 0x12345678\n  v_mov_b32 v11, 0x9abcdef0\n")
	s.WriteString("  v_mov_b32 v18, 0x0badf00d\n  v_xor_b32 v19, 0x5a5a5a5a, v2\n  s_mov_b32 s10, 0xc3a10000\n")
	words := [][]uint32{
		{0xd2a2000a, 0x0000_0000 | (256 + 1) | (256+2)<<9}, // v_cvt_pk_fp8_f32 v10, v1, v2
		{0xd2a2400b, 0x0000_0000 | (256 + 2) | (256+1)<<9}, // v_cvt_pk_fp8_f32 v11, v2, v1 op_sel:[0,0,1]
		{0x7e000000 | 12<<17 | 0x56<<9 | (256 + 3)},        // v_cvt_pk_f32_fp8 v[12:13], v3
		{0x7e000000 | 14<<17 | 0x57<<9 | (256 + 3)},        // v_cvt_pk_f32_bf8 v[14:15], v3
		{0x7e000000 | 16<<17 | 0x56<<9 | 0xf9, 0x00050603}, // v_cvt_pk_f32_fp8_sdwa v[16:17], v3 src0_sel:WORD_1
		{0xd2a20012, 0x0000_0000 | 10 | (256+1)<<9},        // v_cvt_pk_fp8_f32 v18, s10, v1
		{0xd2a24013, 0x0000_0000 | (256 + 19) | 242<<9},    // v_cvt_pk_fp8_f32 v19, v19, 1.0 op_sel:[0,0,1]
	}
	for _, w := range words {
		fmt.Fprintf(&s, "  .long %s\n", strings.Trim(strings.Join(strings.Fields(fmt.Sprintf("%#x", w)), ", "), "[]"))
	}
	s.WriteString("  v_mul_u32_u24_e32 v20, 40, v0\n  s_waitcnt lgkmcnt(0)\n  global_store_dwordx4 v20, v[10:13], s[8:9]\n  global_store_dwordx4 v20, v[14:17], s[8:9] offset:16\n  global_store_dwordx2 v20, v[18:19], s[8:9] offset:32\n  s_endpgm\n")
	s.WriteString(".rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 32\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 32\n.end_amdhsa_kernel\n")
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	guest := buildGuestFrom(t, path)
	size := 64 * 4 * n
	want := runKernelOn(t, guest, "gfx950", size)
	for _, v := range []struct {
		name string
		opt  Options
		note string
	}{
		{"default", Options{}, ""}, // short bodies stay inline (Shared.Inline)
		{"inline", Options{noShared: true}, ""},
		{"forced", Options{forceShared: true}, "4 long expansions call 2 per-kernel subroutines"},
	} {
		v.opt.Name = "fp8cvt-" + v.name
		res, err := Translate(guest, v.opt)
		if err != nil {
			t.Fatalf("%s: %v\n%+v", v.name, err, res.Report)
		}
		notes := fmt.Sprint(res.Report.Kernels[0].Notes)
		if v.note != "" && !strings.Contains(notes, v.note) || v.note == "" && strings.Contains(notes, "subroutine") {
			t.Fatalf("%s: notes %s, want %q", v.name, notes, v.note)
		}
		checkFP8Conversions(t, v.name, want, runKernelOn(t, res.Object, "gfx942", size), n)
	}
}

// checkFP8Conversions compares the stored dwords of the translation (got)
// with the guest's (want): packed OCP E4M3 codes (dwords 0, 1, 8, 9) with
// any NaN matching any NaN, f32 results likewise.
func checkFP8Conversions(t *testing.T, name string, want, got []byte, n int) {
	t.Helper()
	for lane := 0; lane < 64; lane++ {
		for d := 0; d < n; d++ {
			o := 4 * (lane*n + d)
			g, w := binary.LittleEndian.Uint32(got[o:]), binary.LittleEndian.Uint32(want[o:])
			if g == w {
				continue
			}
			switch d {
			case 0, 1, 8, 9: // packed OCP E4M3 codes in the written half
				same := true
				for b := 0; b < 4; b++ {
					gb, wb := uint8(g>>(8*b)), uint8(w>>(8*b))
					if gb != wb && !(fp.E4M3FN.IsNaN(gb) && fp.E4M3FN.IsNaN(wb)) {
						same = false
					}
				}
				if same {
					continue
				}
			default: // f32 results
				if math.IsNaN(float64(math.Float32frombits(g))) && math.IsNaN(float64(math.Float32frombits(w))) {
					continue
				}
			}
			t.Fatalf("%s: lane %d dword %d: translated %#x, gfx950 %#x", name, lane, d, g, w)
		}
	}
}
