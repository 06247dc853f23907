// Command retarget writes gfx950 copies of gfx942 code objects for the
// test-kernel corpus: e_flags machine 0x4c becomes 0x4f and the metadata
// note's amdhsa.target says gfx950. Usage:
//
//	retarget -o OUTDIR IN.co...
//
// Each IN.co is written to OUTDIR under its base name.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rocjitsu/rocjitsu/internal/kernelcorpus"
)

func main() {
	outDir := flag.String("o", "", "output directory")
	flag.Parse()
	if *outDir == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: retarget -o OUTDIR IN.co...")
		os.Exit(2)
	}
	for _, in := range flag.Args() {
		b, err := os.ReadFile(in)
		if err != nil {
			fmt.Fprintln(os.Stderr, "retarget:", err)
			os.Exit(1)
		}
		out, err := kernelcorpus.RetargetGFX942ToGFX950(b)
		if err != nil {
			fmt.Fprintf(os.Stderr, "retarget: %s: %v\n", in, err)
			os.Exit(1)
		}
		if err := os.WriteFile(filepath.Join(*outDir, filepath.Base(in)), out, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "retarget:", err)
			os.Exit(1)
		}
	}
}
