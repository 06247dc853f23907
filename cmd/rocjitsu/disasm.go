package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/disasm"
	"github.com/rocjitsu/rocjitsu/dbt/isa/objfile"
)

func init() {
	register(command{
		name:    "disasm",
		summary: "disassemble AMDGPU code objects like llvm-objdump -d (gfx942, gfx950, gfx1200, gfx1201)",
		run:     runDisasm,
	})
}

func runDisasm(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("disasm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	mcpu := fs.String("mcpu", "", "target to decode for (gfx942, gfx950, gfx1200, gfx1201); default: the object's own target (e_flags mach)")
	wave64 := fs.Bool("wave64", false, "decode gfx1200/gfx1201 code as wave64 (like llvm-objdump --mattr=+wavefrontsize64); default wave32, as llvm-objdump-19 -d prints even wave64 kernels")
	stats := fs.Bool("stats", false, "print an instruction histogram instead of the listing (over all FILEs)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: rocjitsu disasm [--mcpu gfxNNN] [--wave64] [--stats] FILE...")
		fs.PrintDefaults()
	}
	// Accept flags after the file names too.
	var files []string
	rest := args
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			if err == flag.ErrHelp {
				return 0
			}
			return 2
		}
		rest = fs.Args()
		if len(rest) > 0 {
			files = append(files, rest[0])
			rest = rest[1:]
		}
	}
	if len(files) == 0 {
		fs.Usage()
		return 2
	}
	var opt disasm.Options
	if *mcpu != "" {
		t, err := isa.ParseTarget(*mcpu)
		if err != nil {
			fmt.Fprintf(stderr, "rocjitsu disasm: %v\n", err)
			return 2
		}
		opt.Target = t
	}
	opt.NoListing = *stats
	opt.Wave64 = *wave64
	total := &disasm.Stats{}
	code := 0
	for _, name := range files {
		f, err := objfile.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "rocjitsu disasm: %v\n", err)
			code = 1
			continue
		}
		st, err := disasm.Write(stdout, f, name, opt)
		if err != nil {
			fmt.Fprintf(stderr, "rocjitsu disasm: %v\n", err)
			code = 1
			continue
		}
		total.Add(st)
	}
	if *stats {
		if err := total.WriteHistogram(stdout); err != nil {
			fmt.Fprintf(stderr, "rocjitsu disasm: %v\n", err)
			return 1
		}
	}
	return code
}
