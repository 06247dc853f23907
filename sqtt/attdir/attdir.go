// Package attdir reads the output tree of `rocprofv3 --att`: every ui_*
// directory (one time domain each) with its filenames.json index, the
// shaderdata_<SE>_<idx>.json record files (streamed, never loaded whole),
// occupancy.json (both writer variants), code.json marker tables, and the
// captured code objects (*code_object_id_<N>.out).
package attdir

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/rocjitsu/rocjitsu/sqtt"
)

// Capture is a discovered rocprofv3 --att output tree.
type Capture struct {
	// Base is the directory that was searched.
	Base string
	// Traces are the trace directories (ui_* or any directory holding
	// shaderdata_*.json), sorted by path.
	Traces []string
	// CodeObjects are the *code_object_id*.out files, sorted by path.
	CodeObjects []string
}

// Discover walks base recursively. A directory is a trace directory when
// its name starts with "ui_" or it holds a shaderdata_*.json file; a file
// is a code object when its name contains "code_object_id" and ends in
// ".out".
func Discover(base string) (*Capture, error) {
	st, err := os.Stat(base)
	if err != nil {
		return nil, fmt.Errorf("attdir: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("attdir: %s is not a directory", base)
	}
	c := &Capture{Base: base}
	traces := map[string]bool{}
	err = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if strings.HasPrefix(name, "ui_") {
				traces[p] = true
			}
			return nil
		}
		if strings.HasPrefix(name, "shaderdata_") && strings.HasSuffix(name, ".json") {
			traces[filepath.Dir(p)] = true
		}
		if strings.Contains(name, "code_object_id") && strings.HasSuffix(name, ".out") {
			c.CodeObjects = append(c.CodeObjects, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("attdir: %w", err)
	}
	for p := range traces {
		c.Traces = append(c.Traces, p)
	}
	sort.Strings(c.Traces)
	sort.Strings(c.CodeObjects)
	return c, nil
}

// ShaderdataFile is one entry of the shaderdata index.
type ShaderdataFile struct {
	// SE is the shader engine.
	SE uint32
	// Path is the file path.
	Path string
	// Begin and End are the time range from filenames.json (0 if unknown).
	Begin, End int64
}

// Trace is one ui_* directory: one SQTT time domain.
type Trace struct {
	// Dir is the directory.
	Dir string
	// Files lists the shaderdata files in index order.
	Files []ShaderdataFile
	// Occupancy holds the wave launches and ends and the kernel names.
	Occupancy *Occupancy
	// Tables holds code.json's marker tables (empty without code.json).
	Tables sqtt.CodeTables
	// Warnings lists non-fatal problems (missing optional files).
	Warnings []string
}

// OpenTrace reads the index, occupancy and code.json of a trace directory.
// Absent optional files (occupancy.json, code.json, filenames.json) give
// warnings; malformed ones are errors naming the file and field.
func OpenTrace(dir string) (*Trace, error) {
	t := &Trace{Dir: dir}
	if err := t.readIndex(); err != nil {
		return nil, err
	}
	occ, err := ReadOccupancyFile(filepath.Join(dir, "occupancy.json"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		t.Warnings = append(t.Warnings, "no occupancy.json: wave spans and kernel names unknown")
		occ = &Occupancy{Dispatches: map[uint64]string{}, Slots: map[Slot]*SlotEvents{}}
	case err != nil:
		return nil, err
	}
	t.Occupancy = occ
	data, err := os.ReadFile(filepath.Join(dir, "code.json"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("attdir: %w", err)
	default:
		if err := decodeJSON(data, &t.Tables); err != nil {
			return nil, fmt.Errorf("attdir: %s: %w", filepath.Join(dir, "code.json"), err)
		}
	}
	return t, nil
}

// sdName matches the name of a shader data file; compiled on first use.
var sdName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^shaderdata_(\d+)((?:_\d+)*)\.json$`)
})

func (t *Trace) readIndex() error {
	path := filepath.Join(t.Dir, "filenames.json")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return t.globIndex()
	}
	if err != nil {
		return fmt.Errorf("attdir: %w", err)
	}
	var doc struct {
		Shaderdata json.RawMessage `json:"shaderdata_filenames"`
	}
	if err := decodeJSON(data, &doc); err != nil {
		return fmt.Errorf("attdir: %s: %w", path, err)
	}
	// Keep the engines in file order: records with equal times are
	// ordered by it, as in a stable sort of the files read in that order.
	keys, lists, err := orderedObject(doc.Shaderdata)
	if err != nil {
		return fmt.Errorf("attdir: %s: shaderdata_filenames: %w", path, err)
	}
	for _, k := range keys {
		se, err := strconv.ParseUint(k, 10, 32)
		if err != nil {
			continue // not a shader engine key
		}
		var entries []json.RawMessage
		if err := decodeJSON(lists[k], &entries); err != nil {
			return fmt.Errorf("attdir: %s: shaderdata_filenames[%q]: %w", path, k, err)
		}
		for i, raw := range entries {
			f := ShaderdataFile{SE: uint32(se)}
			var name string
			if err := json.Unmarshal(raw, &name); err != nil {
				var row []json.RawMessage
				if err := json.Unmarshal(raw, &row); err != nil || len(row) == 0 {
					return fmt.Errorf("attdir: %s: shaderdata_filenames[%q][%d]: want [name, begin, end] or a name", path, k, i)
				}
				if err := json.Unmarshal(row[0], &name); err != nil {
					return fmt.Errorf("attdir: %s: shaderdata_filenames[%q][%d][0]: file name: %w", path, k, i, err)
				}
				if len(row) >= 3 {
					json.Unmarshal(row[1], &f.Begin)
					json.Unmarshal(row[2], &f.End)
				}
			}
			if name == "" || strings.ContainsAny(name, `/\`) || name == ".." {
				return fmt.Errorf("attdir: %s: shaderdata_filenames[%q][%d]: bad file name %q", path, k, i, name)
			}
			f.Path = filepath.Join(t.Dir, name)
			if _, err := os.Stat(f.Path); err != nil {
				t.Warnings = append(t.Warnings, fmt.Sprintf("%s listed in filenames.json is missing", name))
				continue
			}
			t.Files = append(t.Files, f)
		}
	}
	return nil
}

// globIndex lists shaderdata_*.json when filenames.json is absent, sorted
// by the numbers in the name; the SE is the first number.
func (t *Trace) globIndex() error {
	ents, err := os.ReadDir(t.Dir)
	if err != nil {
		return fmt.Errorf("attdir: %w", err)
	}
	type cand struct {
		nums []uint64
		name string
	}
	var cs []cand
	for _, e := range ents {
		m := sdName().FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		var nums []uint64
		for _, part := range strings.Split(m[1]+m[2], "_") {
			if part == "" {
				continue
			}
			n, err := strconv.ParseUint(part, 10, 32)
			if err != nil {
				nums = nil
				break
			}
			nums = append(nums, n)
		}
		if nums == nil {
			continue
		}
		cs = append(cs, cand{nums, e.Name()})
	}
	sort.Slice(cs, func(i, j int) bool {
		a, b := cs[i].nums, cs[j].nums
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return len(a) < len(b)
	})
	for _, c := range cs {
		t.Files = append(t.Files, ShaderdataFile{SE: uint32(c.nums[0]), Path: filepath.Join(t.Dir, c.name)})
	}
	return nil
}

// ErrUnsorted is returned by Stream when a shaderdata file is not in time
// order; the caller can fall back to Sorted.
var ErrUnsorted = errors.New("shaderdata records are not in time order")

// Stream calls fn for every record of the trace in time order. The files
// of one shader engine are read one after another (the writers split an
// engine's time-ordered records into consecutive files), each engine by its
// own goroutine in batches, and the engines are merged by time, ties in
// index order. At most one file per shader engine is open and a few batches
// per engine are in flight, so memory does not grow with the trace. A
// record earlier than its predecessor in the same engine returns an error
// wrapping ErrUnsorted before the out-of-order record is delivered; Sorted
// handles such input.
func (t *Trace) Stream(fn func(Record) error) error {
	done := make(chan struct{})
	var wg sync.WaitGroup
	defer func() {
		close(done)
		wg.Wait()
	}()
	bySE := map[uint32]*chain{}
	var chains []*chain
	for _, sf := range t.Files {
		c := bySE[sf.SE]
		if c == nil {
			c = &chain{}
			bySE[sf.SE] = c
			chains = append(chains, c)
		}
		c.files = append(c.files, sf)
	}
	h := &mergeHeap{}
	for i, c := range chains {
		f := &feed{ch: make(chan batch, 2), free: make(chan []Record, 4)}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.produce(f, done)
		}()
		rec, ok, err := f.next()
		if err != nil {
			return err
		}
		if ok {
			h.items = append(h.items, mergeItem{rec, i, f})
		}
	}
	heap.Init(h)
	for len(h.items) > 0 {
		top := &h.items[0]
		if err := fn(top.rec); err != nil {
			return err
		}
		next, ok, err := top.f.next()
		if err != nil {
			return err
		}
		if !ok {
			heap.Pop(h)
			continue
		}
		top.rec = next
		heap.Fix(h, 0)
	}
	return nil
}

const batchSize = 4096

// batch is a run of records from one engine, or the error that ended it.
type batch struct {
	recs []Record
	err  error
}

// feed is the consumer side of one engine's producer goroutine.
type feed struct {
	ch   chan batch
	free chan []Record
	cur  []Record
	i    int
}

func (f *feed) next() (Record, bool, error) {
	for f.i >= len(f.cur) {
		if f.cur != nil {
			select {
			case f.free <- f.cur[:0]:
			default:
			}
			f.cur = nil
		}
		b, ok := <-f.ch
		if !ok {
			return Record{}, false, nil
		}
		if b.err != nil {
			return Record{}, false, b.err
		}
		f.cur, f.i = b.recs, 0
	}
	r := f.cur[f.i]
	f.i++
	return r, true, nil
}

// produce reads the chain into batches until the end, an error, or done.
func (c *chain) produce(f *feed, done <-chan struct{}) {
	defer close(f.ch)
	defer c.close()
	send := func(b batch) bool {
		select {
		case f.ch <- b:
			return true
		case <-done:
			return false
		}
	}
	var buf []Record
	last, have := int64(0), false
	for {
		if buf == nil {
			select {
			case buf = <-f.free:
			default:
				buf = make([]Record, 0, batchSize)
			}
		}
		r, ok, err := c.next()
		if err == nil && ok && have && r.Time < last {
			err = fmt.Errorf("attdir: %s: record %d at time %d follows time %d: %w", c.files[c.cur].Path, c.s.row-1, r.Time, last, ErrUnsorted)
		}
		if err != nil || !ok {
			if len(buf) > 0 && !send(batch{recs: buf}) {
				return
			}
			if err != nil {
				send(batch{err: err})
			}
			return
		}
		last, have = r.Time, true
		buf = append(buf, r)
		if len(buf) == batchSize {
			if !send(batch{recs: buf}) {
				return
			}
			buf = nil
		}
	}
}

// chain reads the files of one shader engine in order.
type chain struct {
	files []ShaderdataFile
	cur   int
	f     *os.File
	br    *bufio.Reader
	s     *Scanner
}

func (c *chain) close() {
	if c.f != nil {
		c.f.Close()
		c.f = nil
	}
}

func (c *chain) next() (Record, bool, error) {
	for {
		if c.s == nil {
			if c.cur >= len(c.files) {
				return Record{}, false, nil
			}
			sf := c.files[c.cur]
			f, err := os.Open(sf.Path)
			if err != nil {
				return Record{}, false, fmt.Errorf("attdir: %w", err)
			}
			c.f = f
			// One read buffer per engine, reused across its files.
			if c.br == nil {
				c.br = bufio.NewReaderSize(f, scanBufSize)
			} else {
				c.br.Reset(f)
			}
			c.s = &Scanner{r: c.br, name: sf.Path, se: sf.SE}
		}
		if r, ok := c.s.Next(); ok {
			return r, true, nil
		}
		if err := c.s.Err(); err != nil {
			return Record{}, false, fmt.Errorf("attdir: %w", err)
		}
		c.close()
		c.s = nil
		c.cur++
	}
}

// Sorted reads every record into memory, stably sorts by time and calls fn
// for each. It accepts files in any order; memory grows with the number of
// records.
func (t *Trace) Sorted(fn func(Record) error) error {
	var all []Record
	for _, sf := range t.Files {
		f, err := os.Open(sf.Path)
		if err != nil {
			return fmt.Errorf("attdir: %w", err)
		}
		s := NewScanner(f, sf.Path, sf.SE)
		for {
			r, ok := s.Next()
			if !ok {
				break
			}
			all = append(all, r)
		}
		f.Close()
		if s.Err() != nil {
			return fmt.Errorf("attdir: %w", s.Err())
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Time < all[j].Time })
	for _, r := range all {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

type mergeItem struct {
	rec Record
	idx int
	f   *feed
}

type mergeHeap struct{ items []mergeItem }

func (h *mergeHeap) Len() int { return len(h.items) }
func (h *mergeHeap) Less(i, j int) bool {
	a, b := &h.items[i], &h.items[j]
	if a.rec.Time != b.rec.Time {
		return a.rec.Time < b.rec.Time
	}
	return a.idx < b.idx
}
func (h *mergeHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *mergeHeap) Push(x any)    { h.items = append(h.items, x.(mergeItem)) }
func (h *mergeHeap) Pop() any {
	n := len(h.items) - 1
	it := h.items[n]
	h.items = h.items[:n]
	return it
}

// CodeObjectDispatch parses a dispatches value of the form
// "<codeobj> / 0x<addr>" (an entry point without a symbol name).
func CodeObjectDispatch(name string) (co, addr uint64, ok bool) {
	a, b, found := strings.Cut(name, " / ")
	if !found {
		return 0, 0, false
	}
	co, err := strconv.ParseUint(strings.TrimSpace(a), 10, 64)
	if err != nil {
		return 0, 0, false
	}
	b = strings.TrimSpace(b)
	if !strings.HasPrefix(b, "0x") && !strings.HasPrefix(b, "0X") {
		return 0, 0, false
	}
	addr, err = strconv.ParseUint(b[2:], 16, 64)
	if err != nil {
		return 0, 0, false
	}
	return co, addr, true
}

// orderedObject returns the member names of a JSON object in file order and
// their raw values; null or absent gives no members.
func orderedObject(raw json.RawMessage) ([]string, map[string]json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil, nil
	}
	var vals map[string]json.RawMessage
	if err := decodeJSON(raw, &vals); err != nil {
		return nil, nil, err
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	var keys []string
	seen := map[string]bool{}
	if _, err := d.Token(); err != nil { // '{'
		return nil, nil, jsonError(err)
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, nil, jsonError(err)
		}
		key, _ := tok.(string)
		if _, dup := seen[key]; !dup {
			seen[key] = true
			keys = append(keys, key)
		}
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return nil, nil, jsonError(err)
		}
	}
	return keys, vals, nil
}

// decodeJSON is json.Unmarshal with errors that name the byte offset.
func decodeJSON(data []byte, v any) error {
	return jsonError(json.Unmarshal(data, v))
}

// jsonError adds the input offset (and field) to encoding/json errors.
func jsonError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		return fmt.Errorf("offset %d: %w", se.Offset, err)
	case errors.As(err, &te):
		return fmt.Errorf("offset %d: field %q: %w", te.Offset, te.Field, err)
	}
	return err
}
