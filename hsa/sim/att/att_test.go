package att_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/hsa/sim/att"
	"github.com/rocjitsu/rocjitsu/sqtt/attdir"
	"github.com/rocjitsu/rocjitsu/sqtt/pipeline"
)

// The marker kernels of testdata/markers.cl.
var kernels = []struct {
	file, target string
	lanes        int
	imm          bool
}{
	{"gfx942_markers.co", "gfx942", 64, false},
	{"gfx1201_markers.co", "gfx1201", 32, true},
	{"gfx1201_markers_clock.co", "gfx1201", 32, false},
}

const (
	grid, block = 256, 128
	nOuter      = 3 // n: iterations of the outer loop
	mInner      = 5 // m: iterations of the inner loop
)

// dispatch runs nested(out, in, n, m) once on a capturing agent; out 0
// makes the kernel fault at its final store.
func dispatch(t *testing.T, a *sim.Agent, ex *sim.Executable, out uint64) (uint64, error) {
	t.Helper()
	k, err := ex.Kernel("nested")
	if err != nil {
		t.Fatal(err)
	}
	in := make([]byte, 4*mInner)
	for j := 0; j < mInner; j++ {
		binary.LittleEndian.PutUint32(in[4*j:], uint32(j+1))
	}
	inAddr, err := a.Alloc(uint64(len(in)))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.CopyIn(inAddr, in); err != nil {
		t.Fatal(err)
	}
	if out == 1 {
		if out, err = a.Alloc(4 * grid); err != nil {
			t.Fatal(err)
		}
	}
	ka := make([]byte, k.KernargSegmentSize)
	binary.LittleEndian.PutUint64(ka[0:], out)
	binary.LittleEndian.PutUint64(ka[8:], inAddr)
	binary.LittleEndian.PutUint32(ka[16:], nOuter)
	binary.LittleEndian.PutUint32(ka[20:], mInner)
	return out, a.Dispatch(k, [3]uint32{grid, 1, 1}, [3]uint32{block, 1, 1}, ka)
}

