package attdir

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/rocjitsu/rocjitsu/sqtt"
)

// TreeVersion is the "version" written into the JSON files of a trace
// directory, the rocprofiler-sdk att-tool format version the reader knows.
const TreeVersion = "3.0.0"

// TraceInfo is the header of a trace directory's filenames.json.
type TraceInfo struct {
	// GFXIP is the major graphics IP version (9 for gfx942, 12 for gfx1201).
	GFXIP int
	// GFXV names the target ("gfx942", ...).
	GFXV string
	// BeginTime is the trace's first time.
	BeginTime int64
}

// WriteFilenames writes dir/filenames.json: the shaderdata index (per
// shader engine, [name, begin, end] rows in file order, engines in
// numeric order) and the header fields of the rocprofiler-sdk writer.
func WriteFilenames(dir string, info TraceInfo, index map[uint32][]ShaderdataFile) error {
	ses := make([]uint32, 0, len(index))
	for se := range index {
		ses = append(ses, se)
	}
	sort.Slice(ses, func(i, j int) bool { return ses[i] < ses[j] })
	// An ordered object: encoding/json would sort "10" before "2".
	sd := []byte{'{'}
	for i, se := range ses {
		if i > 0 {
			sd = append(sd, ',')
		}
		sd = strconv.AppendQuote(sd, strconv.FormatUint(uint64(se), 10))
		sd = append(sd, ':', '[')
		for j, f := range index[se] {
			if j > 0 {
				sd = append(sd, ',')
			}
			name, err := json.Marshal(filepath.Base(f.Path))
			if err != nil {
				return fmt.Errorf("attdir: filenames.json: %w", err)
			}
			sd = fmt.Appendf(sd, "[%s,%d,%d]", name, f.Begin, f.End)
		}
		sd = append(sd, ']')
	}
	sd = append(sd, '}')
	doc := struct {
		Counters   []string        `json:"counter_names"`
		GFXIP      int             `json:"gfxip"`
		GFXV       string          `json:"gfxv"`
		Begin      int64           `json:"global_begin_time"`
		Other      *int            `json:"other_simd_filenames"`
		Shaderdata json.RawMessage `json:"shaderdata_filenames"`
		Version    string          `json:"version"`
		Waves      *int            `json:"wave_filenames"`
	}{Counters: []string{}, GFXIP: info.GFXIP, GFXV: info.GFXV, Begin: info.BeginTime, Shaderdata: sd, Version: TreeVersion}
	return writeJSON(filepath.Join(dir, "filenames.json"), doc)
}

// OccupancyEvent is one wave launch or end for occupancy.json.
type OccupancyEvent struct {
	// Time is the event's time.
	Time int64
	// Slot is the wave slot.
	Slot Slot
	// Start is set for a launch, clear for a wave end.
	Start bool
	// KernelID keys the dispatches map.
	KernelID uint64
}

// WriteOccupancy writes path in the C++ writer's form: per shader engine
// six-column rows [time, cu, simd, wave_id, start, kernel_id] in time order
// (stable: events at the same time keep their order), and "dispatches"
// mapping kernel ids to names.
func WriteOccupancy(path string, events []OccupancyEvent, dispatches map[uint64]string) error {
	evs := append([]OccupancyEvent(nil), events...)
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Time < evs[j].Time })
	rows := map[string][][6]int64{}
	for _, e := range evs {
		start := int64(0)
		if e.Start {
			start = 1
		}
		k := strconv.FormatUint(uint64(e.Slot.SE), 10)
		rows[k] = append(rows[k], [6]int64{e.Time, int64(e.Slot.CU), int64(e.Slot.SIMD), int64(e.Slot.WaveID), start, int64(e.KernelID)})
	}
	doc := map[string]any{"version": TreeVersion}
	d := map[string]string{}
	for id, name := range dispatches {
		d[strconv.FormatUint(id, 10)] = name
	}
	doc["dispatches"] = d
	for k, r := range rows {
		doc[k] = r
	}
	return writeJSON(path, doc)
}

// WriteCodeJSON writes path as a code.json holding the marker tables (an
// empty "code" listing: the simulator has no per-instruction counters).
func WriteCodeJSON(path string, t sqtt.CodeTables) error {
	tables, err := t.MarshalJSON()
	if err != nil {
		return fmt.Errorf("attdir: %s: %w", path, err)
	}
	doc := map[string]json.RawMessage{}
	if err := json.Unmarshal(tables, &doc); err != nil {
		return fmt.Errorf("attdir: %s: %w", path, err)
	}
	doc["code"] = json.RawMessage(`[]`)
	doc["header"] = json.RawMessage(`"ISA, _, LineNumber, Source, Codeobj, Vaddr, Hit, Latency, Stall, Idle"`)
	doc["version"] = json.RawMessage(strconv.Quote(TreeVersion))
	return writeJSON(path, doc)
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("attdir: %s: %w", path, err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("attdir: %w", err)
	}
	return nil
}
