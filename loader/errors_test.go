package loader

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// TestMalformedInputErrors damages one field of a real object at a time
// and checks that Parse names the offset and the field.
func TestMalformedInputErrors(t *testing.T) {
	path := corpusFiles(t)[0]
	good := readFile(t, path)
	f, err := Parse(good)
	if err != nil {
		t.Fatal(err)
	}
	shdr := func(i int) int { return int(f.Header.Shoff) + i*shdrSize }
	text := f.SectionIndex(".text")
	symtab := -1
	for i, s := range f.Sections {
		if s.Type == SHT_SYMTAB {
			symtab = i
		}
	}
	note := f.MetadataNote
	noteOff := int(f.Sections[note.Section].Offset + note.Offset)
	for _, tc := range []struct {
		name  string
		edit  func(b []byte) []byte
		off   uint64
		field string
	}{
		{"truncated", func(b []byte) []byte { return b[:40] }, 0, "ELF header"},
		{"magic", func(b []byte) []byte { b[1] = 'X'; return b }, 0, "EI_MAG"},
		{"class", func(b []byte) []byte { b[4] = 1; return b }, 4, "EI_CLASS"},
		{"osabi", func(b []byte) []byte { b[7] = 0; return b }, 7, "EI_OSABI"},
		{"abi version", func(b []byte) []byte { b[8] = 1; return b }, 8, "EI_ABIVERSION"},
		{"machine", func(b []byte) []byte { b[18] = 62; return b }, 18, "e_machine"},
		{"shoff", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[40:], 1<<40); return b }, 40, "e_shoff"},
		{"phoff", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[32:], uint64(len(b))); return b }, 32, "e_phoff"},
		{"shstrndx", func(b []byte) []byte { binary.LittleEndian.PutUint16(b[62:], 500); return b }, 62, "e_shstrndx"},
		{"text size", func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[shdr(text)+32:], 1<<30)
			return b
		}, uint64(shdr(text) + 24), "sh_offset/sh_size"},
		{"symtab entsize", func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[shdr(symtab)+56:], 16)
			return b
		}, uint64(shdr(symtab) + 56), "sh_entsize"},
		{"note descsz", func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[noteOff+4:], 1<<30)
			return b
		}, uint64(noteOff + 4), "n_descsz"},
		{"metadata", func(b []byte) []byte {
			b[noteOff+20] = 0xc1
			return b
		}, uint64(noteOff + 20), "NT_AMDGPU_METADATA"},
	} {
		b := tc.edit(append([]byte(nil), good...))
		_, err := Parse(b)
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: error %v is not a *FormatError", tc.name, err)
			continue
		}
		if fe.Off != tc.off || !strings.Contains(fe.Field, tc.field) {
			t.Errorf("%s: %v; want offset 0x%x and field %q", tc.name, err, tc.off, tc.field)
		}
	}
}
