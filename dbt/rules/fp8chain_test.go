package rules

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
)

// fp8Codes returns a generator of words of four random E4M3 codes of
// moderate exponent (either sign), each replaced by the -0 byte 0x80 with
// probability 1/zeroOdds.
func fp8Codes(r *rand.Rand, zeroOdds int) func() uint32 {
	return func() uint32 {
		var x uint32
		for b := 0; b < 4; b++ {
			c := uint32(r.IntN(2))<<7 | uint32(5+r.IntN(5))<<3 | uint32(r.IntN(8))
			if r.IntN(zeroOdds) == 0 {
				c = 0x80
			}
			x |= c << (8 * b)
		}
		return x
	}
}

// TestFP8MFMAChainForms runs chains of three FP8 MFMAs on one accumulator
// (the first with C = 0 or C = D) in the chained forms (the constant
// register K, D left scaled between them) on the wave model and compares
// D with three OCP reference MFMAs, for VGPR and AGPR accumulators.
func TestFP8MFMAChainForms(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	code := fp8Codes(r, 6)
	for _, spare := range []bool{false, true} {
		for _, accCD := range []bool{false, true} {
			for _, zeroFirst := range []bool{false, true} {
				var wv wave
				CD := &wv.v
				if accCD {
					CD = &wv.a
				}
				for l := 0; l < 64; l++ {
					for i := 0; i < 12; i++ {
						wv.v[10+i][l] = code()
					}
					for i := 0; i < 4; i++ {
						CD[40+i][l] = math.Float32bits(float32(r.IntN(64)-32) / 8)
					}
				}
				ref := wv
				var host []byte
				for s := 0; s < 3; s++ {
					w0 := uint32(0xd3800000 | 0x73<<16 | 40)
					if accCD {
						w0 |= 1 << 15
					}
					c := uint32(256 + 40)
					if s == 0 && zeroFirst {
						c = srcZero
					}
					w1 := uint32(256+10+4*s) | uint32(256+12+4*s)<<9 | c<<18
					ref.mfmaFP8(t, w0, w1, fp.E4M3FN, 32)
					form := FP8MFMAForm{K: 105, ScaledIn: s > 0, ScaledOut: s < 2, Spare: 106, HasSpare: spare, TailFree: spare}
					part, err := FP8MFMAFormCode(w0, w1, 0x73, 4, 1, 100, 102, 104, form)
					if err != nil {
						t.Fatal(err)
					}
					host = append(host, part...)
				}
				wv.run(t, host)
				for i := 0; i < 4; i++ {
					want := (*map[bool]*[256][64]uint32{false: &ref.v, true: &ref.a}[accCD])[40+i]
					if CD[40+i] != want {
						t.Fatalf("spare %v accCD %v zeroFirst %v: D[%d] = %x, want %x", spare, accCD, zeroFirst, i, CD[40+i][:4], want[:4])
					}
				}
				if len(disasm(t, host)) == 0 {
					t.Fatal("no instructions")
				}
			}
		}
	}
	// Sizes of a 16x16x32 MFMA with VGPR operands and C = D: the literal
	// unchained form, and the constant-register form inside a chain.
	w0, w1 := uint32(0xd3800000|0x73<<16|40), uint32(256+10|(256+12)<<9|(256+40)<<18)
	for _, c := range []struct {
		form FP8MFMAForm
		want int
	}{{FP8MFMAForm{K: -1}, 180}, {FP8MFMAForm{K: 105}, 132}, {FP8MFMAForm{K: 105, ScaledIn: true, ScaledOut: true}, 84}, {FP8MFMAForm{K: 105, ScaledIn: true, ScaledOut: true, A: Clean, B: Clean}, 8}, {FP8MFMAForm{K: 105, ScaledIn: true, ScaledOut: true, A: InPlace, B: Clean}, 52},
		{FP8MFMAForm{K: -1, Spare: 106, HasSpare: true}, 164}, {FP8MFMAForm{K: 105, Spare: 106, HasSpare: true}, 132}, {FP8MFMAForm{K: 105, TailFree: true}, 128}} {
		code, err := FP8MFMAFormCode(w0, w1, 0x73, 4, 1, 100, 102, 104, c.form)
		if err != nil || len(code) != c.want {
			t.Errorf("form %+v: %d bytes (%v), want %d", c.form, len(code), err, c.want)
		}
	}
	// A scaled C must be the MFMA's own D.
	if _, err := FP8MFMAFormCode(0xd3800000|0x73<<16|40, 256+10|(256+12)<<9|(256+44)<<18, 0x73, 4, 1, 100, 102, 104, FP8MFMAForm{K: -1, ScaledIn: true}); err == nil {
		t.Fatal("scaled-in form accepted C != D")
	}
}

