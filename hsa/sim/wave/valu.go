package wave

import (
	"math"
	"math/bits"

	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
)

var zeros [64]uint32

// dppLane returns the source lane of lane l under DPP control ctrl.
func dppLane(ctrl uint16, l int) (int, bool) {
	row, r := l&^15, l&15
	switch {
	case ctrl <= 0xff:
		return l&^3 + int(ctrl>>(2*(l&3))&3), true
	case ctrl >= 0x101 && ctrl <= 0x10f:
		n := int(ctrl & 15)
		return l + n, r+n < 16
	case ctrl >= 0x111 && ctrl <= 0x11f:
		n := int(ctrl & 15)
		return l - n, r >= n
	case ctrl >= 0x121 && ctrl <= 0x12f:
		n := int(ctrl & 15)
		return row + (r-n+16)&15, true
	case ctrl == 0x130:
		return l + 1, l < 63
	case ctrl == 0x134:
		return (l + 1) & 63, true
	case ctrl == 0x138:
		return l - 1, l > 0
	case ctrl == 0x13c:
		return (l - 1) & 63, true
	case ctrl == 0x140:
		return row + 15 - r, true
	case ctrl == 0x141:
		return l&^7 + 7 - l&7, true
	case ctrl == 0x142:
		return row - 1, row > 0
	case ctrl == 0x143:
		return 31, l >= 32
	case ctrl >= 0x150 && ctrl <= 0x15f: // row_newbcast (gfx90a and later): lane n of the row
		return row + int(ctrl&15), true
	}
	return 0, false
}

// dppDefined reports whether ctrl is a gfx9 DPP control of gfx942 and
// gfx950 (dppLane's cases); the others (row_shl:0, 0x131-0x133 and the
// like, 0x144-0x14f, 0x160 and up) are undefined.
func dppDefined(ctrl uint16) bool {
	switch {
	case ctrl <= 0xff, ctrl >= 0x101 && ctrl <= 0x10f, ctrl >= 0x111 && ctrl <= 0x11f, ctrl >= 0x121 && ctrl <= 0x12f:
		return true
	case ctrl == 0x130, ctrl == 0x134, ctrl == 0x138, ctrl == 0x13c, ctrl >= 0x140 && ctrl <= 0x143:
		return true
	case ctrl >= 0x150 && ctrl <= 0x15f:
		return true
	}
	return false
}

// applyDPP permutes src0 into a temporary and returns the lanes to write.
func (w *Wave) applyDPP(d *DPP, src *[64]uint32, exec uint64, k kind) (*[64]uint32, uint64) {
	out := &w.tmp[8]
	var write uint64
	for l := 0; l < 64; l++ {
		if d.RowMask>>(l>>4)&1 == 0 || d.BankMask>>((l>>2)&3)&1 == 0 {
			continue
		}
		s, ok := dppLane(d.Ctrl, l)
		if d.GFX12 {
			s, ok = dppLane12(d, l, w.laneCount())
		}
		if ok && (exec>>s&1 != 0 || d.FI) {
			out[l] = src[s]
		} else if d.BoundCtrl {
			out[l] = 0
		} else {
			continue
		}
		write |= 1 << l
	}
	if d.Src0Abs || d.Src0Neg {
		floatMods(out, k, d.Src0Abs, d.Src0Neg)
	}
	return out, exec & write
}

func floatMods(v *[64]uint32, k kind, abs, neg bool) {
	var bit uint32 = 0x80000000
	if k == kF16 {
		bit = 0x8000
	}
	if k == kPkF16 {
		bit = 0x80008000
	}
	if abs {
		for i := range v {
			v[i] &^= bit
		}
	}
	if neg {
		for i := range v {
			v[i] ^= bit
		}
	}
}

// sdwaSel extracts a selected byte or word.
func sdwaSel(v uint32, sel uint8, sx bool) uint32 {
	switch {
	case sel <= 3:
		b := v >> (8 * sel) & 0xff
		if sx {
			return uint32(int8(b))
		}
		return b
	case sel <= 5:
		h := v >> (16 * (sel - 4)) & 0xffff
		if sx {
			return uint32(int16(h))
		}
		return h
	}
	return v
}

