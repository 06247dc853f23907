package rules

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
)

// ieeeMin2019 and ieeeMax2019 are the reference model of IEEE 754-2019
// minimum / maximum on float64 values (NaN in, NaN out; -0 < +0),
// written from the standard rather than taken from the simulator.
func ieeeMin2019(a, b float64) float64 {
	switch {
	case a != a || b != b:
		return math.NaN()
	case a == b:
		if math.Signbit(a) {
			return a
		}
		return b
	case a < b:
		return a
	}
	return b
}

func ieeeMax2019(a, b float64) float64 {
	switch {
	case a != a || b != b:
		return math.NaN()
	case a == b:
		if math.Signbit(a) {
			return b
		}
		return a
	case a > b:
		return a
	}
	return b
}

// mm3F32Special and mm3F16Special are the special operands: signed zeros,
// infinities, quiet and signalling NaNs of both signs, denormals, ±1 and
// the largest finite values.
var (
	mm3F32Special = []uint32{0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0xffa00000, 0x00000001, 0x807fffff, 0x3f800000, 0xbf800000, 0x7f7fffff, 0xff7fffff}
	mm3F16Special = []uint16{0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7c01, 0xfd00, 0x0001, 0x83ff, 0x3c00, 0xbc00, 0x7bff, 0xfbff}
)

// mm3Machine runs the host code of the min/max expansions on one lane
// (SGPR pairs hold lane 0's bit only).
type mm3Machine struct {
	v [256]uint32
	s [128]uint32
}

func (m *mm3Machine) src(t *testing.T, code uint32) uint32 {
	switch {
	case code >= 256:
		return m.v[code-256]
	case code < 106:
		return m.s[code]
	case code >= 128 && code <= 192:
		return code - 128
	case code >= 193 && code <= 208:
		return uint32(int32(192 - int32(code)))
	case code == 242:
		return math.Float32bits(1)
	}
	t.Fatalf("source code %d", code)
	return 0
}

func (m *mm3Machine) run(t *testing.T, code []byte) {
	t.Helper()
	w := func(i int) uint32 { return binary.LittleEndian.Uint32(code[i:]) }
	for i := 0; i < len(code); {
		w0 := w(i)
		switch {
		case w0>>26 == 0x34: // VOP3 / VOPC e64
			w1 := w(i + 4)
			i += 8
			a, b, c := m.src(t, w1&0x1ff), m.src(t, w1>>9&0x1ff), uint32(0)
			op := w0 >> 16 & 0x3ff
			if op != op3CmpUF32 && op != op3CmpUF16 && op != op3CndmaskB32 {
				c = m.src(t, w1>>18&0x1ff)
			}
			var r uint32
			switch op {
			case op3AshrrevI32:
				r = uint32(int32(b) >> (a & 31))
			case op3BfeU32:
				r = a >> (b & 31) & (1<<(c&31) - 1)
			case op3BfeI32:
				n := c & 31
				r = uint32(int32(a>>(b&31)<<(32-n)) >> (32 - n))
			case op3Min3I32:
				r = uint32(min(int32(a), int32(b), int32(c)))
			case op3Max3I32:
				r = uint32(max(int32(a), int32(b), int32(c)))
			case op3LshlOrB32:
				r = a<<(b&31) | c
			case op3CndmaskB32:
				r = a
				if m.s[w1>>18&0x7f]&1 != 0 {
					r = b
				}
			case op3CmpUF32, op3CmpUF16:
				var nan bool
				if op == op3CmpUF32 {
					fa, fb := math.Float32frombits(a), math.Float32frombits(b)
					nan = fa != fa || fb != fb
				} else {
					fa, fb := fp.F16ToF32(uint16(a)), fp.F16ToF32(uint16(b))
					nan = fa != fa || fb != fb
				}
				m.s[w0&0x7f], m.s[w0&0x7f+1] = 0, 0
				if nan {
					m.s[w0&0x7f] = 1
				}
				continue
			default:
				t.Fatalf("unexpected VOP3 opcode %#x", op)
			}
			m.v[w0&0xff] = r
		case w0>>25 == 0x3f: // VOP1
			i += 4
			var a uint32
			if w0&0x1ff == srcLit {
				a = w(i)
				i += 4
			} else {
				a = m.src(t, w0&0x1ff)
			}
			if op := w0 >> 9 & 0xff; op != op1MovB32 {
				t.Fatalf("unexpected VOP1 opcode %#x", op)
			}
			m.v[w0>>17&0xff] = a
		case w0>>31 == 0: // VOP2
			i += 4
			var a uint32
			if w0&0x1ff == srcLit {
				a = w(i)
				i += 4
			} else {
				a = m.src(t, w0&0x1ff)
			}
			b := m.v[w0>>9&0xff]
			var r uint32
			switch op := w0 >> 25; op {
			case op2LshrrevB32:
				r = b >> (a & 31)
			case op2XorB32:
				r = a ^ b
			case op2AndB32:
				r = a & b
			default:
				t.Fatalf("unexpected VOP2 opcode %#x", op)
			}
			m.v[w0>>17&0xff] = r
		default:
			t.Fatalf("unexpected word %#x", w0)
		}
	}
}

