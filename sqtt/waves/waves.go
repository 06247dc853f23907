// Package waves rebuilds per-wave marker stacks from a time-ordered stream
// of shaderdata records. It follows the upstream marker tools: PRIV records
// are dropped, payload records declared by R: rows (and address-trace
// blocks) are skipped per wave slot, a record belongs to the latest wave
// launch on its slot at or before its time (late records after the wave end
// still belong to it), each wave instance resolves its kernel and funcmap
// once, unknown ids are function scopes named "event#<id>", unmatched exits
// leave the stack empty, and point markers never touch the stack.
//
// State is kept per wave slot, so memory grows with the number of waves and
// distinct stacks, never with the number of records.
package waves

import (
	"sort"
	"strconv"
	"strings"

	"github.com/rocjitsu/rocjitsu/sqtt"
	"github.com/rocjitsu/rocjitsu/sqtt/attdir"
)

// Node is one frame of the stack trie shared by all waves: a path from the
// root names a stack.
type Node struct {
	// Name is the frame name (mangled); the root is "all".
	Name string
	// Kind is the funcmap kind of the frame (KindKernel for the prefix
	// frames).
	Kind sqtt.Kind
	// Parent is the caller frame, nil for the root.
	Parent *Node
	// Depth is the number of frames from the root (root = 0).
	Depth int
	// Cycles is the self time attributed to this exact stack.
	Cycles int64
	// Execs is the number of intervals attributed to this exact stack.
	Execs int64
	// Children maps names to callee frames.
	Children map[string]*Node
	// Order lists the children in first-appearance order.
	Order []*Node
	// Seq is the creation order of the node within its trie.
	Seq int
	// FirstSample orders stacks by their first interval as if the waves
	// were processed one after another in order of their first record (the
	// upstream tools' order); 0 = no interval yet. Folded output lists
	// stacks with equal weight in this order.
	FirstSample int64
}

// Path returns the frame names from below the root to n.
func (n *Node) Path() []string {
	out := make([]string, n.Depth)
	for p := n; p != nil && p.Depth > 0; p = p.Parent {
		out[p.Depth-1] = p.Name
	}
	return out
}

// Trie holds the stacks of one or more traces.
type Trie struct {
	// Root is the "all" frame.
	Root  *Node
	cache map[childKey]*Node
	nodes int
}

type childKey struct {
	parent *Node
	fm     *sqtt.Funcmap
	id     uint32
}

// NewTrie returns an empty trie.
func NewTrie() *Trie {
	return &Trie{Root: &Node{Name: "all", Children: map[string]*Node{}}, cache: map[childKey]*Node{}}
}

// Child returns the frame name below parent, creating it if needed.
func (t *Trie) Child(parent *Node, name string, kind sqtt.Kind) *Node {
	if c, ok := parent.Children[name]; ok {
		return c
	}
	t.nodes++
	c := &Node{Name: name, Kind: kind, Parent: parent, Depth: parent.Depth + 1, Children: map[string]*Node{}, Seq: t.nodes}
	parent.Children[name] = c
	parent.Order = append(parent.Order, c)
	return c
}

// childFor is Child keyed by (funcmap, id), which avoids hashing names on
// the hot path.
func (t *Trie) childFor(parent *Node, fm *sqtt.Funcmap, id uint32, name func() (string, sqtt.Kind)) *Node {
	k := childKey{parent, fm, id}
	if c, ok := t.cache[k]; ok {
		return c
	}
	n, kind := name()
	c := t.Child(parent, n, kind)
	t.cache[k] = c
	return c
}

// Walk calls fn for every node below the root in depth-first,
// first-appearance order.
func (t *Trie) Walk(fn func(*Node)) {
	var rec func(*Node)
	rec = func(n *Node) {
		for _, c := range n.Order {
			fn(c)
			rec(c)
		}
	}
	rec(t.Root)
}

// WaveKey identifies one wave instance.
type WaveKey struct {
	attdir.Slot
	// Instance counts launches on the slot (0 for the first).
	Instance uint32
}

// Wave is the state of one wave instance while its records stream by.
type Wave struct {
	// Key identifies the wave.
	Key WaveKey
	// Dispatch is the occupancy kernel id; HasDispatch is false when the
	// slot has no launches.
	Dispatch    uint64
	HasDispatch bool
	// Kernel is the kernel name from occupancy ("" if unknown).
	Kernel string
	// CodeObject is the resolved code object (0 if unknown).
	CodeObject uint64
	// Funcmap decodes the wave's records.
	Funcmap *sqtt.Funcmap
	// Base is the prefix frame (code object and kernel) the stack grows
	// from; Top is the innermost open frame (Base when none is open).
	Base, Top *Node
	// First and Last are the times of the wave's first and last records.
	First, Last int64
	// Unmatched counts exits that found an empty stack.
	Unmatched int64
	// Seq numbers the waves of a trace in order of their first record.
	Seq int64
	// Intervals counts the intervals attributed so far.
	Intervals int64

	lastScope    int64
	hasLastScope bool
}

