// Package loader reads, writes, patches and builds AMDGPU code objects:
// ELF64 little-endian files for EM_AMDGPU with the AMDHSA OS ABI (code
// object v4, v5 and v6). It exposes the header, sections, segments,
// symbols (.symtab and .dynsym), dynamic entries, relocations, the target
// (processor, xnack, sramecc), the MessagePack metadata note and the
// kernels with their decoded descriptors.
//
// Reading:
//
//	f, err := loader.Parse(b)
//	if err != nil { ... }           // *FormatError names offset and field
//	fmt.Println(f.Target)           // amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-
//	for _, k := range f.Kernels() {
//		fmt.Printf("%s kd=%#x entry=%#x vgprs=%d\n", k.Name,
//			k.DescriptorAddr, k.EntryAddr, k.Descriptor.NextFreeVGPR(f.Processor))
//		if k.Metadata != nil {
//			fmt.Println(k.Metadata.KernargSegmentSize, len(k.Metadata.Args))
//		}
//	}
//
// Writing: Write(f) reproduces the input byte for byte when f was not
// changed. Patch rewrites a code object for the translator (new .text,
// descriptor tail, extra sections, new metadata, new machine) and Build
// makes a code object from scratch.
//
// Descriptor bit fields live in loader/kd, the metadata note's typed form
// in loader/metadata and target ids and e_flags in loader/target.
package loader

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/rocjitsu/rocjitsu/loader/kd"
	"github.com/rocjitsu/rocjitsu/loader/metadata"
	"github.com/rocjitsu/rocjitsu/loader/target"
)

// File is a parsed AMDGPU code object.
type File struct {
	Header   Header
	Sections []*Section
	Segments []*Segment
	// Symbols is .symtab; DynSymbols is .dynsym (either may be empty).
	Symbols    []Symbol
	DynSymbols []Symbol
	// Dynamic is the .dynamic section's entries, DT_NULL included.
	Dynamic []DynEntry
	// Relocations holds the entries of every SHT_RELA and SHT_REL section.
	Relocations []Reloc

	// Flags is the decoded e_flags.
	Flags target.Flags
	// Processor is the processor e_flags names; its Name is empty for an
	// unknown machine number.
	Processor target.Processor
	// Target is the target id from e_flags ("amdgcn-amd-amdhsa--gfx942:
	// sramecc+:xnack-"); MetadataTarget is amdhsa.target when the
	// metadata has it.
	Target target.ID

	// Metadata is the decoded NT_AMDGPU_METADATA note (nil when absent);
	// MetadataNote locates it.
	Metadata     *metadata.Metadata
	MetadataNote *NoteRef

	kernels []Kernel
	raw     []byte
}

// NoteRef locates a note inside its section.
type NoteRef struct {
	// Section is the index of the SHT_NOTE section.
	Section int
	// Offset is the offset of the note header within the section.
	Offset uint64
	// Size is the size of the note record (header, name, desc, padding).
	Size uint64
	// Desc is the note's descriptor bytes.
	Desc []byte
}

// Kernel is one kernel of the code object.
type Kernel struct {
	// Name is the kernel's name (metadata .name, or the descriptor symbol
	// without ".kd").
	Name string
	// Symbol is the descriptor symbol's name ("name.kd").
	Symbol string
	// DescriptorAddr is the descriptor's virtual address and
	// DescriptorOffset its file offset.
	DescriptorAddr   uint64
	DescriptorOffset uint64
	// DescriptorSection is the index of the section holding the
	// descriptor.
	DescriptorSection int
	// EntryAddr is DescriptorAddr + KERNEL_CODE_ENTRY_BYTE_OFFSET. In a
	// relocatable object (ET_REL) it comes from the entry's relocation
	// instead and is an offset into the entry symbol's section.
	EntryAddr uint64
	// EntrySymbol is the name of the function symbol at EntryAddr, if any.
	EntrySymbol string
	// Descriptor is the decoded descriptor.
	Descriptor kd.Descriptor
	// Metadata is the kernel's amdhsa.kernels entry (nil when missing).
	Metadata *metadata.Kernel
}

// Kernels returns the kernels: one per descriptor symbol (an STT_OBJECT
// symbol named "*.kd"), in metadata order where the metadata lists them.
func (f *File) Kernels() []Kernel { return f.kernels }

