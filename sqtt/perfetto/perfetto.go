// Package perfetto writes SQTT marker timelines in the Chrome Trace Event
// JSON format that Perfetto and chrome://tracing open: one process (pid) per
// dispatch (occupancy kernel id, 0 = unknown dispatch), one thread per wave
// instance with tid = (se << 32) | (cu << 20) | (simd << 16) | (wave << 8) |
// instance and the name "SE{se}/CU{cu}/SIMD{simd}/W{wave}#{instance}",
// B/E duration slices for function and user scopes (categories
// sqtt.function and sqtt.user), thread-scoped "i" instants for point
// markers (sqtt.point), metadata events first.
//
// "ts" is in microseconds, as the format defines. With a clock rate the
// shader-clock cycles are converted (cycles / (GHz * 1000)); without one
// the cycle count is written unchanged, as the upstream tool does, so the
// viewer's microseconds are nominal cycles.
//
// Events are streamed to a spill file in time order while the records are
// read, so memory stays bounded by the number of waves.
package perfetto

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/rocjitsu/rocjitsu/sqtt"
	"github.com/rocjitsu/rocjitsu/sqtt/waves"
)

// Options controls the writer.
type Options struct {
	// ClockRateGHz converts cycles to microseconds when > 0.
	ClockRateGHz float64
	// Demangle demangles kernel and frame names.
	Demangle bool
	// BufferSize is the size of the spill and output buffers (0 = 1 MiB,
	// sized for traces of millions of records; small inputs, as a fuzz
	// target's, do not need to allocate and clear 2 MiB each).
	BufferSize int
}

// bufferSize returns the buffer size the options ask for.
func (o Options) bufferSize() int {
	if o.BufferSize > 0 {
		return o.BufferSize
	}
	return 1 << 20
}

// TID packs a wave key into a thread id. The instance has 8 bits; like the
// upstream tool, larger instance counts are OR-ed in unmasked.
func TID(k waves.WaveKey) uint64 {
	return uint64(k.SE)<<32 | uint64(k.CU)<<20 | uint64(k.SIMD)<<16 | uint64(k.WaveID)<<8 | uint64(k.Instance)
}

// ThreadName returns "SE{se}/CU{cu}/SIMD{simd}/W{wave}#{instance}".
func ThreadName(k waves.WaveKey) string {
	return fmt.Sprintf("SE%d/CU%d/SIMD%d/W%d#%d", k.SE, k.CU, k.SIMD, k.WaveID, k.Instance)
}

type threadKey struct {
	pid, tid uint64
}

// Writer is a waves.Sink that produces one trace file.
type Writer struct {
	opt       Options
	spill     *os.File
	bw        *bufio.Writer
	buf       []byte
	n         int64
	processes map[uint64]string
	threads   map[threadKey]string
	names     map[*waves.Node][]byte
	points    map[*sqtt.Entry][]byte
	demangled map[string]string
	lastWave  *waves.Wave
	// UnmatchedExits counts exits that found no open scope.
	UnmatchedExits int64
	// Events counts the data events written.
	Events int64
	err    error
}

// NewWriter returns a writer that spills events to a temporary file in
// tmpDir ("" = the system default).
func NewWriter(tmpDir string, opt Options) (*Writer, error) {
	f, err := os.CreateTemp(tmpDir, "sqtt-perfetto-*.json")
	if err != nil {
		return nil, fmt.Errorf("perfetto: %w", err)
	}
	return &Writer{opt: opt, spill: f, bw: bufio.NewWriterSize(f, opt.bufferSize()), processes: map[uint64]string{},
		threads: map[threadKey]string{}, names: map[*waves.Node][]byte{}, points: map[*sqtt.Entry][]byte{}, demangled: map[string]string{}}, nil
}

func (p *Writer) name(s string) string {
	if !p.opt.Demangle {
		return s
	}
	d, ok := p.demangled[s]
	if !ok {
		d = sqtt.Demangle(s)
		p.demangled[s] = d
	}
	return d
}

func pid(w *waves.Wave) uint64 {
	if !w.HasDispatch {
		return 0
	}
	return w.Dispatch
}

// appendTS appends a timestamp like Python's float repr ("191.0").
func (p *Writer) appendTS(b []byte, cycles int64) []byte {
	if p.opt.ClockRateGHz <= 0 {
		b = strconv.AppendInt(b, cycles, 10)
		return append(b, '.', '0')
	}
	v := float64(cycles) / (p.opt.ClockRateGHz * 1000)
	s := strconv.FormatFloat(v, 'f', -1, 64)
	b = append(b, s...)
	if !strings.ContainsAny(s, ".eEn") && !math.IsInf(v, 0) {
		b = append(b, '.', '0')
	}
	return b
}

