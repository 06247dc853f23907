package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rocjitsu/rocjitsu/sqtt"
	"github.com/rocjitsu/rocjitsu/sqtt/attdir"
	"github.com/rocjitsu/rocjitsu/sqtt/flame"
	"github.com/rocjitsu/rocjitsu/sqtt/perfetto"
	"github.com/rocjitsu/rocjitsu/sqtt/pipeline"
	"github.com/rocjitsu/rocjitsu/sqtt/waves"
)

func init() {
	register(command{
		name:    "sqtt",
		summary: "SQTT marker tools: funcmap, decode, flamegraph, perfetto, speedscope, instrument, memtrace",
		run:     runSQTT,
	})
}

const sqttUsage = `usage: rocjitsu sqtt SUBCOMMAND [flags] ARGS

subcommands:
  funcmap FILE...      print the .sqtt_funcmap table of code objects (or raw section blobs)
  decode DIR           list the decoded markers of a rocprofv3 --att output tree
  decode -value V...   decode marker words (with -funcmap FILE or -layout BITS:SHIFT)
  flamegraph DIR       write a flamegraph (SVG, folded stacks or speedscope, by -format or -o suffix)
  speedscope DIR       write a speedscope JSON profile
  perfetto DIR         write one Chrome/Perfetto JSON trace per ui_* directory
  instrument IN -o OUT insert markers into a gfx942/gfx950/gfx1200/gfx1201 code object (with .sqtt_funcmap)
  memtrace DIR         per-lane addresses of address-trace blocks as JSON (-summary: hierarchical summary)

Run 'rocjitsu sqtt SUBCOMMAND -h' for its flags.
`

func runSQTT(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, sqttUsage)
		return 2
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, sqttUsage)
		return 0
	case "funcmap":
		return sqttFuncmap(rest, stdout, stderr)
	case "decode":
		return sqttDecode(rest, stdout, stderr)
	case "flamegraph":
		return sqttFlamegraph(rest, stdout, stderr, "")
	case "speedscope":
		return sqttFlamegraph(rest, stdout, stderr, "speedscope")
	case "perfetto":
		return sqttPerfetto(rest, stdout, stderr)
	case "instrument":
		return sqttInstrument(rest, stdout, stderr)
	case "memtrace":
		return sqttMemtrace(rest, stdout, stderr)
	}
	fmt.Fprintf(stderr, "rocjitsu sqtt: unknown subcommand %q\n", sub)
	fmt.Fprint(stderr, sqttUsage)
	return 2
}

// sqttParseArgs parses flags that may appear before, between or after
// positional arguments.
func sqttParseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// sqttOpenOutput opens path for writing; "" or "-" is stdout.
func sqttOpenOutput(path string, stdout io.Writer) (io.Writer, func() error, error) {
	if path == "" || path == "-" {
		return stdout, func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}

type sqttIntFlag struct{ p **int }

func (f sqttIntFlag) String() string {
	if f.p == nil || *f.p == nil {
		return ""
	}
	return strconv.Itoa(**f.p)
}

func (f sqttIntFlag) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return err
	}
	*f.p = &v
	return nil
}

type sqttListFlag []string

