package main

import (
	"os"
	"runtime/debug"
)

// gcPercent is the collector target the translate and disasm commands run
// with: their live heaps are small (tens of MB) and short-lived, so fewer
// collections trade a little memory for CPU time.
const gcPercent = 400

// lessGC raises the GC target for a command's duration (unless GOGC is set)
// and returns the function that restores it: defer lessGC()().
func lessGC() func() {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	old := debug.SetGCPercent(gcPercent)
	return func() { debug.SetGCPercent(old) }
}
