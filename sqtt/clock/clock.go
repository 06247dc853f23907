// Package clock implements gfx12 shader-clock correction of SQTT marker
// headers: packed headers (funcmap M: row) carry a truncated shader-clock
// sample taken when the marker issued; the trace records when it arrived.
// Per (shader engine, CU, SIMD, clock bits, clock shift) domain the
// correction takes the relative delay of every header against an arbitrary
// origin header, wrapped into the sampled window, and moves each header
// earlier by max(0, rel - min(rel) - (2^shift - 1)), the minimum being taken
// over the complete domain. Recognized headers are rewritten to the legacy
// (id << 2) | flags word. Payload records (R: rows), IMM and PRIV records,
// unknown values and code objects that declare payloads are never
// corrected; domains whose sampled clocks are all equal are left alone.
package clock

import (
	"container/heap"
	"sort"

	"github.com/rocjitsu/rocjitsu/sqtt"
	"github.com/rocjitsu/rocjitsu/sqtt/attdir"
)

// CodeObjectAt returns the code object of the wave running on slot s at
// time t: the latest launch at or before t (wave ends are ignored, so late
// records still belong to it). ok is false before the first launch or
// without occupancy.
type CodeObjectAt func(s attdir.Slot, t int64) (co uint64, ok bool)

type domainKey struct {
	se          uint32
	cu, simd    uint8
	bits, shift uint32
}

type domain struct {
	t0, c0   int64
	sampled0 uint64
	varies   bool
	minRel   int64
}

// Corrector holds the correction state of one trace (one time domain).
// Use Observe over every record, then Apply over the same records in the
// same order.
type Corrector struct {
	funcmaps    map[uint64]*sqtt.Funcmap
	coAt        CodeObjectAt
	anyLayout   bool
	anyPayloads bool
	window      int64 // largest 2^(bits+shift) of any layout
	payloadLeft map[attdir.Slot]uint32
	domains     map[domainKey]*domain
	changed     bool
}

// New returns a corrector for the per-code-object funcmaps (their
// Encoding, ids and payload counts are used) and the code object resolver.
func New(funcmaps map[uint64]*sqtt.Funcmap, coAt CodeObjectAt) *Corrector {
	c := &Corrector{funcmaps: funcmaps, coAt: coAt, payloadLeft: map[attdir.Slot]uint32{}, domains: map[domainKey]*domain{}}
	for _, fm := range funcmaps {
		if fm.Encoding.Packed() {
			c.anyLayout = true
			if w := int64(1) << (fm.Encoding.ShaderClockBits + fm.Encoding.ShaderClockShift); w > c.window {
				c.window = w
			}
		}
		if fm.HasPayloads() {
			c.anyPayloads = true
		}
	}
	return c
}

// Active reports whether any code object has a packed layout; without one
// the correction is a no-op.
func (c *Corrector) Active() bool { return c.anyLayout }

// Window returns the largest sampled window 2^(bits+shift); no header moves
// by this much or more.
func (c *Corrector) Window() int64 { return c.window }

type header struct {
	key     domainKey
	sampled uint64
	legacy  uint32
	correct bool
}

// classify decides whether r is a packed header and advances the
// per-slot payload state.
func (c *Corrector) classify(r *attdir.Record) (header, bool) {
	s := r.Slot()
	if n := c.payloadLeft[s]; n > 0 {
		c.payloadLeft[s] = n - 1
		return header{}, false
	}
	if r.Flags&(attdir.FlagIMM|attdir.FlagPRIV) != 0 {
		return header{}, false
	}
	co, ok := c.coAt(s, r.Time)
	if !ok {
		return header{}, false
	}
	fm := c.funcmaps[co]
	if fm == nil || !fm.Encoding.Packed() {
		return header{}, false
	}
	raw := uint32(r.Value)
	m := fm.Encoding.Decode(raw)
	e, known := fm.ByID[m.ID]
	if !known && !m.IsBareExit() {
		return header{}, false
	}
	if known && e.ExtraPayloadCount > 0 {
		c.payloadLeft[s] = e.ExtraPayloadCount
	}
	enc := fm.Encoding
	return header{
		key:     domainKey{r.SE, r.CU, r.SIMD, enc.ShaderClockBits, enc.ShaderClockShift},
		sampled: enc.SampledWindow(raw),
		legacy:  m.Legacy(),
		correct: !fm.HasPayloads(),
	}, true
}

func rel(d *domain, k domainKey, t int64, sampled uint64) int64 {
	w := int64(1) << (k.bits + k.shift)
	mask, half := w-1, w/2
	return (((t - d.t0) - (int64(sampled) - d.c0) + half) & mask) - half
}