func (l *sqttListFlag) String() string { return strings.Join(*l, ",") }
func (l *sqttListFlag) Set(s string) error {
	for _, p := range strings.Split(s, ",") {
		if p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

// sqttTraceFlags are the flags shared by the trace subcommands.
type sqttTraceFlags struct {
	codeObjects sqttListFlag
	filter      waves.Filter
	noDecode    bool
	demangle    bool
}

func (t *sqttTraceFlags) register(fs *flag.FlagSet) {
	fs.Var(&t.codeObjects, "c", "code object files to use (comma-separated or repeated; default: discovered *code_object_id_<N>.out)")
	fs.Var(sqttIntFlag{&t.filter.CU}, "cu", "only this CU/WGP")
	fs.Var(sqttIntFlag{&t.filter.SIMD}, "simd", "only this SIMD")
	fs.Var(sqttIntFlag{&t.filter.Wave}, "wave", "only this wave slot")
	fs.BoolVar(&t.noDecode, "no-decode-markers", false, "keep packed gfx12 header values and arrival times (no shader-clock correction)")
	fs.BoolVar(&t.demangle, "demangle", false, "demangle C++ names (flamegraph SVG: on unless -demangle=false)")
}

func (t *sqttTraceFlags) open(dir string, stderr io.Writer) (*pipeline.Capture, error) {
	c, err := pipeline.Open(dir, pipeline.Options{CodeObjects: t.codeObjects, NoDecodeMarkers: t.noDecode, Filter: t.filter})
	if err != nil {
		return nil, err
	}
	for _, w := range c.Warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	if len(c.Traces) == 0 {
		return nil, fmt.Errorf("no ui_* directory or shaderdata_*.json files found under %s", dir)
	}
	if len(c.CodeObjects) == 0 {
		fmt.Fprintln(stderr, "warning: no code object with a .sqtt_funcmap section found (use -c); using code.json tables only")
	}
	return c, nil
}

func sqttFuncmap(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rocjitsu sqtt funcmap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write to this file instead of stdout")
	demangle := fs.Bool("demangle", false, "demangle C++ names")
	format := fs.String("format", "table", "output: table, section (the raw .sqtt_funcmap text) or codejson (code.json tables)")
	pos, err := sqttParseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) == 0 {
		fmt.Fprintln(stderr, "usage: rocjitsu sqtt funcmap [-demangle] [-format table|section|codejson] [-o FILE] FILE...")
		return 2
	}
	w, closeOut, err := sqttOpenOutput(*out, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "rocjitsu sqtt funcmap:", err)
		return 1
	}
	code := 0
	var tables sqtt.CodeTables
	for i, p := range pos {
		co, err := sqttReadInput(p)
		if err != nil {
			fmt.Fprintln(stderr, "rocjitsu sqtt funcmap:", err)
			code = 1
			continue
		}
		if co.Funcmap == nil {
			fmt.Fprintf(stderr, "rocjitsu sqtt funcmap: %s: %v\n", p, sqtt.ErrNoFuncmap)
			code = 1
			continue
		}
		for _, d := range co.Funcmap.Diagnostics {
			fmt.Fprintf(stderr, "%s: %s\n", p, d)
		}
		switch *format {
		case "table":
			if len(pos) > 1 {
				if i > 0 {
					fmt.Fprintln(w)
				}
				fmt.Fprintf(w, "%s:\n", p)
			}
			if err := sqtt.WriteTable(w, co, sqtt.TableOptions{Demangle: *demangle}); err != nil {
				fmt.Fprintln(stderr, "rocjitsu sqtt funcmap:", err)
				return 1
			}
			if len(co.Funcmap.Entries) == 0 && !co.Funcmap.Encoding.Packed() {
				fmt.Fprintf(stderr, "rocjitsu sqtt funcmap: %s: no entries (was the pass plugin loaded during compilation?)\n", p)
				code = 1
			}
		case "section":
			w.Write(bytes.TrimRight(co.Funcmap.Format(), "\x00"))
		case "codejson":
			tables.Append(sqtt.TablesFor(co))
		default:
			fmt.Fprintf(stderr, "rocjitsu sqtt funcmap: unknown -format %q\n", *format)
			return 2
		}
	}
	if *format == "codejson" {
		b, _ := tables.MarshalJSON()
		w.Write(append(b, '\n'))
	}
	if err := closeOut(); err != nil {
		fmt.Fprintln(stderr, "rocjitsu sqtt funcmap:", err)
		return 1
	}
	return code
}

