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
	RunArgs(t, []any{b}, fn)
}

// RunArgs is Run for a fuzz target with other arguments than one []byte;
// args are the target's arguments in order, as the corpus file lists them.
func RunArgs(t testing.TB, args []any, fn func()) {
	t.Helper()
	name := t.Name()
	if i := strings.IndexByte(name, '/'); i >= 0 {
		name = name[:i]
	}
	start := time.Now()
	dog := time.AfterFunc(Hard, func() {
		panic(fmt.Sprintf("fuzzguard: %s: one input ran longer than %v: a hang or a pathological slow path; input:\n%s", name, Hard, CorpusFile(args...)))
	})
	defer func() {
		dog.Stop()
		recordSlow(name, args, time.Since(start))
	}()
	fn()
}

// recordSlow writes args to $ROCJITSU_FUZZ_SLOW/name/ when they took
// longer than the threshold.
func recordSlow(name string, args []any, d time.Duration) {
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
	data := CorpusFile(args...)
	sum := sha256.Sum256(data)
	file := filepath.Join(dir, fmt.Sprintf("%010d-%x", d.Microseconds(), sum[:6]))
	_ = os.WriteFile(file, data, 0o644)
}

// CorpusFile returns args in go test's fuzz corpus file format, one line
// per argument ([]byte, string, bool and the integer and float types).
func CorpusFile(args ...any) []byte {
	var b strings.Builder
	b.WriteString("go test fuzz v1\n")
	for _, a := range args {
		switch v := a.(type) {
		case []byte:
			fmt.Fprintf(&b, "[]byte(%q)\n", v)
		case string:
			fmt.Fprintf(&b, "string(%q)\n", v)
		default:
			fmt.Fprintf(&b, "%T(%v)\n", v, v)
		}
	}
	return []byte(b.String())
}
