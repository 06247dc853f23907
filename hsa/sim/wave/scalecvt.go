package wave

import (
	"math"
	"strings"

	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
)

// gfx950's scaled conversions (v_cvt_scalef32_*, without stochastic
// rounding) between the OCP MX element formats (FP8 E4M3FN, BF8 E5M2, FP4
// E2M1) and f32/f16/bf16. The scale operand is an f32 of which only the
// exponent field E is used, as an E8M0 shared scale 2^(E-127): widening
// multiplies the element by it, narrowing divides by it. The modelled
// semantics, stated so a translation can be proven against them:
//
//   - the scaled value is computed exactly and rounded once to the result
//     format, to nearest even; E = 255 is not special-cased (2^128);
//   - narrowing to FP4 saturates: finite values beyond 6, infinities and
//     NaNs become the largest magnitude with the input's sign;
//   - narrowing to FP8/BF8 follows v_cvt_pk_fp8_f32: overflow gives the
//     NaN code (E4M3) or infinity (E5M2) unless clamp is set;
//   - denormal inputs and results are kept (the f32 denormal mode is not
//     applied, as for the other conversions);
//   - abs and neg act on the sign bits of f32 sources.
//
// Operand layouts follow LLVM's gfx950 MC tests: widening forms read the
// element byte (FP4 pair, or FP8/BF8 scalar) at op_sel[1:0], or the FP8
// pair in the word at op_sel[0]; narrowing forms write the FP4 byte at
// op_sel[3:2] or the FP8 pair in the word at op_sel[3], keeping the rest.

// ScaleExp returns the power of two an f32 scale operand stands for.
func ScaleExp(scale uint32) int { return int(scale>>23&0xff) - 127 }

// ScaleDecode returns element code of f multiplied by the scale operand's
// power of two, exactly (NaN for NaN codes).
func ScaleDecode(f fp.Format, code uint8, scale uint32) float64 {
	return math.Ldexp(float64(f.Decode(code)), ScaleExp(scale))
}

// ScaleEncode divides x by the scale operand's power of two and rounds it
// to f (clamp: saturate FP8/BF8 overflow; FP4 always saturates, NaN
// included).
func ScaleEncode(f fp.Format, x float32, scale uint32, clamp bool) uint8 {
	if f.Finite && x != x {
		sign := uint8(0)
		if math.Float32bits(x)>>31 != 0 {
			sign = 1 << (f.Bits - 1)
		}
		return sign | f.Encode(float32(f.MaxFinite()), true)
	}
	y := math.Ldexp(float64(x), -ScaleExp(scale))
	return encodeExact(f, y, clamp)
}

// encodeExact rounds the float64 y (exact: an f32 times a power of two)
// to f. f32 range limits do not apply: y may be beyond float32.
func encodeExact(f fp.Format, y float64, clamp bool) uint8 {
	// Every value f can represent, and every rounding boundary, lies well
	// inside float32's range, so clamping y to a float32 magnitude that
	// is still beyond every format's range (or below half its smallest
	// denormal) does not change the result.
	switch a := math.Abs(y); {
	case math.IsInf(a, 0) || a != a:
	case a > 1e30:
		y = math.Copysign(1e30, y)
	case a != 0 && a < 1e-30:
		y = math.Copysign(1e-30, y)
	}
	return f.Encode(float32(y), clamp)
}

// scaleCvtFormat returns the element format a mnemonic part names.
func scaleCvtFormat(s string) (fp.Format, bool) {
	switch s {
	case "fp8":
		return fp.E4M3FN, true
	case "bf8":
		return fp.E5M2, true
	case "fp4":
		return fp.E2M1, true
	}
	return fp.Format{}, false
}

// wideToBits rounds the exact value v to the wide type t ("f32", "f16",
// "bf16") and returns its bits. v is an element (at most 4 significant
// bits) times a power of two, so float32(v) is exact whenever the narrower
// result can be non-zero and finite, and a single rounding remains.
func wideToBits(t string, v float64) uint32 {
	switch t {
	case "f16":
		return f2h(float32(v))
	case "bf16":
		return uint32(fp.F32ToBF16(float32(v)))
	}
	return math.Float32bits(float32(v))
}

// wideFromBits reads the wide type t from a source dword (the f16/bf16 at
// bit offset sh).
func wideFromBits(t string, u uint32, sh uint) float32 {
	switch t {
	case "f16":
		return h2f(u >> sh & 0xffff)
	case "bf16":
		return fp.BF16ToF32(uint16(u >> sh))
	}
	return math.Float32frombits(u)
}

// f32Mods applies VOP3 abs/neg bit i to the f32 bits u.
func f32Mods(in *Inst, i int, u uint32) uint32 {
	if in.Abs>>i&1 != 0 {
		u &^= 1 << 31
	}
	if in.Neg>>i&1 != 0 {
		u ^= 1 << 31
	}
	return u
}

