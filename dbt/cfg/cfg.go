// Package cfg builds the translator's source control-flow graph: it decodes
// the code reachable from a code object's kernel entries, splits it into
// basic blocks at leaders, adds branch and fallthrough edges and separate call
// edges, and recovers static indirect transfers (s_getpc_b64 ... s_setpc_b64 /
// s_swappc_b64) with a bounded scalar data-flow analysis that accepts only
// small concrete target sets. Kernel scopes (the blocks reachable from one
// kernel's entries) are formed by Scope.
package cfg

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// DecodeFunc decodes the instruction at the start of code, which is at
// address pc.
type DecodeFunc func(code []byte, pc uint64) (isa.Inst, error)

// DecodeIntoFunc is DecodeFunc writing into dst and appending the operands
// to dst.Operands[:0] (gfx9.DecodeInto with the target bound).
type DecodeIntoFunc func(dst *isa.Inst, code []byte, pc uint64) error

// Text is the code section: its load address and bytes.
type Text struct {
	Addr uint64
	Data []byte
}

// Contains reports whether addr lies inside the text.
func (t Text) Contains(addr uint64) bool {
	return addr >= t.Addr && addr < t.Addr+uint64(len(t.Data))
}

// Root is a hardware-visible entry of a kernel.
type Root struct {
	// Kernel is the index of the kernel the root belongs to.
	Kernel int
	// Addr is the entry address.
	Addr uint64
	// Preload marks the firmware kernarg-preload entry (entry + 256).
	Preload bool
}

// TransferKind classifies a recovered indirect transfer.
type TransferKind uint8

// Kinds of indirect transfers.
const (
	// Unresolved: no concrete target set was proven.
	Unresolved TransferKind = iota
	// IndirectJump: s_setpc_b64 with a recovered target set.
	IndirectJump
	// IndirectCall: s_swappc_b64 with a recovered target set.
	IndirectCall
	// Return: s_setpc_b64 through the return pair of a validated call.
	Return
)

// String returns the kind's name.
func (k TransferKind) String() string {
	return [...]string{"unresolved", "jump", "call", "return"}[k]
}

// Indirect is an s_setpc_b64 or s_swappc_b64 consumer.
type Indirect struct {
	Addr    uint64
	Kind    TransferKind
	Targets []uint64
	// Pair is the first SGPR of the target pair; RetPair that of the
	// return-address pair of s_swappc_b64.
	Pair, RetPair uint16
	// Reason says why a transfer stayed unresolved.
	Reason string
}

// Call is a call edge: a call site, its callee entry and its continuation.
type Call struct {
	Site, Callee, Cont uint64
}

// Block is a basic block of decoded instructions.
type Block struct {
	// Start is the leader's address; End the address after the last
	// instruction.
	Start, End uint64
	Insts      []*isa.Inst
	// Succs are branch and fallthrough successors (no call edges).
	Succs []uint64
	// Calls are the call edges leaving this block (at most one).
	Calls []Call
	// FallsThrough is set when execution may continue at End.
	FallsThrough bool
}

// Last returns the block's last instruction.
func (b *Block) Last() *isa.Inst { return b.Insts[len(b.Insts)-1] }

// Graph is the source CFG of a code object.
type Graph struct {
	Text  Text
	Roots []Root
	// Blocks maps leaders to blocks; Order lists leaders ascending.
	Blocks map[uint64]*Block
	Order  []uint64
	// Indirect holds every s_setpc_b64 / s_swappc_b64 by address.
	Indirect map[uint64]*Indirect
	// Errors maps an address to the reason code there cannot be
	// followed (decode failure, branch outside .text, target inside an
	// instruction). Scopes that reach one fail closed.
	Errors map[uint64]string
	// slab is where decoded instructions are allocated from, in chunks.
	slab []isa.Inst
	// ops is where DecodeInto writes operands, in chunks.
	ops []isa.Operand
	// instChunks and opChunks are every chunk the graph decoded into,
	// whole, for Release.
	instChunks [][]isa.Inst
	opChunks   [][]isa.Operand
	// byWord holds the decoded instructions by .text word index (the
	// addresses explore decodes are word aligned); other holds any at an
	// address byWord cannot (nil when there are none); count is how many
	// there are in all. Inst and Instructions read them.
	byWord []*isa.Inst
	other  map[uint64]*isa.Inst
	count  int
	// decodeInto is Options.DecodeInto.
	decodeInto DecodeIntoFunc
	// window is Options.DecodeWindow; memo holds the instructions
	// decoded so far by window when it is set.
	window DecodeWindowFunc
	memo   decodeMemo
	// GetPC holds the addresses of every s_getpc_b64.
	GetPC []uint64
}

