package attdir

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

func formats(t testing.TB, name string) []byte {
	data, err := os.ReadFile(projectpath.MustShared(t, "testdata", "sqtt", "formats", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func scanAll(data string, se uint32) ([]Record, error) {
	s := NewScanner(strings.NewReader(data), "test.json", se)
	var out []Record
	for {
		r, ok := s.Next()
		if !ok {
			break
		}
		out = append(out, r)
	}
	return out, s.Err()
}

func TestScannerExample(t *testing.T) {
	recs, err := scanAll(string(formats(t, "shaderdata_0_0.example.json")), 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []Record{{160, 6, 3, 1, 2, 3, 0}, {200, 8, 3, 1, 2, 3, 1}, {239, 1, 3, 1, 2, 3, 0}}
	if !reflect.DeepEqual(recs, want) {
		t.Errorf("got %+v", recs)
	}
}

func TestScannerVariants(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Record
	}{
		{`{"records":[[1,2,3,4,5,0]],"type":"S_TTRACEDATA","x":{"a":[1,{"b":null}],"c":"\"]"}}`, []Record{{1, 2, 0, 3, 4, 5, 0}}},
		{" {\n \"records\" : [ [ -5 , 4294967295 , 0 , 0 , 0 , 2 , 99, \"extra\" ] ] } \n", []Record{{-5, 4294967295, 0, 0, 0, 0, 2}}},
		{`{"records":[[7.0,1,0,0,0,0]]}`, []Record{{7, 1, 0, 0, 0, 0, 0}}},
		{`{"records":null,"type":"shaderdata"}`, nil},
		{`{"records":[]}`, nil},
		{`{}`, nil},
		{`{"type":"shaderdata"}`, nil},
		{"{\"note\":\"\xef\xbf\xbd \xc3\xa9 " + strings.Repeat("x", 5000) + "\",\"records\":[[1,2,3,4,5,0]]}", []Record{{1, 2, 0, 3, 4, 5, 0}}},
	} {
		got, err := scanAll(tc.in, 0)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %+v, %v", tc.in, got, err)
		}
	}
}

func TestScannerErrors(t *testing.T) {
	for _, tc := range []struct{ in, msg string }{
		{`{"records":[[1,2,3,4,5]]}`, "records[0] has 5 columns"},
		{`{"records":[[1,2,300,4,5,0]]}`, "records[0][2] cu = 300"},
		{`{"records":[[1,2,3,4,5,0],[1,"x",3,4,5,0]]}`, "records[1][1] value"},
		{`{"records":[[1,2,3,4,5,0]`, "unexpected end of file"},
		{`{"records":[[1.5,2,3,4,5,0]]}`, "records[0][0] time: not an integer"},
		{`{"records":[[01,2,3,4,5,0]]}`, "leading zero"},
		{`{"records":[[1,-2,3,4,5,0]]}`, "records[0][1] value"},
		{`{"records":[[99999999999999999999,2,3,4,5,0]]}`, "overflows"},
		{`[1,2]`, "start of shaderdata object"},
		{`{"records":[[1,2,3,4,5,0]]} x`, "trailing data"},
		{`{"a":tru}`, "bad literal"},
		{`{"a":1.}`, "bad number"},
		{"{\"a\":\"\xff\"}", "invalid UTF-8"},
		{"{\"a\":\"\xc3\"}", "invalid UTF-8"},
	} {
		_, err := scanAll(tc.in, 0)
		if err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), "test.json: offset ") {
			t.Errorf("%q: error %v, want one naming the offset and %q", tc.in, err, tc.msg)
		}
	}
}

