// Package gfx950gfx942 is the gfx950 (CDNA4) -> gfx942 (CDNA3) translation
// pair: the encodings are shared, so the legalization decision is identity
// where dbt/legalize proves it (ISA tables, host re-decode, the oracle's
// gfx950-only table) and a dbt/rules expansion otherwise; the descriptor is
// the guest's with the VGPR allocation grown for scratch registers, and
// borrowed registers spill through gfx940-class scratch instructions.
// A gfx942 guest is accepted too (identity relocation).
package gfx950gfx942

import (
	"encoding/binary"
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/dbt/legalize"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/dbt/place"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
	"github.com/rocjitsu/rocjitsu/loader/kd"
	"github.com/rocjitsu/rocjitsu/loader/target"
)

// Pair is the gfx950 -> gfx942 pair.
type Pair struct{}

// New returns the pair.
func New() Pair { return Pair{} }

var _ pair.Pair = Pair{}

// Guests implements pair.Pair.
func (Pair) Guests() isa.Target { return isa.GFX942 | isa.GFX950 }

// Host implements pair.Pair.
func (Pair) Host() isa.Target { return isa.GFX942 }

// HostProcessor implements pair.Pair.
func (Pair) HostProcessor() target.Processor {
	p, _ := target.ByMach(target.MachGFX942)
	return p
}

// HostDecode implements pair.Pair.
func (Pair) HostDecode(code []byte, pc uint64) (isa.Inst, error) {
	return gfx9.Decode(code, pc, isa.GFX942)
}

// hostDecodeInto is HostDecode writing into dst.
func hostDecodeInto(dst *isa.Inst, code []byte, pc uint64) error {
	return gfx9.DecodeInto(dst, code, pc, isa.GFX942)
}

// hostScratchKey is the pair.Site.Memo entry holding the instruction the
// legalization re-decode writes into (one per scope and goroutine).
const hostScratchKey = "gfx950_gfx942.hostScratch"

// hostScratch returns the scope's re-decode instruction (nil without a
// memo: legalize then allocates one).
func hostScratch(memo map[string]any) *isa.Inst {
	if memo == nil {
		return nil
	}
	if in, ok := memo[hostScratchKey].(*isa.Inst); ok {
		return in
	}
	in := new(isa.Inst)
	memo[hostScratchKey] = in
	return in
}

// HostPrint implements pair.Pair.
func (Pair) HostPrint(in *isa.Inst) string { return gfx9.Print(in) }

