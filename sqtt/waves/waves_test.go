package waves

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/sqtt"
	"github.com/rocjitsu/rocjitsu/sqtt/attdir"
)

// trace is a Sink that records events as text.
type trace struct {
	ev []string
}

func (s *trace) add(w *Wave, format string, args ...any) {
	s.ev = append(s.ev, fmt.Sprintf("%d#%d ", w.Dispatch, w.Key.Instance)+fmt.Sprintf(format, args...))
}
func (s *trace) WaveStart(w *Wave) { s.add(w, "start %s", strings.Join(w.Base.Path(), ";")) }
func (s *trace) Interval(w *Wave, n *Node, dt int64) {
	n.Cycles += dt
	n.Execs++
	s.add(w, "interval %s %d", strings.Join(n.Path(), ";"), dt)
}
func (s *trace) Enter(w *Wave, t int64, n *Node)       { s.add(w, "B %d %s", t, n.Name) }
func (s *trace) Exit(w *Wave, t int64, n *Node)        { s.add(w, "E %d %s", t, n.Name) }
func (s *trace) Point(w *Wave, t int64, e *sqtt.Entry) { s.add(w, "i %d %s", t, e.Name) }
func (s *trace) Unmatched(w *Wave, t int64)            { s.add(w, "unmatched %d", t) }
func (s *trace) WaveEnd(w *Wave)                       { s.add(w, "end last=%d depth=%d", w.Last, w.Depth()) }

func run(t *testing.T, funcmap string, occ *attdir.Occupancy, f Filter, recs ...attdir.Record) []string {
	t.Helper()
	fm := sqtt.ParseFuncmap([]byte(funcmap))
	s := &trace{}
	p := NewProcessor(Config{Funcmaps: map[uint64]*sqtt.Funcmap{7: fm}, Occupancy: occ, Filter: f}, s)
	for _, r := range recs {
		p.Record(r)
	}
	p.Close()
	return s.ev
}

func rec(t int64, v uint32) attdir.Record { return attdir.Record{Time: t, Value: uint64(v), CU: 1} }

func occupancy(kernel string, launches ...int64) *attdir.Occupancy {
	ev := &attdir.SlotEvents{}
	for i, l := range launches {
		ev.Launches = append(ev.Launches, attdir.Launch{Time: l, Retire: attdir.MaxTime, KernelID: uint64(i + 1)})
	}
	return &attdir.Occupancy{
		Dispatches: map[uint64]string{1: kernel, 2: kernel},
		Slots:      map[attdir.Slot]*attdir.SlotEvents{{CU: 1}: ev},
	}
}

