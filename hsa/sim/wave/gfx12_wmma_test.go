package wave

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
)

// Register bases of the WMMA tests' operands.
const (
	wA, wB, wC, wD, wIdx = 0, 16, 40, 60, 90
)

// opRegs returns how many VGPRs an operand of the layout takes.
func opRegs(bits, kn int, wave64 bool) int {
	n := 0
	for r := 0; r < 16; r++ {
		for k := 0; k < kn; k++ {
			_, g, _ := elemPos(bits, kn, wave64, r, k)
			n = max(n, g+1)
		}
	}
	return n
}

func vregs(base, n int) string {
	if n == 1 {
		return fmt.Sprintf("v%d", base)
	}
	return fmt.Sprintf("v[%d:%d]", base, base+n-1)
}

// wmmaCase is one random instance of a matrix instruction: dense A (with
// the sparsity applied), B, C and the modifiers.
type wmmaCase struct {
	op           wmmaOp
	a            [16][64]uint32 // codes; for SWMMAC the stored (compressed) A
	b            [64][16]uint32
	c            [16][16]uint32
	idx          [16][16]uint8 // SWMMAC: per row and group, the two positions
	signA, signB bool
	clamp        bool
	key          int
	negLo, negHi uint8
	wave64       bool
}

// randCode returns a random input code: small integers for the 16-bit
// floats (exact products), any finite code for fp8/bf8, any code for ints.
func randCode(rng *rand.Rand, t mtype) uint32 {
	switch t {
	case mF16:
		return uint32(fp.F32ToF16(float32(rng.Intn(9) - 4)))
	case mBF16:
		return uint32(fp.F32ToBF16(float32(rng.Intn(9) - 4)))
	case mFP8, mBF8:
		for {
			c := uint32(rng.Intn(256))
			if v := refOCP(uint8(c), t == mFP8); !math.IsNaN(v) && !math.IsInf(v, 0) {
				return c
			}
		}
	case mIU8:
		return uint32(rng.Intn(256))
	}
	return uint32(rng.Intn(16))
}

// refOCP decodes an OCP FP8 (E4M3FN when e4m3, else E5M2) code from the
// format's definition, independently of hsa/sim/fp.
func refOCP(c uint8, e4m3 bool) float64 {
	eb, mb, bias := 5, 2, 15
	if e4m3 {
		eb, mb, bias = 4, 3, 7
	}
	s := 1.0
	if c&0x80 != 0 {
		s = -1
	}
	e := int(c>>mb) & (1<<eb - 1)
	m := int(c) & (1<<mb - 1)
	switch {
	case e4m3 && e == 15 && m == 7:
		return math.NaN()
	case !e4m3 && e == 31 && m != 0:
		return math.NaN()
	case !e4m3 && e == 31:
		return s * math.Inf(1)
	case e == 0:
		return s * math.Ldexp(float64(m), 1-bias-mb)
	}
	return s * math.Ldexp(float64(m+1<<mb), e-bias-mb)
}

// refVal is the test's value of an input code.
func refVal(t mtype, c uint32, signed bool, negate bool) float64 {
	var v float64
	switch t {
	case mF16:
		v = float64(fp.F16ToF32(uint16(c)))
	case mBF16:
		v = float64(math.Float32frombits(c << 16))
	case mFP8, mBF8:
		v = refOCP(uint8(c), t == mFP8)
	case mIU8:
		if signed {
			return float64(int8(c))
		}
		return float64(c)
	case mIU4:
		if signed && c >= 8 {
			return float64(int(c) - 16)
		}
		return float64(c)
	}
	if negate {
		v = -v
	}
	return v
}

