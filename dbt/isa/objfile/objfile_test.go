package objfile

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

func TestOpenCorpus(t *testing.T) {
	for _, c := range []struct {
		arch string
		want isa.Target
	}{{"gfx942", isa.GFX942}, {"gfx950", isa.GFX950}} {
		dir := projectpath.MustShared(t, "corpus", "aiter", c.arch)
		files, _ := filepath.Glob(filepath.Join(dir, "*.co"))
		if len(files) == 0 {
			t.Fatalf("no %s objects", c.arch)
		}
		for _, p := range files {
			f, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			if f.Target != c.want {
				t.Errorf("%s: target %v want %v", p, f.Target, c.want)
			}
			if len(f.Sections) == 0 || f.Sections[0].Name != ".text" || len(f.Sections[0].Data) == 0 {
				t.Errorf("%s: no .text", p)
			}
			if len(f.Symbols) == 0 {
				t.Errorf("%s: no symbols in .text", p)
			}
		}
	}
	if _, err := Parse([]byte("not an elf"), "x"); err == nil {
		t.Error("garbage parsed")
	}
}

// FuzzParse feeds mutated code objects to Parse: errors are fine, panics
// are not.
func FuzzParse(f *testing.F) {
	// The smallest corpus object keeps the fuzzer fast.
	dir, err := projectpath.Shared("corpus", "aiter", "gfx942")
	if err == nil {
		files, _ := filepath.Glob(filepath.Join(dir, "*.co"))
		var small []byte
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil && (small == nil || len(b) < len(small)) {
				small = b
			}
		}
		if small != nil {
			f.Add(small)
		}
	}
	f.Add([]byte("\x7fELF\x02\x01\x01\x40\x02"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzguard.Run(t, b, func() {
			_, _ = Parse(b, "fuzz")
		})
	})
}

func TestSectionAt(t *testing.T) {
	f := &File{Sections: []Section{
		{Name: ".text", Addr: 0x1000, Data: make([]byte, 0x100)},
		{Name: ".a", Addr: 0x2000, Data: make([]byte, 8)},
		{Name: ".b", Addr: 0x2004, Data: make([]byte, 8)}, // overlaps .a
	}}
	tests := []struct {
		addr uint64
		want string
	}{
		{0xfff, ""}, {0x1000, ".text"}, {0x10ff, ".text"}, {0x1100, ""},
		{0x2000, ".a"}, {0x2004, ".b"}, {0x200b, ".b"}, {0x200c, ""},
	}
	for _, tc := range tests {
		got := ""
		if s := f.SectionAt(tc.addr); s != nil {
			got = s.Name
		}
		if got != tc.want {
			t.Errorf("SectionAt(%#x) = %q, want %q", tc.addr, got, tc.want)
		}
	}
}

// TestOpenInto: OpenInto reads as Open does, into the storage it is given
// when that is large enough (small objects after a large one) and into new
// storage otherwise, and reports a missing file.
func TestOpenInto(t *testing.T) {
	dir := projectpath.MustShared(t, "corpus", "aiter", "gfx942")
	files, _ := filepath.Glob(filepath.Join(dir, "*.co"))
	if len(files) == 0 {
		t.Fatal("no gfx942 objects")
	}
	var buf []byte
	for round := 0; round < 2; round++ {
		for _, p := range files {
			want, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := os.ReadFile(p)
			old := buf
			var got *File
			got, buf, err = OpenInto(p, buf)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf, raw) || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: OpenInto differs from Open", p)
			}
			if len(raw) <= cap(old) && &buf[:1][0] != &old[:1][0] {
				t.Fatalf("%s: OpenInto did not reuse %d bytes of storage for %d", p, cap(old), len(raw))
			}
		}
	}
	if _, _, err := OpenInto(filepath.Join(t.TempDir(), "missing.co"), buf); err == nil {
		t.Fatal("missing file opened")
	}
}