// Observe is the first pass: it collects every header of every domain.
func (c *Corrector) Observe(r attdir.Record) {
	if !c.anyLayout {
		return
	}
	h, ok := c.classify(&r)
	if !ok || !h.correct {
		return
	}
	d := c.domains[h.key]
	if d == nil {
		c.domains[h.key] = &domain{t0: r.Time, c0: int64(h.sampled), sampled0: h.sampled}
		return
	}
	if h.sampled != d.sampled0 {
		d.varies = true
	}
	if v := rel(d, h.key, r.Time, h.sampled); v < d.minRel {
		d.minRel = v
	}
}

// EndObserve finishes the first pass; Apply may follow.
func (c *Corrector) EndObserve() {
	c.payloadLeft = map[attdir.Slot]uint32{}
}

// Apply is the second pass: it rewrites a recognized header to the legacy
// word and moves its time earlier. It reports whether the time changed.
func (c *Corrector) Apply(r *attdir.Record) bool {
	if !c.anyLayout {
		return false
	}
	h, ok := c.classify(r)
	if !ok {
		return false
	}
	r.Value = r.Value&^0xFFFFFFFF | uint64(h.legacy)
	if !h.correct {
		return false
	}
	d := c.domains[h.key]
	if d == nil || !d.varies {
		return false
	}
	bucket := int64(1) << h.key.shift
	corr := rel(d, h.key, r.Time, h.sampled) - d.minRel - (bucket - 1)
	if corr <= 0 {
		return false
	}
	r.Time -= corr
	c.changed = true
	return true
}

// Resort reports whether the corrected records must be re-sorted by time:
// some time changed and no code object declares payload records (payload
// blocks must stay contiguous).
func (c *Corrector) Resort() bool { return c.changed && !c.anyPayloads }

// Changed reports whether Apply moved any header.
func (c *Corrector) Changed() bool { return c.changed }

// MayResort reports whether Resort can become true during Apply.
func (c *Corrector) MayResort() bool {
	if !c.anyLayout || c.anyPayloads {
		return false
	}
	for _, d := range c.domains {
		if d.varies {
			return true
		}
	}
	return false
}

// CorrectSlice corrects records in place: both passes in stable time
// order, then a stable re-sort of the slice by time when Resort says so.
// It returns the corrector for inspection.
func CorrectSlice(records []attdir.Record, funcmaps map[uint64]*sqtt.Funcmap, coAt CodeObjectAt) *Corrector {
	c := New(funcmaps, coAt)
	if !c.Active() {
		return c
	}
	order := make([]int, len(records))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return records[order[a]].Time < records[order[b]].Time })
	for _, i := range order {
		c.Observe(records[i])
	}
	c.EndObserve()
	for _, i := range order {
		c.Apply(&records[i])
	}
	if c.Resort() {
		sort.SliceStable(records, func(a, b int) bool { return records[a].Time < records[b].Time })
	}
	return c
}

// Stream runs both passes over a replayable, time-ordered record source
// and delivers the corrected records to fn. When the corrections can
// reorder records, a reorder buffer spanning one sampled window restores
// time order (ties keep arrival order), so memory stays bounded by the
// records of one window, not the trace.
func Stream(src func(func(attdir.Record) error) error, funcmaps map[uint64]*sqtt.Funcmap, coAt CodeObjectAt, fn func(attdir.Record) error) (*Corrector, error) {
	c := New(funcmaps, coAt)
	if !c.Active() {
		return c, src(fn)
	}
	if err := src(func(r attdir.Record) error { c.Observe(r); return nil }); err != nil {
		return c, err
	}
	c.EndObserve()
	if !c.MayResort() {
		return c, src(func(r attdir.Record) error { c.Apply(&r); return fn(r) })
	}
	h := &reorder{}
	var seq uint64
	err := src(func(r attdir.Record) error {
		arrival := r.Time
		c.Apply(&r)
		heap.Push(h, item{r, seq})
		seq++
		for len(h.items) > 0 && h.items[0].rec.Time <= arrival-c.window {
			if err := fn(heap.Pop(h).(item).rec); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return c, err
	}
	for len(h.items) > 0 {
		if err := fn(heap.Pop(h).(item).rec); err != nil {
			return c, err
		}
	}
	return c, nil
}

type item struct {
	rec attdir.Record
	seq uint64
}

type reorder struct{ items []item }

func (h *reorder) Len() int { return len(h.items) }
func (h *reorder) Less(i, j int) bool {
	a, b := &h.items[i], &h.items[j]
	if a.rec.Time != b.rec.Time {
		return a.rec.Time < b.rec.Time
	}
	return a.seq < b.seq
}
func (h *reorder) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *reorder) Push(x any)    { h.items = append(h.items, x.(item)) }
func (h *reorder) Pop() any {
	n := len(h.items) - 1
	it := h.items[n]
	h.items = h.items[:n]
	return it
}
