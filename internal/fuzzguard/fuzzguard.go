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
// 10) to DIR/PKG/FuzzXxx/ (PKG relative to the module root), in the corpus
// file format of go test: copy a file to PKG/testdata/fuzz/FuzzXxx/ to keep
// it as a seed. The name starts with the time it took in microseconds, so
// the slowest input sorts last. Times taken on a loaded machine are noisy:
// ReadCorpusFile and a benchmark re-time an input alone.
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
		in := CorpusFile(args...)
		if len(in) > 512 {
			in = append(in[:512:512], "..."...)
		}
		panic(fmt.Sprintf("fuzzguard: %s: one input ran longer than %v: a hang or a pathological slow path; input (go test -fuzz writes it to testdata/fuzz):\n%s", name, Hard, in))
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
	dir = filepath.Join(dir, packageDir(), name)
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

// packageDir returns the test's package directory (its working directory)
// relative to the module root, or "." when that cannot be found.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			if rel, err := filepath.Rel(d, wd); err == nil {
				return rel
			}
			return "."
		}
		if filepath.Dir(d) == d {
			return "."
		}
	}
}

// ReadCorpusFile parses a corpus file of go test (as CorpusFile writes it)
// into its arguments: []byte, string, bool, the sized integer types, int
// and uint.
func ReadCorpusFile(data []byte) ([]any, error) {
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) == 0 || lines[0] != "go test fuzz v1" {
		return nil, fmt.Errorf("fuzzguard: corpus file does not start with %q", "go test fuzz v1")
	}
	var args []any
	for i, l := range lines[1:] {
		open := strings.IndexByte(l, '(')
		if open < 0 || !strings.HasSuffix(l, ")") {
			return nil, fmt.Errorf("fuzzguard: corpus line %d: %q is not type(value)", i+2, l)
		}
		typ, val := l[:open], l[open+1:len(l)-1]
		a, err := parseValue(typ, val)
		if err != nil {
			return nil, fmt.Errorf("fuzzguard: corpus line %d: %w", i+2, err)
		}
		args = append(args, a)
	}
	return args, nil
}

// charValue returns the value of a Go character literal ('w', '\x00',
// '\u00e9').
func charValue(lit string) (rune, error) {
	if len(lit) < 3 || lit[len(lit)-1] != '\'' {
		return 0, fmt.Errorf("not a character literal")
	}
	v, _, tail, err := strconv.UnquoteChar(lit[1:len(lit)-1], '\'')
	if err != nil {
		return 0, err
	}
	if tail != "" {
		return 0, fmt.Errorf("more than one character")
	}
	return v, nil
}

// parseValue converts one corpus value of type typ.
func parseValue(typ, val string) (any, error) {
	switch typ {
	case "[]byte", "string":
		s, err := strconv.Unquote(val)
		if err != nil {
			return nil, fmt.Errorf("%s value %s: %w", typ, val, err)
		}
		if typ == "string" {
			return s, nil
		}
		return []byte(s), nil
	case "bool":
		return strconv.ParseBool(val)
	}
	bits := map[string]int{"int8": 8, "int16": 16, "int32": 32, "rune": 32, "int64": 64, "int": 64,
		"uint8": 8, "byte": 8, "uint16": 16, "uint32": 32, "uint64": 64, "uint": 64}[typ]
	if bits == 0 {
		return nil, fmt.Errorf("type %s is not supported", typ)
	}
	if typ == "rune" {
		typ = "int32"
	}
	if strings.HasPrefix(val, "'") {
		// go test writes byte and rune values as character literals.
		n, err := charValue(val)
		if err != nil {
			return nil, fmt.Errorf("%s value %s: %w", typ, val, err)
		}
		val = strconv.FormatInt(int64(n), 10)
	}
	if strings.HasPrefix(typ, "int") {
		n, err := strconv.ParseInt(val, 0, bits)
		if err != nil {
			return nil, fmt.Errorf("%s value %s: %w", typ, val, err)
		}
		switch typ {
		case "int8":
			return int8(n), nil
		case "int16":
			return int16(n), nil
		case "int32":
			return int32(n), nil
		case "int64":
			return n, nil
		}
		return int(n), nil
	}
	n, err := strconv.ParseUint(val, 0, bits)
	if err != nil {
		return nil, fmt.Errorf("%s value %s: %w", typ, val, err)
	}
	switch typ {
	case "uint8", "byte":
		return uint8(n), nil
	case "uint16":
		return uint16(n), nil
	case "uint32":
		return uint32(n), nil
	case "uint64":
		return n, nil
	}
	return uint(n), nil
}
