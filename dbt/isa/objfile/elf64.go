package objfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// ELF64 layout: header and section-header field offsets, sizes and the
// constants readELF uses.
const (
	ehdrSize     = 64
	offMachine   = 18
	offFlags     = 48
	offShoff     = 40
	offShentsize = 58
	offShnum     = 60
	offShstrndx  = 62

	shdrSize  = 64
	shName    = 0
	shType    = 4
	shFlags   = 8
	shAddr    = 16
	shOffset  = 24
	shSize    = 32
	shLink    = 40
	shEntsize = 56
	symSize   = 24

	shtNull      = 0
	shtProgbits  = 1
	shtSymtab    = 2
	shtNobits    = 8
	shfExec      = 0x4
	shfCompress  = 0x800
	shnUndef     = 0
	shnLoreserve = 0xff00
	sttFunc      = 2
	sttSection   = 3
	sttFile      = 4
)

// section is what readELF keeps of a section header.
type section struct {
	name         uint32
	typ          uint32
	flags, addr  uint64
	offset, size uint64
	link         uint32
}

// errTruncated reports a field at off that does not fit in the n-byte
// file.
func errTruncated(field string, off, size, n uint64) error {
	return fmt.Errorf("%s at offset %#x (%d bytes) extends past the end of the %d-byte file", field, off, size, n)
}

// cstring returns the NUL-terminated string at off in tab, or false when
// off is past tab or the string has no terminator in it.
func cstring(tab []byte, off uint32) (string, bool) {
	if uint64(off) >= uint64(len(tab)) {
		return "", false
	}
	t := tab[off:]
	for i, c := range t {
		if c == 0 {
			return string(t[:i]), true
		}
	}
	return "", false
}

