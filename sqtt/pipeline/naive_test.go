package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/sqtt"
	"github.com/rocjitsu/rocjitsu/sqtt/attdir"
	"github.com/rocjitsu/rocjitsu/sqtt/flame"
	"github.com/rocjitsu/rocjitsu/sqtt/perfetto"
	"github.com/rocjitsu/rocjitsu/sqtt/waves"
)

// naive is a deliberately simple, load-everything implementation of the
// documented script algorithm (sqtt-formats.md §7.2–7.6): sort all records,
// drop PRIV, skip R: payloads per slot, group by wave instance, then walk
// each wave on its own. It shares only the decoders with the streaming
// code, and serves as its differential reference.
type naive struct {
	folded    map[string][2]int64
	order     []string
	tracks    map[string][]string
	unmatched int
}

func runNaive(t *testing.T, dir string, fms map[uint64]*sqtt.Funcmap) *naive {
	tr, err := attdir.OpenTrace(dir)
	if err != nil {
		t.Fatal(err)
	}
	var recs []attdir.Record
	if err := tr.Sorted(func(r attdir.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	kco := KernelCodeObject(fms)
	var all []*sqtt.Funcmap
	for _, id := range sqtt.SortedIDs(fms) {
		all = append(all, fms[id])
	}
	merged := sqtt.Merge(all...)
	occ := tr.Occupancy
	span := func(s attdir.Slot, tm int64) (int, bool) { return occ.Slots[s].At(tm) }
	funcmapFor := func(s attdir.Slot, tm int64) (*sqtt.Funcmap, []string, uint64, bool) {
		i, ok := span(s, tm)
		if !ok {
			return merged, nil, 0, false
		}
		d := occ.Slots[s].Launches[i].KernelID
		name := occ.Dispatches[d]
		if name == "" || strings.HasPrefix(name, "0 /") {
			return merged, nil, d, true
		}
		if co, ok := kco(name); ok {
			return fms[co], []string{fmt.Sprintf("code_object_%d", co), name}, d, true
		}
		return merged, []string{name}, d, true
	}
	// Payload skipping per slot.
	perSlot := map[attdir.Slot][]attdir.Record{}
	var slots []attdir.Slot
	for _, r := range recs {
		if r.Flags&attdir.FlagPRIV != 0 {
			continue
		}
		if _, ok := perSlot[r.Slot()]; !ok {
			slots = append(slots, r.Slot())
		}
		perSlot[r.Slot()] = append(perSlot[r.Slot()], r)
	}
	var kept []attdir.Record
	for _, s := range slots {
		rs := perSlot[s]
		for i := 0; i < len(rs); {
			fm, _, _, _ := funcmapFor(s, rs[i].Time)
			kept = append(kept, rs[i])
			i += 1 + int(fm.ExtraPayloadCount(fm.Decode(uint32(rs[i].Value)).ID))
		}
	}
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].Time < kept[j].Time })
	type key struct {
		s    attdir.Slot
		inst int
	}
	groups := map[key][]attdir.Record{}
	var keys []key
	for _, r := range kept {
		i, _ := span(r.Slot(), r.Time)
		k := key{r.Slot(), i}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], r)
	}
	n := &naive{folded: map[string][2]int64{}, tracks: map[string][]string{}}
	for _, k := range keys {
		rs := groups[k]
		fm, prefix, d, _ := funcmapFor(k.s, rs[0].Time)
		tid := perfetto.TID(waves.WaveKey{Slot: k.s, Instance: uint32(k.inst)})
		track := fmt.Sprintf("%d/%d", d, tid)
		var stack []string
		var last int64
		haveLast := false
		for _, r := range rs {
			m := fm.Decode(uint32(r.Value))
			if m.IsNoop() {
				continue
			}
			name, kind := fmt.Sprintf("event#%d", m.ID), sqtt.KindFunction
			if e, ok := fm.ByID[m.ID]; ok {
				name, kind = e.Name, e.Kind
			}
			if kind == sqtt.KindPoint {
				n.tracks[track] = append(n.tracks[track], fmt.Sprintf("i %d %s", r.Time, name))
				continue
			}
			if haveLast && len(stack) > 0 && r.Time > last {
				st := strings.Join(append(append([]string{}, prefix...), stack...), ";")
				if _, seen := n.folded[st]; !seen {
					n.order = append(n.order, st)
				}
				v := n.folded[st]
				n.folded[st] = [2]int64{v[0] + r.Time - last, v[1] + 1}
			}
			last, haveLast = r.Time, true
			if m.ExitPrev {
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
					n.tracks[track] = append(n.tracks[track], fmt.Sprintf("E %d", r.Time))
				} else {
					n.unmatched++
				}
			}
			if m.Enter {
				stack = append(stack, name)
				n.tracks[track] = append(n.tracks[track], fmt.Sprintf("B %d %s %s", r.Time, name, kind))
			}
		}
		for range stack {
			n.tracks[track] = append(n.tracks[track], fmt.Sprintf("E %d", rs[len(rs)-1].Time+1))
		}
	}
	return n
}

