package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rocjitsu/rocjitsu/hsa/sim/mem"
	"github.com/rocjitsu/rocjitsu/sqtt/instrument"
	"github.com/rocjitsu/rocjitsu/verify"
)

func init() {
	register(command{
		name:    "verify",
		summary: "run each kernel as guest and as translation on the simulator and compare everything it writes",
		run:     runVerify,
	})
}

// verifyJSON is the --json document.
type verifyJSON struct {
	Kernels []verify.Result `json:"kernels"`
	Summary string          `json:"summary"`
}

func runVerify(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	host := fs.String("host", "gfx942", "host target: gfx942, gfx1201 or gfx1200")
	kernel := fs.String("kernel", "", "verify only this kernel")
	wgs := fs.Int("workgroups", 2, "workgroups along x (2 rows when the kernel reads its y workgroup ID)")
	seed := fs.Uint64("seed", 0, "seed of the memory content and by-value arguments")
	seeds := fs.Int("seeds", 1, "run every kernel with this many seeds, from --seed on")
	fill := fs.String("fill", "float", "paged memory content: int, float or fp8")
	maxInst := fs.Uint64("max-instructions", 2_000_000, "guest instruction budget per kernel (the host gets 4 times as many)")
	factor := fs.Uint64("budget-factor", verify.HostBudgetFactor, "the host (or instrumented) side may run this many times the guest's budget")
	noProfiles := fs.Bool("no-profiles", false, "give every kernel the plain argument synthesis, without the per-family argument profiles")
	jsonOut := fs.String("json", "", "write the results as JSON to this file")
	native := fs.String("native", "", "instead of translating, run the same-named object of this `DIR`, a native build for the host, with the guest's inputs and compare it with the guest (its executed instructions are the translation's baseline)")
	stats := fs.Bool("stats", false, "print each kernel's executed instructions by class and their issue-cycle model weight (MFMA passes, 1 per other instruction) on both sides, and their host/guest summary over the kernels that ran alike")
	hot := fs.Int("hot", 0, "attribute each translated kernel's executed host instructions to the guest instructions they translate (their own code, the subroutines they call, stubs they reach) and print the `N` guest mnemonics and instructions with the most excess (host minus guest executions), plus the prologue")
	instr := fs.String("instrument", "", "instead of translating, instrument each object with these `rocjitsu sqtt instrument` OPTIONS (e.g. \"--barriers --memory 4:8 --loops\") and compare the instrumented run with the plain one on the object's own target (--host is ignored)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: rocjitsu verify GUEST.co... [--host gfx942|gfx1201|gfx1200] [--kernel NAME] [--workgroups N] [--seed S] [--seeds N] [--fill int|float|fp8] [--max-instructions N] [--budget-factor N] [--no-profiles] [--stats] [--hot N] [--native DIR] [--json FILE] [--instrument \"OPTIONS\"]")
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) == 0 {
		fs.Usage()
		return 2
	}
	f, err := mem.ParseFill(*fill)
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu verify: %v\n", err)
		return 2
	}
	if *native != "" && *instr != "" {
		fmt.Fprintln(stderr, "rocjitsu verify: --native and --instrument exclude each other")
		return 2
	}
	var instOpt *instrument.Options
	if *instr != "" {
		ifs := flag.NewFlagSet("verify --instrument", flag.ContinueOnError)
		ifs.SetOutput(stderr)
		build := instrumentFlags(ifs)
		if err := ifs.Parse(strings.Fields(*instr)); err != nil {
			return 2
		}
		if ifs.NArg() > 0 {
			fmt.Fprintf(stderr, "rocjitsu verify: --instrument: unexpected %q\n", ifs.Arg(0))
			return 2
		}
		o, err := build()
		if err != nil {
			fmt.Fprintf(stderr, "rocjitsu verify: --instrument: %v\n", err)
			return 2
		}
		instOpt = &o
	}
	opt := verify.Options{Host: *host, Kernel: *kernel, Workgroups: *wgs, Seed: *seed, Fill: f, MaxInstructions: *maxInst, BudgetFactor: *factor, NoProfiles: *noProfiles, Hot: *hot > 0}
	var all []verify.Result
	status := 0
	for _, p := range pos {
		b, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintf(stderr, "rocjitsu verify: %v\n", err)
			status = 1
			continue
		}
		for i := 0; i < max(*seeds, 1); i++ {
			o := opt
			o.Seed = *seed + uint64(i)
			var rs []verify.Result
			switch {
			case instOpt != nil:
				rs, err = instrumentedRun(filepath.Base(p), b, *instOpt, o)
			case *native != "":
				rs, err = nativeRun(p, b, *native, o)
			default:
				rs, err = verify.Object(filepath.Base(p), b, o)
			}
			if err != nil {
				fmt.Fprintf(stderr, "rocjitsu verify: %v\n", err)
				status = 1
				break
			}
			for _, r := range rs {
				fmt.Fprintln(stdout, line(r, *seeds > 1))
				if *stats {
					fmt.Fprintln(stdout, statsLine(r))
				}
				if *hot > 0 && r.Hot != nil {
					fmt.Fprintln(stdout, "  hot guest instructions by excess (host minus guest executions):")
					for _, l := range verify.HotLines(r.Hot, *hot) {
						fmt.Fprintln(stdout, l)
					}
				}
			}
			all = append(all, rs...)
		}
	}
	if *jsonOut != "" {
		j, err := json.MarshalIndent(verifyJSON{Kernels: all, Summary: verify.Summarize(all)}, "", "  ")
		if err == nil {
			err = os.WriteFile(*jsonOut, append(j, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintf(stderr, "rocjitsu verify: json: %v\n", err)
			status = 1
		}
	}
	if *stats {
		fmt.Fprintln(stdout, verify.CostOf(all))
	}
	fmt.Fprintln(stdout, verify.Summarize(all))
	return status
}

// statsLine is a kernel's --stats line: executed instructions by class,
// guest/host, and the issue-cycle model's weights.
func statsLine(r verify.Result) string {
	g, h := r.GuestClasses, r.HostClasses
	return fmt.Sprintf("  executed guest/host: %d/%d (mfma %d/%d, valu %d/%d, memory %d/%d, salu %d/%d, other %d/%d); issue-cycle model %d/%d passes",
		r.GuestInstructions, r.HostInstructions, g.MFMA, h.MFMA, g.VALU, h.VALU, g.Memory, h.Memory, g.SALU, h.SALU, g.Other, h.Other, r.GuestPasses, r.HostPasses)
}

// instrumentedRun instruments the object b with io and compares the
// instrumented run of each kernel with the plain one (verify.Compare).
func instrumentedRun(name string, b []byte, io instrument.Options, o verify.Options) ([]verify.Result, error) {
	res, err := instrument.Instrument(b, io)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return verify.Compare(name, b, res.Object, o)
}

// nativeRun compares the guest object at path (bytes b) with its
// same-named native build in dir (verify.Native).
func nativeRun(path string, b []byte, dir string, o verify.Options) ([]verify.Result, error) {
	name := filepath.Base(path)
	nat, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, fmt.Errorf("%s: native build: %w", name, err)
	}
	return verify.Native(name, b, nat, o)
}

