package sqtt

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Kind is the funcmap row kind of a marker entry.
type Kind byte

// Entry kinds, named after their row prefixes.
const (
	// KindFunction (F:) is an instrumented function: an enter/exit scope.
	KindFunction Kind = 'F'
	// KindKernel (K:) names a kernel for vaddr lookup; it has no id.
	KindKernel Kind = 'K'
	// KindUser (U:) is a named user scope: enter/exit.
	KindUser Kind = 'U'
	// KindPoint (P:) is a point event: no stack change.
	KindPoint Kind = 'P'
)

// String returns the long name used by the tools: function, kernel, user,
// point.
func (k Kind) String() string {
	switch k {
	case KindFunction:
		return "function"
	case KindKernel:
		return "kernel"
	case KindUser:
		return "user"
	case KindPoint:
		return "point"
	}
	return fmt.Sprintf("Kind(%q)", byte(k))
}

// IsScope reports whether entries of kind k push and pop the stack.
func (k Kind) IsScope() bool { return k == KindFunction || k == KindUser }

// ParseKind accepts a row prefix ("F") or a long name ("function", "func",
// "kernel", "user", "user_scope", "point").
func ParseKind(s string) (Kind, bool) {
	switch strings.ToLower(s) {
	case "f", "function", "func":
		return KindFunction, true
	case "k", "kernel":
		return KindKernel, true
	case "u", "user", "user_scope", "userscope":
		return KindUser, true
	case "p", "point":
		return KindPoint, true
	}
	return 0, false
}

// Entry is one named funcmap row (F, K, U or P).
type Entry struct {
	// Kind is the row kind.
	Kind Kind
	// ID is the marker id; 0 for kernels.
	ID uint32
	// Name is the (mangled) name.
	Name string
	// SourceLoc is the inline chain "file:line -> outer:line", or "".
	SourceLoc string
	// Vaddr is the symbol address for F and K entries, 0 if unresolved.
	Vaddr uint64
	// Resolved reports whether Vaddr came from a symbol. An F entry
	// without a symbol was inlined everywhere.
	Resolved bool
	// ExtraPayloadCount is the number of raw records that follow each
	// header of this marker in its wave stream (R: row); 0 if none.
	ExtraPayloadCount uint32
}

// Severity grades a funcmap diagnostic.
type Severity int

// Diagnostic severities.
const (
	// Warning marks a row that was skipped or repaired.
	Warning Severity = iota
	// Error marks a blob that could not be read at all.
	Error
)

// Diagnostic is one parser message with its 1-based line number (0 when it
// concerns the whole blob).
type Diagnostic struct {
	// Severity grades the message.
	Severity Severity
	// Line is the 1-based line of the row, 0 for the whole section.
	Line int
	// Msg is the message text.
	Msg string
}

// String formats d like the C++ decoder: ".sqtt_funcmap warning (line N): msg".
func (d Diagnostic) String() string {
	sev := "warning"
	if d.Severity == Error {
		sev = "error"
	}
	if d.Line == 0 {
		return fmt.Sprintf(".sqtt_funcmap %s: %s", sev, d.Msg)
	}
	return fmt.Sprintf(".sqtt_funcmap %s (line %d): %s", sev, d.Line, d.Msg)
}

// Funcmap is a parsed .sqtt_funcmap section.
type Funcmap struct {
	// Entries holds every named row in section order, duplicates included.
	Entries []*Entry
	// ByID maps marker ids to the last F/U/P entry with that id (K rows are
	// not included).
	ByID map[uint32]*Entry
	// WaveSize is the W: row value, 0 if absent.
	WaveSize uint32
	// Encoding is the header layout from the last valid M: row; the zero
	// value (legacy) without one.
	Encoding MarkerEncoding
	// Diagnostics lists the warnings produced while parsing.
	Diagnostics []Diagnostic
	// payloads holds the R: rows by id, including rows for unknown ids.
	payloads map[uint32]uint32
}

// NewFuncmap returns an empty funcmap.
func NewFuncmap() *Funcmap {
	return &Funcmap{ByID: map[uint32]*Entry{}, payloads: map[uint32]uint32{}}
}

func parseU32(s string) (uint32, bool) {
	if s == "" || len(s) > 10 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseUint(s, 10, 32)
	return uint32(v), err == nil
}

