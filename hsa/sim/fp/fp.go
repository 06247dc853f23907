// Package fp converts between float32 and the narrow number formats that
// gfx9 vector instructions read and write: IEEE half precision (f16),
// bfloat16 (bf16) and the 8-bit float formats of the matrix and conversion
// instructions, in both flavours the project's targets use: the FNUZ
// formats of gfx942 (E4M3FNUZ, E5M2FNUZ: one NaN code 0x80, no infinity,
// no negative zero) and the OCP formats of gfx950 (E4M3FN, E5M2).
//
// Rounding is round-to-nearest-even unless a function says otherwise.
package fp

import "math"

// F16ToF32 widens an IEEE half-precision value exactly.
func F16ToF32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		if man == 0 {
			return math.Float32frombits(sign | 0x7f800000)
		}
		return math.Float32frombits(sign | 0x7fc00000 | man<<13)
	case exp == 0:
		if man == 0 {
			return math.Float32frombits(sign)
		}
		// Subnormal: value = man * 2^-24, exact in float32.
		f := float32(man) * (1.0 / (1 << 24))
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
}

// F32ToF16 narrows to half precision, rounding to nearest even; values past
// the largest finite half become infinity and NaNs stay (quiet) NaNs.
func F32ToF16(f float32) uint16 { return f32ToF16(f, false) }

// F32ToF16RTZ narrows to half precision, rounding toward zero (the rounding
// of v_cvt_pkrtz_f16_f32).
func F32ToF16RTZ(f float32) uint16 { return f32ToF16(f, true) }

func f32ToF16(f float32, rtz bool) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	man := b & 0x7fffff
	if exp == 0xff {
		if man == 0 {
			return sign | 0x7c00
		}
		return sign | 0x7e00 | uint16(man>>13)
	}
	// Work on the full significand with the implicit bit.
	if exp == 0 {
		// float32 subnormals are far below the half range.
		if rtz || man == 0 {
			return sign
		}
		return sign // |f| < 2^-126 rounds to zero in half precision
	}
	sig := man | 0x800000 // 24 bits, value = sig * 2^(exp-127-23)
	e := exp - 127        // unbiased exponent
	var shift int         // right shift applied to sig to get the half significand
	var hexp int
	if e < -14 {
		// Half subnormal: value = m * 2^-24.
		shift = 13 + (-14 - e)
		hexp = 0
	} else {
		shift = 13
		hexp = e + 15
	}
	if shift > 25 {
		return sign
	}
	m := sig >> uint(shift)
	rem := sig & (1<<uint(shift) - 1)
	half := uint32(1) << uint(shift-1)
	if !rtz && (rem > half || (rem == half && m&1 == 1)) {
		m++
	}
	if hexp == 0 {
		// m may have carried into the implicit bit: that is the smallest normal.
		return sign | uint16(m)
	}
	if m >= 0x800 {
		m >>= 1
		hexp++
	}
	if hexp >= 0x1f {
		if rtz {
			return sign | 0x7bff
		}
		return sign | 0x7c00
	}
	return sign | uint16(hexp)<<10 | uint16(m&0x3ff)
}

// BF16ToF32 widens a bfloat16 value exactly.
func BF16ToF32(b uint16) float32 { return math.Float32frombits(uint32(b) << 16) }

// F32ToBF16 narrows to bfloat16, rounding to nearest even; NaNs stay quiet
// NaNs.
func F32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// F32ToBF16RTZ narrows to bfloat16 by truncation.
func F32ToBF16RTZ(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x40
	}
	return uint16(b >> 16)
}

// Format describes an 8-bit floating-point format.
type Format struct {
	// Name is the conventional name of the format, for example "E4M3FNUZ".
	Name string
	// ExpBits and ManBits are the widths of the exponent and mantissa fields.
	ExpBits, ManBits int
	// Bias is the exponent bias.
	Bias int
	// FNUZ formats have a single NaN (0x80), no infinities and no negative zero.
	FNUZ bool
	// IEEE formats reserve the all-ones exponent for infinity and NaN
	// (E5M2). Non-IEEE, non-FNUZ formats (E4M3FN) only reserve the all-ones
	// code as NaN.
	IEEE bool
	// Finite formats (the OCP MX FP6 and FP4 element types) have no NaN
	// or infinity codes; conversions to them saturate.
	Finite bool
	// Bits is the code width; 0 means 8.
	Bits int
}

func (f Format) bits() int {
	if f.Bits == 0 {
		return 8
	}
	return f.Bits
}

