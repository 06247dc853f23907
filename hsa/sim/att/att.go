// Package att turns the simulator's captured dispatches into the output
// tree of `rocprofv3 --att`, so that the SQTT marker tools (package
// sqtt/pipeline, `rocjitsu sqtt decode|flamegraph|perfetto`) read a
// simulated run as they read a hardware capture.
//
// A Writer is a sim.Capturer. For dispatch N it writes
//
//	DIR/ui_output_agent_1_dispatch_N/filenames.json
//	DIR/ui_output_agent_1_dispatch_N/shaderdata_<SE>_0.json  one per shader engine with markers
//	DIR/ui_output_agent_1_dispatch_N/occupancy.json          wave launches and ends, the kernel name
//	DIR/ui_output_agent_1_dispatch_N/code.json               the code object's funcmap tables
//	DIR/ui_output_agent_1_dispatch_N/cycle_model.json        the timing model and device shape used
//	DIR/<target>_code_object_id_<C>.out                       the kernel's code object, once per object
//
// Every executed s_ttracedata / s_ttracedata_imm is one shaderdata record
// (time, value, cu, simd, wave_id, flags) at its issue time on the wave's
// modeled clock; s_ttracedata_imm records carry the IMM flag. Records are
// sorted by time per shader engine, as the hardware writes them. Packed
// gfx12 headers hold the shader-clock sample the kernel read from
// SHADER_CYCLES_LO, which is the same clock, so the decoder's shader-clock
// correction finds consistent samples. The raw .att packet stream is not
// produced: its format is not specified in the project's sources.
package att

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/sqtt"
	"github.com/rocjitsu/rocjitsu/sqtt/attdir"
)

// Writer writes captured dispatches under a directory. It is used by one
// agent at a time.
type Writer struct {
	dir string
	// written maps code-object numbers to the file written for them.
	written map[uint64]string
	cur     *dispatch
	// Dirs lists the trace directories written, in dispatch order.
	Dirs []string
	// Markers counts the marker records written over all dispatches.
	Markers int
}

type record struct {
	attdir.Record
	seq int
}

type dispatch struct {
	d    *sim.CapturedDispatch
	recs []record
	occ  []attdir.OccupancyEvent
	name string
}

// NewWriter returns a Writer for dir, which is created if needed.
func NewWriter(dir string) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("att: %w", err)
	}
	return &Writer{dir: dir, written: map[uint64]string{}}, nil
}

// BeginDispatch starts the trace of d; it writes d's code object the first
// time the object is seen.
func (w *Writer) BeginDispatch(d *sim.CapturedDispatch) error {
	if w.cur != nil {
		return fmt.Errorf("att: dispatch %d begins before dispatch %d ended", d.ID, w.cur.d.ID)
	}
	c := &dispatch{d: d, name: d.Kernel}
	if d.CodeObject != 0 && d.Image != nil {
		if _, ok := w.written[d.CodeObject]; !ok {
			p := filepath.Join(w.dir, fmt.Sprintf("%s_code_object_id_%d.out", d.Target, d.CodeObject))
			if err := os.WriteFile(p, d.Image, 0o644); err != nil {
				return fmt.Errorf("att: %w", err)
			}
			w.written[d.CodeObject] = p
		}
		c.name = occupancyName(d)
	}
	w.cur = c
	return nil
}

// occupancyName is the dispatch's name in occupancy.json, which must lead
// the decoder to the code object: the kernel's name when the funcmap has a
// K: row for it, else "<co> / 0x<entry>".
func occupancyName(d *sim.CapturedDispatch) string {
	co, err := sqtt.ParseCodeObject(d.Image)
	if err == nil && co.Funcmap != nil {
		for _, k := range co.Funcmap.Kernels() {
			if k.Name == d.Kernel {
				return d.Kernel
			}
		}
	}
	return fmt.Sprintf("%d / %#x", d.CodeObject, d.Entry)
}

func slot(s sim.WaveSlot) attdir.Slot {
	return attdir.Slot{SE: s.SE, CU: s.CU, SIMD: s.SIMD, WaveID: s.Wave}
}

// WaveStart records a wave launch.
func (w *Writer) WaveStart(s sim.WaveSlot, t int64) {
	if w.cur != nil {
		w.cur.occ = append(w.cur.occ, attdir.OccupancyEvent{Time: t, Slot: slot(s), Start: true, KernelID: w.cur.d.ID})
	}
}

