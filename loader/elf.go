package loader

import (
	"encoding/binary"
	"fmt"
)

// ELF constants used by AMDGPU code objects (System V ABI and AMDGPU ELF
// names).
const (
	ELFCLASS64  = 2
	ELFDATA2LSB = 1
	EV_CURRENT  = 1

	ET_REL = 1
	ET_DYN = 3

	SHT_NULL     = 0
	SHT_PROGBITS = 1
	SHT_SYMTAB   = 2
	SHT_STRTAB   = 3
	SHT_RELA     = 4
	SHT_HASH     = 5
	SHT_DYNAMIC  = 6
	SHT_NOTE     = 7
	SHT_NOBITS   = 8
	SHT_REL      = 9
	SHT_DYNSYM   = 11
	SHT_GNU_HASH = 0x6ffffff6

	SHF_WRITE     = 0x1
	SHF_ALLOC     = 0x2
	SHF_EXECINSTR = 0x4
	SHF_MERGE     = 0x10
	SHF_STRINGS   = 0x20

	PT_NULL        = 0
	PT_LOAD        = 1
	PT_DYNAMIC     = 2
	PT_NOTE        = 4
	PT_PHDR        = 6
	PT_GNU_STACK   = 0x6474e551
	PT_GNU_RELRO   = 0x6474e552
	PF_X           = 1
	PF_W           = 2
	PF_R           = 4
	STB_LOCAL      = 0
	STB_GLOBAL     = 1
	STB_WEAK       = 2
	STT_NOTYPE     = 0
	STT_OBJECT     = 1
	STT_FUNC       = 2
	STT_SECTION    = 3
	STV_DEFAULT    = 0
	STV_HIDDEN     = 2
	STV_PROTECTED  = 3
	SHN_UNDEF      = 0
	SHN_LORESERVE  = 0xff00
	SHN_ABS        = 0xfff1
	SHN_COMMON     = 0xfff2
	DT_NULL        = 0
	DT_NEEDED      = 1
	DT_PLTRELSZ    = 2
	DT_PLTGOT      = 3
	DT_HASH        = 4
	DT_STRTAB      = 5
	DT_SYMTAB      = 6
	DT_RELA        = 7
	DT_RELASZ      = 8
	DT_RELAENT     = 9
	DT_STRSZ       = 10
	DT_SYMENT      = 11
	DT_INIT        = 12
	DT_FINI        = 13
	DT_SONAME      = 14
	DT_REL         = 17
	DT_RELSZ       = 18
	DT_RELENT      = 19
	DT_JMPREL      = 23
	DT_INIT_ARRAY  = 25
	DT_FINI_ARRAY  = 26
	DT_RELACOUNT   = 0x6ffffff9
	DT_RELCOUNT    = 0x6ffffffa
	DT_GNU_HASH    = 0x6ffffef5
	DT_VERSYM      = 0x6ffffff0
	DT_VERDEF      = 0x6ffffffc
	DT_VERNEED     = 0x6ffffffe
	R_AMDGPU_ABS64 = 3
	R_AMDGPU_REL64 = 5
	// R_AMDGPU_RELATIVE64 is the load-address-relative relocation.
	R_AMDGPU_RELATIVE64 = 13

	ehdrSize = 64
	phdrSize = 56
	shdrSize = 64
	symSize  = 24
	dynSize  = 16
	relaSize = 24
	relSize  = 16
)

// NT_AMDGPU_METADATA is the note type of the MessagePack metadata note.
const NT_AMDGPU_METADATA = 32

var le = binary.LittleEndian

// FormatError is returned for malformed input. It names the byte offset in
// the file and the field that is wrong.
type FormatError struct {
	// Off is the file offset of the bad field.
	Off uint64
	// Field names the field ("e_shoff", "section 3 (.text) sh_offset").
	Field string
	// Msg says what is wrong.
	Msg string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("loader: offset 0x%x: %s: %s", e.Off, e.Field, e.Msg)
}