func (w *Wave) sdwaSrc(slot int, src *[64]uint32, sel uint8, sx, abs, neg bool, k kind) *[64]uint32 {
	if sel == 6 && !abs && !neg {
		return src
	}
	t := &w.tmp[slot]
	for i := range t {
		t[i] = sdwaSel(src[i], sel, sx)
	}
	if abs || neg {
		floatMods(t, k, abs, neg)
	}
	return t
}

// sdwaDst merges a result into the old destination per dst_sel/dst_unused.
func sdwaDst(old, r uint32, sel, unused uint8) uint32 {
	var shift, width uint32
	switch {
	case sel <= 3:
		shift, width = 8*uint32(sel), 8
	case sel <= 5:
		shift, width = 16*uint32(sel-4), 16
	default:
		return r
	}
	mask := uint32(1)<<width - 1
	v := (r & mask) << shift
	switch unused {
	case 1: // sign-extend
		if r>>(width-1)&1 != 0 {
			v |= ^uint32(0) << (shift + width)
		}
	case 2: // preserve
		v |= old &^ (mask << shift)
	}
	return v
}

func clampF32(u uint32) uint32 {
	f := f32(u)
	switch {
	case f != f || f < 0:
		return 0
	case f > 1:
		return 0x3f800000
	}
	return u
}

func omodF32(u uint32, omod uint8) uint32 {
	switch omod {
	case 1:
		return u32(f32(u) * 2)
	case 2:
		return u32(f32(u) * 4)
	case 3:
		return u32(f32(u) * 0.5)
	}
	return u
}

// v32 builds the semantics of a 32-bit (or 16-bit) VALU operation with n
// sources; fn maps the lane's source values to the result.
func v32(k kind, n int, fn func(a, b, c uint32) uint32) func(*Wave, *Inst) error {
	return v32x(k, n, k == kF16 || k == kB16, fn)
}

// v32x is v32 with the destination width given explicitly: dst16 results
// are 16-bit (written to the low half, high half zeroed, or to the high
// half with VOP3 op_sel[3]).
func v32x(k kind, n int, dst16 bool, fn func(a, b, c uint32) uint32) func(*Wave, *Inst) error {
	is16src := k == kF16 || k == kB16
	return func(w *Wave, in *Inst) error {
		is16 := dst16
		a, b, c := &zeros, &zeros, &zeros
		if n > 0 {
			a = w.vsrc(in.Src[0], in, k, 0)
		}
		if n > 1 {
			b = w.vsrc(in.Src[1], in, k, 1)
		}
		if n > 2 {
			c = w.vsrc(in.Src[2], in, k, 2)
		}
		exec := w.Exec()
		dst := w.vreg(in.Dst)
		switch {
		case in.DPP != nil:
			a, exec = w.applyDPP(in.DPP, a, exec, k)
			if n > 1 && (in.DPP.Src1Abs || in.DPP.Src1Neg) {
				t := &w.tmp[1]
				*t = *b
				floatMods(t, k, in.DPP.Src1Abs, in.DPP.Src1Neg)
				b = t
			}
		case in.SDWA != nil:
			s := in.SDWA
			a = w.sdwaSrc(0, a, s.Src0Sel, s.Src0Sext, s.Src0Abs, s.Src0Neg, k)
			if n > 1 {
				b = w.sdwaSrc(1, b, s.Src1Sel, s.Src1Sext, s.Src1Abs, s.Src1Neg, k)
			}
			for l := 0; l < 64; l++ {
				if exec>>l&1 != 0 {
					r := fn(a[l], b[l], c[l])
					if k == kF32 {
						r = omodF32(r, s.Omod)
						if s.Clamp {
							r = clampF32(r)
						}
					}
					dst[l] = sdwaDst(dst[l], r, s.DstSel, s.DstUnused)
				}
			}
			w.Lanes += uint64(popcount(exec))
			return nil
		case in.Fmt == FmtVOP3 && (in.Abs|in.Neg|in.Opsel != 0):
			srcs := [3]**[64]uint32{&a, &b, &c}
			for i := 0; i < n; i++ {
				abs, neg, hi := in.Abs>>i&1 != 0, in.Neg>>i&1 != 0, in.Opsel>>i&1 != 0
				if !abs && !neg && !(hi && is16src) {
					continue
				}
				t := &w.tmp[i]
				src := *srcs[i]
				for l := range t {
					v := src[l]
					if hi && is16src {
						v >>= 16
					}
					t[l] = v
				}
				if k.isFloat() {
					floatMods(t, k, abs, neg)
				}
				*srcs[i] = t
			}
		}
		post := in.Fmt == FmtVOP3 && (in.Clamp || in.Omod != 0) && k == kF32
		hiDst := is16 && in.Fmt == FmtVOP3 && in.Opsel&8 != 0
		if !post && !is16 {
			if exec == ^uint64(0) {
				for l := 0; l < 64; l++ {
					dst[l] = fn(a[l], b[l], c[l])
				}
				w.Lanes += 64
				return nil
			}
			for l := 0; l < 64; l++ {
				if exec>>l&1 != 0 {
					dst[l] = fn(a[l], b[l], c[l])
				}
			}
			w.Lanes += uint64(popcount(exec))
			return nil
		}
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			r := fn(a[l], b[l], c[l])
			if post {
				r = omodF32(r, in.Omod)
				if in.Clamp {
					r = clampF32(r)
				}
			}
			switch {
			case hiDst:
				r = dst[l]&0xffff | r<<16
			case is16 && in.gfx12: // true16: the other half is kept
				r = dst[l]&0xffff0000 | r&0xffff
			case is16:
				r &= 0xffff
			}
			dst[l] = r
		}
		w.Lanes += uint64(popcount(exec))
		return nil
	}
}

