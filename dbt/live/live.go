// Package live answers the translator's scratch-register questions for one
// kernel scope: which VGPRs, AGPRs and SGPRs may still be read after a
// given instruction. It is deliberately conservative: a write never ends a
// register's life, because vector writes are masked by EXEC and a lane
// that a write skips keeps its old value. A register is free after an
// instruction only if no instruction reachable from there reads it.
package live

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/rocjitsu/rocjitsu/dbt/cfg"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// Set is a register bit set for one register file: 256 entries, enough for
// v0..v255 and a0..a255 (each in its own set) and the SGPR file with its
// special registers (vcc, m0, exec, ... below 128). Registers outside it
// are not recorded.
type Set [4]uint64

// Add marks registers [first, first+n).
func (s *Set) Add(first, n int) {
	if b := first % 64; first >= 0 && n >= 0 && b+n <= 64 && first < 64*len(s) {
		// Within one word (every register tuple that starts aligned
		// enough): one mask.
		s[first/64] |= (^uint64(0) >> (64 - n)) << b
		return
	}
	lo, hi := max(first, 0), min(first+n, 64*len(s)) // [lo, hi)
	for lo < hi {
		w, b := lo/64, lo%64
		k := min(hi-lo, 64-b) // bits in this word
		s[w] |= (^uint64(0) >> (64 - k)) << b
		lo += k
	}
}

// Has reports whether r is in the set.
func (s *Set) Has(r int) bool { return r >= 0 && r < 64*len(s) && s[r/64]>>(r%64)&1 != 0 }

// Or adds every member of t.
func (s *Set) Or(t *Set) bool {
	changed := false
	for i := range s {
		n := s[i] | t[i]
		if n != s[i] {
			s[i] = n
			changed = true
		}
	}
	return changed
}

// Regs are the three register files.
type Regs struct{ V, A, S Set }

func (r *Regs) or(t *Regs) bool {
	a := r.V.Or(&t.V)
	b := r.A.Or(&t.A)
	c := r.S.Or(&t.S)
	return a || b || c
}

// touch adds every register operand of in (reads and writes when all is
// set, reads only otherwise).
func (r *Regs) touch(in *isa.Inst, all bool) {
	for i := range in.Operands {
		o := &in.Operands[i]
		if o.Kind != isa.KindReg || (!all && !o.Role.Uses()) {
			continue
		}
		switch o.Class {
		case isa.VGPR:
			r.V.Add(int(o.Reg), int(o.Width))
		case isa.AGPR:
			r.A.Add(int(o.Reg), int(o.Width))
		case isa.SGPR:
			r.S.Add(int(o.Reg), int(o.Width))
		}
	}
}

// touchBoth adds the registers in reads to reads and every register
// operand of in to all: touch(in, false) on reads and touch(in, true) on
// all in one pass over the operands.
func touchBoth(reads, all *Regs, in *isa.Inst) {
	for i := range in.Operands {
		o := &in.Operands[i]
		if o.Kind != isa.KindReg {
			continue
		}
		var r, a *Set
		switch o.Class {
		case isa.VGPR:
			r, a = &reads.V, &all.V
		case isa.AGPR:
			r, a = &reads.A, &all.A
		case isa.SGPR:
			r, a = &reads.S, &all.S
		default:
			continue
		}
		a.Add(int(o.Reg), int(o.Width))
		if o.Role.Uses() {
			r.Add(int(o.Reg), int(o.Width))
		}
	}
}

// add marks one register operand.
func (r *Regs) add(o isa.Operand) {
	switch o.Class {
	case isa.VGPR:
		r.V.Add(int(o.Reg), int(o.Width))
	case isa.AGPR:
		r.A.Add(int(o.Reg), int(o.Width))
	case isa.SGPR:
		r.S.Add(int(o.Reg), int(o.Width))
	}
}

// Info is the analysis of one scope. The per-instruction sets are
// computed block by block on the first question about a block, so an Info
// must not be used by several goroutines at once.
type Info struct {
	g *cfg.Graph
	// blocks are the scope's blocks by ascending start address, out their
	// live-out sets (what may be read after the last instruction).
	blocks []*cfg.Block
	out    []Regs
	// after[i] holds the registers that may be read by anything that can
	// execute after each instruction of blocks[i] (empty until asked).
	after []blockSets
	// extraBy[k] lists the instructions of blocks[k] with extra uses, by
	// ascending index (nil: no extra uses in the scope).
	extraBy [][]extraAt
	// last is the index in blocks of the last After's block, lastAt the
	// index of its instruction in that block.
	last, lastAt int
	// Used holds every register the scope names at all.
	Used Regs
}

