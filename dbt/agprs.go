package dbt

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/cfg"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/loader/target"
)

// AGPRs as arch VGPRs (issue 15): a gfx950 kernel whose AGPRs hold only
// what memory loads write and MFMAs read as A or B operands (the aiter FP8
// GEMMs' tiles) computes the same with those registers renamed to unused
// arch VGPRs: such instructions pick the register file with an encoding
// bit and nothing else about them depends on it (on gfx90a and later both
// files are one unified file with the same hazards). The gfx942 expansion
// of an FP8 MFMA clears the -0 bytes of AGPR operands through a VGPR
// (v_accvgpr_read, the clearing, v_accvgpr_write); VGPR operands it clears
// where they are, without the moves. renameAGPRs makes the renaming before
// the kernel is translated: aN becomes v[base+N], base the first even
// register past every arch VGPR the scope names (a gfx950-only
// instruction's VGPR operands counted 16 wide, as the rules read them), when every instruction of
// the scope that names an AGPR is such a load, store or MFMA, the renamed
// registers stay below 256 and within the kernel's VGPR allocation, and
// the scope indexes no VGPRs (v_movrel, s_set_gpr_idx). Objects of one
// kernel only (scopes may share code), gfx950 guests on gfx942 hosts
// (gfx12 hosts map AGPRs to VGPRs anyway). The renamed instructions keep
// their sizes and addresses; the graph's instructions and its .text copy
// are rewritten, the caller's bytes are not.

// renameAGPRs renames the AGPRs of the single kernel of g as described
// above and reports the base VGPR (false when it renamed nothing).
func renameAGPRs(g *cfg.Graph, kernels []loader.Kernel, proc target.Processor, gt, host isa.Target) (int, bool) {
	if gt != isa.GFX950 || host != isa.GFX942 || len(kernels) != 1 {
		return 0, false
	}
	sc := g.Scope(0)
	if len(sc.Errors) > 0 {
		return 0, false
	}
	var insts []*isa.Inst
	arch, agprs := 0, 0
	for _, a := range sc.Blocks {
		b := g.Blocks[a]
		if b == nil {
			continue
		}
		for _, in := range b.Insts {
			n := in.Name()
			if strings.HasPrefix(n, "v_movrel") || strings.HasPrefix(n, "s_set_gpr_idx") {
				return 0, false
			}
			named := false
			for i := range in.Operands {
				o := &in.Operands[i]
				if o.Kind != isa.KindReg {
					continue
				}
				end := int(o.Reg) + int(o.Width)
				switch o.Class {
				case isa.VGPR:
					arch = max(arch, end)
					if in.Info == nil || !in.Info.Targets.Has(isa.GFX942) {
						// Rules read a gfx950-only instruction's VGPR
						// operands as up to 16 registers wide (their
						// decoded width may be narrower than what they
						// touch): the renamed registers stay clear.
						arch = max(arch, int(o.Reg)+max(int(o.Width), 16))
					}
				case isa.AGPR:
					if !agprRenamable(in, i) {
						return 0, false
					}
					agprs = max(agprs, end)
					named = true
				}
			}
			if named {
				insts = append(insts, in)
			}
		}
	}
	d := &kernels[0].Descriptor
	base := (arch + 1) &^ 1
	if agprs == 0 || base+agprs > 256 || base+agprs > d.NextFreeVGPR(proc) {
		return 0, false
	}
	// Encode every renamed instruction first: the graph changes only when
	// all of them encode to their own size and decode back as renamed.
	text := slices.Clone(g.Text.Data)
	renamed := make([]isa.Inst, len(insts))
	for k, in := range insts {
		r := *in
		r.Operands = slices.Clone(in.Operands)
		for i := range r.Operands {
			if o := &r.Operands[i]; o.Kind == isa.KindReg && o.Class == isa.AGPR {
				o.Class, o.Reg = isa.VGPR, o.Reg+uint16(base)
			}
		}
		off := in.PC - g.Text.Addr
		var code []byte
		var err error
		move := strings.HasPrefix(in.Name(), "v_accvgpr_")
		if move {
			code = accMove(in.Name(), g.Text.Data[off:off+8], base)
		} else if code, err = gfx9.Encode(&r); err != nil || len(code) != int(in.Size) {
			return 0, false
		}
		back, err := gfx9.Decode(code, in.PC, gt)
		if err != nil || int(back.Size) != int(in.Size) || !sameRegs(back.Operands, r.Operands) {
			return 0, false
		}
		if move {
			if back.Name() != "v_mov_b32" {
				return 0, false
			}
			r = back
		} else if back.Name() != in.Name() {
			return 0, false
		}
		copy(text[off:], code)
		renamed[k] = r
	}
	for k, in := range insts {
		ops := in.Operands
		copy(ops, renamed[k].Operands)
		*in = renamed[k]
		in.Operands = ops
	}
	g.Text.Data = text
	return base, true
}

// agprRenamable reports whether operand i of in, an AGPR, may be an arch
// VGPR instead: the data of a memory instruction or the A or B operand of
// an MFMA (not C or D, whose AGPR use is a mode of the whole
// instruction), with nothing else changed, or an operand of
// v_accvgpr_write_b32 or v_accvgpr_read_b32, which become v_mov_b32
// (VOP3: the same size; a VALU write like them).
func agprRenamable(in *isa.Inst, i int) bool {
	if in.Info != nil && in.Info.Mem != isa.MemNone && in.Info.Mem != isa.MemScalar {
		return true
	}
	switch n := in.Name(); n {
	case "v_accvgpr_write_b32", "v_accvgpr_read_b32":
		return in.Size == 8
	default:
		return strings.HasPrefix(n, "v_mfma_") && (i == 1 || i == 2) && in.Operands[i].Role == isa.Use
	}
}

// accMove returns the v_mov_b32 (VOP3) that does what the
// v_accvgpr_write_b32 or v_accvgpr_read_b32 words raw do with AGPRs
// renamed from base.
func accMove(name string, raw []byte, base int) []byte {
	le := binary.LittleEndian
	w0, w1 := le.Uint32(raw), le.Uint32(raw[4:])
	dst, src := w0&0xff, w1&0x1ff
	if name == "v_accvgpr_write_b32" {
		dst += uint32(base)
	} else {
		src += uint32(base)
	}
	return le.AppendUint32(le.AppendUint32(nil, 0xd1410000|dst&0xff), src)
}

// sameRegs reports whether two operand lists name the same registers.
func sameRegs(a, b []isa.Operand) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Kind != y.Kind || x.Kind == isa.KindReg && (x.Class != y.Class || x.Reg != y.Reg || x.Width != y.Width) {
			return false
		}
	}
	return true
}

// agprNote is the report note of a renaming.
func agprNote(base int) string {
	return fmt.Sprintf("AGPRs renamed to arch VGPRs from v%d (only memory data and MFMA A/B operands name them)", base)
}
