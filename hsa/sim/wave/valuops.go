package wave

import (
	"math"
	"math/bits"
	"strings"

	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
)

func h2f(u uint32) float32 { return fp.F16ToF32(uint16(u)) }
func f2h(f float32) uint32 { return uint32(fp.F32ToF16(f)) }

// fma32 is a correctly rounded single-precision fused multiply-add: the
// product of two float32 values is exact in float64, and the float64 sum
// is rounded to odd before the final rounding to float32, which avoids
// double-rounding errors.
func fma32(a, b, c float32) float32 {
	p := float64(a) * float64(b)
	s := p + float64(c)
	if math.IsInf(s, 0) || s != s || s == 0 {
		return float32(s)
	}
	// Error of the float64 sum (TwoSum); round s to odd if inexact.
	bb := s - p
	e := (p - (s - bb)) + (float64(c) - bb)
	if e != 0 {
		u := math.Float64bits(s)
		if u&1 == 0 {
			if (e > 0) == (s > 0) {
				u++
			} else {
				u--
			}
		}
		s = math.Float64frombits(u)
	}
	return float32(s)
}

// ftz32 flushes a denormal f32 to a zero of the same sign.
func ftz32(u uint32) uint32 {
	if u&0x7f800000 == 0 {
		return u & 0x80000000
	}
	return u
}

// ftz64 flushes a denormal f64 to a zero of the same sign.
func ftz64(u uint64) uint64 {
	if u&0x7ff0000000000000 == 0 {
		return u & (1 << 63)
	}
	return u
}

func minF32(a, b float32) float32 {
	switch {
	case a != a:
		return b
	case b != b:
		return a
	case a < b || (a == b && math.Signbit(float64(a))):
		return a
	}
	return b
}

func maxF32(a, b float32) float32 {
	switch {
	case a != a:
		return b
	case b != b:
		return a
	case a > b || (a == b && !math.Signbit(float64(a))):
		return a
	}
	return b
}

func minF64(a, b float64) float64 {
	switch {
	case a != a:
		return b
	case b != b:
		return a
	case a < b || (a == b && math.Signbit(a)):
		return a
	}
	return b
}

func maxF64(a, b float64) float64 {
	switch {
	case a != a:
		return b
	case b != b:
		return a
	case a > b || (a == b && !math.Signbit(a)):
		return a
	}
	return b
}

func med3(a, b, c float32) float32 {
	if a != a || b != b || c != c {
		return minF32(minF32(a, b), c)
	}
	return maxF32(minF32(a, b), minF32(maxF32(a, b), c))
}

func cvtI32(f float64) uint32 {
	switch {
	case f != f:
		return 0
	case f >= 2147483647:
		return 0x7fffffff
	case f <= -2147483648:
		return 0x80000000
	}
	return uint32(int32(f))
}

func cvtU32(f float64) uint32 {
	switch {
	case f != f || f <= 0:
		return 0
	case f >= 4294967295:
		return 0xffffffff
	}
	return uint32(f)
}

func bfe(a, off, wd uint32, signed bool) uint32 {
	off &= 31
	wd &= 31
	if wd == 0 {
		return 0
	}
	if off+wd < 32 {
		if signed {
			return uint32(int32(a<<(32-off-wd)) >> (32 - wd))
		}
		return a << (32 - off - wd) >> (32 - wd)
	}
	if signed {
		return uint32(int32(a) >> off)
	}
	return a >> off
}

func ldexp32(a float32, e int32) float32 { return float32(math.Ldexp(float64(a), int(e))) }

func frexpExp(f float64) int32 {
	if f == 0 || f != f || math.IsInf(f, 0) {
		return 0
	}
	_, e := math.Frexp(f)
	return int32(e)
}

func frexpMant(f float64) float64 {
	if f == 0 || f != f || math.IsInf(f, 0) {
		return f
	}
	m, _ := math.Frexp(f)
	return m
}

func fract(f float64) float64 {
	if math.IsInf(f, 0) || f != f {
		return math.NaN()
	}
	return math.Min(f-math.Floor(f), 0x1.fffffep-1)
}

func fract64(f float64) float64 {
	if math.IsInf(f, 0) || f != f {
		return math.NaN()
	}
	return math.Min(f-math.Floor(f), 0x1.fffffffffffffp-1)
}

