package attdir

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// ShaderdataWriter writes records as shaderdata_<SE>_<idx>.json files, a
// new file every PerFile records of a shader engine, in the order the
// records arrive.
type ShaderdataWriter struct {
	dir     string
	perFile int
	open    map[uint32]*sdFile
	index   map[uint32][]ShaderdataFile
	err     error
}

type sdFile struct {
	f           *os.File
	w           *bufio.Writer
	name        string
	n           int
	begin, end  int64
	buf         []byte
	se          uint32
	seqInEngine int
}

// NewShaderdataWriter writes into dir (which must exist), perFile records
// per file (500,000 when <= 0).
func NewShaderdataWriter(dir string, perFile int) *ShaderdataWriter {
	if perFile <= 0 {
		perFile = 500000
	}
	return &ShaderdataWriter{dir: dir, perFile: perFile, open: map[uint32]*sdFile{}, index: map[uint32][]ShaderdataFile{}}
}

const sdHeader = `{"type":"shaderdata","records_schema":["time","value","cu","simd","wave_id","flags"],"records":[`

// Write appends r to its shader engine's current file.
func (w *ShaderdataWriter) Write(r Record) error {
	if w.err != nil {
		return w.err
	}
	f := w.open[r.SE]
	if f == nil || f.n >= w.perFile {
		seq := 0
		if f != nil {
			seq = f.seqInEngine + 1
			if err := w.finish(f); err != nil {
				return err
			}
		}
		name := fmt.Sprintf("shaderdata_%d_%d.json", r.SE, seq)
		fh, err := os.Create(filepath.Join(w.dir, name))
		if err != nil {
			w.err = fmt.Errorf("attdir: %w", err)
			return w.err
		}
		f = &sdFile{f: fh, w: bufio.NewWriterSize(fh, 1<<20), name: name, se: r.SE, seqInEngine: seq}
		f.w.WriteString(sdHeader)
		w.open[r.SE] = f
	}
	b := f.buf[:0]
	if f.n > 0 {
		b = append(b, ',')
	} else {
		f.begin = r.Time
	}
	b = append(b, '[')
	b = strconv.AppendInt(b, r.Time, 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, r.Value, 10)
	for _, v := range [4]uint8{r.CU, r.SIMD, r.WaveID, r.Flags} {
		b = append(b, ',')
		b = strconv.AppendUint(b, uint64(v), 10)
	}
	b = append(b, ']')
	f.buf = b
	f.n++
	f.end = r.Time
	if _, err := f.w.Write(b); err != nil {
		w.err = fmt.Errorf("attdir: %s: %w", f.name, err)
	}
	return w.err
}

func (w *ShaderdataWriter) finish(f *sdFile) error {
	fmt.Fprintf(f.w, `],"records_count":%d,"begin_time":%d,"end_time":%d}`, f.n, f.begin, f.end)
	err := f.w.Flush()
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		w.err = fmt.Errorf("attdir: %s: %w", f.name, err)
		return w.err
	}
	w.index[f.se] = append(w.index[f.se], ShaderdataFile{SE: f.se, Path: filepath.Join(w.dir, f.name), Begin: f.begin, End: f.end})
	return nil
}

// Close finishes the open files and returns the index: per shader engine,
// the files in order.
func (w *ShaderdataWriter) Close() (map[uint32][]ShaderdataFile, error) {
	ses := make([]uint32, 0, len(w.open))
	for se := range w.open {
		ses = append(ses, se)
	}
	sort.Slice(ses, func(i, j int) bool { return ses[i] < ses[j] })
	for _, se := range ses {
		if err := w.finish(w.open[se]); err != nil && w.err == nil {
			w.err = err
		}
	}
	w.open = map[uint32]*sdFile{}
	return w.index, w.err
}

// CopyTrace writes the files of trace directory src into dst except the
// shaderdata files, with filenames.json's "shaderdata_filenames" replaced
// by index (other keys are kept; keys come out sorted, like the C++
// writer's).
func CopyTrace(src, dst string, index map[uint32][]ShaderdataFile) error {
	ents, err := os.ReadDir(src)
	if err != nil {
		return fmt.Errorf("attdir: %w", err)
	}
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || name == "filenames.json" || sdName().MatchString(name) {
			continue
		}
		if err := copyFile(filepath.Join(src, name), filepath.Join(dst, name)); err != nil {
			return err
		}
	}
	doc := map[string]json.RawMessage{}
	if data, err := os.ReadFile(filepath.Join(src, "filenames.json")); err == nil {
		if err := decodeJSON(data, &doc); err != nil {
			return fmt.Errorf("attdir: %s: %w", filepath.Join(src, "filenames.json"), err)
		}
	}
	sd := map[string][][3]any{}
	for se, files := range index {
		for _, f := range files {
			sd[strconv.FormatUint(uint64(se), 10)] = append(sd[strconv.FormatUint(uint64(se), 10)], [3]any{filepath.Base(f.Path), f.Begin, f.End})
		}
	}
	raw, err := json.Marshal(sd)
	if err != nil {
		return fmt.Errorf("attdir: %w", err)
	}
	doc["shaderdata_filenames"] = raw
	out, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("attdir: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dst, "filenames.json"), out, 0o644); err != nil {
		return fmt.Errorf("attdir: %w", err)
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("attdir: %w", err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("attdir: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("attdir: copying %s: %w", src, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("attdir: %w", err)
	}
	return nil
}

// SameDir reports whether a and b name the same directory.
func SameDir(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && filepath.Clean(aa) == filepath.Clean(bb)
}
