package rules

import (
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// Scale folds (issue 15): the aiter FP8 GEMMs multiply each chain's D by
// a block scale right after the chain, acc = fma(D, s, acc) (v_fma_f32,
// or v_pk_fma_f32 on register pairs), with s computed once for the chain
// or a few chains. The expansion's D is the product of the halved
// operands, D/4, which its tail scales by 4 (a wait and cd v_mul_f32).
// When every read of D's registers, from the chain's last MFMA to their
// rewrite by the next FP8 MFMA of the block with C zero, is such an fma
// (D a multiplicand, the other the same VGPR s, or pair, for all of them)
// and every read of s from the first of those fmas to the last of the
// chains that share s is one of them (nothing writes s in between, no
// EXEC write), the tail is dropped (FP8MFMAShape.ScaledOut: D stays scaled
// by 1/4), s is multiplied by 4 before the first fma and by 1/4 after the
// last (FP8ScaleFoldRuleAt). fma(D/4, 4s, acc) is fma(D, s, acc) exactly,
// the products being the same real number rounded once, and (4s)/4 is s,
// unless |s| >= 2^126 (4s overflows), s is an f32 subnormal under
// denormal flushing (it comes back as zero) or a signaling NaN (it comes
// back quiet). The guest's waits before the fmas cover the host MFMA's
// result: the translation never shortens the code between guest
// instructions and the host MFMA has no more passes than the guest's
// (dbt/cost). Operations gfx942 lacks count as naming 16 registers from
// each operand (fp8Wide), except the FP8 MFMAs themselves. The two
// instructions after the last fma must be neither an
// MFMA naming s nor a DPP operation permuting it (the 1/4 multiply is a
// VALU write that those would need waits after).

// FP8ScaleFoldRuleName names the rule of the first fma of a folded scale.
const FP8ScaleFoldRuleName = "fp8-scale-fold"

// FP8ScaleFoldBound documents the difference of a folded scale.
const FP8ScaleFoldBound = "the FP8 MFMA's D stays scaled by 1/4 and the fma's scale operand is scaled by 4 around its fmas: the same results unless |scale| >= 2^126, or the scale is an f32 subnormal under denormal flushing (zero after) or a signaling NaN (quiet after)"

// fp8FoldPlan is one block's folds: the chain-end MFMAs whose D stays
// scaled (by index) and, by fma index, the scale VGPRs to multiply by 4
// before it (pre) and by 1/4 after it (post).
type fp8FoldPlan struct {
	ends      map[int]bool
	pre, post map[int][]uint16
}

// fp8FoldOf returns block's plan, kept in the block's fp8BlockState of
// memo's fp8ScopeState (memo nil: computed each time), with scope (the
// kernel scope's blocks, or nil) for what follows the block.
func fp8FoldOf(block []*isa.Inst, memo map[string]any, scope FP8ScopeFunc) *fp8FoldPlan {
	if len(block) == 0 {
		return &fp8FoldPlan{ends: map[int]bool{}, pre: map[int][]uint16{}, post: map[int][]uint16{}}
	}
	if memo == nil {
		return fp8FoldBlock(block, fp8ChainLinks(block), scope, nil)
	}
	st := fp8StateOf(memo)
	bs := st.block(block)
	if bs.fold == nil {
		bs.fold = fp8FoldBlock(block, st.links(block), scope, st)
	}
	return bs.fold
}

// FP8ScaleFoldRuleAt returns the rule for block[i] when it is the first
// or last fma of a folded scale (the scale multiplied by 4 before its
// bytes, by 1/4 after them), else nil.
func FP8ScaleFoldRuleAt(block []*isa.Inst, i int, memo map[string]any, scope FP8ScopeFunc) *Rule {
	if i < 0 || i >= len(block) {
		return nil
	}
	n := block[i].Name()
	if n != "v_fma_f32" && n != "v_pk_fma_f32" {
		return nil
	}
	pl := fp8FoldOf(block, memo, scope)
	pre, post := pl.pre[i], pl.post[i]
	if len(pre)+len(post) == 0 {
		return nil
	}
	return &Rule{Name: FP8ScaleFoldRuleName, Ops: []string{n}, Fidelity: report.Approximate, Bound: FP8ScaleFoldBound,
		Emit: func(_ Context, _ *isa.Inst, raw []byte) ([]byte, error) {
			var w []uint32
			for _, r := range pre {
				w = append(w, vop2(op2MulF32, r, srcF4, r, 0)...)
			}
			code := append(appendWords(nil, w...), raw...)
			w = w[:0]
			for _, r := range post {
				w = append(w, vop2(op2MulF32, r, srcLit, r, f32Quarter)...)
			}
			return appendWords(code, w...), nil
		}}
}

// fp8Folded reports whether the chain-end FP8 MFMA block[i] leaves D
// scaled by 1/4 for a folded scale.
func fp8Folded(block []*isa.Inst, i int, memo map[string]any, scope FP8ScopeFunc) bool {
	return fp8FoldOf(block, memo, scope).ends[i]
}

// fp8FoldReader returns, for an fma that reads D (registers acc) as a
// multiplicand, the D registers it reads and its other multiplicand (one
// VGPR, or the first of a pair for v_pk_fma_f32); ok false when x names
// acc otherwise (or in a form the fold does not take).
func fp8FoldReader(x *isa.Inst, acc fp8Acc) (dreg, s, width int, ok bool) {
	n := x.Name()
	if (n != "v_fma_f32" && n != "v_pk_fma_f32") || len(x.Operands) != 4 || x.Format == isa.DPP || x.Format == isa.SDWA {
		return 0, 0, 0, false
	}
	m := &x.Mod
	if m.Clamp || m.OMod != 0 || m.NegLo|m.NegHi != 0 || m.OpSel != 0 {
		return 0, 0, 0, false
	}
	width = 1
	if n == "v_pk_fma_f32" {
		width = 2
		if m.OpSelHi != 7 {
			return 0, 0, 0, false
		}
	}
	d, a, b, c := &x.Operands[0], &x.Operands[1], &x.Operands[2], &x.Operands[3]
	for _, o := range []*isa.Operand{d, a, b, c} {
		if o.Kind == isa.KindReg && o.Mods != 0 {
			return 0, 0, 0, false
		}
	}
	if acc.overlaps(d) || acc.overlaps(c) {
		return 0, 0, 0, false
	}
	inAcc := func(o *isa.Operand) bool {
		return o.Kind == isa.KindReg && o.Class == acc.class && int(o.Width) == width && int(o.Reg) >= acc.reg && int(o.Reg)+width <= acc.reg+acc.n
	}
	isS := func(o *isa.Operand) bool {
		return o.Kind == isa.KindReg && o.Class == isa.VGPR && int(o.Width) == width && !acc.overlaps(o) && (width == 1 || o.Reg%2 == 0)
	}
	sd := func(o *isa.Operand) bool { // the destination and addend keep off s
		return !overlapsReg(d, o) && !overlapsReg(c, o)
	}
	switch {
	case inAcc(a) && isS(b) && sd(b):
		return int(a.Reg), int(b.Reg), width, true
	case inAcc(b) && isS(a) && sd(a):
		return int(b.Reg), int(a.Reg), width, true
	}
	return 0, 0, 0, false
}

// fp8Names reports whether x names register r of class c (read or written).
func fp8Names(x *isa.Inst, c isa.RegClass, r int, wide bool) (read, written bool) {
	for k := range x.Operands {
		o := &x.Operands[k]
		if o.Kind != isa.KindReg || o.Class != c {
			continue
		}
		w := int(o.Width)
		if wide {
			w = max(w, 16)
		}
		if r >= int(o.Reg) && r < int(o.Reg)+w {
			read = read || o.Role.Uses()
			written = written || o.Role.Defines()
		}
	}
	return read, written
}

// fp8FoldCand is a chain end whose D only fmas read: their indexes and
// their scale (the first VGPR s and the width w, 2 for a pair).
type fp8FoldCand struct {
	end     int
	readers []int
	s, w    int
}

// fp8FoldBlock plans the folds of one block (see above) from its chain
// links (fp8ChainLinks) and st, the scope's state (nil: none kept).
func fp8FoldBlock(block []*isa.Inst, links [][2]bool, scope FP8ScopeFunc, st *fp8ScopeState) *fp8FoldPlan {
	pl := &fp8FoldPlan{ends: map[int]bool{}, pre: map[int][]uint16{}, post: map[int][]uint16{}}
	for _, x := range block {
		if x.Info == nil {
			return pl
		}
	}
	var cands []fp8FoldCand
	for i, x := range block {
		acc, _, ok := chainAcc(x)
		if !ok || acc.class != isa.VGPR || links[i][1] || !fp8Eligible(x) {
			continue
		}
		c := fp8FoldCand{end: i, s: -1}
		read := make([]bool, acc.n)
		good := false
	scan:
		for j := i + 1; j <= len(block); j++ {
			if j == len(block) {
				// D may stay scaled past the block where no path of the
				// scope reads it before rewriting it.
				good = true
				for r := acc.reg; r < acc.reg+acc.n && good; r++ {
					good = fp8DeadAfter(block, r, scope, st)
				}
				break
			}
			y := block[j]
			if nacc, zeroC, ok := chainAcc(y); ok && zeroC && nacc == acc {
				good = true // D rewritten by the next chain
				break
			}
			if y.Info.ImplicitWrites&isa.ImpEXEC != 0 || writesExec(y) || fp8WalkStop(y) {
				break
			}
			wide := fp8Wide(y)
			touches := false
			for k := range y.Operands {
				o := y.Operands[k]
				if wide {
					o.Width = max(o.Width, 16)
				}
				if acc.overlaps(&o) {
					touches = true
				}
			}
			if !touches {
				continue
			}
			dreg, s, w, ok := fp8FoldReader(y, acc)
			if !ok || (c.s >= 0 && (s != c.s || w != c.w)) {
				break scan
			}
			c.s, c.w = s, w
			for r := dreg; r < dreg+w; r++ {
				read[r-acc.reg] = true
			}
			c.readers = append(c.readers, j)
		}
		for _, r := range read {
			good = good && r
		}
		if good && len(c.readers) > 0 {
			cands = append(cands, c)
		}
	}
	// Scale groups: the candidates whose readers read one scale from the
	// first to the last with nothing else reading or writing it; a
	// candidate in no such group is dropped, until none is.
	for changed := true; changed; {
		changed = false
		readerOf := map[int]int{} // reader index -> candidate
		for k, c := range cands {
			for _, j := range c.readers {
				readerOf[j] = k
			}
		}
		ok := make([]bool, len(cands))
		for k, c := range cands {
			ok[k] = scaleGroupOK(block, cands, readerOf, k, c.s, c.w)
		}
		var keep []fp8FoldCand
		for k, c := range cands {
			if ok[k] {
				keep = append(keep, c)
			} else {
				changed = true
			}
		}
		cands = keep
	}
	// The 4 before the first reader of each group, the 1/4 after its last.
	done := map[int]bool{} // candidates already in a group
	for k, c := range cands {
		pl.ends[c.end] = true
		if done[k] {
			continue
		}
		first, last := c.readers[0], c.readers[len(c.readers)-1]
		for m := k; m < len(cands); m++ {
			o := cands[m]
			if o.s == c.s && o.w == c.w && !done[m] && o.readers[0] <= rangeEnd(block, first, c.s, c.w) {
				done[m] = true
				last = max(last, o.readers[len(o.readers)-1])
			}
		}
		for r := c.s; r < c.s+c.w; r++ {
			pl.pre[first] = append(pl.pre[first], uint16(r))
			pl.post[last] = append(pl.post[last], uint16(r))
		}
	}
	return pl
}

// overlapsReg reports whether register operands a and b share a
// register.
func overlapsReg(a, b *isa.Operand) bool {
	return a.Kind == isa.KindReg && b.Kind == isa.KindReg && a.Class == b.Class &&
		int(a.Reg) < int(b.Reg)+int(b.Width) && int(b.Reg) < int(a.Reg)+int(a.Width)
}

// rangeEnd returns the index of the first instruction from first on that
// writes one of the w VGPRs from s (len(block) if none).
func rangeEnd(block []*isa.Inst, first, s, w int) int {
	for j := first; j < len(block); j++ {
		for r := s; r < s+w; r++ {
			if _, wr := fp8Names(block[j], isa.VGPR, r, fp8Wide(block[j])); wr {
				return j
			}
		}
	}
	return len(block)
}

// scaleGroupOK reports whether candidate k's scale (w VGPRs from s) is
// read, from its first reader to the last reader of the candidates that
// share it, only by those readers, with no write of it or of EXEC in
// between, and the two instructions after that last reader are neither
// an MFMA naming it nor a DPP operation permuting it.
func scaleGroupOK(block []*isa.Inst, cands []fp8FoldCand, readerOf map[int]int, k, s, w int) bool {
	first := cands[k].readers[0]
	end := rangeEnd(block, first, s, w)
	last := first
	for j := first; j < end; j++ {
		x := block[j]
		if x.Info.ImplicitWrites&isa.ImpEXEC != 0 || writesExec(x) || fp8WalkStop(x) {
			return false
		}
		read := false
		for r := s; r < s+w; r++ {
			if rd, _ := fp8Names(x, isa.VGPR, r, fp8Wide(x)); rd {
				read = true
			}
		}
		if !read {
			continue
		}
		m, ok := readerOf[j]
		if !ok || cands[m].s != s || cands[m].w != w {
			return false
		}
		last = max(last, cands[m].readers[len(cands[m].readers)-1])
	}
	// Every reader of the group lies before the scale's next write.
	if last >= end {
		return false
	}
	// The 1/4 multiply after the last reader is a VALU write: an MFMA
	// naming s or a DPP reading it as its permuted source would need 2
	// wait states after it (as for the expansion's own D scaling).
	for j := last + 1; j <= last+2; j++ {
		if j >= len(block) {
			return false
		}
		x := block[j]
		for r := s; r < s+w; r++ {
			rd, wr := fp8Names(x, isa.VGPR, r, fp8Wide(x))
			if (rd || wr) && strings.HasPrefix(x.Name(), "v_mfma") || strings.HasPrefix(x.Name(), "v_smfmac") && (rd || wr) {
				return false
			}
			if x.Format == isa.DPP && len(x.Operands) > 1 && x.Operands[1].Kind == isa.KindReg && x.Operands[1].Class == isa.VGPR &&
				r >= int(x.Operands[1].Reg) && r < int(x.Operands[1].Reg)+int(x.Operands[1].Width) {
				return false
			}
		}
	}
	return true
}

// fp8VSet is a set of the 256 VGPRs.
type fp8VSet [4]uint64

func (v *fp8VSet) has(r int) bool { return r >= 0 && r < 256 && v[r>>6]>>(r&63)&1 != 0 }

// addRange adds registers lo..hi-1 (clamped to 256).
func (v *fp8VSet) addRange(lo, hi int) {
	for r := max(lo, 0); r < min(hi, 256); r++ {
		v[r>>6] |= 1 << (r & 63)
	}
}

var fp8VSetAll = fp8VSet{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}

// fp8DeadAfter reports whether VGPR r is dead at the end of block: on
// every path of the scope from there, an instruction writes it whole (not
// DPP or SDWA, not reading it) before any reads it and before any EXEC
// write; a path ends well at s_endpgm. A path that leaves the scope's
// known edges (a call, a return, an indirect or unknown successor) or an
// undescribed instruction, or no scope, gives false. The sets of all
// blocks come from one greatest fixpoint over the scope's graph
// (fp8DeadExits), kept in st (nil: computed for this question).
func fp8DeadAfter(block []*isa.Inst, r int, scope FP8ScopeFunc, st *fp8ScopeState) bool {
	if scope == nil || len(block) == 0 {
		return false
	}
	if st == nil {
		st = &fp8ScopeState{blocks: map[*isa.Inst]*fp8BlockState{}}
	}
	g := st.graphOf(scope)
	k, ok := g.index[block[0]]
	if !ok {
		return false
	}
	if st.deadExit == nil {
		st.deadExit = fp8DeadExits(g.blocks, g.succs)
	}
	return st.deadExit[k].has(r)
}

// fp8DeadExits returns, per block, the VGPRs dead at its end as
// fp8DeadAfter defines them: a block decides a register at its first
// instruction that reads it (live) or writes it (dead when whole: not a
// gfx950-only operation, DPP or SDWA); an undescribed instruction, a
// walk stop or an EXEC write decides every undecided register live; the
// others are dead at entry when dead at the end. The end is dead for all
// at s_endpgm, for none at a call, return, indirect branch or a block
// without successors or with one outside the scope, else the
// intersection over the successors' entries. Cycles are assumed dead
// (the greatest fixpoint, from all dead).
func fp8DeadExits(blocks [][]*isa.Inst, succs [][]int) []fp8VSet {
	n := len(blocks)
	deadIn := make([]fp8VSet, n)  // decided dead at entry
	decided := make([]fp8VSet, n) // decided by the block itself
	for b, blk := range blocks {
		var dec, dead fp8VSet
	walk:
		for _, x := range blk {
			if x.Info == nil || fp8WalkStop(x) || x.Info.ImplicitWrites&isa.ImpEXEC != 0 || writesExec(x) {
				dec = fp8VSetAll
				break walk
			}
			wide := fp8Wide(x)
			var rd, wr fp8VSet
			for k := range x.Operands {
				o := &x.Operands[k]
				if o.Kind != isa.KindReg || o.Class != isa.VGPR {
					continue
				}
				w := int(o.Width)
				if wide {
					w = max(w, 16)
				}
				if o.Role.Uses() {
					rd.addRange(int(o.Reg), int(o.Reg)+w)
				}
				if o.Role.Defines() {
					wr.addRange(int(o.Reg), int(o.Reg)+w)
				}
			}
			whole := !wide && x.Format != isa.DPP && x.Format != isa.SDWA
			for i := range dec {
				und := ^dec[i]
				if whole {
					dead[i] |= und & wr[i] &^ rd[i]
				}
				dec[i] |= und & (rd[i] | wr[i])
			}
		}
		deadIn[b], decided[b] = dead, dec
	}
	entry := make([]fp8VSet, n)
	for b := range entry {
		entry[b] = fp8VSetAll
	}
	exit := make([]fp8VSet, n)
	exitOf := func(b int) fp8VSet {
		blk := blocks[b]
		if len(blk) == 0 {
			return fp8VSet{}
		}
		switch nm := blk[len(blk)-1].Name(); {
		case nm == "s_endpgm":
			return fp8VSetAll
		case nm == "s_setpc_b64" || nm == "s_swappc_b64" || nm == "s_call_b64" || len(succs[b]) == 0:
			return fp8VSet{}
		}
		out := fp8VSetAll
		for _, t := range succs[b] {
			if t < 0 || t >= n {
				return fp8VSet{}
			}
			for i := range out {
				out[i] &= entry[t][i]
			}
		}
		return out
	}
	for changed := true; changed; {
		changed = false
		for b := n - 1; b >= 0; b-- {
			exit[b] = exitOf(b)
			var in fp8VSet
			for i := range in {
				in[i] = deadIn[b][i] | exit[b][i]&^decided[b][i]
			}
			if in != entry[b] {
				entry[b], changed = in, true
			}
		}
	}
	return exit
}

// fp8Wide says the operands of x may touch more registers than decoded
// (an operation gfx942 lacks: read 16 wide, as fp8Walk does), except for
// the FP8 MFMAs the rule expands, whose operands are exact.
func fp8Wide(x *isa.Inst) bool {
	return !x.Info.Targets.Has(isa.GFX942) && !fp8Eligible(x)
}

// writesExec reports whether x names EXEC as a destination.
func writesExec(x *isa.Inst) bool {
	for k := range x.Operands {
		o := &x.Operands[k]
		if o.Kind == isa.KindReg && o.Class == isa.Special && o.Role.Defines() {
			if r := isa.SpecialReg(o.Reg); r == isa.RegEXECLo || r == isa.RegEXECHi {
				return true
			}
		}
	}
	return false
}
