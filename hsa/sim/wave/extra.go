package wave

import (
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
)

func registerExtra1() {
	for _, names := range [][]string{namesGLOBAL[:], namesFLAT[:], namesMUBUF[:]} {
		for _, n := range names {
			if n == "" || semantics[n] != nil || !strings.Contains(n, "atomic_pk_add") {
				continue
			}
			op, ok := parseMemName(n)
			if !ok {
				continue
			}
			if strings.HasPrefix(n, "buffer_") {
				def(n, bufferOp(op))
			} else {
				def(n, flatOp(op))
			}
		}
	}

	// v_cvt_off_f32_i4: the low 4 bits as a signed int4, times 1/16.
	def("v_cvt_off_f32_i4", v32(kB32, 1, func(a, b, c uint32) uint32 {
		return u32(float32(int32(a<<28)>>28) * 0.0625)
	}))
	// v_cvt_pk_u8_f32: S0 converted to u8 (round to nearest even, clamped)
	// replaces byte S1[1:0] of S2.
	def("v_cvt_pk_u8_f32", v32(kB32, 3, func(a, b, c uint32) uint32 {
		f := math.RoundToEven(float64(f32(a)))
		var u uint32
		switch {
		case f != f || f <= 0:
		case f >= 255:
			u = 255
		default:
			u = uint32(f)
		}
		sh := 8 * (b & 3)
		return c&^(0xff<<sh) | u<<sh
	}))
	// v_add_i32 / v_sub_i32 (VOP3): with clamp they saturate to int32.
	satI := func(name string, sub bool) {
		def(name, func(w *Wave, in *Inst) error {
			return v32(kB32, 2, func(a, b, c uint32) uint32 {
				x, y := int64(int32(a)), int64(int32(b))
				r := x + y
				if sub {
					r = x - y
				}
				if in.Clamp {
					r = max(min(r, math.MaxInt32), math.MinInt32)
				}
				return uint32(r)
			})(w, in)
		})
	}
	satI("v_add_i32", false)
	satI("v_sub_i32", true)

	// s_setvskip: VSKIP = S0[S1[4:0]]; while set, vector instructions
	// are not issued (see Wave.Run).
	def("s_setvskip", func(w *Wave, in *Inst) error {
		w.vskip = w.s32(in.Src[0], in)>>(w.s32(in.Src[1], in)&31)&1 != 0
		return nil
	})

	// VGPR indexing (s_set_gpr_idx_*): M0[7:0] is the index and M0[15:12]
	// the operands it applies to (1 src0, 2 src1, 4 src2, 8 dst).
	def("s_set_gpr_idx_on", func(w *Wave, in *Inst) error {
		idx := w.s32(in.Src[0], in) & 0xff
		w.S[RegM0] = w.S[RegM0]&^0xf0ff | idx | uint32(in.Src[1]&0xf)<<12
		w.gprIdx = true
		return nil
	})
	def("s_set_gpr_idx_off", func(w *Wave, in *Inst) error { w.gprIdx = false; return nil })
	def("s_set_gpr_idx_idx", func(w *Wave, in *Inst) error {
		w.S[RegM0] = w.S[RegM0]&^0xff | w.s32(in.Src[0], in)&0xff
		return nil
	})
	def("s_set_gpr_idx_mode", func(w *Wave, in *Inst) error {
		w.S[RegM0] = w.S[RegM0]&^0xf000 | uint32(in.Imm&0xf)<<12
		return nil
	})

	// Scalar memory atomics.
	for _, n := range namesSMEM {
		if !strings.Contains(n, "_atomic_") {
			continue
		}
		buffer := strings.HasPrefix(n, "s_buffer_")
		t := n[strings.Index(n, "atomic_")+len("atomic_"):]
		wide := strings.HasSuffix(t, "_x2")
		t = strings.TrimSuffix(t, "_x2")
		if _, ok := atomicFns()[t]; !ok && t != "cmpswap" {
			continue
		}
		def(n, smemAtomic(t, wide, buffer))
	}

	// LDS-direct global loads: each active lane's data goes to LDS at
	// M0 + the instruction offset + lane * size.
	for _, n := range namesGLOBAL {
		if !strings.HasPrefix(n, "global_load_lds_") {
			continue
		}
		op, ok := parseMemName("global_load_" + strings.TrimPrefix(n, "global_load_lds_"))
		if !ok {
			continue
		}
		def(n, ldsDirect(op, false))
	}
}