// ExtraUses returns registers an instruction reads beyond its decoded
// operands (a conservative superset is always safe). It may be nil. It
// must give the same registers every time it is asked about an
// instruction: Analyze asks once and keeps the slice it returns (which
// must not change afterwards).
type ExtraUses func(in *isa.Inst) []isa.Operand

// extraAt is one instruction's extra uses: j is its index in its block,
// ops what ExtraUses returned for it.
type extraAt struct {
	j   int
	ops []isa.Operand
}

// Analyze computes the reads reachable after each instruction of sc.
func Analyze(g *cfg.Graph, sc *cfg.Scope, extra ExtraUses) *Info {
	idx := make(map[uint64]int, len(sc.Blocks))
	for i, l := range sc.Blocks {
		idx[l] = i
	}
	info := &Info{g: g}
	in := make([]Regs, len(sc.Blocks))
	local := make([]Regs, len(sc.Blocks))
	// The extra uses found, by scope block: xr[i] is the range of xs
	// for block i (nil when there are none at all).
	var xr [][2]int32
	var xs []extraAt
	for i, l := range sc.Blocks {
		b := g.Blocks[l]
		r := &local[i]
		for j, x := range b.Insts {
			touchBoth(r, &info.Used, x)
			if extra == nil {
				continue
			}
			ops := extra(x)
			for _, o := range ops {
				r.add(o)
				info.Used.add(o)
			}
			if len(ops) > 0 {
				// Kept for blockAfter, which then need not ask again.
				if xr == nil {
					xr = make([][2]int32, len(sc.Blocks))
				}
				if xr[i][0] == xr[i][1] {
					xr[i][0] = int32(len(xs))
				}
				xs = append(xs, extraAt{j, ops})
				xr[i][1] = int32(len(xs))
			}
		}
	}
	// next[i] are the scope-block indexes execution may continue at after
	// block i: its successors and callees (a return, s_setpc through a
	// validated call, continues at every continuation of the scope, so
	// those are folded in conservatively).
	var conts []uint64
	for _, l := range sc.Blocks {
		for _, c := range g.Blocks[l].Calls {
			conts = append(conts, c.Cont)
		}
	}
	next := make([][]int, len(sc.Blocks))
	// One backing array for all the lists (about two edges a block).
	flat := make([]int, 0, 2*len(sc.Blocks))
	for i, l := range sc.Blocks {
		b := g.Blocks[l]
		start := len(flat)
		add := func(a uint64) {
			if j, ok := idx[a]; ok {
				flat = append(flat, j)
			}
		}
		for _, s := range b.Succs {
			add(s)
		}
		for _, c := range b.Calls {
			add(c.Callee)
		}
		if ind, ok := g.Indirect[b.Last().PC]; ok && ind.Kind == cfg.Return {
			for _, c := range conts {
				add(c)
			}
		}
		next[i] = flat[start:len(flat):len(flat)]
	}
	// Backward fixpoint: in[b] = local[b] | in[succ...].
	for changed := true; changed; {
		changed = false
		for i := len(sc.Blocks) - 1; i >= 0; i-- {
			r := local[i]
			for _, j := range next[i] {
				r.or(&in[j])
			}
			if in[i].or(&r) {
				changed = true
			}
		}
	}
	order := make([]int, len(sc.Blocks))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(sc.Blocks[a], sc.Blocks[b]) })
	info.blocks = make([]*cfg.Block, len(order))
	info.out = make([]Regs, len(order))
	info.after = make([]blockSets, len(order))
	if xr != nil {
		info.extraBy = make([][]extraAt, len(order))
	}
	for k, i := range order {
		info.blocks[k] = g.Blocks[sc.Blocks[i]]
		if xr != nil {
			info.extraBy[k] = xs[xr[i][0]:xr[i][1]:xr[i][1]]
		}
		for _, j := range next[i] {
			info.out[k].or(&in[j])
		}
	}
	return info
}

// blockSets are the live-after sets of a block's instructions: walking
// back from the block's end a set changes only at an instruction that
// reads a register not yet in it (a few in a hundred), so the block keeps
// each distinct set once, sets, and instruction j's set is sets[at[j]].
type blockSets struct {
	sets []Regs
	at   []int32
}