// Decide implements pair.Pair.
// An FP8 MFMA of a chain in its block (consecutive MFMAs accumulating into
// the same registers) gets the rule form that keeps the accumulator scaled;
// an inline 16-bit transposed read of a run through one address VGPR the
// form that emits the run at its first read (otherwise, into an AGPR pair
// many reads of the scope write, the subroutine form keyed by that pair);
// a v_cvt_pk_bf16_f32 whose
// registers recur often in the scope the in-place subroutine form; a
// v_permlane16_swap_b32 far enough from any EXEC write in its block the
// form without the s_nop.
func (p Pair) Decide(in *isa.Inst, raw []byte, guest isa.Target, site pair.Site) legalize.Decision {
	var scratch *isa.Inst // the cache's when the caller holds one
	if site.Legalize == nil {
		scratch = hostScratch(site.Memo)
	}
	d := legalize.DecideCached(in, raw, guest, isa.GFX942, hostDecodeInto, scratch, site.Legalize)
	if in.Name() == "s_nop" && site.Index >= 0 && site.Index < len(site.Block) && site.Block[site.Index] == in {
		if r := rules.Permlane16PairNopAt(site.Block, site.Index); r != nil {
			d.Rule, d.Action, d.Fidelity = r, report.Expand, r.Fidelity
		}
	}
	if guest == isa.GFX950 && d.Action == report.Identity && site.Index >= 0 && site.Index < len(site.Block) && site.Block[site.Index] == in {
		var scope rules.FP8ScopeFunc // as for the FP8 MFMA rule below: both see one plan
		if site.Graph != nil && site.Scope != nil && len(site.Scope.Errors) == 0 {
			scope = func(fn func([]*isa.Inst, []int, bool)) { fp8Scope(site, fn) }
		}
		if r := rules.FP8ScaleFoldRuleAt(site.Block, site.Index, site.Memo, scope); r != nil {
			d.Rule, d.Action, d.Fidelity, d.Bound = r, report.Expand, r.Fidelity, r.Bound
		}
	}
	if d.Rule != nil && d.Rule.Name == rules.FP8MFMARuleName && site.Index >= 0 && site.Index < len(site.Block) && site.Block[site.Index] == in {
		d.Rule = rules.FP8MFMARule(rules.FP8MFMAShapeAt(site.Block, site.Index, site.Memo, walksOf(site).fp8))
	}
	if d.Rule != nil && d.Rule.Name == rules.Permlane16RuleName && site.Index >= 0 && site.Index < len(site.Block) && site.Block[site.Index] == in {
		if r := rules.Permlane16PairRuleAt(site.Block, site.Index, site.Memo); r != nil {
			d.Rule = r
		} else if r := rules.Permlane16RuleAt(site.Block, site.Index); r != nil {
			d.Rule = r
		}
	}
	if d.Rule != nil && d.Rule.Name == rules.CvtPkBF16RuleName && site.Index >= 0 && site.Index < len(site.Block) && site.Block[site.Index] == in {
		if r := rules.CvtPkBF16RunRuleAt(site.Block, site.Index, site.Memo, walksOf(site).insts); r != nil {
			d.Rule = r
		} else if r := rules.CvtPkBF16RuleAt(in, site.Memo, walksOf(site).insts); r != nil {
			d.Rule = r
		}
	} else if d.Rule != nil && d.Rule.Name == rules.CvtPkBF16RuleName {
		if r := rules.CvtPkBF16RuleAt(in, site.Memo, walksOf(site).insts); r != nil {
			d.Rule = r
		}
	}
	if d.Rule != nil && d.Rule.Name == rules.ReadTrRuleName && site.InlineLDS && site.Index >= 0 && site.Index < len(site.Block) && site.Block[site.Index] == in {
		if r := rules.ReadTrRunRule(site.Block, site.Index, site.Memo); r != nil {
			d.Rule = r
		}
	} else if d.Rule != nil && d.Rule.Name == rules.ReadTrRuleName {
		if r := rules.ReadTrDestRuleAt(in, site.Memo, walksOf(site).insts); r != nil {
			d.Rule = r
		}
	}
	return d
}

// scopeWalksKey is the pair.Site.Memo entry holding the scope's walks
// (scopeWalks), made at the first decision that asks for them.
const scopeWalksKey = "gfx950_gfx942.scopeWalks"

// scopeWalks are the walks over a kernel scope Decide hands the rules:
// fp8 over its blocks (fp8Scope), insts over its instructions
// (scopeWalker); nil when the scope is not known or has errors.
type scopeWalks struct {
	fp8   rules.FP8ScopeFunc
	insts func(fn func(*isa.Inst))
}

// walksOf returns the walks over site's scope, kept in site.Memo (made
// anew without a memo).
func walksOf(site pair.Site) *scopeWalks {
	if w, ok := site.Memo[scopeWalksKey].(*scopeWalks); ok {
		return w
	}
	w := &scopeWalks{insts: scopeWalker(site)}
	if site.Graph != nil && site.Scope != nil && len(site.Scope.Errors) == 0 {
		g, sc := site.Graph, site.Scope
		w.fp8 = func(fn func([]*isa.Inst, []int, bool)) { fp8Scope(pair.Site{Graph: g, Scope: sc}, fn) }
	}
	if site.Memo != nil {
		site.Memo[scopeWalksKey] = w
	}
	return w
}

