package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
)

// smScratch is a fixed scratch assignment for the unit tests.
var smScratch = ScaleMFMAScratch{Buf: [2]uint16{200, 204}, Tmp: [4]uint16{210, 211, 212, 213}, Sel: 214, Exp: [2]uint16{215, 216}, Mask: [2]uint16{217, 218}}

// smScratchFP4 adds the registers of the E2M1 table decode.
var smScratchFP4 = func() ScaleMFMAScratch {
	s := smScratch
	s.FP4 = [2]bool{true, true}
	s.Hold = [2]uint16{220, 240}
	s.LUT = [2][4]uint16{{224, 225, 226, 227}, {244, 245, 246, 247}}
	s.Extra = [2]uint16{230, 231}
	s.M80, s.SelI = 232, [2]uint16{233, 234}
	return s
}()

// TestScaleMFMATableDecodeDisassembles: with E2M1 operands and the table
// registers, parts 2r read the window, parts 2r+1 the alternating hold
// pairs, and the expansion is at least a third shorter.
func TestScaleMFMATableDecodeDisassembles(t *testing.T) {
	w0, w1 := uint32(0xd3ad8c00), uint32(0x84021148) // a[0:3], v[72:75], v[8:11], a[0:3] cbsz:4 blgp:4
	plain, err := ScaleMFMACode(0xd3ac0000, 0x0003118c, w0, w1, 0x61, 4, smScratch)
	if err != nil {
		t.Fatal(err)
	}
	code, err := ScaleMFMACode(0xd3ac0000, 0x0003118c, w0, w1, 0x61, 4, smScratchFP4)
	if err != nil {
		t.Fatal(err)
	}
	var mfmas []string
	lines := disasm(t, code)
	for _, l := range lines {
		if strings.HasPrefix(l, "v_mfma") {
			mfmas = append(mfmas, l)
		}
	}
	want := []string{
		"v_mfma_f32_16x16x16_bf16 a[0:3], v[200:201], v[202:203], a[0:3]",
		"v_mfma_f32_16x16x16_bf16 a[0:3], v[220:221], v[240:241], a[0:3]",
		"v_mfma_f32_16x16x16_bf16 a[0:3], v[200:201], v[202:203], a[0:3]",
		"v_mfma_f32_16x16x16_bf16 a[0:3], v[222:223], v[242:243], a[0:3]",
	}
	if len(mfmas) != 8 {
		t.Fatalf("host MFMAs %q", mfmas)
	}
	for i, w := range want {
		if !strings.HasPrefix(mfmas[i], w) {
			t.Fatalf("MFMA %d: %q, want %q", i, mfmas[i], w)
		}
	}
	if 3*len(code) >= 2*len(plain) {
		t.Fatalf("table decode %d bytes, per-element decode %d", len(code), len(plain))
	}
	t.Logf("E2M1 x E2M1: %d instructions (%d bytes) with the table decode, %d (%d bytes) per element", len(lines), len(code), len(disasm(t, plain)), len(plain))
}

