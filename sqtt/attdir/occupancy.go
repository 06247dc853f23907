package attdir

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
)

// Launch is one wave launch on a slot.
type Launch struct {
	// Time is the launch time.
	Time int64
	// Retire is the wave-end time, or the next launch on the slot when no
	// end was seen, or MaxTime when the wave never ended.
	Retire int64
	// KernelID indexes Occupancy.Dispatches.
	KernelID uint64
}

// MaxTime is the retire time of a wave that never ended in the trace.
const MaxTime = int64(1<<63 - 1)

// SlotEvents holds the launches of one wave slot in time order.
type SlotEvents struct {
	// Launches are sorted by time.
	Launches []Launch
}

// At returns the index of the wave instance that owns time t on the slot:
// the latest launch at or before t (records may arrive after the wave
// retired), or the first launch when t precedes every launch. ok is false
// for a slot without launches.
func (s *SlotEvents) At(t int64) (int, bool) {
	if s == nil || len(s.Launches) == 0 {
		return 0, false
	}
	i := sort.Search(len(s.Launches), func(i int) bool { return s.Launches[i].Time > t })
	if i == 0 {
		return 0, true
	}
	return i - 1, true
}

// Occupancy is the content of occupancy.json.
type Occupancy struct {
	// Dispatches maps kernel ids to kernel names ("<co> / 0x<addr>" when
	// the entry point has no symbol).
	Dispatches map[uint64]string
	// Slots holds the launches per wave slot.
	Slots map[Slot]*SlotEvents
}

// ReadOccupancyFile reads occupancy.json.
func ReadOccupancyFile(path string) (*Occupancy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("attdir: %w", err)
	}
	occ, err := ParseOccupancy(data)
	if err != nil {
		return nil, fmt.Errorf("attdir: %s: %w", path, err)
	}
	return occ, nil
}

// ParseOccupancy parses occupancy.json in either writer form: per shader
// engine rows [time, cu, simd, wave_id, start, kernel_id, ...] (six columns
// from the C++ writer, eleven from the Python one; extra columns and rows
// shorter than six are ignored), "dispatches", and other keys ("version",
// "events", "occupancy_fields") that are skipped.
func ParseOccupancy(data []byte) (*Occupancy, error) {
	var top map[string]json.RawMessage
	if err := decodeJSON(data, &top); err != nil {
		return nil, err
	}
	occ := &Occupancy{Dispatches: map[uint64]string{}, Slots: map[Slot]*SlotEvents{}}
	if raw, ok := top["dispatches"]; ok && string(raw) != "null" {
		var d map[string]string
		if err := decodeJSON(raw, &d); err != nil {
			return nil, fmt.Errorf("dispatches: %w", err)
		}
		for k, v := range d {
			id, err := strconv.ParseUint(k, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("dispatches: key %q is not a kernel id", k)
			}
			occ.Dispatches[id] = v
		}
	}
	type event struct {
		time  int64
		start bool
		kid   uint64
		order int
	}
	perSlot := map[Slot][]event{}
	for key, raw := range top {
		se, err := strconv.ParseUint(key, 10, 32)
		if err != nil {
			continue
		}
		if string(raw) == "null" {
			continue
		}
		var rows [][]json.RawMessage
		if err := decodeJSON(raw, &rows); err != nil {
			return nil, fmt.Errorf("%q: rows: %w", key, err)
		}
		for i, row := range rows {
			if len(row) < 6 {
				continue
			}
			var v [6]int64
			for j := 0; j < 6; j++ {
				var num json.Number
				if err := decodeJSON(row[j], &num); err != nil {
					return nil, fmt.Errorf("%q[%d][%d] %s: %s is not a number", key, i, j, occFields[j], row[j])
				}
				n, err := num.Int64()
				if err != nil {
					f, ferr := num.Float64()
					if ferr != nil || f != float64(int64(f)) {
						return nil, fmt.Errorf("%q[%d][%d] %s: %q is not an integer", key, i, j, occFields[j], num)
					}
					n = int64(f)
				}
				v[j] = n
			}
			for j := 1; j <= 3; j++ {
				if v[j] < 0 || v[j] > 255 {
					return nil, fmt.Errorf("%q[%d][%d] %s: %d out of range 0..255", key, i, j, occFields[j], v[j])
				}
			}
			if v[5] < 0 {
				return nil, fmt.Errorf("%q[%d][5] kernel_id: negative %d", key, i, v[5])
			}
			s := Slot{uint32(se), uint8(v[1]), uint8(v[2]), uint8(v[3])}
			perSlot[s] = append(perSlot[s], event{v[0], v[4] != 0, uint64(v[5]), i})
		}
	}
	for s, evs := range perSlot {
		sort.SliceStable(evs, func(i, j int) bool { return evs[i].time < evs[j].time })
		se := &SlotEvents{}
		open := -1
		for _, e := range evs {
			if e.start {
				if open >= 0 {
					se.Launches[open].Retire = e.time
				}
				se.Launches = append(se.Launches, Launch{Time: e.time, Retire: MaxTime, KernelID: e.kid})
				open = len(se.Launches) - 1
			} else if open >= 0 {
				se.Launches[open].Retire = e.time
				open = -1
			}
		}
		if len(se.Launches) > 0 {
			occ.Slots[s] = se
		}
	}
	return occ, nil
}

var occFields = [6]string{"time", "cu", "simd", "wave_id", "start", "kernel_id"}
