package cfg

import (
	"fmt"
	"sort"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// numSGPR is the number of tracked scalar registers (s0..s105); index
// numSGPR is SCC.
const (
	numSGPR = 106
	sccIdx  = numSGPR
	maxSet  = 4
)

// vset is a small set of possible 32-bit values, or top (unknown).
type vset struct {
	top bool
	n   uint8
	v   [maxSet]uint32
}

var topSet = vset{top: true}

func one(x uint32) vset { return vset{n: 1, v: [maxSet]uint32{x}} }

func (s vset) has(x uint32) bool {
	for i := 0; i < int(s.n); i++ {
		if s.v[i] == x {
			return true
		}
	}
	return false
}

func (s vset) union(t vset) vset {
	if s.top || t.top {
		return topSet
	}
	for i := 0; i < int(t.n); i++ {
		if !s.has(t.v[i]) {
			if s.n == maxSet {
				return topSet
			}
			s.v[s.n] = t.v[i]
			s.n++
		}
	}
	return s
}

func (s vset) single() (uint32, bool) {
	if s.top || s.n != 1 {
		return 0, false
	}
	return s.v[0], true
}

// state is the abstract scalar state: SGPRs and SCC.
type state [numSGPR + 1]vset

func allTop() *state {
	s := new(state)
	for i := range s {
		s[i] = topSet
	}
	return s
}

func (s *state) join(t *state) bool {
	changed := false
	for i := range s {
		u := s[i].union(t[i])
		if u != s[i] {
			s[i] = u
			changed = true
		}
	}
	return changed
}

// srcVal returns the abstract value of a 32-bit source operand.
func (s *state) srcVal(in *isa.Inst, o *isa.Operand) vset {
	switch o.Kind {
	case isa.KindReg:
		if o.Class == isa.SGPR && int(o.Reg) < numSGPR {
			return s[o.Reg]
		}
	case isa.KindInline:
		c := o.Imm
		switch {
		case c >= 128 && c <= 192:
			return one(uint32(c - 128))
		case c >= 193 && c <= 208:
			return one(uint32(int32(192 - c)))
		}
	case isa.KindLiteral:
		if in.HasLiteral {
			return one(in.Literal)
		}
		return one(uint32(o.Imm))
	case isa.KindImm:
		return one(uint32(o.Imm))
	}
	return topSet
}

func (s *state) set(reg uint16, v vset) {
	if int(reg) < numSGPR {
		s[reg] = v
	}
}

// binop applies f to every pair of values (with the SCC input when
// needsCarry) and records results and carries.
func binop(a, b, scc vset, needsCarry bool, f func(x, y, c uint32) (r, carry uint32)) (vset, vset) {
	if a.top || b.top || (needsCarry && scc.top) {
		return topSet, topSet
	}
	cs := one(0)
	if needsCarry {
		cs = scc
	}
	var r, c vset
	for i := 0; i < int(a.n); i++ {
		for j := 0; j < int(b.n); j++ {
			for k := 0; k < int(cs.n); k++ {
				x, y := f(a.v[i], b.v[j], cs.v[k])
				r = r.union(one(x))
				c = c.union(one(y))
			}
		}
	}
	return r, c
}

// transfer applies one instruction to s.
func (s *state) transfer(in *isa.Inst) {
	ops := in.Operands
	name := in.Name()
	switch name {
	case "s_getpc_b64":
		if len(ops) >= 1 && ops[0].Class == isa.SGPR {
			pc := in.PC + uint64(in.Size)
			s.set(ops[0].Reg, one(uint32(pc)))
			s.set(ops[0].Reg+1, one(uint32(pc>>32)))
			return
		}
	case "s_swappc_b64":
		if len(ops) >= 1 && ops[0].Class == isa.SGPR {
			pc := in.PC + uint64(in.Size)
			s.set(ops[0].Reg, one(uint32(pc)))
			s.set(ops[0].Reg+1, one(uint32(pc>>32)))
			return
		}
	case "s_mov_b32":
		if len(ops) == 2 && ops[0].Class == isa.SGPR {
			s.set(ops[0].Reg, s.srcVal(in, &ops[1]))
			return
		}
	case "s_mov_b64":
		if len(ops) == 2 && ops[0].Class == isa.SGPR {
			if ops[1].Kind == isa.KindReg && ops[1].Class == isa.SGPR && int(ops[1].Reg)+1 < numSGPR {
				lo, hi := s[ops[1].Reg], s[ops[1].Reg+1]
				s.set(ops[0].Reg, lo)
				s.set(ops[0].Reg+1, hi)
				return
			}
		}
	case "s_add_u32", "s_addc_u32", "s_sub_u32", "s_subb_u32":
		if len(ops) == 3 && ops[0].Class == isa.SGPR {
			a, b := s.srcVal(in, &ops[1]), s.srcVal(in, &ops[2])
			var r, c vset
			switch name {
			case "s_add_u32":
				r, c = binop(a, b, s[sccIdx], false, func(x, y, _ uint32) (uint32, uint32) {
					t := uint64(x) + uint64(y)
					return uint32(t), uint32(t >> 32)
				})
			case "s_addc_u32":
				r, c = binop(a, b, s[sccIdx], true, func(x, y, ci uint32) (uint32, uint32) {
					t := uint64(x) + uint64(y) + uint64(ci)
					return uint32(t), uint32(t >> 32)
				})
			case "s_sub_u32":
				r, c = binop(a, b, s[sccIdx], false, func(x, y, _ uint32) (uint32, uint32) {
					if y > x {
						return x - y, 1
					}
					return x - y, 0
				})
			default:
				r, c = binop(a, b, s[sccIdx], true, func(x, y, ci uint32) (uint32, uint32) {
					t := uint64(y) + uint64(ci)
					if t > uint64(x) {
						return uint32(uint64(x) - t), 1
					}
					return uint32(uint64(x) - t), 0
				})
			}
			s.set(ops[0].Reg, r)
			s[sccIdx] = c
			return
		}
	}
	// Anything else: every written SGPR and SCC become unknown.
	for i := range ops {
		o := &ops[i]
		if o.Kind == isa.KindReg && o.Role.Defines() && o.Class == isa.SGPR {
			for r := 0; r < int(o.Width); r++ {
				s.set(o.Reg+uint16(r), topSet)
			}
		}
	}
	if in.Info.ImplicitWrites&isa.ImpSCC != 0 {
		s[sccIdx] = topSet
	}
}

// preds computes the predecessor lists used by the data-flow analysis:
// branch/fallthrough edges, and call-site to callee. A call's continuation
// gets an all-unknown state (the callee may write anything).
func (g *Graph) flowEdges() (succ map[uint64][]uint64, calls map[uint64][]uint64) {
	succ = map[uint64][]uint64{}
	calls = map[uint64][]uint64{}
	for _, l := range g.Order {
		b := g.Blocks[l]
		for _, s := range b.Succs {
			if _, ok := g.Blocks[s]; ok {
				succ[l] = append(succ[l], s)
			}
		}
		for _, c := range b.Calls {
			if _, ok := g.Blocks[c.Callee]; ok {
				calls[l] = append(calls[l], c.Callee)
			}
		}
	}
	return succ, calls
}

// recover runs the bounded data flow and returns, for every indirect
// consumer whose target pair holds a small concrete set of in-text,
// aligned addresses, that set (sorted).
func (g *Graph) recover(maxTargets int) map[uint64][]uint64 {
	out := map[uint64][]uint64{}
	if !g.hasIndirect() {
		return out // nothing to recover: no data flow
	}
	in := g.dataflow()
	for _, l := range g.Order {
		b := g.Blocks[l]
		st := in[l]
		if st == nil {
			continue
		}
		s := *st
		for _, x := range b.Insts {
			if isIndirectConsumer(x) {
				if ts, ok := s.targets(x, g.Text, maxTargets); ok {
					out[x.PC] = ts
				}
			}
			s.transfer(x)
		}
	}
	return out
}

// targetPair returns the SGPR pair an indirect consumer jumps through.
func targetPair(x *isa.Inst) (uint16, bool) {
	for _, o := range x.Operands {
		if o.Kind == isa.KindReg && o.Role.Uses() && o.Class == isa.SGPR && o.Width == 2 {
			return o.Reg, true
		}
	}
	return 0, false
}

// returnPair returns the SGPR pair s_swappc_b64 / s_call_b64 writes.
func returnPair(x *isa.Inst) (uint16, bool) {
	for _, o := range x.Operands {
		if o.Kind == isa.KindReg && o.Role.Defines() && o.Class == isa.SGPR && o.Width == 2 {
			return o.Reg, true
		}
	}
	return 0, false
}

func (s *state) targets(x *isa.Inst, text Text, maxTargets int) ([]uint64, bool) {
	p, ok := targetPair(x)
	if !ok || int(p)+1 >= numSGPR {
		return nil, false
	}
	lo, hi := s[p], s[p+1]
	h, ok := hi.single()
	if !ok || lo.top || int(lo.n) > maxTargets {
		return nil, false
	}
	var ts []uint64
	for i := 0; i < int(lo.n); i++ {
		t := uint64(h)<<32 | uint64(lo.v[i])
		if !text.Contains(t) || t%4 != 0 {
			return nil, false
		}
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	return ts, true
}

// hasIndirect reports whether a block ends in an indirect consumer
// (s_setpc_b64, s_swappc_b64 and the like end their blocks).
func (g *Graph) hasIndirect() bool {
	for _, l := range g.Order {
		if b := g.Blocks[l]; b != nil && len(b.Insts) > 0 && isIndirectConsumer(b.Last()) {
			return true
		}
	}
	return false
}

// isIndirectConsumer reports whether x transfers control through a
// register pair whose targets recover looks for.
func isIndirectConsumer(x *isa.Inst) bool {
	return x.Info.Branch == isa.BranchIndirect || (x.Info.Branch == isa.BranchCall && x.Name() == "s_swappc_b64")
}

// dataflow computes block entry states. Roots start all-unknown.
func (g *Graph) dataflow() map[uint64]*state {
	succ, calls := g.flowEdges()
	in := map[uint64]*state{}
	var work []uint64
	queued := map[uint64]bool{}
	enqueue := func(a uint64, s *state) {
		cur := in[a]
		changed := false
		if cur == nil {
			c := *s
			in[a] = &c
			changed = true
		} else {
			changed = cur.join(s)
		}
		if changed && !queued[a] {
			queued[a] = true
			work = append(work, a)
		}
	}
	for _, r := range g.Roots {
		if _, ok := g.Blocks[r.Addr]; ok {
			enqueue(r.Addr, allTop())
		}
	}
	budget := 64 * (len(g.Order) + 1)
	for len(work) > 0 && budget > 0 {
		budget--
		a := work[0]
		work = work[1:]
		queued[a] = false
		b := g.Blocks[a]
		s := *in[a]
		for _, x := range b.Insts {
			s.transfer(x)
		}
		for _, c := range calls[a] {
			enqueue(c, &s)
		}
		for _, t := range succ[a] {
			if len(b.Calls) > 0 && t == b.End {
				enqueue(t, allTop())
				continue
			}
			enqueue(t, &s)
		}
	}
	if len(work) > 0 {
		// Did not converge within the budget: give up on everything.
		return map[uint64]*state{}
	}
	return in
}

// classifyIndirect fills g.Indirect: recovered jumps and calls, returns
// through a validated call's return pair, and unresolved transfers.
func (g *Graph) classifyIndirect(extra map[uint64][]uint64, maxTargets int) {
	// Return pairs of calls, and the blocks reachable from each callee.
	type callInfo struct {
		ret    uint16
		callee uint64
	}
	var cs []callInfo
	for _, l := range g.Order {
		b := g.Blocks[l]
		last := b.Last()
		if last.Info.Branch != isa.BranchCall {
			continue
		}
		rp, ok := returnPair(last)
		if !ok {
			continue
		}
		for _, c := range b.Calls {
			cs = append(cs, callInfo{ret: rp, callee: c.Callee})
		}
	}
	conts := map[uint64]uint16{} // continuation -> return pair of its call
	for _, l := range g.Order {
		b := g.Blocks[l]
		if rp, ok := returnPair(b.Last()); ok && b.Last().Info.Branch == isa.BranchCall {
			for _, c := range b.Calls {
				conts[c.Cont] = rp
			}
		}
	}
	returnsOf := map[uint64]uint16{} // setpc addr -> return pair validated
	for _, c := range cs {
		for _, l := range g.reachable([]uint64{c.callee}, nil) {
			last := g.Blocks[l].Last()
			if last.Info.Branch == isa.BranchIndirect {
				p, ok := targetPair(last)
				if !ok || p != c.ret {
					continue
				}
				// Recovered targets that are all continuations of calls
				// through the same pair are returns too.
				allConts := true
				for _, t := range extra[last.PC] {
					if rp, ok := conts[t]; !ok || rp != p {
						allConts = false
					}
				}
				if allConts {
					returnsOf[last.PC] = p
				}
			}
		}
	}
	for _, l := range g.Order {
		last := g.Blocks[l].Last()
		isSwap := last.Name() == "s_swappc_b64"
		if last.Info.Branch != isa.BranchIndirect && !isSwap {
			continue
		}
		ind := &Indirect{Addr: last.PC}
		ind.Pair, _ = targetPair(last)
		if isSwap {
			ind.RetPair, _ = returnPair(last)
		}
		switch ts := extra[last.PC]; {
		case !isSwap && hasKey(returnsOf, last.PC):
			ind.Kind = Return
			ind.Targets = ts
		case len(ts) > 0:
			ind.Targets = ts
			ind.Kind = IndirectJump
			if isSwap {
				ind.Kind = IndirectCall
			}
		case !isSwap && hasKey(returnsOf, last.PC):
			ind.Kind = Return
		default:
			ind.Kind = Unresolved
			ind.Reason = fmt.Sprintf("no concrete target set (at most %d) was proven for s[%d:%d]", maxTargets, ind.Pair, ind.Pair+1)
		}
		g.Indirect[last.PC] = ind
	}
}

func hasKey(m map[uint64]uint16, k uint64) bool { _, ok := m[k]; return ok }

// reachable returns the leaders reachable from starts through branch,
// fallthrough and call edges, not entering any address in stop (other
// than the starts themselves), sorted ascending.
func (g *Graph) reachable(starts []uint64, stop map[uint64]bool) []uint64 {
	seen := map[uint64]bool{}
	var work []uint64
	for _, s := range starts {
		if _, ok := g.Blocks[s]; ok && !seen[s] {
			seen[s] = true
			work = append(work, s)
		}
	}
	for len(work) > 0 {
		a := work[len(work)-1]
		work = work[:len(work)-1]
		b := g.Blocks[a]
		next := append([]uint64(nil), b.Succs...)
		for _, c := range b.Calls {
			next = append(next, c.Callee)
		}
		for _, t := range next {
			if seen[t] || stop[t] {
				continue
			}
			if _, ok := g.Blocks[t]; !ok {
				continue
			}
			seen[t] = true
			work = append(work, t)
		}
	}
	out := make([]uint64, 0, len(seen))
	for a := range seen {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
