package sqtt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
)

// FuncmapRow is one row of code.json's "sqtt_funcmap" table:
// [codeobj_id, marker_id, kind, name, source_loc, vaddr].
type FuncmapRow struct {
	// CodeObject is the code object id.
	CodeObject uint64
	// MarkerID is the marker id, 0 for kernels.
	MarkerID uint32
	// Kind is the row kind (F, K, U, P).
	Kind Kind
	// Name is the mangled name.
	Name string
	// SourceLoc is the source location chain, "" if none.
	SourceLoc string
	// Vaddr is the resolved symbol address, 0 if unresolved.
	Vaddr uint64
}

// LayoutRow is one row of "sqtt_funcmap_layout":
// [codeobj_id, shader_clock_bits, shader_clock_shift].
type LayoutRow struct {
	// CodeObject is the code object id.
	CodeObject uint64
	// Encoding is the packed header layout.
	Encoding MarkerEncoding
}

// PayloadRow is one row of "sqtt_funcmap_payloads":
// [codeobj_id, marker_id, extra_payload_count].
type PayloadRow struct {
	// CodeObject is the code object id.
	CodeObject uint64
	// MarkerID is the marker id.
	MarkerID uint32
	// Count is the number of payload records after each header.
	Count uint32
}

// CodeTables holds the marker metadata tables of code.json.
type CodeTables struct {
	// Funcmap is the six-column "sqtt_funcmap" table.
	Funcmap []FuncmapRow
	// Layout is "sqtt_funcmap_layout": code objects with a packed layout.
	Layout []LayoutRow
	// Payloads is "sqtt_funcmap_payloads": non-zero payload counts.
	Payloads []PayloadRow
}

// TablesFor returns the code.json tables for one code object: a row per
// named entry (entries with an empty name are skipped), a layout row when
// the funcmap packs a shader clock, and a payload row for every F/U/P entry
// with a non-zero count.
func TablesFor(co *CodeObject) CodeTables {
	var t CodeTables
	if co == nil || co.Funcmap == nil {
		return t
	}
	for _, e := range co.Funcmap.Entries {
		if e.Name == "" {
			continue
		}
		t.Funcmap = append(t.Funcmap, FuncmapRow{co.ID, e.ID, e.Kind, e.Name, e.SourceLoc, e.Vaddr})
		if e.Kind != KindKernel && e.ExtraPayloadCount > 0 {
			t.Payloads = append(t.Payloads, PayloadRow{co.ID, e.ID, e.ExtraPayloadCount})
		}
	}
	if co.Funcmap.Encoding.Packed() {
		t.Layout = append(t.Layout, LayoutRow{co.ID, co.Funcmap.Encoding})
	}
	return t
}

// Append adds the rows of o to t.
func (t *CodeTables) Append(o CodeTables) {
	t.Funcmap = append(t.Funcmap, o.Funcmap...)
	t.Layout = append(t.Layout, o.Layout...)
	t.Payloads = append(t.Payloads, o.Payloads...)
}