// sqttReadInput reads an ELF code object, or a raw section blob when the
// file is not ELF.
func sqttReadInput(path string) (*sqtt.CodeObject, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(data, []byte("\x7fELF")) {
		co, err := sqtt.ParseCodeObject(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		co.Path = path
		co.ID, _ = sqtt.CodeObjectID(path)
		return co, nil
	}
	return &sqtt.CodeObject{Path: path, Funcmap: sqtt.ParseFuncmap(data), Symbols: map[string]uint64{}}, nil
}

func sqttDecode(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rocjitsu sqtt decode", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write to this file instead of stdout")
	var tf sqttTraceFlags
	tf.register(fs)
	var values sqttListFlag
	fs.Var(&values, "value", "decode these marker words (decimal or 0x hex; comma-separated or repeated) instead of a trace")
	format := fs.String("format", "text", "text (one line per marker event) or json (write corrected ui_* directories into the -o directory, like att_tool.py)")
	fmFile := fs.String("funcmap", "", "with -value: code object or section blob whose funcmap decides packed decoding")
	layout := fs.String("layout", "", "with -value: packed layout BITS:SHIFT (decode every word as a packed header)")
	pos, err := sqttParseArgs(fs, args)
	if err != nil {
		return 2
	}
	if *format == "json" {
		if len(pos) != 1 || *out == "" || *out == "-" {
			fmt.Fprintln(stderr, "usage: rocjitsu sqtt decode -format json -o OUT_DIR [flags] DIR")
			return 2
		}
		return sqttDecodeJSON(pos[0], *out, &tf, stderr)
	}
	if *format != "text" {
		fmt.Fprintf(stderr, "rocjitsu sqtt decode: unknown -format %q\n", *format)
		return 2
	}
	w, closeOut, err := sqttOpenOutput(*out, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "rocjitsu sqtt decode:", err)
		return 1
	}
	defer closeOut()
	if len(values) > 0 {
		return sqttDecodeValues(values, *fmFile, *layout, w, stderr)
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: rocjitsu sqtt decode [flags] DIR | rocjitsu sqtt decode -value V[,V...] [-funcmap FILE | -layout BITS:SHIFT]")
		return 2
	}
	c, err := tf.open(pos[0], stderr)
	if err != nil {
		fmt.Fprintln(stderr, "rocjitsu sqtt decode:", err)
		return 1
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	for _, dir := range c.Traces {
		fmt.Fprintf(bw, "# %s\n", dir)
		var l *sqttListing
		st, err := c.Run(dir, func() (waves.Sink, *waves.Trie) {
			l = &sqttListing{w: bw, demangle: tf.demangle}
			return l, nil
		})
		if err != nil {
			fmt.Fprintln(stderr, "rocjitsu sqtt decode:", err)
			return 1
		}
		for _, wmsg := range st.Warnings {
			fmt.Fprintln(stderr, "warning:", wmsg)
		}
		fmt.Fprintf(stderr, "%s: %d records, %d markers, %d unmatched exits, clock corrected: %v\n", dir, st.Records, st.Markers, l.unmatched, st.Corrected)
	}
	if err := bw.Flush(); err != nil {
		fmt.Fprintln(stderr, "rocjitsu sqtt decode:", err)
		return 1
	}
	return 0
}

// sqttDecodeJSON writes a copy of every trace directory under base into
// outDir with the shaderdata records corrected and normalized (or, with
// -no-decode-markers, unchanged).
func sqttDecodeJSON(base, outDir string, tf *sqttTraceFlags, stderr io.Writer) int {
	c, err := tf.open(base, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "rocjitsu sqtt decode:", err)
		return 1
	}
	for _, dir := range c.Traces {
		dst := filepath.Join(outDir, filepath.Base(dir))
		if attdir.SameDir(dir, dst) {
			fmt.Fprintf(stderr, "rocjitsu sqtt decode: output %s is the input directory\n", dst)
			return 1
		}
		if err := os.MkdirAll(dst, 0o755); err != nil {
			fmt.Fprintln(stderr, "rocjitsu sqtt decode:", err)
			return 1
		}
		var sw *attdir.ShaderdataWriter
		discard := func() {
			if sw == nil {
				return
			}
			index, _ := sw.Close()
			for _, files := range index {
				for _, f := range files {
					os.Remove(f.Path)
				}
			}
		}
		st, err := c.Records(dir, func() func(attdir.Record) error {
			discard()
			sw = attdir.NewShaderdataWriter(dst, 0)
			return sw.Write
		})
		if err != nil {
			discard()
			fmt.Fprintln(stderr, "rocjitsu sqtt decode:", err)
			return 1
		}
		index, err := sw.Close()
		if err == nil {
			err = attdir.CopyTrace(dir, dst, index)
		}
		if err != nil {
			fmt.Fprintln(stderr, "rocjitsu sqtt decode:", err)
			return 1
		}
		for _, wmsg := range st.Warnings {
			fmt.Fprintln(stderr, "warning:", wmsg)
		}
		fmt.Fprintf(stderr, "wrote %s: %d records, clock corrected: %v\n", dst, st.Records, st.Corrected)
	}
	return 0
}

