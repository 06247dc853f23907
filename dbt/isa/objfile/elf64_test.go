package objfile

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/internal/elfcheck"
	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// parseStdlib is the reference for readELF: the same view read through
// debug/elf (what Parse did before it read the headers itself).
func parseStdlib(b []byte) (*File, error) {
	if err := elfcheck.Bounds(b); err != nil {
		return nil, err
	}
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	if f.Machine != EMAMDGPU {
		return nil, elf.ErrNoSymbols
	}
	out := &File{}
	out.Mach = uint32(b[48]) // e_flags & 0xff
	out.Target, _ = isa.TargetFromMach(out.Mach)
	for _, s := range f.Sections {
		if s.Type != elf.SHT_PROGBITS || s.Flags&elf.SHF_EXECINSTR == 0 {
			continue
		}
		if s.Offset > uint64(len(b)) || s.Size > uint64(len(b))-s.Offset {
			return nil, elf.ErrNoSymbols
		}
		out.Sections = append(out.Sections, Section{Name: s.Name, Addr: s.Addr, Data: b[s.Offset : s.Offset+s.Size : s.Offset+s.Size]})
	}
	syms, err := f.Symbols()
	if err != nil && err != elf.ErrNoSymbols {
		return nil, err
	}
	for _, s := range syms {
		t := elf.ST_TYPE(s.Info)
		if s.Name == "" || t == elf.STT_SECTION || t == elf.STT_FILE || s.Section == elf.SHN_UNDEF || s.Section >= elf.SHN_LORESERVE {
			continue
		}
		if int(s.Section) >= len(f.Sections) || f.Sections[s.Section].Flags&elf.SHF_EXECINSTR == 0 {
			continue
		}
		out.Symbols = append(out.Symbols, Symbol{Name: s.Name, Addr: s.Value, Size: s.Size, Func: t == elf.STT_FUNC})
	}
	sort.SliceStable(out.Symbols, func(i, j int) bool { return out.Symbols[i].Addr < out.Symbols[j].Addr })
	return out, nil
}

// codeObjects returns the paths of the corpus's and the test kernels'
// code objects, every target.
func codeObjects(t testing.TB) []string {
	var files []string
	for _, arch := range []string{"gfx942", "gfx950"} {
		g, _ := filepath.Glob(filepath.Join(projectpath.MustShared(t, "corpus", "aiter", arch), "*.co"))
		files = append(files, g...)
	}
	g, _ := filepath.Glob(filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "*", "*.co"))
	files = append(files, g...)
	if len(files) < 100 {
		t.Fatalf("only %d code objects", len(files))
	}
	return files
}

// TestReadELFMatchesDebugELF: on every code object of the project, Parse
// reads the sections and symbols debug/elf reads.
func TestReadELFMatchesDebugELF(t *testing.T) {
	for _, p := range codeObjects(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := parseStdlib(b)
		if err != nil {
			t.Fatalf("%s: debug/elf: %v", p, err)
		}
		got, err := Parse(b, p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: Parse differs from debug/elf:\n got %d sections, %d symbols\nwant %d sections, %d symbols", p, len(got.Sections), len(got.Symbols), len(want.Sections), len(want.Symbols))
		}
	}
}

// TestReadELFErrors: truncated and bogus headers are rejected with an
// error naming the field, never read past the file.
func TestReadELFErrors(t *testing.T) {
	dir := projectpath.MustShared(t, "corpus", "aiter", "gfx942")
	files, _ := filepath.Glob(filepath.Join(dir, "*.co"))
	if len(files) == 0 {
		t.Fatal("no gfx942 objects")
	}
	good, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	le := func(b []byte, off int, v uint64, n int) {
		for i := 0; i < n; i++ {
			b[off+i] = byte(v >> (8 * i))
		}
	}
	shoff := int(uint64(good[40]) | uint64(good[41])<<8 | uint64(good[42])<<16 | uint64(good[43])<<24)
	ef, err := elf.NewFile(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	text := -1 // the header offset of .text
	for i, s := range ef.Sections {
		if s.Name == ".text" {
			text = shoff + i*shdrSize
		}
	}
	if text < 0 {
		t.Fatal("no .text")
	}
	for _, c := range []struct {
		name string
		edit func(b []byte) []byte
		want string
	}{
		{"machine", func(b []byte) []byte { le(b, offMachine, 62, 2); return b }, "e_machine 62"},
		{"shentsize", func(b []byte) []byte { le(b, offShentsize, 32, 2); return b }, "e_shentsize"},
		{"shstrndx", func(b []byte) []byte { le(b, offShstrndx, 0xfff0, 2); return b }, "e_shstrndx"},
		{"section past end", func(b []byte) []byte { le(b, text+shSize, 1<<40, 8); return b }, "extends past the end"},
		{"section name", func(b []byte) []byte { le(b, text+shName, 0xfffffff, 4); return b }, "sh_name"},
		{"truncated", func(b []byte) []byte { return b[:shoff+10] }, "section header"},
	} {
		b := c.edit(bytes.Clone(good))
		_, err := readELF(b)
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.want)) {
			t.Errorf("%s: readELF error %v, want one naming %q", c.name, err, c.want)
		}
	}
}

// FuzzReadELF feeds mutated code objects to Parse and to the debug/elf
// reference: no panics, and when both accept an input they read the same
// sections and symbols.
func FuzzReadELF(f *testing.F) {
	files := codeObjects(f)
	sort.Slice(files, func(i, j int) bool {
		a, _ := os.Stat(files[i])
		b, _ := os.Stat(files[j])
		return a.Size() < b.Size()
	})
	for _, p := range files[:3] {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("\x7fELF\x02\x01\x01\x40\x02"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzguard.Run(t, b, func() {
			got, err := Parse(b, "fuzz")
			want, werr := parseStdlib(b)
			if err == nil && werr == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("Parse and debug/elf differ on an input both accept")
			}
		})
	})
}