// MarshalJSON writes the tables as code.json keys: "sqtt_funcmap" always,
// the layout and payload tables only when non-empty.
func (t CodeTables) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"sqtt_funcmap":[`)
	for i, r := range t.Funcmap {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(r.Name)
		loc, _ := json.Marshal(r.SourceLoc)
		fmt.Fprintf(&b, `[%d,%d,"%c",%s,%s,%d]`, r.CodeObject, r.MarkerID, byte(r.Kind), name, loc, r.Vaddr)
	}
	b.WriteByte(']')
	if len(t.Layout) > 0 {
		b.WriteString(`,"sqtt_funcmap_layout":[`)
		for i, r := range t.Layout {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `[%d,%d,%d]`, r.CodeObject, r.Encoding.ShaderClockBits, r.Encoding.ShaderClockShift)
		}
		b.WriteByte(']')
	}
	if len(t.Payloads) > 0 {
		b.WriteString(`,"sqtt_funcmap_payloads":[`)
		for i, r := range t.Payloads {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `[%d,%d,%d]`, r.CodeObject, r.MarkerID, r.Count)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the three tables from a code.json object; other keys
// ("code", "header", ...) are ignored and absent tables are empty. Rows
// with at least four columns are accepted (source_loc may be null; vaddr
// defaults to 0); kind may be a prefix or a long name.
func (t *CodeTables) UnmarshalJSON(data []byte) error {
	var doc struct {
		Funcmap  []json.RawMessage `json:"sqtt_funcmap"`
		Layout   []json.RawMessage `json:"sqtt_funcmap_layout"`
		Payloads []json.RawMessage `json:"sqtt_funcmap_payloads"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return fmt.Errorf("code.json: offset %d: %w", se.Offset, err)
		case errors.As(err, &te):
			return fmt.Errorf("code.json: offset %d: field %q: %w", te.Offset, te.Field, err)
		}
		return fmt.Errorf("code.json: %w", err)
	}
	*t = CodeTables{}
	for i, raw := range doc.Funcmap {
		cols, err := rowColumns(raw, 4)
		if err != nil {
			return fmt.Errorf("code.json: sqtt_funcmap[%d]: %w", i, err)
		}
		var r FuncmapRow
		if r.CodeObject, err = colUint(cols[0], 64); err != nil {
			return fmt.Errorf("code.json: sqtt_funcmap[%d][0] codeobj_id: %w", i, err)
		}
		id, err := colUint(cols[1], 32)
		if err != nil {
			return fmt.Errorf("code.json: sqtt_funcmap[%d][1] marker_id: %w", i, err)
		}
		r.MarkerID = uint32(id)
		var ks string
		if err := json.Unmarshal(cols[2], &ks); err != nil {
			return fmt.Errorf("code.json: sqtt_funcmap[%d][2] kind: %w", i, err)
		}
		k, ok := ParseKind(ks)
		if !ok {
			return fmt.Errorf("code.json: sqtt_funcmap[%d][2] kind: unknown kind %q", i, ks)
		}
		r.Kind = k
		if err := json.Unmarshal(cols[3], &r.Name); err != nil {
			return fmt.Errorf("code.json: sqtt_funcmap[%d][3] name: %w", i, err)
		}
		if len(cols) > 4 && string(cols[4]) != "null" {
			if err := json.Unmarshal(cols[4], &r.SourceLoc); err != nil {
				return fmt.Errorf("code.json: sqtt_funcmap[%d][4] source_loc: %w", i, err)
			}
		}
		if len(cols) > 5 {
			if r.Vaddr, err = colUint(cols[5], 64); err != nil {
				return fmt.Errorf("code.json: sqtt_funcmap[%d][5] vaddr: %w", i, err)
			}
		}
		t.Funcmap = append(t.Funcmap, r)
	}
	for i, raw := range doc.Layout {
		cols, err := rowColumns(raw, 3)
		if err != nil {
			return fmt.Errorf("code.json: sqtt_funcmap_layout[%d]: %w", i, err)
		}
		var v [3]uint64
		for j := range v {
			if v[j], err = colUint(cols[j], colBits(j)); err != nil {
				return fmt.Errorf("code.json: sqtt_funcmap_layout[%d][%d]: %w", i, j, err)
			}
		}
		t.Layout = append(t.Layout, LayoutRow{v[0], MarkerEncoding{uint32(v[1]), uint32(v[2])}})
	}
	for i, raw := range doc.Payloads {
		cols, err := rowColumns(raw, 3)
		if err != nil {
			return fmt.Errorf("code.json: sqtt_funcmap_payloads[%d]: %w", i, err)
		}
		var v [3]uint64
		for j := range v {
			if v[j], err = colUint(cols[j], colBits(j)); err != nil {
				return fmt.Errorf("code.json: sqtt_funcmap_payloads[%d][%d]: %w", i, j, err)
			}
		}
		t.Payloads = append(t.Payloads, PayloadRow{v[0], uint32(v[1]), uint32(v[2])})
	}
	return nil
}

// colBits is the width of column j of the layout and payload tables: the
// code object id is 64-bit, the other columns 32-bit.
func colBits(j int) int {
	if j == 0 {
		return 64
	}
	return 32
}

func rowColumns(raw json.RawMessage, minCols int) ([]json.RawMessage, error) {
	var cols []json.RawMessage
	if err := json.Unmarshal(raw, &cols); err != nil {
		return nil, fmt.Errorf("row is not an array: %w", err)
	}
	if len(cols) < minCols {
		return nil, fmt.Errorf("row has %d columns, want at least %d", len(cols), minCols)
	}
	return cols, nil
}

func colUint(raw json.RawMessage, bits int) (uint64, error) {
	s := string(bytes.TrimSpace(raw))
	v, err := strconv.ParseUint(s, 10, bits)
	if err != nil {
		// Writers that go through floats print integral values as "7.0".
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f < 0 || f != float64(uint64(f)) || (bits < 64 && uint64(f) >= 1<<bits) {
			return 0, fmt.Errorf("%q is not an unsigned %d-bit integer", s, bits)
		}
		return uint64(f), nil
	}
	return v, nil
}

// Funcmaps rebuilds one funcmap per code object from the tables: entries
// from the six-column rows, the layout from a valid layout row, and payload
// counts for ids that have a non-kernel row (payload rows for unknown ids
// are ignored). Code objects that appear only in the layout table get an
// empty funcmap with that layout.
func (t CodeTables) Funcmaps() map[uint64]*Funcmap {
	out := map[uint64]*Funcmap{}
	get := func(co uint64) *Funcmap {
		fm := out[co]
		if fm == nil {
			fm = NewFuncmap()
			out[co] = fm
		}
		return fm
	}
	for _, r := range t.Funcmap {
		get(r.CodeObject).Add(Entry{Kind: r.Kind, ID: r.MarkerID, Name: r.Name, SourceLoc: r.SourceLoc, Vaddr: r.Vaddr, Resolved: r.Vaddr != 0})
	}
	for _, r := range t.Layout {
		if r.Encoding.Packed() {
			get(r.CodeObject).Encoding = r.Encoding
		}
	}
	for _, r := range t.Payloads {
		fm := out[r.CodeObject]
		if fm == nil || r.Count == 0 {
			continue
		}
		if _, ok := fm.ByID[r.MarkerID]; ok {
			fm.SetExtraPayloadCount(r.MarkerID, r.Count)
		}
	}
	return out
}

// SortedIDs returns the keys of a per-code-object map in increasing order.
func SortedIDs[V any](m map[uint64]V) []uint64 {
	ids := make([]uint64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}