func sqttDecodeValues(values []string, fmFile, layout string, w io.Writer, stderr io.Writer) int {
	var fm *sqtt.Funcmap
	var enc sqtt.MarkerEncoding
	if fmFile != "" {
		co, err := sqttReadInput(fmFile)
		if err != nil || co.Funcmap == nil {
			fmt.Fprintf(stderr, "rocjitsu sqtt decode: %s: no funcmap (%v)\n", fmFile, err)
			return 1
		}
		fm = co.Funcmap
	}
	if layout != "" {
		b, s, ok := strings.Cut(layout, ":")
		bits, err1 := strconv.ParseUint(b, 10, 32)
		shift, err2 := strconv.ParseUint(s, 10, 32)
		enc = sqtt.MarkerEncoding{ShaderClockBits: uint32(bits), ShaderClockShift: uint32(shift)}
		if !ok || err1 != nil || err2 != nil || !enc.Valid() {
			fmt.Fprintf(stderr, "rocjitsu sqtt decode: bad -layout %q (want BITS:SHIFT with BITS <= 29 and BITS+SHIFT <= 32)\n", layout)
			return 2
		}
	}
	for _, v := range values {
		raw, err := strconv.ParseUint(v, 0, 32)
		if err != nil {
			fmt.Fprintf(stderr, "rocjitsu sqtt decode: bad value %q: %v\n", v, err)
			return 2
		}
		var m sqtt.Marker
		switch {
		case fm != nil:
			m = fm.Decode(uint32(raw))
		case layout != "":
			m = enc.Decode(uint32(raw))
		default:
			m = sqtt.Decode(uint32(raw))
		}
		name := ""
		if e, ok := fm.Lookup(m.ID); ok {
			name = fmt.Sprintf("  %s %s", e.Kind, e.Name)
		}
		clk := ""
		if m.Packed {
			clk = fmt.Sprintf(" clock=%#x", m.Clock)
		}
		fmt.Fprintf(w, "0x%08x id=%d enter=%d exit_prev=%d%s  %s%s\n", raw, m.ID, sqttB2I(m.Enter), sqttB2I(m.ExitPrev), clk, m, name)
	}
	return 0
}

func sqttB2I(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sqttListing is a waves.Sink that prints one line per marker event.
type sqttListing struct {
	w         *bufio.Writer
	demangle  bool
	unmatched int64
}

func (l *sqttListing) name(s string) string {
	if l.demangle {
		return sqtt.Demangle(s)
	}
	return s
}

func (l *sqttListing) line(w *waves.Wave, t int64, what, name string) {
	k := w.Key
	fmt.Fprintf(l.w, "%12d SE%d/CU%d/SIMD%d/W%d#%d %-9s %s\n", t, k.SE, k.CU, k.SIMD, k.WaveID, k.Instance, what, name)
}

func (l *sqttListing) WaveStart(w *waves.Wave) {
	kernel := w.Kernel
	if kernel == "" {
		kernel = "unknown dispatch"
	}
	l.line(w, w.First, "wave", fmt.Sprintf("dispatch %d: %s", w.Dispatch, l.name(kernel)))
}
func (l *sqttListing) Interval(*waves.Wave, *waves.Node, int64) {}
func (l *sqttListing) Enter(w *waves.Wave, t int64, n *waves.Node) {
	l.line(w, t, "enter", l.name(n.Name))
}
func (l *sqttListing) Exit(w *waves.Wave, t int64, n *waves.Node) {
	l.line(w, t, "exit", l.name(n.Name))
}
func (l *sqttListing) Point(w *waves.Wave, t int64, e *sqtt.Entry) {
	l.line(w, t, "point", l.name(e.Name))
}
func (l *sqttListing) Unmatched(w *waves.Wave, t int64) {
	l.unmatched++
	l.line(w, t, "exit", "(unmatched)")
}
func (l *sqttListing) WaveEnd(w *waves.Wave) {
	for n := w.Top; n != w.Base; n = n.Parent {
		l.line(w, w.Last, "open", l.name(n.Name))
	}
}

func sqttFlamegraph(args []string, stdout, stderr io.Writer, forced string) int {
	name := "rocjitsu sqtt flamegraph"
	if forced != "" {
		name = "rocjitsu sqtt " + forced
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "output file (default sqtt_flamegraph.svg, or stdout for folded; '-' = stdout)")
	format := fs.String("format", forced, "svg, folded (stack cycles), upstream-folded (stack cycles execs avg) or speedscope; default from the -o suffix (.svg, .json, else folded)")
	title := fs.String("title", "SQTT flamegraph", "SVG title")
	var tf sqttTraceFlags
	tf.register(fs)
	pos, err := sqttParseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "usage: %s [flags] DIR\n", name)
		return 2
	}
	f := *format
	if f == "" {
		switch {
		case *out == "" || strings.HasSuffix(*out, ".svg"):
			f = "svg"
		case strings.HasSuffix(*out, ".json"):
			f = "speedscope"
		default:
			f = "folded"
		}
	}
	if f == "svg" && *out == "" {
		*out = "sqtt_flamegraph.svg"
	}
	switch f {
	case "svg", "folded", "upstream-folded", "speedscope":
	default:
		fmt.Fprintf(stderr, "%s: unknown -format %q\n", name, f)
		return 2
	}
	// The SVG is for people: demangle unless -demangle=false was given.
	demangle := tf.demangle
	if f == "svg" {
		set := false
		fs.Visit(func(fl *flag.Flag) { set = set || fl.Name == "demangle" })
		if !set {
			demangle = true
		}
	}
	c, err := tf.open(pos[0], stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	var stacks []flame.Stack
	for _, dir := range c.Traces {
		var trie *waves.Trie
		st, err := c.Run(dir, func() (waves.Sink, *waves.Trie) { trie = waves.NewTrie(); return &flame.Collector{}, trie })
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			return 1
		}
		for _, wmsg := range st.Warnings {
			fmt.Fprintln(stderr, "warning:", wmsg)
		}
		stacks = append(stacks, flame.Stacks(trie, demangle)...)
	}
	stacks = flame.Merge(stacks)
	if len(stacks) == 0 {
		fmt.Fprintf(stderr, "%s: no stacks with weight (no enter/exit markers found)\n", name)
		return 1
	}
	w, closeOut, err := sqttOpenOutput(*out, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	switch f {
	case "svg":
		err = flame.WriteSVG(w, stacks, flame.SVGOptions{Title: *title})
	case "folded":
		err = flame.WriteFolded(w, stacks, flame.Standard)
	case "upstream-folded":
		err = flame.WriteFolded(w, stacks, flame.Upstream)
	case "speedscope":
		err = flame.WriteSpeedscope(w, stacks, "rocjitsu")
	}
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	if w != stdout {
		fmt.Fprintf(stderr, "wrote %s (%s, %d stacks)\n", *out, f, len(stacks))
	}
	return 0
}