// mmCtx hands out fixed temporaries.
type mmCtx struct{}

func (mmCtx) TempVGPRs(n int) ([]uint16, error)          { return []uint16{100, 101, 102, 103, 104}[:n], nil }
func (mmCtx) TempVGPRRange(n, align int) (uint16, error) { return 100, nil }
func (mmCtx) TempSGPRPair() (uint16, error)              { return 40, nil }

func mmInst(t *testing.T, raw []uint32) (*isa.Inst, []byte) {
	t.Helper()
	b := appendWords(nil, raw...)
	in, err := gfx9.Decode(b, 0x100, isa.GFX950)
	if err != nil {
		t.Fatal(err)
	}
	return &in, b
}

// f32Mods applies VOP3 abs then neg to a pattern.
func f32Mods(x uint32, abs, neg bool) uint32 {
	if abs {
		x &^= 0x80000000
	}
	if neg {
		x ^= 0x80000000
	}
	return x
}

func sameOrQNaN32(got uint32, want float64) bool {
	if want != want {
		return got&0x7fc00000 == 0x7fc00000 && got&0x7fffffff > 0x7f800000
	}
	return got == math.Float32bits(float32(want))
}

// TestMinMax3F32Exhaustive runs the expansion of every encoding form in
// the oracle file (and modifier mixes) on every triple of special values
// and compares with the IEEE 754-2019 reference bit for bit; NaN results
// must be quiet NaNs.
func TestMinMax3F32Exhaustive(t *testing.T) {
	cases := []struct {
		raw       []uint32
		max       bool
		abs, neg  uint32
		wantLines int
	}{
		{[]uint32{0xd2a80000, 0x040e0501}, false, 0, 0, 18}, // v_minimum3_f32 v0, v1, v2, v3
		{[]uint32{0xd2a90001, 0x04120702}, true, 0, 0, 18},  // v_maximum3_f32 v1, v2, v3, v4
		{[]uint32{0xd2a90001, 0xe4120702}, true, 0, 7, 0},   // v_maximum3_f32 v1, -v2, -v3, -v4
		{[]uint32{0xd2a90701, 0xe4120702}, true, 7, 7, 0},   // v_maximum3_f32 v1, -|v2|, -|v3|, -|v4|
		{[]uint32{0xd2a80500, 0x440e0501}, false, 5, 2, 0},  // v_minimum3_f32 v0, |v1|, -v2, |v3|
		{[]uint32{0xd2a80200, 0xa40e0501}, false, 2, 5, 0},  // v_minimum3_f32 v0, -v1, |v2|, -v3
	}
	for _, c := range cases {
		in, raw := mmInst(t, c.raw)
		r := ForInst(isa.GFX950, isa.GFX942, in)
		if r == nil {
			t.Fatalf("%s: no rule", in.Name())
		}
		code, err := r.Emit(mmCtx{}, in, raw)
		if err != nil {
			t.Fatal(err)
		}
		lines := disasm(t, code)
		if c.wantLines != 0 && len(lines) != c.wantLines {
			t.Errorf("%#x: %d host instructions, want %d:\n%s", c.raw, len(lines), c.wantLines, strings.Join(lines, "\n"))
		}
		if !strings.Contains(strings.Join(lines, "\n"), map[bool]string{false: "v_min3_i32", true: "v_max3_i32"}[c.max]) {
			t.Errorf("%#x: no integer min/max:\n%s", c.raw, strings.Join(lines, "\n"))
		}
		vdst := c.raw[0] & 0xff
		srcs := [3]uint32{c.raw[1]&0x1ff - 256, c.raw[1]>>9&0x1ff - 256, c.raw[1]>>18&0x1ff - 256}
		for _, a := range mm3F32Special {
			for _, b := range mm3F32Special {
				for _, d := range mm3F32Special {
					var m mm3Machine
					m.v[srcs[0]], m.v[srcs[1]], m.v[srcs[2]] = a, b, d
					m.run(t, code)
					var x [3]float64
					for i, v := range [3]uint32{a, b, d} {
						x[i] = float64(math.Float32frombits(f32Mods(v, c.abs>>i&1 != 0, c.neg>>i&1 != 0)))
					}
					want := ieeeMin2019(ieeeMin2019(x[0], x[1]), x[2])
					if c.max {
						want = ieeeMax2019(ieeeMax2019(x[0], x[1]), x[2])
					}
					if got := m.v[vdst]; !sameOrQNaN32(got, want) {
						t.Fatalf("%#x (%#x, %#x, %#x): got %#x, want %v", c.raw, a, b, d, got, want)
					}
				}
			}
		}
	}
}

