package instrument

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/cfg"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/sqtt"
)

// ID groups, allocated in the seed's order: scopes (functions, loops,
// regions) compacted by emission count, then barriers, then memory.
const (
	groupScope = iota
	groupBarrier
	groupMemory
	groupAddress
)

// entry is one funcmap row with an id.
type entry struct {
	key   string
	kind  sqtt.Kind
	name  string
	group int
	order int
	count int
	id    uint32
	// payload is the R: row's extra_payload_count (address traces).
	payload uint32
}

// registry allocates marker ids for one code object.
type registry struct {
	byKey map[string]*entry
	list  []*entry
}

func newRegistry() *registry { return &registry{byKey: map[string]*entry{}} }

func (r *registry) get(key string, kind sqtt.Kind, name string, group int) *entry {
	if e, ok := r.byKey[key]; ok {
		return e
	}
	e := &entry{key: key, kind: kind, name: name, group: group, order: len(r.list)}
	r.byKey[key] = e
	r.list = append(r.list, e)
	return e
}

// assign gives ids from 1: the scope group sorted by emission count
// (ties by first use), then barriers and memory in first-use order.
func (r *registry) assign() {
	es := append([]*entry(nil), r.list...)
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if a.group != b.group {
			return a.group < b.group
		}
		if a.group == groupScope && a.count != b.count {
			return a.count > b.count
		}
		return a.order < b.order
	})
	for i, e := range es {
		e.id = uint32(i + 1)
	}
	r.list = es
}

// mark is one marker at a site: enter pushes key's scope, exit pops the
// top, neither is a point of key.
type mark struct {
	e     *entry
	enter bool
	exit  bool
	// addr, when set, makes the mark an address-trace block.
	addr *addrSpec
}

// site holds the marks at one instruction: prefix runs on entry from
// outside a loop headed here (back edges skip it), rest always runs before
// the instruction, after runs right after it.
type site struct {
	prefix, rest, after []mark
}

// values encodes marks, fusing an exit directly followed by an enter.
func values(ms []mark) []uint32 {
	var vs []uint32
	for i := 0; i < len(ms); i++ {
		m := ms[i]
		switch {
		case m.addr != nil:
			continue
		case m.exit && i+1 < len(ms) && ms[i+1].enter:
			vs = append(vs, sqtt.Encode(ms[i+1].e.id, true, true))
			i++
		case m.exit:
			vs = append(vs, sqtt.Encode(0, false, true))
		case m.enter:
			vs = append(vs, sqtt.Encode(m.e.id, true, false))
		default:
			vs = append(vs, sqtt.Encode(m.e.id, false, false))
		}
	}
	return vs
}

func (k *kplan) at(pc uint64) *site {
	s := k.sites[pc]
	if s == nil {
		s = &site{}
		k.sites[pc] = s
	}
	return s
}

func (k *kplan) add(ms *[]mark, m mark) {
	if m.e != nil && !m.exit {
		m.e.count++
	}
	*ms = append(*ms, m)
}

// planBarriers applies the seed's placement: standalone s_barrier and an
// unpaired s_barrier_wait get a point before, an unpaired
// s_barrier_signal a point after, and a signal directly followed by a wait
// in the same block one point between them.
func (k *kplan) planBarriers(b *cfg.Block) {
	for i, in := range b.Insts {
		switch n := in.Name(); {
		case n == "s_barrier":
			k.add(&k.at(in.PC).rest, mark{e: k.reg.get("barrier", sqtt.KindPoint, "barrier", groupBarrier)})
		case isSignal(n):
			if i+1 < len(b.Insts) && b.Insts[i+1].Name() == "s_barrier_wait" {
				k.add(&k.at(in.PC).after, mark{e: k.reg.get("barrier", sqtt.KindPoint, "barrier", groupBarrier)})
				continue
			}
			k.add(&k.at(in.PC).after, mark{e: k.reg.get("barrier_signal", sqtt.KindPoint, "barrier_signal", groupBarrier)})
		case n == "s_barrier_wait":
			if i > 0 && isSignal(b.Insts[i-1].Name()) {
				continue
			}
			k.add(&k.at(in.PC).rest, mark{e: k.reg.get("barrier_wait", sqtt.KindPoint, "barrier_wait", groupBarrier)})
		}
	}
}

func isSignal(n string) bool { return n == "s_barrier_signal" || n == "s_barrier_signal_isfirst" }