func registerValuops() {
	U := func(name string, n int, fn func(a, b, c uint32) uint32) { def(name, v32(kB32, n, fn)) }
	// F and D register f32 and f64 operations twice: as written, and with
	// denormal inputs and results flushed to zero (signed), used when the
	// kernel descriptor's FLOAT_DENORM_MODE flushes.
	F := func(name string, n int, fn func(a, b, c float32) float32) {
		keep := v32(kF32, n, func(a, b, c uint32) uint32 { return u32(fn(f32(a), f32(b), f32(c))) })
		flush := v32(kF32, n, func(a, b, c uint32) uint32 {
			return ftz32(u32(fn(f32(ftz32(a)), f32(ftz32(b)), f32(ftz32(c)))))
		})
		def(name, func(w *Wave, in *Inst) error {
			if w.FlushF32 {
				return flush(w, in)
			}
			return keep(w, in)
		})
	}
	H := func(name string, n int, fn func(a, b, c float32) float32) {
		def(name, v32(kF16, n, func(a, b, c uint32) uint32 { return f2h(fn(h2f(a), h2f(b), h2f(c))) }))
	}
	U16 := func(name string, n int, fn func(a, b, c uint32) uint32) { def(name, v32(kB16, n, fn)) }
	D := func(name string, n int, fn func(a, b, c float64) float64) {
		keep := v64(kF64, n, [4]bool{true, true, true, true}, func(a, b, c uint64) uint64 { return u64f(fn(f64(a), f64(b), f64(c))) })
		flush := v64(kF64, n, [4]bool{true, true, true, true}, func(a, b, c uint64) uint64 {
			return ftz64(u64f(fn(f64(ftz64(a)), f64(ftz64(b)), f64(ftz64(c)))))
		})
		def(name, func(w *Wave, in *Inst) error {
			if w.FlushF64 {
				return flush(w, in)
			}
			return keep(w, in)
		})
	}

	// Moves and bit operations.
	U("v_mov_b32", 1, func(a, b, c uint32) uint32 { return a })
	U("v_not_b32", 1, func(a, b, c uint32) uint32 { return ^a })
	U("v_bfrev_b32", 1, func(a, b, c uint32) uint32 { return bits.Reverse32(a) })
	U("v_ffbh_u32", 1, func(a, b, c uint32) uint32 {
		if a == 0 {
			return 0xffffffff
		}
		return uint32(bits.LeadingZeros32(a))
	})
	U("v_ffbl_b32", 1, func(a, b, c uint32) uint32 {
		if a == 0 {
			return 0xffffffff
		}
		return uint32(bits.TrailingZeros32(a))
	})
	U("v_ffbh_i32", 1, func(a, b, c uint32) uint32 {
		if a == 0 || a == 0xffffffff {
			return 0xffffffff
		}
		if int32(a) < 0 {
			a = ^a
		}
		return uint32(bits.LeadingZeros32(a))
	})
	U("v_and_b32", 2, func(a, b, c uint32) uint32 { return a & b })
	U("v_or_b32", 2, func(a, b, c uint32) uint32 { return a | b })
	U("v_xor_b32", 2, func(a, b, c uint32) uint32 { return a ^ b })
	U("v_xnor_b32", 2, func(a, b, c uint32) uint32 { return ^(a ^ b) })
	U("v_lshlrev_b32", 2, func(a, b, c uint32) uint32 { return b << (a & 31) })
	U("v_lshrrev_b32", 2, func(a, b, c uint32) uint32 { return b >> (a & 31) })
	U("v_ashrrev_i32", 2, func(a, b, c uint32) uint32 { return uint32(int32(b) >> (a & 31)) })
	// With VOP3 clamp these saturate to [0, 2^32-1].
	sat := func(name string, fn, satFn func(a, b, c uint32) uint32) {
		plain, clamped := v32(kB32, 2, fn), v32(kB32, 2, satFn)
		def(name, func(w *Wave, in *Inst) error {
			if in.Clamp {
				return clamped(w, in)
			}
			return plain(w, in)
		})
	}
	sat("v_add_u32", func(a, b, c uint32) uint32 { return a + b }, func(a, b, c uint32) uint32 {
		if r := a + b; r >= a {
			return r
		}
		return 0xffffffff
	})
	sat("v_sub_u32", func(a, b, c uint32) uint32 { return a - b }, func(a, b, c uint32) uint32 {
		if a >= b {
			return a - b
		}
		return 0
	})
	sat("v_subrev_u32", func(a, b, c uint32) uint32 { return b - a }, func(a, b, c uint32) uint32 {
		if b >= a {
			return b - a
		}
		return 0
	})
	U("v_min_i32", 2, func(a, b, c uint32) uint32 { return uint32(min(int32(a), int32(b))) })
	U("v_max_i32", 2, func(a, b, c uint32) uint32 { return uint32(max(int32(a), int32(b))) })
	U("v_min_u32", 2, func(a, b, c uint32) uint32 { return min(a, b) })
	U("v_max_u32", 2, func(a, b, c uint32) uint32 { return max(a, b) })
	U("v_mul_i32_i24", 2, func(a, b, c uint32) uint32 { return uint32(sext(a, 24) * sext(b, 24)) })
	U("v_mul_hi_i32_i24", 2, func(a, b, c uint32) uint32 {
		return uint32(uint64(int64(sext(a, 24))*int64(sext(b, 24))) >> 32)
	})
	U("v_mul_u32_u24", 2, func(a, b, c uint32) uint32 { return (a & 0xffffff) * (b & 0xffffff) })
	U("v_mul_hi_u32_u24", 2, func(a, b, c uint32) uint32 { return uint32(uint64(a&0xffffff) * uint64(b&0xffffff) >> 32) })
	U("v_mul_lo_u32", 2, func(a, b, c uint32) uint32 { return a * b })
	U("v_mul_hi_u32", 2, func(a, b, c uint32) uint32 { return uint32(uint64(a) * uint64(b) >> 32) })
	U("v_mul_hi_i32", 2, func(a, b, c uint32) uint32 { return uint32(uint64(int64(int32(a))*int64(int32(b))) >> 32) })
	U("v_bcnt_u32_b32", 2, func(a, b, c uint32) uint32 { return uint32(bits.OnesCount32(a)) + b })
	U("v_bfm_b32", 2, func(a, b, c uint32) uint32 { return (1<<(a&31) - 1) << (b & 31) })
	U("v_mad_u32_u24", 3, func(a, b, c uint32) uint32 { return (a&0xffffff)*(b&0xffffff) + c })
	U("v_mad_i32_i24", 3, func(a, b, c uint32) uint32 { return uint32(sext(a, 24)*sext(b, 24)) + c })
	U("v_bfe_u32", 3, func(a, b, c uint32) uint32 { return bfe(a, b, c, false) })
	U("v_bfe_i32", 3, func(a, b, c uint32) uint32 { return bfe(a, b, c, true) })
	U("v_bfi_b32", 3, func(a, b, c uint32) uint32 { return a&b | ^a&c })
	U("v_alignbit_b32", 3, func(a, b, c uint32) uint32 { return uint32((uint64(a)<<32 | uint64(b)) >> (c & 31)) })
	U("v_alignbyte_b32", 3, func(a, b, c uint32) uint32 { return uint32((uint64(a)<<32 | uint64(b)) >> (8 * (c & 3))) })
	U("v_min3_i32", 3, func(a, b, c uint32) uint32 { return uint32(min(int32(a), int32(b), int32(c))) })
	U("v_max3_i32", 3, func(a, b, c uint32) uint32 { return uint32(max(int32(a), int32(b), int32(c))) })
	U("v_min3_u32", 3, func(a, b, c uint32) uint32 { return min(a, b, c) })
	U("v_max3_u32", 3, func(a, b, c uint32) uint32 { return max(a, b, c) })
	U("v_med3_i32", 3, func(a, b, c uint32) uint32 {
		x, y, z := int32(a), int32(b), int32(c)
		return uint32(max(min(x, y), min(max(x, y), z)))
	})
	U("v_med3_u32", 3, func(a, b, c uint32) uint32 { return max(min(a, b), min(max(a, b), c)) })
	U("v_lshl_add_u32", 3, func(a, b, c uint32) uint32 { return a<<(b&31) + c })
	U("v_add_lshl_u32", 3, func(a, b, c uint32) uint32 { return (a + b) << (c & 31) })
	U("v_add3_u32", 3, func(a, b, c uint32) uint32 { return a + b + c })
	U("v_lshl_or_b32", 3, func(a, b, c uint32) uint32 { return a<<(b&31) | c })
	U("v_and_or_b32", 3, func(a, b, c uint32) uint32 { return a&b | c })
	U("v_or3_b32", 3, func(a, b, c uint32) uint32 { return a | b | c })
	U("v_xad_u32", 3, func(a, b, c uint32) uint32 { return a ^ b + c })
	U("v_sad_u32", 3, func(a, b, c uint32) uint32 {
		if a > b {
			return a - b + c
		}
		return b - a + c
	})
	U("v_perm_b32", 3, func(a, b, c uint32) uint32 {
		src := uint64(a)<<32 | uint64(b)
		var r uint32
		for i := 0; i < 4; i++ {
			sel := c >> (8 * i) & 0xff
			var v uint32
			switch {
			case sel <= 7:
				v = uint32(src >> (8 * sel) & 0xff)
			case sel == 8:
				v = uint32(src>>15&1) * 0xff
			case sel == 9:
				v = uint32(src>>31&1) * 0xff
			case sel == 10:
				v = uint32(src>>47&1) * 0xff
			case sel == 11:
				v = uint32(src>>63&1) * 0xff
			case sel == 12:
				v = 0
			default:
				v = 0xff
			}
			r |= v << (8 * i)
		}
		return r
	})
	U("v_cvt_pk_u16_u32", 2, func(a, b, c uint32) uint32 { return min(a, 0xffff) | min(b, 0xffff)<<16 })
	U("v_cvt_pk_i16_i32", 2, func(a, b, c uint32) uint32 {
		cl := func(x int32) uint32 { return uint32(uint16(int16(max(min(x, 32767), -32768)))) }
		return cl(int32(a)) | cl(int32(b))<<16
	})
	// f16 sources (op_sel picks halves, abs/neg act on the f16 sign), a
	// 32-bit result.
	def("v_pack_b32_f16", v32x(kF16, 2, false, func(a, b, c uint32) uint32 { return a&0xffff | b<<16 }))
	U("v_cvt_pkrtz_f16_f32", 2, func(a, b, c uint32) uint32 {
		return uint32(fp.F32ToF16RTZ(f32(a))) | uint32(fp.F32ToF16RTZ(f32(b)))<<16
	})
	U("v_cvt_pk_f16_f32", 2, func(a, b, c uint32) uint32 { return f2h(f32(a)) | f2h(f32(b))<<16 })
	U("v_cvt_pk_bf16_f32", 2, func(a, b, c uint32) uint32 {
		return uint32(fp.F32ToBF16(f32(a))) | uint32(fp.F32ToBF16(f32(b)))<<16
	})
	U("v_cvt_f32_bf16", 1, func(a, b, c uint32) uint32 { return a << 16 })
	for i := 0; i < 4; i++ {
		i := i
		U("v_cvt_f32_ubyte"+string(rune('0'+i)), 1, func(a, b, c uint32) uint32 { return u32(float32(a >> (8 * i) & 0xff)) })
	}

	// 32-bit float.
	F("v_add_f32", 2, func(a, b, c float32) float32 { return a + b })
	F("v_sub_f32", 2, func(a, b, c float32) float32 { return a - b })
	F("v_subrev_f32", 2, func(a, b, c float32) float32 { return b - a })
	F("v_mul_f32", 2, func(a, b, c float32) float32 { return a * b })
	F("v_mul_legacy_f32", 2, func(a, b, c float32) float32 {
		if a == 0 || b == 0 {
			return 0
		}
		return a * b
	})
	F("v_min_f32", 2, func(a, b, c float32) float32 { return minF32(a, b) })
	F("v_max_f32", 2, func(a, b, c float32) float32 { return maxF32(a, b) })
	def("v_ldexp_f32", v32(kF32, 2, func(a, b, c uint32) uint32 { return u32(ldexp32(f32(a), int32(b))) }))
	F("v_fma_f32", 3, fma32)
	F("v_mad_f32", 3, func(a, b, c float32) float32 { return a*b + c })
	F("v_mad_legacy_f32", 3, func(a, b, c float32) float32 { return a*b + c })
	F("v_min3_f32", 3, func(a, b, c float32) float32 { return minF32(minF32(a, b), c) })
	F("v_max3_f32", 3, func(a, b, c float32) float32 { return maxF32(maxF32(a, b), c) })
	F("v_med3_f32", 3, med3)
	// fmac/mac accumulate into the destination: src2 is the old vdst.
	for _, n := range []string{"v_fmac_f32", "v_mac_f32"} {
		fused := n == "v_fmac_f32"
		def(n, func(w *Wave, in *Inst) error {
			in2 := *in
			if in.Fmt != FmtVOP3 {
				in2.Src[2] = in.Dst
			} else {
				in2.Src[2] = in.Dst
			}
			return v32(kF32, 3, func(a, b, c uint32) uint32 {
				if fused {
					return u32(fma32(f32(a), f32(b), f32(c)))
				}
				return u32(f32(a)*f32(b) + f32(c))
			})(w, &in2)
		})
	}
	madk := func(name string, fused, ak bool) {
		def(name, func(w *Wave, in *Inst) error {
			in2 := *in
			if ak { // D = S0 * S1 + K
				in2.Src[2] = opLiteral
			} else { // D = S0 * K + S1
				in2.Src[2] = in.Src[1]
				in2.Src[1] = opLiteral
			}
			return v32(kF32, 3, func(a, b, c uint32) uint32 {
				if fused {
					return u32(fma32(f32(a), f32(b), f32(c)))
				}
				return u32(f32(a)*f32(b) + f32(c))
			})(w, &in2)
		})
	}
	madk("v_madmk_f32", false, false)
	madk("v_madak_f32", false, true)
	madk("v_fmamk_f32", true, false)
	madk("v_fmaak_f32", true, true)
	F("v_exp_f32", 1, func(a, b, c float32) float32 { return float32(math.Exp2(float64(a))) })
	F("v_log_f32", 1, func(a, b, c float32) float32 { return float32(math.Log2(float64(a))) })
	F("v_rcp_f32", 1, func(a, b, c float32) float32 { return 1 / a })
	F("v_rcp_iflag_f32", 1, func(a, b, c float32) float32 { return 1 / a })
	F("v_rsq_f32", 1, func(a, b, c float32) float32 { return float32(1 / math.Sqrt(float64(a))) })
	F("v_sqrt_f32", 1, func(a, b, c float32) float32 { return float32(math.Sqrt(float64(a))) })
	F("v_sin_f32", 1, func(a, b, c float32) float32 { return float32(math.Sin(2 * math.Pi * float64(a))) })
	F("v_cos_f32", 1, func(a, b, c float32) float32 { return float32(math.Cos(2 * math.Pi * float64(a))) })
	F("v_fract_f32", 1, func(a, b, c float32) float32 { return float32(fract(float64(a))) })
	F("v_trunc_f32", 1, func(a, b, c float32) float32 { return float32(math.Trunc(float64(a))) })
	F("v_ceil_f32", 1, func(a, b, c float32) float32 { return float32(math.Ceil(float64(a))) })
	F("v_floor_f32", 1, func(a, b, c float32) float32 { return float32(math.Floor(float64(a))) })
	F("v_rndne_f32", 1, func(a, b, c float32) float32 { return float32(math.RoundToEven(float64(a))) })
	F("v_frexp_mant_f32", 1, func(a, b, c float32) float32 { return float32(frexpMant(float64(a))) })
	def("v_frexp_exp_i32_f32", v32(kF32, 1, func(a, b, c uint32) uint32 { return uint32(frexpExp(float64(f32(a)))) }))
	def("v_cvt_f32_i32", v32(kB32, 1, func(a, b, c uint32) uint32 { return u32(float32(int32(a))) }))
	def("v_cvt_f32_u32", v32(kB32, 1, func(a, b, c uint32) uint32 { return u32(float32(a)) }))
	def("v_cvt_i32_f32", v32(kF32, 1, func(a, b, c uint32) uint32 { return cvtI32(float64(f32(a))) }))
	def("v_cvt_u32_f32", v32(kF32, 1, func(a, b, c uint32) uint32 { return cvtU32(float64(f32(a))) }))
	def("v_cvt_rpi_i32_f32", v32(kF32, 1, func(a, b, c uint32) uint32 { return cvtI32(math.Floor(float64(f32(a)) + 0.5)) }))
	def("v_cvt_flr_i32_f32", v32(kF32, 1, func(a, b, c uint32) uint32 { return cvtI32(math.Floor(float64(f32(a)))) }))
	def("v_cvt_f16_f32", v32(kF32, 1, func(a, b, c uint32) uint32 { return f2h(f32(a)) }))
	def("v_cvt_f32_f16", v32x(kF16, 1, false, func(a, b, c uint32) uint32 { return u32(h2f(a)) }))
	def("v_cndmask_b32", cndmask)

	// 16-bit.
	H("v_add_f16", 2, func(a, b, c float32) float32 { return a + b })
	H("v_sub_f16", 2, func(a, b, c float32) float32 { return a - b })
	H("v_subrev_f16", 2, func(a, b, c float32) float32 { return b - a })
	H("v_mul_f16", 2, func(a, b, c float32) float32 { return a * b })
	H("v_min_f16", 2, func(a, b, c float32) float32 { return minF32(a, b) })
	H("v_max_f16", 2, func(a, b, c float32) float32 { return maxF32(a, b) })
	H("v_fma_f16", 3, func(a, b, c float32) float32 { return float32(math.FMA(float64(a), float64(b), float64(c))) })
	H("v_mad_f16", 3, func(a, b, c float32) float32 { return float32(math.FMA(float64(a), float64(b), float64(c))) })
	H("v_sqrt_f16", 1, func(a, b, c float32) float32 { return float32(math.Sqrt(float64(a))) })
	H("v_rcp_f16", 1, func(a, b, c float32) float32 { return 1 / a })
	H("v_trunc_f16", 1, func(a, b, c float32) float32 { return float32(math.Trunc(float64(a))) })
	H("v_floor_f16", 1, func(a, b, c float32) float32 { return float32(math.Floor(float64(a))) })
	H("v_ceil_f16", 1, func(a, b, c float32) float32 { return float32(math.Ceil(float64(a))) })
	H("v_rndne_f16", 1, func(a, b, c float32) float32 { return float32(math.RoundToEven(float64(a))) })
	def("v_cvt_f16_u16", v32(kB16, 1, func(a, b, c uint32) uint32 { return f2h(float32(uint16(a))) }))
	def("v_cvt_f16_i16", v32(kB16, 1, func(a, b, c uint32) uint32 { return f2h(float32(int16(a))) }))
	def("v_cvt_u16_f16", v32(kF16, 1, func(a, b, c uint32) uint32 { return min(cvtU32(float64(h2f(a))), 0xffff) }))
	def("v_cvt_i16_f16", v32(kF16, 1, func(a, b, c uint32) uint32 {
		return uint32(uint16(int16(max(min(int32(cvtI32(float64(h2f(a)))), 32767), -32768))))
	}))
	U16("v_add_u16", 2, func(a, b, c uint32) uint32 { return a + b })
	U16("v_sub_u16", 2, func(a, b, c uint32) uint32 { return a - b })
	U16("v_subrev_u16", 2, func(a, b, c uint32) uint32 { return b - a })
	U16("v_mul_lo_u16", 2, func(a, b, c uint32) uint32 { return a * b })
	U16("v_lshlrev_b16", 2, func(a, b, c uint32) uint32 { return b << (a & 15) })
	U16("v_lshrrev_b16", 2, func(a, b, c uint32) uint32 { return (b & 0xffff) >> (a & 15) })
	U16("v_ashrrev_i16", 2, func(a, b, c uint32) uint32 { return uint32(int16(b) >> (a & 15)) })
	U16("v_max_u16", 2, func(a, b, c uint32) uint32 { return max(a&0xffff, b&0xffff) })
	U16("v_min_u16", 2, func(a, b, c uint32) uint32 { return min(a&0xffff, b&0xffff) })
	U16("v_max_i16", 2, func(a, b, c uint32) uint32 { return uint32(max(int16(a), int16(b))) })
	U16("v_min_i16", 2, func(a, b, c uint32) uint32 { return uint32(min(int16(a), int16(b))) })
	U16("v_mad_u16", 3, func(a, b, c uint32) uint32 { return a*b + c })

	// 64-bit.
	W := [4]bool{true, true, true, true}
	D("v_add_f64", 2, func(a, b, c float64) float64 { return a + b })
	D("v_mul_f64", 2, func(a, b, c float64) float64 { return a * b })
	D("v_min_f64", 2, func(a, b, c float64) float64 { return minF64(a, b) })
	D("v_max_f64", 2, func(a, b, c float64) float64 { return maxF64(a, b) })
	D("v_fma_f64", 3, math.FMA)
	D("v_rcp_f64", 1, func(a, b, c float64) float64 { return 1 / a })
	D("v_rsq_f64", 1, func(a, b, c float64) float64 { return 1 / math.Sqrt(a) })
	D("v_sqrt_f64", 1, func(a, b, c float64) float64 { return math.Sqrt(a) })
	D("v_fract_f64", 1, func(a, b, c float64) float64 { return fract64(a) })
	D("v_trunc_f64", 1, func(a, b, c float64) float64 { return math.Trunc(a) })
	D("v_ceil_f64", 1, func(a, b, c float64) float64 { return math.Ceil(a) })
	D("v_floor_f64", 1, func(a, b, c float64) float64 { return math.Floor(a) })
	D("v_rndne_f64", 1, func(a, b, c float64) float64 { return math.RoundToEven(a) })
	D("v_frexp_mant_f64", 1, func(a, b, c float64) float64 { return frexpMant(a) })
	def("v_frexp_exp_i32_f64", v64(kF64, 1, [4]bool{true}, func(a, b, c uint64) uint64 { return uint64(uint32(frexpExp(f64(a)))) }))
	def("v_ldexp_f64", v64(kF64, 2, [4]bool{true, false, false, true}, func(a, b, c uint64) uint64 {
		return u64f(math.Ldexp(f64(a), int(int32(b))))
	}))
	def("v_fmac_f64", func(w *Wave, in *Inst) error {
		in2 := *in
		in2.Src[2] = in.Dst
		return v64(kF64, 3, W, func(a, b, c uint64) uint64 { return u64f(math.FMA(f64(a), f64(b), f64(c))) })(w, &in2)
	})
	def("v_cvt_f64_i32", v64(kB32, 1, [4]bool{false, false, false, true}, func(a, b, c uint64) uint64 { return u64f(float64(int32(a))) }))
	def("v_cvt_f64_u32", v64(kB32, 1, [4]bool{false, false, false, true}, func(a, b, c uint64) uint64 { return u64f(float64(uint32(a))) }))
	def("v_cvt_f64_f32", v64(kF32, 1, [4]bool{false, false, false, true}, func(a, b, c uint64) uint64 { return u64f(float64(f32(uint32(a)))) }))
	def("v_cvt_f32_f64", v64(kF64, 1, [4]bool{true}, func(a, b, c uint64) uint64 { return uint64(u32(float32(f64(a)))) }))
	def("v_cvt_i32_f64", v64(kF64, 1, [4]bool{true}, func(a, b, c uint64) uint64 { return uint64(cvtI32(f64(a))) }))
	def("v_cvt_u32_f64", v64(kF64, 1, [4]bool{true}, func(a, b, c uint64) uint64 { return uint64(cvtU32(f64(a))) }))
	def("v_lshlrev_b64", v64(kB64, 2, [4]bool{false, true, false, true}, func(a, b, c uint64) uint64 { return b << (a & 63) }))
	def("v_lshrrev_b64", v64(kB64, 2, [4]bool{false, true, false, true}, func(a, b, c uint64) uint64 { return b >> (a & 63) }))
	def("v_ashrrev_i64", v64(kB64, 2, [4]bool{false, true, false, true}, func(a, b, c uint64) uint64 { return uint64(int64(b) >> (a & 63)) }))
	def("v_lshl_add_u64", v64(kB64, 3, [4]bool{true, false, true, true}, func(a, b, c uint64) uint64 { return a<<(b&7) + c }))
	def("v_mov_b64", v64(kB64, 1, [4]bool{true, false, false, true}, func(a, b, c uint64) uint64 { return a }))
	def("v_div_fixup_f64", v64(kF64, 3, W, func(a, b, c uint64) uint64 {
		if v, special := divFixup(f64(a), f64(b), f64(c)); special {
			return u64f(v)
		}
		return u64f(f64(c) / f64(b))
	}))
	def("v_div_fmas_f64", func(w *Wave, in *Inst) error {
		vcc := w.VCC()
		return v64(kF64, 3, W, func(a, b, c uint64) uint64 {
			_ = vcc
			return u64f(math.FMA(f64(a), f64(b), f64(c)))
		})(w, in)
	})
	def("v_trig_preop_f64", v64(kF64, 2, [4]bool{true, false, false, true}, func(a, b, c uint64) uint64 {
		return u64f(trigPreop(f64(a), int(b&31)))
	}))
	F("v_div_fixup_f32", 3, func(a, b, c float32) float32 {
		if v, special := divFixup(float64(a), float64(b), float64(c)); special {
			return float32(v)
		}
		return c / b
	})
	F("v_div_fmas_f32", 3, fma32)

	// Lane access.
	def("v_readfirstlane_b32", func(w *Wave, in *Inst) error {
		exec := w.Exec()
		src := w.vsrc(in.Src[0], in, kB32, 0)
		l := 0
		if exec != 0 {
			l = bits.TrailingZeros64(exec)
		}
		w.setS32(in.Dst&0xff, src[l])
		return nil
	})
	def("v_readlane_b32", func(w *Wave, in *Inst) error {
		src := w.vsrc(in.Src[0], in, kB32, 0)
		w.setS32(in.Dst&0xff, src[w.s32(in.Src[1], in)&uint32(w.laneCount()-1)])
		return nil
	})
	def("v_writelane_b32", func(w *Wave, in *Inst) error {
		w.vreg(in.Dst)[w.s32(in.Src[1], in)&uint32(w.laneCount()-1)] = w.s32(in.Src[0], in)
		return nil
	})
	def("v_mbcnt_lo_u32_b32", func(w *Wave, in *Inst) error { return mbcntOp(w, in, false) })
	def("v_mbcnt_hi_u32_b32", func(w *Wave, in *Inst) error { return mbcntOp(w, in, true) })
	def("v_nop", func(w *Wave, in *Inst) error { return nil })
	def("v_swap_b32", func(w *Wave, in *Inst) error {
		exec := w.Exec()
		a, b := w.vreg(in.Dst), w.vreg(in.Src[0])
		for l := 0; l < 64; l++ {
			if exec>>l&1 != 0 {
				a[l], b[l] = b[l], a[l]
			}
		}
		return nil
	})
	def("v_accvgpr_read_b32", v32(kB32, 1, func(a, b, c uint32) uint32 { return a }))
	def("v_accvgpr_write_b32", v32(kB32, 1, func(a, b, c uint32) uint32 { return a }))
	def("v_accvgpr_mov_b32", func(w *Wave, in *Inst) error {
		in2 := *in
		in2.Dst += 256
		in2.Src[0] += 256
		return v32(kB32, 1, func(a, b, c uint32) uint32 { return a })(w, &in2)
	})

	// Carry arithmetic (VOP2: VCC; VOP3B: SDst and, for carry-in, src2).
	carry := func(name string, useIn bool, fn func(a, b, cin uint32) (uint32, uint32)) {
		def(name, func(w *Wave, in *Inst) error {
			if in.DPP != nil || in.SDWA != nil {
				return errUnsupportedForm
			}
			a, b := w.vsrc(in.Src[0], in, kB32, 0), w.vsrc(in.Src[1], in, kB32, 1)
			var cinMask uint64
			if useIn {
				if in.Fmt == FmtVOP3 {
					cinMask = w.laneMask(in.Src[2], in)
				} else {
					cinMask = w.VCC()
				}
			}
			exec := w.Exec()
			dst := w.vreg(in.Dst)
			var cout uint64
			for l := 0; l < 64; l++ {
				if exec>>l&1 == 0 {
					continue
				}
				r, c := fn(a[l], b[l], uint32(cinMask>>l&1))
				dst[l] = r
				cout |= uint64(c) << l
			}
			w.Lanes += uint64(popcount(exec))
			if in.Fmt == FmtVOP3 {
				w.setMask(in.SDst, cout)
			} else {
				w.setMask(RegVCCLo, cout)
			}
			return nil
		})
	}
	carry("v_add_co_u32", false, func(a, b, c uint32) (uint32, uint32) { return bits.Add32(a, b, 0) })
	carry("v_sub_co_u32", false, func(a, b, c uint32) (uint32, uint32) { return bits.Sub32(a, b, 0) })
	carry("v_subrev_co_u32", false, func(a, b, c uint32) (uint32, uint32) { return bits.Sub32(b, a, 0) })
	carry("v_addc_co_u32", true, func(a, b, c uint32) (uint32, uint32) { return bits.Add32(a, b, c) })
	carry("v_subb_co_u32", true, func(a, b, c uint32) (uint32, uint32) { return bits.Sub32(a, b, c) })
	carry("v_subbrev_co_u32", true, func(a, b, c uint32) (uint32, uint32) { return bits.Sub32(b, a, c) })
	mad64 := func(name string, signed bool) {
		def(name, func(w *Wave, in *Inst) error {
			a, b := w.vsrc(in.Src[0], in, kB32, 0), w.vsrc(in.Src[1], in, kB32, 1)
			clo, chi := w.vsrc64(in.Src[2], in, kB64, 2)
			exec := w.Exec()
			d := (in.Dst - opVGPR) & 511
			var cout uint64
			for l := 0; l < 64; l++ {
				if exec>>l&1 == 0 {
					continue
				}
				c := uint64(clo[l]) | uint64(chi[l])<<32
				var r uint64
				var ov bool
				if signed {
					p := int64(int32(a[l])) * int64(int32(b[l]))
					s := p + int64(c)
					ov = (p >= 0) == (int64(c) >= 0) && (s >= 0) != (p >= 0)
					r = uint64(s)
				} else {
					hi, lo := bits.Mul64(uint64(a[l]), uint64(b[l]))
					var cy uint64
					r, cy = bits.Add64(lo, c, 0)
					ov = cy != 0 || hi != 0
				}
				w.V[d][l], w.V[(d+1)&511][l] = uint32(r), uint32(r>>32)
				if ov {
					cout |= 1 << l
				}
			}
			w.Lanes += uint64(popcount(exec))
			w.setMask(in.SDst, cout)
			return nil
		})
	}
	mad64("v_mad_u64_u32", false)
	mad64("v_mad_i64_i32", true)
	def("v_div_scale_f32", func(w *Wave, in *Inst) error {
		return divScale(w, in, false)
	})
	def("v_div_scale_f64", func(w *Wave, in *Inst) error {
		return divScale(w, in, true)
	})

	// Compares, generated from the opcode table.
	for _, n := range namesVOPC {
		if n == "" || semantics[n] != nil {
			continue
		}
		if f := compareFor(n); f != nil {
			def(n, f)
		}
	}
}

