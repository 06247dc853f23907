package fp

import (
	"math"
	"math/big"
	"math/rand"
	"sort"
	"testing"
)

// refValue computes an 8-bit code's value from the format definition with
// big.Float arithmetic, independently of Decode.
func refValue(t *testing.T, f Format, code uint8) (v float64, nan bool) {
	t.Helper()
	bits := 8
	if f.Bits != 0 {
		bits = f.Bits
	}
	signBit := uint8(1) << (bits - 1)
	e := int(code>>uint(f.ManBits)) & (1<<uint(f.ExpBits) - 1)
	m := int64(code) & (1<<uint(f.ManBits) - 1)
	allOnesExp := e == 1<<uint(f.ExpBits)-1
	switch {
	case f.Finite:
	case f.FNUZ && code == 0x80:
		return 0, true
	case f.IEEE && allOnesExp && m != 0:
		return 0, true
	case !f.IEEE && !f.FNUZ && code&(signBit-1) == signBit-1:
		return 0, true
	}
	if f.IEEE && allOnesExp && !f.Finite {
		v = math.Inf(1)
	} else {
		r := new(big.Rat)
		if e == 0 {
			r.SetFrac64(m, 1)
			r.Mul(r, pow2(1-f.Bias-f.ManBits))
		} else {
			r.SetFrac64(m+1<<uint(f.ManBits), 1)
			r.Mul(r, pow2(e-f.Bias-f.ManBits))
		}
		v, _ = r.Float64()
	}
	if code&signBit != 0 {
		v = -v
	}
	return v, false
}

func pow2(n int) *big.Rat {
	r := big.NewRat(1, 1)
	two := big.NewRat(2, 1)
	half := big.NewRat(1, 2)
	for ; n > 0; n-- {
		r.Mul(r, two)
	}
	for ; n < 0; n++ {
		r.Mul(r, half)
	}
	return r
}

var formats = []Format{E4M3FNUZ, E5M2FNUZ, E4M3FN, E5M2}

func TestFP8Decode(t *testing.T) {
	for _, f := range formats {
		for c := 0; c < 256; c++ {
			want, nan := refValue(t, f, uint8(c))
			got := f.Decode(uint8(c))
			if nan {
				if got == got {
					t.Errorf("%s %#02x: got %v, want NaN", f.Name, c, got)
				}
				continue
			}
			if float64(got) != want || math.Signbit(float64(got)) != math.Signbit(want) {
				t.Errorf("%s %#02x: got %v, want %v", f.Name, c, got, want)
			}
		}
	}
}

func TestFP8KnownValues(t *testing.T) {
	cases := []struct {
		f    Format
		code uint8
		want float64
	}{
		{E4M3FNUZ, 0x7f, 240}, {E4M3FNUZ, 0x01, 1.0 / 1024}, {E4M3FNUZ, 0x40, 1}, {E4M3FNUZ, 0xc0, -1},
		{E5M2FNUZ, 0x7f, 57344}, {E5M2FNUZ, 0x01, 1.0 / 131072}, {E5M2FNUZ, 0x40, 1},
		{E4M3FN, 0x7e, 448}, {E4M3FN, 0x01, 1.0 / 512}, {E4M3FN, 0x38, 1}, {E4M3FN, 0x80, 0},
		{E5M2, 0x7b, 57344}, {E5M2, 0x01, 1.0 / 65536}, {E5M2, 0x3c, 1}, {E5M2, 0x7c, math.Inf(1)}, {E5M2, 0xfc, math.Inf(-1)},
	}
	for _, c := range cases {
		if got := c.f.Decode(c.code); float64(got) != c.want {
			t.Errorf("%s %#02x = %v, want %v", c.f.Name, c.code, got, c.want)
		}
		if got := c.f.MaxFinite(); c.code&0x7f != 0 && c.want > 200 && !math.IsInf(c.want, 0) && got != c.want {
			t.Errorf("%s max finite = %v, want %v", c.f.Name, got, c.want)
		}
	}
}

// TestFNUZHalfOfOCP checks the relation between the two flavours: the same
// code read as FNUZ is half its OCP value for every finite non-special code.
func TestFNUZHalfOfOCP(t *testing.T) {
	pairs := [][2]Format{{E4M3FNUZ, E4M3FN}, {E5M2FNUZ, E5M2}}
	for _, p := range pairs {
		for c := 0; c < 256; c++ {
			if c == 0x80 || p[1].IsNaN(uint8(c)) {
				continue
			}
			o := p[1].Decode(uint8(c))
			if math.IsInf(float64(o), 0) {
				continue
			}
			if n := p[0].Decode(uint8(c)); n != o/2 {
				t.Errorf("%#02x: %s %v, %s %v", c, p[0].Name, n, p[1].Name, o)
			}
		}
	}
}

// table holds the reference values of all codes of a format.
type table struct {
	vals    [256]float64
	nan     [256]bool
	maxCode int
	fnuz    bool
	virtual float64 // the largest finite value plus one ulp
}