func popcount(m uint64) int { return bits.OnesCount64(m) }

// v64 builds the semantics of a VALU operation with 64-bit operands;
// wide says which sources (and, at index 3, the result) are 64-bit.
func v64(k kind, n int, wide [4]bool, fn func(a, b, c uint64) uint64) func(*Wave, *Inst) error {
	return func(w *Wave, in *Inst) error {
		var lo, hi [3]*[64]uint32
		for i := 0; i < 3; i++ {
			lo[i], hi[i] = &zeros, &zeros
		}
		for i := 0; i < n; i++ {
			if wide[i] {
				lo[i], hi[i] = w.vsrc64(in.Src[i], in, k, i)
			} else {
				sk := kB32
				if k == kF64 && !wide[i] {
					sk = kF32
				}
				lo[i] = w.vsrc(in.Src[i], in, sk, i)
			}
		}
		exec := w.Exec()
		if in.DPP != nil || in.SDWA != nil {
			return errUnsupportedForm
		}
		mods := in.Fmt == FmtVOP3 && (in.Abs|in.Neg != 0) && k == kF64
		d := (in.Dst - opVGPR) & 511
		dlo, dhi := &w.V[d], &w.V[(d+1)&511]
		if !mods && !(k == kF64 && in.Fmt == FmtVOP3 && (in.Omod != 0 || in.Clamp)) {
			// Fast path: sources that are not 64-bit read zero high halves.
			for l := 0; l < 64; l++ {
				if exec>>l&1 == 0 {
					continue
				}
				r := fn(uint64(lo[0][l])|uint64(hi[0][l])<<32, uint64(lo[1][l])|uint64(hi[1][l])<<32,
					uint64(lo[2][l])|uint64(hi[2][l])<<32)
				dlo[l] = uint32(r)
				if wide[3] {
					dhi[l] = uint32(r >> 32)
				}
			}
			w.Lanes += uint64(popcount(exec))
			return nil
		}
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			var s [3]uint64
			for i := 0; i < n; i++ {
				s[i] = uint64(lo[i][l])
				if wide[i] {
					s[i] |= uint64(hi[i][l]) << 32
					if mods {
						if in.Abs>>i&1 != 0 {
							s[i] &^= 1 << 63
						}
						if in.Neg>>i&1 != 0 {
							s[i] ^= 1 << 63
						}
					}
				} else if mods && k == kF64 {
					if in.Abs>>i&1 != 0 {
						s[i] &^= 1 << 31
					}
					if in.Neg>>i&1 != 0 {
						s[i] ^= 1 << 31
					}
				}
			}
			r := fn(s[0], s[1], s[2])
			if k == kF64 && in.Fmt == FmtVOP3 && wide[3] {
				switch in.Omod {
				case 1:
					r = u64f(f64(r) * 2)
				case 2:
					r = u64f(f64(r) * 4)
				case 3:
					r = u64f(f64(r) * 0.5)
				}
				if in.Clamp {
					f := f64(r)
					if f != f || f < 0 {
						r = 0
					} else if f > 1 {
						r = u64f(1)
					}
				}
			}
			dlo[l] = uint32(r)
			if wide[3] {
				dhi[l] = uint32(r >> 32)
			}
		}
		w.Lanes += uint64(popcount(exec))
		return nil
	}
}