func registerScalecvt() {
	for _, name := range AllNames() {
		rest, ok := strings.CutPrefix(name, "v_cvt_scalef32_")
		if !ok || strings.HasPrefix(rest, "sr_") || strings.HasPrefix(rest, "2x") || strings.HasPrefix(rest, "pk32_") {
			continue
		}
		pk := strings.HasPrefix(rest, "pk_")
		parts := strings.Split(strings.TrimPrefix(rest, "pk_"), "_")
		if len(parts) != 2 {
			continue
		}
		dst, src := parts[0], parts[1]
		if f, ok := scaleCvtFormat(src); ok {
			if wide := dst; wide == "f32" || (pk && (wide == "f16" || wide == "bf16")) {
				def(name, scaleWiden(f, wide, pk))
			}
			continue
		}
		if f, ok := scaleCvtFormat(dst); ok && pk {
			def(name, scaleNarrow(f, src))
		}
	}
}

// scaleWiden implements v_cvt_scalef32_[pk_]<wide>_<f>: src0 holds the
// elements, src1 the scale.
func scaleWiden(f fp.Format, wide string, pk bool) func(*Wave, *Inst) error {
	return func(w *Wave, in *Inst) error {
		if in.Fmt != FmtVOP3 || in.Clamp || in.Omod != 0 || in.Abs|in.Neg != 0 {
			return errUnsupportedForm
		}
		a := w.vsrc(in.Src[0], in, kB32, 0)
		s := w.vsrc(in.Src[1], in, kB32, 1)
		exec := w.Exec()
		d := w.vreg(in.Dst)
		var d1 *[64]uint32
		if pk && wide == "f32" {
			d1 = w.vreg(in.Dst + 1)
		}
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			var c0, c1 uint8
			switch {
			case f.Bits == 4: // nibble pair in the byte at op_sel[1:0]
				b := uint8(a[l] >> (8 * uint(in.Opsel&3)))
				c0, c1 = b&0xf, b>>4
			case pk: // byte pair in the word at op_sel[0]
				h := a[l] >> (16 * uint(in.Opsel&1))
				c0, c1 = uint8(h), uint8(h>>8)
			default: // one byte at op_sel[1:0]
				c0 = uint8(a[l] >> (8 * uint(in.Opsel&3)))
			}
			r0 := wideToBits(wide, ScaleDecode(f, c0, s[l]))
			if !pk {
				d[l] = r0
				continue
			}
			r1 := wideToBits(wide, ScaleDecode(f, c1, s[l]))
			if d1 != nil {
				d[l], d1[l] = r0, r1
			} else {
				d[l] = r0&0xffff | r1<<16
			}
		}
		w.Lanes += uint64(popcount(exec))
		return nil
	}
}

// scaleNarrow implements v_cvt_scalef32_pk_<f>_<wide>: two f32 sources
// and the scale in src2, or (f16/bf16) a packed pair in src0 and the scale
// in src1.
func scaleNarrow(f fp.Format, wide string) func(*Wave, *Inst) error {
	return func(w *Wave, in *Inst) error {
		if in.Fmt != FmtVOP3 || in.Omod != 0 || (in.Clamp && f.Finite) {
			return errUnsupportedForm
		}
		if wide != "f32" && in.Abs|in.Neg != 0 {
			return errUnsupportedForm
		}
		// Only the destination selectors are defined.
		if f.Bits == 4 && in.Opsel&3 != 0 || f.Bits != 4 && in.Opsel&7 != 0 {
			return errUnsupportedForm
		}
		a := w.vsrc(in.Src[0], in, kB32, 0)
		b := w.vsrc(in.Src[1], in, kB32, 1)
		s := b
		if wide == "f32" {
			s = w.vsrc(in.Src[2], in, kB32, 2)
		}
		exec := w.Exec()
		d := w.vreg(in.Dst)
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			var x0, x1 float32
			if wide == "f32" {
				x0 = math.Float32frombits(f32Mods(in, 0, a[l]))
				x1 = math.Float32frombits(f32Mods(in, 1, b[l]))
			} else {
				x0, x1 = wideFromBits(wide, a[l], 0), wideFromBits(wide, a[l], 16)
			}
			c0, c1 := ScaleEncode(f, x0, s[l], in.Clamp), ScaleEncode(f, x1, s[l], in.Clamp)
			if f.Bits == 4 {
				sh := 8 * uint(in.Opsel>>2&3)
				d[l] = d[l]&^(0xff<<sh) | uint32(c0|c1<<4)<<sh
			} else {
				sh := 16 * uint(in.Opsel>>3&1)
				d[l] = d[l]&^(0xffff<<sh) | (uint32(c0)|uint32(c1)<<8)<<sh
			}
		}
		w.Lanes += uint64(popcount(exec))
		return nil
	}
}