// TestScaleMFMADisassembles decodes expansions with llvm-mc-19 for gfx942
// and checks the host MFMAs: eight chained bf16 MFMAs of the right shape
// on the alternating scratch windows, C then D as accumulator, the guest's
// AGPR/VGPR choice for C/D kept; the FP6 formats use v_alignbit_b32 for
// the elements that straddle dwords; codes are sign-extended with
// v_bfe_i32, and E4M3's NaN fix-up uses v_lshl_or_b32.
func TestScaleMFMADisassembles(t *testing.T) {
	for _, c := range []struct {
		name       string
		w0, w1     uint32
		op         uint32
		cd         int
		first, mid string
		align      bool
		e4m3       bool
	}{
		// v_mfma_scale_f32_16x16x128_f8f6f4 a[0:3], v[72:75], v[8:11], a[0:3], v140, v136 cbsz:4 blgp:4 (aiter f4gemm)
		{"fp4 16x16 agpr", 0xd3ad8c00, 0x84021148, 0x61, 4,
			"v_mfma_f32_16x16x16_bf16 a[0:3], v[200:201], v[202:203], a[0:3]", "v_mfma_f32_16x16x16_bf16 a[0:3], v[204:205], v[206:207], a[0:3]", false, false},
		// v_mfma_scale_f32_32x32x64_f8f6f4 v[48:63], v[184:189], v[4:9], v[96:111], v176, v232 cbsz:2 blgp:2 (aiter fmha_v4 f6f4)
		{"fp6 32x32", 0xd3ae0a30, 0x458209b8, 0x60, 16,
			"v_mfma_f32_32x32x8_bf16 v[48:63], v[200:201], v[202:203], v[96:111]", "v_mfma_f32_32x32x8_bf16 v[48:63], v[204:205], v[206:207], v[48:63]", true, false},
		// FP8 x BF8, zero accumulator.
		{"fp8 16x16 zero C", 0xd3ad0800, 0x22021914, 0x61, 4,
			"v_mfma_f32_16x16x16_bf16 v[0:3], v[200:201], v[202:203], 0", "v_mfma_f32_16x16x16_bf16 v[0:3], v[204:205], v[206:207], v[0:3]", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, err := ScaleMFMACode(0xd3ac0000, 0x0003118c, c.w0, c.w1, c.op, c.cd, smScratch)
			if err != nil {
				t.Fatal(err)
			}
			lines := disasm(t, code)
			var mfmas []string
			seen := map[string]bool{}
			for _, l := range lines {
				mn := strings.Fields(l)[0]
				seen[mn] = true
				if strings.HasPrefix(mn, "v_mfma") {
					mfmas = append(mfmas, l)
				}
			}
			if len(mfmas) != 8 || !strings.HasPrefix(mfmas[0], c.first) || !strings.HasPrefix(mfmas[1], c.mid) {
				t.Fatalf("host MFMAs %q, want 8 starting %q, %q", mfmas, c.first, c.mid)
			}
			for _, mn := range []string{"v_bfe_u32", "v_bfe_i32", "v_and_b32_e32", "v_cvt_f32_f16_e32", "v_ldexp_f32", "v_perm_b32", "v_or_b32_e32"} {
				if !seen[mn] {
					t.Errorf("no %s in %q", mn, lines[:20])
				}
			}
			if seen["v_lshl_or_b32"] != c.e4m3 {
				t.Errorf("v_lshl_or_b32 present = %v, want %v (E4M3 operand)", seen["v_lshl_or_b32"], c.e4m3)
			}
			if seen["v_alignbit_b32"] != c.align {
				t.Errorf("v_alignbit_b32 present = %v, want %v", seen["v_alignbit_b32"], c.align)
			}
		})
	}
}

// TestScaleMFMAByteDecodeDisassembles: with the hold registers, E4M3 and
// FP6 operands are read byte by byte with v_cvt_f32_fp8/bf8 (SDWA byte
// selects; FP6 codes spread to bytes with v_bfi_b32 first), and the odd
// parts read the hold pairs.
func TestScaleMFMAByteDecodeDisassembles(t *testing.T) {
	for _, c := range []struct {
		name   string
		w0, w1 uint32
		bytes  [2]bool
		cvt    string
		part1  string
	}{
		// E4M3 A, E5M2 B, zero C.
		{"e4m3", 0xd3ad0800, 0x22021914, [2]bool{true, false}, "v_cvt_f32_fp8_sdwa", "v_mfma_f32_16x16x16_bf16 v[0:3], v[220:221], v[206:207], v[0:3]"},
		// E3M2 A, E2M3 B (aiter fmha_v4 f6f4 registers).
		{"e3m2 x e2m3", 0xd3ae0b30, 0x458209b8, [2]bool{true, true}, "v_cvt_f32_bf8_sdwa", "v_mfma_f32_32x32x8_bf16 v[48:63], v[220:221], v[240:241], v[48:63]"},
	} {
		s := smScratch
		s.Bytes = c.bytes
		s.Hold = [2]uint16{220, 240}
		op, cd := uint32(0x61), 4
		if c.w0>>16&0xff == 0xae {
			op, cd = 0x60, 16
		}
		code, err := ScaleMFMACode(0xd3ac0000, 0x0003118c, c.w0, c.w1, op, cd, s)
		if err != nil {
			t.Fatal(err)
		}
		lines := disasm(t, code)
		text := strings.Join(lines, "\n")
		for b := 0; b < 4; b++ {
			if want := fmt.Sprintf("src0_sel:BYTE_%d", b); !strings.Contains(text, c.cvt) || !strings.Contains(text, want) {
				t.Errorf("%s: no %s with %s", c.name, c.cvt, want)
			}
		}
		if !strings.Contains(text, c.part1) {
			t.Errorf("%s: part 1 does not read the hold pairs:\n%s", c.name, text)
		}
		plain, err := ScaleMFMACode(0xd3ac0000, 0x0003118c, c.w0, c.w1, op, cd, smScratch)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d instructions with the byte decode, %d per element", c.name, len(lines), len(disasm(t, plain)))
	}
}

