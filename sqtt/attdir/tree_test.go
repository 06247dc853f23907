package attdir

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rocjitsu/rocjitsu/sqtt"
)

// TestTreeWriters writes a trace directory with the tree writers (two
// files for engine 2, one for engine 10, whose keys must keep numeric
// order) and reads it back with OpenTrace and Stream.
func TestTreeWriters(t *testing.T) {
	dir := t.TempDir()
	sw := NewShaderdataWriter(dir, 2)
	recs := []Record{
		{Time: 10, Value: 6, SE: 2, CU: 1, SIMD: 0, WaveID: 3},
		{Time: 12, Value: 6, SE: 10, CU: 0, SIMD: 1, WaveID: 0, Flags: FlagIMM},
		{Time: 20, Value: 1, SE: 2, CU: 1, SIMD: 0, WaveID: 3},
		{Time: 30, Value: 12, SE: 2, CU: 1, SIMD: 0, WaveID: 3},
		{Time: 31, Value: 1, SE: 10, CU: 0, SIMD: 1, WaveID: 0, Flags: FlagIMM},
	}
	for _, r := range recs {
		if err := sw.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	index, err := sw.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFilenames(dir, TraceInfo{GFXIP: 12, GFXV: "gfx1201", BeginTime: 5}, index); err != nil {
		t.Fatal(err)
	}
	s2, s10 := Slot{2, 1, 0, 3}, Slot{10, 0, 1, 0}
	evs := []OccupancyEvent{{40, s2, false, 7}, {5, s2, true, 7}, {8, s10, true, 7}, {35, s10, false, 7}}
	if err := WriteOccupancy(filepath.Join(dir, "occupancy.json"), evs, map[uint64]string{7: "kern"}); err != nil {
		t.Fatal(err)
	}
	tables := sqtt.CodeTables{Funcmap: []sqtt.FuncmapRow{{CodeObject: 3, MarkerID: 0, Kind: sqtt.KindKernel, Name: "kern", Vaddr: 0x1000},
		{CodeObject: 3, MarkerID: 1, Kind: sqtt.KindFunction, Name: "f"}}}
	if err := WriteCodeJSON(filepath.Join(dir, "code.json"), tables); err != nil {
		t.Fatal(err)
	}

	raw, err := os.ReadFile(filepath.Join(dir, "filenames.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		GFXIP   int             `json:"gfxip"`
		Version string          `json:"version"`
		SD      json.RawMessage `json:"shaderdata_filenames"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if want := `{"2":[["shaderdata_2_0.json",10,20],["shaderdata_2_1.json",30,30]],"10":[["shaderdata_10_0.json",12,31]]}`; string(doc.SD) != want || doc.GFXIP != 12 || doc.Version != TreeVersion {
		t.Errorf("filenames.json: %s", raw)
	}

	tr, err := OpenTrace(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Warnings) != 0 || len(tr.Files) != 3 || tr.Files[0].SE != 2 || tr.Files[2].SE != 10 {
		t.Fatalf("trace files %+v warnings %v", tr.Files, tr.Warnings)
	}
	var got []Record
	if err := tr.Stream(func(r Record) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, recs) {
		t.Errorf("records\n%+v\nwant\n%+v", got, recs)
	}
	if tr.Occupancy.Dispatches[7] != "kern" {
		t.Errorf("dispatches %v", tr.Occupancy.Dispatches)
	}
	if l := tr.Occupancy.Slots[s2].Launches; len(l) != 1 || l[0] != (Launch{Time: 5, Retire: 40, KernelID: 7}) {
		t.Errorf("slot %+v launches %+v", s2, l)
	}
	if l := tr.Occupancy.Slots[s10].Launches; len(l) != 1 || l[0] != (Launch{Time: 8, Retire: 35, KernelID: 7}) {
		t.Errorf("slot %+v launches %+v", s10, l)
	}
	if !reflect.DeepEqual(tr.Tables, tables) {
		t.Errorf("code.json tables %+v, want %+v", tr.Tables, tables)
	}
}