func mbcntOp(w *Wave, in *Inst, hi bool) error {
	mask := w.vsrc(in.Src[0], in, kB32, 0)
	b := w.vsrc(in.Src[1], in, kB32, 1)
	exec := w.Exec()
	dst := w.vreg(in.Dst)
	for l := 0; l < 64; l++ {
		if exec>>l&1 == 0 {
			continue
		}
		var below uint32
		if hi {
			if l > 32 {
				below = mask[l] & (1<<(l-32) - 1)
			}
			if l >= 64 {
				below = mask[l]
			}
		} else {
			if l >= 32 {
				below = mask[l]
			} else {
				below = mask[l] & (1<<l - 1)
			}
		}
		dst[l] = uint32(bits.OnesCount32(below)) + b[l]
	}
	w.Lanes += uint64(popcount(exec))
	return nil
}

// cndmask implements v_cndmask_b32: D = mask ? S1 : S0, with the mask
// from VCC (VOP2) or an SGPR pair in src2 (VOP3).
func cndmask(w *Wave, in *Inst) error {
	var mask uint64
	if in.Fmt == FmtVOP3 {
		mask = w.laneMask(in.Src[2], in)
	} else {
		mask = w.VCC()
	}
	a := w.vsrc(in.Src[0], in, kB32, 0)
	b := w.vsrc(in.Src[1], in, kB32, 1)
	if in.Fmt == FmtVOP3 && in.Abs|in.Neg != 0 {
		ta, tb := &w.tmp[0], &w.tmp[1]
		if ta != a {
			*ta = *a
		}
		if tb != b {
			*tb = *b
		}
		floatMods(ta, kF32, in.Abs&1 != 0, in.Neg&1 != 0)
		floatMods(tb, kF32, in.Abs&2 != 0, in.Neg&2 != 0)
		a, b = ta, tb
	}
	exec := w.Exec()
	if in.DPP != nil {
		a, exec = w.applyDPP(in.DPP, a, exec, kB32)
	}
	if in.SDWA != nil {
		s := in.SDWA
		a = w.sdwaSrc(0, a, s.Src0Sel, s.Src0Sext, s.Src0Abs, s.Src0Neg, kF32)
		b = w.sdwaSrc(1, b, s.Src1Sel, s.Src1Sext, s.Src1Abs, s.Src1Neg, kF32)
	}
	dst := w.vreg(in.Dst)
	for l := 0; l < 64; l++ {
		if exec>>l&1 == 0 {
			continue
		}
		r := a[l]
		if mask>>l&1 != 0 {
			r = b[l]
		}
		if in.SDWA != nil {
			r = sdwaDst(dst[l], r, in.SDWA.DstSel, in.SDWA.DstUnused)
		}
		dst[l] = r
	}
	w.Lanes += uint64(popcount(exec))
	return nil
}