// TestFP8MFMAPartWaits checks the s_nop before each gfx942 MFMA of a
// four-part F8F6F4 expansion with C already scaled: none when no operand
// is copied (the later parts read as C exactly the D the previous part
// wrote, the operands cleared in place are written three MFMAs or more
// before their reader), every part waits when an operand is copied just
// before it. TestFP8MFMAWaitStates checks the wait states themselves.
func TestFP8MFMAPartWaits(t *testing.T) {
	w0, w1 := uint32(0xd3800000|0x2d<<16|40), uint32(256+10|(256+20)<<9|(256+40)<<18)
	for _, c := range []struct {
		a, b OperandMode
		nops int
		lead int
	}{{Clean, Clean, 0, 0}, {InPlace, Clean, 0, 0}, {InPlace, InPlace, 0, 0}, {Copy, Clean, 4, 1}, {Clean, Copy, 4, 1}, {Copy, Copy, 4, 1}} {
		code, err := FP8MFMAFormCode(w0, w1, 0x73, 4, 4, 100, 102, 104, FP8MFMAForm{K: 105, ScaledIn: true, ScaledOut: true, A: c.a, B: c.b})
		if err != nil {
			t.Fatal(err)
		}
		var mfmas, nops, lead int
		for i := 0; i+4 <= len(code); i += 4 {
			w := uint32(code[i]) | uint32(code[i+1])<<8 | uint32(code[i+2])<<16 | uint32(code[i+3])<<24
			switch {
			case w>>16 == 0xd3f3:
				mfmas++
				i += 4
			case w&^0xf == 0xbf800000:
				if mfmas == 0 {
					lead++
				}
				nops++
			case w>>26 == 0x34: // VOP3/VOP3P: skip the second word
				i += 4
			}
		}
		if mfmas != 4 || nops != c.nops || lead != c.lead {
			t.Errorf("A %d B %d: %d MFMAs, %d s_nops (%d before the first), want 4, %d, %d", c.a, c.b, mfmas, nops, lead, c.nops, c.lead)
		}
	}
}

// TestFP8MFMAResultWaits checks the wait states between the last gfx942
// MFMA of an unchained expansion and the VALU scaling of its D: at least
// N+3 for an N-pass XDL write (4 passes for 16x16x32, 8 for 32x32x16), in
// as few s_nops as that takes.
func TestFP8MFMAResultWaits(t *testing.T) {
	for _, c := range []struct {
		op        uint32
		cd, parts int
		want, nop int
	}{{0x73, 4, 1, 7, 1}, {0x73, 4, 4, 7, 1}, {0x77, 16, 1, 11, 2}, {0x77, 16, 4, 11, 2}} {
		w0, w1 := uint32(0xd3800000|c.op<<16|40), uint32(256+10|(256+20)<<9|(256+40)<<18)
		code, err := FP8MFMAFormCode(w0, w1, c.op, c.cd, c.parts, 100, 102, 104, FP8MFMAForm{K: 105})
		if err != nil {
			t.Fatal(err)
		}
		states, nops, after := 0, 0, false
		for i := 0; i+4 <= len(code); i += 4 {
			w := uint32(code[i]) | uint32(code[i+1])<<8 | uint32(code[i+2])<<16 | uint32(code[i+3])<<24
			switch {
			case w>>16 == 0xd380|c.op:
				states, nops, after = 0, 0, true
				i += 4
			case w&^0xf == 0xbf800000:
				if after {
					states += int(w&0xf) + 1
					nops++
				}
			default:
				after = false
				if w>>26 == 0x34 {
					i += 4
				}
			}
			if !after && nops > 0 {
				break
			}
		}
		if states < c.want || nops != c.nop {
			t.Errorf("op %#x parts %d: %d wait states in %d s_nops after the last MFMA, want >= %d in %d", c.op, c.parts, states, nops, c.want, c.nop)
		}
	}
}

