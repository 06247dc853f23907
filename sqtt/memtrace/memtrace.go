// Package memtrace extracts the address-trace blocks of an SQTT capture
// (the seed's SQTT_TRACE_ADDRESSES framing, as placed by sqtt/instrument
// or the compiler pass): per wave stream, a header whose funcmap name starts
// with addr_trace_ is followed by EXEC lo/hi and the protocol's lane words;
// the active lanes' addresses are reported with the marker's source
// location, as JSON and as a hierarchical summary (source, marker id, wave)
// in the layout of the upstream sqtt_memory_trace.py.
package memtrace

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/rocjitsu/rocjitsu/sqtt"
	"github.com/rocjitsu/rocjitsu/sqtt/attdir"
	"github.com/rocjitsu/rocjitsu/sqtt/pipeline"
)

// Trace is one decoded address-trace block.
type Trace struct {
	// Kind is the marker name without addr_trace_ and source location
	// ("load", "lds_store", "buffer_load", ...).
	Kind string
	// MarkerID is the header's marker id; Time the header's record time.
	MarkerID uint32
	Time     int64
	// SE, CU, SIMD and Wave locate the wave slot.
	SE             uint32
	CU, SIMD, Wave uint8
	// Exec is the EXEC mask; Addresses the active lanes' addresses
	// (empty when EXEC is zero; struct-buffer blocks are not reported).
	Exec      uint64
	Lanes     []int
	Addresses []uint64
	// Source is the marker's source location, "" if none.
	Source string
}

// wide reports 64-bit address formatting (everything but LDS kinds).
func (t *Trace) wide() bool {
	switch t.Kind {
	case "lds_load", "lds_store", "lds_atomic", "ds_permute", "ds_bpermute":
		return false
	}
	return true
}

// Filter restricts the waves reported (nil fields match all).
type Filter struct{ CU, SIMD, Wave *int }

// Match reports whether t's wave passes the filter.
func (f Filter) Match(t *Trace) bool {
	return (f.CU == nil || *f.CU == int(t.CU)) && (f.SIMD == nil || *f.SIMD == int(t.SIMD)) && (f.Wave == nil || *f.Wave == int(t.Wave))
}

// Collect returns the address traces of one trace directory of c (waves in
// order of their first record, each wave's blocks in time order) and the
// number of records read. PRIV records are dropped; the funcmap of a record
// is its dispatch's code object (through occupancy), else the merged map.
func Collect(c *pipeline.Capture, dir string, f Filter) ([]Trace, int, error) {
	t, err := attdir.OpenTrace(dir)
	if err != nil {
		return nil, 0, err
	}
	fms := c.Funcmaps(t)
	// As upstream, the merged map is built in the order of the code
	// object files (later files win on a shared id); maps that only the
	// trace's code.json holds come last.
	ids := sqtt.SortedIDs(fms)
	path := func(id uint64) (string, bool) {
		if co := c.CodeObjects[id]; co != nil && co.Funcmap == fms[id] {
			return co.Path, true
		}
		return "", false
	}
	sort.SliceStable(ids, func(i, j int) bool {
		pi, oki := path(ids[i])
		pj, okj := path(ids[j])
		if oki != okj {
			return oki
		}
		return pi < pj
	})
	var all []*sqtt.Funcmap
	for _, id := range ids {
		all = append(all, fms[id])
	}
	merged := sqtt.Merge(all...)
	kco := pipeline.KernelCodeObject(fms)
	resolve := func(r attdir.Record) *sqtt.Funcmap {
		if t.Occupancy == nil {
			return merged
		}
		ev := t.Occupancy.Slots[r.Slot()]
		i, ok := ev.At(r.Time)
		if !ok {
			return merged
		}
		co, ok := kco(t.Occupancy.Dispatches[ev.Launches[i].KernelID])
		if fm := fms[co]; ok && fm != nil {
			return fm
		}
		return merged
	}
	var order []attdir.Slot
	streams := map[attdir.Slot][]attdir.Record{}
	n := 0
	_, err = c.Records(dir, func() func(attdir.Record) error {
		order, streams, n = nil, map[attdir.Slot][]attdir.Record{}, 0
		return func(r attdir.Record) error {
			n++
			if r.Flags&attdir.FlagPRIV != 0 {
				return nil
			}
			s := r.Slot()
			if _, ok := streams[s]; !ok {
				order = append(order, s)
			}
			streams[s] = append(streams[s], r)
			return nil
		}
	})
	if err != nil {
		return nil, 0, err
	}
	var out []Trace
	for _, s := range order {
		rs := streams[s]
		for i := 0; i < len(rs); {
			r := rs[i]
			fm := resolve(r)
			m := fm.Decode(uint32(r.Value))
			e, known := fm.Lookup(m.ID)
			if !known {
				// An id without a name row still owns its R: payload.
				i += 1 + int(fm.ExtraPayloadCount(m.ID))
				continue
			}
			name, _, _ := strings.Cut(e.Name, "@")
			proto, isAddr := sqtt.AddressProtocolFor(name)
			if !isAddr {
				i += 1 + int(fm.ExtraPayloadCount(m.ID))
				continue
			}
			ws := int(fm.WaveSize)
			if ws != 32 && ws != 64 {
				i++ // the block fails after its header
				continue
			}
			need := proto.PayloadWords(ws)
			if i+1+need > len(rs) {
				break // truncated: the rest of the stream is consumed
			}
			words := make([]uint32, need)
			for j := range words {
				words[j] = uint32(rs[i+1+j].Value)
			}
			i += 1 + need
			blk, err := sqtt.DecodeAddressBlock(proto, ws, words)
			if err != nil || proto.Struct {
				// Struct buffers are consumed but, as upstream, not
				// reported: their address needs the descriptor's
				// stride, which the trace does not carry.
				continue
			}
			tr := Trace{Kind: strings.TrimPrefix(name, sqtt.AddressTracePrefix), MarkerID: m.ID, Time: r.Time,
				SE: r.SE, CU: r.CU, SIMD: r.SIMD, Wave: r.WaveID, Exec: blk.Exec, Lanes: blk.Lanes, Addresses: blk.Addresses, Source: e.SourceLoc}
			if f.Match(&tr) {
				out = append(out, tr)
			}
		}
	}
	return out, n, nil
}