// divFixup is v_div_fixup's special-case handling (NaN, infinities,
// zeros) of the quotient of numerator c by denominator b; special is false
// when no special case applies and the caller returns the quotient rounded in
// its own precision, which is what the hardware's division macro computes.
func divFixup(a, b, c float64) (v float64, special bool) {
	switch {
	case b != b || c != c:
		return math.NaN(), true
	case b == 0 && c == 0, math.IsInf(b, 0) && math.IsInf(c, 0):
		return math.NaN(), true
	case b == 0 || math.IsInf(c, 0):
		if math.Signbit(b) != math.Signbit(c) {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case math.IsInf(b, 0) || c == 0:
		if math.Signbit(b) != math.Signbit(c) {
			return math.Copysign(0, -1), true
		}
		return 0, true
	}
	return 0, false
}

// divScale implements v_div_scale for the division macro (div_scale, rcp,
// fma steps, div_fmas, div_fixup): it returns its first operand unscaled
// and clears its lane of VCC; see divScaleOne.
func divScale(w *Wave, in *Inst, wide bool) error {
	exec := w.Exec()
	var vcc uint64
	if wide {
		a0, a1 := w.vsrc64(in.Src[0], in, kF64, 0)
		b0, b1 := w.vsrc64(in.Src[1], in, kF64, 1)
		c0, c1 := w.vsrc64(in.Src[2], in, kF64, 2)
		d := (in.Dst - opVGPR) & 511
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			s0 := f64(uint64(a0[l]) | uint64(a1[l])<<32)
			den := f64(uint64(b0[l]) | uint64(b1[l])<<32)
			num := f64(uint64(c0[l]) | uint64(c1[l])<<32)
			r, flag := divScaleOne(s0, den, num, 1022, 128)
			u := u64f(r)
			w.V[d][l], w.V[(d+1)&511][l] = uint32(u), uint32(u>>32)
			if flag {
				vcc |= 1 << l
			}
		}
	} else {
		a := w.vsrc(in.Src[0], in, kF32, 0)
		b := w.vsrc(in.Src[1], in, kF32, 1)
		c := w.vsrc(in.Src[2], in, kF32, 2)
		dst := w.vreg(in.Dst)
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			r, flag := divScaleOne(float64(f32(a[l])), float64(f32(b[l])), float64(f32(c[l])), 126, 64)
			dst[l] = u32(float32(r))
			if flag {
				vcc |= 1 << l
			}
		}
	}
	w.Lanes += uint64(popcount(exec))
	w.setMask(in.SDst, vcc)
	return nil
}

