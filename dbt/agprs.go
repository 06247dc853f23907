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
// the kernel is translated. The AGPRs fall into groups, runs of registers
// that operands name together; a group is renamed whole, to consecutive
// VGPRs (same parity) from base, the first even register past every arch
// VGPR the scope names (a gfx950-only instruction's VGPR operands counted
// 16 wide, as the rules read them), when every instruction of the scope
// that names it is such a load, store, MFMA A/B read or v_accvgpr move.
// When all groups qualify and fit below 256 and in the kernel's VGPR
// allocation, all are renamed; otherwise, below ACCUM_OFFSET less
// agprHeadroom registers, the groups that FP8 MFMAs read most per
// register, while they fit. The scope must index no VGPRs (v_movrel,
// s_set_gpr_idx). Objects of one
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
	arch := 0
	// named, pinned and fp8 are per AGPR: named by the scope, named by an
	// operand that cannot be renamed, read as FP8 MFMA A/B this often;
	// joined[r] says r-1 and r are in one operand (one group).
	var named, pinned, joined [256]bool
	var fp8 [256]int
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
			has := false
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
					if end > 256 {
						return 0, false
					}
					ok := agprRenamable(in, i)
					isFP8 := ok && (i == 1 || i == 2) && (strings.Contains(n, "_fp8_fp8") || strings.Contains(n, "_f8f6f4"))
					for r := int(o.Reg); r < end; r++ {
						named[r] = true
						pinned[r] = pinned[r] || !ok
						joined[r] = joined[r] || r > int(o.Reg)
						if isFP8 {
							fp8[r]++
						}
					}
					has = true
				}
			}
			if has {
				insts = append(insts, in)
			}
		}
	}
	// Groups: runs of registers joined by operands.
	type group struct{ lo, n, fp8 int }
	var groups []group
	all := true
	for r := 0; r < 256; r++ {
		if !named[r] {
			continue
		}
		gr := group{lo: r}
		free := true
		for ; r < 256 && named[r] && (r == gr.lo || joined[r]); r++ {
			gr.n++
			gr.fp8 += fp8[r]
			free = free && !pinned[r]
		}
		r--
		if !free {
			all = false
			continue
		}
		groups = append(groups, gr)
	}
	if len(groups) == 0 {
		return 0, false
	}
	d := &kernels[0].Descriptor
	base := (arch + 1) &^ 1
	// The renamed registers stay in the kernel's allocation: below
	// ACCUM_OFFSET while some AGPRs remain, anywhere in the unified
	// allocation when none does.
	width := func(gs []group) int {
		c := base
		for _, gr := range gs {
			c = (c+1)&^1 + gr.lo&1 + gr.n
		}
		return c
	}
	limit := min(256, d.NextFreeVGPR(proc))
	if !all || width(groups) > limit {
		all = false
		limit = min(256, d.AccumOffset(), d.NextFreeVGPR(proc)) - agprHeadroom
		// The groups FP8 MFMAs read most per register first, while they
		// fit; then in register order again.
		byUse := slices.Clone(groups)
		slices.SortStableFunc(byUse, func(a, b group) int { return b.fp8*a.n - a.fp8*b.n })
		var take []group
		for _, gr := range byUse {
			if gr.fp8 == 0 {
				break
			}
			next := append(slices.Clone(take), gr)
			slices.SortFunc(next, func(a, b group) int { return a.lo - b.lo })
			if width(next) <= limit {
				take = next
			}
		}
		groups = take
	}
	if len(groups) == 0 {
		return 0, false
	}
	var to [256]int // the VGPR of each renamed AGPR, -1 for the others
	for r := range to {
		to[r] = -1
	}
	c := base
	for _, gr := range groups {
		c = (c+1)&^1 + gr.lo&1
		for i := 0; i < gr.n; i++ {
			to[gr.lo+i] = c + i
		}
		c += gr.n
	}
	// Encode every renamed instruction first: the graph changes only when
	// all of them encode to their own size and decode back as renamed.
	text := slices.Clone(g.Text.Data)
	var changed []*isa.Inst
	var renamed []isa.Inst
	for _, in := range insts {
		r := *in
		r.Operands = slices.Clone(in.Operands)
		hit := false
		for i := range r.Operands {
			if o := &r.Operands[i]; o.Kind == isa.KindReg && o.Class == isa.AGPR && to[o.Reg] >= 0 {
				o.Class, o.Reg = isa.VGPR, uint16(to[o.Reg])
				hit = true
			}
		}
		if !hit {
			continue
		}
		off := in.PC - g.Text.Addr
		var code []byte
		var err error
		move := strings.HasPrefix(in.Name(), "v_accvgpr_")
		if move {
			code = accMove(in.Name(), g.Text.Data[off:off+8], to[:])
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
		changed = append(changed, in)
		renamed = append(renamed, r)
	}
	for k, in := range changed {
		ops := in.Operands
		copy(ops, renamed[k].Operands)
		*in = renamed[k]
		in.Operands = ops
	}
	g.Text.Data = text
	return base, true
}

// agprHeadroom is how many VGPRs below the limit a partial renaming leaves
// free for the translation's scratch registers: taking them all makes
// expansions borrow live registers through private memory instead (the
// aiter MoE stage-1 kernels run 40% more instructions without it, 5%
// fewer with 8).
const agprHeadroom = 8

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
// v_accvgpr_write_b32 or v_accvgpr_read_b32 words raw do with AGPR aN
// renamed to v[to[N]].
func accMove(name string, raw []byte, to []int) []byte {
	le := binary.LittleEndian
	w0, w1 := le.Uint32(raw), le.Uint32(raw[4:])
	dst, src := w0&0xff, w1&0x1ff
	if name == "v_accvgpr_write_b32" {
		dst = uint32(to[dst])
	} else if src >= 256 {
		src = 256 + uint32(to[src-256])
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
	return fmt.Sprintf("AGPRs renamed to arch VGPRs from v%d (those only memory data, MFMA A/B operands and AGPR moves name)", base)
}
