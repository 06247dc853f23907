package wave

import (
	"math"

	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
)

// pk16 builds a packed 16-bit VOP3P operation; op_sel picks the half each
// source feeds to the low result, op_sel_hi the half for the high result.
func pk16(k kind, n int, fn func(a, b, c uint16) uint16) func(*Wave, *Inst) error {
	return func(w *Wave, in *Inst) error {
		var src [3]*[64]uint32
		for i := 0; i < 3; i++ {
			src[i] = &zeros
			if i < n {
				src[i] = w.vsrc(in.Src[i], in, k, i)
			}
		}
		exec := w.Exec()
		dst := w.vreg(in.Dst)
		sign := uint16(0)
		if k == kPkF16 {
			sign = 0x8000
		}
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			var lo, hi [3]uint16
			for i := 0; i < n; i++ {
				v := src[i][l]
				lo[i] = uint16(v >> (16 * uint(in.Opsel>>i&1)))
				hi[i] = uint16(v >> (16 * uint(in.OpselHi>>i&1)))
				if in.Neg>>i&1 != 0 {
					lo[i] ^= sign
				}
				if in.NegHi>>i&1 != 0 {
					hi[i] ^= sign
				}
			}
			r := uint32(fn(lo[0], lo[1], lo[2])) | uint32(fn(hi[0], hi[1], hi[2]))<<16
			dst[l] = r
		}
		w.Lanes += uint64(2 * popcount(exec))
		return nil
	}
}

// pk32 builds a packed-f32 VOP3P operation on 64-bit register pairs.
func pk32(n int, fn func(a, b, c float32) float32) func(*Wave, *Inst) error {
	return func(w *Wave, in *Inst) error {
		var lo, hi [3]*[64]uint32
		for i := 0; i < 3; i++ {
			lo[i], hi[i] = &zeros, &zeros
			if i < n {
				lo[i], hi[i] = w.vsrc64(in.Src[i], in, kPkF32, i)
			}
		}
		exec := w.Exec()
		d := (in.Dst - opVGPR) & 511
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			var x, y [3]float32
			for i := 0; i < n; i++ {
				pick := func(sel uint8) uint32 {
					if sel != 0 {
						return hi[i][l]
					}
					return lo[i][l]
				}
				a, b := pick(in.Opsel>>i&1), pick(in.OpselHi>>i&1)
				if in.Neg>>i&1 != 0 {
					a ^= 0x80000000
				}
				if in.NegHi>>i&1 != 0 {
					b ^= 0x80000000
				}
				x[i], y[i] = f32(a), f32(b)
			}
			w.V[d][l] = u32(fn(x[0], x[1], x[2]))
			w.V[(d+1)&511][l] = u32(fn(y[0], y[1], y[2]))
		}
		w.Lanes += uint64(2 * popcount(exec))
		return nil
	}
}

func hf(fn func(a, b, c float32) float32) func(a, b, c uint16) uint16 {
	return func(a, b, c uint16) uint16 {
		return fp.F32ToF16(fn(fp.F16ToF32(a), fp.F16ToF32(b), fp.F16ToF32(c)))
	}
}

