package sqtt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

func hex32(t *testing.T, s string) uint32 {
	t.Helper()
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 32)
	if err != nil {
		t.Fatalf("bad hex %q", s)
	}
	return uint32(v)
}

type encJSON struct {
	Bits  uint32 `json:"bits"`
	Shift uint32 `json:"shift"`
}

func TestDecodeVectors(t *testing.T) {
	path := projectpath.MustShared(t, "testdata", "sqtt", "decode", "marker_values.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type exp struct {
		ID       *uint32 `json:"id"`
		Enter    *bool   `json:"enter"`
		ExitPrev *bool   `json:"exit_prev"`
		Clock    *uint32 `json:"clock"`
		Valid    *bool   `json:"valid"`
	}
	type vec struct {
		Name       string    `json:"name"`
		Raw        uint32    `json:"raw"`
		Encoding   *encJSON  `json:"encoding"`
		FuncmapIDs *[]uint32 `json:"funcmap_ids"`
		Expected   exp       `json:"expected"`
	}
	var doc struct {
		Legacy       []vec `json:"legacy"`
		WithEncoding []vec `json:"with_encoding"`
		Masks        []struct {
			Encoding encJSON `json:"encoding"`
			Valid    bool    `json:"valid"`
			ID       string  `json:"marker_id_mask"`
			Packed   string  `json:"packed_shader_clock_mask"`
			Source   string  `json:"shader_clock_source_mask"`
		} `json:"masks"`
		ThirdParty []struct {
			Cases []struct {
				ID    *uint32 `json:"id"`
				Flags uint32  `json:"flags"`
				Raw   uint32  `json:"raw"`
			} `json:"cases"`
		} `json:"third_party_encodings"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range append(doc.Legacy, doc.WithEncoding...) {
		var m Marker
		var enc MarkerEncoding
		if v.Encoding != nil {
			enc = MarkerEncoding{v.Encoding.Bits, v.Encoding.Shift}
		}
		switch {
		case v.FuncmapIDs != nil:
			fm := NewFuncmap()
			fm.Encoding = enc
			for _, id := range *v.FuncmapIDs {
				fm.Add(Entry{Kind: KindPoint, ID: id, Name: fmt.Sprint("m", id)})
			}
			m = fm.Decode(v.Raw)
		case v.Encoding != nil:
			m = enc.Decode(v.Raw)
		default:
			m = Decode(v.Raw)
		}
		e := v.Expected
		if e.ID != nil && m.ID != *e.ID {
			t.Errorf("%s: id %d, want %d", v.Name, m.ID, *e.ID)
		}
		if e.Enter != nil && m.Enter != *e.Enter {
			t.Errorf("%s: enter %v", v.Name, m.Enter)
		}
		if e.ExitPrev != nil && m.ExitPrev != *e.ExitPrev {
			t.Errorf("%s: exit_prev %v", v.Name, m.ExitPrev)
		}
		if e.Clock != nil && m.Clock != *e.Clock {
			t.Errorf("%s: clock %d, want %d", v.Name, m.Clock, *e.Clock)
		}
		if e.Valid != nil && enc.Valid() != *e.Valid {
			t.Errorf("%s: valid %v", v.Name, enc.Valid())
		}
		if v.FuncmapIDs == nil && v.Encoding == nil && Encode(m.ID, m.Enter, m.ExitPrev) != v.Raw {
			t.Errorf("%s: Encode does not round-trip", v.Name)
		}
		n++
	}
	for _, c := range doc.Masks {
		enc := MarkerEncoding{c.Encoding.Bits, c.Encoding.Shift}
		if enc.Valid() != c.Valid {
			t.Errorf("%v: valid %v", enc, enc.Valid())
		}
		if got := enc.MarkerIDMask(); got != hex32(t, c.ID) {
			t.Errorf("%v: id mask %#x, want %s", enc, got, c.ID)
		}
		if c.Packed != "" && enc.PackedShaderClockMask() != hex32(t, c.Packed) {
			t.Errorf("%v: packed mask %#x, want %s", enc, enc.PackedShaderClockMask(), c.Packed)
		}
		if c.Source != "" && enc.ShaderClockSourceMask() != hex32(t, c.Source) {
			t.Errorf("%v: source mask %#x, want %s", enc, enc.ShaderClockSourceMask(), c.Source)
		}
		n++
	}
	for _, tp := range doc.ThirdParty {
		for _, c := range tp.Cases {
			if c.ID == nil {
				continue
			}
			if got := Encode(*c.ID, c.Flags&FlagEnter != 0, c.Flags&FlagExitPrev != 0); got != c.Raw {
				t.Errorf("Encode(%d, %d) = %d, want %d", *c.ID, c.Flags, got, c.Raw)
			}
			n++
		}
	}
	if n < 15 {
		t.Fatalf("only %d vectors checked", n)
	}
}

func TestPackedEncodeRoundTrip(t *testing.T) {
	enc := MarkerEncoding{12, 4}
	w := enc.Encode(42, true, false, 0xABC)
	if w != 2881487018 {
		t.Fatalf("Encode = %d", w)
	}
	m := enc.Decode(w)
	if m.ID != 42 || !m.Enter || m.ExitPrev || m.Clock != 0xABC || m.Legacy() != 42<<2|2 {
		t.Fatalf("Decode = %+v", m)
	}
	if enc.SampledWindow(w) != 0xABC0 {
		t.Fatalf("SampledWindow = %#x", enc.SampledWindow(w))
	}
}

func TestFuncmapCases(t *testing.T) {
	dir := projectpath.MustShared(t, "testdata", "sqtt", "funcmap")
	data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	cases := map[string]map[string]json.RawMessage{}
	for name, raw := range top {
		if name == "_comment" {
			continue
		}
		var c map[string]json.RawMessage
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cases[name] = c
	}
	blobs, _ := filepath.Glob(filepath.Join(dir, "*"))
	checked := 0
	for _, b := range blobs {
		name := filepath.Base(b)
		if name == "expected.json" {
			continue
		}
		if _, ok := cases[name]; !ok {
			t.Errorf("blob %s has no expected entry", name)
		}
	}
	for name, c := range cases {
		if name == "_comment" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			blob, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			fm := ParseFuncmap(blob)
			for key, raw := range c {
				checkFuncmapKey(t, fm, key, raw)
			}
			// Writing and re-parsing keeps everything.
			again := ParseFuncmap(fm.Format())
			if !reflect.DeepEqual(entryTuples(again), entryTuples(fm)) || again.Encoding != fm.Encoding || again.WaveSize != fm.WaveSize {
				t.Errorf("Format round trip changed the funcmap:\n%s", fm.Format())
			}
			if len(again.Diagnostics) != 0 && len(fm.Diagnostics) == 0 {
				t.Errorf("Format output has diagnostics: %v", again.Diagnostics)
			}
		})
		checked++
	}
	if checked != 17 {
		t.Fatalf("%d funcmap cases, want 17", checked)
	}
}

func entryTuples(fm *Funcmap) [][5]any {
	var out [][5]any
	for _, e := range fm.Entries {
		out = append(out, [5]any{string(e.Kind), e.ID, e.Name, e.SourceLoc, e.ExtraPayloadCount})
	}
	return out
}

func checkFuncmapKey(t *testing.T, fm *Funcmap, key string, raw json.RawMessage) {
	t.Helper()
	must := func(v any) {
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
	}
	diagText := func() string {
		var s []string
		for _, d := range fm.Diagnostics {
			s = append(s, d.String())
		}
		return strings.Join(s, "\n")
	}
	switch key {
	case "source", "note", "rule", "payload_arithmetic":
	case "entries":
		var want [][]any
		must(&want)
		var got [][]any
		for _, e := range fm.Entries {
			got = append(got, []any{string(e.Kind), float64(e.ID), e.Name, e.SourceLoc})
		}
		if len(want) == 0 && len(got) == 0 {
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("entries %v, want %v", got, want)
		}
	case "wave_size":
		var w uint32
		must(&w)
		if fm.WaveSize != w {
			t.Errorf("wave size %d, want %d", fm.WaveSize, w)
		}
	case "marker_encoding":
		var e struct {
			Bits  uint32 `json:"shader_clock_bits"`
			Shift uint32 `json:"shader_clock_shift"`
		}
		must(&e)
		if fm.Encoding != (MarkerEncoding{e.Bits, e.Shift}) {
			t.Errorf("encoding %v, want %+v", fm.Encoding, e)
		}
	case "extra_payload_counts":
		var want map[string]uint32
		must(&want)
		got := map[string]uint32{}
		for id, e := range fm.ByID {
			if e.ExtraPayloadCount > 0 {
				got[fmt.Sprint(id)] = e.ExtraPayloadCount
			}
		}
		if len(want) != len(got) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
			t.Errorf("payload counts %v, want %v", got, want)
		}
	case "diagnostics":
		var want []string
		must(&want)
		if len(want) != len(fm.Diagnostics) {
			t.Errorf("diagnostics %q, want %q", diagText(), want)
		}
	case "diagnostics_contain":
		var want []string
		must(&want)
		for _, w := range want {
			if !strings.Contains(diagText(), w) {
				t.Errorf("diagnostics %q lack %q", diagText(), w)
			}
		}
	case "min_diagnostics":
		var n int
		must(&n)
		if len(fm.Diagnostics) < n {
			t.Errorf("%d diagnostics, want >= %d", len(fm.Diagnostics), n)
		}
	case "diagnostic_line_numbers":
		var want map[string]string
		must(&want)
		for line := range want {
			found := false
			for _, d := range fm.Diagnostics {
				if fmt.Sprint(d.Line) == line {
					found = true
				}
			}
			if !found {
				t.Errorf("no diagnostic for line %s: %q", line, diagText())
			}
		}
	case "by_id":
		var want map[string][]string
		must(&want)
		for id, kv := range want {
			n, _ := strconv.Atoi(id)
			e, ok := fm.ByID[uint32(n)]
			if !ok || string(e.Kind) != kv[0] || e.Name != kv[1] {
				t.Errorf("by_id[%s] = %+v, want %v", id, e, kv)
			}
		}
	case "by_id_present", "by_id_absent":
		var ids []uint32
		must(&ids)
		for _, id := range ids {
			if _, ok := fm.ByID[id]; ok != (key == "by_id_present") {
				t.Errorf("%s: id %d present=%v", key, id, ok)
			}
		}
	case "marker_id_mask", "packed_shader_clock_mask", "shader_clock_source_mask":
		var s string
		must(&s)
		got := map[string]uint32{
			"marker_id_mask":           fm.Encoding.MarkerIDMask(),
			"packed_shader_clock_mask": fm.Encoding.PackedShaderClockMask(),
			"shader_clock_source_mask": fm.Encoding.ShaderClockSourceMask(),
		}[key]
		if got != hex32(t, s) {
			t.Errorf("%s %#x, want %s", key, got, s)
		}
	case "code_json":
		var want map[string]json.RawMessage
		must(&want)
		tables := TablesFor(&CodeObject{ID: 10, Funcmap: fm})
		gotJSON, _ := json.Marshal(tables)
		var got map[string]json.RawMessage
		if err := json.Unmarshal(gotJSON, &got); err != nil {
			t.Fatal(err)
		}
		for k, w := range want {
			g, ok := got[k]
			if string(w) == `"<absent>"` {
				if ok && string(g) != "[]" {
					t.Errorf("%s present: %s", k, g)
				}
				continue
			}
			var wv, gv any
			json.Unmarshal(w, &wv)
			json.Unmarshal(g, &gv)
			if !reflect.DeepEqual(wv, gv) {
				t.Errorf("%s = %s, want %s", k, g, w)
			}
		}
		// The tables read back into the same per-code-object funcmap.
		var back CodeTables
		if err := json.Unmarshal(gotJSON, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, tables) {
			t.Errorf("tables round trip: %+v != %+v", back, tables)
		}
		if fm2 := back.Funcmaps()[10]; fm2 != nil && fm2.Encoding != fm.Encoding {
			t.Errorf("Funcmaps encoding %v, want %v", fm2.Encoding, fm.Encoding)
		}
	default:
		t.Errorf("unhandled expectation key %q", key)
	}
}

func TestCodeObjects(t *testing.T) {
	dir := projectpath.MustShared(t, "testdata", "sqtt", "elf")
	co, err := OpenCodeObject(filepath.Join(dir, "packed_code_object_id_8.out"))
	if err != nil {
		t.Fatal(err)
	}
	if co.ID != 8 || co.Funcmap == nil || co.Funcmap.Encoding != (MarkerEncoding{12, 4}) {
		t.Fatalf("packed: %+v", co)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, co, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	want := `marker_encoding: shader_clock_bits=12 shader_clock_shift=4
  Type        ID               Vaddr  Name
  ----       ---               -----  ----
kernel         -  0x0000000000001900  packed_kernel  @ k.hip:10
  func         3  0x0000000000001200  outer  @ k.hip:3
  user         4                   -  phase
 point         5                   -  checkpoint
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}

	plain, err := OpenCodeObject(filepath.Join(dir, "plain_code_object_id_7.out"))
	if err != nil {
		t.Fatal(err)
	}
	tab := TablesFor(plain)
	wantRows := []FuncmapRow{{7, 0, KindKernel, "kernel", "", 0x1000}, {7, 1, KindFunction, "outer", "", 0}, {7, 2, KindFunction, "inner", "", 0}}
	if !reflect.DeepEqual(tab.Funcmap, wantRows) {
		t.Errorf("plain rows %+v", tab.Funcmap)
	}
	b.Reset()
	WriteTable(&b, plain, TableOptions{})
	if !strings.Contains(b.String(), "outer  (inlined)") {
		t.Errorf("unresolved function not marked inlined:\n%s", b.String())
	}

	none, err := OpenCodeObject(filepath.Join(dir, "no_funcmap_code_object_id_9.out"))
	if err != nil || none.Funcmap != nil || none.Symbols["kernel"] != 0x1000 {
		t.Fatalf("no funcmap: %+v %v", none, err)
	}
	if err := WriteTable(&b, none, TableOptions{}); err != ErrNoFuncmap {
		t.Errorf("WriteTable without funcmap: %v", err)
	}
	empty, err := OpenCodeObject(filepath.Join(dir, "empty_section_code_object_id_10.out"))
	if err != nil || empty.Funcmap == nil || len(empty.Funcmap.Diagnostics) != 1 ||
		!strings.Contains(empty.Funcmap.Diagnostics[0].Msg, "present but empty") {
		t.Fatalf("empty section: %+v %v", empty, err)
	}
	if _, err := ReadCodeObject(bytes.NewReader([]byte("not an elf file at all, clearly not"))); err == nil {
		t.Fatal("garbage accepted")
	}
}

