package wave

import (
	"fmt"
	"math/bits"
)

// mode returns the MODE hardware register: round to nearest even, the
// denormal fields from the flush flags, DX10 clamp and IEEE set.
func (w *Wave) mode() uint32 {
	m := uint32(1<<8 | 1<<9)
	if !w.FlushF32 {
		m |= 3 << 4
	}
	if !w.FlushF64 {
		m |= 3 << 6
	}
	return m
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

func registerSalu() {
	// SOP2, 32-bit: fn returns result and SCC (nil scc: unchanged).
	type s2 func(w *Wave, a, b uint32) (uint32, int) // scc: -1 unchanged, 0/1
	sop2 := func(name string, f s2) {
		def(name, func(w *Wave, in *Inst) error {
			r, scc := f(w, w.s32(in.Src[0], in), w.s32(in.Src[1], in))
			w.setS32(in.Dst, r)
			if scc >= 0 {
				w.SCC = scc != 0
			}
			w.Lanes++
			return nil
		})
	}
	type s2w func(w *Wave, a, b uint64) (uint64, int)
	sop2w := func(name string, f s2w, wideB bool) {
		def(name, func(w *Wave, in *Inst) error {
			var b uint64
			if wideB {
				b = w.s64(in.Src[1], in)
			} else {
				b = uint64(w.s32(in.Src[1], in))
			}
			r, scc := f(w, w.s64(in.Src[0], in), b)
			w.setS64(in.Dst, r)
			if scc >= 0 {
				w.SCC = scc != 0
			}
			w.Lanes++
			return nil
		})
	}
	nz := func(r uint32) (uint32, int) { return r, int(b2u(r != 0)) }
	nz64 := func(r uint64) (uint64, int) { return r, int(b2u(r != 0)) }
	sop2("s_add_u32", func(w *Wave, a, b uint32) (uint32, int) {
		r, c := bits.Add32(a, b, 0)
		return r, int(c)
	})
	sop2("s_sub_u32", func(w *Wave, a, b uint32) (uint32, int) {
		r, c := bits.Sub32(a, b, 0)
		return r, int(c)
	})
	sop2("s_addc_u32", func(w *Wave, a, b uint32) (uint32, int) {
		r, c := bits.Add32(a, b, b2u(w.SCC))
		return r, int(c)
	})
	sop2("s_subb_u32", func(w *Wave, a, b uint32) (uint32, int) {
		r, c := bits.Sub32(a, b, b2u(w.SCC))
		return r, int(c)
	})
	sop2("s_add_i32", func(w *Wave, a, b uint32) (uint32, int) {
		r := a + b
		return r, int(b2u((a>>31 == b>>31) && (r>>31 != a>>31)))
	})
	sop2("s_sub_i32", func(w *Wave, a, b uint32) (uint32, int) {
		r := a - b
		return r, int(b2u((a>>31 != b>>31) && (r>>31 != a>>31)))
	})
	sop2("s_min_i32", func(w *Wave, a, b uint32) (uint32, int) {
		if int32(a) < int32(b) {
			return a, 1
		}
		return b, 0
	})
	sop2("s_min_u32", func(w *Wave, a, b uint32) (uint32, int) {
		if a < b {
			return a, 1
		}
		return b, 0
	})
	sop2("s_max_i32", func(w *Wave, a, b uint32) (uint32, int) {
		if int32(a) > int32(b) {
			return a, 1
		}
		return b, 0
	})
	sop2("s_max_u32", func(w *Wave, a, b uint32) (uint32, int) {
		if a > b {
			return a, 1
		}
		return b, 0
	})
	sop2("s_cselect_b32", func(w *Wave, a, b uint32) (uint32, int) {
		if w.SCC {
			return a, -1
		}
		return b, -1
	})
	sop2w("s_cselect_b64", func(w *Wave, a, b uint64) (uint64, int) {
		if w.SCC {
			return a, -1
		}
		return b, -1
	}, true)
	sop2("s_and_b32", func(w *Wave, a, b uint32) (uint32, int) { return nz(a & b) })
	sop2("s_or_b32", func(w *Wave, a, b uint32) (uint32, int) { return nz(a | b) })
	sop2("s_xor_b32", func(w *Wave, a, b uint32) (uint32, int) { return nz(a ^ b) })
	sop2("s_andn2_b32", func(w *Wave, a, b uint32) (uint32, int) { return nz(a &^ b) })
	sop2("s_orn2_b32", func(w *Wave, a, b uint32) (uint32, int) { return nz(a | ^b) })
	sop2("s_nand_b32", func(w *Wave, a, b uint32) (uint32, int) { return nz(^(a & b)) })
	sop2("s_nor_b32", func(w *Wave, a, b uint32) (uint32, int) { return nz(^(a | b)) })
	sop2("s_xnor_b32", func(w *Wave, a, b uint32) (uint32, int) { return nz(^(a ^ b)) })
	sop2w("s_and_b64", func(w *Wave, a, b uint64) (uint64, int) { return nz64(a & b) }, true)
	sop2w("s_or_b64", func(w *Wave, a, b uint64) (uint64, int) { return nz64(a | b) }, true)
	sop2w("s_xor_b64", func(w *Wave, a, b uint64) (uint64, int) { return nz64(a ^ b) }, true)
	sop2w("s_andn2_b64", func(w *Wave, a, b uint64) (uint64, int) { return nz64(a &^ b) }, true)
	sop2w("s_orn2_b64", func(w *Wave, a, b uint64) (uint64, int) { return nz64(a | ^b) }, true)
	sop2w("s_nand_b64", func(w *Wave, a, b uint64) (uint64, int) { return nz64(^(a & b)) }, true)
	sop2w("s_nor_b64", func(w *Wave, a, b uint64) (uint64, int) { return nz64(^(a | b)) }, true)
	sop2w("s_xnor_b64", func(w *Wave, a, b uint64) (uint64, int) { return nz64(^(a ^ b)) }, true)
	sop2("s_lshl_b32", func(w *Wave, a, b uint32) (uint32, int) { return nz(a << (b & 31)) })
	sop2("s_lshr_b32", func(w *Wave, a, b uint32) (uint32, int) { return nz(a >> (b & 31)) })
	sop2("s_ashr_i32", func(w *Wave, a, b uint32) (uint32, int) { return nz(uint32(int32(a) >> (b & 31))) })
	sop2w("s_lshl_b64", func(w *Wave, a, b uint64) (uint64, int) { return nz64(a << (b & 63)) }, false)
	sop2w("s_lshr_b64", func(w *Wave, a, b uint64) (uint64, int) { return nz64(a >> (b & 63)) }, false)
	sop2w("s_ashr_i64", func(w *Wave, a, b uint64) (uint64, int) { return nz64(uint64(int64(a) >> (b & 63))) }, false)
	sop2("s_bfm_b32", func(w *Wave, a, b uint32) (uint32, int) { return (1<<(a&31) - 1) << (b & 31), -1 })
	def("s_bfm_b64", func(w *Wave, in *Inst) error {
		a, b := w.s32(in.Src[0], in), w.s32(in.Src[1], in)
		w.setS64(in.Dst, (uint64(1)<<(a&63)-1)<<(b&63))
		return nil
	})
	sop2("s_mul_i32", func(w *Wave, a, b uint32) (uint32, int) { return a * b, -1 })
	sop2("s_mul_hi_u32", func(w *Wave, a, b uint32) (uint32, int) { return uint32(uint64(a) * uint64(b) >> 32), -1 })
	sop2("s_mul_hi_i32", func(w *Wave, a, b uint32) (uint32, int) {
		return uint32(uint64(int64(int32(a))*int64(int32(b))) >> 32), -1
	})
	sop2("s_bfe_u32", func(w *Wave, a, b uint32) (uint32, int) {
		off, wd := b&31, b>>16&0x7f
		if wd == 0 {
			return nz(0)
		}
		r := a >> off
		if wd < 32 {
			r &= 1<<wd - 1
		}
		return nz(r)
	})
	sop2("s_bfe_i32", func(w *Wave, a, b uint32) (uint32, int) {
		off, wd := b&31, b>>16&0x7f
		if wd == 0 {
			return nz(0)
		}
		if wd > 32 {
			wd = 32
		}
		r := int32(a<<(32-off-min(wd, 32-off))) >> (32 - min(wd, 32-off))
		return nz(uint32(r))
	})
	sop2w("s_bfe_u64", func(w *Wave, a, b uint64) (uint64, int) {
		off, wd := b&63, b>>16&0x7f
		if wd == 0 {
			return nz64(0)
		}
		r := a >> off
		if wd < 64 {
			r &= 1<<wd - 1
		}
		return nz64(r)
	}, false)
	sop2w("s_bfe_i64", func(w *Wave, a, b uint64) (uint64, int) {
		off, wd := b&63, b>>16&0x7f
		if wd == 0 {
			return nz64(0)
		}
		wd = min(wd, 64-off)
		return nz64(uint64(int64(a<<(64-off-wd)) >> (64 - wd)))
	}, false)
	sop2("s_absdiff_i32", func(w *Wave, a, b uint32) (uint32, int) {
		d := int32(a) - int32(b)
		if d < 0 {
			d = -d
		}
		return nz(uint32(d))
	})
	for n := uint32(1); n <= 4; n++ {
		n := n
		sop2(fmt.Sprintf("s_lshl%d_add_u32", n), func(w *Wave, a, b uint32) (uint32, int) {
			r, c := bits.Add32(a<<n, b, 0)
			return r, int(c | b2u(a>>(32-n) != 0))
		})
	}
	sop2("s_pack_ll_b32_b16", func(w *Wave, a, b uint32) (uint32, int) { return a&0xffff | b<<16, -1 })
	sop2("s_pack_lh_b32_b16", func(w *Wave, a, b uint32) (uint32, int) { return a&0xffff | b&0xffff0000, -1 })
	sop2("s_pack_hh_b32_b16", func(w *Wave, a, b uint32) (uint32, int) { return a>>16 | b&0xffff0000, -1 })

	// SOPK.
	sopk := func(name string, f func(w *Wave, d uint32, imm int32) (uint32, int)) {
		def(name, func(w *Wave, in *Inst) error {
			r, scc := f(w, w.s32(in.Dst, in), in.Imm)
			if scc != -2 {
				w.setS32(in.Dst, r)
			}
			if scc >= 0 {
				w.SCC = scc != 0
			}
			w.Lanes++
			return nil
		})
	}
	sopk("s_movk_i32", func(w *Wave, d uint32, imm int32) (uint32, int) { return uint32(imm), -1 })
	sopk("s_cmovk_i32", func(w *Wave, d uint32, imm int32) (uint32, int) {
		if w.SCC {
			return uint32(imm), -1
		}
		return d, -1
	})
	sopk("s_addk_i32", func(w *Wave, d uint32, imm int32) (uint32, int) {
		r := d + uint32(imm)
		return r, int(b2u((d>>31 == uint32(imm)>>31) && (r>>31 != d>>31)))
	})
	sopk("s_mulk_i32", func(w *Wave, d uint32, imm int32) (uint32, int) { return d * uint32(imm), -1 })
	cmpk := func(name string, f func(a, b uint32) bool, signed bool) {
		sopk(name, func(w *Wave, d uint32, imm int32) (uint32, int) {
			b := uint32(imm)
			if !signed {
				b &= 0xffff
			}
			w.SCC = f(d, b)
			return 0, -2
		})
	}
	cmps := []struct {
		n string
		s func(a, b int32) bool
		u func(a, b uint32) bool
	}{
		{"eq", func(a, b int32) bool { return a == b }, func(a, b uint32) bool { return a == b }},
		{"lg", func(a, b int32) bool { return a != b }, func(a, b uint32) bool { return a != b }},
		{"gt", func(a, b int32) bool { return a > b }, func(a, b uint32) bool { return a > b }},
		{"ge", func(a, b int32) bool { return a >= b }, func(a, b uint32) bool { return a >= b }},
		{"lt", func(a, b int32) bool { return a < b }, func(a, b uint32) bool { return a < b }},
		{"le", func(a, b int32) bool { return a <= b }, func(a, b uint32) bool { return a <= b }},
	}
	for _, c := range cmps {
		c := c
		cmpk("s_cmpk_"+c.n+"_i32", func(a, b uint32) bool { return c.s(int32(a), int32(b)) }, true)
		cmpk("s_cmpk_"+c.n+"_u32", c.u, false)
		def("s_cmp_"+c.n+"_i32", func(w *Wave, in *Inst) error {
			w.SCC = c.s(int32(w.s32(in.Src[0], in)), int32(w.s32(in.Src[1], in)))
			w.Lanes++
			return nil
		})
		def("s_cmp_"+c.n+"_u32", func(w *Wave, in *Inst) error {
			w.SCC = c.u(w.s32(in.Src[0], in), w.s32(in.Src[1], in))
			w.Lanes++
			return nil
		})
	}
	def("s_cmp_eq_u64", func(w *Wave, in *Inst) error { w.SCC = w.s64(in.Src[0], in) == w.s64(in.Src[1], in); return nil })
	def("s_cmp_lg_u64", func(w *Wave, in *Inst) error { w.SCC = w.s64(in.Src[0], in) != w.s64(in.Src[1], in); return nil })
	def("s_bitcmp0_b32", func(w *Wave, in *Inst) error {
		w.SCC = w.s32(in.Src[0], in)>>(w.s32(in.Src[1], in)&31)&1 == 0
		return nil
	})
	def("s_bitcmp1_b32", func(w *Wave, in *Inst) error {
		w.SCC = w.s32(in.Src[0], in)>>(w.s32(in.Src[1], in)&31)&1 == 1
		return nil
	})
	def("s_bitcmp0_b64", func(w *Wave, in *Inst) error {
		w.SCC = w.s64(in.Src[0], in)>>(w.s32(in.Src[1], in)&63)&1 == 0
		return nil
	})
	def("s_bitcmp1_b64", func(w *Wave, in *Inst) error {
		w.SCC = w.s64(in.Src[0], in)>>(w.s32(in.Src[1], in)&63)&1 == 1
		return nil
	})
	// Hardware registers: MODE (1) reflects the denormal flags (round to
	// nearest, DX10 clamp and IEEE set); HW_ID (4) is Wave.HWID; the
	// others read as zero. Writes to MODE's denormal bits take effect.
	hwreg := func(imm int32) (id, off, size uint32) {
		return uint32(imm) & 0x3f, uint32(imm) >> 6 & 0x1f, uint32(imm)>>11&0x1f + 1
	}
	def("s_getreg_b32", func(w *Wave, in *Inst) error {
		id, off, size := hwreg(in.Imm)
		var v uint32
		switch id {
		case 1:
			v = w.mode()
		case 4:
			v = w.HWID
		}
		w.setS32(in.Dst, v>>off&(uint32(1)<<size-1))
		return nil
	})
	setreg := func(w *Wave, imm int32, data uint32) {
		id, off, size := hwreg(imm)
		if id != 1 {
			return
		}
		mask := (uint32(1)<<size - 1) << off
		m := w.mode()&^mask | data<<off&mask
		w.FlushF32 = m>>4&3 != 3
		w.FlushF64 = m>>6&3 != 3
	}
	def("s_setreg_b32", func(w *Wave, in *Inst) error { setreg(w, in.Imm, w.s32(in.Dst, in)); return nil })
	def("s_setreg_imm32_b32", func(w *Wave, in *Inst) error { setreg(w, in.Imm, in.Lit); return nil })
	def("s_call_b64", func(w *Wave, in *Inst) error {
		w.setS64(in.Dst, w.PC)
		w.PC = uint64(int64(w.PC) + int64(in.Imm)*4)
		return nil
	})

	// SOP1.
	sop1 := func(name string, f func(w *Wave, a uint32) (uint32, int)) {
		def(name, func(w *Wave, in *Inst) error {
			r, scc := f(w, w.s32(in.Src[0], in))
			w.setS32(in.Dst, r)
			if scc >= 0 {
				w.SCC = scc != 0
			}
			w.Lanes++
			return nil
		})
	}
	sop1w := func(name string, f func(w *Wave, a uint64) (uint64, int)) {
		def(name, func(w *Wave, in *Inst) error {
			r, scc := f(w, w.s64(in.Src[0], in))
			w.setS64(in.Dst, r)
			if scc >= 0 {
				w.SCC = scc != 0
			}
			w.Lanes++
			return nil
		})
	}
	sop1("s_mov_b32", func(w *Wave, a uint32) (uint32, int) { return a, -1 })
	sop1w("s_mov_b64", func(w *Wave, a uint64) (uint64, int) { return a, -1 })
	def("s_cmov_b32", func(w *Wave, in *Inst) error {
		if w.SCC {
			w.setS32(in.Dst, w.s32(in.Src[0], in))
		}
		return nil
	})
	def("s_cmov_b64", func(w *Wave, in *Inst) error {
		if w.SCC {
			w.setS64(in.Dst, w.s64(in.Src[0], in))
		}
		return nil
	})
	sop1("s_not_b32", func(w *Wave, a uint32) (uint32, int) { return nz(^a) })
	sop1w("s_not_b64", func(w *Wave, a uint64) (uint64, int) { return nz64(^a) })
	sop1("s_brev_b32", func(w *Wave, a uint32) (uint32, int) { return bits.Reverse32(a), -1 })
	sop1w("s_brev_b64", func(w *Wave, a uint64) (uint64, int) { return bits.Reverse64(a), -1 })
	sop1("s_bcnt1_i32_b32", func(w *Wave, a uint32) (uint32, int) { return nz(uint32(bits.OnesCount32(a))) })
	sop1("s_bcnt0_i32_b32", func(w *Wave, a uint32) (uint32, int) { return nz(uint32(32 - bits.OnesCount32(a))) })
	def("s_bcnt1_i32_b64", func(w *Wave, in *Inst) error {
		r := uint32(bits.OnesCount64(w.s64(in.Src[0], in)))
		w.setS32(in.Dst, r)
		w.SCC = r != 0
		return nil
	})
	def("s_bcnt0_i32_b64", func(w *Wave, in *Inst) error {
		r := uint32(64 - bits.OnesCount64(w.s64(in.Src[0], in)))
		w.setS32(in.Dst, r)
		w.SCC = r != 0
		return nil
	})
	ff1 := func(v uint64, n int) uint32 {
		if v == 0 {
			return 0xffffffff
		}
		return uint32(bits.TrailingZeros64(v))
	}
	sop1("s_ff1_i32_b32", func(w *Wave, a uint32) (uint32, int) { return ff1(uint64(a), 32), -1 })
	sop1("s_ff0_i32_b32", func(w *Wave, a uint32) (uint32, int) { return ff1(uint64(^a), 32), -1 })
	def("s_ff1_i32_b64", func(w *Wave, in *Inst) error { w.setS32(in.Dst, ff1(w.s64(in.Src[0], in), 64)); return nil })
	def("s_ff0_i32_b64", func(w *Wave, in *Inst) error { w.setS32(in.Dst, ff1(^w.s64(in.Src[0], in), 64)); return nil })
	sop1("s_flbit_i32_b32", func(w *Wave, a uint32) (uint32, int) {
		if a == 0 {
			return 0xffffffff, -1
		}
		return uint32(bits.LeadingZeros32(a)), -1
	})
	def("s_flbit_i32_b64", func(w *Wave, in *Inst) error {
		a := w.s64(in.Src[0], in)
		r := uint32(0xffffffff)
		if a != 0 {
			r = uint32(bits.LeadingZeros64(a))
		}
		w.setS32(in.Dst, r)
		return nil
	})
	sop1("s_sext_i32_i8", func(w *Wave, a uint32) (uint32, int) { return uint32(int8(a)), -1 })
	sop1("s_sext_i32_i16", func(w *Wave, a uint32) (uint32, int) { return uint32(int16(a)), -1 })
	sop1("s_abs_i32", func(w *Wave, a uint32) (uint32, int) {
		if int32(a) < 0 {
			a = -a
		}
		return nz(a)
	})
	def("s_bitset0_b32", func(w *Wave, in *Inst) error {
		w.setS32(in.Dst, w.s32(in.Dst, in)&^(1<<(w.s32(in.Src[0], in)&31)))
		return nil
	})
	def("s_bitset1_b32", func(w *Wave, in *Inst) error {
		w.setS32(in.Dst, w.s32(in.Dst, in)|1<<(w.s32(in.Src[0], in)&31))
		return nil
	})
	def("s_bitset0_b64", func(w *Wave, in *Inst) error {
		w.setS64(in.Dst, w.s64(in.Dst, in)&^(1<<(w.s32(in.Src[0], in)&63)))
		return nil
	})
	def("s_bitset1_b64", func(w *Wave, in *Inst) error {
		w.setS64(in.Dst, w.s64(in.Dst, in)|1<<(w.s32(in.Src[0], in)&63))
		return nil
	})
	def("s_getpc_b64", func(w *Wave, in *Inst) error { w.setS64(in.Dst, w.PC); return nil })
	def("s_setpc_b64", func(w *Wave, in *Inst) error { w.PC = w.s64(in.Src[0], in); return nil })
	def("s_swappc_b64", func(w *Wave, in *Inst) error {
		t := w.s64(in.Src[0], in)
		w.setS64(in.Dst, w.PC)
		w.PC = t
		return nil
	})
	def("s_wqm_b64", func(w *Wave, in *Inst) error {
		a := w.s64(in.Src[0], in)
		var r uint64
		for q := 0; q < 16; q++ {
			if a>>(4*q)&0xf != 0 {
				r |= 0xf << (4 * q)
			}
		}
		w.setS64(in.Dst, r)
		w.SCC = r != 0
		return nil
	})
	def("s_movrels_b32", func(w *Wave, in *Inst) error {
		w.setS32(in.Dst, w.s32((in.Src[0]+uint16(w.S[RegM0]))&127, in))
		return nil
	})
	def("s_movreld_b32", func(w *Wave, in *Inst) error {
		w.setS32((in.Dst+uint16(w.S[RegM0]))&127, w.s32(in.Src[0], in))
		return nil
	})
	saveexec := func(name string, f func(s, e uint64) uint64, fromNew bool) {
		def(name, func(w *Wave, in *Inst) error {
			old := w.Exec()
			s := w.s64(in.Src[0], in)
			n := f(s, old)
			w.setS64(in.Dst, old)
			w.SetExec(n)
			w.SCC = n != 0
			w.Lanes++
			return nil
		})
	}
	saveexec("s_and_saveexec_b64", func(s, e uint64) uint64 { return s & e }, false)
	saveexec("s_or_saveexec_b64", func(s, e uint64) uint64 { return s | e }, false)
	saveexec("s_xor_saveexec_b64", func(s, e uint64) uint64 { return s ^ e }, false)
	saveexec("s_andn2_saveexec_b64", func(s, e uint64) uint64 { return s &^ e }, false)
	saveexec("s_orn2_saveexec_b64", func(s, e uint64) uint64 { return s | ^e }, false)
	saveexec("s_nand_saveexec_b64", func(s, e uint64) uint64 { return ^(s & e) }, false)
	saveexec("s_nor_saveexec_b64", func(s, e uint64) uint64 { return ^(s | e) }, false)
	saveexec("s_xnor_saveexec_b64", func(s, e uint64) uint64 { return ^(s ^ e) }, false)
	saveexec("s_andn1_saveexec_b64", func(s, e uint64) uint64 { return ^s & e }, false)
	saveexec("s_orn1_saveexec_b64", func(s, e uint64) uint64 { return ^s | e }, false)
	def("s_andn1_wrexec_b64", func(w *Wave, in *Inst) error {
		n := ^w.s64(in.Src[0], in) & w.Exec()
		w.SetExec(n)
		w.setS64(in.Dst, n)
		w.SCC = n != 0
		return nil
	})
	def("s_andn2_wrexec_b64", func(w *Wave, in *Inst) error {
		n := w.s64(in.Src[0], in) &^ w.Exec()
		w.SetExec(n)
		w.setS64(in.Dst, n)
		w.SCC = n != 0
		return nil
	})

	// SOPP.
	nop := func(w *Wave, in *Inst) error { return nil }
	for _, n := range []string{"s_nop", "s_waitcnt", "s_sleep", "s_setprio", "s_icache_inv", "s_incperflevel",
		"s_decperflevel", "s_sethalt", "s_setkill", "s_sendmsghalt", "s_sendmsg", "s_endpgm_saved"} {
		def(n, nop)
	}
	def("s_ttracedata", func(w *Wave, in *Inst) error { w.ttrace(w.S[RegM0], false); return nil })
	def("s_endpgm", func(w *Wave, in *Inst) error { w.Done = true; return nil })
	def("s_code_end", func(w *Wave, in *Inst) error { return fmt.Errorf("executed s_code_end (ran past the end of the code)") })
	def("s_trap", func(w *Wave, in *Inst) error { return fmt.Errorf("%w %d", ErrTrap, in.Imm&0xff) })
	def("s_barrier", func(w *Wave, in *Inst) error { w.AtBarrier = true; return nil })
	branch := func(name string, cond func(w *Wave) bool) {
		def(name, func(w *Wave, in *Inst) error {
			if cond(w) {
				w.PC = uint64(int64(w.PC) + int64(in.Imm)*4)
			}
			w.Lanes++
			return nil
		})
	}
	branch("s_branch", func(w *Wave) bool { return true })
	branch("s_cbranch_scc0", func(w *Wave) bool { return !w.SCC })
	branch("s_cbranch_scc1", func(w *Wave) bool { return w.SCC })
	branch("s_cbranch_vccz", func(w *Wave) bool { return w.VCC() == 0 })
	branch("s_cbranch_vccnz", func(w *Wave) bool { return w.VCC() != 0 })
	branch("s_cbranch_execz", func(w *Wave) bool { return w.Exec() == 0 })
	branch("s_cbranch_execnz", func(w *Wave) bool { return w.Exec() != 0 })
}
