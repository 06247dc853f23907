// Package fuzzguard bounds the time one fuzz input may take and finds the
// slowest inputs of a fuzz target.
//
// The Go fuzzing engine never times out a single input: a worker stuck in
// an endless loop is stopped silently when -fuzztime ends, and nothing is
// recorded. Run panics from a watchdog goroutine when one input runs longer
// than Hard, which ends the worker process, so go test -fuzz writes that
// input to testdata/fuzz/FuzzXxx as a crasher ("fuzzing process hung or
// terminated unexpectedly") and the run fails.
//
// With ROCJITSU_FUZZ_SLOW=DIR in the environment, Run also writes every
// input that took longer than ROCJITSU_FUZZ_SLOW_MS milliseconds (default
// 10) to DIR/FuzzXxx/, in the corpus file format of go test (copy a file to
// testdata/fuzz/FuzzXxx/ to keep it as a seed). The name starts with the
// time it took in microseconds, so the slowest input sorts last.
package fuzzguard

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Hard is the time one input may run before the worker is stopped. It is
// far above the 10 ms the parsers are held to, so a machine loaded by other
// work does not trip it; it catches hangs and pathological slow paths.
const Hard = 5 * time.Second

// Run calls fn, the body of one fuzz input b, under the watchdog, and
// records b when it was slow (see the package comment).
func Run(t testing.TB, b []byte, fn func()) {
	t.Helper()
	name := t.Name()
	if i := strings.IndexByte(name, '/'); i >= 0 {
		name = name[:i]
	}
	start := time.Now()
	dog := time.AfterFunc(Hard, func() {
		panic(fmt.Sprintf("fuzzguard: %s: one input ran longer than %v (%d bytes): a hang or a pathological slow path", name, Hard, len(b)))
	})
	defer func() {
		dog.Stop()
		recordSlow(name, b, time.Since(start))
	}()
	fn()
}

// recordSlow writes b to $ROCJITSU_FUZZ_SLOW/name/ when it took longer
// than the threshold.
func recordSlow(name string, b []byte, d time.Duration) {
	dir := os.Getenv("ROCJITSU_FUZZ_SLOW")
	if dir == "" {
		return
	}
	ms := 10
	if s := os.Getenv("ROCJITSU_FUZZ_SLOW_MS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 0 {
			ms = n
		}
	}
	if d < time.Duration(ms)*time.Millisecond {
		return
	}
	dir = filepath.Join(dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return // best effort: the fuzz run itself must not fail
	}
	sum := sha256.Sum256(b)
	file := filepath.Join(dir, fmt.Sprintf("%010d-%x", d.Microseconds(), sum[:6]))
	_ = os.WriteFile(file, CorpusFile(b), 0o644)
}

// CorpusFile returns b in go test's fuzz corpus file format (one []byte
// argument).
func CorpusFile(b []byte) []byte {
	return []byte(fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b))
}
