// Package live answers the translator's scratch-register questions for one
// kernel scope: which VGPRs, AGPRs and SGPRs may still be read after a
// given instruction. It is deliberately conservative: a write never ends a
// register's life, because vector writes are masked by EXEC and a lane
// that a write skips keeps its old value. A register is free after an
// instruction only if no instruction reachable from there reads it.
package live

import (
	"github.com/rocjitsu/rocjitsu/dbt/cfg"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// Set is a register bit set for one register file (512 entries covers
// v0..v255 and a0..a255 separately; SGPRs use the first 106).
type Set [8]uint64

// Add marks registers [first, first+n).
func (s *Set) Add(first, n int) {
	for r := first; r < first+n && r < 512; r++ {
		if r >= 0 {
			s[r/64] |= 1 << (r % 64)
		}
	}
}

// Has reports whether r is in the set.
func (s *Set) Has(r int) bool { return r >= 0 && r < 512 && s[r/64]>>(r%64)&1 != 0 }

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

// Info is the analysis of one scope.
type Info struct {
	// after maps an instruction address to the registers that may be read
	// by anything that can execute after it.
	after map[uint64]*Regs
	// Used holds every register the scope names at all.
	Used Regs
}

// ExtraUses returns registers an instruction reads beyond its decoded
// operands (a conservative superset is always safe). It may be nil.
type ExtraUses func(in *isa.Inst) []isa.Operand

// Analyze computes the reads reachable after each instruction of sc.
func Analyze(g *cfg.Graph, sc *cfg.Scope, extra ExtraUses) *Info {
	in := map[uint64]*Regs{}
	inScope := map[uint64]bool{}
	for _, l := range sc.Blocks {
		in[l] = new(Regs)
		inScope[l] = true
	}
	info := &Info{after: map[uint64]*Regs{}}
	local := map[uint64]*Regs{}
	for _, l := range sc.Blocks {
		b := g.Blocks[l]
		var r Regs
		for _, x := range b.Insts {
			r.touch(x, false)
			info.Used.touch(x, true)
			if extra != nil {
				for _, o := range extra(x) {
					r.add(o)
					info.Used.add(o)
				}
			}
		}
		local[l] = &r
	}
	succs := func(b *cfg.Block) []uint64 {
		out := append([]uint64(nil), b.Succs...)
		for _, c := range b.Calls {
			out = append(out, c.Callee)
		}
		return out
	}
	// Backward fixpoint: in[b] = local[b] | in[succ...]. A return
	// (s_setpc through a validated call) continues at every continuation
	// of the scope, so fold those in conservatively.
	var conts []uint64
	for _, l := range sc.Blocks {
		for _, c := range g.Blocks[l].Calls {
			conts = append(conts, c.Cont)
		}
	}
	for changed := true; changed; {
		changed = false
		for i := len(sc.Blocks) - 1; i >= 0; i-- {
			l := sc.Blocks[i]
			b := g.Blocks[l]
			var r Regs
			r.or(local[l])
			next := succs(b)
			if ind, ok := g.Indirect[b.Last().PC]; ok && ind.Kind == cfg.Return {
				next = append(next, conts...)
			}
			for _, s := range next {
				if inScope[s] {
					r.or(in[s])
				}
			}
			if in[l].or(&r) {
				changed = true
			}
		}
	}
	n := 0
	for _, l := range sc.Blocks {
		n += len(g.Blocks[l].Insts)
	}
	slab := make([]Regs, n)
	info.after = make(map[uint64]*Regs, n)
	for _, l := range sc.Blocks {
		b := g.Blocks[l]
		var r Regs
		next := succs(b)
		if ind, ok := g.Indirect[b.Last().PC]; ok && ind.Kind == cfg.Return {
			next = append(next, conts...)
		}
		for _, s := range next {
			if inScope[s] {
				r.or(in[s])
			}
		}
		for i := len(b.Insts) - 1; i >= 0; i-- {
			c := &slab[0]
			slab = slab[1:]
			*c = r
			info.after[b.Insts[i].PC] = c
			r.touch(b.Insts[i], false)
			if extra != nil {
				for _, o := range extra(b.Insts[i]) {
					r.add(o)
				}
			}
		}
	}
	return info
}

// After returns the registers that may be read after the instruction at
// pc (nil when pc is not in the scope).
func (i *Info) After(pc uint64) *Regs { return i.after[pc] }

// FreeVGPRs returns up to n VGPRs below limit that are neither read after
// the instruction at pc nor named by in itself, lowest first.
func (i *Info) FreeVGPRs(in *isa.Inst, limit, n int) []uint16 {
	a := i.after[in.PC]
	if a == nil {
		return nil
	}
	var self Regs
	self.touch(in, true)
	var out []uint16
	for r := 0; r < limit && len(out) < n; r++ {
		if !a.V.Has(r) && !self.V.Has(r) {
			out = append(out, uint16(r))
		}
	}
	return out
}

// FreeSGPRPair returns an even SGPR pair below limit that is not read after
// the instruction at pc and not named by it.
func (i *Info) FreeSGPRPair(in *isa.Inst, limit int) (uint16, bool) {
	a := i.after[in.PC]
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
