package wave

import (
	"fmt"
	"math"
	"strings"

	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
)

func init() {
	atomicFns["pk_add_f16"] = func(o, v uint64, wd bool) uint64 {
		lo := fp.F32ToF16(fp.F16ToF32(uint16(o)) + fp.F16ToF32(uint16(v)))
		hi := fp.F32ToF16(fp.F16ToF32(uint16(o>>16)) + fp.F16ToF32(uint16(v>>16)))
		return uint64(lo) | uint64(hi)<<16
	}
	atomicFns["pk_add_bf16"] = func(o, v uint64, wd bool) uint64 {
		lo := fp.F32ToBF16(fp.BF16ToF32(uint16(o)) + fp.BF16ToF32(uint16(v)))
		hi := fp.F32ToBF16(fp.BF16ToF32(uint16(o>>16)) + fp.BF16ToF32(uint16(v>>16)))
		return uint64(lo) | uint64(hi)<<16
	}
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

	// s_setvskip: vector-skip mode is not modelled; enabling it fails.
	def("s_setvskip", func(w *Wave, in *Inst) error {
		if w.s32(in.Src[0], in)>>(w.s32(in.Src[1], in)&31)&1 != 0 {
			return fmt.Errorf("VSKIP mode is not supported")
		}
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
		if _, ok := atomicFns[t]; !ok && t != "cmpswap" {
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
			nv = atomicFns[t](old, data, wide)
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
