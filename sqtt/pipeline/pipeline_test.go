package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/sqtt"
	"github.com/rocjitsu/rocjitsu/sqtt/attdir"
	"github.com/rocjitsu/rocjitsu/sqtt/flame"
	"github.com/rocjitsu/rocjitsu/sqtt/perfetto"
	"github.com/rocjitsu/rocjitsu/sqtt/waves"
)

func fixture(t *testing.T, elem ...string) string {
	return projectpath.MustShared(t, append([]string{"testdata", "sqtt", "pipeline_late_records"}, elem...)...)
}

// flameRun runs the flamegraph collection over every trace of base.
func flameRun(t *testing.T, base string, opt Options) []flame.Stack {
	t.Helper()
	c, err := Open(base, opt)
	if err != nil {
		t.Fatal(err)
	}
	var all []flame.Stack
	for _, dir := range c.Traces {
		var trie *waves.Trie
		if _, err := c.Run(dir, func() (waves.Sink, *waves.Trie) { trie = waves.NewTrie(); return &flame.Collector{}, trie }); err != nil {
			t.Fatal(err)
		}
		all = append(all, flame.Stacks(trie, false)...)
	}
	return flame.Merge(all)
}

func TestPipelineFolded(t *testing.T) {
	stacks := flameRun(t, fixture(t, "trace"), Options{})
	for _, tc := range []struct {
		file string
		f    flame.Format
	}{{"sqtt_flamegraph.folded.txt", flame.Upstream}, {"folded_2col.txt", flame.Standard}} {
		want, err := os.ReadFile(fixture(t, "expected", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := flame.WriteFolded(&got, stacks, tc.f); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want) {
			t.Errorf("%s:\n%s\nwant:\n%s", tc.file, got.String(), want)
		}
	}
}

func jsonEqual(t *testing.T, got, want []byte, ignore ...string) {
	t.Helper()
	var g, w map[string]any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	for _, k := range ignore {
		delete(g, k)
		delete(w, k)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("JSON differs:\n got %s\nwant %s", got, want)
	}
}

func TestPipelineSpeedscope(t *testing.T) {
	stacks := flameRun(t, fixture(t, "trace"), Options{})
	var got bytes.Buffer
	if err := flame.WriteSpeedscope(&got, stacks, "rocjitsu"); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(fixture(t, "expected", "sqtt_flamegraph.speedscope.json"))
	if err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, got.Bytes(), want, "exporter")
	// Same layout byte for byte apart from the exporter name.
	if strings.Replace(got.String(), `"rocjitsu"`, `"sqtt_flamegraph.py"`, 1) != string(want) {
		t.Errorf("layout differs:\n%s", got.String())
	}
}