// Depth returns the number of open frames.
func (w *Wave) Depth() int { return w.Top.Depth - w.Base.Depth }

// Sink receives the reconstructed events of every wave.
type Sink interface {
	// WaveStart is called before the first event of a wave.
	WaveStart(w *Wave)
	// Interval attributes dt > 0 cycles to the stack ending at n (a
	// frame, never the base) between consecutive scope markers.
	Interval(w *Wave, n *Node, dt int64)
	// Enter opens frame n at time t.
	Enter(w *Wave, t int64, n *Node)
	// Exit closes frame n at time t.
	Exit(w *Wave, t int64, n *Node)
	// Point reports a point marker.
	Point(w *Wave, t int64, e *sqtt.Entry)
	// Unmatched reports an exit with an empty stack (also for a fused
	// exit+enter, whose enter still happens).
	Unmatched(w *Wave, t int64)
	// WaveEnd is called after the last record of the wave; frames still
	// open are w.Top up to w.Base.
	WaveEnd(w *Wave)
}

// Filter selects waves by CU, SIMD and wave slot; nil fields match all.
type Filter struct {
	CU, SIMD, Wave *int
}

func (f Filter) match(s attdir.Slot) bool {
	return (f.CU == nil || int(s.CU) == *f.CU) && (f.SIMD == nil || int(s.SIMD) == *f.SIMD) && (f.Wave == nil || int(s.WaveID) == *f.Wave)
}

// Config is the per-trace input of a Processor.
type Config struct {
	// Funcmaps holds the funcmap of each code object.
	Funcmaps map[uint64]*sqtt.Funcmap
	// Occupancy gives launches and kernel names (may be empty).
	Occupancy *attdir.Occupancy
	// Filter restricts the waves.
	Filter Filter
	// Trie receives the stacks; a new trie is made when nil.
	Trie *Trie
}

type slotState struct {
	events      *attdir.SlotEvents
	wave        *Wave
	instance    int
	nextLaunch  int64 // launch time of instance+1, or MaxTime
	payloadLeft int
	filtered    bool
}

// Processor consumes records of one trace.
type Processor struct {
	cfg        Config
	sink       Sink
	trie       *Trie
	merged     *sqtt.Funcmap
	kernelToCO map[string]uint64
	slots      map[attdir.Slot]*slotState
	prefix     map[prefixKey]*Node
	waves      int64
	// Records counts the records seen; Markers the ones that reached the
	// stack logic.
	Records, Markers int64
}

type prefixKey struct {
	co   uint64
	name string
}

// NewProcessor returns a processor that sends events to sink.
func NewProcessor(cfg Config, sink Sink) *Processor {
	p := &Processor{cfg: cfg, sink: sink, trie: cfg.Trie, slots: map[attdir.Slot]*slotState{}, prefix: map[prefixKey]*Node{}, kernelToCO: map[string]uint64{}}
	if p.trie == nil {
		p.trie = NewTrie()
	}
	if p.cfg.Occupancy == nil {
		p.cfg.Occupancy = &attdir.Occupancy{Dispatches: map[uint64]string{}, Slots: map[attdir.Slot]*attdir.SlotEvents{}}
	}
	var maps []*sqtt.Funcmap
	for _, co := range sqtt.SortedIDs(cfg.Funcmaps) {
		fm := cfg.Funcmaps[co]
		maps = append(maps, fm)
		for _, k := range fm.Kernels() {
			p.kernelToCO[k.Name] = co
		}
	}
	p.merged = sqtt.Merge(maps...)
	return p
}

// Trie returns the trie the processor fills.
func (p *Processor) Trie() *Trie { return p.trie }

func (p *Processor) slot(s attdir.Slot) *slotState {
	st := p.slots[s]
	if st == nil {
		st = &slotState{events: p.cfg.Occupancy.Slots[s], instance: -1, filtered: !p.cfg.Filter.match(s)}
		p.slots[s] = st
	}
	return st
}