// line is one kernel's text line.
func line(r verify.Result, seed bool) string {
	s := fmt.Sprintf("%s %s -> %s: %s", r.Object, r.Name, r.Host, r.Outcome)
	if seed {
		s = fmt.Sprintf("%s %s -> %s seed %d: %s", r.Object, r.Name, r.Host, r.Seed, r.Outcome)
	}
	switch r.Outcome {
	case verify.Identical:
		s += fmt.Sprintf(" (%d pages, %d words written, %d/%d instructions)", r.Pages, r.WrittenWords, r.GuestInstructions, r.HostInstructions)
	case verify.WithinBound, verify.Different:
		s += fmt.Sprintf(" (%d of %d written words differ, max relative error %.3g", r.DifferingWords, r.WrittenWords, r.MaxError)
		if r.NonFinite {
			s += ", some not finite"
		}
		s += ")"
		if d := r.First; d != nil {
			s += fmt.Sprintf("; first at %#x: guest %#08x by %#x %s, host %#08x by %#x %s (guest %#x)", d.Addr, d.Guest, d.GuestPC, d.GuestInst, d.Host, d.HostPC, d.HostInst, d.HostGuestPC)
		}
	default:
		if r.Reason != "" {
			s += ": " + r.Reason
		}
	}
	return s
}
