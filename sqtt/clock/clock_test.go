package clock

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/sqtt"
	"github.com/rocjitsu/rocjitsu/sqtt/attdir"
)

type occRow struct {
	Start   int    `json:"start"`
	Time    int64  `json:"time"`
	Codeobj uint64 `json:"codeobj"`
	CU      uint8  `json:"cu"`
	SIMD    uint8  `json:"simd"`
	WaveID  uint8  `json:"wave_id"`
}

type clockCase struct {
	Name          string          `json:"name"`
	DecodeMarkers *bool           `json:"decode_markers"`
	Shaderdata    [][6]int64      `json:"shaderdata"`
	Occupancy     []occRow        `json:"occupancy"`
	Document      json.RawMessage `json:"document"`
	Order         []int           `json:"expected_order"`
	Times         []int64         `json:"expected_times"`
	Values        []uint64        `json:"expected_values"`
	Sorted        *bool           `json:"sorted"`
}

func (c *clockCase) inputs(t *testing.T) ([]attdir.Record, map[uint64]*sqtt.Funcmap, CodeObjectAt) {
	var recs []attdir.Record
	for _, r := range c.Shaderdata {
		recs = append(recs, attdir.Record{Time: r[0], Value: uint64(r[1]), CU: uint8(r[2]), SIMD: uint8(r[3]), WaveID: uint8(r[4]), Flags: uint8(r[5])})
	}
	var tables sqtt.CodeTables
	if err := json.Unmarshal(c.Document, &tables); err != nil {
		t.Fatal(err)
	}
	type launch struct {
		t  int64
		co uint64
	}
	starts := map[attdir.Slot][]launch{}
	for _, o := range c.Occupancy {
		if o.Start == 0 {
			continue
		}
		s := attdir.Slot{CU: o.CU, SIMD: o.SIMD, WaveID: o.WaveID}
		starts[s] = append(starts[s], launch{o.Time, o.Codeobj})
	}
	for _, l := range starts {
		sort.SliceStable(l, func(i, j int) bool { return l[i].t < l[j].t })
	}
	coAt := func(s attdir.Slot, t int64) (uint64, bool) {
		l := starts[s]
		i := sort.Search(len(l), func(i int) bool { return l[i].t > t })
		if i == 0 {
			return 0, false
		}
		return l[i-1].co, true
	}
	return recs, tables.Funcmaps(), coAt
}

func loadCases(t *testing.T) []clockCase {
	path := projectpath.MustShared(t, "testdata", "sqtt", "clock_correction", "cases.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []clockCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Cases) != 15 {
		t.Fatalf("%d cases, want 15", len(doc.Cases))
	}
	return doc.Cases
}

func TestCases(t *testing.T) {
	for _, c := range loadCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			recs, fms, coAt := c.inputs(t)
			orig := append([]attdir.Record(nil), recs...)
			var corr *Corrector
			if c.DecodeMarkers == nil || *c.DecodeMarkers {
				corr = CorrectSlice(recs, fms, coAt)
			}
			var times []int64
			var values []uint64
			for _, r := range recs {
				times = append(times, r.Time)
				values = append(values, r.Value)
			}
			if !reflect.DeepEqual(times, c.Times) {
				t.Errorf("times %v, want %v", times, c.Times)
			}
			if !reflect.DeepEqual(values, c.Values) {
				t.Errorf("values %v, want %v", values, c.Values)
			}
			if c.Order != nil {
				// Identify records by their input position through the
				// untouched fields and the order of equal ones.
				used := make([]bool, len(orig))
				for pos, r := range recs {
					want := c.Order[pos]
					if used[want] || orig[want].SIMD != r.SIMD || (orig[want].Value != r.Value && uint32(orig[want].Value)&3 != uint32(r.Value)&3) {
						t.Errorf("position %d does not hold input %d", pos, want)
					}
					used[want] = true
				}
			}
			if c.Sorted != nil && corr != nil && corr.Resort() != *c.Sorted {
				t.Errorf("Resort() = %v, want %v", corr.Resort(), *c.Sorted)
			}
		})
	}
}

// TestStreamMatchesSlice runs the streaming two-pass form over the same
// cases (inputs in time order, as Stream requires) and compares it with
// CorrectSlice.
func TestStreamMatchesSlice(t *testing.T) {
	for _, c := range loadCases(t) {
		recs, fms, coAt := c.inputs(t)
		sort.SliceStable(recs, func(i, j int) bool { return recs[i].Time < recs[j].Time })
		want := append([]attdir.Record(nil), recs...)
		CorrectSlice(want, fms, coAt)
		src := func(fn func(attdir.Record) error) error {
			for _, r := range recs {
				if err := fn(r); err != nil {
					return err
				}
			}
			return nil
		}
		var got []attdir.Record
		if _, err := Stream(src, fms, coAt, func(r attdir.Record) error { got = append(got, r); return nil }); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: stream %v, slice %v", c.Name, got, want)
		}
	}
}

// TestStreamReorderWindow feeds many interleaved headers whose corrections
// reorder them and checks the stream comes out sorted and equal to the
// in-memory result.
func TestStreamReorderWindow(t *testing.T) {
	fm := sqtt.ParseFuncmap([]byte("M:shader_clock_bits=12;shader_clock_shift=4\nP:3:m\n"))
	fms := map[uint64]*sqtt.Funcmap{7: fm}
	coAt := func(attdir.Slot, int64) (uint64, bool) { return 7, true }
	var recs []attdir.Record
	enc := fm.Encoding
	issue := int64(1000)
	for i := 0; i < 5000; i++ {
		issue += int64(3 + i%7)
		delay := int64((i * 7919) % 3000) // variable arrival delay
		clk := uint32((issue >> 4) & 0xFFF)
		recs = append(recs, attdir.Record{Time: issue + delay, Value: uint64(enc.Encode(3, false, false, clk)), SIMD: uint8(i % 2)})
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Time < recs[j].Time })
	want := append([]attdir.Record(nil), recs...)
	c := CorrectSlice(want, fms, coAt)
	if !c.Resort() {
		t.Fatal("no correction happened")
	}
	src := func(fn func(attdir.Record) error) error {
		for _, r := range recs {
			if err := fn(r); err != nil {
				return err
			}
		}
		return nil
	}
	var got []attdir.Record
	if _, err := Stream(src, fms, coAt, func(r attdir.Record) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("stream order differs from the sorted in-memory result")
	}
	// The corrected arrival-minus-issue delay is constant: the correction
	// recovered issue order (up to the 16-cycle bucket).
	for i := 1; i < len(got); i++ {
		if got[i].Time < got[i-1].Time {
			t.Fatalf("not sorted at %d", i)
		}
	}
}