// Options bound the analyses.
type Options struct {
	// MaxTargets is the largest recovered target set accepted (default 4).
	MaxTargets int
	// MaxRounds bounds the explore/recover iterations (default 8).
	MaxRounds int
	// DecodeInto, when set, is used instead of Build's decode argument:
	// instructions and their operands are then decoded in place into
	// chunks the graph allocates (no allocation per instruction).
	DecodeInto DecodeIntoFunc
	// DecodeWindow, when set with DecodeInto, says which bytes an
	// instruction depends on: an instruction whose window of 4 or 8 bytes
	// was decoded before is copied from the earlier one.
	DecodeWindow DecodeWindowFunc
}

// Build decodes and analyses the code reachable from roots.
func Build(text Text, roots []Root, decode DecodeFunc, opt Options) (*Graph, error) {
	if opt.MaxTargets == 0 {
		opt.MaxTargets = 4
	}
	if opt.MaxRounds == 0 {
		opt.MaxRounds = 8
	}
	g := &Graph{Text: text, Roots: roots, Indirect: map[uint64]*Indirect{}, Errors: map[uint64]string{}, decodeInto: opt.DecodeInto, byWord: wordIndex(len(text.Data) / 4)}
	if opt.DecodeInto != nil && opt.DecodeWindow != nil {
		g.window, g.memo = opt.DecodeWindow, newDecodeMemo(len(text.Data)/4)
	}
	for _, r := range roots {
		if !text.Contains(r.Addr) || r.Addr%4 != 0 {
			return nil, fmt.Errorf("cfg: kernel %d entry %#x is outside .text [%#x, %#x) or unaligned", r.Kernel, r.Addr, text.Addr, text.Addr+uint64(len(text.Data)))
		}
	}
	leaders := newLeaderSet(text)
	var work []uint64
	push := func(a uint64) {
		if leaders.add(a) {
			work = append(work, a)
		}
	}
	for _, r := range roots {
		push(r.Addr)
	}
	extra := map[uint64][]uint64{} // indirect consumer -> recovered targets
	built := false
	for round := 0; ; round++ {
		for len(work) > 0 {
			a := work[len(work)-1]
			work = work[:len(work)-1]
			g.explore(a, decode, push, extra)
		}
		if round >= opt.MaxRounds {
			break
		}
		// Recover indirect targets on what is known so far.
		g.buildBlocks(leaders, extra)
		changed := false
		for addr, ind := range g.recover(opt.MaxTargets) {
			if len(ind) == 0 {
				continue
			}
			old := extra[addr]
			if !sameSet(old, ind) {
				extra[addr] = ind
				changed = true
				for _, t := range ind {
					push(t)
				}
			}
		}
		if !changed && len(work) == 0 {
			built = true // the blocks just built are final
			break
		}
	}
	if !built {
		g.buildBlocks(leaders, extra)
	}
	g.classifyIndirect(extra, opt.MaxTargets)
	return g, nil
}