// Kernel returns the kernel called name (or whose descriptor symbol is
// name).
func (f *File) Kernel(name string) (*Kernel, bool) {
	for i := range f.kernels {
		if f.kernels[i].Name == name || f.kernels[i].Symbol == name {
			return &f.kernels[i], true
		}
	}
	return nil, false
}

// Section returns the first section called name.
func (f *File) Section(name string) *Section {
	for _, s := range f.Sections {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// SectionIndex returns the index of the first section called name, or -1.
func (f *File) SectionIndex(name string) int {
	for i, s := range f.Sections {
		if s.Name == name {
			return i
		}
	}
	return -1
}

// Raw returns the bytes the file was parsed from. Do not modify them.
func (f *File) Raw() []byte { return f.raw }

// CodeObjectVersion returns 4, 5 or 6.
func (f *File) CodeObjectVersion() int { return f.Header.CodeObjectVersion() }

// ReadAt returns size bytes at virtual address addr from the file-backed
// section that holds them.
func (f *File) ReadAt(addr, size uint64) ([]byte, error) {
	for _, s := range f.Sections {
		n := uint64(len(s.Data))
		if !s.Alloc() || n == 0 {
			continue
		}
		if addr >= s.Addr && addr-s.Addr <= n && size <= n-(addr-s.Addr) {
			o := addr - s.Addr
			return s.Data[o : o+size], nil
		}
	}
	return nil, fmt.Errorf("loader: no section holds %d bytes at address 0x%x", size, addr)
}

// Parse decodes an AMDHSA code object. It checks every offset and size
// against the input and returns a *FormatError naming the offset and field
// of the first problem. The File keeps b; callers must not change it.
func Parse(b []byte) (*File, error) { return parse(b, nil) }

// decodedNote is a metadata note's descriptor bytes with the value
// metadata.Decode gives for them.
type decodedNote struct {
	desc []byte
	md   *metadata.Metadata
}

// parse is Parse; a metadata note whose descriptor is known.desc is not
// decoded again: its value is known.md (Patch, which wrote the note).
func parse(b []byte, known *decodedNote) (*File, error) {
	f := &File{raw: b}
	if err := f.parseHeader(); err != nil {
		return nil, err
	}
	if err := f.parseSegments(); err != nil {
		return nil, err
	}
	if err := f.parseSections(); err != nil {
		return nil, err
	}
	if err := f.parseSymbols(); err != nil {
		return nil, err
	}
	if err := f.parseDynamic(); err != nil {
		return nil, err
	}
	if err := f.parseRelocations(); err != nil {
		return nil, err
	}
	if err := f.parseNotes(known); err != nil {
		return nil, err
	}
	if err := f.findKernels(); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *File) parseHeader() error {
	b := f.raw
	if len(b) < ehdrSize {
		return formatErr(0, "ELF header", "file is %d bytes, the header needs %d", len(b), ehdrSize)
	}
	if !bytes.Equal(b[:4], []byte("\x7fELF")) {
		return formatErr(0, "e_ident[EI_MAG]", "bad magic % x", b[:4])
	}
	if b[4] != ELFCLASS64 {
		return formatErr(4, "e_ident[EI_CLASS]", "class %d, want ELFCLASS64", b[4])
	}
	if b[5] != ELFDATA2LSB {
		return formatErr(5, "e_ident[EI_DATA]", "data encoding %d, want ELFDATA2LSB", b[5])
	}
	if b[6] != EV_CURRENT {
		return formatErr(6, "e_ident[EI_VERSION]", "version %d, want 1", b[6])
	}
	if b[7] != target.ELFOSABI_AMDGPU_HSA {
		return formatErr(7, "e_ident[EI_OSABI]", "OS ABI %d, want ELFOSABI_AMDGPU_HSA (64)", b[7])
	}
	if v := b[8]; v < target.ELFABIVERSION_AMDGPU_HSA_V4 || v > target.ELFABIVERSION_AMDGPU_HSA_V6 {
		return formatErr(8, "e_ident[EI_ABIVERSION]", "ABI version %d is not code object v4, v5 or v6 (2..4)", v)
	}
	f.Header = decodeHeader(b)
	h := &f.Header
	if h.Machine != target.EM_AMDGPU {
		return formatErr(18, "e_machine", "machine %d, want EM_AMDGPU (224)", h.Machine)
	}
	if h.Ehsize != ehdrSize {
		return formatErr(52, "e_ehsize", "%d, want %d", h.Ehsize, ehdrSize)
	}
	f.Flags = target.DecodeFlags(h.Flags)
	if p, ok := target.ByMach(f.Flags.Mach); ok {
		f.Processor = p
		f.Target = target.ID{Processor: p.Name, XNACK: f.Flags.XNACK, SRAMECC: f.Flags.SRAMECC}
	}
	return nil
}

// inFile reports whether [off, off+size) lies inside the file.
func (f *File) inFile(off, size uint64) bool {
	n := uint64(len(f.raw))
	return off <= n && size <= n-off
}

// span checks that [off, off+size) lies inside the file.
func (f *File) span(off, size uint64, at uint64, field string) error {
	n := uint64(len(f.raw))
	if !f.inFile(off, size) {
		return formatErr(at, field, "range 0x%x+0x%x is outside the file (0x%x bytes)", off, size, n)
	}
	return nil
}

func (f *File) parseSegments() error {
	h := &f.Header
	if h.Phnum == 0 {
		return nil
	}
	if h.Phentsize != phdrSize {
		return formatErr(54, "e_phentsize", "%d, want %d", h.Phentsize, phdrSize)
	}
	if err := f.span(h.Phoff, uint64(h.Phnum)*phdrSize, 32, "e_phoff"); err != nil {
		return err
	}
	f.Segments = make([]*Segment, 0, h.Phnum)
	for i := 0; i < int(h.Phnum); i++ {
		off := h.Phoff + uint64(i)*phdrSize
		p := decodeSegment(f.raw[off:])
		if p.Type != PT_NULL && p.Type != PT_GNU_STACK {
			if !f.inFile(p.Offset, p.Filesz) {
				return f.span(p.Offset, p.Filesz, off+8, fmt.Sprintf("program header %d p_offset/p_filesz", i))
			}
		}
		if p.Filesz > p.Memsz {
			return formatErr(off+32, fmt.Sprintf("program header %d p_filesz", i), "p_filesz 0x%x exceeds p_memsz 0x%x", p.Filesz, p.Memsz)
		}
		f.Segments = append(f.Segments, &p)
	}
	return nil
}

func cstring(b []byte, off uint32) (string, bool) {
	if uint64(off) >= uint64(len(b)) {
		return "", false
	}
	end := bytes.IndexByte(b[off:], 0)
	if end < 0 {
		return "", false
	}
	return string(b[off : int(off)+end]), true
}

func (f *File) parseSections() error {
	h := &f.Header
	if h.Shnum == 0 {
		if h.Shoff != 0 {
			return formatErr(60, "e_shnum", "0 sections but e_shoff is 0x%x (extended numbering is not supported)", h.Shoff)
		}
		return nil
	}
	if h.Shentsize != shdrSize {
		return formatErr(58, "e_shentsize", "%d, want %d", h.Shentsize, shdrSize)
	}
	if err := f.span(h.Shoff, uint64(h.Shnum)*shdrSize, 40, "e_shoff"); err != nil {
		return err
	}
	f.Sections = make([]*Section, 0, h.Shnum)
	for i := 0; i < int(h.Shnum); i++ {
		off := h.Shoff + uint64(i)*shdrSize
		s := decodeSection(f.raw[off:])
		if s.Type != SHT_NOBITS && s.Type != SHT_NULL {
			if !f.inFile(s.Offset, s.Size) {
				return f.span(s.Offset, s.Size, off+24, fmt.Sprintf("section %d sh_offset/sh_size", i))
			}
			s.Data = f.raw[s.Offset : s.Offset+s.Size : s.Offset+s.Size]
		}
		if s.Link >= uint32(h.Shnum) && s.Type != SHT_NULL {
			return formatErr(off+40, fmt.Sprintf("section %d sh_link", i), "links to section %d of %d", s.Link, h.Shnum)
		}
		f.Sections = append(f.Sections, &s)
	}
	if h.Shstrndx >= h.Shnum {
		return formatErr(62, "e_shstrndx", "section %d of %d", h.Shstrndx, h.Shnum)
	}
	strs := f.Sections[h.Shstrndx]
	if strs.Type != SHT_STRTAB {
		return formatErr(h.Shoff+uint64(h.Shstrndx)*shdrSize+4, "section header string table sh_type", "type %d, want SHT_STRTAB", strs.Type)
	}
	for i, s := range f.Sections {
		if i == 0 && s.NameOff == 0 {
			continue
		}
		name, ok := cstring(strs.Data, s.NameOff)
		if !ok {
			return formatErr(h.Shoff+uint64(i)*shdrSize, fmt.Sprintf("section %d sh_name", i), "name offset %d is outside .shstrtab (%d bytes) or unterminated", s.NameOff, len(strs.Data))
		}
		s.Name = name
	}
	return nil
}

func (f *File) sectionField(i int, field string) string {
	return fmt.Sprintf("section %d (%s) %s", i, f.Sections[i].Name, field)
}

func (f *File) readSymbols(i int) ([]Symbol, error) {
	s := f.Sections[i]
	if s.Entsize != symSize {
		return nil, formatErr(f.Header.Shoff+uint64(i)*shdrSize+56, f.sectionField(i, "sh_entsize"), "%d, want %d", s.Entsize, symSize)
	}
	if s.Size%symSize != 0 {
		return nil, formatErr(f.Header.Shoff+uint64(i)*shdrSize+32, f.sectionField(i, "sh_size"), "%d is not a multiple of %d", s.Size, symSize)
	}
	strs := f.Sections[s.Link]
	if strs.Type != SHT_STRTAB {
		return nil, formatErr(f.Header.Shoff+uint64(i)*shdrSize+40, f.sectionField(i, "sh_link"), "links to section %d of type %d, want SHT_STRTAB", s.Link, strs.Type)
	}
	n := int(s.Size / symSize)
	syms := make([]Symbol, n)
	for j := 0; j < n; j++ {
		e := s.Data[j*symSize:]
		sym := Symbol{
			NameOff: le.Uint32(e[0:]),
			Info:    e[4],
			Other:   e[5],
			Shndx:   le.Uint16(e[6:]),
			Value:   le.Uint64(e[8:]),
			Size:    le.Uint64(e[16:]),
			Table:   i,
			Index:   j,
		}
		if sym.NameOff != 0 {
			name, ok := cstring(strs.Data, sym.NameOff)
			if !ok {
				return nil, formatErr(s.Offset+uint64(j)*symSize, fmt.Sprintf("%s symbol %d st_name", s.Name, j), "name offset %d is outside %s or unterminated", sym.NameOff, strs.Name)
			}
			sym.Name = name
		}
		if sym.Shndx != SHN_UNDEF && sym.Shndx < SHN_LORESERVE && int(sym.Shndx) >= len(f.Sections) {
			return nil, formatErr(s.Offset+uint64(j)*symSize+6, fmt.Sprintf("%s symbol %d (%s) st_shndx", s.Name, j, sym.Name), "section %d of %d", sym.Shndx, len(f.Sections))
		}
		syms[j] = sym
	}
	return syms, nil
}

func (f *File) parseSymbols() error {
	for i, s := range f.Sections {
		var err error
		switch s.Type {
		case SHT_SYMTAB:
			f.Symbols, err = f.readSymbols(i)
		case SHT_DYNSYM:
			f.DynSymbols, err = f.readSymbols(i)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (f *File) parseDynamic() error {
	for i, s := range f.Sections {
		if s.Type != SHT_DYNAMIC {
			continue
		}
		if s.Size%dynSize != 0 {
			return formatErr(f.Header.Shoff+uint64(i)*shdrSize+32, f.sectionField(i, "sh_size"), "%d is not a multiple of %d", s.Size, dynSize)
		}
		f.Dynamic = slices.Grow(f.Dynamic, len(s.Data)/dynSize)
		for j := 0; j+dynSize <= len(s.Data); j += dynSize {
			f.Dynamic = append(f.Dynamic, DynEntry{Tag: int64(le.Uint64(s.Data[j:])), Val: le.Uint64(s.Data[j+8:])})
		}
	}
	return nil
}

func (f *File) parseRelocations() error {
	for i, s := range f.Sections {
		var ent uint64
		switch s.Type {
		case SHT_RELA:
			ent = relaSize
		case SHT_REL:
			ent = relSize
		default:
			continue
		}
		if s.Size%ent != 0 {
			return formatErr(f.Header.Shoff+uint64(i)*shdrSize+32, f.sectionField(i, "sh_size"), "%d is not a multiple of %d", s.Size, ent)
		}
		f.Relocations = slices.Grow(f.Relocations, int(uint64(len(s.Data))/ent))
		for j := uint64(0); j+ent <= s.Size; j += ent {
			e := s.Data[j:]
			info := le.Uint64(e[8:])
			r := Reloc{Section: i, Offset: le.Uint64(e), Type: uint32(info), Sym: uint32(info >> 32)}
			if ent == relaSize {
				r.Addend = int64(le.Uint64(e[16:]))
				r.HasAddend = true
			}
			f.Relocations = append(f.Relocations, r)
		}
	}
	return nil
}

// Note is one ELF note record.
type Note struct {
	Name string
	Type uint32
	Desc []byte
	// Offset is the record's offset within its section; Size its length
	// with padding.
	Offset, Size uint64
}

// ParseNotes splits the contents of a SHT_NOTE section (4-byte aligned
// records). base is the section's file offset, used in errors.
func ParseNotes(b []byte, base uint64) ([]Note, error) {
	var out []Note
	off := uint64(0)
	n := uint64(len(b))
	for off < n {
		if n-off < 12 {
			return nil, formatErr(base+off, "note header", "%d bytes left, a note header needs 12", n-off)
		}
		namesz := uint64(le.Uint32(b[off:]))
		descsz := uint64(le.Uint32(b[off+4:]))
		typ := le.Uint32(b[off+8:])
		p := off + 12
		if namesz > n-p {
			return nil, formatErr(base+off, "note n_namesz", "%d bytes of name, %d left", namesz, n-p)
		}
		name := b[p : p+namesz]
		name = bytes.TrimRight(name, "\x00")
		p += align(namesz, 4)
		if p > n || descsz > n-p {
			return nil, formatErr(base+off+4, "note n_descsz", "%d bytes of descriptor, %d left", descsz, n-min(p, n))
		}
		desc := b[p : p+descsz : p+descsz]
		p += align(descsz, 4)
		if p > n {
			p = n
		}
		out = append(out, Note{Name: string(name), Type: typ, Desc: desc, Offset: off, Size: p - off})
		off = p
	}
	return out, nil
}

func align(v, a uint64) uint64 {
	if a <= 1 {
		return v
	}
	return (v + a - 1) / a * a
}

func (f *File) parseNotes(known *decodedNote) error {
	for i, s := range f.Sections {
		if s.Type != SHT_NOTE {
			continue
		}
		notes, err := ParseNotes(s.Data, s.Offset)
		if err != nil {
			return err
		}
		for _, n := range notes {
			if n.Name != "AMDGPU" || n.Type != NT_AMDGPU_METADATA {
				continue
			}
			var md *metadata.Metadata
			if known != nil && bytes.Equal(n.Desc, known.desc) {
				md, known = known.md, nil // decoded already, once
			} else if md, err = metadata.Decode(n.Desc); err != nil {
				return formatErr(s.Offset+n.Offset+12+8, "NT_AMDGPU_METADATA descriptor", "%v", err)
			}
			if f.Metadata == nil {
				f.Metadata = md
				f.MetadataNote = &NoteRef{Section: i, Offset: n.Offset, Size: n.Size, Desc: n.Desc}
			}
		}
	}
	return nil
}

func (f *File) findKernels() error {
	syms := f.Symbols
	if len(syms) == 0 {
		syms = f.DynSymbols
	}
	var ks []Kernel
	for _, sym := range syms {
		if sym.Type() != STT_OBJECT || !strings.HasSuffix(sym.Name, ".kd") {
			continue
		}
		tab := f.Sections[sym.Table]
		field := func() string { return fmt.Sprintf("%s symbol %d (%s) st_value", tab.Name, sym.Index, sym.Name) }
		at := tab.Offset + uint64(sym.Index)*symSize + 8
		if sym.Shndx == SHN_UNDEF || int(sym.Shndx) >= len(f.Sections) {
			return formatErr(at-2, field(), "descriptor symbol is not defined in a section (st_shndx %d)", sym.Shndx)
		}
		sec := f.Sections[sym.Shndx]
		n := uint64(len(sec.Data))
		if sym.Value < sec.Addr || sym.Value-sec.Addr > n || n-(sym.Value-sec.Addr) < kd.Size {
			return formatErr(at, field(), "descriptor at 0x%x does not fit in section %s [0x%x, 0x%x)", sym.Value, sec.Name, sec.Addr, sec.Addr+sec.Size)
		}
		o := sym.Value - sec.Addr
		d, _ := kd.Decode(sec.Data[o : o+kd.Size])
		k := Kernel{
			Name:              strings.TrimSuffix(sym.Name, ".kd"),
			Symbol:            sym.Name,
			DescriptorAddr:    sym.Value,
			DescriptorOffset:  sec.Offset + o,
			DescriptorSection: int(sym.Shndx),
			Descriptor:        d,
			EntryAddr:         d.EntryAddress(sym.Value),
		}
		if f.Header.Type == ET_REL {
			f.relocatedEntry(&k, sym)
		}
		for _, s2 := range syms {
			if k.EntrySymbol == "" && s2.Type() == STT_FUNC && s2.Value == k.EntryAddr && s2.Name != "" {
				k.EntrySymbol = s2.Name
				break
			}
		}
		ks = append(ks, k)
	}
	if f.Metadata != nil {
		// Order by metadata and attach each kernel's entry.
		var ordered []Kernel
		used := make([]bool, len(ks))
		for mi := range f.Metadata.Kernels {
			mk := &f.Metadata.Kernels[mi]
			for i := range ks {
				if !used[i] && ks[i].Symbol == mk.Symbol {
					used[i] = true
					ks[i].Metadata = mk
					if mk.Name != "" {
						ks[i].Name = mk.Name
					}
					ordered = append(ordered, ks[i])
					break
				}
			}
		}
		for i := range ks {
			if !used[i] {
				ordered = append(ordered, ks[i])
			}
		}
		ks = ordered
	}
	f.kernels = ks
	return nil
}

// Write returns the bytes of f: the ELF header, program and section
// header tables and every section's Data, laid over the image f was parsed
// from. An unchanged File gives back its input byte for byte.
func Write(f *File) ([]byte, error) { return f.Write() }

// Write is the method form of the package function Write.
func (f *File) Write() ([]byte, error) {
	size := uint64(len(f.raw))
	grow := func(end uint64) {
		if end > size {
			size = end
		}
	}
	grow(ehdrSize)
	h := f.Header
	h.Phnum = uint16(len(f.Segments))
	h.Shnum = uint16(len(f.Sections))
	if len(f.Segments) > 0 {
		grow(h.Phoff + uint64(len(f.Segments))*phdrSize)
	}
	if len(f.Sections) > 0 {
		grow(h.Shoff + uint64(len(f.Sections))*shdrSize)
	}
	for i, s := range f.Sections {
		if s.Type == SHT_NOBITS || s.Type == SHT_NULL {
			continue
		}
		if uint64(len(s.Data)) != s.Size {
			return nil, fmt.Errorf("loader: write: section %d (%s) has %d bytes of data but sh_size %d", i, s.Name, len(s.Data), s.Size)
		}
		grow(s.Offset + s.Size)
	}
	if size > 1<<32 {
		return nil, fmt.Errorf("loader: write: file would be %d bytes", size)
	}
	out := make([]byte, size)
	copy(out, f.raw)
	h.encode(out)
	for i, p := range f.Segments {
		p.encode(out[h.Phoff+uint64(i)*phdrSize:])
	}
	for i, s := range f.Sections {
		s.encode(out[h.Shoff+uint64(i)*shdrSize:])
		if s.Type != SHT_NOBITS && s.Type != SHT_NULL {
			copy(out[s.Offset:], s.Data)
		}
	}
	return out, nil
}

// Open reads and parses the code object at path.
func Open(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("loader: %w", err)
	}
	f, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// LookupSymbol returns the first symbol called name, searching .symtab and
// then .dynsym.
func (f *File) LookupSymbol(name string) (*Symbol, bool) {
	for _, tab := range [][]Symbol{f.Symbols, f.DynSymbols} {
		for i := range tab {
			if tab[i].Name == name {
				return &tab[i], true
			}
		}
	}
	return nil, false
}

// SymbolAt returns the named .symtab (or, without one, .dynsym) symbol
// whose [value, value+size) range holds addr, preferring a sized FUNC or
// OBJECT symbol, else the closest preceding symbol in the same section
// (labels have size 0). It returns false when no symbol precedes addr.
func (f *File) SymbolAt(addr uint64) (*Symbol, bool) {
	tab := f.Symbols
	if len(tab) == 0 {
		tab = f.DynSymbols
	}
	var best *Symbol
	for i := range tab {
		s := &tab[i]
		if s.Name == "" || s.Shndx == SHN_UNDEF || s.Shndx >= SHN_LORESERVE || s.Type() == STT_SECTION || s.Value > addr {
			continue
		}
		if s.Size > 0 && addr-s.Value < s.Size && (s.Type() == STT_FUNC || s.Type() == STT_OBJECT) {
			return s, true
		}
		if best == nil || s.Value > best.Value {
			best = s
		}
	}
	return best, best != nil
}

// MaxImageSize bounds the memory image LoadImage builds.
const MaxImageSize = 1 << 30

// LoadImage returns the code object as a loader maps it: the PT_LOAD
// segments copied to their virtual addresses (relative to 0) in one
// buffer, the bytes past p_filesz up to p_memsz zero (a later segment's
// bytes win where segments overlap). It fails for an image over
// MaxImageSize. A loader with its own zeroed memory uses ImageSize and
// LoadSegments instead, which do not build the zero bytes.
func (f *File) LoadImage() ([]byte, error) {
	size, err := f.ImageSize()
	if err != nil {
		return nil, err
	}
	img := make([]byte, size)
	f.LoadSegments(func(vaddr uint64, b []byte) error {
		copy(img[vaddr:], b)
		return nil
	})
	return img, nil
}

// ImageSize returns the size of the memory image: the end of the last
// PT_LOAD segment's memory (p_vaddr + p_memsz), at most MaxImageSize.
func (f *File) ImageSize() (uint64, error) {
	var size uint64
	for i, g := range f.Segments {
		if g.Type != PT_LOAD {
			continue
		}
		end := g.Vaddr + g.Memsz
		if end < g.Vaddr || end > MaxImageSize {
			return 0, fmt.Errorf("loader: LOAD segment %d [0x%x, +0x%x) is beyond the %d-byte image limit", i, g.Vaddr, g.Memsz, MaxImageSize)
		}
		size = max(size, end)
	}
	return size, nil
}

// LoadSegments calls write with each PT_LOAD segment's file bytes and
// their virtual address, in program header order (so a later segment's
// bytes win where segments overlap), and stops at write's first error.
// Parse has checked that the bytes lie in the file; the caller checks the
// addresses against ImageSize.
func (f *File) LoadSegments(write func(vaddr uint64, b []byte) error) error {
	for _, g := range f.Segments {
		if g.Type == PT_LOAD && g.Filesz > 0 {
			if err := write(g.Vaddr, f.raw[g.Offset:g.Offset+g.Filesz]); err != nil {
				return err
			}
		}
	}
	return nil
}

// relocatedEntry resolves the entry of a kernel in a relocatable object,
// where KERNEL_CODE_ENTRY_BYTE_OFFSET is filled in at link time by an
// R_AMDGPU_REL64 relocation (S + A - P, with P the field itself). EntryAddr
// then is an offset into the entry symbol's section.
func (f *File) relocatedEntry(k *Kernel, kdSym Symbol) {
	field := kdSym.Value + kd.KERNEL_CODE_ENTRY_BYTE_OFFSET_OFFSET
	for _, r := range f.Relocations {
		rs := f.Sections[r.Section]
		if int(rs.Info) != k.DescriptorSection || r.Offset != field || r.Type != R_AMDGPU_REL64 || !r.HasAddend {
			continue
		}
		var tab []Symbol
		switch f.Sections[rs.Link].Type {
		case SHT_SYMTAB:
			tab = f.Symbols
		case SHT_DYNSYM:
			tab = f.DynSymbols
		}
		if int(r.Sym) >= len(tab) {
			return
		}
		s := tab[r.Sym]
		k.EntryAddr = s.Value + uint64(r.Addend) - kd.KERNEL_CODE_ENTRY_BYTE_OFFSET_OFFSET
		k.EntrySymbol = s.Name
		return
	}
}
