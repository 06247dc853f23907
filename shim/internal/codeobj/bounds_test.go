package codeobj

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

func corpusObjects(t testing.TB) [][]byte {
	root, err := projectpath.Root()
	if err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(root, "testdata/kernels/gfx942/*.co"))
	if len(paths) < 10 {
		t.Fatalf("only %d test kernels found", len(paths))
	}
	var out [][]byte
	for _, p := range paths[:10] {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func TestCheckBounds(t *testing.T) {
	for _, b := range corpusObjects(t) {
		if err := CheckBounds(b); err != nil {
			t.Fatalf("a valid object fails: %v", err)
		}
		// Every truncation of a real object is caught.
		for _, n := range []int{0, 40, 64, len(b) / 2, len(b) - 1} {
			if err := CheckBounds(b[:n]); err == nil {
				t.Errorf("truncated to %d of %d bytes: accepted", n, len(b))
			}
		}
	}
	b := corpusObjects(t)[0]
	c := append([]byte(nil), b...)
	c[0] = 'X'
	if err := CheckBounds(c); err == nil || !strings.Contains(err.Error(), "not a little-endian ELF64") {
		t.Errorf("bad magic: %v", err)
	}
}

func FuzzCheckBounds(f *testing.F) {
	for _, b := range corpusObjects(f)[:3] {
		f.Add(b)
		f.Add(b[:len(b)/3])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzguard.Run(t, b, func() {
			if CheckBounds(b) != nil {
				return
			}
			// Accepted images must let Parse run without reading out of
			// range (Parse has its own errors).
			_, _ = Parse(b)
		})
	})
}