// want computes D in the test's own terms: the dense product, from codes.
func (tc *wmmaCase) want() [16][16]uint32 {
	op := tc.op
	var d [16][16]uint32
	for i := 0; i < 16; i++ {
		for j := 0; j < 16; j++ {
			if op.out == mI32 {
				s := int64(int32(tc.c[i][j]))
				for k := 0; k < op.k; k++ {
					s += int64(tc.denseA(i, k)) * int64(refVal(op.b, tc.b[k][j], tc.signB, false))
				}
				if tc.clamp {
					s = max(math.MinInt32, min(math.MaxInt32, s))
				}
				d[i][j] = uint32(int32(s))
				continue
			}
			var c float64
			switch op.out {
			case mF32:
				c = float64(math.Float32frombits(tc.c[i][j]))
			case mF16:
				c = float64(fp.F16ToF32(uint16(tc.c[i][j])))
			case mBF16:
				c = float64(math.Float32frombits(tc.c[i][j] << 16))
			}
			s := c
			for k := 0; k < op.k; k++ {
				// neg_lo/neg_hi select elements of even/odd k (low/high halves).
				negB := op.b.bits() == 16 && (k%2 == 0 && tc.negLo&2 != 0 || k%2 == 1 && tc.negHi&2 != 0)
				s += tc.denseA(i, k) * refVal(op.b, tc.b[k][j], false, negB)
			}
			switch op.out {
			case mF32:
				d[i][j] = math.Float32bits(float32(s))
			case mF16:
				d[i][j] = uint32(fp.F32ToF16(float32(s)))
			case mBF16:
				d[i][j] = uint32(fp.F32ToBF16(float32(s)))
			}
		}
	}
	return d
}

// denseA is A[i][k] of the dense product.
func (tc *wmmaCase) denseA(i, k int) float64 {
	op := tc.op
	neg := func(kk int) bool {
		return op.a.bits() == 16 && (kk%2 == 0 && tc.negLo&1 != 0 || kk%2 == 1 && tc.negHi&1 != 0)
	}
	if !op.sparse {
		return refVal(op.a, tc.a[i][k], tc.signA, neg(k))
	}
	g, s := k/4, 0.0
	for e := 0; e < 2; e++ {
		if int(tc.idx[i][g]>>(2*e)&3) == k%4 {
			s += refVal(op.a, tc.a[i][2*g+e], tc.signA, neg(2*g+e))
		}
	}
	return s
}

// load places the case's operands into w by the simulator's layouts (those
// are checked against AMD's calculator by testdata/wmma_layout_check.py).
func (tc *wmmaCase) load(w *Wave, rng *rand.Rand) {
	op := tc.op
	put := func(base, lane, gpr, bit, bits int, v uint32) {
		r := &w.V[base+gpr][lane]
		m := uint32(1<<bits-1) << bit
		*r = *r&^m | v<<bit&m
	}
	for r := 0; r < 16; r++ {
		for k := 0; k < op.aStoredK(); k++ {
			l, g, b := elemPos(op.a.bits(), op.aStoredK(), tc.wave64, r, k)
			put(wA, l, g, b, op.a.bits(), tc.a[r][k])
		}
		for k := 0; k < op.k; k++ {
			l, g, b := elemPos(op.b.bits(), op.k, tc.wave64, r, k)
			put(wB, l, g, b, op.b.bits(), tc.b[k][r])
		}
	}
	cBase := wC
	if op.sparse {
		cBase = wD
		for l := 0; l < 64; l++ {
			w.V[wIdx][l] = rng.Uint32() // other windows: noise
		}
		for r := 0; r < 16; r++ {
			for g := 0; g < op.k/4; g++ {
				l, b, win := op.indexPos(tc.wave64, r, g)
				put(wIdx, l, 0, b+tc.key*win, 4, uint32(tc.idx[r][g]))
			}
		}
	}
	for i := 0; i < 16; i++ {
		for j := 0; j < 16; j++ {
			l, g, b := outPos(op.out.bits(), tc.wave64, i, j)
			put(cBase, l, g, b, op.out.bits(), tc.c[i][j])
		}
	}
}

// source is the instruction's assembly.
func (tc *wmmaCase) source(name string) string {
	op := tc.op
	na := opRegs(op.a.bits(), op.aStoredK(), tc.wave64)
	nb := opRegs(op.b.bits(), op.k, tc.wave64)
	nd := 8
	if tc.wave64 {
		nd = 4
	}
	if op.out.bits() == 16 {
		nd /= 2
	}
	var s string
	if op.sparse {
		s = fmt.Sprintf("%s %s, %s, %s, v%d", name, vregs(wD, nd), vregs(wA, na), vregs(wB, nb), wIdx)
		if tc.key != 0 {
			s += fmt.Sprintf(" index_key:%d", tc.key)
		}
	} else {
		s = fmt.Sprintf("%s %s, %s, %s, %s", name, vregs(wD, nd), vregs(wA, na), vregs(wB, nb), vregs(wC, nd))
	}
	bit := func(b uint8, i int) int { return int(b >> i & 1) }
	if tc.negLo != 0 {
		s += fmt.Sprintf(" neg_lo:[%d,%d,0]", bit(tc.negLo, 0), bit(tc.negLo, 1))
	}
	if tc.negHi != 0 {
		s += fmt.Sprintf(" neg_hi:[%d,%d,0]", bit(tc.negHi, 0), bit(tc.negHi, 1))
	}
	if tc.clamp {
		s += " clamp"
	}
	return s
}