func registerVop3P1() {
	def("v_pk_add_f16", pk16(kPkF16, 2, hf(func(a, b, c float32) float32 { return a + b })))
	def("v_pk_mul_f16", pk16(kPkF16, 2, hf(func(a, b, c float32) float32 { return a * b })))
	def("v_pk_fma_f16", pk16(kPkF16, 3, hf(func(a, b, c float32) float32 {
		return float32(math.FMA(float64(a), float64(b), float64(c)))
	})))
	def("v_pk_min_f16", pk16(kPkF16, 2, hf(func(a, b, c float32) float32 { return minF32(a, b) })))
	def("v_pk_max_f16", pk16(kPkF16, 2, hf(func(a, b, c float32) float32 { return maxF32(a, b) })))
	def("v_pk_add_u16", pk16(kPkB16, 2, func(a, b, c uint16) uint16 { return a + b }))
	def("v_pk_add_i16", pk16(kPkB16, 2, func(a, b, c uint16) uint16 { return a + b }))
	def("v_pk_sub_u16", pk16(kPkB16, 2, func(a, b, c uint16) uint16 { return a - b }))
	def("v_pk_sub_i16", pk16(kPkB16, 2, func(a, b, c uint16) uint16 { return a - b }))
	def("v_pk_mul_lo_u16", pk16(kPkB16, 2, func(a, b, c uint16) uint16 { return a * b }))
	def("v_pk_mad_u16", pk16(kPkB16, 3, func(a, b, c uint16) uint16 { return a*b + c }))
	def("v_pk_mad_i16", pk16(kPkB16, 3, func(a, b, c uint16) uint16 { return a*b + c }))
	def("v_pk_lshlrev_b16", pk16(kPkB16, 2, func(a, b, c uint16) uint16 { return b << (a & 15) }))
	def("v_pk_lshrrev_b16", pk16(kPkB16, 2, func(a, b, c uint16) uint16 { return b >> (a & 15) }))
	def("v_pk_ashrrev_i16", pk16(kPkB16, 2, func(a, b, c uint16) uint16 { return uint16(int16(b) >> (a & 15)) }))
	def("v_pk_max_u16", pk16(kPkB16, 2, func(a, b, c uint16) uint16 { return max(a, b) }))
	def("v_pk_min_u16", pk16(kPkB16, 2, func(a, b, c uint16) uint16 { return min(a, b) }))
	def("v_pk_max_i16", pk16(kPkB16, 2, func(a, b, c uint16) uint16 { return uint16(max(int16(a), int16(b))) }))
	def("v_pk_min_i16", pk16(kPkB16, 2, func(a, b, c uint16) uint16 { return uint16(min(int16(a), int16(b))) }))
	def("v_pk_fma_f32", pk32(3, fma32))
	def("v_pk_mul_f32", pk32(2, func(a, b, c float32) float32 { return a * b }))
	def("v_pk_add_f32", pk32(2, func(a, b, c float32) float32 { return a + b }))
	def("v_pk_mov_b32", func(w *Wave, in *Inst) error {
		alo, ahi := w.vsrc64(in.Src[0], in, kB64, 0)
		blo, bhi := w.vsrc64(in.Src[1], in, kB64, 1)
		exec := w.Exec()
		d := (in.Dst - opVGPR) & 511
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			x, y := alo[l], blo[l]
			if in.Opsel&1 != 0 {
				x = ahi[l]
			}
			if in.Opsel&2 != 0 {
				y = bhi[l]
			}
			w.V[d][l], w.V[(d+1)&511][l] = x, y
		}
		w.Lanes += uint64(popcount(exec))
		return nil
	})
	dot := func(name string, k kind, fn func(a, b, c uint32) uint32) {
		def(name, v32(k, 3, fn))
	}
	dot("v_dot2_f32_f16", kB32, func(a, b, c uint32) uint32 {
		s := float64(h2f(a))*float64(h2f(b)) + float64(h2f(a>>16))*float64(h2f(b>>16)) + float64(f32(c))
		return u32(float32(s))
	})
	dot("v_dot2_f32_bf16", kB32, func(a, b, c uint32) uint32 {
		s := float64(fp.BF16ToF32(uint16(a)))*float64(fp.BF16ToF32(uint16(b))) +
			float64(fp.BF16ToF32(uint16(a>>16)))*float64(fp.BF16ToF32(uint16(b>>16))) + float64(f32(c))
		return u32(float32(s))
	})
	dot("v_dot2_i32_i16", kB32, func(a, b, c uint32) uint32 {
		return uint32(int32(int16(a))*int32(int16(b)) + int32(int16(a>>16))*int32(int16(b>>16)) + int32(c))
	})
	dot("v_dot2_u32_u16", kB32, func(a, b, c uint32) uint32 { return (a&0xffff)*(b&0xffff) + (a>>16)*(b>>16) + c })
	dot4i := func(a, b, c uint32) uint32 {
		s := int32(c)
		for i := 0; i < 4; i++ {
			s += int32(int8(a>>(8*i))) * int32(int8(b>>(8*i)))
		}
		return uint32(s)
	}
	dot("v_dot4_i32_i8", kB32, dot4i)
	dot("v_dot4_u32_u8", kB32, func(a, b, c uint32) uint32 {
		for i := 0; i < 4; i++ {
			c += (a >> (8 * i) & 0xff) * (b >> (8 * i) & 0xff)
		}
		return c
	})
	def("v_dot4c_i32_i8", func(w *Wave, in *Inst) error {
		in2 := *in
		in2.Src[2] = in.Dst
		return v32(kB32, 3, dot4i)(w, &in2)
	})
	def("v_dot2c_f32_f16", func(w *Wave, in *Inst) error {
		in2 := *in
		in2.Src[2] = in.Dst
		return semantics["v_dot2_f32_f16"](w, &in2)
	})
	def("v_fma_mix_f32", fmaMix(0))
	def("v_fma_mixlo_f16", fmaMix(1))
	def("v_fma_mixhi_f16", fmaMix(2))

	// FP8/BF8 conversions: FNUZ formats on gfx942, OCP on gfx950 and gfx12
	// (which shares v_cvt_pk_fp8/bf8_f32, op_sel[3] word select and the
	// kept other half, through same12).
	fmt8 := func(w *Wave, bf bool) fp.Format {
		ocp := w.target == GFX950 || w.target.GFX12()
		switch {
		case bf && ocp:
			return fp.E5M2
		case bf:
			return fp.E5M2FNUZ
		case ocp:
			return fp.E4M3FN
		}
		return fp.E4M3FNUZ
	}
	for _, bf := range []bool{false, true} {
		bf := bf
		suf := "fp8"
		if bf {
			suf = "bf8"
		}
		def("v_cvt_f32_"+suf, func(w *Wave, in *Inst) error {
			f := fmt8(w, bf)
			sel := uint(0)
			if in.SDWA != nil {
				sel = uint(in.SDWA.Src0Sel & 3)
			} else if in.Fmt == FmtVOP3 {
				sel = uint(in.Opsel & 3)
			}
			in2 := *in
			in2.SDWA = nil
			return v32(kB32, 1, func(a, b, c uint32) uint32 { return u32(f.Decode(uint8(a >> (8 * sel)))) })(w, &in2)
		})
		def("v_cvt_pk_f32_"+suf, func(w *Wave, in *Inst) error {
			f := fmt8(w, bf)
			word := uint(0)
			if in.SDWA != nil && in.SDWA.Src0Sel == 5 || in.Fmt == FmtVOP3 && in.Opsel&1 != 0 {
				word = 1
			}
			src := w.vsrc(in.Src[0], in, kB32, 0)
			exec := w.Exec()
			d := (in.Dst - opVGPR) & 511
			for l := 0; l < 64; l++ {
				if exec>>l&1 == 0 {
					continue
				}
				v := src[l] >> (16 * word)
				w.V[d][l] = u32(f.Decode(uint8(v)))
				w.V[(d+1)&511][l] = u32(f.Decode(uint8(v >> 8)))
			}
			w.Lanes += uint64(popcount(exec))
			return nil
		})
		def("v_cvt_pk_"+suf+"_f32", func(w *Wave, in *Inst) error {
			f := fmt8(w, bf)
			a := w.vsrc(in.Src[0], in, kF32, 0)
			b := w.vsrc(in.Src[1], in, kF32, 1)
			exec := w.Exec()
			dst := w.vreg(in.Dst)
			hi := in.Opsel&8 != 0
			for l := 0; l < 64; l++ {
				if exec>>l&1 == 0 {
					continue
				}
				x, y := a[l], b[l]
				if in.Abs&1 != 0 {
					x &^= 1 << 31
				}
				if in.Neg&1 != 0 {
					x ^= 1 << 31
				}
				if in.Abs&2 != 0 {
					y &^= 1 << 31
				}
				if in.Neg&2 != 0 {
					y ^= 1 << 31
				}
				p := uint32(f.Encode(f32(x), in.Clamp)) | uint32(f.Encode(f32(y), in.Clamp))<<8
				if hi {
					dst[l] = dst[l]&0xffff | p<<16
				} else {
					dst[l] = dst[l]&0xffff0000 | p
				}
			}
			w.Lanes += uint64(popcount(exec))
			return nil
		})
	}
}