// pyQuote quotes s as Python's json.dumps does (ensure_ascii: non-ASCII
// as \uXXXX, surrogate pairs above the BMP; no HTML escaping).
func pyQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || (r > 0x7f && r < 0x10000):
			fmt.Fprintf(&b, `\u%04x`, r)
		case r >= 0x10000:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func hexAddr(a uint64, wide bool) string {
	if wide {
		return fmt.Sprintf("0x%016x", a)
	}
	return fmt.Sprintf("0x%08x", a)
}

// WriteJSON writes the traces as a JSON array with two-space indentation
// (keys kind, marker_id, time, shader_engine, cu, simd, wave, exec_mask,
// active_lanes, addresses, and source when known) and a final newline.
func WriteJSON(w io.Writer, ts []Trace) error {
	bw := bufio.NewWriter(w)
	if len(ts) == 0 {
		bw.WriteString("[]\n")
		return bw.Flush()
	}
	q := pyQuote
	bw.WriteString("[\n")
	for i, t := range ts {
		fmt.Fprintf(bw, "  {\n    \"kind\": %s,\n    \"marker_id\": %d,\n    \"time\": %d,\n    \"shader_engine\": %d,\n    \"cu\": %d,\n    \"simd\": %d,\n    \"wave\": %d,\n    \"exec_mask\": \"0x%016x\",\n    \"active_lanes\": %d,\n",
			q(t.Kind), t.MarkerID, t.Time, t.SE, t.CU, t.SIMD, t.Wave, t.Exec, len(t.Lanes))
		if len(t.Addresses) == 0 {
			bw.WriteString("    \"addresses\": []")
		} else {
			bw.WriteString("    \"addresses\": [\n")
			for j, a := range t.Addresses {
				sep := ","
				if j == len(t.Addresses)-1 {
					sep = ""
				}
				fmt.Fprintf(bw, "      %s%s\n", q(hexAddr(a, t.wide())), sep)
			}
			bw.WriteString("    ]")
		}
		if t.Source != "" {
			fmt.Fprintf(bw, ",\n    \"source\": %s", q(t.Source))
		}
		sep := ","
		if i == len(ts)-1 {
			sep = ""
		}
		fmt.Fprintf(bw, "\n  }%s\n", sep)
	}
	bw.WriteString("]\n")
	return bw.Flush()
}

// pyList formats ints like Python's str(sorted(list)).
func pyList(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

func keys[K comparable](m map[K]bool, less func(a, b K) bool) []K {
	var ks []K
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return less(ks[i], ks[j]) })
	return ks
}

// delta is the exact difference of two 64-bit addresses: its sign and
// magnitude (a difference can exceed the int64 range).
type delta struct {
	neg bool
	mag uint64
}

func (d delta) less(e delta) bool {
	switch {
	case d.neg != e.neg:
		return d.neg
	case d.neg:
		return d.mag > e.mag
	}
	return d.mag < e.mag
}

func (d delta) String() string {
	if d.neg {
		return "-" + strconv.FormatUint(d.mag, 10)
	}
	return strconv.FormatUint(d.mag, 10)
}

