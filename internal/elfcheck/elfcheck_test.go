package elfcheck

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// corpus returns the test kernels' objects.
func corpus(t *testing.T) [][]byte {
	files, _ := filepath.Glob(filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "*", "*.co"))
	if len(files) == 0 {
		t.Fatal("no test kernels")
	}
	var out [][]byte
	for _, p := range files[:min(len(files), 20)] {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// TestBoundsAcceptsCorpus checks that real code objects pass.
func TestBoundsAcceptsCorpus(t *testing.T) {
	for _, b := range corpus(t) {
		if err := Bounds(b); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBoundsRejects checks each field that reaches past the end, and that
// debug/elf accepts what passes.
func TestBoundsRejects(t *testing.T) {
	good := corpus(t)[0]
	f, err := elf.NewFile(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	shoff := binary.LittleEndian.Uint64(good[offShoff:])
	textIdx := -1
	for i, s := range f.Sections {
		if s.Type == elf.SHT_PROGBITS {
			textIdx = i
			break
		}
	}
	cases := map[string]func(b []byte){
		"short":       func(b []byte) { copy(b, make([]byte, 64)) },
		"class":       func(b []byte) { b[4] = 1 },
		"phnum":       func(b []byte) { binary.LittleEndian.PutUint16(b[offPhnum:], 0xffff) },
		"phoff":       func(b []byte) { binary.LittleEndian.PutUint64(b[offPhoff:], 1<<40) },
		"shnum":       func(b []byte) { binary.LittleEndian.PutUint16(b[offShnum:], 0xffff) },
		"shentsize":   func(b []byte) { binary.LittleEndian.PutUint16(b[offShentsize:], 8) },
		"section":     func(b []byte) { binary.LittleEndian.PutUint64(b[shoff+uint64(textIdx)*shdrSize+shSize:], 10<<20) },
		"section off": func(b []byte) { binary.LittleEndian.PutUint64(b[shoff+uint64(textIdx)*shdrSize+shOffset:], 1<<62) },
		"nobits strtab": func(b []byte) {
			for _, sec := range f.Sections {
				if sec.Type == elf.SHT_SYMTAB {
					h := shoff + uint64(sec.Link)*shdrSize
					binary.LittleEndian.PutUint32(b[h+shType:], uint32(elf.SHT_NOBITS))
					binary.LittleEndian.PutUint64(b[h+shSize:], 1<<40)
					return
				}
			}
			t.Fatal("no symbol table")
		},
		"nobits shstrtab": func(b []byte) {
			h := shoff + uint64(binary.LittleEndian.Uint16(b[offShstrndx:]))*shdrSize
			binary.LittleEndian.PutUint32(b[h+shType:], uint32(elf.SHT_NOBITS))
			binary.LittleEndian.PutUint64(b[h+shSize:], 1<<40)
		},
		"compressed": func(b []byte) {
			binary.LittleEndian.PutUint64(b[shoff+uint64(textIdx)*shdrSize+shFlags:], 0x800)
		},
		"extended": func(b []byte) {
			binary.LittleEndian.PutUint16(b[offShnum:], 0)
			binary.LittleEndian.PutUint64(b[shoff+shSize:], 1<<50)
		},
	}
	for name, edit := range cases {
		b := bytes.Clone(good)
		edit(b)
		if err := Bounds(b); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// FuzzBounds checks that whatever Bounds accepts, debug/elf reads without
// running past the file: every section with contents reads back whole.
func FuzzBounds(f *testing.F) {
	f.Add([]byte("\x7fELF\x02\x01\x01\x40"))
	b, err := os.ReadFile(filepath.Join(projectpath.MustRoot(f), "testdata", "kernels", "gfx942", "saxpy.co"))
	if err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzguard.Run(t, b, func() {
			if Bounds(b) != nil {
				return
			}
			ef, err := elf.NewFile(bytes.NewReader(b))
			if err != nil {
				return
			}
			for i, s := range ef.Sections {
				if s.Type == elf.SHT_NOBITS || s.Type == elf.SHT_NULL || s.Flags&elf.SHF_COMPRESSED != 0 {
					continue
				}
				if d, err := s.Data(); err != nil || uint64(len(d)) != s.Size {
					t.Fatalf("section %d (offset %#x, size %#x) accepted but reads %d bytes: %v", i, s.Offset, s.Size, len(d), err)
				}
			}
			_, _ = ef.Symbols() // the string table is bounded too (fuzzguard times it)
		})
	})
}