// fmaMix implements v_fma_mix*: each source is f32 or (op_sel_hi set) an
// f16 taken from the half op_sel picks; mode 0 writes f32, 1 the low f16
// half, 2 the high f16 half.
func fmaMix(mode int) func(*Wave, *Inst) error {
	return func(w *Wave, in *Inst) error {
		var src [3]*[64]uint32
		for i := 0; i < 3; i++ {
			src[i] = w.vsrc(in.Src[i], in, kB32, i)
		}
		exec := w.Exec()
		dst := w.vreg(in.Dst)
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			var x [3]float64
			for i := 0; i < 3; i++ {
				v := src[i][l]
				if in.OpselHi>>i&1 != 0 {
					x[i] = float64(fp.F16ToF32(uint16(v >> (16 * uint(in.Opsel>>i&1)))))
				} else {
					x[i] = float64(f32(v))
				}
				if in.NegHi>>i&1 != 0 {
					x[i] = math.Abs(x[i])
				}
				if in.Neg>>i&1 != 0 {
					x[i] = -x[i]
				}
			}
			r := float32(math.FMA(x[0], x[1], x[2]))
			if in.Clamp {
				r = f32(clampF32(u32(r)))
			}
			switch mode {
			case 0:
				dst[l] = u32(r)
			case 1:
				dst[l] = dst[l]&0xffff0000 | uint32(fp.F32ToF16(r))
			case 2:
				dst[l] = dst[l]&0xffff | uint32(fp.F32ToF16(r))<<16
			}
		}
		w.Lanes += uint64(popcount(exec))
		return nil
	}
}