// TestPkMinMax3F16Exhaustive checks the packed expansion on every triple
// of f16 special values in both halves, with op_sel / op_sel_hi / neg
// mixes, against the IEEE 754-2019 reference.
func TestPkMinMax3F16Exhaustive(t *testing.T) {
	cases := [][]uint32{
		{0xd39b4001, 0x1c120702}, // v_pk_minimum3_f16 v1, v2, v3, v4
		{0xd39c4001, 0x1c120702}, // v_pk_maximum3_f16 v1, v2, v3, v4
		{0xd39b2d01, 0xb4120702}, // v_pk_minimum3_f16 v1, v2, v3, v4 op_sel:[1,0,1] op_sel_hi:[0,1,0] neg_lo:[1,0,1] neg_hi:[1,0,1]
		{0xd39c5201, 0x4c120702}, // v_pk_maximum3_f16 v1, v2, v3, v4 op_sel:[0,1,0] op_sel_hi:[1,0,1] neg_lo:[0,1,0] neg_hi:[0,1,0]
	}
	for _, cr := range cases {
		in, raw := mmInst(t, cr)
		r := ForInst(isa.GFX950, isa.GFX942, in)
		if r == nil {
			t.Fatalf("%s: no rule", in.Name())
		}
		code, err := r.Emit(mmCtx{}, in, raw)
		if err != nil {
			t.Fatal(err)
		}
		disasm(t, code)
		max := in.Name() == "v_pk_maximum3_f16"
		opsel, opselHi := cr[0]>>11&7, cr[1]>>27&3|(cr[0]>>14&1)<<2
		neg, negHi := cr[1]>>29, cr[0]>>8&7
		n := len(mm3F16Special)
		for i := 0; i < n*n*n; i++ {
			var m mm3Machine
			var vals [3]uint32
			for s := 0; s < 3; s++ {
				j := i
				for range s {
					j /= n
				}
				lo := mm3F16Special[j%n]
				hi := mm3F16Special[(j+3*s+5)%n]
				vals[s] = uint32(lo) | uint32(hi)<<16
				m.v[2+s] = vals[s]
			}
			m.run(t, code)
			got := m.v[1]
			for h := 0; h < 2; h++ {
				sel, ng := opsel, neg
				if h == 1 {
					sel, ng = opselHi, negHi
				}
				var x [3]float64
				for s := 0; s < 3; s++ {
					v := uint16(vals[s] >> (16 * (sel >> s & 1)))
					if ng>>s&1 != 0 {
						v ^= 0x8000
					}
					x[s] = float64(fp.F16ToF32(v))
				}
				want := ieeeMin2019(ieeeMin2019(x[0], x[1]), x[2])
				if max {
					want = ieeeMax2019(ieeeMax2019(x[0], x[1]), x[2])
				}
				g := uint16(got >> (16 * h))
				ok := g&0x7e00 == 0x7e00 && g&0x3ff != 0 || g == 0x7e00 || g == 0xfe00
				if want == want {
					ok = fp.F16ToF32(g) == float32(want) && math.Signbit(float64(fp.F16ToF32(g))) == math.Signbit(want)
				} else {
					ok = g&0x7fff >= 0x7e00
				}
				if !ok {
					t.Fatalf("%#x %#x half %d: got %#x, want %v", cr, vals, h, g, want)
				}
			}
		}
	}
}