// Record processes one record. Records must arrive in time order (per
// wave slot at least).
func (p *Processor) Record(r attdir.Record) {
	p.Records++
	if r.Flags&attdir.FlagPRIV != 0 {
		return
	}
	st := p.slot(r.Slot())
	if st.filtered {
		return
	}
	// Wave instance: the latest launch at or before r.Time.
	if st.wave == nil || r.Time >= st.nextLaunch {
		idx := 0
		has := false
		if st.events != nil {
			idx, has = st.events.At(r.Time)
		}
		if st.wave == nil || idx != st.instance {
			if st.wave != nil {
				p.endWave(st.wave)
			}
			st.instance = idx
			st.nextLaunch = attdir.MaxTime
			if has && idx+1 < len(st.events.Launches) {
				st.nextLaunch = st.events.Launches[idx+1].Time
			}
			st.wave = p.newWave(r, idx, has, st.events)
			p.sink.WaveStart(st.wave)
		}
	}
	w := st.wave
	if st.payloadLeft > 0 {
		st.payloadLeft--
		return
	}
	raw := uint32(r.Value)
	fm := w.Funcmap
	m := fm.Decode(raw)
	e, known := fm.ByID[m.ID]
	if known {
		if proto, ok := sqtt.AddressProtocolFor(e.Name); ok {
			// An address-trace block is consumed whole (header, exec
			// mask, lanes); it is not a marker. Without a valid W: row
			// only the header is consumed.
			if ws := int(fm.WaveSize); ws == 32 || ws == 64 {
				st.payloadLeft = proto.PayloadWords(ws)
			}
			return
		}
	}
	st.payloadLeft = int(fm.ExtraPayloadCount(m.ID))
	w.Last = r.Time
	if m.IsNoop() {
		return
	}
	p.Markers++
	if known && e.Kind == sqtt.KindPoint {
		p.sink.Point(w, r.Time, e)
		return
	}
	t := r.Time
	if w.hasLastScope && w.Depth() > 0 {
		if dt := t - w.lastScope; dt > 0 {
			w.Intervals++
			p.sink.Interval(w, w.Top, dt)
		}
	}
	w.lastScope, w.hasLastScope = t, true
	if m.ExitPrev {
		if w.Depth() > 0 {
			n := w.Top
			w.Top = n.Parent
			p.sink.Exit(w, t, n)
		} else {
			w.Unmatched++
			p.sink.Unmatched(w, t)
		}
	}
	if m.Enter {
		n := p.trie.childFor(w.Top, fm, m.ID, func() (string, sqtt.Kind) {
			if known {
				return e.Name, e.Kind
			}
			return "event#" + strconv.FormatUint(uint64(m.ID), 10), sqtt.KindFunction
		})
		w.Top = n
		p.sink.Enter(w, t, n)
	}
}

func (p *Processor) newWave(r attdir.Record, idx int, has bool, ev *attdir.SlotEvents) *Wave {
	p.waves++
	w := &Wave{Key: WaveKey{r.Slot(), uint32(idx)}, First: r.Time, Last: r.Time, Funcmap: p.merged, Seq: p.waves}
	if has {
		w.Dispatch, w.HasDispatch = ev.Launches[idx].KernelID, true
		w.Kernel = p.cfg.Occupancy.Dispatches[w.Dispatch]
	}
	w.Base = p.prefixFor(w)
	w.Top = w.Base
	return w
}

// prefixFor resolves the wave's code object, funcmap and prefix frames:
// "code_object_<co>;<kernel>" when the kernel name maps to a code object
// through a K: row (or the "<co> / 0x<addr>" form names a known code
// object), "<kernel>" alone otherwise, and no prefix for unknown kernels.
func (p *Processor) prefixFor(w *Wave) *Node {
	name := w.Kernel
	if name == "" || strings.HasPrefix(name, "0 /") {
		return p.trie.Root
	}
	co, ok := p.kernelToCO[name]
	display := name
	if !ok {
		if c, addr, isAddr := attdir.CodeObjectDispatch(name); isAddr {
			if fm := p.cfg.Funcmaps[c]; fm != nil {
				co, ok = c, true
				for _, k := range fm.Kernels() {
					if k.Resolved && k.Vaddr == addr {
						display = k.Name
					}
				}
			}
		}
	}
	key := prefixKey{co, display}
	if !ok {
		key.co = ^uint64(0)
	}
	if n, hit := p.prefix[key]; hit {
		if ok {
			w.CodeObject, w.Funcmap = co, p.cfg.Funcmaps[co]
		}
		return n
	}
	var n *Node
	if ok {
		w.CodeObject, w.Funcmap = co, p.cfg.Funcmaps[co]
		n = p.trie.Child(p.trie.Root, "code_object_"+strconv.FormatUint(co, 10), sqtt.KindKernel)
		n = p.trie.Child(n, display, sqtt.KindKernel)
	} else {
		n = p.trie.Child(p.trie.Root, display, sqtt.KindKernel)
	}
	p.prefix[key] = n
	return n
}

func (p *Processor) endWave(w *Wave) {
	p.sink.WaveEnd(w)
}

// Close ends every wave still open. Call it after the last record.
func (p *Processor) Close() {
	// End waves in a deterministic order: by slot.
	var open []*Wave
	for _, st := range p.slots {
		if st.wave != nil {
			open = append(open, st.wave)
			st.wave = nil
		}
	}
	sortWaves(open)
	for _, w := range open {
		p.endWave(w)
	}
}

func sortWaves(ws []*Wave) {
	sort.Slice(ws, func(i, j int) bool {
		ka, kb := ws[i].Key, ws[j].Key
		if ka.SE != kb.SE {
			return ka.SE < kb.SE
		}
		if ka.CU != kb.CU {
			return ka.CU < kb.CU
		}
		if ka.SIMD != kb.SIMD {
			return ka.SIMD < kb.SIMD
		}
		if ka.WaveID != kb.WaveID {
			return ka.WaveID < kb.WaveID
		}
		return ka.Instance < kb.Instance
	})
}
