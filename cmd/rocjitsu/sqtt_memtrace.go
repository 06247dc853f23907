package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rocjitsu/rocjitsu/sqtt/memtrace"
)

func sqttMemtrace(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rocjitsu sqtt memtrace", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var tf sqttTraceFlags
	tf.register(fs)
	out := fs.String("o", "", "output JSON file (default: stdout)")
	fs.StringVar(out, "output", "", "same as -o")
	// Upstream's -d/--demangle changes no output of this tool: kinds come
	// from addr_trace_* names, which demangling leaves alone.
	fs.BoolVar(&tf.demangle, "d", false, "same as -demangle (no effect on address traces)")
	summary := fs.Bool("summary", false, "print the hierarchical summary to stderr")
	fs.BoolVar(summary, "s", false, "same as -summary")
	pos, err := sqttParseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "usage: rocjitsu sqtt memtrace [-c CODE_OBJECTS] [-cu N] [-simd N] [-wave N] [-summary|-s] [-demangle|-d] [-o|-output OUT.json] TRACE_DIR")
		return 2
	}
	c, err := tf.open(pos[0], stderr)
	if err != nil {
		fmt.Fprintln(stderr, "rocjitsu sqtt memtrace:", err)
		return 1
	}
	// As upstream: a trace directory is one holding shaderdata files, and
	// one without records prints no line.
	var dirs []string
	for _, dir := range c.Traces {
		if m, _ := filepath.Glob(filepath.Join(dir, "shaderdata_*.json")); len(m) > 0 {
			dirs = append(dirs, dir)
		}
	}
	fmt.Fprintf(stderr, "Found %d trace dir(s), %d code object(s)\n", len(dirs), len(c.CodeObjects))
	var all []memtrace.Trace
	total := 0
	f := memtrace.Filter{CU: tf.filter.CU, SIMD: tf.filter.SIMD, Wave: tf.filter.Wave}
	for _, dir := range dirs {
		ts, n, err := memtrace.Collect(c, dir, memtrace.Filter{})
		if err != nil {
			fmt.Fprintln(stderr, "rocjitsu sqtt memtrace:", err)
			return 1
		}
		if n == 0 {
			continue
		}
		total += n
		for _, t := range ts {
			if f.Match(&t) {
				all = append(all, t)
			}
		}
		fmt.Fprintf(stderr, "  %s: %d records, %d address traces\n", filepath.Base(dir), n, len(ts))
	}
	fmt.Fprintf(stderr, "Total: %d records, %d address traces (after filters)\n", total, len(all))
	if *summary {
		memtrace.WriteSummary(stderr, all)
	}
	w := stdout
	var file *os.File
	if *out != "" {
		if file, err = os.Create(*out); err != nil {
			fmt.Fprintln(stderr, "rocjitsu sqtt memtrace:", err)
			return 1
		}
		w = file
	}
	if err := memtrace.WriteJSON(w, all); err != nil {
		fmt.Fprintln(stderr, "rocjitsu sqtt memtrace:", err)
		return 1
	}
	if file != nil {
		if err := file.Close(); err != nil {
			fmt.Fprintln(stderr, "rocjitsu sqtt memtrace:", err)
			return 1
		}
		fmt.Fprintf(stderr, "Wrote %d traces to %s\n", len(all), *out)
	}
	return 0
}
