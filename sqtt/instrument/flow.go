package instrument

import (
	"sort"

	"github.com/rocjitsu/rocjitsu/dbt/cfg"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// special are the implicit registers a marker sequence may clobber.
type special uint8

const (
	spM0 special = 1 << iota
	spSCC
)

// specials returns the special registers in reads and writes.
func specials(in *isa.Inst) (reads, writes special) {
	if in.Info != nil {
		if in.Info.ImplicitReads&isa.ImpM0 != 0 {
			reads |= spM0
		}
		if in.Info.ImplicitReads&isa.ImpSCC != 0 {
			reads |= spSCC
		}
		if in.Info.ImplicitWrites&isa.ImpM0 != 0 {
			writes |= spM0
		}
		if in.Info.ImplicitWrites&isa.ImpSCC != 0 {
			writes |= spSCC
		}
	}
	for _, o := range in.Operands {
		if o.Kind != isa.KindReg || o.Class != isa.Special {
			continue
		}
		var s special
		switch isa.SpecialReg(o.Reg) {
		case isa.RegM0:
			s = spM0
		case isa.RegSCC:
			s = spSCC
		default:
			continue
		}
		if o.Role.Uses() {
			reads |= s
		}
		if o.Role.Defines() {
			writes |= s
		}
	}
	return reads, writes
}

// specialLive computes, for every instruction of the scope, which of M0
// and SCC may be read before being written after it (liveAfter) and
// before it (liveBefore). Calls, returns and unresolved transfers keep
// both live (unknown code runs there).
type specialLive struct {
	after, before map[uint64]special
}

func analyzeSpecial(g *cfg.Graph, sc *cfg.Scope) *specialLive {
	in := map[uint64]special{}
	inScope := map[uint64]bool{}
	for _, l := range sc.Blocks {
		inScope[l] = true
	}
	out := func(b *cfg.Block) special {
		last := b.Last()
		if len(b.Calls) > 0 {
			return spM0 | spSCC
		}
		if last.Info.Branch == isa.BranchIndirect {
			if ind, ok := g.Indirect[last.PC]; !ok || ind.Kind != cfg.IndirectJump {
				return spM0 | spSCC
			}
		}
		var s special
		for _, x := range b.Succs {
			if !inScope[x] {
				return spM0 | spSCC
			}
			s |= in[x]
		}
		return s
	}
	transfer := func(b *cfg.Block, s special, rec *specialLive) special {
		for i := len(b.Insts) - 1; i >= 0; i-- {
			x := b.Insts[i]
			if rec != nil {
				rec.after[x.PC] = s
			}
			r, w := specials(x)
			s = s&^w | r
			if rec != nil {
				rec.before[x.PC] = s
			}
		}
		return s
	}
	for changed := true; changed; {
		changed = false
		for i := len(sc.Blocks) - 1; i >= 0; i-- {
			b := g.Blocks[sc.Blocks[i]]
			s := transfer(b, out(b), nil)
			if s|in[b.Start] != in[b.Start] {
				in[b.Start] |= s
				changed = true
			}
		}
	}
	rec := &specialLive{after: map[uint64]special{}, before: map[uint64]special{}}
	for _, l := range sc.Blocks {
		b := g.Blocks[l]
		transfer(b, out(b), rec)
	}
	return rec
}

// loop is a natural loop: its header, its blocks, and its back-edge
// sources.
type loop struct {
	header  uint64
	blocks  map[uint64]bool
	latches []uint64
}

// naturalLoops finds the natural loops of the intra-procedural CFG of
// blocks reachable from roots (calls are not followed), merging loops that
// share a header, outermost first (by size, then header address).
func naturalLoops(g *cfg.Graph, blocks []uint64, roots []uint64) []*loop {
	inSet := map[uint64]bool{}
	for _, b := range blocks {
		inSet[b] = true
	}
	preds := map[uint64][]uint64{}
	for _, b := range blocks {
		for _, s := range succs(g, g.Blocks[b]) {
			if inSet[s] {
				preds[s] = append(preds[s], b)
			}
		}
		for _, c := range g.Blocks[b].Calls {
			if inSet[c.Cont] && !contains(g.Blocks[b].Succs, c.Cont) {
				preds[c.Cont] = append(preds[c.Cont], b)
			}
		}
	}
	next := func(b uint64) []uint64 {
		s := succs(g, g.Blocks[b])
		for _, c := range g.Blocks[b].Calls {
			if !contains(s, c.Cont) {
				s = append(append([]uint64(nil), s...), c.Cont)
			}
		}
		return s
	}
	// Reverse post order from the roots.
	var rpo []uint64
	seen := map[uint64]bool{}
	var dfs func(uint64)
	dfs = func(b uint64) {
		seen[b] = true
		for _, s := range next(b) {
			if inSet[s] && !seen[s] {
				dfs(s)
			}
		}
		rpo = append(rpo, b)
	}
	for _, r := range roots {
		if inSet[r] && !seen[r] {
			dfs(r)
		}
	}
	for i, j := 0, len(rpo)-1; i < j; i, j = i+1, j-1 {
		rpo[i], rpo[j] = rpo[j], rpo[i]
	}
	// Iterative dominators (Cooper, Harvey, Kennedy) over a virtual root.
	idx := map[uint64]int{}
	for i, b := range rpo {
		idx[b] = i
	}
	const virt = -1
	idom := make([]int, len(rpo))
	for i := range idom {
		idom[i] = -2
	}
	isRoot := map[uint64]bool{}
	for _, r := range roots {
		if _, ok := idx[r]; ok {
			isRoot[r] = true
			idom[idx[r]] = virt
		}
	}
	intersect := func(a, b int) int {
		for a != b {
			if a == virt || b == virt {
				return virt
			}
			for a > b {
				a = idom[a]
				if a == virt {
					return virt
				}
			}
			for b > a {
				b = idom[b]
				if b == virt {
					return virt
				}
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for i, b := range rpo {
			if isRoot[b] {
				continue
			}
			nd := -2
			for _, p := range preds[b] {
				pi, ok := idx[p]
				if !ok || idom[pi] == -2 {
					continue
				}
				if nd == -2 {
					nd = pi
				} else {
					nd = intersect(pi, nd)
				}
			}
			if nd != -2 && idom[i] != nd {
				idom[i] = nd
				changed = true
			}
		}
	}
	dominates := func(h, b int) bool {
		for b >= 0 {
			if b == h {
				return true
			}
			b = idom[b]
		}
		return false
	}
	byHeader := map[uint64]*loop{}
	for _, b := range rpo {
		for _, s := range next(b) {
			si, ok := idx[s]
			if !ok || !dominates(si, idx[b]) {
				continue
			}
			l := byHeader[s]
			if l == nil {
				l = &loop{header: s, blocks: map[uint64]bool{s: true}}
				byHeader[s] = l
			}
			l.latches = append(l.latches, b)
			stack := []uint64{b}
			for len(stack) > 0 {
				x := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if l.blocks[x] {
					continue
				}
				l.blocks[x] = true
				stack = append(stack, preds[x]...)
			}
		}
	}
	var ls []*loop
	for _, l := range byHeader {
		ls = append(ls, l)
	}
	sort.Slice(ls, func(i, j int) bool {
		if len(ls[i].blocks) != len(ls[j].blocks) {
			return len(ls[i].blocks) > len(ls[j].blocks)
		}
		return ls[i].header < ls[j].header
	})
	return ls
}

// succs are a block's intra-procedural successors: a validated return's
// recovered continuations are not edges of the function it ends.
func succs(g *cfg.Graph, b *cfg.Block) []uint64 {
	if ind, ok := g.Indirect[b.Last().PC]; ok && ind.Kind == cfg.Return {
		return nil
	}
	return b.Succs
}

func contains(s []uint64, a uint64) bool {
	for _, x := range s {
		if x == a {
			return true
		}
	}
	return false
}