// deltas formats the distinct differences of consecutive addresses,
// ascending, comma-separated ("-" when there are none).
func deltas(as []uint64) string {
	seen := map[delta]bool{}
	for i := 0; i+1 < len(as); i++ {
		a, b := as[i], as[i+1]
		if b >= a {
			seen[delta{mag: b - a}] = true
		} else {
			seen[delta{neg: true, mag: a - b}] = true
		}
	}
	if len(seen) == 0 {
		return "-"
	}
	var ds []string
	for _, x := range keys(seen, delta.less) {
		ds = append(ds, x.String())
	}
	return strings.Join(ds, ",")
}

// WriteSummary writes the hierarchical summary: totals, then per source
// location (or marker#ID), per marker id, per wave, one line per block
// with its lane count, address range and the distinct inter-lane deltas.
func WriteSummary(w io.Writer, ts []Trace) {
	if len(ts) == 0 {
		fmt.Fprintln(w, "No address traces found.")
		return
	}
	total := 0
	ses, cus, simds := map[int]bool{}, map[int]bool{}, map[int]bool{}
	byKind := map[string]int{}
	for _, t := range ts {
		total += len(t.Addresses)
		byKind[t.Kind]++
		ses[int(t.SE)], cus[int(t.CU)], simds[int(t.SIMD)] = true, true, true
	}
	ints := func(m map[int]bool) string { return pyList(keys(m, func(a, b int) bool { return a < b })) }
	fmt.Fprintf(w, "\nAddress trace summary:\n  Total operations: %d\n  Total addresses:  %d\n", len(ts), total)
	fmt.Fprintf(w, "  Shader engines:  %s\n  CUs seen:         %s\n  SIMDs seen:       %s\n  By kind:\n", ints(ses), ints(cus), ints(simds))
	kinds := make([]string, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Fprintf(w, "    %s: %d\n", k, byKind[k])
	}
	bySrc := map[string][]*Trace{}
	for i := range ts {
		t := &ts[i]
		key := t.Source
		if key == "" {
			key = fmt.Sprintf("marker#%d", t.MarkerID)
		}
		bySrc[key] = append(bySrc[key], t)
	}
	srcs := make([]string, 0, len(bySrc))
	for k := range bySrc {
		srcs = append(srcs, k)
	}
	sort.Strings(srcs)
	fmt.Fprintf(w, "\n  Hierarchical breakdown:\n")
	for _, src := range srcs {
		st := bySrc[src]
		ks := map[string]bool{}
		for _, t := range st {
			ks[t.Kind] = true
		}
		fmt.Fprintf(w, "\n  %s  (%s, %d ops)\n", src, strings.Join(keys(ks, func(a, b string) bool { return a < b }), ","), len(st))
		byID := map[uint32][]*Trace{}
		for _, t := range st {
			byID[t.MarkerID] = append(byID[t.MarkerID], t)
		}
		ids := make([]uint32, 0, len(byID))
		for id := range byID {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		for _, id := range ids {
			mt := byID[id]
			fmt.Fprintf(w, "    marker_id=%d  (%d samples)\n", id, len(mt))
			type wk struct {
				se          uint32
				cu, simd, w uint8
			}
			byWave := map[wk][]*Trace{}
			var wks []wk
			for _, t := range mt {
				k := wk{t.SE, t.CU, t.SIMD, t.Wave}
				if _, ok := byWave[k]; !ok {
					wks = append(wks, k)
				}
				byWave[k] = append(byWave[k], t)
			}
			sort.Slice(wks, func(i, j int) bool {
				a, b := wks[i], wks[j]
				if a.se != b.se {
					return a.se < b.se
				}
				if a.cu != b.cu {
					return a.cu < b.cu
				}
				if a.simd != b.simd {
					return a.simd < b.simd
				}
				return a.w < b.w
			})
			for _, k := range wks {
				wt := byWave[k]
				// As upstream: only load/store print 16 hex digits here.
				wide := wt[0].Kind == "load" || wt[0].Kind == "store"
				fmt.Fprintf(w, "      wave SE=%d CU=%d SIMD=%d wave=%d  (%d samples)\n", k.se, k.cu, k.simd, k.w, len(wt))
				for _, t := range wt {
					if len(t.Addresses) == 0 {
						fmt.Fprintf(w, "        t=%d lanes=%d (no addresses)\n", t.Time, len(t.Lanes))
						continue
					}
					d := deltas(t.Addresses)
					fmt.Fprintf(w, "        t=%d lanes=%d range=[%s..%s] deltas=[%s]\n", t.Time, len(t.Lanes),
						hexAddr(t.Addresses[0], wide), hexAddr(t.Addresses[len(t.Addresses)-1], wide), d)
				}
			}
		}
	}
}