// ParseFuncmap parses a .sqtt_funcmap blob with the reference (C++
// decoder) rules: rows end at '\n' or NUL, trailing CR/space/tab/NUL are
// stripped, blank lines are skipped, the prefix is one character followed by
// ':', ids are unsigned 32-bit decimal digits only. Bad rows produce a
// line-numbered warning and are skipped; a duplicate id replaces the earlier
// entry in ByID (last wins) with a warning; a malformed M: row leaves the
// legacy layout in effect. ParseFuncmap never fails.
func ParseFuncmap(blob []byte) *Funcmap {
	fm := NewFuncmap()
	warn := func(line int, format string, args ...any) {
		fm.Diagnostics = append(fm.Diagnostics, Diagnostic{Warning, line, fmt.Sprintf(format, args...)})
	}
	lineNo := 0
	for len(blob) > 0 || lineNo == 0 {
		lineNo++
		i := bytes.IndexAny(blob, "\n\x00")
		var raw []byte
		if i < 0 {
			raw, blob = blob, nil
		} else {
			raw, blob = blob[:i], blob[i+1:]
		}
		line := strings.TrimRight(string(raw), "\r \t\x00")
		if line == "" {
			continue
		}
		if len(line) < 2 || line[1] != ':' {
			warn(lineNo, "malformed row (no prefix:): %q", clip(line))
			continue
		}
		prefix, payload := line[0], line[2:]
		switch prefix {
		case 'W':
			v, ok := parseU32(payload)
			if !ok {
				warn(lineNo, "malformed W: row: %q", clip(payload))
				continue
			}
			fm.WaveSize = v
		case 'M':
			enc, seen, ok := parseEncoding(payload)
			if !ok {
				warn(lineNo, "malformed M: row: %q", clip(payload))
				continue
			}
			if seen {
				fm.Encoding = enc
			}
		case 'R':
			idStr, attrs, _ := strings.Cut(payload, ":")
			id, ok := parseU32(idStr)
			if !ok {
				warn(lineNo, "malformed R: row (bad ID): %q", clip(payload))
				continue
			}
			for _, kv := range strings.Split(attrs, ";") {
				k, v, has := strings.Cut(kv, "=")
				if !has || k != "extra_payload_count" {
					continue
				}
				n, ok := parseU32(v)
				if !ok {
					warn(lineNo, "malformed R: row (bad extra_payload_count): %q", clip(v))
					continue
				}
				fm.payloads[id] = n
			}
		case 'K':
			name, loc, _ := strings.Cut(payload, "@")
			if name == "" {
				warn(lineNo, "K: row missing name")
				continue
			}
			fm.Entries = append(fm.Entries, &Entry{Kind: KindKernel, Name: name, SourceLoc: loc})
		case 'F', 'U', 'P':
			idStr, rest, has := strings.Cut(payload, ":")
			id, ok := parseU32(idStr)
			if !has || !ok {
				warn(lineNo, "malformed %c: row (bad ID): %q", prefix, clip(payload))
				continue
			}
			name, loc, _ := strings.Cut(rest, "@")
			if name == "" {
				warn(lineNo, "malformed %c: row (empty name)", prefix)
				continue
			}
			fm.add(&Entry{Kind: Kind(prefix), ID: id, Name: name, SourceLoc: loc}, lineNo)
		default:
			warn(lineNo, "unknown row prefix '%c'", prefix)
		}
	}
	fm.applyPayloads()
	return fm
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// parseEncoding parses an M: payload. seen reports whether a
// shader_clock_bits key was present; ok is false for a malformed row.
func parseEncoding(payload string) (enc MarkerEncoding, seen, ok bool) {
	var haveShift bool
	for _, kv := range strings.Split(payload, ";") {
		k, v, has := strings.Cut(kv, "=")
		if !has {
			continue
		}
		switch k {
		case "shader_clock_bits":
			n, good := parseU32(v)
			if !good {
				return enc, false, false
			}
			enc.ShaderClockBits, seen = n, true
		case "shader_clock_shift":
			n, good := parseU32(v)
			if !good {
				return enc, false, false
			}
			enc.ShaderClockShift, haveShift = n, true
		}
	}
	b, s := enc.ShaderClockBits, enc.ShaderClockShift
	if (b > 0 && !haveShift) || b > 29 || s > 32 || b > 32-s {
		return enc, false, false
	}
	if b == 0 {
		enc.ShaderClockShift = 0
	}
	return enc, seen, true
}

func (fm *Funcmap) add(e *Entry, line int) {
	if old, dup := fm.ByID[e.ID]; dup && line > 0 {
		fm.Diagnostics = append(fm.Diagnostics, Diagnostic{Warning, line,
			fmt.Sprintf("duplicate marker ID %d — previous %q replaced by %q", e.ID, old.Name, e.Name)})
	}
	fm.Entries = append(fm.Entries, e)
	fm.ByID[e.ID] = e
}

func (fm *Funcmap) applyPayloads() {
	for _, e := range fm.Entries {
		if e.Kind == KindKernel {
			continue
		}
		if n, ok := fm.payloads[e.ID]; ok {
			e.ExtraPayloadCount = n
		}
	}
}

// Add appends e as if it were the next row: F/U/P entries also replace any
// entry with the same id in ByID.
func (fm *Funcmap) Add(e Entry) {
	if fm.ByID == nil {
		fm.ByID = map[uint32]*Entry{}
	}
	p := &e
	if e.Kind == KindKernel {
		p.ID = 0
		fm.Entries = append(fm.Entries, p)
		return
	}
	fm.add(p, 0)
	if e.ExtraPayloadCount > 0 {
		fm.SetExtraPayloadCount(e.ID, e.ExtraPayloadCount)
	}
}

// SetExtraPayloadCount records an R: row for id and applies it to the
// entries with that id.
func (fm *Funcmap) SetExtraPayloadCount(id, n uint32) {
	if fm.payloads == nil {
		fm.payloads = map[uint32]uint32{}
	}
	fm.payloads[id] = n
	fm.applyPayloads()
}

// Lookup returns the F/U/P entry registered for id.
func (fm *Funcmap) Lookup(id uint32) (*Entry, bool) {
	if fm == nil {
		return nil, false
	}
	e, ok := fm.ByID[id]
	return e, ok
}

// ExtraPayloadCount returns the number of raw records that follow a header
// of marker id (0 without an R: row). An R: row for an id without an entry
// still counts here, as in the upstream scripts; Entry.ExtraPayloadCount
// (and the code.json payload table) only carry rows for known ids.
func (fm *Funcmap) ExtraPayloadCount(id uint32) uint32 {
	if fm == nil {
		return 0
	}
	if e, ok := fm.ByID[id]; ok {
		return e.ExtraPayloadCount
	}
	return fm.payloads[id]
}

// HasPayloads reports whether any marker declares payload records.
func (fm *Funcmap) HasPayloads() bool {
	if fm == nil {
		return false
	}
	for _, e := range fm.ByID {
		if e.ExtraPayloadCount > 0 {
			return true
		}
	}
	return false
}

// Kernels returns the K: entries in section order.
func (fm *Funcmap) Kernels() []*Entry {
	var ks []*Entry
	for _, e := range fm.Entries {
		if e.Kind == KindKernel {
			ks = append(ks, e)
		}
	}
	return ks
}

// Decode decodes raw with the funcmap's layout, applying the packed layout
// only when the masked id is registered in the funcmap or the word is a
// bare exit; any other word (numeric markers) stays legacy. A nil funcmap
// decodes legacy.
func (fm *Funcmap) Decode(raw uint32) Marker {
	if fm == nil || !fm.Encoding.Packed() {
		return Decode(raw)
	}
	m := fm.Encoding.Decode(raw)
	if _, known := fm.ByID[m.ID]; known || m.IsBareExit() {
		return m
	}
	return Decode(raw)
}

// Merge returns a funcmap holding the entries of all maps in order; later
// maps replace earlier ids, and the last non-zero wave size and the last
// packed layout win. It is the fallback used when a record's code object is
// unknown.
func Merge(maps ...*Funcmap) *Funcmap {
	out := NewFuncmap()
	for _, fm := range maps {
		if fm == nil {
			continue
		}
		for _, e := range fm.Entries {
			c := *e
			if c.Kind == KindKernel {
				out.Entries = append(out.Entries, &c)
				continue
			}
			out.add(&c, 0)
		}
		for id, n := range fm.payloads {
			out.payloads[id] = n
		}
		if fm.WaveSize != 0 {
			out.WaveSize = fm.WaveSize
		}
		if fm.Encoding.HasShaderClock() {
			out.Encoding = fm.Encoding
		}
	}
	out.applyPayloads()
	return out
}

// Format writes fm back as a .sqtt_funcmap blob: M:, W:, then the named rows
// in order, then R: rows sorted by id, each ending in '\n', and a final NUL.
// ParseFuncmap(fm.Format()) reproduces the entries, layout, wave size and
// payload counts.
func (fm *Funcmap) Format() []byte {
	var b bytes.Buffer
	if fm.Encoding.HasShaderClock() {
		fmt.Fprintf(&b, "M:%s\n", fm.Encoding)
	}
	if fm.WaveSize != 0 {
		fmt.Fprintf(&b, "W:%d\n", fm.WaveSize)
	}
	payloads := map[uint32]uint32{}
	for _, e := range fm.Entries {
		name := e.Name
		// A row's trailing CR, space and tab are stripped when it is
		// parsed: a name ending in one keeps it behind an empty "@".
		if e.SourceLoc != "" || strings.TrimRight(name, "\r \t") != name {
			name += "@" + e.SourceLoc
		}
		if e.Kind == KindKernel {
			fmt.Fprintf(&b, "K:%s\n", name)
			continue
		}
		fmt.Fprintf(&b, "%c:%d:%s\n", byte(e.Kind), e.ID, name)
		if e.ExtraPayloadCount > 0 {
			payloads[e.ID] = e.ExtraPayloadCount
		}
	}
	ids := make([]uint32, 0, len(payloads))
	for id := range payloads {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		fmt.Fprintf(&b, "R:%d:extra_payload_count=%d\n", id, payloads[id])
	}
	b.WriteByte(0)
	return b.Bytes()
}