// counts reads the trace directory back with the SQTT pipeline (clock
// correction and packed-header decoding included) and counts the marker
// words; it checks that every wave slot's records are in time order.
func counts(t *testing.T, base, dir string, imm bool) map[uint64]int {
	t.Helper()
	c, err := pipeline.Open(base, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[uint64]int{}
	last := map[attdir.Slot]int64{}
	_, err = c.Records(dir, func() func(attdir.Record) error {
		clear(got)
		return func(r attdir.Record) error {
			got[r.Value]++
			if r.Time < last[r.Slot()] {
				t.Errorf("%s: slot %+v: record at %d after %d", dir, r.Slot(), r.Time, last[r.Slot()])
			}
			last[r.Slot()] = r.Time
			if (r.Flags&attdir.FlagIMM != 0) != imm {
				t.Errorf("%s: record %+v: IMM flag, want %v", dir, r, imm)
			}
			return nil
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func wantCounts(waves int) map[uint64]int {
	return map[uint64]int{
		1<<2 | 2: waves,                // enter outer, once per wave
		2<<2 | 2: waves * nOuter,       // enter inner
		3 << 2:   waves * nOuter,       // point tick
		1:        waves * (nOuter + 1), // exits of inner and outer
	}
}

func checkCounts(t *testing.T, name string, got, want map[uint64]int) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: marker words %v, want %v", name, got, want)
	}
	for v, n := range want {
		if got[v] != n {
			t.Errorf("%s: marker %#x seen %d times, want %d (waves x executions)", name, v, got[v], n)
		}
	}
}

func readInfo(t *testing.T, dir string) att.CycleInfo {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "cycle_model.json"))
	if err != nil {
		t.Fatal(err)
	}
	var info att.CycleInfo
	if err := json.Unmarshal(b, &info); err != nil {
		t.Fatal(err)
	}
	return info
}

// TestCapture runs each marker kernel twice on a capturing agent: the
// results are right, every dispatch has its trace directory, the marker
// counts are waves x executions, the occupancy has every wave, and the
// second dispatch starts after the first ends.
func TestCapture(t *testing.T) {
	for _, kc := range kernels {
		t.Run(kc.file, func(t *testing.T) {
			image, err := os.ReadFile(filepath.Join("testdata", kc.file))
			if err != nil {
				t.Fatal(err)
			}
			base := t.TempDir()
			w, err := att.NewWriter(base)
			if err != nil {
				t.Fatal(err)
			}
			a, err := sim.NewAgent(kc.target)
			if err != nil {
				t.Fatal(err)
			}
			a.Capture = sim.NewCapture(w)
			ex, err := a.LoadCodeObject(image)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 2; i++ {
				out, err := dispatch(t, a, ex, 1)
				if err != nil {
					t.Fatal(err)
				}
				res := make([]byte, 4*grid)
				if err := a.CopyOut(out, res); err != nil {
					t.Fatal(err)
				}
				for g := 0; g < grid; g++ {
					lane := uint32(g % block)
					want := uint32(nOuter*(nOuter-1)/2*mInner*(mInner+1)/2) + lane*nOuter*mInner
					if got := binary.LittleEndian.Uint32(res[4*g:]); got != want {
						t.Fatalf("out[%d] = %d, want %d", g, got, want)
					}
				}
			}
			if len(w.Dirs) != 2 {
				t.Fatalf("trace directories %v, want 2", w.Dirs)
			}
			waves := grid / block * ((block + kc.lanes - 1) / kc.lanes)
			want := wantCounts(waves)
			for _, dir := range w.Dirs {
				checkCounts(t, dir, counts(t, base, dir, kc.imm), want)
				tr, err := attdir.OpenTrace(dir)
				if err != nil {
					t.Fatal(err)
				}
				launches := 0
				for _, s := range tr.Occupancy.Slots {
					for _, l := range s.Launches {
						launches++
						if l.Retire == attdir.MaxTime || l.Retire <= l.Time {
							t.Errorf("%s: launch %+v without a later end", dir, l)
						}
					}
				}
				if launches != waves {
					t.Errorf("%s: %d wave launches, want %d", dir, launches, waves)
				}
				if len(tr.Warnings) != 0 {
					t.Errorf("%s: warnings %v", dir, tr.Warnings)
				}
			}
			i1, i2 := readInfo(t, w.Dirs[0]), readInfo(t, w.Dirs[1])
			if i1.End <= i1.Start || i2.Start <= i1.End || i1.Markers != i2.Markers || i1.Fault != "" {
				t.Errorf("dispatch times %+v then %+v", i1, i2)
			}
			if i1.Model != sim.DefaultCycleModel {
				t.Errorf("cycle_model.json model %+v", i1.Model)
			}
			if co, _ := filepath.Glob(filepath.Join(base, "*code_object_id_1.out")); len(co) != 1 {
				t.Errorf("code objects %v, want one", co)
			}
		})
	}
}

// TestCaptureFault: a dispatch that faults (a store through a null
// pointer after every marker) still writes its trace, with the fault in
// cycle_model.json, and returns the dispatch error.
func TestCaptureFault(t *testing.T) {
	for _, kc := range kernels[:2] {
		t.Run(kc.file, func(t *testing.T) {
			image, err := os.ReadFile(filepath.Join("testdata", kc.file))
			if err != nil {
				t.Fatal(err)
			}
			base := t.TempDir()
			w, _ := att.NewWriter(base)
			a, _ := sim.NewAgent(kc.target)
			a.Capture = sim.NewCapture(w)
			ex, err := a.LoadCodeObject(image)
			if err != nil {
				t.Fatal(err)
			}
			_, err = dispatch(t, a, ex, 0)
			var de *sim.DispatchError
			if !errors.As(err, &de) {
				t.Fatalf("dispatch error %v, want a *sim.DispatchError", err)
			}
			if len(w.Dirs) != 1 {
				t.Fatalf("trace directories %v", w.Dirs)
			}
			// The first wave faults at its store, having sent all of its
			// markers; the other waves never ran.
			checkCounts(t, w.Dirs[0], counts(t, base, w.Dirs[0], kc.imm), wantCounts(1))
			if info := readInfo(t, w.Dirs[0]); info.Fault == "" {
				t.Errorf("cycle_model.json has no fault")
			}
		})
	}
}

// failing is a Capturer whose BeginDispatch fails.
type failing struct{ att.Writer }

func (failing) BeginDispatch(*sim.CapturedDispatch) error { return errors.New("disk full") }

// TestCaptureSinkError: a sink that cannot start a dispatch stops it
// before any wave runs, with the sink's error.
func TestCaptureSinkError(t *testing.T) {
	image, err := os.ReadFile(filepath.Join("testdata", kernels[0].file))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := sim.NewAgent("gfx942")
	a.Capture = sim.NewCapture(&failing{})
	ex, err := a.LoadCodeObject(image)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dispatch(t, a, ex, 1); err == nil || a.Stats.Waves != 0 {
		t.Fatalf("dispatch with a failing sink: %v, %d waves", err, a.Stats.Waves)
	}
}

// TestCaptureBarrier: the waves of a group reach the barrier after
// different amounts of work and leave it together: every wave's "after"
// point has the same time, later than every "before" point plus the work.
func TestCaptureBarrier(t *testing.T) {
	for _, kc := range kernels {
		t.Run(kc.file, func(t *testing.T) {
			image, err := os.ReadFile(filepath.Join("testdata", kc.file))
			if err != nil {
				t.Fatal(err)
			}
			base := t.TempDir()
			w, _ := att.NewWriter(base)
			a, _ := sim.NewAgent(kc.target)
			a.Capture = sim.NewCapture(w)
			ex, err := a.LoadCodeObject(image)
			if err != nil {
				t.Fatal(err)
			}
			k, err := ex.Kernel("barrier_sync")
			if err != nil {
				t.Fatal(err)
			}
			const threads = 256
			out, _ := a.Alloc(4 * threads)
			in, _ := a.Alloc(16)
			a.CopyIn(in, []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0})
			ka := make([]byte, k.KernargSegmentSize)
			binary.LittleEndian.PutUint64(ka[0:], out)
			binary.LittleEndian.PutUint64(ka[8:], in)
			if err := a.Dispatch(k, [3]uint32{threads, 1, 1}, [3]uint32{threads, 1, 1}, ka); err != nil {
				t.Fatal(err)
			}
			res := make([]byte, 4*threads)
			a.CopyOut(out, res)
			for i := 0; i < threads; i++ {
				if got, want := binary.LittleEndian.Uint32(res[4*i:]), uint32(10*(i/kc.lanes)); got != want {
					t.Fatalf("out[%d] = %d, want %d", i, got, want)
				}
			}
			c, err := pipeline.Open(base, pipeline.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var before, after []int64
			if _, err := c.Records(w.Dirs[0], func() func(attdir.Record) error {
				before, after = nil, nil
				return func(r attdir.Record) error {
					switch r.Value {
					case 4 << 2:
						before = append(before, r.Time)
					case 5 << 2:
						after = append(after, r.Time)
					default:
						t.Errorf("record %+v", r)
					}
					return nil
				}
			}); err != nil {
				t.Fatal(err)
			}
			waves := threads / kc.lanes
			if len(before) != waves || len(after) != waves {
				t.Fatalf("before %v after %v, want %d each", before, after, waves)
			}
			// The last wave does 4(waves-1) loads before the barrier.
			work := int64(4*(waves-1)) * int64(sim.DefaultCycleModel.VMEMLoad)
			for _, ta := range after {
				if ta != after[0] {
					t.Errorf("after-barrier times %v differ", after)
					break
				}
				for _, tb := range before {
					if ta < tb+work {
						t.Errorf("after-barrier time %d earlier than a before time %d plus %d cycles of work", ta, tb, work)
					}
				}
			}
		})
	}
}

// TestCaptureUnnamedKernel: when the funcmap has no K: row for the kernel,
// occupancy.json names the dispatch "<co> / 0x<entry>", which the decoder
// resolves to the code object; a rerun into the same directory replaces
// the shaderdata files.
func TestCaptureUnnamedKernel(t *testing.T) {
	image, err := os.ReadFile(filepath.Join("testdata", kernels[0].file))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(image, []byte("K:nested\n"))
	if i < 0 {
		t.Fatal("no K:nested row")
	}
	image = append([]byte(nil), image...)
	copy(image[i:], "K:nestee\n")
	base := t.TempDir()
	stale := filepath.Join(base, "ui_output_agent_1_dispatch_1", "shaderdata_3_0.json")
	os.MkdirAll(filepath.Dir(stale), 0o755)
	os.WriteFile(stale, []byte("not json"), 0o644)
	w, _ := att.NewWriter(base)
	a, _ := sim.NewAgent("gfx942")
	a.Capture = sim.NewCapture(w)
	ex, err := a.LoadCodeObject(image)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dispatch(t, a, ex, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("stale shaderdata file kept")
	}
	c, err := pipeline.Open(base, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := attdir.OpenTrace(w.Dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	name := tr.Occupancy.Dispatches[1]
	k, _ := ex.Kernel("nested")
	if want := fmt.Sprintf("1 / %#x", uint64(int64(k.KD)+k.Desc.EntryOffset)-ex.Base); name != want {
		t.Errorf("dispatch name %q, want %q", name, want)
	}
	if co, ok := pipeline.KernelCodeObject(c.Funcmaps(tr))(name); !ok || co != 1 {
		t.Errorf("%q resolves to code object %d, %v", name, co, ok)
	}
}

// TestWriterRecovers: a dispatch whose code object cannot be written fails
// before running, and the next dispatch is captured normally.
func TestWriterRecovers(t *testing.T) {
	image, err := os.ReadFile(filepath.Join("testdata", kernels[0].file))
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(t.TempDir(), "att")
	w, err := att.NewWriter(base)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := sim.NewAgent("gfx942")
	a.Capture = sim.NewCapture(w)
	ex, err := a.LoadCodeObject(image)
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(base)
	if _, err := dispatch(t, a, ex, 1); err == nil || a.Stats.Waves != 0 {
		t.Fatalf("dispatch into a removed directory: %v, %d waves", err, a.Stats.Waves)
	}
	os.MkdirAll(base, 0o755)
	if _, err := dispatch(t, a, ex, 1); err != nil {
		t.Fatal(err)
	}
	if len(w.Dirs) != 1 || w.Markers != 4*(2+3*nOuter) {
		t.Errorf("dirs %v, %d markers", w.Dirs, w.Markers)
	}
}