// TestSectionMatchesObjcopy checks the extracted section against
// llvm-objcopy's dump of the same ELF (the tool the upstream scripts use).
func TestSectionMatchesObjcopy(t *testing.T) {
	objcopy := llvmtool.Require(t, "llvm-objcopy")
	src := projectpath.MustShared(t, "testdata", "sqtt", "elf", "packed_code_object_id_8.out")
	out := filepath.Join(t.TempDir(), "section.bin")
	if msg, err := runTool(objcopy, "--dump-section="+SectionName+"="+out, src, filepath.Join(t.TempDir(), "copy.out")); err != nil {
		t.Fatalf("llvm-objcopy: %v\n%s", err, msg)
	}
	dumped, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	co, err := OpenCodeObject(src)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(co.Funcmap.Format(), dumped) {
		t.Errorf("section %q, Format %q", dumped, co.Funcmap.Format())
	}
	fm := projectpath.MustShared(t, "testdata", "sqtt", "pipeline_late_records", "funcmap_co7.bin")
	raw, _ := os.ReadFile(fm)
	plain, _ := OpenCodeObject(projectpath.MustShared(t, "testdata", "sqtt", "elf", "plain_code_object_id_7.out"))
	if !bytes.Equal(plain.Funcmap.Format(), raw) {
		t.Errorf("plain Format %q, section file %q", plain.Funcmap.Format(), raw)
	}
}