func (tc *wmmaCase) check(t *testing.T, name string, w *Wave) {
	t.Helper()
	want := tc.want()
	bad := 0
	for i := 0; i < 16; i++ {
		for j := 0; j < 16; j++ {
			l, g, b := outPos(tc.op.out.bits(), tc.wave64, i, j)
			got := w.V[wD+g][l] >> b
			if tc.op.out.bits() == 16 {
				got &= 0xffff
			}
			ok := got == want[i][j]
			if !ok && tc.op.out == mF32 {
				ok = math.IsNaN(float64(math.Float32frombits(got))) && math.IsNaN(float64(math.Float32frombits(want[i][j])))
			}
			if !ok {
				if bad++; bad <= 4 {
					t.Errorf("%s: D[%d][%d] = %#x, want %#x", tc.source(name), i, j, got, want[i][j])
				}
			}
		}
	}
}

// TestGFX12WMMAAll runs each of the 22 gfx12 WMMA/SWMMAC in wave32 and
// wave64, assembled with llvm-mc-19, on random operands with random
// modifiers (signedness, clamp, 16-bit half negation, index_key) and
// compares every D element with the dense product computed here.
func TestGFX12WMMAAll(t *testing.T) {
	names := make([]string, 0, len(wmmaOps()))
	for n := range wmmaOps() {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) != 22 {
		t.Fatalf("%d matrix instructions, want 22", len(names))
	}
	rng := rand.New(rand.NewSource(1201))
	for _, name := range names {
		op := wmmaOps()[name]
		for _, wave64 := range []bool{false, true} {
			for trial := 0; trial < 3; trial++ {
				tc := &wmmaCase{op: op, wave64: wave64}
				for r := 0; r < 16; r++ {
					for k := 0; k < op.aStoredK(); k++ {
						tc.a[r][k] = randCode(rng, op.a)
					}
					for k := 0; k < op.k; k++ {
						tc.b[k][r] = randCode(rng, op.b)
					}
					for g := 0; g < op.k/4; g++ {
						p := rng.Perm(4)
						tc.idx[r][g] = uint8(p[0] | p[1]<<2)
					}
				}
				for i := 0; i < 16; i++ {
					for j := 0; j < 16; j++ {
						switch op.out {
						case mI32:
							tc.c[i][j] = rng.Uint32() >> uint(rng.Intn(32))
						case mF32:
							tc.c[i][j] = math.Float32bits(float32(rng.Intn(33) - 16))
						case mF16:
							tc.c[i][j] = uint32(fp.F32ToF16(float32(rng.Intn(33) - 16)))
						case mBF16:
							tc.c[i][j] = uint32(fp.F32ToBF16(float32(rng.Intn(33) - 16)))
						}
					}
				}
				switch {
				case op.out == mI32:
					tc.signA, tc.signB = trial&1 != 0, trial >= 1
					tc.clamp = trial == 2
					if tc.clamp {
						tc.c[0][0], tc.c[1][1] = 0x7fffff00, 0x80000010 // saturate both ways
					}
					tc.negLo = uint8(b2u(tc.signA) | b2u(tc.signB)<<1)
				case op.a.bits() == 16:
					tc.negLo, tc.negHi = uint8(trial&3), uint8(trial>>1&1)<<1
				}
				if op.sparse {
					max, _ := indexKeyMax12(name, wave64)
					tc.key = trial % (max + 1)
				}
				src := tc.source(name)
				w, _ := newWave12(t, assemble12(t, src, wave64), wave64)
				tc.load(w, rng)
				run(t, w)
				tc.check(t, name, w)
			}
		}
	}
}

// indexKeyMax12 is the largest index_key llvm-mc-19 accepts (see
// dbt/isa/gfx12.IndexKeyMax; restated here from the assembler's answers).
func indexKeyMax12(name string, wave64 bool) (int, bool) {
	switch {
	case !strings.HasPrefix(name, "v_swmmac"):
		return 0, false
	case !wave64 && strings.Contains(name, "x64_iu4"):
		return 0, true
	case !wave64 || strings.HasSuffix(name, "iu4"):
		return 1, true
	}
	return 3, true
}