// fp8Scope lists the blocks of site's kernel scope for the FP8 MFMA rule
// (rules.FP8ScopeFunc): successors by index, and as entries the roots,
// call targets, return points, undescribed blocks and blocks with an edge
// from outside the scope.
func fp8Scope(site pair.Site, fn func([]*isa.Inst, []int, bool)) {
	index := make(map[uint64]int, len(site.Scope.Blocks))
	for i, l := range site.Scope.Blocks {
		index[l] = i
	}
	entry := make([]bool, len(site.Scope.Blocks))
	for _, r := range site.Scope.Roots {
		if i, ok := index[r]; ok {
			entry[i] = true
		}
	}
	inScope := make([]int, len(site.Scope.Blocks)) // edges into each block from the scope
	for _, l := range site.Scope.Blocks {
		b := site.Graph.Blocks[l]
		if b == nil {
			continue
		}
		for _, c := range b.Calls {
			for _, a := range []uint64{c.Callee, c.Cont, b.End} {
				if i, ok := index[a]; ok {
					entry[i] = true // call target, return point
				}
			}
		}
		for _, t := range b.Succs {
			if i, ok := index[t]; ok {
				inScope[i]++
			}
		}
	}
	for i, l := range site.Scope.Blocks {
		b := site.Graph.Blocks[l]
		if b == nil {
			fn([]*isa.Inst{{}}, nil, true) // undescribed: nothing is cleared in place
			continue
		}
		var succs []int
		for _, t := range b.Succs {
			if j, ok := index[t]; ok {
				succs = append(succs, j)
			}
		}
		fn(b.Insts, succs, entry[i] || inScope[i] == 0)
	}
}

// scopeWalker returns a walk over the instructions of site's kernel scope
// (an undescribed block as one empty instruction), or nil when the scope
// is not known or has errors.
func scopeWalker(site pair.Site) func(fn func(*isa.Inst)) {
	if site.Graph == nil || site.Scope == nil || len(site.Scope.Errors) != 0 {
		return nil
	}
	g, sc := site.Graph, site.Scope
	return func(fn func(*isa.Inst)) {
		for _, l := range sc.Blocks {
			b := g.Blocks[l]
			if b == nil {
				fn(&isa.Inst{}) // undescribed: nothing is cleared in place
				continue
			}
			for _, x := range b.Insts {
				fn(x)
			}
		}
	}
}

// Relocated implements pair.Pair: the encodings are shared.
func (Pair) Relocated(_ *isa.Inst, raw []byte) ([]byte, error) { return raw, nil }

// Words implements pair.Pair.
func (Pair) Words() *place.Words { return place.GFX9 }

// Prologue implements pair.Pair: gfx942 delivers the gfx950 launch state
// unchanged (kernarg-preload entries are placed by dbt/place).
func (Pair) Prologue(pair.Plan) ([]byte, error) { return nil, nil }

// UnifiedVGPRs implements pair.Pair: gfx942 has AGPRs of its own.
func (Pair) UnifiedVGPRs() bool { return false }