// readELF reads the disassembly view of the little-endian ELF64 file b:
// the executable PROGBITS sections (their Data sharing b) and the named
// symbols of those sections, from the first SHT_SYMTAB section. Errors
// name the field and its file offset.
func readELF(b []byte) (*File, error) {
	n := uint64(len(b))
	le := binary.LittleEndian
	if n < ehdrSize || string(b[:4]) != "\x7fELF" {
		return nil, errors.New("not an ELF file")
	}
	if b[4] != 2 {
		return nil, fmt.Errorf("not a 64-bit ELF file (EI_CLASS %d at offset 0x4)", b[4])
	}
	if b[5] != 1 {
		return nil, fmt.Errorf("not a little-endian ELF file (EI_DATA %d at offset 0x5)", b[5])
	}
	if m := le.Uint16(b[offMachine:]); m != EMAMDGPU {
		return nil, fmt.Errorf("e_machine %d is not AMDGPU (224)", m)
	}
	out := &File{}
	out.Mach = le.Uint32(b[offFlags:]) & 0xff
	out.Target, _ = isa.TargetFromMach(out.Mach)

	shoff := le.Uint64(b[offShoff:])
	shentsize := uint64(le.Uint16(b[offShentsize:]))
	shnum := uint64(le.Uint16(b[offShnum:]))
	if shoff == 0 {
		return out, nil
	}
	if shentsize < shdrSize {
		return nil, fmt.Errorf("e_shentsize %d at offset %#x is below %d", shentsize, offShentsize, shdrSize)
	}
	if shoff > n || n-shoff < shentsize {
		return nil, errTruncated("section header 0 (e_shoff)", shoff, shentsize, n)
	}
	if shnum == 0 {
		// Extended numbering: section 0's sh_size holds the count.
		shnum = le.Uint64(b[shoff+shSize:])
	}
	if shnum > (n-shoff)/shentsize {
		return nil, fmt.Errorf("section header table at offset %#x (%d entries of %d bytes, e_shnum) extends past the end of the %d-byte file", shoff, shnum, shentsize, n)
	}
	if shnum == 0 {
		return out, nil
	}
	secs := make([]section, shnum)
	for i := range secs {
		h := b[shoff+uint64(i)*shentsize:]
		s := &secs[i]
		s.name, s.typ = le.Uint32(h[shName:]), le.Uint32(h[shType:])
		s.flags, s.addr = le.Uint64(h[shFlags:]), le.Uint64(h[shAddr:])
		s.offset, s.size = le.Uint64(h[shOffset:]), le.Uint64(h[shSize:])
		s.link = le.Uint32(h[shLink:])
		if s.typ == shtNobits || s.typ == shtNull {
			continue
		}
		if s.flags&shfCompress != 0 {
			return nil, fmt.Errorf("section %d is compressed (sh_flags at offset %#x); code objects are not", i, shoff+uint64(i)*shentsize+shFlags)
		}
		if s.offset > n || s.size > n-s.offset {
			return nil, fmt.Errorf("section %d (sh_offset %#x, sh_size %#x, header at offset %#x) extends past the end of the file (%#x bytes)", i, s.offset, s.size, shoff+uint64(i)*shentsize, n)
		}
	}
	data := func(s *section) []byte {
		if s.typ == shtNobits || s.typ == shtNull {
			return nil
		}
		return b[s.offset : s.offset+s.size : s.offset+s.size]
	}
	shstrndx := uint64(le.Uint16(b[offShstrndx:]))
	if shstrndx == 0xffff {
		shstrndx = uint64(secs[0].link)
	}
	var shstr []byte
	if shstrndx != 0 {
		if shstrndx >= shnum {
			return nil, fmt.Errorf("e_shstrndx %d at offset %#x names no section (%d sections)", shstrndx, offShstrndx, shnum)
		}
		shstr = data(&secs[shstrndx])
	}
	var symtab *section
	for i := range secs {
		s := &secs[i]
		if symtab == nil && s.typ == shtSymtab {
			symtab = s
		}
		if s.typ != shtProgbits || s.flags&shfExec == 0 {
			continue
		}
		name, ok := cstring(shstr, s.name)
		if !ok && shstrndx != 0 {
			return nil, fmt.Errorf("section %d: sh_name %#x is not a name in the section-name table (section %d, %d bytes)", i, s.name, shstrndx, len(shstr))
		}
		out.Sections = append(out.Sections, Section{Name: name, Addr: s.addr, Data: data(s)})
	}
	if symtab == nil {
		return out, nil
	}
	syms := data(symtab)
	if len(syms)%symSize != 0 {
		return nil, fmt.Errorf("symbol table (sh_size %#x) is not a whole number of %d-byte symbols", len(syms), symSize)
	}
	if len(syms) == 0 {
		return out, nil
	}
	if symtab.link == 0 || uint64(symtab.link) >= shnum {
		return nil, fmt.Errorf("symbol table: sh_link %d names no string table (%d sections)", symtab.link, shnum)
	}
	strsec := &secs[symtab.link]
	strtab := data(strsec)
	if strsec.typ == shtNull {
		// A string table of type SHT_NULL is still read from the file
		// (as debug/elf does); its bounds were not checked above.
		if strsec.offset > n || strsec.size > n-strsec.offset {
			return nil, fmt.Errorf("symbol string table (section %d, sh_offset %#x, sh_size %#x) extends past the end of the file (%#x bytes)", symtab.link, strsec.offset, strsec.size, n)
		}
		strtab = b[strsec.offset : strsec.offset+strsec.size]
	}
	// Symbol 0 is the null symbol.
	for off := symSize; off < len(syms); off += symSize {
		s := syms[off : off+symSize]
		typ := s[4] & 0xf
		shndx := uint64(le.Uint16(s[6:]))
		if typ == sttSection || typ == sttFile || shndx == shnUndef || shndx >= shnLoreserve {
			continue
		}
		if shndx >= shnum || secs[shndx].flags&shfExec == 0 {
			continue
		}
		name, _ := cstring(strtab, le.Uint32(s[0:]))
		if name == "" {
			continue
		}
		out.Symbols = append(out.Symbols, Symbol{Name: name, Addr: le.Uint64(s[8:]), Size: le.Uint64(s[16:]), Func: typ == sttFunc})
	}
	sort.SliceStable(out.Symbols, func(i, j int) bool { return out.Symbols[i].Addr < out.Symbols[j].Addr })
	return out, nil
}
