package gfx12

import (
	"encoding/binary"
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12/internal/enc"
)

// EncodeError reports an instruction that cannot be encoded.
type EncodeError struct {
	Mnemonic string
	Field    string
	Msg      string
}

func (e *EncodeError) Error() string {
	return fmt.Sprintf("gfx12: encode %s: %s: %s", e.Mnemonic, e.Field, e.Msg)
}

// Encode returns the machine code of in.
func Encode(in *isa.Inst) ([]byte, error) { return AppendEncode(nil, in) }

// AppendEncode appends the machine code of in to dst.
func AppendEncode(dst []byte, in *isa.Inst) ([]byte, error) {
	if int(in.Enc) >= len(table()) {
		return dst, &EncodeError{"?", "enc", "no encoding-table row"}
	}
	e := &table()[in.Enc]
	k := e.kind
	bad := func(field, format string, args ...any) ([]byte, error) {
		return dst, &EncodeError{e.mnem, field, fmt.Sprintf(format, args...)}
	}
	if len(in.Operands) != len(e.ops) {
		return bad("operands", "have %d operands, want %d", len(in.Operands), len(e.ops))
	}
	_, size := enc.Classify(uint32(0))
	_ = size
	nw := baseWords(k)
	if isVALU(k) && e.aux != enc.AuxNone {
		nw++
	}
	var w [maxWords]uint32
	copy(w[:nw], in.Pad[:nw])
	ws := w[:nw]
	set := func(f enc.FieldID, v uint32) bool {
		b := enc.Layout[f]
		if v>>b.N != 0 {
			return false
		}
		b.Set(ws, v)
		return true
	}
	setS := func(f enc.FieldID, v int64) bool {
		b := enc.Layout[f]
		lim := int64(1) << (b.N - 1)
		if v < -lim || v >= lim {
			return false
		}
		b.Set(ws, uint32(v)&(1<<b.N-1))
		return true
	}
	var neg, abs uint32
	for i := range e.ops {
		d := &e.ops[i]
		o := &in.Operands[i]
		var v uint32
		ok := true
		switch d.class {
		case 'c', 'd', 'S', 'r':
			v, ok = scalarCode(o)
			if d.mods&8 != 0 && o.Kind == isa.KindReg && o.Class == isa.VGPR {
				v = 256 + uint32(o.Reg)&0x7f | uint32(o.Imm&1)<<7
			}
		case 'b':
			v, ok = scalarCode(o)
			if v&1 != 0 {
				ok = false
			}
			v /= 2
		case 'v':
			if k == enc.EXP && o.Kind == isa.KindOff {
				continue // the field stays as in Pad; en has the bit clear
			}
			v, ok = uint32(o.Reg), o.Kind == isa.KindReg && o.Class == isa.VGPR
			if d.mods&8 != 0 {
				v = uint32(o.Reg)&0x7f | uint32(o.Imm&1)<<7
			}
		case 'Y':
			x := enc.Layout[enc.FDVDstX].Get(ws)
			if len(in.Operands) > 0 {
				x = uint32(in.Operands[0].Reg)
			}
			v = uint32(o.Reg) >> 1
			ok = uint32(o.Reg)&1 == x&1^1
		case 'i':
			if enc.Layout[d.field].Code == enc.CodeSImm {
				if !setS(d.field, o.Imm) {
					return bad("imm", "%d does not fit", o.Imm)
				}
				continue
			}
			v = uint32(o.Imm)
			if o.Kind == isa.KindLabel {
				v = uint32(uint16(int16(o.Imm)))
			}
		case 'o', 'n', 'k':
			continue
		}
		if !ok {
			return bad("operand", "operand %d cannot be encoded in %s", i, d.field.String())
		}
		if d.field != enc.FNone && d.field != fLit && !set(d.field, v) {
			return bad("operand", "operand %d value %d does not fit", i, v)
		}
		if si := srcIndex(d.field); si >= 0 {
			if o.Mods&isa.ModNeg != 0 {
				neg |= 1 << si
			}
			if o.Mods&isa.ModAbs != 0 {
				abs |= 1 << si
			}
		}
	}
	m := &in.Mod
	b2u := func(b bool) uint32 {
		if b {
			return 1
		}
		return 0
	}
	switch k {
	case enc.VOP3:
		set(enc.F3Clamp, b2u(m.Clamp))
		set(enc.F3OMod, uint32(m.OMod&3))
		set(enc.F3Neg, neg)
		if !hasSDst(e) {
			set(enc.F3OpSel, uint32(m.OpSel&15))
			set(enc.F3Abs, abs)
		}
	case enc.VOP3P:
		set(enc.F3Clamp, b2u(m.Clamp))
		set(enc.FPOpSel, uint32(m.OpSel&7))
		set(enc.FPOpSelL, uint32(m.OpSelHi&3))
		set(enc.FPOpSelH, uint32(m.OpSelHi>>2&1))
		set(enc.F3Neg, uint32(m.NegLo&7))
		set(enc.FPNegHi, uint32(m.NegHi&7))
	case enc.VINTERP:
		set(enc.F3Clamp, b2u(m.Clamp))
		set(enc.F3OpSel, uint32(m.OpSel&15))
		set(enc.F3Neg, neg)
	case enc.SMEM:
		if !setS(enc.FSMOff, int64(m.Offset)) {
			return bad("offset", "%d does not fit in 24 bits", m.Offset)
		}
	case enc.DS:
		set(enc.FDSOff0, uint32(m.Offset)&0xff)
		set(enc.FDSOff1, uint32(m.Offset1))
	case enc.FLAT, enc.GLOBAL, enc.SCRATCH:
		if !setS(enc.FFOff, int64(m.Offset)) {
			return bad("offset", "%d does not fit in 24 bits", m.Offset)
		}
	case enc.VBUFFER:
		if !setS(enc.FBOff, int64(m.Offset)) {
			return bad("offset", "%d does not fit in 24 bits", m.Offset)
		}
		set(enc.FBOffen, b2u(m.Offen))
		set(enc.FBIdxen, b2u(m.Idxen))
		set(enc.FBFormat, uint32(m.Format&127))
	}
	if isVALU(k) && e.aux == enc.AuxDPP16 {
		set(enc.FDPPCtrl, uint32(m.DPPCtrl&0x1ff))
		set(enc.FDPPRow, uint32(m.RowMask&15))
		set(enc.FDPPBank, uint32(m.BankMask&15))
		set(enc.FDPPBC, b2u(m.BoundCtrl))
		set(enc.FDPPFI, b2u(m.FI))
		if k == enc.VOP1 || k == enc.VOP2 || k == enc.VOPC {
			set(enc.FDPPNeg0, neg&1)
			set(enc.FDPPAbs0, abs&1)
			set(enc.FDPPNeg1, neg>>1&1)
			set(enc.FDPPAbs1, abs>>1&1)
		}
	}
	for i := 0; i < nw; i++ {
		// Bits of partly owned fields (an aligned sbase's low bit) are
		// kept in Pad.
		dst = binary.LittleEndian.AppendUint32(dst, ws[i]|in.Pad[i])
	}
	if in.HasLiteral {
		dst = binary.LittleEndian.AppendUint32(dst, in.Literal)
	}
	return dst, nil
}

// baseWords is the number of dwords of a kind without literal or DPP.
func baseWords(k enc.Kind) int {
	switch k {
	case enc.FLAT, enc.GLOBAL, enc.SCRATCH, enc.VBUFFER, enc.VIMAGE, enc.VSAMPLE:
		return 3
	case enc.SMEM, enc.VOP3, enc.VOP3P, enc.VOPD, enc.VINTERP, enc.DS, enc.EXP:
		return 2
	}
	return 1
}