// divScaleOne never scales: the simulator's v_div_fixup returns the
// correctly rounded quotient itself, so the macro needs no range scaling
// and VCC (which would tell v_div_fmas to undo a scaling) stays clear.
func divScaleOne(s0, den, num float64, emax, scale int) (float64, bool) {
	return s0, false
}

func trigPreop(a float64, seg int) float64 {
	// Bits of 2/pi, 53 at a time, selected by the exponent of a and seg.
	const twoOverPi = "a2f9836e4e441529fc2757d1f534ddc0db6295993c439041fe5163abdebbc561b7246e3a424dd2e006492eea09d1921cfe1deb1cb129a73ee88235f52ebb4484e99c7026b45f7e413991d639835339f49c845f8bbdf9283b1ff897ffde05980fef2f118b5a0a6d1f6d367ecf27cb09b74f463f669e5fea2d7527bac7ebe5f17b3d0739f78a5292ea6bfb5fb11f8d5d0856033046fc7b6babf0cfbc209af4361da9e391615ee61b086599855f14a068408dffd8804d73273106061556ca73a8c960e27bc08c6b"
	e := 0
	if x := math.Abs(a); x != 0 && !math.IsInf(x, 0) && x == x {
		_, e = math.Frexp(x)
		e -= 1
	}
	shift := 0
	if e > 1077 {
		shift = e - 1077
	}
	start := shift + 53*seg
	var m uint64
	for i := 0; i < 53; i++ {
		bit := start + i
		nib := bit / 4
		if nib >= len(twoOverPi) {
			break
		}
		var v uint64
		ch := twoOverPi[nib]
		if ch <= '9' {
			v = uint64(ch - '0')
		} else {
			v = uint64(ch-'a') + 10
		}
		m = m<<1 | (v>>(3-bit%4))&1
	}
	return math.Ldexp(float64(m), -start-53)
}