func refTable(t *testing.T, f Format) *table {
	tb := &table{maxCode: -1, fnuz: f.FNUZ}
	for c := 0; c < 256; c++ {
		tb.vals[c], tb.nan[c] = refValue(t, f, uint8(c))
		if c < 128 && !tb.nan[c] && !math.IsInf(tb.vals[c], 0) && (tb.maxCode < 0 || tb.vals[c] > tb.vals[tb.maxCode]) {
			tb.maxCode = c
		}
	}
	tb.virtual = 2*tb.vals[tb.maxCode] - tb.vals[tb.maxCode-1]
	return tb
}

// nearestCode finds the code nearest to x by exhaustive search, ties to
// the code with an even mantissa. Beyond the largest finite value it also
// considers the next value of the unbounded-exponent format (largest + one
// ulp); when that is nearest, x overflows (inRange is false).
func (tb *table) nearestCode(x float64) (code uint8, inRange bool) {
	best, bestD := -1, math.Inf(1)
	for c := 0; c < 256; c++ {
		v := tb.vals[c]
		if tb.nan[c] || math.IsInf(v, 0) {
			continue
		}
		if (c&0x80 != 0) != math.Signbit(x) && !(tb.fnuz && c == 0) {
			continue // only codes of x's sign; FNUZ has no -0, so +0 serves both
		}
		d := math.Abs(v - x)
		if d < bestD || (d == bestD && c&1 == 0 && best&1 == 1) {
			best, bestD = c, d
		}
	}
	dv := math.Abs(math.Abs(x) - tb.virtual)
	if dv < bestD || (dv == bestD && tb.maxCode&1 == 1) {
		return 0, false
	}
	return uint8(best), true
}

func TestFP8EncodeNearest(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, f := range formats {
		tb := refTable(t, f)
		if tb.vals[tb.maxCode] != f.MaxFinite() {
			t.Errorf("%s: MaxFinite %v, reference %v", f.Name, f.MaxFinite(), tb.vals[tb.maxCode])
		}
		var xs []float64
		for c := 0; c < 256; c++ {
			v, nan := refValue(t, f, uint8(c))
			if nan || math.IsInf(v, 0) {
				continue
			}
			xs = append(xs, v)
		}
		sort.Float64s(xs)
		var inputs []float64
		for i := range xs {
			inputs = append(inputs, xs[i])
			if i+1 < len(xs) {
				inputs = append(inputs, (xs[i]+xs[i+1])/2, xs[i]+(xs[i+1]-xs[i])*0.3)
			}
		}
		for i := 0; i < 2000; i++ {
			inputs = append(inputs, (rng.Float64()*2-1)*f.MaxFinite()*1.2)
		}
		for _, x := range inputs {
			x = float64(float32(x))
			got := f.Encode(float32(x), false)
			want, inRange := tb.nearestCode(x)
			if !inRange {
				if !f.IsNaN(got) && !math.IsInf(float64(f.Decode(got)), 0) {
					t.Errorf("%s encode(%v) = %#02x, want overflow", f.Name, x, got)
				}
				sat := f.Encode(float32(x), true)
				if math.Abs(float64(f.Decode(sat))) != f.MaxFinite() {
					t.Errorf("%s saturating encode(%v) = %#02x", f.Name, x, sat)
				}
				continue
			}
			if x == 0 && f.FNUZ {
				want = 0
			}
			if got != want && !(x == 0 && got&0x7f == 0) {
				t.Errorf("%s encode(%v) = %#02x (%v), want %#02x (%v)", f.Name, x, got, f.Decode(got), want, f.Decode(want))
			}
		}
		if !f.IsNaN(f.Encode(float32(math.NaN()), false)) {
			t.Errorf("%s: NaN does not encode to NaN", f.Name)
		}
	}
}

// refF16 is the value of every half-precision code per the IEEE definition.
func refF16(c uint16) float64 {
	e := int(c>>10) & 0x1f
	m := float64(c & 0x3ff)
	var v float64
	switch {
	case e == 31 && m == 0:
		v = math.Inf(1)
	case e == 31:
		return math.NaN()
	case e == 0:
		v = math.Ldexp(m, -24)
	default:
		v = math.Ldexp(1024+m, e-25)
	}
	if c&0x8000 != 0 {
		v = -v
	}
	return v
}

func TestF16Decode(t *testing.T) {
	for c := 0; c < 1<<16; c++ {
		want := refF16(uint16(c))
		got := float64(F16ToF32(uint16(c)))
		if math.IsNaN(want) {
			if !math.IsNaN(got) {
				t.Errorf("%#04x: got %v want NaN", c, got)
			}
			continue
		}
		if got != want || math.Signbit(got) != math.Signbit(want) {
			t.Errorf("%#04x: got %v want %v", c, got, want)
		}
	}
}