func (p *Writer) begin(ph byte, t int64, w *waves.Wave) {
	if w != p.lastWave {
		p.meta(w)
	}
	b := p.buf[:0]
	if p.n > 0 {
		b = append(b, ',')
	}
	b = append(b, `{"ph":"`...)
	b = append(b, ph)
	b = append(b, `","ts":`...)
	b = p.appendTS(b, t)
	b = append(b, `,"pid":`...)
	b = strconv.AppendUint(b, pid(w), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendUint(b, TID(w.Key), 10)
	p.buf = b
}

func (p *Writer) end() {
	p.buf = append(p.buf, '}')
	if _, err := p.bw.Write(p.buf); err != nil && p.err == nil {
		p.err = err
	}
	p.n++
	p.Events++
}

// WaveStart implements waves.Sink. Process and thread names are recorded
// with a wave's first event, so waves without events get none.
func (p *Writer) WaveStart(w *waves.Wave) {}

func (p *Writer) meta(w *waves.Wave) {
	p.lastWave = w
	id := pid(w)
	if _, ok := p.processes[id]; !ok {
		var name string
		switch {
		case id == 0:
			name = "unknown dispatch"
		case w.Kernel == "":
			name = fmt.Sprintf("dispatch %d", id)
		default:
			name = fmt.Sprintf("dispatch %d: %s", id, p.name(w.Kernel))
		}
		p.processes[id] = name
	}
	k := threadKey{id, TID(w.Key)}
	if _, ok := p.threads[k]; !ok {
		p.threads[k] = ThreadName(w.Key)
	}
}

// Interval implements waves.Sink; timelines carry no sampled weights.
func (p *Writer) Interval(*waves.Wave, *waves.Node, int64) {}

// Enter writes a "B" event.
func (p *Writer) Enter(w *waves.Wave, t int64, n *waves.Node) {
	tail, ok := p.names[n]
	if !ok {
		cat := "sqtt.function"
		if n.Kind == sqtt.KindUser {
			cat = "sqtt.user"
		}
		tail = []byte(`,"name":` + jsonString(p.name(n.Name)) + `,"cat":"` + cat + `"`)
		p.names[n] = tail
	}
	p.begin('B', t, w)
	p.buf = append(p.buf, tail...)
	p.end()
}

// Exit writes an "E" event.
func (p *Writer) Exit(w *waves.Wave, t int64, _ *waves.Node) {
	p.begin('E', t, w)
	p.end()
}

// Point writes a thread-scoped "i" event.
func (p *Writer) Point(w *waves.Wave, t int64, e *sqtt.Entry) {
	tail, ok := p.points[e]
	if !ok {
		tail = []byte(`,"name":` + jsonString(p.name(e.Name)) + `,"cat":"sqtt.point","s":"t"`)
		p.points[e] = tail
	}
	p.begin('i', t, w)
	p.buf = append(p.buf, tail...)
	p.end()
}

// Unmatched counts an exit without an open scope.
func (p *Writer) Unmatched(*waves.Wave, int64) { p.UnmatchedExits++ }

// WaveEnd closes the frames still open one cycle after the wave's last
// record.
func (p *Writer) WaveEnd(w *waves.Wave) {
	for n := w.Top; n != w.Base; n = n.Parent {
		p.begin('E', w.Last+1, w)
		p.end()
	}
}

// Finish writes the complete file to out: metadata events (process names
// by pid, then thread names by pid and tid), then the spilled events. The
// spill file is removed.
func (p *Writer) Finish(out io.Writer) error {
	defer p.Close()
	if p.err != nil {
		return fmt.Errorf("perfetto: spill: %w", p.err)
	}
	if err := p.bw.Flush(); err != nil {
		return fmt.Errorf("perfetto: spill: %w", err)
	}
	bw := bufio.NewWriterSize(out, p.opt.bufferSize())
	bw.WriteString(`{"displayTimeUnit":"ns","traceEvents":[`)
	first := true
	sep := func() {
		if !first {
			bw.WriteByte(',')
		}
		first = false
	}
	pids := make([]uint64, 0, len(p.processes))
	for id := range p.processes {
		pids = append(pids, id)
	}
	sort.Slice(pids, func(i, j int) bool { return pids[i] < pids[j] })
	for _, id := range pids {
		sep()
		fmt.Fprintf(bw, `{"ph":"M","name":"process_name","pid":%d,"args":{"name":%s}}`, id, jsonString(p.processes[id]))
	}
	ths := make([]threadKey, 0, len(p.threads))
	for k := range p.threads {
		ths = append(ths, k)
	}
	sort.Slice(ths, func(i, j int) bool {
		if ths[i].pid != ths[j].pid {
			return ths[i].pid < ths[j].pid
		}
		return ths[i].tid < ths[j].tid
	})
	for _, k := range ths {
		sep()
		fmt.Fprintf(bw, `{"ph":"M","name":"thread_name","pid":%d,"tid":%d,"args":{"name":%s}}`, k.pid, k.tid, jsonString(p.threads[k]))
	}
	if p.n > 0 {
		sep()
		if _, err := p.spill.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("perfetto: spill: %w", err)
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("perfetto: %w", err)
		}
		var err error
		if f, ok := out.(*os.File); ok {
			// File to file: copy_file_range on Linux, no round trip of the
			// events through user space.
			_, err = f.ReadFrom(p.spill)
		} else {
			_, err = io.Copy(bw, p.spill)
		}
		if err != nil {
			return fmt.Errorf("perfetto: %w", err)
		}
	}
	bw.WriteString("]}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("perfetto: %w", err)
	}
	return nil
}

// Close removes the spill file; Finish calls it.
func (p *Writer) Close() {
	if p.spill != nil {
		name := p.spill.Name()
		p.spill.Close()
		os.Remove(name)
		p.spill = nil
	}
}

func jsonString(s string) string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