// TestFP8MFMAChainAnalysis checks which MFMAs of a decoded block are linked:
// interleaved accumulators chain, a reader of D, an EXEC write or a
// zero-C MFMA on the accumulator ends the chain.
func TestFP8MFMAChainAnalysis(t *testing.T) {
	mfma := func(d, a, b, c uint32) []uint32 {
		return []uint32{0xd3800000 | 0x73<<16 | d, (256 + a) | (256+b)<<9 | c<<18}
	}
	cases := []struct {
		name  string
		words [][]uint32
		want  [][2]bool // per instruction: scaledIn, scaledOut (MFMAs only)
	}{
		{"interleaved", [][]uint32{mfma(40, 10, 12, srcZero), mfma(44, 10, 14, srcZero), mfma(40, 16, 12, 256+40), mfma(44, 16, 14, 256+44), {0xbf800000}},
			[][2]bool{{false, true}, {false, true}, {true, false}, {true, false}, {}}},
		{"reader", [][]uint32{mfma(40, 10, 12, 256+40), {0x7e500329}, mfma(40, 10, 12, 256+40)}, // v_mov_b32 v40, v41
			[][2]bool{{false, false}, {}, {false, false}}},
		{"exec", [][]uint32{mfma(40, 10, 12, 256+40), {0xbefe0180}, mfma(40, 10, 12, 256+40)}, // s_mov_b64 exec, 0
			[][2]bool{{false, false}, {}, {false, false}}},
		{"zeroC", [][]uint32{mfma(40, 10, 12, 256+40), mfma(40, 10, 12, srcZero), mfma(40, 10, 12, 256+40)},
			[][2]bool{{false, false}, {false, true}, {true, false}}},
		{"overlap", [][]uint32{mfma(40, 10, 12, 256+40), mfma(40, 40, 12, 256+40)},
			[][2]bool{{false, false}, {false, false}}},
	}
	for _, c := range cases {
		var block []*isa.Inst
		pc := uint64(0)
		for _, w := range c.words {
			in, err := gfx9.Decode(appendWords(nil, w...), pc, isa.GFX950)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			pc += uint64(in.Size)
			block = append(block, &in)
		}
		for i := range block {
			gi, go_ := FP8MFMAChain(block, i)
			if [2]bool{gi, go_} != c.want[i] {
				t.Errorf("%s: instruction %d (%s): scaledIn/out %v %v, want %v", c.name, i, block[i].Name(), gi, go_, c.want[i])
			}
		}
	}
}