// memClass classifies a vector memory op for grouping: 1 load, 2 store
// (atomics count as stores), 0 not instrumented (LDS, scratch, scalar).
func memClass(in *isa.Inst) int {
	if in.Info == nil {
		return 0
	}
	switch in.Info.Mem {
	case isa.MemGlobal, isa.MemFlat, isa.MemBuffer:
	default:
		return 0
	}
	if in.Mod.LDS {
		return 0
	}
	if in.Info.MemOp&(isa.MemStore|isa.MemAtomic) != 0 {
		return 2
	}
	if in.Info.MemOp&isa.MemLoad != 0 {
		return 1
	}
	return 0
}

// planMemory groups the block's memory ops: a group is at most N ops of
// one class with at most M other instructions between consecutive ops; a
// class change breaks it. One point marker goes before each group's first
// op.
func (k *kplan) planMemory(b *cfg.Block, g MemGroup) {
	cur, count, last := 0, 0, 0
	for i, in := range b.Insts {
		c := memClass(in)
		if c == 0 {
			continue
		}
		if c != cur || count == g.N || i-last-1 > g.M {
			name := "vmem_load"
			if c == 2 {
				name = "vmem_store"
			}
			k.add(&k.at(in.PC).rest, mark{e: k.reg.get(name, sqtt.KindPoint, name, groupMemory)})
			cur, count = c, 0
		}
		count++
		last = i
	}
}

// cost is the size of one instruction for the function threshold.
func cost(in *isa.Inst, weighted bool) int {
	if in.Info == nil {
		return 1
	}
	if in.Info.Has(isa.FlagNop) || in.Info.Has(isa.FlagWaitcnt) || strings.HasPrefix(in.Name(), "s_sched") {
		return 0
	}
	if !weighted {
		return 1
	}
	switch {
	case in.Info.Has(isa.FlagMFMA) || strings.HasPrefix(in.Name(), "v_wmma") || strings.HasPrefix(in.Name(), "v_swmmac"):
		return 16
	case in.Info.Mem == isa.MemLDS:
		return 4
	case in.Info.Mem == isa.MemGlobal || in.Info.Mem == isa.MemFlat || in.Info.Mem == isa.MemBuffer:
		return 10
	}
	return 1
}

// function is a callee: its entry and the blocks reachable from it
// without following calls (continuations after calls included).
type function struct {
	entry  uint64
	blocks []uint64
	size   int
}

func callee(g *cfg.Graph, entry uint64, weighted bool) *function {
	fn := &function{entry: entry}
	seen := map[uint64]bool{}
	stack := []uint64{entry}
	for len(stack) > 0 {
		a := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		b := g.Blocks[a]
		if b == nil || seen[a] {
			continue
		}
		seen[a] = true
		fn.blocks = append(fn.blocks, a)
		for _, in := range b.Insts {
			fn.size += cost(in, weighted)
		}
		stack = append(stack, succs(g, b)...)
		for _, c := range b.Calls {
			stack = append(stack, c.Cont)
		}
	}
	sort.Slice(fn.blocks, func(i, j int) bool { return fn.blocks[i] < fn.blocks[j] })
	return fn
}

// planFunctions puts an enter before each callee entry larger than the
// threshold and an exit before each of its s_setpc_b64 returns.
func (k *kplan) planFunctions(fns map[uint64]*function) {
	var entries []uint64
	for a := range fns {
		if k.inScope[a] {
			entries = append(entries, a)
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i] < entries[j] })
	for _, a := range entries {
		fn := fns[a]
		if fn.size <= k.opt.Functions.N {
			k.notes = append(k.notes, fmt.Sprintf("function %s (size %d) is not above the threshold %d", k.o.funcName(a), fn.size, k.opt.Functions.N))
			continue
		}
		e := k.reg.get(fmt.Sprintf("F%x", a), sqtt.KindFunction, k.o.funcName(a), groupScope)
		k.add(&k.at(a).prefix, mark{e: e, enter: true})
		for _, l := range fn.blocks {
			last := k.o.g.Blocks[l].Last()
			if ind, ok := k.o.g.Indirect[last.PC]; ok && ind.Kind == cfg.Return {
				k.add(&k.at(last.PC).rest, mark{exit: true})
			}
		}
	}
}

// edge is a taken branch edge: the branch's address and its target.
type edge struct{ from, to uint64 }

// onEdge adds m to the edge from block u to its successor x: a taken
// branch gets a trampoline (the branch is redirected to the marker
// sequence, which branches on to x); a fall-through runs the marker right
// after u's last instruction.
func (k *kplan) onEdge(u *cfg.Block, x uint64, m mark) {
	last := u.Last()
	if t, ok := last.BranchTarget(); ok && t == x && (last.Info.Branch == isa.BranchJump || last.Info.Branch == isa.BranchCond) {
		e := edge{last.PC, x}
		ms := k.tramps[e]
		k.add(&ms, m)
		k.tramps[e] = ms
		if !contains(k.trampOrder[last.PC], x) {
			k.trampOrder[last.PC] = append(k.trampOrder[last.PC], x)
		}
	}
	if u.FallsThrough && u.End == x {
		k.add(&k.at(last.PC).after, m)
	}
}

