package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/rocjitsu/rocjitsu/sqtt/instrument"
)

const sqttInstrumentUsage = `usage: rocjitsu sqtt instrument IN -o OUT [--barriers] [--functions N|cost:N] [--memory N:M]
       [--loops] [--region NAME=START:END]... [--scope-wave|--scope-simd|--scope-cu|--scope-wg MASK]
       [--shader-clock-bits N [--shader-clock-shift S]] [--addresses memory|lds|memory,lds] [--sites]
`

// regionFlags collects repeated --region values.
type regionFlags []instrument.Region

func (r *regionFlags) String() string { return fmt.Sprint(len(*r)) }

func (r *regionFlags) Set(s string) error {
	g, err := instrument.ParseRegion(s)
	if err != nil {
		return err
	}
	*r = append(*r, g)
	return nil
}

// maskFlag is an optional 32-bit scope mask (-1 means all ones).
type maskFlag struct{ v *uint32 }

func (m *maskFlag) String() string {
	if m.v == nil {
		return ""
	}
	return fmt.Sprintf("%#x", *m.v)
}

func (m *maskFlag) Set(s string) error {
	if s == "-1" {
		v := uint32(0xffffffff)
		m.v = &v
		return nil
	}
	n, err := strconv.ParseUint(s, 0, 32)
	if err != nil {
		return fmt.Errorf("mask %q: want a 32-bit number (0x.. or decimal) or -1", s)
	}
	v := uint32(n)
	m.v = &v
	return nil
}

// instrumentFlags registers the instrumentation options of `rocjitsu sqtt
// instrument` on fs and returns the function that builds the
// instrument.Options from the parsed flags.
func instrumentFlags(fs *flag.FlagSet) func() (instrument.Options, error) {
	barriers := fs.Bool("barriers", false, "point markers at barriers (s_barrier, s_barrier_signal/wait)")
	functions := fs.String("functions", "", "enter/exit markers for callees above N instructions (or cost:N, weighted)")
	memory := fs.String("memory", "", "vmem_load/vmem_store point markers per N ops with gaps of at most M instructions")
	loops := fs.Bool("loops", false, "make every natural loop a scope (U:loop_ADDR)")
	var regions regionFlags
	fs.Var(&regions, "region", "named scope NAME=START:END over .text addresses (repeatable)")
	var masks [4]maskFlag
	for i, d := range instrument.ScopeDims {
		fs.Var(&masks[i], "scope-"+d, "only waves whose "+d+" id has its bit set in MASK emit markers")
	}
	clockBits := fs.Uint("shader-clock-bits", 0, "gfx12: pack this many shader-clock bits into marker headers")
	clockShift := fs.Uint("shader-clock-shift", 4, "gfx12: source bit of the packed shader-clock window")
	addresses := fs.String("addresses", "", "trace per-lane addresses: memory, lds or memory,lds (W: and R: rows)")
	return func() (instrument.Options, error) {
		var err error
		opt := instrument.Options{Barriers: *barriers, Loops: *loops, Regions: regions,
			ShaderClockBits: uint32(*clockBits), ShaderClockShift: uint32(*clockShift)}
		if *clockBits == 0 {
			opt.ShaderClockShift = 0
		}
		for i := range masks {
			opt.Scope[i] = masks[i].v
		}
		if *functions != "" {
			if opt.Functions, err = instrument.ParseThreshold(*functions); err != nil {
				return opt, err
			}
		}
		if *addresses != "" {
			if opt.Addresses, err = instrument.ParseAddresses(*addresses); err != nil {
				return opt, err
			}
		}
		if *memory != "" {
			if opt.Memory, err = instrument.ParseMemGroup(*memory); err != nil {
				return opt, err
			}
		}
		return opt, err
	}
}

func sqttInstrument(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rocjitsu sqtt instrument", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, sqttInstrumentUsage); fs.PrintDefaults() }
	out := fs.String("o", "", "output code object (required)")
	build := instrumentFlags(fs)
	sites := fs.Bool("sites", false, "list every inserted marker sequence")
	pos, err := sqttParseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 || *out == "" {
		fmt.Fprint(stderr, sqttInstrumentUsage)
		return 2
	}
	opt, err := build()
	if err != nil {
		fmt.Fprintln(stderr, "rocjitsu sqtt instrument:", err)
		return 2
	}
	in, err := os.ReadFile(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, "rocjitsu sqtt instrument:", err)
		return 1
	}
	res, err := instrument.Instrument(in, opt)
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu sqtt instrument: %s: %v\n", pos[0], err)
		return 1
	}
	if err := os.WriteFile(*out, res.Object, 0o644); err != nil {
		fmt.Fprintln(stderr, "rocjitsu sqtt instrument:", err)
		return 1
	}
	for _, n := range res.Notes {
		fmt.Fprintf(stderr, "%s: note: %s\n", pos[0], n)
	}
	if *sites {
		for _, s := range res.Sites {
			where := "before"
			if s.After {
				where = "after"
			}
			fmt.Fprintf(stdout, "%s\t%s %#x\t%d insts\t", s.Kernel, where, s.PC, s.Words)
			for i, v := range s.Values {
				if i > 0 {
					fmt.Fprint(stdout, " ")
				}
				fmt.Fprintf(stdout, "%#x", v)
			}
			fmt.Fprintln(stdout)
		}
	}
	st := res.Stats
	fmt.Fprintf(stdout, "%s: %s, %d sequences, %d markers (%d s_ttracedata_imm), %d instructions added, kernel code %d -> %d bytes\n",
		*out, res.Target, len(res.Sites), st.Markers, st.Imm, st.AddedInsts, st.SourceBytes, st.BodyBytes)
	return 0
}