// TestMinMax3FailsClosed: forms the expansion does not model are refused
// with the field named.
func TestMinMax3FailsClosed(t *testing.T) {
	for _, c := range []struct {
		raw   []uint32
		field string
	}{
		{[]uint32{0xd2a88000, 0x040e0501}, "clamp"},           // v_minimum3_f32 ... clamp
		{[]uint32{0xd2a80000, 0x0c0e0501}, "omod"},            // mul:2
		{[]uint32{0xd39bc001, 0x1c120702}, "clamp"},           // v_pk_minimum3_f16 ... clamp
		{[]uint32{0xd39b4001, 0x1bd20702}, "constant source"}, // v_pk_minimum3_f16 v1, v2, v3, 2.0
		{[]uint32{0xd39b4001, 0x1c0e04f4}, "constant source"}, // v_pk_minimum3_f16 v1, 2.0, v2, v3
	} {
		in, raw := mmInst(t, c.raw)
		r := ForInst(isa.GFX950, isa.GFX942, in)
		if r == nil {
			t.Fatalf("%s: no rule", in.Name())
		}
		if _, err := r.Emit(mmCtx{}, in, raw); err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%#x: err %v, want one naming %s", c.raw, err, c.field)
		}
	}
}

// TestMinMax3F32ConstantSources: SGPR and inline-constant operands (the
// oracle file's forms) are read by the host code as the same bits.
func TestMinMax3F32ConstantSources(t *testing.T) {
	// v_maximum3_f32 v1, s8, v3, 1.0 and v_maximum3_f32 v1, 0, 1.0, v3
	for _, raw := range [][]uint32{{0xd2a90001, 0x03ca0608}, {0xd2a90001, 0x040de480}} {
		in, b := mmInst(t, raw)
		code, err := ForInst(isa.GFX950, isa.GFX942, in).Emit(mmCtx{}, in, b)
		if err != nil {
			t.Fatal(err)
		}
		disasm(t, code)
		for _, s8 := range mm3F32Special {
			for _, v3 := range mm3F32Special {
				var m mm3Machine
				m.s[8], m.v[3] = s8, v3
				m.run(t, code)
				var x [3]float64
				for i := range x {
					x[i] = float64(math.Float32frombits(m.src(t, raw[1]>>(9*i)&0x1ff)))
				}
				want := ieeeMax2019(ieeeMax2019(x[0], x[1]), x[2])
				if !sameOrQNaN32(m.v[1], want) {
					t.Fatalf("%#x s8=%#x v3=%#x: got %#x, want %v", raw, s8, v3, m.v[1], want)
				}
			}
		}
	}
}