// The 8-bit formats.
var (
	// E4M3FNUZ is gfx942's FP8: bias 8, largest finite 240, NaN = 0x80.
	E4M3FNUZ = Format{Name: "E4M3FNUZ", ExpBits: 4, ManBits: 3, Bias: 8, FNUZ: true}
	// E5M2FNUZ is gfx942's BF8: bias 16, largest finite 57344, NaN = 0x80.
	E5M2FNUZ = Format{Name: "E5M2FNUZ", ExpBits: 5, ManBits: 2, Bias: 16, FNUZ: true}
	// E4M3FN is gfx950's (OCP) FP8: bias 7, largest finite 448, NaN = 0x7f/0xff.
	E4M3FN = Format{Name: "E4M3FN", ExpBits: 4, ManBits: 3, Bias: 7}
	// E5M2 is gfx950's (OCP) BF8: bias 15 with infinities and NaNs.
	E5M2 = Format{Name: "E5M2", ExpBits: 5, ManBits: 2, Bias: 15, IEEE: true}
	// E2M3 is the OCP MX FP6 format: bias 1, largest 7.5, no NaN/Inf.
	E2M3 = Format{Name: "E2M3", ExpBits: 2, ManBits: 3, Bias: 1, Finite: true, Bits: 6}
	// E3M2 is the OCP MX BF6 format: bias 3, largest 28, no NaN/Inf.
	E3M2 = Format{Name: "E3M2", ExpBits: 3, ManBits: 2, Bias: 3, Finite: true, Bits: 6}
	// E2M1 is the OCP MX FP4 format: bias 1, largest 6, no NaN/Inf.
	E2M1 = Format{Name: "E2M1", ExpBits: 2, ManBits: 1, Bias: 1, Finite: true, Bits: 4}
)

// E8M0 returns the value of an OCP MX shared scale: 2^(s-127), NaN for 0xff.
func E8M0(s uint8) float64 {
	if s == 0xff {
		return math.NaN()
	}
	return math.Ldexp(1, int(s)-127)
}

// IsNaN reports whether code is a NaN in f.
func (f Format) IsNaN(code uint8) bool {
	mag := code & uint8(1<<(f.bits()-1)-1)
	switch {
	case f.Finite:
		return false
	case f.FNUZ:
		return code == 0x80
	case f.IEEE:
		return mag > uint8(((1<<f.ExpBits)-1)<<f.ManBits)
	default:
		return mag == uint8(1<<(f.bits()-1)-1)
	}
}

// MaxFinite returns the largest finite value of f.
func (f Format) MaxFinite() float64 {
	maxExp := (1 << f.ExpBits) - 1
	maxMan := (1 << f.ManBits) - 1
	switch {
	case f.Finite:
	case f.IEEE:
		maxExp--
	case !f.FNUZ:
		maxMan-- // the all-ones code is NaN
	}
	return math.Ldexp(1+float64(maxMan)/float64(int(1)<<f.ManBits), maxExp-f.Bias)
}

// Decode returns the value of code in f (exact in float32).
func (f Format) Decode(code uint8) float32 {
	if f.IsNaN(code) {
		return float32(math.NaN())
	}
	signBit := uint8(1) << (f.bits() - 1)
	neg := code&signBit != 0
	e := int(code>>f.ManBits) & (1<<f.ExpBits - 1)
	m := int(code) & (1<<f.ManBits - 1)
	var v float64
	if f.IEEE && e == 1<<f.ExpBits-1 {
		v = math.Inf(1)
	} else if e == 0 {
		v = math.Ldexp(float64(m), 1-f.Bias-f.ManBits)
	} else {
		v = math.Ldexp(float64(m|1<<f.ManBits), e-f.Bias-f.ManBits)
	}
	if neg {
		v = -v
	}
	return float32(v)
}

// Encode converts x to f with round-to-nearest-even. A finite value beyond
// the largest finite one, or an infinity, becomes the largest finite value
// (with x's sign) when saturate is set; otherwise it becomes infinity in
// IEEE formats and NaN in the others. NaN becomes NaN.
func (f Format) Encode(x float32, saturate bool) uint8 {
	signBit := uint8(1) << (f.bits() - 1)
	nan := uint8(0x80)
	if !f.FNUZ {
		nan = signBit - 1
	}
	if f.Finite {
		saturate = true
		if x != x {
			return 0
		}
	}
	if x != x {
		return nan
	}
	var sign uint8
	a := float64(x)
	if math.Signbit(a) {
		sign = signBit
		a = -a
	}
	overflow := func() uint8 {
		if saturate {
			return sign | f.Encode(float32(f.MaxFinite()), false)
		}
		if f.IEEE {
			return sign | uint8((1<<f.ExpBits-1)<<f.ManBits)
		}
		if f.FNUZ {
			return nan
		}
		return sign | nan
	}
	if math.IsInf(a, 0) {
		return overflow()
	}
	if a == 0 {
		if f.FNUZ {
			return 0
		}
		return sign
	}
	_, ex := math.Frexp(a) // a = fr * 2^ex, fr in [0.5, 1)
	e := ex - 1
	minExp := 1 - f.Bias
	if e < minExp {
		e = minExp
	}
	q := math.RoundToEven(math.Ldexp(a, f.ManBits-e))
	if q >= float64(int(2)<<f.ManBits) {
		q /= 2
		e++
	}
	if q == 0 {
		if f.FNUZ {
			return 0
		}
		return sign
	}
	if math.Ldexp(q, e-f.ManBits) > f.MaxFinite() {
		return overflow()
	}
	var code uint8
	if q < float64(int(1)<<f.ManBits) {
		code = uint8(q)
	} else {
		code = uint8(e+f.Bias)<<f.ManBits | uint8(int(q)-(1<<f.ManBits))
	}
	return sign | code
}