// TestFP8MFMAInPlaceForms runs a chain of three FP8 MFMAs whose first two
// clear their A/B operands in place (VGPR or AGPR operands) and whose third
// reuses the first one's registers without clearing them (Clean), and
// compares D with the OCP reference.
func TestFP8MFMAInPlaceForms(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	code := func() uint32 {
		var x uint32
		for b := 0; b < 4; b++ {
			c := uint32(r.IntN(2))<<7 | uint32(5+r.IntN(5))<<3 | uint32(r.IntN(8))
			if r.IntN(4) == 0 {
				c = 0x80
			}
			x |= c << (8 * b)
		}
		return x
	}
	for _, spare := range []bool{false, true} {
		for _, accAB := range []bool{false, true} {
			var wv wave
			AB := &wv.v
			if accAB {
				AB = &wv.a
			}
			for l := 0; l < 64; l++ {
				for i := 0; i < 8; i++ {
					AB[10+i][l] = code()
				}
				for i := 0; i < 4; i++ {
					wv.v[40+i][l] = math.Float32bits(float32(r.IntN(64)-32) / 8)
				}
			}
			ref := wv
			var host []byte
			for s := 0; s < 3; s++ {
				w0 := uint32(0xd3800000 | 0x73<<16 | 40)
				w1 := uint32(256+10+4*(s%2)) | uint32(256+12+4*(s%2))<<9 | uint32(256+40)<<18
				if accAB {
					w1 |= 3 << 27
				}
				ref.mfmaFP8(t, w0, w1, fp.E4M3FN, 32)
				mode := InPlace
				if s == 2 {
					mode = Clean
				}
				part, err := FP8MFMAFormCode(w0, w1, 0x73, 4, 1, 100, 102, 104, FP8MFMAForm{K: 105, ScaledIn: s > 0, ScaledOut: s < 2, A: mode, B: mode, Spare: 106, HasSpare: spare})
				if err != nil {
					t.Fatal(err)
				}
				host = append(host, part...)
			}
			wv.run(t, host)
			for i := 0; i < 4; i++ {
				if wv.v[40+i] != ref.v[40+i] {
					t.Fatalf("accAB %v: D[%d] = %x, want %x", accAB, i, wv.v[40+i][:4], ref.v[40+i][:4])
				}
			}
			// The operands now hold the cleared bytes: no 0x80 byte is left.
			for i := 0; i < 8; i++ {
				for l := 0; l < 64; l++ {
					for b := 0; b < 32; b += 8 {
						if AB[10+i][l]>>b&0xff == 0x80 {
							t.Fatalf("accAB %v: register %d lane %d still has a -0 byte", accAB, 10+i, l)
						}
					}
				}
			}
		}
	}
}