func perfettoRun(t *testing.T, c *Capture, dir string, opt perfetto.Options) ([]byte, *perfetto.Writer) {
	t.Helper()
	var w *perfetto.Writer
	_, err := c.Run(dir, func() (waves.Sink, *waves.Trie) {
		if w != nil {
			w.Close()
		}
		var err error
		w, err = perfetto.NewWriter(t.TempDir(), opt)
		if err != nil {
			t.Fatal(err)
		}
		return w, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := w.Finish(&out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), w
}

func TestPipelinePerfetto(t *testing.T) {
	c, err := Open(fixture(t, "trace"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Traces) != 1 {
		t.Fatalf("traces %v", c.Traces)
	}
	got, w := perfettoRun(t, c, c.Traces[0], perfetto.Options{})
	want, err := os.ReadFile(fixture(t, "expected", "sqtt_perfetto.ui_output_agent_1_dispatch_1.perfetto.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("perfetto:\n%s\nwant:\n%s", got, want)
	}
	if w.UnmatchedExits != 1 {
		t.Errorf("unmatched exits %d, want 1", w.UnmatchedExits)
	}
	// With a clock rate, ts is in microseconds: 191 cycles at 1 GHz = 0.191 us.
	got, _ = perfettoRun(t, c, c.Traces[0], perfetto.Options{ClockRateGHz: 1})
	if !bytes.Contains(got, []byte(`"ts":0.191,`)) {
		t.Errorf("clock rate not applied: %s", got)
	}
	checkBalanced(t, got)
}

// checkBalanced verifies that B/E events nest per (pid, tid).
func checkBalanced(t *testing.T, data []byte) {
	t.Helper()
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	depth := map[[2]float64]int{}
	for _, e := range doc.TraceEvents {
		k := [2]float64{e["pid"].(float64), 0}
		if tid, ok := e["tid"].(float64); ok {
			k[1] = tid
		}
		switch e["ph"] {
		case "B":
			depth[k]++
		case "E":
			depth[k]--
			if depth[k] < 0 {
				t.Fatalf("E without B on %v", k)
			}
		}
	}
	for k, d := range depth {
		if d != 0 {
			t.Errorf("track %v ends at depth %d", k, d)
		}
	}
}

func TestPerfettoSelfTest(t *testing.T) {
	data, err := os.ReadFile(projectpath.MustShared(t, "testdata", "sqtt", "perfetto_selftest", "case.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Funcmap   map[string][2]string `json:"funcmap"`
		Records   [][6]int64           `json:"records"`
		WaveSpans []struct {
			Key   [4]uint32 `json:"key"`
			Spans []struct {
				Launch   int64  `json:"launch_time"`
				Retire   int64  `json:"retire_time"`
				Dispatch uint64 `json:"dispatch_id"`
			} `json:"spans"`
		} `json:"wave_spans"`
		Dispatches map[string]string `json:"dispatches"`
		TID        uint64            `json:"expected_tid"`
		Events     []map[string]any  `json:"expected_events"`
		Unmatched  int64             `json:"expected_unmatched_exits"`
		Metadata   []map[string]any  `json:"expected_metadata"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	fm := sqtt.NewFuncmap()
	for id, v := range c.Funcmap {
		k, _ := sqtt.ParseKind(v[1])
		var n uint32
		json.Unmarshal([]byte(id), &n)
		fm.Add(sqtt.Entry{Kind: k, ID: n, Name: v[0]})
	}
	occ := &attdir.Occupancy{Dispatches: map[uint64]string{}, Slots: map[attdir.Slot]*attdir.SlotEvents{}}
	for k, v := range c.Dispatches {
		var id uint64
		json.Unmarshal([]byte(k), &id)
		occ.Dispatches[id] = v
	}
	for _, ws := range c.WaveSpans {
		ev := &attdir.SlotEvents{}
		for _, s := range ws.Spans {
			ev.Launches = append(ev.Launches, attdir.Launch{Time: s.Launch, Retire: s.Retire, KernelID: s.Dispatch})
		}
		occ.Slots[attdir.Slot{SE: ws.Key[0], CU: uint8(ws.Key[1]), SIMD: uint8(ws.Key[2]), WaveID: uint8(ws.Key[3])}] = ev
	}
	w, err := perfetto.NewWriter(t.TempDir(), perfetto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := waves.NewProcessor(waves.Config{Funcmaps: map[uint64]*sqtt.Funcmap{1: fm}, Occupancy: occ}, w)
	for _, r := range c.Records {
		p.Record(attdir.Record{Time: r[0], Value: uint64(r[1]), CU: uint8(r[2]), SIMD: uint8(r[3]), WaveID: uint8(r[4]), Flags: uint8(r[5])})
	}
	p.Close()
	var out bytes.Buffer
	if err := w.Finish(&out); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		DisplayTimeUnit string           `json:"displayTimeUnit"`
		TraceEvents     []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := append(append([]map[string]any{}, c.Metadata...), c.Events...)
	if doc.DisplayTimeUnit != "ns" || !reflect.DeepEqual(doc.TraceEvents, want) {
		t.Errorf("events:\n%s\nwant %v", out.String(), want)
	}
	if w.UnmatchedExits != c.Unmatched {
		t.Errorf("unmatched %d", w.UnmatchedExits)
	}
	if got := perfetto.TID(waves.WaveKey{Slot: attdir.Slot{SIMD: 1, WaveID: 3}}); got != c.TID {
		t.Errorf("TID %d, want %d", got, c.TID)
	}
}

// TestMarkerRecordSamples replays the decoder-record sample vectors as
// shaderdata: NEW_WAVE becomes a relaunch of the wave slot.
func TestMarkerRecordSamples(t *testing.T) {
	data, err := os.ReadFile(projectpath.MustShared(t, "testdata", "sqtt", "marker_record_samples", "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	type marker struct {
		Time  int64  `json:"time"`
		ID    uint32 `json:"marker_id"`
		Name  string `json:"name"`
		Flags uint32 `json:"marker_flags"`
		Kind  int    `json:"marker_kind"`
	}
	var doc struct {
		Folded struct {
			Markers []marker         `json:"markers"`
			Folded  map[string]int64 `json:"expected_folded"`
			Ph      []string         `json:"expected_perfetto_ph"`
		} `json:"folded_and_perfetto"`
		NewWave struct {
			Markers []marker `json:"markers"`
			Ph      []string `json:"expected_perfetto_ph"`
		} `json:"perfetto_closes_open_scopes_at_new_wave"`
		Address struct {
			Cases []struct {
				Name     string   `json:"name"`
				Values   []uint32 `json:"values_explicit"`
				Expected []uint64 `json:"expected_addresses"`
			} `json:"cases"`
		} `json:"address_payload_protocols"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	kinds := map[int]sqtt.Kind{1: sqtt.KindFunction, 2: sqtt.KindUser, 3: sqtt.KindPoint}
	replay := func(ms []marker, sink waves.Sink, trie *waves.Trie) {
		fm := sqtt.NewFuncmap()
		ev := &attdir.SlotEvents{}
		var recs []attdir.Record
		for _, m := range ms {
			if _, ok := fm.ByID[m.ID]; !ok {
				fm.Add(sqtt.Entry{Kind: kinds[m.Kind], ID: m.ID, Name: m.Name})
			}
			if m.Flags&4 != 0 {
				ev.Launches = append(ev.Launches, attdir.Launch{Time: m.Time, Retire: attdir.MaxTime, KernelID: 0})
			}
			recs = append(recs, attdir.Record{Time: m.Time, Value: uint64(m.ID<<2 | m.Flags&3)})
		}
		occ := &attdir.Occupancy{Dispatches: map[uint64]string{}, Slots: map[attdir.Slot]*attdir.SlotEvents{{}: ev}}
		p := waves.NewProcessor(waves.Config{Funcmaps: map[uint64]*sqtt.Funcmap{7: fm}, Occupancy: occ, Trie: trie}, sink)
		for _, r := range recs {
			p.Record(r)
		}
		p.Close()
	}
	trie := waves.NewTrie()
	replay(doc.Folded.Markers, &flame.Collector{}, trie)
	got := map[string]int64{}
	for _, s := range flame.Stacks(trie, false) {
		got[s.Key()] = s.Cycles
	}
	if !reflect.DeepEqual(got, doc.Folded.Folded) {
		t.Errorf("folded %v, want %v", got, doc.Folded.Folded)
	}
	phases := func(ms []marker) []string {
		w, err := perfetto.NewWriter(t.TempDir(), perfetto.Options{})
		if err != nil {
			t.Fatal(err)
		}
		replay(ms, w, nil)
		var out bytes.Buffer
		w.Finish(&out)
		var d struct {
			TraceEvents []map[string]any `json:"traceEvents"`
		}
		json.Unmarshal(out.Bytes(), &d)
		var ph []string
		for _, e := range d.TraceEvents {
			if e["ph"] != "M" {
				ph = append(ph, e["ph"].(string))
			}
		}
		return ph
	}
	if ph := phases(doc.Folded.Markers); !reflect.DeepEqual(ph, doc.Folded.Ph) {
		t.Errorf("ph %v, want %v", ph, doc.Folded.Ph)
	}
	if ph := phases(doc.NewWave.Markers); !reflect.DeepEqual(ph, doc.NewWave.Ph) {
		t.Errorf("new wave ph %v, want %v", ph, doc.NewWave.Ph)
	}
	for _, c := range doc.Address.Cases {
		vals := c.Values
		if vals == nil { // addr_trace_load: lo/hi of 0x100000000+lane
			vals = []uint32{3, 0}
			for lane := uint64(0); lane < 32; lane++ {
				a := 0x100000000 + lane
				vals = append(vals, uint32(a), uint32(a>>32))
			}
		}
		proto, ok := sqtt.AddressProtocolFor(c.Name)
		if !ok {
			t.Fatalf("%s: no protocol", c.Name)
		}
		b, err := sqtt.DecodeAddressBlock(proto, 32, vals)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(b.Addresses, c.Expected) {
			t.Errorf("%s: addresses %v, want %v", c.Name, b.Addresses, c.Expected)
		}
	}
}

// TestPayloadSkipping checks that R: payload records and address-trace
// blocks never reach the stack logic, even when their values look like
// markers.
func TestPayloadSkipping(t *testing.T) {
	fm := sqtt.ParseFuncmap([]byte("W:32\nU:1:outer\nP:2:data\nR:2:extra_payload_count=1\nP:3:addr_trace_lds_load@k.hip:3\n"))
	var recs []attdir.Record
	tm := int64(100)
	add := func(v uint32) {
		recs = append(recs, attdir.Record{Time: tm, Value: uint64(v)})
		tm += 10
	}
	add(sqtt.Encode(1, true, false)) // enter outer
	add(sqtt.Encode(2, false, false))
	add(0x1) // payload that looks like an exit
	add(sqtt.Encode(3, false, false))
	for i := 0; i < 34; i++ { // exec lo/hi + 32 lanes, all exit-looking
		add(0x1)
	}
	add(0x1) // the real exit
	trie := waves.NewTrie()
	w, _ := perfetto.NewWriter(t.TempDir(), perfetto.Options{})
	defer w.Close()
	p := waves.NewProcessor(waves.Config{Funcmaps: map[uint64]*sqtt.Funcmap{1: fm}, Trie: trie}, w)
	for _, r := range recs {
		p.Record(r)
	}
	p.Close()
	// The address-trace block (header included) is consumed, as upstream's
	// preprocessing does: B outer, i data, E outer.
	if w.UnmatchedExits != 0 || w.Events != 3 {
		t.Fatalf("events %d, unmatched %d; want 3 (B, i, E) and 0", w.Events, w.UnmatchedExits)
	}
}

// TestGeneratedTrace runs the generator on a small trace and checks the
// invariants its manifest states: every event accounted for, no unmatched
// exits, balanced slices, and the flamegraph total equal to the time spent
// inside scopes.
func TestGeneratedTrace(t *testing.T) {
	dir := generate(t, 100000, 200, 1)
	var man struct {
		Events    int64 `json:"expected_perfetto_data_events"`
		Unmatched int64 `json:"expected_unmatched_exits"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "gen_sqtt_trace.manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(data, &man)
	c, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, w := perfettoRun(t, c, c.Traces[0], perfetto.Options{})
	if w.Events != man.Events || w.UnmatchedExits != man.Unmatched {
		t.Errorf("events %d unmatched %d, manifest says %d and %d", w.Events, w.UnmatchedExits, man.Events, man.Unmatched)
	}
	checkBalanced(t, out)

	// Streaming and in-memory sorting agree on the folded stacks.
	stacks := flameRun(t, dir, Options{})
	var a, b bytes.Buffer
	flame.WriteFolded(&a, stacks, flame.Upstream)
	tr, _ := attdir.OpenTrace(c.Traces[0])
	fms := c.Funcmaps(tr)
	trie := waves.NewTrie()
	p := waves.NewProcessor(waves.Config{Funcmaps: fms, Occupancy: tr.Occupancy, Trie: trie}, &flame.Collector{})
	if err := tr.Sorted(func(r attdir.Record) error { p.Record(r); return nil }); err != nil {
		t.Fatal(err)
	}
	p.Close()
	flame.WriteFolded(&b, flame.Stacks(trie, false), flame.Upstream)
	if a.String() != b.String() || a.Len() == 0 {
		t.Errorf("streamed and sorted folded output differ")
	}
	if !strings.HasPrefix(a.String(), "code_object_1;_Z15sqtt_gen_kernelPKfPfi;") {
		t.Errorf("unexpected prefix: %.80s", a.String())
	}
}

// TestPackedTraceCorrection builds a gfx12 trace whose packed headers
// arrive out of issue order and checks that the flamegraph sees the issue
// order after correction (and the arrival order with NoDecodeMarkers).
func TestPackedTraceCorrection(t *testing.T) {
	enc := sqtt.MarkerEncoding{ShaderClockBits: 12, ShaderClockShift: 4}
	type ev struct {
		issue, delay int64
		id           uint32
		enter, exit  bool
	}
	evs := []ev{{1008, 40, 1, true, false}, {1104, 300, 2, true, false}, {1296, 45, 0, false, true}, {1600, 41, 0, false, true}}
	var rows []string
	for _, e := range evs {
		v := enc.Encode(e.id, e.enter, e.exit, uint32(e.issue>>4)&0xFFF)
		rows = append(rows, fmt.Sprintf("[%d,%d,0,0,0,0]", e.issue+e.delay, v))
	}
	// Arrival order: 1048, 1341, 1404, 1641.
	rows[1], rows[2] = rows[2], rows[1]
	dir := t.TempDir()
	ui := filepath.Join(dir, "ui_output_agent_1_dispatch_1")
	os.MkdirAll(ui, 0o755)
	files := map[string]string{
		"shaderdata_0_0.json": `{"type":"shaderdata","records":[` + strings.Join(rows, ",") + `]}`,
		"occupancy.json":      `{"0":[[0,0,0,0,1,1]],"dispatches":{"0":"0 / 0x0","1":"kern"},"version":"3.0.0"}`,
		"code.json":           `{"code":null,"sqtt_funcmap":[[5,0,"K","kern","",4096],[5,1,"F","f","",0],[5,2,"F","g","",0]],"sqtt_funcmap_layout":[[5,12,4]]}`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(ui, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	folded := func(opt Options) string {
		var b bytes.Buffer
		flame.WriteFolded(&b, flameRun(t, dir, opt), flame.Upstream)
		return b.String()
	}
	if got, want := folded(Options{}), "code_object_5;kern;f 411 2 206\ncode_object_5;kern;f;g 182 1 182\n"; got != want {
		t.Errorf("corrected:\n%s\nwant:\n%s", got, want)
	}
	if got, want := folded(Options{NoDecodeMarkers: true}), "code_object_5;kern;f 293 1 293\ncode_object_5;kern;g 237 1 237\n"; got != want {
		t.Errorf("uncorrected:\n%s\nwant:\n%s", got, want)
	}

	// Writing the corrected records out (att_tool style) and reading them
	// back without correction gives the corrected result; correcting again
	// changes nothing.
	c, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "fixed")
	dst := filepath.Join(out, filepath.Base(ui))
	os.MkdirAll(dst, 0o755)
	var sw *attdir.ShaderdataWriter
	st, err := c.Records(ui, func() func(attdir.Record) error { sw = attdir.NewShaderdataWriter(dst, 0); return sw.Write })
	if err != nil || !st.Corrected || st.Records != 4 {
		t.Fatalf("Records: %+v %v", st, err)
	}
	index, err := sw.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := attdir.CopyTrace(ui, dst, index); err != nil {
		t.Fatal(err)
	}
	dir = out
	want := "code_object_5;kern;f 411 2 206\ncode_object_5;kern;f;g 182 1 182\n"
	if got := folded(Options{NoDecodeMarkers: true}); got != want {
		t.Errorf("rewritten, uncorrected:\n%s", got)
	}
	if got := folded(Options{}); got != want {
		t.Errorf("rewritten, corrected again:\n%s", got)
	}
}