func smemAtomic(t string, wide, buffer bool) func(*Wave, *Inst) error {
	size := 4
	if wide {
		size = 8
	}
	return func(w *Wave, in *Inst) error {
		var off uint64
		if in.SImm {
			off = uint64(int64(in.Imm))
			if in.Soffset != 0xffff {
				off += uint64(w.s32(in.Soffset, in))
			}
		} else {
			off = uint64(w.s32(in.Soffset, in))
		}
		base := w.s64(in.Src[0], in)
		if buffer {
			base &= 0xffffffffffff
		}
		b, err := w.mem.Slice(base+off, size, true)
		if err != nil {
			return err
		}
		old := readN(b)
		data := uint64(w.S[in.Dst&127])
		if wide {
			data |= uint64(w.S[(in.Dst+1)&127]) << 32
		}
		var nv uint64
		if t == "cmpswap" {
			step := uint16(1)
			if wide {
				step = 2
			}
			cmp := uint64(w.S[(in.Dst+step)&127])
			if wide {
				cmp |= uint64(w.S[(in.Dst+step+1)&127]) << 32
			}
			nv = old
			if old == cmp {
				nv = data
			}
		} else {
			nv = atomicFns()[t](old, data, wide)
		}
		writeN(b, nv)
		if in.Glc {
			w.S[in.Dst&127] = uint32(old)
			if wide {
				w.S[(in.Dst+1)&127] = uint32(old >> 32)
			}
		}
		w.Lanes++
		return nil
	}
}

// ldsDirect loads from global (or, for MUBUF, buffer) memory into LDS.
func ldsDirect(op memOp, buffer bool) func(*Wave, *Inst) error {
	return func(w *Wave, in *Inst) error {
		exec := w.Exec()
		ldsBase := uint64(w.S[RegM0]&0x3ffff) + uint64(uint32(in.Imm)&0xfff)
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			w.Lanes++
			addr := w.vmemAddr(in, l)
			src, err := w.slice(spaceGlobal, addr, l, op.size, false)
			if err != nil {
				return err
			}
			n := op.size
			if n < 4 {
				n = 4
			}
			dst, err := w.lds(ldsBase+uint64(l*n), n, true)
			if err != nil {
				return fmt.Errorf("lane %d: %w", l, err)
			}
			var tmp [16]byte
			copy(tmp[:], src)
			if op.size < 4 {
				v := uint32(tmp[0])
				switch {
				case op.size == 1 && op.sign:
					v = uint32(int8(tmp[0]))
				case op.size == 2:
					v = uint32(le.Uint16(tmp[:]))
					if op.sign {
						v = uint32(int16(v))
					}
				}
				le.PutUint32(tmp[:], v)
			}
			copy(dst, tmp[:n])
		}
		return nil
	}
}