func TestStackSemantics(t *testing.T) {
	fm := "K:kern\nF:1:f\nU:2:u\nP:3:p\n"
	got := run(t, fm, occupancy("kern", 10, 100), Filter{},
		rec(5, sqtt.Encode(2, true, true)), // before the first launch: first wave; fused exit+enter on an empty stack
		rec(20, sqtt.Encode(1, true, false)),
		rec(20, sqtt.Encode(3, false, false)),                            // point at the same time: no interval
		attdir.Record{Time: 25, Value: 1, CU: 1, Flags: attdir.FlagPRIV}, // trap handler: dropped
		rec(30, sqtt.Encode(9, true, false)),                             // unknown id: a function scope
		rec(35, 0),                                                       // no-op
		rec(40, 1),
		rec(150, sqtt.Encode(1, true, false)), // relaunch at 100: new wave
		rec(160, 1),
		rec(170, 1), // unmatched
	)
	want := []string{
		"1#0 start code_object_7;kern",
		"1#0 unmatched 5",
		"1#0 B 5 u",
		"1#0 interval code_object_7;kern;u 15",
		"1#0 B 20 f",
		"1#0 i 20 p",
		"1#0 interval code_object_7;kern;u;f 10",
		"1#0 B 30 event#9",
		"1#0 interval code_object_7;kern;u;f;event#9 10",
		"1#0 E 40 event#9",
		"1#0 end last=40 depth=2",
		"2#1 start code_object_7;kern",
		"2#1 B 150 f",
		"2#1 interval code_object_7;kern;f 10",
		"2#1 E 160 f",
		"2#1 unmatched 170",
		"2#1 end last=170 depth=0",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestPrefixes(t *testing.T) {
	fm := "K:kern\nF:1:f\n"
	for _, tc := range []struct{ kernel, prefix string }{
		{"kern", "code_object_7;kern"},
		{"0 / 0x0", ""},
		{"other", "other"},
		{"", ""},
	} {
		got := run(t, fm, occupancy(tc.kernel, 0), Filter{}, rec(1, sqtt.Encode(1, true, false)))
		if got[0] != "1#0 start "+tc.prefix {
			t.Errorf("%q: %q", tc.kernel, got[0])
		}
	}
	// "<co> / 0x<addr>" names a code object; the K: row with that vaddr
	// gives the kernel name.
	fmap := sqtt.ParseFuncmap([]byte(fm))
	fmap.Entries[0].Vaddr, fmap.Entries[0].Resolved = 0x1000, true
	s := &trace{}
	p := NewProcessor(Config{Funcmaps: map[uint64]*sqtt.Funcmap{7: fmap}, Occupancy: occupancy("7 / 0x1000", 0)}, s)
	p.Record(rec(1, sqtt.Encode(1, true, false)))
	p.Close()
	if s.ev[0] != "1#0 start code_object_7;kern" {
		t.Errorf("address dispatch: %q", s.ev[0])
	}
}

func TestFilterAndNoOccupancy(t *testing.T) {
	cu := 2
	got := run(t, "F:1:f\n", nil, Filter{CU: &cu}, rec(1, sqtt.Encode(1, true, false)))
	if len(got) != 0 {
		t.Errorf("filtered CU produced %v", got)
	}
	got = run(t, "F:1:f\n", nil, Filter{}, rec(1, sqtt.Encode(1, true, false)), rec(4, 1))
	want := []string{"0#0 start ", "0#0 B 1 f", "0#0 interval f 3", "0#0 E 4 f", "0#0 end last=4 depth=0"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("no occupancy: %q", got)
	}
}

func TestPackedDecodingInStacks(t *testing.T) {
	enc := sqtt.MarkerEncoding{ShaderClockBits: 12, ShaderClockShift: 4}
	fm := "M:shader_clock_bits=12;shader_clock_shift=4\nF:1:f\n"
	got := run(t, fm, nil, Filter{},
		rec(1, enc.Encode(1, true, false, 0xABC)),
		rec(4, sqtt.Encode(77, false, false)|0x00100000), // numeric value: its packed id 77 is unknown, so it stays legacy
		rec(9, enc.Encode(0, false, true, 0x123)),
	)
	if got[1] != "0#0 B 1 f" || got[len(got)-2] != "0#0 E 9 f" {
		t.Errorf("packed: %q", got)
	}
}

func TestPayloadRowsForUnknownIDs(t *testing.T) {
	// R: for an id without an entry still skips its payload (as the
	// upstream scripts do); the payload would otherwise be an exit.
	got := run(t, "R:9:extra_payload_count=1\nW:32\nP:4:addr_trace_lds_load\n", nil, Filter{},
		rec(1, sqtt.Encode(9, true, false)),
		rec(2, 1),
		rec(3, sqtt.Encode(4, false, false)), // address block: header + 34 words
	)
	want := []string{"0#0 start ", "0#0 B 1 event#9", "0#0 end last=1 depth=1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events %q", got)
	}
}

func TestEqualTimesGiveNoInterval(t *testing.T) {
	got := run(t, "F:1:f\nF:2:g\n", nil, Filter{},
		rec(10, sqtt.Encode(1, true, false)),
		rec(10, sqtt.Encode(2, true, false)),
		rec(15, 1),
		rec(15, 1),
	)
	want := []string{"0#0 start ", "0#0 B 10 f", "0#0 B 10 g", "0#0 interval f;g 5", "0#0 E 15 g", "0#0 E 15 f", "0#0 end last=15 depth=0"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events %q", got)
	}
}