func TestF16EncodeNearest(t *testing.T) {
	// Positive finite halves in ascending order: codes 0..0x7bff.
	var vals []float64
	for c := 0; c <= 0x7bff; c++ {
		vals = append(vals, refF16(uint16(c)))
	}
	maxF := vals[len(vals)-1]
	ulpMax := maxF - vals[len(vals)-2]
	rng := rand.New(rand.NewSource(2))
	var inputs []float32
	for i := 0; i+1 < len(vals); i += 7 {
		inputs = append(inputs, float32(vals[i]), float32((vals[i]+vals[i+1])/2), float32(vals[i]*0.7+vals[i+1]*0.3))
	}
	for i := 0; i < 20000; i++ {
		inputs = append(inputs, math.Float32frombits(rng.Uint32()&0x7fffffff))
	}
	for _, x := range inputs {
		if x != x {
			continue
		}
		a := float64(x)
		var want uint16
		switch {
		case a >= maxF+ulpMax/2:
			want = 0x7c00
		default:
			i := sort.SearchFloat64s(vals, a) // vals[i] >= a
			if i == len(vals) {
				i--
			}
			want = uint16(i)
			if i > 0 {
				lo, hi := vals[i-1], vals[i]
				if a-lo < hi-a || (a-lo == hi-a && (i-1)&1 == 0) {
					want = uint16(i - 1)
				}
			}
		}
		if got := F32ToF16(x); got != want {
			t.Errorf("F32ToF16(%v) = %#04x, want %#04x", x, got, want)
		}
		if got := F32ToF16(-x); got != want|0x8000 {
			t.Errorf("F32ToF16(%v) = %#04x, want %#04x", -x, got, want|0x8000)
		}
		// Round toward zero: the largest half not above a.
		i := sort.SearchFloat64s(vals, a)
		if i == len(vals) || vals[i] > a {
			i--
		}
		if got := F32ToF16RTZ(x); got != uint16(i) {
			t.Errorf("F32ToF16RTZ(%v) = %#04x, want %#04x", x, got, i)
		}
	}
}

func TestBF16(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 100000; i++ {
		x := math.Float32frombits(rng.Uint32())
		if x != x || math.Abs(float64(x)) > 3.3e38 {
			continue // the top binade rounds into infinity, checked below
		}
		b := math.Float32bits(x)
		lo := math.Float32frombits(b &^ 0xffff)
		hi := math.Float32frombits((b &^ 0xffff) + 0x10000)
		dl := math.Abs(float64(x) - float64(lo))
		dh := math.Abs(float64(hi) - float64(x))
		want := uint16(b >> 16)
		if dh < dl || (dh == dl && want&1 == 1) {
			want++
		}
		if got := F32ToBF16(x); got != want {
			t.Fatalf("F32ToBF16(%v) = %#04x, want %#04x", x, got, want)
		}
		if BF16ToF32(want) != math.Float32frombits(uint32(want)<<16) {
			t.Fatal("BF16ToF32")
		}
	}
	if got := F32ToBF16(math.MaxFloat32); got != 0x7f80 {
		t.Errorf("F32ToBF16(MaxFloat32) = %#04x, want +Inf 0x7f80", got)
	}
	if v := F32ToBF16(float32(math.NaN())); BF16ToF32(v) == BF16ToF32(v) {
		t.Error("NaN must stay NaN")
	}
}

func TestMXFormats(t *testing.T) {
	e2m1 := []float64{0, 0.5, 1, 1.5, 2, 3, 4, 6}
	for c, want := range e2m1 {
		if got := E2M1.Decode(uint8(c)); float64(got) != want {
			t.Errorf("E2M1 %#x = %v, want %v", c, got, want)
		}
		if got := E2M1.Decode(uint8(c) | 8); float64(got) != -want {
			t.Errorf("E2M1 %#x = %v, want %v", c|8, got, -want)
		}
	}
	for _, c := range []struct {
		f        Format
		max, sub float64
	}{{E2M3, 7.5, 0.125}, {E3M2, 28, 0.0625}, {E2M1, 6, 0.5}} {
		if c.f.MaxFinite() != c.max || float64(c.f.Decode(1)) != c.sub {
			t.Errorf("%s: max %v, smallest %v", c.f.Name, c.f.MaxFinite(), c.f.Decode(1))
		}
		n := 1 << c.f.Bits
		rng := rand.New(rand.NewSource(int64(n)))
		for i := 0; i < 800; i++ {
			x := float32((rng.Float64()*2 - 1) * c.max * 1.3)
			best, bestD := -1, math.Inf(1)
			for code := 0; code < n; code++ {
				v, _ := refValue(t, c.f, uint8(code))
				if (code&(n/2) != 0) != math.Signbit(float64(x)) {
					continue
				}
				d := math.Abs(v - float64(x))
				if d < bestD || (d == bestD && code&1 == 0) {
					best, bestD = code, d
				}
			}
			if got := c.f.Encode(x, false); int(got) != best {
				t.Errorf("%s encode(%v) = %#x (%v), want %#x", c.f.Name, x, got, c.f.Decode(got), best)
			}
		}
	}
	if E8M0(127) != 1 || E8M0(130) != 8 || E8M0(0) != math.Ldexp(1, -127) || !math.IsNaN(E8M0(255)) {
		t.Error("E8M0")
	}
}