func TestOccupancyWriters(t *testing.T) {
	cpp, err := ParseOccupancy(formats(t, "occupancy.cpp_writer.example.json"))
	if err != nil {
		t.Fatal(err)
	}
	py, err := ParseOccupancy(formats(t, "occupancy.python_writer.example.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := Slot{0, 1, 2, 3}
	want := []Launch{{Time: 100, Retire: 130, KernelID: 1}}
	for name, o := range map[string]*Occupancy{"cpp": cpp, "python": py} {
		if !reflect.DeepEqual(o.Slots[s].Launches, want) {
			t.Errorf("%s: launches %+v", name, o.Slots[s].Launches)
		}
		if o.Dispatches[1] != "_Z6kernelPf" || o.Dispatches[0] != "0 / 0x0" {
			t.Errorf("%s: dispatches %v", name, o.Dispatches)
		}
	}
	if len(cpp.Slots) != 2 || cpp.Slots[Slot{1, 0, 0, 0}].Launches[0].Retire != 400 {
		t.Errorf("cpp slots %+v", cpp.Slots)
	}
	// Late records belong to the latest launch; early ones to the first.
	ev := &SlotEvents{Launches: []Launch{{Time: 100, KernelID: 1}, {Time: 300, KernelID: 2}}}
	for _, tc := range []struct {
		t    int64
		want int
	}{{50, 0}, {100, 0}, {299, 0}, {300, 1}, {1 << 40, 1}} {
		if i, ok := ev.At(tc.t); !ok || i != tc.want {
			t.Errorf("At(%d) = %d", tc.t, i)
		}
	}
	if _, err := ParseOccupancy([]byte(`{"0":[[1,2,999,3,1,0]]}`)); err == nil || !strings.Contains(err.Error(), `"0"[0][2] simd`) {
		t.Errorf("bad simd: %v", err)
	}
	if _, err := ParseOccupancy([]byte(`{"0":[[1,2,3,3,1,"k"]]}`)); err == nil || !strings.Contains(err.Error(), "kernel_id") {
		t.Errorf("bad kernel id: %v", err)
	}
	if co, addr, ok := CodeObjectDispatch("7 / 0x1f00"); !ok || co != 7 || addr != 0x1f00 {
		t.Errorf("CodeObjectDispatch: %d %x %v", co, addr, ok)
	}
}

func writeFiles(t *testing.T, files map[string]string) string {
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func collect(t *testing.T, tr *Trace, sorted bool) ([]Record, error) {
	var out []Record
	f := tr.Stream
	if sorted {
		f = tr.Sorted
	}
	err := f(func(r Record) error { out = append(out, r); return nil })
	return out, err
}

func TestTraceIndexAndMerge(t *testing.T) {
	rec := func(rows string) string {
		return `{"type":"shaderdata","records":[` + rows + `]}`
	}
	dir := writeFiles(t, map[string]string{
		"ui_x/filenames.json":                 `{"shaderdata_filenames":{"1":[["shaderdata_1_0.json",5,9]],"0":[["shaderdata_0_0.json",1,8],"shaderdata_0_1.json"],"gone":[["x.json",0,0]]},"wave_filenames":null}`,
		"ui_x/shaderdata_0_0.json":            rec(`[1,1,0,0,0,0],[8,2,0,0,0,0]`),
		"ui_x/shaderdata_0_1.json":            rec(`[9,3,0,0,0,0]`),
		"ui_x/shaderdata_1_0.json":            rec(`[5,4,0,0,0,0],[8,5,0,0,0,0]`),
		"host/1_gfx1201_code_object_id_3.out": "",
		"ui_y/occupancy.json":                 `{"dispatches":{"0":"0 / 0x0"},"version":"3.0.0"}`,
	})
	c, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Traces) != 2 || len(c.CodeObjects) != 1 {
		t.Fatalf("discover: %+v", c)
	}
	tr, err := OpenTrace(c.Traces[0])
	if err != nil {
		t.Fatal(err)
	}
	// Engines in file order ("1" before "0"), files in list order.
	if len(tr.Files) != 3 || tr.Files[0].SE != 1 || tr.Files[1].SE != 0 || tr.Files[1].Begin != 1 || tr.Files[1].End != 8 {
		t.Errorf("files %+v", tr.Files)
	}
	recs, err := collect(t, tr, false)
	if err != nil {
		t.Fatal(err)
	}
	var vals []uint64
	for _, r := range recs {
		vals = append(vals, r.Value)
	}
	// Time order; the tie at 8 keeps index order (SE1 listed before SE0).
	if !reflect.DeepEqual(vals, []uint64{1, 4, 5, 2, 3}) {
		t.Errorf("merge order %v", vals)
	}
	if len(tr.Warnings) < 1 || !strings.Contains(strings.Join(tr.Warnings, ";"), "occupancy") {
		t.Errorf("warnings %v", tr.Warnings)
	}
	// A directory without filenames.json or shaderdata is an empty trace.
	tr2, err := OpenTrace(c.Traces[1])
	if err != nil || len(tr2.Files) != 0 {
		t.Errorf("ui_y: %+v %v", tr2, err)
	}

	unsorted := writeFiles(t, map[string]string{"shaderdata_0_0.json": rec(`[5,1,0,0,0,0],[3,2,0,0,0,0]`), "shaderdata_2_0.json": rec(`[4,3,1,0,0,0]`)})
	tr3, err := OpenTrace(unsorted)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := collect(t, tr3, false); !errors.Is(err, ErrUnsorted) {
		t.Errorf("unsorted stream: %v", err)
	}
	across := writeFiles(t, map[string]string{"shaderdata_0_0.json": rec(`[5,1,0,0,0,0]`), "shaderdata_0_1.json": rec(`[3,2,0,0,0,0]`)})
	tr4, err := OpenTrace(across)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := collect(t, tr4, false); !errors.Is(err, ErrUnsorted) || !strings.Contains(err.Error(), "shaderdata_0_1.json") {
		t.Errorf("overlapping files of one engine: %v", err)
	}
	recs, err = collect(t, tr3, true)
	if err != nil || len(recs) != 3 || recs[0].Time != 3 || recs[1].SE != 2 {
		t.Errorf("sorted: %+v %v", recs, err)
	}
}

func TestRealPCSamplingIndex(t *testing.T) {
	data, err := os.ReadFile(projectpath.MustShared(t, "testdata", "sqtt", "real", "rcv_pcsampling_filenames.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := writeFiles(t, map[string]string{"filenames.json": string(data)})
	tr, err := OpenTrace(dir)
	if err != nil || len(tr.Files) != 0 {
		t.Fatalf("%+v %v", tr, err)
	}
	bad := writeFiles(t, map[string]string{"filenames.json": `{"shaderdata_filenames":{"0":[[5,1,2]]}}`})
	if _, err := OpenTrace(bad); err == nil || !strings.Contains(err.Error(), `shaderdata_filenames["0"][0][0]`) {
		t.Errorf("bad index: %v", err)
	}
	evil := writeFiles(t, map[string]string{"filenames.json": `{"shaderdata_filenames":{"0":["../../etc/passwd"]}}`})
	if _, err := OpenTrace(evil); err == nil {
		t.Error("path escaping the trace directory accepted")
	}
	codeBad := writeFiles(t, map[string]string{"code.json": `{"sqtt_funcmap":[[7,"x","F","f"]]}`})
	if _, err := OpenTrace(codeBad); err == nil || !strings.Contains(err.Error(), "sqtt_funcmap[0][1] marker_id") {
		t.Errorf("bad code.json: %v", err)
	}
}

func FuzzShaderdata(f *testing.F) {
	f.Add(formats(f, "shaderdata_0_0.example.json"))
	f.Add([]byte(`{"records":[[1,2,3,4,5,0]],"x":{"a":[1,{"b":null}],"c":"\"]\u00e9"}}`))
	f.Add([]byte(`{"records":[[7.0,1,0,0,0,0]],"end_time":1e3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzguard.Run(t, data, func() {
			s := NewScanner(strings.NewReader(string(data)), "fuzz.json", 0)
			n := 0
			for {
				if _, ok := s.Next(); !ok {
					break
				}
				n++
			}
			if s.Err() == nil && !json.Valid(data) {
				t.Fatalf("scanner accepted invalid JSON %q (%d records)", data, n)
			}
		})
	})
}

func FuzzOccupancy(f *testing.F) {
	f.Add(formats(f, "occupancy.cpp_writer.example.json"))
	f.Add(formats(f, "occupancy.python_writer.example.json"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzguard.Run(t, data, func() {
			occ, err := ParseOccupancy(data)
			if err != nil {
				return
			}
			for s, ev := range occ.Slots {
				for i := 1; i < len(ev.Launches); i++ {
					if ev.Launches[i].Time < ev.Launches[i-1].Time {
						t.Fatalf("slot %v launches not sorted", s)
					}
				}
			}
		})
	})
}

// TestWriterRoundTrip writes records with the shaderdata writer, copies the
// directory and reads it back.
func TestWriterRoundTrip(t *testing.T) {
	src := writeFiles(t, map[string]string{
		"filenames.json":      `{"gfxip":12,"shaderdata_filenames":{"0":[["shaderdata_0_0.json",1,3]]},"version":"3.0.0","wave_filenames":null}`,
		"shaderdata_0_0.json": `{"records":[[1,1,0,0,0,0]]}`,
		"occupancy.json":      `{"0":[[0,0,0,0,1,1]],"dispatches":{"1":"k"}}`,
	})
	dst := t.TempDir()
	w := NewShaderdataWriter(dst, 2)
	want := []Record{{1, 10, 0, 1, 2, 3, 1}, {2, 4294967295, 1, 0, 0, 0, 0}, {3, 12, 0, 0, 0, 0, 2}, {-4, 5, 0, 9, 9, 9, 0}}
	for _, r := range want {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	index, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(index[0]) != 2 || len(index[1]) != 1 || index[0][1].Begin != -4 {
		t.Fatalf("index %+v", index)
	}
	if err := CopyTrace(src, dst, index); err != nil {
		t.Fatal(err)
	}
	tr, err := OpenTrace(dst)
	if err != nil {
		t.Fatal(err)
	}
	got, err := collect(t, tr, true)
	if err != nil {
		t.Fatal(err)
	}
	byVal := map[uint64]Record{}
	for _, r := range got {
		byVal[r.Value] = r
	}
	for _, r := range want {
		if byVal[r.Value] != r {
			t.Errorf("record %+v read back as %+v", r, byVal[r.Value])
		}
	}
	data, _ := os.ReadFile(filepath.Join(dst, "filenames.json"))
	if !strings.Contains(string(data), `"gfxip":12`) || !strings.Contains(string(data), `"shaderdata_1_0.json",2,2`) {
		t.Errorf("filenames.json %s", data)
	}
	if tr.Occupancy.Dispatches[1] != "k" {
		t.Error("occupancy not copied")
	}
	if !SameDir(dst, dst+"/.") || SameDir(src, dst) {
		t.Error("SameDir")
	}
}