func registerExtra2() {
	H := func(name string, n int, fn func(a, b, c float32) float32) {
		def(name, v32(kF16, n, func(a, b, c uint32) uint32 { return f2h(fn(h2f(a), h2f(b), h2f(c))) }))
	}
	fma16 := func(a, b, c float32) float32 { return float32(math.FMA(float64(a), float64(b), float64(c))) }
	H("v_exp_f16", 1, func(a, b, c float32) float32 { return float32(math.Exp2(float64(a))) })
	H("v_log_f16", 1, func(a, b, c float32) float32 { return float32(math.Log2(float64(a))) })
	H("v_rsq_f16", 1, func(a, b, c float32) float32 { return float32(1 / math.Sqrt(float64(a))) })
	H("v_fract_f16", 1, func(a, b, c float32) float32 { return float32(fract(float64(a))) })
	H("v_sin_f16", 1, func(a, b, c float32) float32 { return float32(math.Sin(2 * math.Pi * float64(a))) })
	H("v_cos_f16", 1, func(a, b, c float32) float32 { return float32(math.Cos(2 * math.Pi * float64(a))) })
	H("v_frexp_mant_f16", 1, func(a, b, c float32) float32 { return float32(frexpMant(float64(a))) })
	def("v_frexp_exp_i16_f16", v32(kF16, 1, func(a, b, c uint32) uint32 { return uint32(uint16(frexpExp(float64(h2f(a))))) }))
	def("v_ldexp_f16", v32(kF16, 2, func(a, b, c uint32) uint32 {
		return f2h(float32(math.Ldexp(float64(h2f(a)), int(int16(b)))))
	}))
	H("v_min3_f16", 3, func(a, b, c float32) float32 { return minF32(minF32(a, b), c) })
	H("v_max3_f16", 3, func(a, b, c float32) float32 { return maxF32(maxF32(a, b), c) })
	H("v_med3_f16", 3, med3)
	H("v_fma_legacy_f16", 3, fma16)
	H("v_mad_legacy_f16", 3, fma16)
	fixup16 := func(a, b, c float32) float32 {
		if v, special := divFixup(float64(a), float64(b), float64(c)); special {
			return float32(v)
		}
		return c / b // exact enough: f32 has more than 2*11+2 bits
	}
	H("v_div_fixup_f16", 3, fixup16)
	H("v_div_fixup_legacy_f16", 3, fixup16)
	// Accumulating 16-bit forms: src2 is the old destination.
	acc := func(name string, k kind, fn func(a, b, c uint32) uint32) {
		op := v32(k, 3, fn)
		def(name, func(w *Wave, in *Inst) error {
			in2 := *in
			in2.Src[2] = in.Dst
			return op(w, &in2)
		})
	}
	acc("v_mac_f16", kF16, func(a, b, c uint32) uint32 { return f2h(fma16(h2f(a), h2f(b), h2f(c))) })
	def("v_madmk_f16", func(w *Wave, in *Inst) error {
		in2 := *in
		in2.Src[2], in2.Src[1] = in.Src[1], opLiteral
		return v32(kF16, 3, func(a, b, c uint32) uint32 { return f2h(fma16(h2f(a), h2f(b), h2f(c))) })(w, &in2)
	})
	def("v_madak_f16", func(w *Wave, in *Inst) error {
		in2 := *in
		in2.Src[2] = opLiteral
		return v32(kF16, 3, func(a, b, c uint32) uint32 { return f2h(fma16(h2f(a), h2f(b), h2f(c))) })(w, &in2)
	})
	def("v_pk_fmac_f16", func(w *Wave, in *Inst) error {
		in2 := *in
		in2.Src[2] = in.Dst
		if in.Fmt != FmtVOP3P {
			in2.OpselHi = 7
		}
		return pk16(kPkF16, 3, hf(fma16))(w, &in2)
	})
	acc("v_dot2c_f32_bf16", kB32, func(a, b, c uint32) uint32 {
		s := float64(fp.BF16ToF32(uint16(a)))*float64(fp.BF16ToF32(uint16(b))) +
			float64(fp.BF16ToF32(uint16(a>>16)))*float64(fp.BF16ToF32(uint16(b>>16))) + float64(f32(c))
		return u32(float32(s))
	})
	acc("v_dot2c_i32_i16", kB32, func(a, b, c uint32) uint32 {
		return uint32(int32(int16(a))*int32(int16(b)) + int32(int16(a>>16))*int32(int16(b>>16)) + int32(c))
	})
	dot8 := func(signed bool) func(a, b, c uint32) uint32 {
		return func(a, b, c uint32) uint32 {
			s := int32(c)
			for i := 0; i < 8; i++ {
				x, y := int32(a>>(4*i)&15), int32(b>>(4*i)&15)
				if signed {
					x, y = x<<28>>28, y<<28>>28
				}
				s += x * y
			}
			return uint32(s)
		}
	}
	def("v_dot8_i32_i4", v32(kB32, 3, dot8(true)))
	def("v_dot8_u32_u4", v32(kB32, 3, dot8(false)))
	acc("v_dot8c_i32_i4", kB32, dot8(true))

	// 16-bit integer three-operand forms.
	U16 := func(name string, fn func(a, b, c uint32) uint32) { def(name, v32(kB16, 3, fn)) }
	s16 := func(x uint32) int32 { return int32(int16(x)) }
	U16("v_min3_i16", func(a, b, c uint32) uint32 { return uint32(min(s16(a), s16(b), s16(c))) })
	U16("v_max3_i16", func(a, b, c uint32) uint32 { return uint32(max(s16(a), s16(b), s16(c))) })
	U16("v_med3_i16", func(a, b, c uint32) uint32 {
		x, y, z := s16(a), s16(b), s16(c)
		return uint32(max(min(x, y), min(max(x, y), z)))
	})
	U16("v_min3_u16", func(a, b, c uint32) uint32 { return min(a&0xffff, b&0xffff, c&0xffff) })
	U16("v_max3_u16", func(a, b, c uint32) uint32 { return max(a&0xffff, b&0xffff, c&0xffff) })
	U16("v_med3_u16", func(a, b, c uint32) uint32 {
		x, y, z := a&0xffff, b&0xffff, c&0xffff
		return max(min(x, y), min(max(x, y), z))
	})
	U16("v_mad_i16", func(a, b, c uint32) uint32 { return uint32(s16(a)*s16(b) + s16(c)) })
	U16("v_mad_legacy_u16", func(a, b, c uint32) uint32 { return a*b + c })
	U16("v_mad_legacy_i16", func(a, b, c uint32) uint32 { return uint32(s16(a)*s16(b) + s16(c)) })
	def("v_add_i16", v32(kB16, 2, func(a, b, c uint32) uint32 { return a + b }))
	def("v_sub_i16", v32(kB16, 2, func(a, b, c uint32) uint32 { return a - b }))
	def("v_mad_u32_u16", v32x(kB16, 3, false, func(a, b, c uint32) uint32 { return (a&0xffff)*(b&0xffff) + c }))
	def("v_mad_i32_i16", v32x(kB16, 3, false, func(a, b, c uint32) uint32 { return uint32(s16(a)*s16(b)) + c }))

	// Sums of absolute differences and byte interpolation.
	absd := func(x, y uint32) uint32 {
		if x > y {
			return x - y
		}
		return y - x
	}
	def("v_sad_u8", v32(kB32, 3, func(a, b, c uint32) uint32 {
		for i := 0; i < 4; i++ {
			c += absd(a>>(8*i)&0xff, b>>(8*i)&0xff)
		}
		return c
	}))
	def("v_sad_hi_u8", v32(kB32, 3, func(a, b, c uint32) uint32 {
		var s uint32
		for i := 0; i < 4; i++ {
			s += absd(a>>(8*i)&0xff, b>>(8*i)&0xff)
		}
		return s<<16 + c
	}))
	def("v_sad_u16", v32(kB32, 3, func(a, b, c uint32) uint32 {
		return absd(a&0xffff, b&0xffff) + absd(a>>16, b>>16) + c
	}))
	def("v_msad_u8", v32(kB32, 3, func(a, b, c uint32) uint32 {
		for i := 0; i < 4; i++ {
			if y := b >> (8 * i) & 0xff; y != 0 {
				c += absd(a>>(8*i)&0xff, y)
			}
		}
		return c
	}))
	def("v_lerp_u8", v32(kB32, 3, func(a, b, c uint32) uint32 {
		var r uint32
		for i := 0; i < 4; i++ {
			x, y := a>>(8*i)&0xff, b>>(8*i)&0xff
			r |= ((x + y + c>>(8*i)&1) >> 1) << (8 * i)
		}
		return r
	}))

	// Normalized conversions and saturating packs.
	norm := func(f float64, signed bool) uint32 {
		if f != f {
			return 0
		}
		if signed {
			return uint32(uint16(int16(math.RoundToEven(math.Max(-1, math.Min(1, f)) * 32767))))
		}
		return uint32(uint16(math.RoundToEven(math.Max(0, math.Min(1, f)) * 65535)))
	}
	def("v_cvt_norm_i16_f16", v32(kF16, 1, func(a, b, c uint32) uint32 { return norm(float64(h2f(a)), true) }))
	def("v_cvt_norm_u16_f16", v32(kF16, 1, func(a, b, c uint32) uint32 { return norm(float64(h2f(a)), false) }))
	def("v_cvt_pknorm_i16_f32", v32(kF32, 2, func(a, b, c uint32) uint32 {
		return norm(float64(f32(a)), true) | norm(float64(f32(b)), true)<<16
	}))
	def("v_cvt_pknorm_u16_f32", v32(kF32, 2, func(a, b, c uint32) uint32 {
		return norm(float64(f32(a)), false) | norm(float64(f32(b)), false)<<16
	}))
	def("v_cvt_pknorm_i16_f16", v32x(kF16, 2, false, func(a, b, c uint32) uint32 {
		return norm(float64(h2f(a)), true) | norm(float64(h2f(b)), true)<<16
	}))
	def("v_cvt_pknorm_u16_f16", v32x(kF16, 2, false, func(a, b, c uint32) uint32 {
		return norm(float64(h2f(a)), false) | norm(float64(h2f(b)), false)<<16
	}))
	def("v_sat_pk_u8_i16", v32(kB32, 1, func(a, b, c uint32) uint32 {
		sat := func(x int32) uint32 { return uint32(max(0, min(255, x))) }
		return sat(int32(int16(a))) | sat(int32(int16(a>>16)))<<8
	}))
	// gfx950: shift two i32 right and pack them as saturated bytes.
	ashrPk := func(signed bool) func(a, b, c uint32) uint32 {
		return func(a, b, c uint32) uint32 {
			sat := func(x int32) uint32 {
				if signed {
					return uint32(uint8(int8(max(-128, min(127, x)))))
				}
				return uint32(max(0, min(255, x)))
			}
			sh := c & 31
			return (sat(int32(a)>>sh) | sat(int32(b)>>sh)<<8) & 0xffff
		}
	}
	def("v_ashr_pk_i8_i32", v32(kB32, 3, ashrPk(true)))
	def("v_ashr_pk_u8_i32", v32(kB32, 3, ashrPk(false)))
	// gfx950 IEEE-754-2019 minimum/maximum: NaN in, NaN out; -0 < +0.
	minimum := func(a, b float32) float32 {
		switch {
		case a != a || b != b:
			return float32(math.NaN())
		case a < b || (a == b && math.Signbit(float64(a))):
			return a
		}
		return b
	}
	maximum := func(a, b float32) float32 {
		switch {
		case a != a || b != b:
			return float32(math.NaN())
		case a > b || (a == b && !math.Signbit(float64(a))):
			return a
		}
		return b
	}
	def("v_minimum3_f32", v32(kF32, 3, func(a, b, c uint32) uint32 { return u32(minimum(minimum(f32(a), f32(b)), f32(c))) }))
	def("v_maximum3_f32", v32(kF32, 3, func(a, b, c uint32) uint32 { return u32(maximum(maximum(f32(a), f32(b)), f32(c))) }))
	def("v_pk_minimum3_f16", pk16(kPkF16, 3, hf(func(a, b, c float32) float32 { return minimum(minimum(a, b), c) })))
	def("v_pk_maximum3_f16", pk16(kPkF16, 3, hf(func(a, b, c float32) float32 { return maximum(maximum(a, b), c) })))

	// Scalar leftovers.
	def("s_flbit_i32", func(w *Wave, in *Inst) error {
		a := w.s32(in.Src[0], in)
		if int32(a) < 0 {
			a = ^a
		}
		r := uint32(0xffffffff)
		if a != 0 {
			r = uint32(bits.LeadingZeros32(a))
		}
		w.setS32(in.Dst, r)
		return nil
	})
	def("s_flbit_i32_i64", func(w *Wave, in *Inst) error {
		a := w.s64(in.Src[0], in)
		if int64(a) < 0 {
			a = ^a
		}
		r := uint32(0xffffffff)
		if a != 0 {
			r = uint32(bits.LeadingZeros64(a))
		}
		w.setS32(in.Dst, r)
		return nil
	})
	def("s_wqm_b32", func(w *Wave, in *Inst) error {
		a := w.s32(in.Src[0], in)
		var r uint32
		for q := 0; q < 8; q++ {
			if a>>(4*q)&0xf != 0 {
				r |= 0xf << (4 * q)
			}
		}
		w.setS32(in.Dst, r)
		w.SCC = r != 0
		return nil
	})
	quad := func(a uint64, n int) uint64 {
		var r uint64
		for q := 0; q < n/4; q++ {
			if a>>(4*q)&0xf != 0 {
				r |= 1 << q
			}
		}
		return r
	}
	def("s_quadmask_b32", func(w *Wave, in *Inst) error {
		r := quad(uint64(w.s32(in.Src[0], in)), 32)
		w.setS32(in.Dst, uint32(r))
		w.SCC = r != 0
		return nil
	})
	def("s_quadmask_b64", func(w *Wave, in *Inst) error {
		r := quad(w.s64(in.Src[0], in), 64)
		w.setS64(in.Dst, r)
		w.SCC = r != 0
		return nil
	})
	def("s_movrels_b64", func(w *Wave, in *Inst) error {
		w.setS64(in.Dst, w.s64((in.Src[0]+uint16(w.S[RegM0]))&127, in))
		return nil
	})
	def("s_movreld_b64", func(w *Wave, in *Inst) error {
		w.setS64((in.Dst+uint16(w.S[RegM0]))&127, w.s64(in.Src[0], in))
		return nil
	})
	def("s_bitreplicate_b64_b32", func(w *Wave, in *Inst) error {
		a := w.s32(in.Src[0], in)
		var r uint64
		for i := 0; i < 32; i++ {
			r |= uint64(a>>i&1) * 3 << (2 * i)
		}
		w.setS64(in.Dst, r)
		return nil
	})
	// No debugger is attached: the debug-status branches are never taken.
	for _, n := range []string{"s_cbranch_cdbgsys", "s_cbranch_cdbguser", "s_cbranch_cdbgsys_or_user", "s_cbranch_cdbgsys_and_user"} {
		def(n, func(w *Wave, in *Inst) error { return nil })
	}
	def("s_endpgm_ordered_ps_done", func(w *Wave, in *Inst) error { w.Done = true; return nil })
	for _, n := range []string{"s_wakeup", "s_dcache_discard", "s_dcache_discard_x2", "s_atc_probe", "s_atc_probe_buffer", "v_clrexcp"} {
		def(n, func(w *Wave, in *Inst) error { return nil })
	}
}
