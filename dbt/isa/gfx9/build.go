package gfx9

import (
	"fmt"
	"sync"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9/internal/enc"
)

// byMnemonic maps an encoding-specific mnemonic to its table rows; built
// on first use (decoding and printing never need it).
var byMnemonic = sync.OnceValue(func() map[string][]uint16 {
	m := map[string][]uint16{}
	for i := range entries {
		e := &entries[i]
		m[e.mnem] = append(m[e.mnem], uint16(i))
	}
	return m
})

// New returns an instruction with the encoding LLVM prints as mnemonic
// (for example "v_add_f32_e32", "v_add_f32_e64", "v_mul_f32_dpp",
// "global_load_dword", "s_waitcnt") for target t. Its operands are the
// encoding's operand template, in printing order, with roles, fields and
// widths filled in and registers zero; set Class/Reg/Kind/Imm and Mod, then
// call Encode. Instructions whose printed operands depend on a modifier (an
// atomic that returns, a buffer load to LDS) use the template of the
// modifier's default; decode an example when that matters.
func New(mnemonic string, t isa.Target) (isa.Inst, error) {
	for _, id := range byMnemonic()[mnemonic] {
		e := &entries[id]
		if !targetOK(e, t) {
			continue
		}
		if e.kind == enc.FLAT && e.aux&4 != 0 {
			continue // the returning-atomic form; sc0 selects it
		}
		in := isa.Inst{Info: &opInfos[e.info], Enc: id, Opcode: e.op}
		in.Format, in.Base = format(e.kind)
		if e.kind == enc.FLAT {
			switch e.aux & 3 {
			case 1:
				in.Format, in.Base = isa.SCRATCH, isa.SCRATCH
			case 2:
				in.Format, in.Base = isa.GLOBAL, isa.GLOBAL
			}
		}
		size := 8
		switch e.kind {
		case enc.SOP1, enc.SOP2, enc.SOPK, enc.SOPC, enc.SOPP, enc.VOP1, enc.VOP2, enc.VOPC:
			size = 4
		case enc.VOP3PX2:
			size = 16
		}
		for _, d := range e.ops {
			o := isa.Operand{Role: d.role, Field: isa.Field(d.field), Width: d.width}
			switch d.class {
			case 'v':
				o.Kind, o.Class = isa.KindReg, isa.VGPR
			case 'a':
				o.Kind, o.Class = isa.KindReg, isa.AGPR
			case 's':
				o.Kind, o.Class = isa.KindReg, isa.SGPR
			case 'n':
				o.Kind, o.Class = isa.KindReg, isa.Special
				if r, ok := specialByName[d.text]; ok {
					o.Reg = uint16(r)
				}
			case 'o':
				o.Kind = isa.KindOff
			default:
				o.Kind = isa.KindImm
			}
			if d.field == enc.FLiteral {
				o.Kind = isa.KindLiteral
				in.HasLiteral = true
				size += 4
			}
			o.Type = valueType(&d)
			in.Operands = append(in.Operands, o)
		}
		if e.kind == enc.MUBUF || e.kind == enc.MTBUF {
			in.Mod.Offen = true
		}
		if e.kind == enc.SMEM {
			in.Mod.SMemImm = true
		}
		if e.kind == enc.DPP1 || e.kind == enc.DPP2 || e.kind == enc.DPPC {
			in.Mod.RowMask, in.Mod.BankMask = 0xf, 0xf
		}
		if e.kind >= enc.SDWA1 && e.kind <= enc.SDWAC {
			in.Mod.DstSel, in.Mod.Src0Sel, in.Mod.Src1Sel, in.Mod.DstUnused = 6, 6, 6, 2
		}
		if e.kind == enc.VOP3P && e.flags&fOpSelHi0 == 0 {
			in.Mod.OpSelHi = 7
		}
		in.Size = uint8(size)
		return in, nil
	}
	return isa.Inst{}, fmt.Errorf("gfx9: no encoding %q on %v", mnemonic, targetName(t))
}

// Mnemonics returns the operation names of the GFX9 tables that target t
// has (for example isa.GFX950), in table order without duplicates.
func Mnemonics(t isa.Target) []string {
	seen := map[string]bool{}
	var out []string
	for i := range opInfos {
		if n := opInfos[i].Name; n != "" && !seen[n] && opInfos[i].Targets.Has(t) {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
