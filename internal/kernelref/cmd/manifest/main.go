// Command manifest writes testdata/kernels/kernels.json from
// kernelref.Cases (run by 'go generate ./internal/kernelref'). Usage:
//
//	manifest -o PATH
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/rocjitsu/rocjitsu/internal/kernelref"
)

func main() {
	out := flag.String("o", "", "output file")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "usage: manifest -o PATH")
		os.Exit(2)
	}
	if err := os.WriteFile(*out, kernelref.Manifest(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "manifest:", err)
		os.Exit(1)
	}
}