// planLoops makes each natural loop a user scope: enter on entry to the
// header from outside the loop, exit on every edge leaving it. When every
// back edge is a branch, the enter sits before the header and the back
// edges branch past it; otherwise each entry edge carries it. An exit
// block reached only from the loop takes the exit at its start; other exit
// edges carry it (trampolines for taken branches). Loops headed at a
// kernel entry or left through a call are skipped with a note.
func (k *kplan) planLoops() {
	ls := naturalLoops(k.o.g, k.sc.Blocks, k.roots)
	preds := map[uint64][]uint64{}
	for _, a := range k.sc.Blocks {
		b := k.o.g.Blocks[a]
		for _, s := range succs(k.o.g, b) {
			if !contains(preds[s], a) {
				preds[s] = append(preds[s], a)
			}
		}
	}
	isRoot := map[uint64]bool{}
	for _, r := range k.roots {
		isRoot[r] = true
	}
	type plan struct {
		l          *loop
		branchBack bool
	}
	var ok []plan
	for _, l := range ls {
		why := ""
		if isRoot[l.header] {
			why = "its header is a kernel entry"
		}
		branchBack := true
		for _, lat := range l.latches {
			b := k.o.g.Blocks[lat]
			if len(b.Calls) > 0 {
				why = fmt.Sprintf("back edge from %#x to %#x is a call's return", b.Last().PC, l.header)
			}
			t, isBr := b.Last().BranchTarget()
			if !isBr || t != l.header || (b.FallsThrough && b.End == l.header) {
				branchBack = false
			}
		}
		for a := range l.blocks {
			b := k.o.g.Blocks[a]
			if len(b.Calls) > 0 && !l.blocks[b.Calls[0].Cont] {
				why = fmt.Sprintf("call at %#x returns outside the loop", b.Last().PC)
			}
		}
		if why != "" {
			k.notes = append(k.notes, fmt.Sprintf("loop at %#x not instrumented: %s", l.header, why))
			continue
		}
		ok = append(ok, plan{l, branchBack})
	}
	// Exits first (innermost loop first), then enters (outermost first).
	for i := len(ok) - 1; i >= 0; i-- {
		l := ok[i].l
		var srcs []uint64
		for a := range l.blocks {
			srcs = append(srcs, a)
		}
		sort.Slice(srcs, func(i, j int) bool { return srcs[i] < srcs[j] })
		done := map[uint64]bool{}
		for _, a := range srcs {
			b := k.o.g.Blocks[a]
			for _, x := range succs(k.o.g, b) {
				if l.blocks[x] {
					continue
				}
				dedicated := true
				for _, p := range preds[x] {
					dedicated = dedicated && l.blocks[p]
				}
				if dedicated && !isRoot[x] {
					if !done[x] {
						k.add(&k.at(x).prefix, mark{exit: true})
						done[x] = true
					}
					continue
				}
				k.onEdge(b, x, mark{exit: true})
			}
		}
	}
	for _, p := range ok {
		l := p.l
		name := fmt.Sprintf("loop_%#x", l.header)
		e := k.reg.get("L"+name, sqtt.KindUser, name, groupScope)
		if p.branchBack {
			k.add(&k.at(l.header).prefix, mark{e: e, enter: true})
			for _, lat := range l.latches {
				k.backEdge[k.o.g.Blocks[lat].Last().PC] = l.header
			}
			continue
		}
		for _, pr := range preds[l.header] {
			if !l.blocks[pr] {
				k.onEdge(k.o.g.Blocks[pr], l.header, mark{e: e, enter: true})
			}
		}
	}
}

// planRegions adds the named ranges.
func (k *kplan) planRegions() error {
	for _, r := range k.opt.Regions {
		_, s := k.o.g.Inst(r.Start)
		_, e := k.o.g.Inst(r.End)
		if !k.inScopeInst(r.Start) && !k.inScopeInst(r.End) {
			continue
		}
		if !s || !e || !k.inScopeInst(r.Start) || !k.inScopeInst(r.End) {
			return fmt.Errorf("region %s: %#x and %#x must both be instructions of kernel %s", r.Name, r.Start, r.End, k.k.Name)
		}
		en := k.reg.get("R"+r.Name, sqtt.KindUser, r.Name, groupScope)
		k.add(&k.at(r.Start).rest, mark{e: en, enter: true})
		k.add(&k.at(r.End).rest, mark{exit: true})
	}
	return nil
}