func formatErr(off uint64, field, format string, args ...any) error {
	return &FormatError{Off: off, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Header is the ELF file header.
type Header struct {
	// Ident is e_ident: magic, class, data, version, OS ABI, ABI version.
	Ident     [16]byte
	Type      uint16
	Machine   uint16
	Version   uint32
	Entry     uint64
	Phoff     uint64
	Shoff     uint64
	Flags     uint32
	Ehsize    uint16
	Phentsize uint16
	Phnum     uint16
	Shentsize uint16
	Shnum     uint16
	Shstrndx  uint16
}

// OSABI returns e_ident[EI_OSABI].
func (h *Header) OSABI() uint8 { return h.Ident[7] }

// ABIVersion returns e_ident[EI_ABIVERSION].
func (h *Header) ABIVersion() uint8 { return h.Ident[8] }

// CodeObjectVersion returns the AMDHSA code object version (4, 5 or 6)
// the ABI version stands for.
func (h *Header) CodeObjectVersion() int { return int(h.Ident[8]) + 2 }

func decodeHeader(b []byte) Header {
	var h Header
	copy(h.Ident[:], b[:16])
	h.Type = le.Uint16(b[16:])
	h.Machine = le.Uint16(b[18:])
	h.Version = le.Uint32(b[20:])
	h.Entry = le.Uint64(b[24:])
	h.Phoff = le.Uint64(b[32:])
	h.Shoff = le.Uint64(b[40:])
	h.Flags = le.Uint32(b[48:])
	h.Ehsize = le.Uint16(b[52:])
	h.Phentsize = le.Uint16(b[54:])
	h.Phnum = le.Uint16(b[56:])
	h.Shentsize = le.Uint16(b[58:])
	h.Shnum = le.Uint16(b[60:])
	h.Shstrndx = le.Uint16(b[62:])
	return h
}

func (h *Header) encode(b []byte) {
	copy(b[:16], h.Ident[:])
	le.PutUint16(b[16:], h.Type)
	le.PutUint16(b[18:], h.Machine)
	le.PutUint32(b[20:], h.Version)
	le.PutUint64(b[24:], h.Entry)
	le.PutUint64(b[32:], h.Phoff)
	le.PutUint64(b[40:], h.Shoff)
	le.PutUint32(b[48:], h.Flags)
	le.PutUint16(b[52:], h.Ehsize)
	le.PutUint16(b[54:], h.Phentsize)
	le.PutUint16(b[56:], h.Phnum)
	le.PutUint16(b[58:], h.Shentsize)
	le.PutUint16(b[60:], h.Shnum)
	le.PutUint16(b[62:], h.Shstrndx)
}

// Section is one section header and its contents.
type Section struct {
	// Name is the section name from .shstrtab; NameOff is sh_name.
	Name    string
	NameOff uint32
	Type    uint32
	Flags   uint64
	Addr    uint64
	Offset  uint64
	Size    uint64
	Link    uint32
	Info    uint32
	Align   uint64
	Entsize uint64
	// Data is the section's bytes in the file (nil for SHT_NOBITS). It
	// aliases the File's image: copy before changing it.
	Data []byte
}

// Alloc reports whether the section occupies memory at run time.
func (s *Section) Alloc() bool { return s.Flags&SHF_ALLOC != 0 }

// FileSize is the number of file bytes the section occupies (0 for NOBITS).
func (s *Section) FileSize() uint64 {
	if s.Type == SHT_NOBITS {
		return 0
	}
	return s.Size
}

func decodeSection(b []byte) Section {
	return Section{
		NameOff: le.Uint32(b[0:]),
		Type:    le.Uint32(b[4:]),
		Flags:   le.Uint64(b[8:]),
		Addr:    le.Uint64(b[16:]),
		Offset:  le.Uint64(b[24:]),
		Size:    le.Uint64(b[32:]),
		Link:    le.Uint32(b[40:]),
		Info:    le.Uint32(b[44:]),
		Align:   le.Uint64(b[48:]),
		Entsize: le.Uint64(b[56:]),
	}
}

func (s *Section) encode(b []byte) {
	le.PutUint32(b[0:], s.NameOff)
	le.PutUint32(b[4:], s.Type)
	le.PutUint64(b[8:], s.Flags)
	le.PutUint64(b[16:], s.Addr)
	le.PutUint64(b[24:], s.Offset)
	le.PutUint64(b[32:], s.Size)
	le.PutUint32(b[40:], s.Link)
	le.PutUint32(b[44:], s.Info)
	le.PutUint64(b[48:], s.Align)
	le.PutUint64(b[56:], s.Entsize)
}

// Segment is one program header.
type Segment struct {
	Type   uint32
	Flags  uint32
	Offset uint64
	Vaddr  uint64
	Paddr  uint64
	Filesz uint64
	Memsz  uint64
	Align  uint64
}

func decodeSegment(b []byte) Segment {
	return Segment{
		Type:   le.Uint32(b[0:]),
		Flags:  le.Uint32(b[4:]),
		Offset: le.Uint64(b[8:]),
		Vaddr:  le.Uint64(b[16:]),
		Paddr:  le.Uint64(b[24:]),
		Filesz: le.Uint64(b[32:]),
		Memsz:  le.Uint64(b[40:]),
		Align:  le.Uint64(b[48:]),
	}
}

func (p *Segment) encode(b []byte) {
	le.PutUint32(b[0:], p.Type)
	le.PutUint32(b[4:], p.Flags)
	le.PutUint64(b[8:], p.Offset)
	le.PutUint64(b[16:], p.Vaddr)
	le.PutUint64(b[24:], p.Paddr)
	le.PutUint64(b[32:], p.Filesz)
	le.PutUint64(b[40:], p.Memsz)
	le.PutUint64(b[48:], p.Align)
}

// Symbol is one entry of .symtab or .dynsym.
type Symbol struct {
	// Name is the symbol name; NameOff is st_name.
	Name    string
	NameOff uint32
	Info    uint8
	Other   uint8
	Shndx   uint16
	Value   uint64
	Size    uint64
	// Table is the section index of the table holding the symbol and
	// Index the symbol's index in it.
	Table int
	Index int
}

// Type returns ELF64_ST_TYPE(st_info).
func (s *Symbol) Type() uint8 { return s.Info & 0xf }

// Bind returns ELF64_ST_BIND(st_info).
func (s *Symbol) Bind() uint8 { return s.Info >> 4 }

// Visibility returns ELF64_ST_VISIBILITY(st_other).
func (s *Symbol) Visibility() uint8 { return s.Other & 3 }

// DynEntry is one entry of .dynamic.
type DynEntry struct {
	Tag int64
	Val uint64
}

// dynTagIsAddress reports whether the entry's value is an address.
func dynTagIsAddress(tag int64) bool {
	switch tag {
	case DT_PLTGOT, DT_HASH, DT_STRTAB, DT_SYMTAB, DT_RELA, DT_INIT, DT_FINI, DT_REL,
		DT_JMPREL, DT_INIT_ARRAY, DT_FINI_ARRAY, DT_GNU_HASH, DT_VERSYM, DT_VERDEF, DT_VERNEED:
		return true
	}
	return false
}

// Reloc is one relocation of a SHT_RELA or SHT_REL section.
type Reloc struct {
	// Section is the index of the relocation section.
	Section   int
	Offset    uint64
	Type      uint32
	Sym       uint32
	Addend    int64
	HasAddend bool
}
