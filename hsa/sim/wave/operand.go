package wave

import "math"

// kind says how an operand's inline constants and modifiers are read.
type kind uint8

const (
	kB32   kind = iota // 32-bit integer
	kF32               // 32-bit float
	kF16               // 16-bit float in the low half
	kB16               // 16-bit integer in the low half
	kF64               // 64-bit float
	kB64               // 64-bit integer
	kPkF16             // two 16-bit floats
	kPkB16             // two 16-bit integers
	kPkF32             // two 32-bit floats (64-bit operand)
)

func (k kind) isFloat() bool {
	return k == kF32 || k == kF16 || k == kF64 || k == kPkF16 || k == kPkF32
}

var f32Consts = [9]float32{0.5, -0.5, 1, -1, 2, -2, 4, -4, 0.15915494}
var f16Consts = [9]uint16{0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118}

const invTwoPi64 = 0x3fc45f306dc9c882

// constant returns the value of an inline constant code (128-248) read as k.
func constant(code uint16, k kind) (uint64, bool) {
	switch {
	case code >= 128 && code <= 208:
		var v int64
		if code <= 192 {
			v = int64(code) - 128
		} else {
			v = 192 - int64(code)
		}
		switch k {
		case kB64, kF64:
			return uint64(v), true
		case kF16, kB16:
			return uint64(uint16(v)), true
		case kPkF16, kPkB16:
			return uint64(uint16(v)), true
		case kPkF32:
			return uint64(uint32(v)), true
		}
		return uint64(uint32(v)), true
	case code >= 240 && code <= 248:
		i := code - 240
		switch k {
		case kF64, kB64:
			if i == 8 {
				return invTwoPi64, true
			}
			return math.Float64bits(float64(f32Consts[i])), true
		case kF16, kB16:
			return uint64(f16Consts[i]), true
		case kPkF16, kPkB16:
			return uint64(f16Consts[i]), true
		case kPkF32:
			return uint64(math.Float32bits(f32Consts[i])), true
		}
		if i == 8 {
			return 0x3e22f983, true
		}
		return uint64(math.Float32bits(f32Consts[i])), true
	}
	return 0, false
}

// scalar64 reads a scalar-or-constant operand as a 64-bit value; 32-bit
// kinds return the 32-bit value zero-extended.
func (w *Wave) scalar64(code uint16, in *Inst, k kind) uint64 {
	wide := k == kF64 || k == kB64 || k == kPkF32
	switch {
	case code < 128:
		if wide {
			return uint64(w.S[code]) | uint64(w.S[(code+1)&127])<<32
		}
		return uint64(w.S[code])
	case code == opLiteral:
		switch k {
		case kF64: // the literal supplies the high half
			return uint64(in.Lit) << 32
		case kB64: // sign-extended, as LLVM encodes negative 64-bit immediates
			return uint64(int64(int32(in.Lit)))
		}
		return uint64(in.Lit)
	case code == 235, code == 236, code == 237, code == 238:
		var base uint64 = SharedBase
		if code >= 237 {
			base = PrivateBase
		}
		if code == 236 || code == 238 {
			base += 0xffffffff
		}
		if wide {
			return base
		}
		return base >> 32
	case code == opVCCZ:
		if w.VCC() == 0 {
			return 1
		}
		return 0
	case code == opEXECZ:
		if w.Exec() == 0 {
			return 1
		}
		return 0
	case code == opSCC:
		if w.SCC {
			return 1
		}
		return 0
	}
	v, _ := constant(code, k)
	return v
}

func (w *Wave) s32(code uint16, in *Inst) uint32 { return uint32(w.scalar64(code, in, kB32)) }
func (w *Wave) s64(code uint16, in *Inst) uint64 { return w.scalar64(code, in, kB64) }

// setS32 writes a scalar destination.
func (w *Wave) setS32(code uint16, v uint32) {
	if code < 128 {
		w.S[code] = v
	}
}

// setS64 writes a scalar register pair.
func (w *Wave) setS64(code uint16, v uint64) {
	if code < 127 {
		w.S[code] = uint32(v)
		w.S[code+1] = uint32(v >> 32)
	}
}

// vreg returns the register row of a vector operand code (256-767).
func (w *Wave) vreg(code uint16) *[64]uint32 { return &w.V[(code-opVGPR)&511] }

// vsrc returns operand code as a lane vector, broadcasting scalars into
// the slot's temporary.
func (w *Wave) vsrc(code uint16, in *Inst, k kind, slot int) *[64]uint32 {
	if code >= opVGPR {
		return w.vreg(code)
	}
	v := uint32(w.scalar64(code, in, k))
	if (k == kPkF16 || k == kPkB16) && code >= 128 && code != opLiteral {
		v |= v << 16
	}
	t := &w.tmp[slot]
	for i := range t {
		t[i] = v
	}
	return t
}

// vsrc64 returns a 64-bit operand as two lane vectors (low, high).
func (w *Wave) vsrc64(code uint16, in *Inst, k kind, slot int) (*[64]uint32, *[64]uint32) {
	if code >= opVGPR {
		r := (code - opVGPR) & 511
		return &w.V[r], &w.V[(r+1)&511]
	}
	v := w.scalar64(code, in, k)
	if k == kPkF32 && code >= 128 && code != opLiteral {
		v |= v << 32
	}
	lo, hi := &w.tmp[3+2*slot], &w.tmp[4+2*slot]
	for i := range lo {
		lo[i] = uint32(v)
		hi[i] = uint32(v >> 32)
	}
	return lo, hi
}

// laneMask reads a 64-bit lane mask operand (SGPR pair, VCC, EXEC or constant).
func (w *Wave) laneMask(code uint16, in *Inst) uint64 { return w.s64(code, in) }
