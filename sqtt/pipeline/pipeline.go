// Package pipeline connects the SQTT marker stages for one rocprofv3 --att
// capture: discovery, code objects and code.json tables, shader-clock
// correction, and per-wave stack reconstruction feeding a waves.Sink.
package pipeline

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rocjitsu/rocjitsu/sqtt"
	"github.com/rocjitsu/rocjitsu/sqtt/attdir"
	"github.com/rocjitsu/rocjitsu/sqtt/clock"
	"github.com/rocjitsu/rocjitsu/sqtt/waves"
)

// Options controls a Capture.
type Options struct {
	// CodeObjects lists code object files to use instead of the ones
	// discovered under the base directory.
	CodeObjects []string
	// NoDecodeMarkers keeps packed header values and arrival times (no
	// shader-clock correction).
	NoDecodeMarkers bool
	// Filter restricts the waves.
	Filter waves.Filter
}

// Capture is an opened rocprofv3 --att output tree.
type Capture struct {
	// Base is the searched directory.
	Base string
	// Traces are the trace (ui_*) directories.
	Traces []string
	// CodeObjects holds the code objects with a funcmap, by id.
	CodeObjects map[uint64]*sqtt.CodeObject
	// Warnings lists problems that did not stop the run.
	Warnings []string
	opt      Options
}

// Open discovers the traces and reads the code objects under base.
func Open(base string, opt Options) (*Capture, error) {
	d, err := attdir.Discover(base)
	if err != nil {
		return nil, err
	}
	c := &Capture{Base: base, Traces: d.Traces, CodeObjects: map[uint64]*sqtt.CodeObject{}, opt: opt}
	paths := d.CodeObjects
	if len(opt.CodeObjects) > 0 {
		paths = opt.CodeObjects
	}
	for _, p := range paths {
		id, ok := sqtt.CodeObjectID(p)
		if !ok {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: no code_object_id_<N> in the name; skipped", p))
			continue
		}
		co, err := sqtt.OpenCodeObject(p)
		if err != nil {
			c.Warnings = append(c.Warnings, err.Error())
			continue
		}
		if co.Funcmap == nil {
			continue
		}
		for _, d := range co.Funcmap.Diagnostics {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %s", p, d))
		}
		co.ID = id
		c.CodeObjects[id] = co
	}
	return c, nil
}

// Stats summarises one trace run.
type Stats struct {
	// Dir is the trace directory.
	Dir string
	// Records and Markers count the records read and the markers that
	// reached the stack logic.
	Records, Markers int64
	// Corrected reports whether shader-clock correction moved any header.
	Corrected bool
	// Sorted reports that the records had to be sorted in memory because
	// a shaderdata file was not in time order.
	Sorted bool
	// Warnings from the trace directory.
	Warnings []string
}

// Funcmaps returns the per-code-object funcmaps for a trace: code objects
// first, then code.json tables for code objects not captured as files.
func (c *Capture) Funcmaps(t *attdir.Trace) map[uint64]*sqtt.Funcmap {
	out := map[uint64]*sqtt.Funcmap{}
	for id, co := range c.CodeObjects {
		out[id] = co.Funcmap
	}
	for id, fm := range t.Tables.Funcmaps() {
		if _, ok := out[id]; !ok {
			out[id] = fm
		}
	}
	return out
}

// KernelCodeObject maps an occupancy kernel name to its code object: by a
// K: row with that (mangled) name, or by the "<co> / 0x<addr>" form.
func KernelCodeObject(fms map[uint64]*sqtt.Funcmap) func(name string) (uint64, bool) {
	byName := map[string]uint64{}
	for _, id := range sqtt.SortedIDs(fms) {
		for _, k := range fms[id].Kernels() {
			byName[k.Name] = id
		}
	}
	return func(name string) (uint64, bool) {
		if co, ok := byName[name]; ok {
			return co, true
		}
		if co, _, ok := attdir.CodeObjectDispatch(name); ok && !strings.HasPrefix(name, "0 /") {
			if _, known := fms[co]; known {
				return co, true
			}
		}
		return 0, false
	}
}

// Run processes one trace directory. mk is called for a fresh sink and
// trie; it is called a second time (and the first sink must be discarded)
// when the records turn out not to be time-ordered and are re-read sorted
// in memory.
func (c *Capture) Run(dir string, mk func() (waves.Sink, *waves.Trie)) (*Stats, error) {
	var p *waves.Processor
	var fms map[uint64]*sqtt.Funcmap
	var occ *attdir.Occupancy
	st, err := c.records(dir, func(t *attdir.Trace, f map[uint64]*sqtt.Funcmap) func(attdir.Record) error {
		fms, occ = f, t.Occupancy
		sink, trie := mk()
		p = waves.NewProcessor(waves.Config{Funcmaps: fms, Occupancy: occ, Filter: c.opt.Filter, Trie: trie}, sink)
		return func(r attdir.Record) error { p.Record(r); return nil }
	})
	if err != nil {
		return nil, err
	}
	p.Close()
	st.Markers = p.Markers
	return st, nil
}

// Records delivers the records of one trace directory in time order after
// shader-clock correction (unless Options.NoDecodeMarkers): packed headers
// are rewritten to legacy words and moved to their issue time. mk returns
// the consumer; it is called again, and the first consumer's output must
// be discarded, when the records are not time-ordered and are re-read
// sorted in memory.
func (c *Capture) Records(dir string, mk func() func(attdir.Record) error) (*Stats, error) {
	return c.records(dir, func(*attdir.Trace, map[uint64]*sqtt.Funcmap) func(attdir.Record) error { return mk() })
}

func (c *Capture) records(dir string, mk func(*attdir.Trace, map[uint64]*sqtt.Funcmap) func(attdir.Record) error) (*Stats, error) {
	t, err := attdir.OpenTrace(dir)
	if err != nil {
		return nil, err
	}
	st := &Stats{Dir: dir, Warnings: t.Warnings}
	fms := c.Funcmaps(t)
	kco := KernelCodeObject(fms)
	occ := t.Occupancy
	coAt := func(s attdir.Slot, tm int64) (uint64, bool) {
		ev := occ.Slots[s]
		if ev == nil || len(ev.Launches) == 0 || tm < ev.Launches[0].Time {
			return 0, false
		}
		i, _ := ev.At(tm)
		return kco(occ.Dispatches[ev.Launches[i].KernelID])
	}
	run := func(src func(func(attdir.Record) error) error) error {
		fn := mk(t, fms)
		st.Records = 0
		deliver := func(r attdir.Record) error { st.Records++; return fn(r) }
		var corr *clock.Corrector
		var err error
		if c.opt.NoDecodeMarkers {
			err = src(deliver)
		} else {
			corr, err = clock.Stream(src, fms, coAt, deliver)
		}
		st.Corrected = corr != nil && corr.Changed()
		return err
	}
	err = run(t.Stream)
	if errors.Is(err, attdir.ErrUnsorted) {
		st.Warnings = append(st.Warnings, err.Error()+"; sorting in memory")
		st.Sorted = true
		err = run(t.Sorted)
	}
	if err != nil {
		return nil, err
	}
	return st, nil
}