// corrupt rewrites the shaderdata files of dir: drops every 89th record,
// adds a PRIV exit after every 211th and a record on a slot without
// occupancy after every 307th.
func corrupt(t *testing.T, dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "ui_*", "shaderdata_*.json"))
	if len(files) == 0 {
		t.Fatal("no shaderdata files")
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]json.RawMessage
		json.Unmarshal(data, &doc)
		var rows [][6]int64
		if err := json.Unmarshal(doc["records"], &rows); err != nil {
			t.Fatal(err)
		}
		var out [][6]int64
		for i, r := range rows {
			if i%89 == 5 {
				continue
			}
			out = append(out, r)
			if i%211 == 7 {
				out = append(out, [6]int64{r[0], 1, r[2], r[3], r[4], 2})
			}
			if i%307 == 11 {
				out = append(out, [6]int64{r[0], 6, 200, 1, 1, 0})
			}
		}
		doc["records"], _ = json.Marshal(out)
		data, _ = json.Marshal(doc)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStreamingMatchesNaive compares the streaming pipeline with the naive
// reference on a generated trace with relaunched waves, late records, lost
// records, PRIV records and an orphan slot.
func TestStreamingMatchesNaive(t *testing.T) {
	gen := projectpath.MustShared(t, "tools", "gen_sqtt_trace.py")
	dir := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command("python3", gen, "--waves", "600", "--records", "60000", "--seed", "3",
		"--se", "2", "--cu", "2", "--simd", "2", "--slots", "2", "--late-fraction", "0.3",
		"--records-per-file", "9000", "--out", dir)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	corrupt(t, dir)
	c, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := attdir.OpenTrace(c.Traces[0])
	ref := runNaive(t, c.Traces[0], c.Funcmaps(tr))
	if ref.unmatched == 0 || len(ref.folded) < 50 {
		t.Fatalf("reference too trivial: %d unmatched, %d stacks", ref.unmatched, len(ref.folded))
	}

	// Folded stacks, including the order of equal weights.
	var want bytes.Buffer
	var wantStacks []flame.Stack
	for _, k := range ref.order {
		v := ref.folded[k]
		wantStacks = append(wantStacks, flame.Stack{Frames: strings.Split(k, ";"), Cycles: v[0], Execs: v[1]})
	}
	flame.WriteFolded(&want, wantStacks, flame.Upstream)
	var got bytes.Buffer
	flame.WriteFolded(&got, flameRun(t, dir, Options{}), flame.Upstream)
	if got.String() != want.String() {
		t.Errorf("folded output differs from the reference (%d vs %d bytes)", got.Len(), want.Len())
	}

	// Perfetto events per track.
	out, w := perfettoRun(t, c, c.Traces[0], perfetto.Options{})
	if int(w.UnmatchedExits) != ref.unmatched {
		t.Errorf("unmatched exits %d, reference %d", w.UnmatchedExits, ref.unmatched)
	}
	var doc struct {
		TraceEvents []struct {
			Ph   string  `json:"ph"`
			TS   float64 `json:"ts"`
			PID  uint64  `json:"pid"`
			TID  uint64  `json:"tid"`
			Name string  `json:"name"`
			Cat  string  `json:"cat"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	tracks := map[string][]string{}
	for _, e := range doc.TraceEvents {
		k := fmt.Sprintf("%d/%d", e.PID, e.TID)
		switch e.Ph {
		case "B":
			kind := map[string]string{"sqtt.function": "function", "sqtt.user": "user"}[e.Cat]
			tracks[k] = append(tracks[k], fmt.Sprintf("B %d %s %s", int64(e.TS), e.Name, kind))
		case "E":
			tracks[k] = append(tracks[k], fmt.Sprintf("E %d", int64(e.TS)))
		case "i":
			tracks[k] = append(tracks[k], fmt.Sprintf("i %d %s", int64(e.TS), e.Name))
		}
	}
	if !reflect.DeepEqual(tracks, ref.tracks) {
		diff := 0
		for k, v := range ref.tracks {
			if !reflect.DeepEqual(tracks[k], v) {
				diff++
			}
		}
		t.Errorf("%d of %d tracks differ from the reference (%d tracks here)", diff, len(ref.tracks), len(tracks))
	}
}