func sameSet(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// explore decodes straight-line code from a until a terminator, adding
// branch targets and fallthrough leaders through push.
func (g *Graph) explore(a uint64, decode DecodeFunc, push func(uint64), extra map[uint64][]uint64) {
	// The chunks are local while decoding (stores to them need no write
	// barrier) and go back to the graph on return.
	slab, ops := g.slab, g.ops
	defer func() { g.slab, g.ops = slab, ops }()
	for {
		if _, done := g.Inst(a); done {
			return
		}
		if !g.Text.Contains(a) {
			g.Errors[a] = fmt.Sprintf("control reaches %#x outside .text", a)
			return
		}
		off := a - g.Text.Addr
		if len(slab) == 0 {
			// Chunks of 512; the first one sized for the text (at
			// most one instruction per 5 bytes) when that is less, as
			// most objects are small.
			n := 512
			if g.count == 0 {
				n = min(n, max(32, len(g.Text.Data)/5))
			}
			slab = instChunk(n)
			g.instChunks = append(g.instChunks, slab)
		}
		p := &slab[0]
		var err error
		// fresh says p was decoded here (not copied from the memo).
		fresh := false
		if g.decodeInto != nil {
			if len(ops) < maxOperands {
				// About 3 operands per 6-byte instruction, in chunks of
				// at most 4096.
				ops = operandChunk(min(4096, max(256, len(g.Text.Data)/2)))
				g.opChunks = append(g.opChunks, ops)
			}
			code := g.Text.Data[off:]
			if prev := g.memo.lookup(code, g.byWord); prev != nil && len(prev.Operands) <= len(ops) {
				// The same bytes decoded before: the same instruction.
				n := len(prev.Operands)
				*p = *prev
				p.Operands = ops[:n:n]
				copy(p.Operands, prev.Operands)
				ops = ops[n:]
			} else {
				p.Operands = ops[:0:len(ops)]
				err = g.decodeInto(p, code, a)
				if n := len(p.Operands); err == nil && cap(p.Operands) == len(ops) {
					// Still in the chunk: keep exactly the decoded operands.
					p.Operands = p.Operands[:n:n]
					ops = ops[n:]
				}
				fresh = err == nil
			}
		} else {
			*p, err = decode(g.Text.Data[off:], a)
		}
		if err != nil {
			*p = isa.Inst{}
			g.Errors[a] = fmt.Sprintf("undecodable instruction: %v", err)
			return
		}
		if p.Size == 0 || off+uint64(p.Size) > uint64(len(g.Text.Data)) {
			*p = isa.Inst{}
			g.Errors[a] = "instruction runs past the end of .text"
			return
		}
		slab = slab[1:]
		in := p
		p.PC = a
		g.add(p)
		if fresh && g.window != nil && off%4 == 0 {
			g.memo.remember(g.Text.Data[off:], g.window(p), uint32(off/4))
		}
		next := a + uint64(in.Size)
		switch in.Info.Branch {
		case isa.BranchJump:
			if t, ok := in.BranchTarget(); ok {
				push(t)
			}
			return
		case isa.BranchCond:
			if t, ok := in.BranchTarget(); ok {
				push(t)
			}
			push(next)
			return
		case isa.BranchCall:
			if t, ok := in.BranchTarget(); ok { // s_call_b64
				push(t)
			}
			for _, t := range extra[a] {
				push(t)
			}
			push(next)
			return
		case isa.BranchIndirect:
			for _, t := range extra[a] {
				push(t)
			}
			return
		case isa.BranchEnd:
			return
		case isa.BranchTrap:
			// s_trap may return; keep decoding after it.
		}
		if in.Name() == "s_getpc_b64" {
			g.GetPC = appendUnique(g.GetPC, a)
		}
		a = next
	}
}

func appendUnique(s []uint64, a uint64) []uint64 {
	for _, x := range s {
		if x == a {
			return s
		}
	}
	return append(s, a)
}

// Inst returns the decoded instruction that starts at a, if there is one.
func (g *Graph) Inst(a uint64) (*isa.Inst, bool) {
	if off := a - g.Text.Addr; a >= g.Text.Addr && off%4 == 0 && off/4 < uint64(len(g.byWord)) {
		in := g.byWord[off/4]
		return in, in != nil
	}
	in, ok := g.other[a]
	return in, ok
}

// add records the decoded instruction in, which starts at in.PC (not
// decoded before).
func (g *Graph) add(in *isa.Inst) {
	g.count++
	if off := in.PC - g.Text.Addr; in.PC >= g.Text.Addr && off%4 == 0 && off/4 < uint64(len(g.byWord)) {
		g.byWord[off/4] = in
		return
	}
	if g.other == nil {
		g.other = map[uint64]*isa.Inst{}
	}
	g.other[in.PC] = in
}

// NumInsts returns the number of decoded instructions.
func (g *Graph) NumInsts() int { return g.count }

// Instructions returns every decoded instruction by ascending address.
func (g *Graph) Instructions() []*isa.Inst { return g.orderedInsts() }

// orderedInsts returns the decoded instructions by ascending address:
// byWord's in order, merged with any others by sorting.
func (g *Graph) orderedInsts() []*isa.Inst {
	insts := make([]*isa.Inst, 0, g.count)
	for _, in := range g.byWord {
		if in != nil {
			insts = append(insts, in)
		}
	}
	if len(g.other) == 0 {
		return insts
	}
	for _, in := range g.other {
		insts = append(insts, in)
	}
	slices.SortFunc(insts, func(a, b *isa.Inst) int { return cmp.Compare(a.PC, b.PC) })
	return insts
}

// leaderSet is a set of block leaders: a bit per .text word for the
// word-aligned addresses inside .text, a map for any other.
type leaderSet struct {
	base  uint64
	words []uint64
	other map[uint64]bool
}

// newLeaderSet returns an empty set for the addresses of text.
func newLeaderSet(text Text) *leaderSet {
	return &leaderSet{base: text.Addr, words: make([]uint64, (len(text.Data)/4+63)/64)}
}

// add adds a and reports whether it was not in the set yet.
func (l *leaderSet) add(a uint64) bool {
	if off := a - l.base; a >= l.base && off%4 == 0 && off/4/64 < uint64(len(l.words)) {
		w, bit := off/4/64, uint64(1)<<(off/4%64)
		if l.words[w]&bit != 0 {
			return false
		}
		l.words[w] |= bit
		return true
	}
	if l.other[a] {
		return false
	}
	if l.other == nil {
		l.other = map[uint64]bool{}
	}
	l.other[a] = true
	return true
}

// has reports whether a is in the set.
func (l *leaderSet) has(a uint64) bool {
	if off := a - l.base; a >= l.base && off%4 == 0 && off/4/64 < uint64(len(l.words)) {
		return l.words[off/4/64]>>(off/4%64)&1 != 0
	}
	return l.other[a]
}

// buildBlocks splits the decoded instructions into blocks.
func (g *Graph) buildBlocks(leaders *leaderSet, extra map[uint64][]uint64) {
	insts := g.orderedInsts()
	// A leader that is not an instruction start but lies inside a decoded
	// instruction is an error (the two decodings overlap).
	for i, in := range insts {
		a := in.PC
		end := a + uint64(in.Size)
		for j := i + 1; j < len(insts) && insts[j].PC < end; j++ {
			g.Errors[insts[j].PC] = fmt.Sprintf("instruction at %#x overlaps the one at %#x", insts[j].PC, a)
		}
	}
	g.Blocks = map[uint64]*Block{}
	g.Order = g.Order[:0]
	// A block is a run of consecutive instructions of insts: its Insts are
	// a full slice expression of that run (an append copies).
	var cur *Block
	first := 0
	closeBlock := func(i int) {
		if cur != nil {
			cur.Insts = insts[first:i:i]
			cur = nil
		}
	}
	for i, in := range insts {
		a := in.PC
		if cur != nil && (cur.End != a || leaders.has(a)) {
			closeBlock(i)
		}
		if cur == nil {
			cur = &Block{Start: a, End: a}
			first = i
			g.Blocks[a] = cur
			g.Order = append(g.Order, a)
		}
		cur.End = a + uint64(in.Size)
		if in.Info.Branch != isa.BranchNone && in.Info.Branch != isa.BranchTrap {
			closeBlock(i + 1)
		}
	}
	closeBlock(len(insts))
	for _, l := range g.Order {
		b := g.Blocks[l]
		last := b.Last()
		switch last.Info.Branch {
		case isa.BranchJump:
			if t, ok := last.BranchTarget(); ok {
				b.Succs = append(b.Succs, t)
			}
		case isa.BranchCond:
			if t, ok := last.BranchTarget(); ok {
				b.Succs = append(b.Succs, t)
			}
			b.Succs = append(b.Succs, b.End)
			b.FallsThrough = true
		case isa.BranchCall:
			if t, ok := last.BranchTarget(); ok {
				b.Calls = append(b.Calls, Call{Site: last.PC, Callee: t, Cont: b.End})
			}
			for _, t := range extra[last.PC] {
				b.Calls = append(b.Calls, Call{Site: last.PC, Callee: t, Cont: b.End})
			}
			b.Succs = append(b.Succs, b.End)
			b.FallsThrough = true
		case isa.BranchIndirect:
			b.Succs = append(b.Succs, extra[last.PC]...)
		case isa.BranchEnd:
		default:
			b.Succs = append(b.Succs, b.End)
			b.FallsThrough = true
		}
	}
}

// Block returns the block that starts at a.
func (g *Graph) Block(a uint64) *Block { return g.Blocks[a] }

// maxOperands bounds the operands of one decoded instruction (the chunk
// DecodeInto writes into keeps at least this much room).
const maxOperands = 32