// TestScaleMFMARefusals: forms the expansion cannot reproduce are refused.
func TestScaleMFMARefusals(t *testing.T) {
	l0, l1 := uint32(0xd3ac0000), uint32(0x0003118c)
	w0, w1 := uint32(0xd3ad0830), uint32(0x04021148) // D v[48:51], A v[72:79], B v[8:15], C v[48:51]
	if _, err := ScaleMFMACode(l0, l1, w0, w1, 0x61, 4, smScratch); err != nil {
		t.Fatalf("plain form refused: %v", err)
	}
	for _, c := range []struct {
		name           string
		l0, l1, w0, w1 uint32
	}{
		{"not ld_scale", 0xd3ad0000, l1, w0, w1},
		{"cbsz 5", l0, l1, w0&^0x700 | 5<<8, w1},
		{"blgp 5", l0, l1, w0, w1 | 5<<29},
		{"abid 2", l0, l1, w0 | 2<<11, w1},
		{"A in AGPRs", l0, l1, w0, w1 | 1<<27},
		{"B in AGPRs", l0, l1, w0, w1 | 1<<28},
		{"constant A", l0, l1, w0, w1&^0x1ff | 128},
		{"D overlaps A", l0, l1, w0&^0xff | 74, w1},
		{"D overlaps B", l0, l1, w0&^0xff | 12, w1},
		{"SGPR C", l0, l1, w0, w1&^(0x1ff<<18) | 10<<18},
		{"literal scale", l0, l1&^0x1ff | 255, w0, w1},
		{"A past v255", l0, l1, w0, w1&^0x1ff | (256 + 250)},
	} {
		if _, err := ScaleMFMACode(c.l0, c.l1, c.w0, c.w1, 0x61, 4, smScratch); err == nil {
			t.Errorf("%s accepted", c.name)
		}
	}
	// D in AGPRs may share numbers with VGPR operands.
	if _, err := ScaleMFMACode(l0, l1, w0&^0xff|74|1<<15, w1, 0x61, 4, smScratch); err != nil {
		t.Errorf("AGPR D refused: %v", err)
	}
}

// FuzzScaleMFMACode: arbitrary guest words give an error or whole dwords
// ending in the wait that follows the last host MFMA, never a panic.
func FuzzScaleMFMACode(f *testing.F) {
	f.Add(uint32(0xd3ac0000), uint32(0x0003118c), uint32(0xd3ad8c00), uint32(0x84021148), false)
	f.Add(uint32(0xd3ac0000), uint32(0x0003d1b0), uint32(0xd3ae0a30), uint32(0x458209b8), true)
	f.Add(uint32(0xd3ac5800), uint32(0x18000000), uint32(0xd3ad0bff), uint32(0xffffffff), false)
	f.Fuzz(func(t *testing.T, l0, l1, w0, w1 uint32, big bool) {
		fuzzguard.RunArgs(t, []any{l0, l1, w0, w1, big}, func() {
			op, cd := uint32(0x61), 4
			if big {
				op, cd = 0x60, 16
			}
			sc := smScratch
			if l1&1 != 0 {
				sc = smScratchFP4
			}
			code, err := ScaleMFMACode(l0, l1, w0, w1, op, cd, sc)
			if err != nil {
				return
			}
			if len(code)%4 != 0 || len(code) < 8*8 {
				t.Fatalf("%d bytes", len(code))
			}
			ws := words(code)
			if ws[len(ws)-1] != sNop(7) {
				t.Fatalf("last word %#x", ws[len(ws)-1])
			}
			mfmas := 0
			for _, w := range ws {
				if w>>16 == 0xd380|op {
					mfmas++
				}
			}
			if mfmas < 8 {
				t.Fatalf("%d host MFMA words", mfmas)
			}
		})
	})
}
