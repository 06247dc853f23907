package gfx950gfx12

import (
	"fmt"
	"sync"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12"
)

// Operand constructors for host code built by the rules.

func vr(r uint16, w uint8) isa.Operand {
	return isa.Operand{Kind: isa.KindReg, Class: isa.VGPR, Reg: r, Width: w}
}

func sr(r uint16, w uint8) isa.Operand {
	return isa.Operand{Kind: isa.KindReg, Class: isa.SGPR, Reg: r, Width: w}
}

func ttmp(r uint16) isa.Operand {
	return isa.Operand{Kind: isa.KindReg, Class: isa.TTMP, Reg: r, Width: 1}
}

func special(r isa.SpecialReg, w uint8) isa.Operand {
	return isa.Operand{Kind: isa.KindReg, Class: isa.Special, Reg: uint16(r), Width: w}
}

// inl is the inline integer constant v (-16..64).
func inl(v int) isa.Operand {
	c := 128 + v
	if v < 0 {
		c = 192 - v
	}
	return isa.Operand{Kind: isa.KindInline, Imm: int64(c)}
}

func imm(v int64) isa.Operand { return isa.Operand{Kind: isa.KindImm, Imm: v} }

func lit(v uint32) isa.Operand { return isa.Operand{Kind: isa.KindLiteral, Imm: int64(v)} }

func off() isa.Operand { return isa.Operand{Kind: isa.KindOff} }

// host is one gfx12 instruction under construction: an encoding-specific
// mnemonic, its operands in LLVM's printing order and its modifiers.
type host struct {
	mnem string
	ops  []isa.Operand
	mod  isa.Modifiers
	// th and scope are the cache policy of a memory instruction.
	th, scope uint8
	// ret selects the returning form of an atomic.
	ret bool
}

// encode builds h from the first gfx12 template whose operand kinds fit,
// encodes it, and checks that the bytes decode (wave64) to the same
// operation and operands: the builder never emits a word the decoder reads
// differently.
func (h host) encode() ([]byte, error) {
	ts := templates(h.mnem)
	if len(ts) == 0 {
		return nil, fmt.Errorf("gfx12 has no wave64 %s", h.mnem)
	}
	var last error
	for _, t := range ts {
		if gfx12.VariantOf(&t).Return != h.ret {
			continue
		}
		b, err := h.fill(t)
		if err == nil {
			return b, nil
		}
		last = err
	}
	if last == nil {
		last = fmt.Errorf("no %s form for these operands", h.mnem)
	}
	return nil, last
}

func (h host) fill(t isa.Inst) ([]byte, error) {
	if len(t.Operands) != len(h.ops) {
		return nil, fmt.Errorf("%s takes %d operands, have %d", h.mnem, len(t.Operands), len(h.ops))
	}
	in := t
	in.Operands = append([]isa.Operand(nil), t.Operands...)
	for i := range in.Operands {
		to, from := &in.Operands[i], h.ops[i]
		switch to.Kind {
		case isa.KindOff:
			if from.Kind != isa.KindOff {
				return nil, fmt.Errorf("%s operand %d is off in this form", h.mnem, i)
			}
			continue
		case isa.KindImm:
			if from.Kind != isa.KindImm && from.Kind != isa.KindLabel {
				return nil, fmt.Errorf("%s operand %d is an immediate", h.mnem, i)
			}
			to.Imm = from.Imm
			continue
		case isa.KindLiteral:
			if from.Kind != isa.KindLiteral {
				return nil, fmt.Errorf("%s operand %d is a literal", h.mnem, i)
			}
			in.Literal, in.HasLiteral = uint32(from.Imm), true
			to.Imm = from.Imm
			continue
		}
		if from.Kind == isa.KindOff {
			return nil, fmt.Errorf("%s operand %d is not off in this form", h.mnem, i)
		}
		if to.Class == isa.Special && t.Operands[i].Field == 0 {
			// An implicit register of the encoding (vcc of an e32 form).
			if from.Kind != isa.KindReg || from.Class != isa.Special || from.Reg != to.Reg {
				return nil, fmt.Errorf("%s operand %d must be special register %d", h.mnem, i, to.Reg)
			}
			continue
		}
		if to.Class == isa.VGPR && (from.Kind != isa.KindReg || from.Class != isa.VGPR) {
			return nil, fmt.Errorf("%s operand %d must be a VGPR", h.mnem, i)
		}
		if from.Kind == isa.KindReg && from.Width != 0 && from.Width != to.Width && from.Class != isa.Special {
			return nil, fmt.Errorf("%s operand %d is %d dwords on gfx12, %d in the guest", h.mnem, i, to.Width, from.Width)
		}
		w := to.Width
		role, field := to.Role, to.Field
		*to = from
		to.Width, to.Role, to.Field = w, role, field
		if from.Kind == isa.KindLiteral {
			in.Literal, in.HasLiteral = uint32(from.Imm), true
		}
	}
	in.Mod = h.mod
	if in.HasLiteral {
		in.Size += 4
	}
	if h.th != 0 || h.scope != 0 || h.ret {
		th := h.th
		if h.ret {
			th |= 1
		}
		gfx12.SetCachePolicy(&in, th, h.scope)
	}
	b, err := gfx12.Encode(&in)
	if err != nil {
		return nil, err
	}
	back, err := gfx12.Decode(b, 0, isa.GFX1201|isa.Wave64)
	if err != nil {
		return nil, fmt.Errorf("%s: the encoding does not decode: %v", h.mnem, err)
	}
	if int(back.Size) != len(b) || gfx12.Mnemonic(&back) != gfx12.Mnemonic(&in) {
		return nil, fmt.Errorf("%s: the encoding decodes as %s", h.mnem, gfx12.Print(&back))
	}
	for i := range back.Operands {
		a, c := back.Operands[i], in.Operands[i]
		if a.Kind != c.Kind || a.Kind == isa.KindReg && (a.Class != c.Class || a.Reg != c.Reg) || a.Kind == isa.KindInline && a.Imm != c.Imm || a.Imm != c.Imm && a.Kind == isa.KindReg {
			return nil, fmt.Errorf("%s: operand %d decodes as another operand (%s): a 16-bit operand above v127 or an unencodable register", h.mnem, i, gfx12.Print(&back))
		}
	}
	return b, nil
}

// templateCache holds gfx12.New's wave64 templates by mnemonic (fill
// copies a template before changing it).
var templateCache sync.Map

func templates(mnem string) []isa.Inst {
	if t, ok := templateCache.Load(mnem); ok {
		return t.([]isa.Inst)
	}
	t := gfx12.New(mnem, true)
	templateCache.Store(mnem, t)
	return t
}

// seq encodes several host instructions.
func seq(hs ...host) ([]byte, error) {
	var out []byte
	for _, h := range hs {
		b, err := h.encode()
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	return out, nil
}
