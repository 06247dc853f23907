package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/rocjitsu/rocjitsu/dbt"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

func init() {
	register(command{
		name:    "translate",
		summary: "translate a gfx950 code object for gfx942, gfx1201 or gfx1200, with a fidelity report",
		run:     runTranslate,
	})
}

func runTranslate(args []string, stdout, stderr io.Writer) int {
	defer lessGC()()
	fs := flag.NewFlagSet("translate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	to := fs.String("to", "gfx942", "host target: gfx942, gfx1201 or gfx1200 (wave64, CU mode)")
	out := fs.String("o", "", "output code object")
	rep := fs.String("report", "", "write the fidelity report as JSON to this file")
	diff := fs.Bool("diff", false, "print every changed instruction (guest, then host code)")
	stats := fs.Bool("stats", false, "report .text growth and instruction counts by class (static; executed on the simulator for kernels with a reference case)")
	jobs := fs.Int("j", 0, "batch mode: objects translated at once (0: one per CPU)")
	hist := fs.Bool("histogram", false, "print the histogram of guest instructions the host cannot run as they are, over all inputs, and exit")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: rocjitsu translate --to gfx942|gfx1201|gfx1200 IN -o OUT [--report report.json] [--diff] [--stats]")
		fmt.Fprintln(stderr, "       rocjitsu translate --to gfx942|gfx1201|gfx1200 -o DIR [-j N] [--report report.json] [--stats] IN...")
		fmt.Fprintln(stderr, "       rocjitsu translate --histogram [--to gfx942|gfx1201|gfx1200] IN...")
		fs.PrintDefaults()
	}
	// Flags may follow the input (rocjitsu translate IN -o OUT).
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	host, err := isa.ParseTarget(*to)
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu translate: %v\n", err)
		return 2
	}
	if *hist {
		return runHistogram(pos, host, stdout, stderr)
	}
	if *out != "" && (len(pos) > 1 || isDir(*out)) && !*diff {
		return runBatch(pos, *out, *rep, host, *stats, *jobs, stderr)
	}
	if len(pos) != 1 || *out == "" {
		fs.Usage()
		return 2
	}
	in := pos[0]
	b, err := os.ReadFile(in)
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu translate: %v\n", err)
		return 1
	}
	res, terr := dbt.Translate(b, dbt.Options{Host: host, Name: filepath.Base(in), Diff: *diff, Stats: *stats, NoPCMap: true})
	if res != nil && terr == nil && *stats {
		addDynamicCost(&res.Report, b, res.Object)
	}
	if res != nil {
		if *rep != "" {
			j, err := report.MarshalIndent([]report.Object{res.Report})
			if err == nil {
				err = os.WriteFile(*rep, j, 0o644)
			}
			if err != nil {
				fmt.Fprintf(stderr, "rocjitsu translate: report: %v\n", err)
				return 1
			}
		}
		if *diff {
			if err := dbt.WriteDiff(stdout, res.Changes); err != nil {
				return 1
			}
		}
		_ = res.Report.WriteText(stderr)
	}
	if terr != nil {
		fmt.Fprintf(stderr, "rocjitsu translate: %v\n", terr)
		if errors.Is(terr, dbt.ErrRejected) {
			return 3
		}
		return 1
	}
	if err := os.WriteFile(*out, res.Object, 0o644); err != nil {
		fmt.Fprintf(stderr, "rocjitsu translate: %v\n", err)
		return 1
	}
	return 0
}

func runHistogram(paths []string, host isa.Target, stdout, stderr io.Writer) int {
	if len(paths) == 0 {
		fmt.Fprintln(stderr, "rocjitsu translate --histogram: no inputs")
		return 2
	}
	total := map[string]dbt.Count{}
	objs := map[string]int{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintf(stderr, "rocjitsu translate: %v\n", err)
			return 1
		}
		m, err := dbt.GuestOnly(b, host)
		if err != nil {
			fmt.Fprintf(stderr, "rocjitsu translate: %s: %v\n", p, err)
			return 1
		}
		for k, c := range m {
			t := total[k]
			t.Mnemonic, t.Action, t.Rule = c.Mnemonic, c.Action, c.Rule
			t.Count += c.Count
			total[k] = t
			objs[k]++
		}
	}
	rows := dbt.SortCounts(total)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Count > rows[j].Count })
	fmt.Fprintf(stdout, "%8s %7s  %-44s %-8s %s\n", "count", "objects", "instruction", "action", "rule")
	for _, c := range rows {
		fmt.Fprintf(stdout, "%8d %7d  %-44s %-8s %s\n", c.Count, objs[c.Mnemonic], c.Mnemonic, c.Action, c.Rule)
	}
	return 0
}