func sqttPerfetto(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rocjitsu sqtt perfetto", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "output directory (default: next to each ui_* directory)")
	ghz := fs.Float64("clock-rate-ghz", 0, "shader clock in GHz: convert cycles to microseconds (default: cycles written as-is)")
	var tf sqttTraceFlags
	tf.register(fs)
	pos, err := sqttParseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: rocjitsu sqtt perfetto [flags] DIR")
		return 2
	}
	if *ghz < 0 {
		fmt.Fprintln(stderr, "rocjitsu sqtt perfetto: -clock-rate-ghz must be positive")
		return 2
	}
	c, err := tf.open(pos[0], stderr)
	if err != nil {
		fmt.Fprintln(stderr, "rocjitsu sqtt perfetto:", err)
		return 1
	}
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			fmt.Fprintln(stderr, "rocjitsu sqtt perfetto:", err)
			return 1
		}
	}
	written := 0
	for _, dir := range c.Traces {
		dest := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+".perfetto.json")
		if *out != "" {
			dest = filepath.Join(*out, filepath.Base(dir)+".perfetto.json")
		}
		err := sqttWritePerfetto(c, dir, dest, perfetto.Options{ClockRateGHz: *ghz, Demangle: tf.demangle}, stderr)
		if errors.Is(err, errNoEvents) {
			continue
		}
		if err != nil {
			fmt.Fprintln(stderr, "rocjitsu sqtt perfetto:", err)
			return 1
		}
		written++
	}
	if written == 0 {
		fmt.Fprintln(stderr, "rocjitsu sqtt perfetto: no trace directory had marker events")
		return 1
	}
	if *ghz == 0 {
		fmt.Fprintln(stderr, "note: without -clock-rate-ghz the timestamps are shader-clock cycles shown as microseconds")
	}
	return 0
}

var errNoEvents = errors.New("no marker events")

func sqttWritePerfetto(c *pipeline.Capture, dir, dest string, opt perfetto.Options, stderr io.Writer) error {
	var w *perfetto.Writer
	var werr error
	st, err := c.Run(dir, func() (waves.Sink, *waves.Trie) {
		if w != nil {
			w.Close()
		}
		w, werr = perfetto.NewWriter(filepath.Dir(dest), opt)
		if werr != nil {
			w, werr = perfetto.NewWriter("", opt)
		}
		if werr != nil {
			w = nil
			return &flame.Collector{}, nil // discards events; werr is reported below
		}
		return w, nil
	})
	if err == nil && werr != nil {
		err = werr
	}
	if err != nil {
		if w != nil {
			w.Close()
		}
		return err
	}
	if w == nil {
		return errors.New("no writer")
	}
	for _, wmsg := range st.Warnings {
		fmt.Fprintln(stderr, "warning:", wmsg)
	}
	if w.Events == 0 {
		w.Close()
		fmt.Fprintf(stderr, "%s: no marker events; nothing written\n", dir)
		return errNoEvents
	}
	f, err := os.Create(dest)
	if err != nil {
		w.Close()
		return err
	}
	if err := w.Finish(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s: %d events, %d unmatched exits\n", dest, w.Events, w.UnmatchedExits)
	return nil
}