// TestFP8MFMAShapeAt checks the operand modes over a decoded block: an
// operand another instruction reads is copied, one only MFMAs read is
// cleared in place once and then clean, and a write in between makes it
// in place again.
func TestFP8MFMAShapeAt(t *testing.T) {
	mfma := func(d, a, b, c uint32) []uint32 {
		return []uint32{0xd3800000 | 0x73<<16 | d, (256 + a) | (256+b)<<9 | c<<18}
	}
	words := [][]uint32{
		mfma(40, 10, 12, srcZero),
		mfma(44, 10, 12, srcZero),
		{0x7e140329}, // v_mov_b32 v10, v41 (writes v10)
		mfma(48, 10, 12, srcZero),
		{0x7e520314}, // v_mov_b32 v41, v20 (reads v20)
		mfma(52, 20, 12, srcZero),
	}
	var block []*isa.Inst
	pc := uint64(0)
	for _, w := range words {
		in, err := gfx9.Decode(appendWords(nil, w...), pc, isa.GFX950)
		if err != nil {
			t.Fatal(err)
		}
		pc += uint64(in.Size)
		block = append(block, &in)
	}
	scope := func(fn func([]*isa.Inst, []int, bool)) { fn(block, nil, true) }
	want := map[int][2]OperandMode{0: {InPlace, InPlace}, 1: {Clean, Clean}, 3: {InPlace, Clean}, 5: {Copy, Clean}}
	memo := map[string]any{}
	for i, w := range want {
		sh := FP8MFMAShapeAt(block, i, memo, scope)
		if [2]OperandMode{sh.A, sh.B} != w {
			t.Errorf("instruction %d: modes %v %v, want %v", i, sh.A, sh.B, w)
		}
	}
	// AGPR operands (A from a10 and a20): cleared in place only when a
	// later MFMA of the block reads them again.
	acc := func(d, a, b uint32) []uint32 {
		w := mfma(d, a, b, srcZero)
		w[1] |= 1 << 27
		return w
	}
	block = block[:0]
	for k, w := range [][]uint32{acc(40, 10, 12), acc(44, 20, 12), acc(48, 10, 14)} {
		in, err := gfx9.Decode(appendWords(nil, w...), uint64(8*k), isa.GFX950)
		if err != nil {
			t.Fatal(err)
		}
		block = append(block, &in)
	}
	// The first MFMA clears a20 (A of the second) and v[14:15] (B of the
	// third) ahead of them: nothing writes them in between.
	memo = map[string]any{}
	for i, w := range [][2]OperandMode{{InPlace, InPlace}, {Clean, Clean}, {Clean, Clean}} {
		sh := FP8MFMAShapeAt(block, i, memo, scope)
		if [2]OperandMode{sh.A, sh.B} != w {
			t.Errorf("AGPR block, instruction %d: modes %v %v, want %v", i, sh.A, sh.B, w)
		}
		ahead := fmt.Sprint(sh.Ahead)
		if want := map[int]string{0: "[{true 20 2} {false 14 2}]"}[i]; ahead != want && !(want == "" && len(sh.Ahead) == 0) {
			t.Errorf("AGPR block, instruction %d: ahead %s, want %s", i, ahead, want)
		}
	}
	// Without the scope's read set the second MFMA's a20 would not be
	// cleared ahead when another instruction reads it: a20 read by a
	// v_accvgpr_read in the scope makes it a copy again.
	reader, err := gfx9.Decode(appendWords(nil, 0xd3d84032, 0x18000114), 0x100, isa.GFX950) // v_accvgpr_read_b32 v50, a20
	if err != nil {
		t.Fatal(err)
	}
	memo = map[string]any{}
	withReader := func(fn func([]*isa.Inst, []int, bool)) { scope(fn); fn([]*isa.Inst{&reader}, nil, true) }
	if sh := FP8MFMAShapeAt(block, 1, memo, withReader); sh.A != Copy {
		t.Errorf("a20 read elsewhere: mode %v, want copy", sh.A)
	}
	if sh := FP8MFMAShapeAt(block, 0, memo, withReader); len(sh.Ahead) != 1 {
		t.Errorf("a20 read elsewhere: ahead %v, want only v[14:15]", sh.Ahead)
	}
	// A wait for memory between them: nothing is cleared ahead across
	// it (a20, used once, is copied; v[14:15] is cleared by the first
	// MFMA after the wait).
	wait, err := gfx9.Decode(appendWords(nil, 0xbf8c0f70), 0x100, isa.GFX950) // s_waitcnt vmcnt(0)
	if err != nil {
		t.Fatal(err)
	}
	waited := []*isa.Inst{block[0], &wait, block[1], block[2]}
	memo = map[string]any{}
	for i, w := range map[int]struct {
		modes [2]OperandMode
		ahead string
	}{0: {[2]OperandMode{InPlace, InPlace}, "[]"}, 2: {[2]OperandMode{Copy, Clean}, "[{false 14 2}]"}, 3: {[2]OperandMode{Clean, Clean}, "[]"}} {
		sh := FP8MFMAShapeAt(waited, i, memo, scope)
		if [2]OperandMode{sh.A, sh.B} != w.modes || fmt.Sprint(sh.Ahead) != w.ahead {
			t.Errorf("waited block, instruction %d: modes %v %v ahead %v, want %v %s", i, sh.A, sh.B, sh.Ahead, w.modes, w.ahead)
		}
	}
	// Without a scope nothing is cleared in place.
	if sh := FP8MFMAShapeAt(block, 0, nil, nil); sh.A != Copy || sh.B != Copy {
		t.Errorf("no scope: %+v", sh)
	}
}