// compareFor builds the semantics of a v_cmp/v_cmpx mnemonic.
func compareFor(name string) func(*Wave, *Inst) error {
	x := strings.HasPrefix(name, "v_cmpx_")
	t := strings.TrimPrefix(strings.TrimPrefix(name, "v_cmpx_"), "v_cmp_")
	i := strings.LastIndexByte(t, '_')
	if i < 0 {
		return nil
	}
	op, typ := t[:i], t[i+1:]
	if op == "class" {
		return classOp(typ, x)
	}
	var k kind
	wide := false
	switch typ {
	case "f16":
		k = kF16
	case "f32":
		k = kF32
	case "f64":
		k, wide = kF64, true
	case "i16", "u16":
		k = kB16
	case "i32", "u32":
		k = kB32
	case "i64", "u64":
		k, wide = kB64, true
	default:
		return nil
	}
	var fn func(a, b uint64) bool
	if typ[0] == 'f' {
		conv := func(u uint64) float64 {
			switch typ {
			case "f16":
				return f16v(u)
			case "f32":
				return float64(f32(uint32(u)))
			}
			return f64(u)
		}
		var rel func(a, b float64) bool
		switch op {
		case "f":
			rel = func(a, b float64) bool { return false }
		case "lt":
			rel = func(a, b float64) bool { return a < b }
		case "eq":
			rel = func(a, b float64) bool { return a == b }
		case "le":
			rel = func(a, b float64) bool { return a <= b }
		case "gt":
			rel = func(a, b float64) bool { return a > b }
		case "lg":
			rel = func(a, b float64) bool { return a < b || a > b }
		case "ge":
			rel = func(a, b float64) bool { return a >= b }
		case "o":
			rel = func(a, b float64) bool { return a == a && b == b }
		case "u":
			rel = func(a, b float64) bool { return a != a || b != b }
		case "nge":
			rel = func(a, b float64) bool { return !(a >= b) }
		case "nlg":
			rel = func(a, b float64) bool { return !(a < b || a > b) }
		case "ngt":
			rel = func(a, b float64) bool { return !(a > b) }
		case "nle":
			rel = func(a, b float64) bool { return !(a <= b) }
		case "neq":
			rel = func(a, b float64) bool { return !(a == b) }
		case "nlt":
			rel = func(a, b float64) bool { return !(a < b) }
		case "tru":
			rel = func(a, b float64) bool { return true }
		default:
			return nil
		}
		fn = func(a, b uint64) bool { return rel(conv(a), conv(b)) }
	} else {
		signed := typ[0] == 'i'
		bitsN := 32
		switch typ[1:] {
		case "16":
			bitsN = 16
		case "64":
			bitsN = 64
		}
		norm := func(u uint64) (int64, uint64) {
			switch bitsN {
			case 16:
				return int64(int16(u)), u & 0xffff
			case 32:
				return int64(int32(u)), u & 0xffffffff
			}
			return int64(u), u
		}
		var rel func(c int) bool
		switch op {
		case "f":
			rel = func(c int) bool { return false }
		case "lt":
			rel = func(c int) bool { return c < 0 }
		case "eq":
			rel = func(c int) bool { return c == 0 }
		case "le":
			rel = func(c int) bool { return c <= 0 }
		case "gt":
			rel = func(c int) bool { return c > 0 }
		case "ne", "lg":
			rel = func(c int) bool { return c != 0 }
		case "ge":
			rel = func(c int) bool { return c >= 0 }
		case "t":
			rel = func(c int) bool { return true }
		default:
			return nil
		}
		fn = func(a, b uint64) bool {
			sa, ua := norm(a)
			sb, ub := norm(b)
			c := 0
			if signed {
				if sa < sb {
					c = -1
				} else if sa > sb {
					c = 1
				}
			} else {
				if ua < ub {
					c = -1
				} else if ua > ub {
					c = 1
				}
			}
			return rel(c)
		}
	}
	return cmpOp(k, wide, x, fn)
}