// After returns the registers that may be read after the instruction at
// pc (nil when pc is not in the scope). The set is shared with the
// neighbouring instructions of its block that have the same set: a caller
// that changes it changes theirs too (adding the same registers after
// every instruction of the scope is the one change that keeps the
// answers exact).
func (i *Info) After(pc uint64) *Regs {
	// Questions come mostly in address order: try the block of the last
	// answer (it is the right one when it is the last block starting at
	// or before pc) before searching.
	k := i.last
	if k >= len(i.blocks) || pc < i.blocks[k].Start || k+1 < len(i.blocks) && i.blocks[k+1].Start <= pc {
		k, _ = slices.BinarySearchFunc(i.blocks, pc, func(b *cfg.Block, pc uint64) int { return cmp.Compare(b.Start, pc+1) })
		k--
	}
	if k < 0 || pc >= i.blocks[k].End {
		return nil
	}
	b := i.blocks[k]
	// The instruction after the last answer's comes next most often.
	j := i.lastAt + 1
	if k != i.last || j >= len(b.Insts) || b.Insts[j].PC != pc {
		var found bool
		j, found = slices.BinarySearchFunc(b.Insts, pc, func(x *isa.Inst, pc uint64) int { return cmp.Compare(x.PC, pc) })
		if !found {
			return nil
		}
	}
	i.last, i.lastAt = k, j
	if i.after[k].at == nil {
		var xs []extraAt
		if i.extraBy != nil {
			xs = i.extraBy[k]
		}
		i.after[k] = i.blockAfter(b, &i.out[k], xs)
	}
	a := &i.after[k]
	return &a.sets[a.at[j]]
}

// blockAfter computes the registers read after each instruction of b,
// walking back from its live-out set; xs are b's extra uses.
func (i *Info) blockAfter(b *cfg.Block, out *Regs, xs []extraAt) blockSets {
	at := make([]int32, len(b.Insts))
	sets := make([]Regs, 1, 4)
	sets[0] = *out
	r := *out
	x := len(xs) - 1
	for j := len(b.Insts) - 1; j >= 0; j-- {
		at[j] = int32(len(sets) - 1)
		if j == 0 {
			break // nothing is asked about the set before the block
		}
		prev := r
		r.touch(b.Insts[j], false)
		if x >= 0 && xs[x].j == j {
			for _, o := range xs[x].ops {
				r.add(o)
			}
			x--
		}
		if r != prev {
			sets = append(sets, r)
		}
	}
	return blockSets{sets: sets, at: at}
}

// FreeVGPRs returns up to n VGPRs below limit that are neither read after
// the instruction at pc nor named by in itself, lowest first.
func (i *Info) FreeVGPRs(in *isa.Inst, limit, n int) []uint16 {
	a := i.After(in.PC)
	if a == nil {
		return nil
	}
	var self Set
	for k := range in.Operands {
		if o := &in.Operands[k]; o.Kind == isa.KindReg && o.Class == isa.VGPR {
			self.Add(int(o.Reg), int(o.Width))
		}
	}
	limit0 := limit
	limit = min(limit, 64*len(self))
	var out []uint16
	for w := 0; 64*w < limit && len(out) < n; w++ {
		free := ^(a.V[w] | self[w])
		if rest := limit - 64*w; rest < 64 {
			free &= 1<<uint(rest) - 1
		}
		for free != 0 && len(out) < n {
			b := bits.TrailingZeros64(free)
			free &^= 1 << uint(b)
			out = append(out, uint16(64*w+b))
		}
	}
	for r := 64 * len(self); r < limit0 && len(out) < n; r++ {
		out = append(out, uint16(r)) // beyond the sets: never read
	}
	return out
}

// FreeSGPRPair returns an even SGPR pair below limit that is not read after
// the instruction at pc and not named by it.
func (i *Info) FreeSGPRPair(in *isa.Inst, limit int) (uint16, bool) {
	a := i.After(in.PC)
	if a == nil {
		return 0, false
	}
	var self Regs
	self.touch(in, true)
	for r := 0; r+1 < limit; r += 2 {
		if !a.S.Has(r) && !a.S.Has(r+1) && !self.S.Has(r) && !self.S.Has(r+1) {
			return uint16(r), true
		}
	}
	return 0, false
}