// Descriptor implements pair.Pair: the source descriptor with the VGPR
// allocation grown for scratch registers beyond it and the private segment
// grown for spill slots.
func (p Pair) Descriptor(pl pair.Plan) (kd.Descriptor, []string, error) {
	d := pl.Kernel.Descriptor
	hostProc := p.HostProcessor()
	var notes []string
	arch, agprs := pl.Arch, pl.AGPRs
	if pl.NeedAGPRs > 0 && agprs == 0 && pl.NamedAGPRs == 0 {
		// AGPRs for the translation's own use (subroutine saves) in a
		// guest that allocates none: a0 after the arch VGPRs.
		acc := (max(pl.NeedArch, arch) + 3) &^ 3
		total := acc + pl.NeedAGPRs
		if total > 512 {
			return d, nil, fmt.Errorf("%d arch VGPRs and %d AGPRs for subroutine saves need more than 512 registers", acc, pl.NeedAGPRs)
		}
		if err := d.Set(kd.RSRC3_ACCUM_OFFSET, kd.AccumOffsetField(acc)); err != nil {
			return d, nil, err
		}
		if err := d.Set(kd.RSRC1_GRANULATED_WORKITEM_VGPR_COUNT, kd.VGPRGranules(hostProc, false, total)); err != nil {
			return d, nil, err
		}
		notes = append(notes, fmt.Sprintf("%d AGPRs allocated after %d arch VGPRs for subroutine saves", pl.NeedAGPRs, acc))
		if pl.NeedArch > arch {
			notes = append(notes, fmt.Sprintf("arch VGPRs grown from %d to %d for scratch registers", arch, pl.NeedArch))
		}
	} else if pl.NeedAGPRs > 0 {
		return d, nil, fmt.Errorf("subroutine saves need %d AGPRs but the guest allocates or names AGPRs", pl.NeedAGPRs)
	} else if pl.NeedArch > arch {
		if pl.NamedAGPRs > 0 && pl.NamedArch > d.AccumOffset() {
			return d, nil, fmt.Errorf("the guest names arch VGPRs up to v%d over its AGPR range (ACCUM_OFFSET %d) and AGPRs too: the allocation cannot grow for scratch registers", pl.NamedArch-1, d.AccumOffset())
		}
		acc := (pl.NeedArch + 3) &^ 3
		total := acc + agprs
		if agprs == 0 {
			total = pl.NeedArch
		}
		if total > 512 {
			return d, nil, fmt.Errorf("scratch VGPRs need %d registers, more than 512", total)
		}
		if err := d.Set(kd.RSRC3_ACCUM_OFFSET, kd.AccumOffsetField(acc)); err != nil {
			return d, nil, err
		}
		if err := d.Set(kd.RSRC1_GRANULATED_WORKITEM_VGPR_COUNT, kd.VGPRGranules(hostProc, false, total)); err != nil {
			return d, nil, err
		}
		notes = append(notes, fmt.Sprintf("arch VGPRs grown from %d to %d for scratch registers", arch, pl.NeedArch))
	}
	if pl.SpillSlots > 0 {
		need := pl.SpillBase + uint32(4*pl.SpillSlots)
		if need > 4096 {
			return d, nil, fmt.Errorf("private spill slots end at %d bytes, beyond the 13-bit scratch offset", need)
		}
		if need > d.PrivateSegmentFixedSize {
			d.PrivateSegmentFixedSize = need
		}
		if err := d.Set(kd.RSRC2_ENABLE_PRIVATE_SEGMENT, 1); err != nil {
			return d, nil, err
		}
	}
	if err := d.Check(hostProc); err != nil {
		return d, nil, err
	}
	return d, notes, nil
}

// Spill implements pair.Pair: scratch_store_dword / scratch_load_dword
// with the hardware-initialised flat scratch of gfx940-class targets, an
// s_nop so the stores read their data before the expansion writes, and a
// vmcnt(0) after the restores.
func (Pair) Spill(base uint32, regs []uint16) (save, restore []byte, ok bool) {
	for i, r := range regs {
		off := base + uint32(4*i)
		// scratch_store_dword off, v[r], off offset:off
		save = binary.LittleEndian.AppendUint32(save, 0xdc704000|off&0x1fff)
		save = binary.LittleEndian.AppendUint32(save, 0x007f0000|uint32(r)<<8)
		// scratch_load_dword v[r], off, off offset:off
		restore = binary.LittleEndian.AppendUint32(restore, 0xdc504000|off&0x1fff)
		restore = binary.LittleEndian.AppendUint32(restore, 0x007f0000|uint32(r)<<24)
	}
	save = binary.LittleEndian.AppendUint32(save, 0xbf800001)       // s_nop 1
	restore = binary.LittleEndian.AppendUint32(restore, 0xbf8c0f70) // s_waitcnt vmcnt(0)
	return save, restore, true
}