// classOp implements v_cmp_class: src1 is a mask of IEEE classes
// (0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0,
// 7 +denormal, 8 +normal, 9 +inf).
func classOp(typ string, x bool) func(*Wave, *Inst) error {
	var expBits, manBits uint
	var k kind
	wide := false
	switch typ {
	case "f16":
		expBits, manBits, k = 5, 10, kF16
	case "f32":
		expBits, manBits, k = 8, 23, kF32
	case "f64":
		expBits, manBits, k, wide = 11, 52, kF64, true
	default:
		return nil
	}
	cls := func(u uint64) int {
		neg := u>>(expBits+manBits)&1 != 0
		e := u >> manBits & (1<<expBits - 1)
		m := u & (1<<manBits - 1)
		switch {
		case e == 1<<expBits-1 && m != 0:
			if m>>(manBits-1)&1 != 0 {
				return 1
			}
			return 0
		case e == 1<<expBits-1:
			if neg {
				return 2
			}
			return 9
		case e == 0 && m == 0:
			if neg {
				return 5
			}
			return 6
		case e == 0:
			if neg {
				return 4
			}
			return 7
		}
		if neg {
			return 3
		}
		return 8
	}
	return func(w *Wave, in *Inst) error {
		exec := w.Exec()
		var alo, ahi *[64]uint32
		if wide {
			alo, ahi = w.vsrc64(in.Src[0], in, k, 0)
		} else {
			alo, ahi = w.vsrc(in.Src[0], in, k, 0), &zeros
		}
		mask := w.vsrc(in.Src[1], in, kB32, 1)
		var res uint64
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			u := uint64(alo[l]) | uint64(ahi[l])<<32
			if !wide {
				u &= 1<<(expBits+manBits+1) - 1
			}
			if in.Fmt == FmtVOP3 {
				sb := uint64(1) << (expBits + manBits)
				if in.Abs&1 != 0 {
					u &^= sb
				}
				if in.Neg&1 != 0 {
					u ^= sb
				}
			}
			if mask[l]>>cls(u)&1 != 0 {
				res |= 1 << l
			}
		}
		w.Lanes += uint64(popcount(exec))
		if in.Fmt == FmtVOPC && (in.SDWA == nil || in.SDWA.SDst < 0) {
			w.setMask(RegVCCLo, res)
		} else {
			w.setMask(in.SDst, res)
		}
		if x {
			w.SetExec(res)
		}
		return nil
	}
}
