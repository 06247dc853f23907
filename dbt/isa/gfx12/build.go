package gfx12

import (
	"sync"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12/internal/enc"
)

// rowsByMnemonic maps an encoding-specific mnemonic to its table rows;
// built on first use (decoding and printing never need it).
var rowsByMnemonic = sync.OnceValue(func() map[string][]uint16 {
	m := map[string][]uint16{}
	for i := range entries {
		m[entries[i].mnem] = append(m[entries[i].mnem], uint16(i))
	}
	return m
})

// Variant says which form of an encoding a template is.
type Variant struct {
	// NoSAddr: GLOBAL/SCRATCH without an SGPR address (saddr off), SMEM
	// without an SGPR offset.
	NoSAddr bool
	// VAddr: SCRATCH with a VGPR address (sve).
	VAddr bool
	// Return: the returning form of an atomic (th bit 0).
	Return bool
}

// New returns the instructions LLVM prints with the encoding-specific
// mnemonic (for example "v_add_nc_u32_e32", "global_load_b32",
// "s_load_b64") in wave64 (wave64 true) or wave32: one per encoding variant
// (Variant), with operands as the decoder reports them (roles, fields,
// widths) and registers zero. Set the operands' Kind/Class/Reg/Imm and Mod,
// then call Encode; the encoding prefix, opcode and variant bits are in
// Pad. Besides the DPP-free forms, the DPP16 forms of VOP1/VOP2/VOPC are
// returned (set Mod's DPP controls); DPP8 and VOP3 DPP are not.
func New(mnemonic string, wave64 bool) []isa.Inst {
	var out []isa.Inst
	for _, id := range rowsByMnemonic()[mnemonic] {
		e := &entries[id]
		if wave64 && e.flags&eWave64 == 0 || !wave64 && e.flags&eWave32 == 0 {
			continue
		}
		dpp16 := false
		if isVALU(e.kind) && e.aux != enc.AuxNone {
			// The DPP16 forms of VOP1/VOP2/VOPC ("v_mul_f32_dpp"); DPP8 and
			// VOP3 DPP are not built.
			if e.aux != enc.AuxDPP16 || e.kind != enc.VOP1 && e.kind != enc.VOP2 && e.kind != enc.VOPC {
				continue
			}
			dpp16 = true
		}
		if e.kind == enc.SMEM && e.op >= 64 {
			continue // the same operation with cache-policy bits in the opcode field's top
		}
		in := isa.Inst{Info: &opInfos[e.info], Enc: id, Opcode: e.op}
		in.Format, in.Base = format(e.kind, int(e.aux))
		var w [maxWords]uint32
		w[0] = enc.SetOpcode(e.kind, prefix(e.kind), int(e.op))
		switch e.kind {
		case enc.SMEM:
			if e.aux == enc.AuxNoSAddr {
				w[1] |= codeNull << 25
			}
		case enc.GLOBAL, enc.SCRATCH:
			if e.aux&enc.AuxNoSAddr != 0 {
				w[0] |= codeNull
			}
			if e.kind == enc.SCRATCH && e.aux&enc.AuxSVE != 0 {
				w[1] |= 1 << 17
			}
		}
		if (e.kind == enc.GLOBAL || e.kind == enc.SCRATCH || e.kind == enc.FLAT || e.kind == enc.VBUFFER) && e.aux&4 != 0 {
			enc.Layout[enc.FFTH].Set(w[:3], 1)
		}
		size := 4 * baseWords(e.kind)
		if dpp16 {
			w[0] |= 250 // src0 selects the DPP16 dword
			size += 4
		}
		in.Pad = w
		in.Size = uint8(size)
		for i := range e.ops {
			d := &e.ops[i]
			o := isa.Operand{Role: d.role, Field: isa.Field(d.field), Width: width(d, wave64)}
			switch d.class {
			case 'v', 'Y':
				o.Kind, o.Class = isa.KindReg, isa.VGPR
			case 'c', 'd', 'S', 'b', 'r':
				o.Kind, o.Class = isa.KindReg, isa.SGPR
			case 'i':
				o.Kind = isa.KindImm
			case 'o':
				o.Kind = isa.KindOff
			case 'n':
				name := d.n32
				if wave64 {
					name = d.n64
				}
				o.Kind, o.Class, o.Reg, o.Width = isa.KindReg, isa.Special, uint16(specialByName()[name]), 1
				if name == "vcc" || name == "exec" {
					o.Width = 2
				}
			case 'k':
				o.Kind = isa.KindLiteral
			}
			in.Operands = append(in.Operands, o)
		}
		out = append(out, in)
	}
	return out
}

// VariantOf returns the variant of a template New returned.
func VariantOf(in *isa.Inst) Variant {
	if int(in.Enc) >= len(table()) {
		return Variant{}
	}
	e := &table()[in.Enc]
	switch e.kind {
	case enc.SMEM:
		return Variant{NoSAddr: e.aux == enc.AuxNoSAddr}
	case enc.GLOBAL, enc.SCRATCH, enc.FLAT, enc.VBUFFER:
		return Variant{NoSAddr: e.kind != enc.FLAT && e.kind != enc.VBUFFER && e.aux&enc.AuxNoSAddr != 0,
			VAddr: e.kind == enc.SCRATCH && e.aux&enc.AuxSVE != 0, Return: e.aux&4 != 0}
	}
	return Variant{}
}

// SetCachePolicy stores th and scope into a memory instruction's Pad (the
// bit positions CachePolicy reads).
func SetCachePolicy(in *isa.Inst, th, scope uint8) {
	if int(in.Enc) >= len(table()) {
		return
	}
	e := &table()[in.Enc]
	switch e.kind {
	case enc.SMEM:
		in.Pad[0] = in.Pad[0]&^(3<<21|3<<23) | uint32(scope&3)<<21 | uint32(th&3)<<23
	case enc.GLOBAL, enc.SCRATCH, enc.FLAT, enc.VBUFFER:
		in.Pad[1] = in.Pad[1]&^(3<<18|7<<20) | uint32(scope&3)<<18 | uint32(th&7)<<20
	}
}

// prefix returns the fixed encoding bits of the first dword of a kind.
func prefix(k enc.Kind) uint32 {
	switch k {
	case enc.SOP1:
		return 0xbe800000
	case enc.SOP2:
		return 0x80000000
	case enc.SOPK:
		return 0xb0000000
	case enc.SOPC:
		return 0xbf000000
	case enc.SOPP:
		return 0xbf800000
	case enc.VOP1:
		return 0x7e000000
	case enc.VOP2:
		return 0
	case enc.VOPC:
		return 0x7c000000
	case enc.VOP3:
		return 0x35 << 26
	case enc.VOP3P:
		return 0x33 << 26
	case enc.SMEM:
		return 0x3d << 26
	case enc.DS:
		return 0x36 << 26
	case enc.FLAT:
		return 0x3b << 26
	case enc.SCRATCH:
		return 0x3b<<26 | 1<<24
	case enc.GLOBAL:
		return 0x3b<<26 | 2<<24
	case enc.VBUFFER:
		return 0x31 << 26
	}
	return 0
}