func registerVop3P2() {
	// gfx950: v_bitop3 takes its 8-bit truth table from the OMOD, ABS and
	// NEG fields (lut = omod<<6 | abs<<3 | neg); bit i of the result is
	// bit (a_i<<2 | b_i<<1 | c_i) of the table.
	bitop3 := func(mask uint32) func(*Wave, *Inst) error {
		return func(w *Wave, in *Inst) error {
			lut := uint32(in.Omod)<<6 | uint32(in.Abs)<<3 | uint32(in.Neg)
			in2 := *in
			in2.Abs, in2.Neg, in2.Omod, in2.Opsel, in2.Clamp = 0, 0, 0, 0, false
			return v32(kB32, 3, func(a, b, c uint32) uint32 {
				var r uint32
				for v := uint32(0); v < 8; v++ {
					if lut>>v&1 == 0 {
						continue
					}
					m := ^uint32(0)
					if v&4 != 0 {
						m &= a
					} else {
						m &= ^a
					}
					if v&2 != 0 {
						m &= b
					} else {
						m &= ^b
					}
					if v&1 != 0 {
						m &= c
					} else {
						m &= ^c
					}
					r |= m
				}
				return r & mask
			})(w, &in2)
		}
	}
	def("v_bitop3_b32", bitop3(0xffffffff))
	def("v_bitop3_b16", bitop3(0xffff))
	// gfx950: v_permlane16_swap swaps the odd rows of vdst with the even
	// rows of src0; v_permlane32_swap swaps vdst's upper half with src0's
	// lower half. A pair is swapped when both of its lanes are active.
	permSwap := func(rows int) func(*Wave, *Inst) error {
		return func(w *Wave, in *Inst) error {
			if in.Src[0] < opVGPR {
				return errUnsupportedForm
			}
			d, s := w.vreg(in.Dst), w.vreg(in.Src[0])
			exec := w.Exec()
			for l := 0; l < 64; l++ {
				if l%(2*rows) >= rows {
					continue
				}
				hi := l + rows
				if exec>>l&1 == 0 || exec>>hi&1 == 0 {
					continue
				}
				d[hi], s[l] = s[l], d[hi]
				w.Lanes += 2
			}
			return nil
		}
	}
	def("v_permlane16_swap_b32", permSwap(16))
	def("v_permlane32_swap_b32", permSwap(32))
}