// WaveEnd records a wave end.
func (w *Writer) WaveEnd(s sim.WaveSlot, t int64) {
	if w.cur != nil {
		w.cur.occ = append(w.cur.occ, attdir.OccupancyEvent{Time: t, Slot: slot(s), KernelID: w.cur.d.ID})
	}
}

// Marker records an executed trace-data instruction.
func (w *Writer) Marker(s sim.WaveSlot, t int64, value uint32, imm bool) {
	if w.cur == nil {
		return
	}
	r := attdir.Record{Time: t, Value: uint64(value), SE: s.SE, CU: s.CU, SIMD: s.SIMD, WaveID: s.Wave}
	if imm {
		r.Flags = attdir.FlagIMM
	}
	w.cur.recs = append(w.cur.recs, record{r, len(w.cur.recs)})
}

// EndDispatch writes the dispatch's trace directory, also when the
// dispatch faulted (its waves end at their clocks at the fault).
func (w *Writer) EndDispatch(end int64, fault error) error {
	c := w.cur
	w.cur = nil
	if c == nil {
		return fmt.Errorf("att: dispatch ended without a beginning")
	}
	d := c.d
	dir := filepath.Join(w.dir, fmt.Sprintf("ui_output_agent_1_dispatch_%d", d.ID))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("att: %w", err)
	}
	// Shaderdata files of an earlier capture into the same directory
	// would be found by a reader without filenames.json.
	old, _ := filepath.Glob(filepath.Join(dir, "shaderdata_*.json"))
	for _, p := range old {
		if err := os.Remove(p); err != nil {
			return fmt.Errorf("att: %w", err)
		}
	}
	sort.SliceStable(c.recs, func(i, j int) bool { return c.recs[i].Time < c.recs[j].Time })
	sw := attdir.NewShaderdataWriter(dir, 0)
	for _, r := range c.recs {
		if err := sw.Write(r.Record); err != nil {
			sw.Close()
			return fmt.Errorf("att: dispatch %d: %w", d.ID, err)
		}
	}
	index, err := sw.Close()
	if err != nil {
		return fmt.Errorf("att: dispatch %d: %w", d.ID, err)
	}
	gfxip := 9
	if strings.HasPrefix(d.Target, "gfx12") {
		gfxip = 12
	}
	if err := attdir.WriteFilenames(dir, attdir.TraceInfo{GFXIP: gfxip, GFXV: d.Target, BeginTime: d.Start}, index); err != nil {
		return fmt.Errorf("att: dispatch %d: %w", d.ID, err)
	}
	if err := attdir.WriteOccupancy(filepath.Join(dir, "occupancy.json"), c.occ, map[uint64]string{d.ID: c.name}); err != nil {
		return fmt.Errorf("att: dispatch %d: %w", d.ID, err)
	}
	var tables sqtt.CodeTables
	if d.Image != nil {
		if co, err := sqtt.ParseCodeObject(d.Image); err == nil {
			co.ID = d.CodeObject
			tables = sqtt.TablesFor(co)
		}
	}
	if err := attdir.WriteCodeJSON(filepath.Join(dir, "code.json"), tables); err != nil {
		return fmt.Errorf("att: dispatch %d: %w", d.ID, err)
	}
	info := CycleInfo{Target: d.Target, Kernel: d.Kernel, Start: d.Start, End: end, Model: d.Model, Geometry: d.Geometry,
		Markers: len(c.recs)}
	if fault != nil {
		info.Fault = fault.Error()
	}
	b, err := json.MarshalIndent(info, "", "  ")
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "cycle_model.json"), append(b, '\n'), 0o644)
	}
	if err != nil {
		return fmt.Errorf("att: dispatch %d: %w", d.ID, err)
	}
	w.Dirs = append(w.Dirs, dir)
	w.Markers += len(c.recs)
	return nil
}

// CycleInfo is the content of cycle_model.json: how the times of a
// simulated trace were made.
type CycleInfo struct {
	// Target and Kernel identify the dispatch.
	Target string `json:"target"`
	Kernel string `json:"kernel"`
	// Start and End are the dispatch's first and last cycle.
	Start int64 `json:"start"`
	End   int64 `json:"end"`
	// Markers is the number of shaderdata records.
	Markers int `json:"markers"`
	// Fault is the dispatch's error, empty when it completed.
	Fault string `json:"fault,omitempty"`
	// Model is the per-class cost table.
	Model sim.CycleModel `json:"cycle_model"`
	// Geometry is the modeled device shape.
	Geometry sim.Geometry `json:"geometry"`
}