type simErr string

func (e simErr) Error() string { return string(e) }

const errUnsupportedForm = simErr("this encoding form (SDWA/DPP) of the instruction is not supported")

// cmpOp builds a VOPC compare; x also writes EXEC.
func cmpOp(k kind, wide bool, x bool, fn func(a, b uint64) bool) func(*Wave, *Inst) error {
	return func(w *Wave, in *Inst) error {
		exec := w.Exec()
		var alo, ahi, blo, bhi *[64]uint32
		if wide {
			alo, ahi = w.vsrc64(in.Src[0], in, k, 0)
			blo, bhi = w.vsrc64(in.Src[1], in, k, 1)
		} else {
			alo, ahi = w.vsrc(in.Src[0], in, k, 0), &zeros
			blo, bhi = w.vsrc(in.Src[1], in, k, 1), &zeros
		}
		var absA, absB, negA, negB bool
		var sel0, sel1 uint8 = 6, 6
		var sx0, sx1 bool
		if in.Fmt == FmtVOP3 {
			absA, absB, negA, negB = in.Abs&1 != 0, in.Abs&2 != 0, in.Neg&1 != 0, in.Neg&2 != 0
			if k == kF16 || k == kB16 {
				if in.Opsel&1 != 0 {
					sel0 = 5
				}
				if in.Opsel&2 != 0 {
					sel1 = 5
				}
			}
		}
		if s := in.SDWA; s != nil {
			absA, absB, negA, negB = s.Src0Abs, s.Src1Abs, s.Src0Neg, s.Src1Neg
			sel0, sel1, sx0, sx1 = s.Src0Sel, s.Src1Sel, s.Src0Sext, s.Src1Sext
		}
		if in.DPP != nil {
			return errUnsupportedForm
		}
		signBit := uint64(1) << 31
		switch k {
		case kF64, kB64:
			signBit = 1 << 63
		case kF16, kB16:
			signBit = 1 << 15
		}
		var res uint64
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			a := uint64(alo[l]) | uint64(ahi[l])<<32
			b := uint64(blo[l]) | uint64(bhi[l])<<32
			if !wide {
				a, b = uint64(sdwaSel(uint32(a), sel0, sx0)), uint64(sdwaSel(uint32(b), sel1, sx1))
			}
			if k.isFloat() {
				if absA {
					a &^= signBit
				}
				if negA {
					a ^= signBit
				}
				if absB {
					b &^= signBit
				}
				if negB {
					b ^= signBit
				}
			}
			if fn(a, b) {
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

func f16v(u uint64) float64 { return float64(fp.F16ToF32(uint16(u))) }

// class tests the IEEE class bits of v_cmp_class.
func classOf(f float64, isSNaN bool) uint32 {
	switch {
	case f != f:
		if isSNaN {
			return 1
		}
		return 2
	case math.IsInf(f, -1):
		return 4
	case math.IsInf(f, 1):
		return 512
	case f == 0:
		if math.Signbit(f) {
			return 32
		}
		return 64
	}
	return 0
}