// TestGFX12WMMAFP8Exhaustive: every one of the 256 codes of each OCP format
// goes through each fp8/bf8 WMMA as A and as B in both wave sizes, 16 codes
// a run on the diagonal of one operand with the other all ones (so an Inf
// or NaN meets no zero); D[i][j] must be the value of the code on the
// diagonal's row i (A) or column j (B), decoded here from the format
// definition (NaN as NaN, -0 + 0 as +0).
func TestGFX12WMMAFP8Exhaustive(t *testing.T) {
	one := func(t mtype) uint32 {
		if t == mFP8 {
			return 0x38 // 1.0 in E4M3FN
		}
		return 0x3c // 1.0 in E5M2
	}
	for _, name := range []string{"v_wmma_f32_16x16x16_fp8_fp8", "v_wmma_f32_16x16x16_fp8_bf8", "v_wmma_f32_16x16x16_bf8_fp8", "v_wmma_f32_16x16x16_bf8_bf8"} {
		op := wmmaOps()[name]
		for _, wave64 := range []bool{false, true} {
			code := assemble12(t, (&wmmaCase{op: op, wave64: wave64}).source(name), wave64)
			for _, side := range []string{"A", "B"} {
				typ := op.a
				if side == "B" {
					typ = op.b
				}
				for base := 0; base < 256; base += 16 {
					tc := &wmmaCase{op: op, wave64: wave64}
					for i := 0; i < 16; i++ {
						for k := 0; k < 16; k++ {
							if side == "A" {
								tc.b[i][k] = one(op.b)
							} else {
								tc.a[i][k] = one(op.a)
							}
						}
						if side == "A" {
							tc.a[i][i] = uint32(base + i)
						} else {
							tc.b[i][i] = uint32(base + i)
						}
					}
					w, _ := newWave12(t, code, wave64)
					tc.load(w, nil)
					run(t, w)
					for i := 0; i < 16; i++ {
						for j := 0; j < 16; j++ {
							l, g, _ := outPos(32, wave64, i, j)
							got := float64(math.Float32frombits(w.V[wD+g][l]))
							c := uint8(base + i)
							if side == "B" {
								c = uint8(base + j)
							}
							want := float64(float32(refOCP(c, typ == mFP8)))
							if want == 0 {
								want = 0 // -0 + +0 = +0
							}
							ok := got == want && math.Signbit(got) == math.Signbit(want)
							if math.IsNaN(want) {
								ok = math.IsNaN(got)
							}
							if !ok {
								t.Errorf("%s wave64=%v %s code %#02x: D[%d][%d] = %v, want %v", name, wave64, side, c, i, j, got, want)
							}
						}
					}
				}
			}
		}
	}
}

// TestGFX12Int16: 16-bit integer VALU (as clang-19 emits for char/short
// code) on the low halves, the high half of the destination kept.
func TestGFX12Int16(t *testing.T) {
	w, _ := newWave12(t, assemble12(t, `v_lshlrev_b16 v3, 8, v1
v_ashrrev_i16 v4, 3, v1
v_max_i16 v5, v1, v2
v_min_u16 v6, v1, v2
v_mad_u16 v7, v1, v2, v1
v_xor_b16 v8, v1, v2`, false), false)
	rng := rand.New(rand.NewSource(16))
	for l := 0; l < 32; l++ {
		w.V[1][l], w.V[2][l] = rng.Uint32(), rng.Uint32()
		for r := 3; r <= 8; r++ {
			w.V[r][l] = 0xabcd0000 | uint32(r)
		}
	}
	run(t, w)
	for l := 0; l < 32; l++ {
		a, b := uint16(w.V[1][l]), uint16(w.V[2][l])
		want := []uint16{a << 8, uint16(int16(a) >> 3), uint16(max(int16(a), int16(b))), min(a, b), a*b + a, a ^ b}
		for i, v := range want {
			if got := w.V[3+i][l]; got != 0xabcd0000|uint32(v) {
				t.Errorf("lane %d v%d = %#x, want %#x", l, 3+i, got, 0xabcd0000|uint32(v))
			}
		}
	}
}