func TestDemangleTable(t *testing.T) {
	fm := ParseFuncmap([]byte("K:_Z7kernelAi@kernel.hip:80\nF:3:_Z4syncv@kernel.hip:42\nF:4:_Z11helper_funcv@helper.hpp:17\nU:1:load_input\n"))
	co := &CodeObject{Funcmap: fm, Symbols: map[string]uint64{"_Z7kernelAi": 0x1000, "_Z4syncv": 0x1200}}
	co.resolve()
	var b bytes.Buffer
	WriteTable(&b, co, TableOptions{Demangle: true})
	for _, want := range []string{
		"kernel         -  0x0000000000001000  kernelA(int)  @ kernel.hip:80",
		"  user         1                   -  load_input",
		"  func         3  0x0000000000001200  sync()  @ kernel.hip:42",
		"  func         4                   -  helper_func()  @ helper.hpp:17  (inlined)",
	} {
		if !strings.Contains(b.String(), want+"\n") {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

func FuzzParseFuncmap(f *testing.F) {
	dir, err := projectpath.Shared("testdata", "sqtt", "funcmap")
	if err == nil {
		files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte("M:shader_clock_bits=12;shader_clock_shift=4\nF:1:a@b:1\nR:1:extra_payload_count=3\x00"))
	f.Fuzz(func(t *testing.T, blob []byte) {
		fuzzguard.Run(t, blob, func() {
			fm := ParseFuncmap(blob)
			for id, e := range fm.ByID {
				if e.ID != id || e.Kind == KindKernel {
					t.Fatalf("ByID[%d] = %+v", id, e)
				}
			}
			if !fm.Encoding.Valid() {
				t.Fatalf("invalid encoding accepted: %v", fm.Encoding)
			}
			_ = fm.Decode(0xFFFFFFFF)
			// Names with row separators cannot round-trip; everything else does.
			for _, e := range fm.Entries {
				if strings.ContainsAny(e.Name+e.SourceLoc, "\n\x00") {
					return
				}
			}
			again := ParseFuncmap(fm.Format())
			if !reflect.DeepEqual(entryTuples(again), entryTuples(fm)) {
				t.Fatalf("round trip: %v != %v", entryTuples(again), entryTuples(fm))
			}
		})
	})
}

func runTool(tool string, args ...string) ([]byte, error) {
	return exec.Command(tool, args...).CombinedOutput()
}

func FuzzCodeTables(f *testing.F) {
	if p, err := projectpath.Shared("testdata", "sqtt", "formats", "code.example.json"); err == nil {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"sqtt_funcmap":[[7,3,"P","marker"],[7,0,"kernel","k",null,4096.0]],"sqtt_funcmap_layout":[[7,12,4]],"sqtt_funcmap_payloads":[[7,3,2]]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzguard.Run(t, data, func() {
			var tables CodeTables
			if err := json.Unmarshal(data, &tables); err != nil {
				return
			}
			for co, fm := range tables.Funcmaps() {
				if !fm.Encoding.Valid() {
					t.Fatalf("code object %d: invalid layout %v accepted", co, fm.Encoding)
				}
			}
			out, err := json.Marshal(tables)
			if err != nil {
				t.Fatal(err)
			}
			var again CodeTables
			if err := json.Unmarshal(out, &again); err != nil {
				t.Fatalf("re-reading %s: %v", out, err)
			}
			if !reflect.DeepEqual(again, tables) {
				t.Fatalf("round trip:\n%+v\n%+v", again, tables)
			}
		})
	})
}

// TestSpecTable reproduces the sqtt_decode_funcmap.py sample output of the
// SPEC, read from the spec text itself.
func TestSpecTable(t *testing.T) {
	spec, err := os.ReadFile(projectpath.MustShared(t, "spec", "000_df2c860dad9fe6b4.txt"))
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(spec, []byte("  Type        ID               Vaddr  Name\n"))
	if start < 0 {
		t.Fatal("table not found in the spec")
	}
	end := bytes.Index(spec[start:], []byte("\n\n"))
	want := string(spec[start : start+end+1])
	fm := ParseFuncmap([]byte("K:_Z8kernelAi@kernel.hip:80\nU:1:load_input\nU:2:compute_start\nF:3:_Z4syncv@kernel.hip:42\n" +
		"F:4:_Z12helper_funcv@helper.hpp:17\nP:5:barrier_signal\nP:6:barrier_wait\nP:7:barrier\nP:8:vmem_load\nP:9:vmem_store\n\x00"))
	co := &CodeObject{Funcmap: fm, Symbols: map[string]uint64{"_Z8kernelAi": 0x1000, "_Z4syncv": 0x1200}}
	co.resolve()
	var b bytes.Buffer
	if err := WriteTable(&b, co, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("table:\n%s\nspec:\n%s", b.String(), want)
	}
}
