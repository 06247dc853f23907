package loader

import (
	"fmt"
	"sort"

	"github.com/rocjitsu/rocjitsu/loader/kd"
	"github.com/rocjitsu/rocjitsu/loader/metadata"
	"github.com/rocjitsu/rocjitsu/loader/target"
)

// SNop0 is the instruction word of s_nop 0 on gfx9 and gfx12, used to pad
// .text.
const SNop0 = 0xbf800000

// TailSectionName is the name Patch gives the section that holds the
// appended descriptor storage.
const TailSectionName = ".rocjitsu.kd"

// PatchSpec describes the translator's commit of a code object (see the
// DBT specification, "Commit the Code Object"). Zero fields leave that
// part of the object alone.
type PatchSpec struct {
	// Text replaces the contents of .text: whole 4-byte words. Shorter
	// code is padded with s_nop 0 to the old .text size.
	Text []byte
	// TextMap maps an offset into the old .text to the offset of the same
	// code in Text. Symbols (offsets 0 through len(old .text) inclusive, for
	// labels at the end), descriptor entry points (including those of
	// descriptor tails from earlier patches), dynamic entries and
	// relocations that point into the old .text go through it; an offset
	// it cannot map fails the patch. Nil is the identity.
	TextMap func(oldOff uint64) (newOff uint64, ok bool)
	// Descriptors replaces kernel descriptors, keyed by descriptor symbol
	// ("name.kd"). Their KernelCodeEntryByteOffset is recomputed from the
	// mapped entry point.
	Descriptors map[string]kd.Descriptor
	// DescriptorTail is loaded descriptor storage placed after .text in
	// the executable segment, 64-byte aligned, as section .rocjitsu.kd.
	// Its length must be a multiple of 64.
	DescriptorTail []byte
	// TailEntries sets, for descriptor i of DescriptorTail, the offset in
	// Text of its entry point; Patch writes the matching
	// KERNEL_CODE_ENTRY_BYTE_OFFSET.
	TailEntries map[int]uint64
	// Sections are non-ALLOC sections appended to the file (for example
	// .rocjitsu.lds).
	Sections []NewSection
	// Metadata replaces the NT_AMDGPU_METADATA note.
	Metadata *metadata.Metadata
	// Mach replaces the machine bits of e_flags. XNACK and SRAMECC are kept
	// when the new processor has them and cleared when it does not
	// (gfx12). When Metadata is nil the existing metadata's amdhsa.target
	// is rewritten to match.
	Mach target.Mach
	// SyncMetadata, when Metadata is nil, copies the segment sizes and the
	// wavefront size of every replaced descriptor (Descriptors) into its
	// kernel's metadata (.group_segment_fixed_size,
	// .private_segment_fixed_size, .wavefront_size), which is what the
	// runtime reads to size a dispatch, and raises .vgpr_count and
	// .sgpr_count to what the descriptor allocates when that is more.
	SyncMetadata bool
}

// NewSection is a section Patch appends.
type NewSection struct {
	Name  string
	Type  uint32
	Flags uint64
	Align uint64
	Data  []byte
}

// shift records that every address (or offset) >= At moved by Delta.
type shift struct{ At, Delta uint64 }

type patcher struct {
	f      *File
	img    []byte
	hdr    Header
	secs   []Section
	segs   []Segment
	addrSh []shift
	page   uint64
}

// Patch applies spec to f and returns the new code object. It works on a
// private copy: on any error f is untouched and the error says what failed.
// Growing .text or the metadata note moves everything after it by a
// multiple of the largest LOAD alignment, so every LOAD segment keeps
// p_offset % p_align == p_vaddr % p_align; section offsets and addresses,
// segments, symbol values, dynamic entries, relocation offsets and
// descriptor entry offsets follow.
func Patch(f *File, spec PatchSpec) (*File, error) {
	out, note, err := patchBytes(f, spec)
	if err != nil {
		return nil, err
	}
	nf, err := parse(out, note)
	if err != nil {
		return nil, fmt.Errorf("loader: patch produced an unreadable object: %w", err)
	}
	if err := nf.CheckLayout(); err != nil {
		return nil, fmt.Errorf("loader: patch produced a bad layout: %w", err)
	}
	return nf, nil
}

// patchBytes returns the patched object and, when it wrote a new
// metadata note, the note's bytes with their decoded value.
func patchBytes(f *File, spec PatchSpec) ([]byte, *decodedNote, error) {
	if f.Header.Type != ET_DYN {
		return nil, nil, fmt.Errorf("loader: patch: e_type %d; only linked (ET_DYN) code objects can be patched", f.Header.Type)
	}
	p := &patcher{f: f, hdr: f.Header, page: 1}
	var note *decodedNote
	for _, s := range f.Sections {
		c := *s
		c.Data = nil
		p.secs = append(p.secs, c)
	}
	for _, s := range f.Segments {
		p.segs = append(p.segs, *s)
		if s.Type == PT_LOAD && s.Align > p.page {
			p.page = s.Align
		}
	}
	for _, s := range f.Sections {
		if s.Alloc() && s.Align > p.page {
			p.page = s.Align
		}
	}
	// Growing a section moves what follows by a multiple of the largest
	// alignment, so the alignment bounds the work of a patch: LLVM writes
	// 4 KiB LOAD segments and sections aligned to at most 256 bytes; 64 KiB
	// (the largest common page size) keeps a 4 KB object from being grown
	// into tens of megabytes.
	const maxAlign = 1 << 16
	if p.page > maxAlign {
		return nil, nil, fmt.Errorf("loader: patch: alignment 0x%x of a LOAD segment or ALLOC section is too large to move contents by", p.page)
	}
	for i, s := range f.Sections {
		if s.Align > maxAlign {
			return nil, nil, fmt.Errorf("loader: patch: section %d (%s) alignment 0x%x is too large", i, s.Name, s.Align)
		}
	}
	p.img = make([]byte, len(f.raw), uint64(len(f.raw))+p.headroom(spec))
	copy(p.img, f.raw)
	textIdx := f.SectionIndex(".text")
	if textIdx < 0 {
		return nil, nil, fmt.Errorf("loader: patch: no .text section")
	}
	oldText := *f.Sections[textIdx]
	if oldText.Type != SHT_PROGBITS || uint64(len(oldText.Data)) != oldText.Size {
		// A NOBITS .text has no bytes to replace; padding a new .text to
		// its sh_size would allocate whatever that claims (the fuzzer
		// found a 7 KB object with a 3.8 GB NOBITS .text).
		return nil, nil, fmt.Errorf("loader: patch: .text (section %d) is type %d with %d of %d bytes in the file; want SHT_PROGBITS", textIdx, oldText.Type, len(oldText.Data), oldText.Size)
	}

	// 1. Metadata note.
	md := spec.Metadata
	if md == nil && spec.SyncMetadata && len(spec.Descriptors) > 0 && f.Metadata != nil {
		proc := f.Processor
		if spec.Mach != 0 {
			np, ok := target.ByMach(spec.Mach)
			if !ok {
				return nil, nil, fmt.Errorf("loader: patch: unknown machine 0x%x", uint8(spec.Mach))
			}
			proc = np
		}
		cp := *f.Metadata
		cp.Kernels = append([]metadata.Kernel(nil), f.Metadata.Kernels...)
		for i := range cp.Kernels {
			mk := &cp.Kernels[i]
			d, ok := spec.Descriptors[mk.Symbol]
			if !ok {
				continue
			}
			mk.GroupSegmentFixedSize = uint64(d.GroupSegmentFixedSize)
			mk.PrivateSegmentFixedSize = uint64(d.PrivateSegmentFixedSize)
			mk.WavefrontSize = uint64(d.WavefrontSize(proc))
			// .vgpr_count counts arch VGPRs and AGPRs together on
			// gfx90a-class processors, like the descriptor's granule.
			if v := uint64(d.NextFreeVGPR(proc)); v > mk.VGPRCount {
				mk.VGPRCount = v
			}
			if proc.Family < target.FamilyGFX10 {
				if v := uint64(d.NextFreeSGPR()); v > mk.SGPRCount {
					mk.SGPRCount = v
				}
			}
		}
		md = &cp
	}
	if md != nil && md != spec.Metadata && spec.Mach != 0 && md.Target != "" {
		// Synced metadata gets the new target too (below for the plain case).
		id, err := target.ParseID(md.Target)
		if err != nil {
			return nil, nil, fmt.Errorf("loader: patch: %w", err)
		}
		if np, ok := target.ByMach(spec.Mach); ok {
			id.Processor = np.Name
			if !np.XNACK {
				id.XNACK = target.FeatureUnsupported
			}
			if !np.SRAMECC {
				id.SRAMECC = target.FeatureUnsupported
			}
			md.Target = id.String()
		}
	}
	if md == nil && spec.Mach != 0 && f.Metadata != nil && f.Metadata.Target != "" {
		id, err := target.ParseID(f.Metadata.Target)
		if err != nil {
			return nil, nil, fmt.Errorf("loader: patch: %w", err)
		}
		np, ok := target.ByMach(spec.Mach)
		if !ok {
			return nil, nil, fmt.Errorf("loader: patch: unknown machine 0x%x", uint8(spec.Mach))
		}
		cp := *f.Metadata
		id.Processor = np.Name
		if !np.XNACK {
			id.XNACK = target.FeatureUnsupported
		}
		if !np.SRAMECC {
			id.SRAMECC = target.FeatureUnsupported
		}
		cp.Target = id.String()
		md = &cp
	}
	if md != nil {
		if f.MetadataNote == nil {
			return nil, nil, fmt.Errorf("loader: patch: the object has no metadata note to replace")
		}
		desc, decoded, err := md.EncodeDecoded()
		if err != nil {
			return nil, nil, fmt.Errorf("loader: patch: %w", err)
		}
		if decoded != nil {
			note = &decodedNote{desc: desc, md: decoded}
		}
		if err := p.replaceNote(f.MetadataNote, desc); err != nil {
			return nil, nil, err
		}
	}

	// 2. .text and the descriptor tail.
	ts := &p.secs[textIdx]
	if len(spec.DescriptorTail)%kd.Size != 0 {
		return nil, nil, fmt.Errorf("loader: patch: descriptor tail is %d bytes, not a multiple of %d", len(spec.DescriptorTail), kd.Size)
	}
	newText := spec.Text
	if newText == nil {
		newText = oldText.Data
	}
	if len(newText)%4 != 0 {
		return nil, nil, fmt.Errorf("loader: patch: new .text is %d bytes, not a whole number of instruction words", len(newText))
	}
	if uint64(len(newText)) < oldText.Size {
		// Pad to the old size with s_nop 0, which decodes as such on every
		// supported family.
		padded := make([]byte, oldText.Size)
		copy(padded, newText)
		for i := len(newText); i+4 <= len(padded); i += 4 {
			le.PutUint32(padded[i:], SNop0)
		}
		newText = padded
	}
	end := uint64(len(newText))
	var tailOff uint64
	if len(spec.DescriptorTail) > 0 {
		tailOff = align(ts.Addr+end, kd.Alignment) - ts.Addr
		end = tailOff + uint64(len(spec.DescriptorTail))
	}
	if end > ts.Size {
		if err := p.grow(textIdx, end-ts.Size); err != nil {
			return nil, nil, err
		}
	}
	ts = &p.secs[textIdx]
	ts.Size = uint64(len(newText))
	copy(p.img[ts.Offset:], newText)
	textShift := ts.Addr - oldText.Addr // from a note move
	var tailAddr uint64
	if len(spec.DescriptorTail) > 0 {
		tailAddr = ts.Addr + tailOff
		// Zero the alignment gap, then place the tail.
		for i := ts.Offset + ts.Size; i < ts.Offset+tailOff; i++ {
			p.img[i] = 0
		}
		copy(p.img[ts.Offset+tailOff:], spec.DescriptorTail)
		p.secs = append(p.secs, Section{
			Name: TailSectionName, Type: SHT_PROGBITS, Flags: SHF_ALLOC,
			Addr: tailAddr, Offset: ts.Offset + tailOff, Size: uint64(len(spec.DescriptorTail)), Align: kd.Alignment,
		})
	}

	textMap := func(off uint64) (uint64, bool) {
		if spec.TextMap == nil {
			return off, true
		}
		return spec.TextMap(off)
	}
	// mapAddr maps an old virtual address to its new one.
	mapAddr := func(a uint64, inText bool) (uint64, error) {
		if inText || (a >= oldText.Addr && a < oldText.Addr+oldText.Size) {
			n, ok := textMap(a - oldText.Addr)
			if !ok {
				return 0, fmt.Errorf("loader: patch: .text offset 0x%x (address 0x%x) has no place in the new .text", a-oldText.Addr, a)
			}
			return oldText.Addr + textShift + n, nil
		}
		for _, s := range p.addrSh {
			if a >= s.At {
				a += s.Delta
			}
		}
		return a, nil
	}

	// 3. e_flags.
	if spec.Mach != 0 {
		np, ok := target.ByMach(spec.Mach)
		if !ok {
			return nil, nil, fmt.Errorf("loader: patch: unknown machine 0x%x", uint8(spec.Mach))
		}
		fl := target.DecodeFlags(p.hdr.Flags)
		fl.Mach = spec.Mach
		if !np.XNACK {
			fl.XNACK = target.FeatureUnsupported
		}
		if !np.SRAMECC {
			fl.SRAMECC = target.FeatureUnsupported
		}
		p.hdr.Flags = fl.Encode()
	}
	if p.hdr.Entry != 0 {
		e, err := mapAddr(p.hdr.Entry, false)
		if err != nil {
			return nil, nil, err
		}
		p.hdr.Entry = e
	}

	// 4. Symbols, dynamic entries, relocations.
	for ti, s := range f.Sections {
		if s.Type != SHT_SYMTAB && s.Type != SHT_DYNSYM {
			continue
		}
		syms := f.Symbols
		if s.Type == SHT_DYNSYM {
			syms = f.DynSymbols
		}
		base := p.secs[ti].Offset
		for _, sym := range syms {
			if sym.Shndx == SHN_UNDEF || sym.Shndx >= SHN_LORESERVE || !f.Sections[sym.Shndx].Alloc() {
				continue
			}
			var nv uint64
			var err error
			if sym.Type() == STT_SECTION && sym.Value == f.Sections[sym.Shndx].Addr {
				nv = p.secs[sym.Shndx].Addr
			} else {
				nv, err = mapAddr(sym.Value, int(sym.Shndx) == textIdx)
			}
			if err != nil {
				return nil, nil, fmt.Errorf("%w (symbol %s in %s)", err, sym.Name, s.Name)
			}
			le.PutUint64(p.img[base+uint64(sym.Index)*symSize+8:], nv)
		}
	}
	for i, s := range f.Sections {
		switch s.Type {
		case SHT_DYNAMIC:
			base := p.secs[i].Offset
			for j := uint64(0); j+dynSize <= s.Size; j += dynSize {
				tag := int64(le.Uint64(s.Data[j:]))
				if !dynTagIsAddress(tag) {
					continue
				}
				nv, err := mapAddr(le.Uint64(s.Data[j+8:]), false)
				if err != nil {
					return nil, nil, fmt.Errorf("%w (dynamic entry %d)", err, j/dynSize)
				}
				le.PutUint64(p.img[base+j+8:], nv)
			}
		case SHT_RELA, SHT_REL:
			ent := uint64(relaSize)
			if s.Type == SHT_REL {
				ent = relSize
			}
			base := p.secs[i].Offset
			for j := uint64(0); j+ent <= s.Size; j += ent {
				off := le.Uint64(s.Data[j:])
				if f.Header.Type != ET_REL {
					nv, err := mapAddr(off, false)
					if err != nil {
						return nil, nil, fmt.Errorf("%w (relocation %d in %s)", err, j/ent, s.Name)
					}
					le.PutUint64(p.img[base+j:], nv)
				}
				if ent == relaSize && uint32(le.Uint64(s.Data[j+8:])) == R_AMDGPU_RELATIVE64 {
					nv, err := mapAddr(le.Uint64(s.Data[j+16:]), false)
					if err != nil {
						return nil, nil, fmt.Errorf("%w (relocation %d addend in %s)", err, j/ent, s.Name)
					}
					le.PutUint64(p.img[base+j+16:], nv)
				}
			}
		}
	}

	// 5. Descriptors: new contents and entry offsets.
	for _, k := range f.Kernels() {
		d := k.Descriptor
		if nd, ok := spec.Descriptors[k.Symbol]; ok {
			d = nd
		}
		kdAddr, err := mapAddr(k.DescriptorAddr, false)
		if err != nil {
			return nil, nil, err
		}
		entry, err := mapAddr(k.EntryAddr, false)
		if err != nil {
			return nil, nil, fmt.Errorf("%w (entry of %s)", err, k.Name)
		}
		d.KernelCodeEntryByteOffset = int64(entry - kdAddr)
		off, ok := p.fileOffset(kdAddr, kd.Size)
		if !ok {
			return nil, nil, fmt.Errorf("loader: patch: descriptor %s at 0x%x has no file bytes", k.Symbol, kdAddr)
		}
		d.EncodeTo(p.img[off:])
	}
	// Descriptor tails of earlier patches move with their section; their
	// entry points follow the code they enter.
	for si, s := range f.Sections {
		if s.Name != TailSectionName || !s.Alloc() || uint64(len(s.Data)) != s.Size {
			continue
		}
		for o := uint64(0); o+kd.Size <= s.Size; o += kd.Size {
			d, _ := kd.Decode(s.Data[o:])
			oldKd := s.Addr + o
			oldEntry := d.EntryAddress(oldKd)
			if oldEntry < oldText.Addr || oldEntry >= oldText.Addr+oldText.Size {
				continue
			}
			entry, err := mapAddr(oldEntry, false)
			if err != nil {
				return nil, nil, fmt.Errorf("%w (entry of descriptor %d in %s)", err, o/kd.Size, s.Name)
			}
			kdAddr := p.secs[si].Addr + o
			off := p.secs[si].Offset + o
			le.PutUint64(p.img[off+kd.KERNEL_CODE_ENTRY_BYTE_OFFSET_OFFSET:], uint64(int64(entry)-int64(kdAddr)))
		}
	}
	for i, toff := range spec.TailEntries {
		if i < 0 || (i+1)*kd.Size > len(spec.DescriptorTail) {
			return nil, nil, fmt.Errorf("loader: patch: tail entry %d is outside the %d-byte descriptor tail", i, len(spec.DescriptorTail))
		}
		if toff >= uint64(len(newText)) {
			return nil, nil, fmt.Errorf("loader: patch: tail descriptor %d entry 0x%x is outside the new .text", i, toff)
		}
		a := tailAddr + uint64(i)*kd.Size
		off := p.secs[len(p.secs)-1].Offset + uint64(i)*kd.Size
		le.PutUint64(p.img[off+kd.KERNEL_CODE_ENTRY_BYTE_OFFSET_OFFSET:], uint64(int64(ts.Addr+toff)-int64(a)))
	}

	// 6. Non-ALLOC sections, new sections and the section header table.
	out, err := p.finish(spec.Sections)
	if err != nil {
		return nil, nil, err
	}
	return out, note, nil
}

// headroom estimates how much the image grows: .text and the descriptor
// tail beyond the old .text (page-rounded, as grow moves by), a page for
// a rewritten metadata note, the appended sections and some header room.
// The image is allocated with that much spare capacity, so grow and
// finish work in place; a wrong estimate costs only an allocation.
func (p *patcher) headroom(spec PatchSpec) uint64 {
	var n uint64 = 1 << 10
	if ts := p.f.Section(".text"); ts != nil {
		size := ts.Size
		if spec.Text != nil {
			size = uint64(len(spec.Text))
		}
		if len(spec.DescriptorTail) > 0 {
			size += kd.Alignment + uint64(len(spec.DescriptorTail))
		}
		if size > ts.Size {
			n += align(size-ts.Size, p.page)
		}
	}
	if spec.Metadata != nil || spec.Mach != 0 || spec.SyncMetadata {
		n += p.page
	}
	for _, ns := range spec.Sections {
		n += uint64(len(ns.Data)) + max(ns.Align, 1) + uint64(len(ns.Name)) + 1 + shdrSize
	}
	return min(n, 1<<30)
}

// fileOffset maps size bytes at a new virtual address to their new file
// offset.
func (p *patcher) fileOffset(addr, size uint64) (uint64, bool) {
	for _, s := range p.secs {
		if s.Flags&SHF_ALLOC == 0 || s.Type == SHT_NOBITS || s.Type == SHT_NULL {
			continue
		}
		if addr >= s.Addr && addr-s.Addr <= s.Size && size <= s.Size-(addr-s.Addr) {
			off := s.Offset + (addr - s.Addr)
			if off+size > uint64(len(p.img)) || off+size < off {
				return 0, false
			}
			return off, true
		}
	}
	return 0, false
}

// grow makes room for extra more bytes at the end of section idx: every
// file byte and address after it moves by extra rounded up to the page
// size; segments that hold the section grow.
func (p *patcher) grow(idx int, extra uint64) error {
	s := p.secs[idx]
	P := s.Offset + s.Size
	A := s.Addr + s.Size
	delta := align(extra, p.page)
	if P > uint64(len(p.img)) {
		return fmt.Errorf("loader: patch: section %s ends past the file", s.Name)
	}
	if uint64(len(p.img))+delta > 1<<32 {
		return fmt.Errorf("loader: patch: object would exceed 4 GiB")
	}
	n := uint64(len(p.img))
	if uint64(cap(p.img))-n >= delta {
		// Room in the image's buffer: move the tail up in place.
		p.img = p.img[:n+delta]
		copy(p.img[P+delta:], p.img[P:n])
		clear(p.img[P : P+delta])
	} else {
		img := make([]byte, n+delta, n+delta+n/4)
		copy(img, p.img[:P])
		copy(img[P+delta:], p.img[P:])
		p.img = img
	}
	alloc := s.Flags&SHF_ALLOC != 0
	for i := range p.secs {
		q := &p.secs[i]
		if i == idx || q.Type == SHT_NULL {
			continue
		}
		if q.Offset >= P && (q.Type != SHT_NOBITS || q.Offset > s.Offset) {
			q.Offset += delta
		}
		if alloc && q.Flags&SHF_ALLOC != 0 && q.Addr >= A {
			q.Addr += delta
		}
	}
	p.secs[idx].Size += extra
	for i := range p.segs {
		g := &p.segs[i]
		if g.Type == PT_NULL || (g.Type == PT_GNU_STACK && g.Filesz == 0 && g.Memsz == 0) {
			continue
		}
		owns := s.Offset >= g.Offset && P <= g.Offset+g.Filesz
		switch {
		case g.Offset >= P && !(owns && g.Filesz == 0):
			g.Offset += delta
		case g.Offset+g.Filesz > P:
			g.Filesz += delta
		case owns:
			g.Filesz += extra
		}
		if alloc {
			ownsMem := s.Addr >= g.Vaddr && A <= g.Vaddr+g.Memsz
			switch {
			case g.Vaddr >= A && !(ownsMem && g.Memsz == 0):
				g.Vaddr += delta
				g.Paddr += delta
			case g.Vaddr+g.Memsz > A:
				g.Memsz += delta
			case ownsMem:
				g.Memsz += extra
			}
		}
	}
	if p.hdr.Shoff >= P {
		p.hdr.Shoff += delta
	}
	if p.hdr.Phoff >= P {
		p.hdr.Phoff += delta
	}
	if alloc {
		p.addrSh = append(p.addrSh, shift{A, delta})
	}
	return nil
}

// replaceNote swaps the note record at ref for one carrying desc.
func (p *patcher) replaceNote(ref *NoteRef, desc []byte) error {
	rec := make([]byte, 12, 12+8+len(desc)+4)
	le.PutUint32(rec[0:], 7)
	le.PutUint32(rec[4:], uint32(len(desc)))
	le.PutUint32(rec[8:], NT_AMDGPU_METADATA)
	rec = append(rec, "AMDGPU\x00\x00"...)
	rec = append(rec, desc...)
	for len(rec)%4 != 0 {
		rec = append(rec, 0)
	}
	sec := p.f.Sections[ref.Section]
	data := append([]byte(nil), sec.Data[:ref.Offset]...)
	data = append(data, rec...)
	data = append(data, sec.Data[ref.Offset+ref.Size:]...)
	newSize := uint64(len(data))
	if newSize > sec.Size {
		if err := p.grow(ref.Section, newSize-sec.Size); err != nil {
			return err
		}
	} else {
		// Shrink the section and the PT_NOTE segments that cover exactly it.
		for i := range p.segs {
			g := &p.segs[i]
			if g.Type == PT_NOTE && g.Offset == sec.Offset && g.Filesz == sec.Size {
				g.Filesz, g.Memsz = newSize, newSize
			}
		}
		// Zero the bytes the shorter section gives up.
		for i := sec.Offset + newSize; i < sec.Offset+sec.Size; i++ {
			p.img[i] = 0
		}
		p.secs[ref.Section].Size = newSize
	}
	s := p.secs[ref.Section]
	copy(p.img[s.Offset:], data)
	return nil
}

// finish lays out the non-ALLOC sections (the old ones in file order, then
// the new ones), the section name table and the section header table, and
// returns the image.
func (p *patcher) finish(extra []NewSection) ([]byte, error) {
	shstr := int(p.hdr.Shstrndx)
	if len(extra) > 0 {
		if shstr <= 0 || shstr >= len(p.secs) {
			return nil, fmt.Errorf("loader: patch: no section name table to name new sections")
		}
	}
	// Contents of every non-ALLOC section, taken before moving them.
	data := make([][]byte, len(p.secs))
	var names []byte
	if shstr > 0 && shstr < len(p.secs) {
		s := p.secs[shstr]
		names = append([]byte(nil), p.img[s.Offset:s.Offset+s.Size]...)
	}
	for i, s := range p.secs {
		if s.Flags&SHF_ALLOC != 0 || s.Type == SHT_NOBITS || s.Type == SHT_NULL {
			continue
		}
		data[i] = append([]byte(nil), p.img[s.Offset:s.Offset+s.Size]...)
	}
	for _, ns := range extra {
		if ns.Flags&SHF_ALLOC != 0 {
			return nil, fmt.Errorf("loader: patch: new section %s is ALLOC; only non-ALLOC sections can be appended", ns.Name)
		}
		typ := ns.Type
		if typ == 0 {
			typ = SHT_PROGBITS
		}
		al := ns.Align
		if al == 0 {
			al = 1
		}
		nameOff := uint32(len(names))
		names = append(names, ns.Name...)
		names = append(names, 0)
		p.secs = append(p.secs, Section{Name: ns.Name, NameOff: nameOff, Type: typ, Flags: ns.Flags, Size: uint64(len(ns.Data)), Align: al})
		data = append(data, ns.Data)
	}
	// Name the tail section too.
	for i := range p.secs {
		if p.secs[i].Name == TailSectionName && p.secs[i].NameOff == 0 && i > 0 {
			if shstr <= 0 {
				return nil, fmt.Errorf("loader: patch: no section name table to name %s", TailSectionName)
			}
			p.secs[i].NameOff = uint32(len(names))
			names = append(names, TailSectionName...)
			names = append(names, 0)
		}
	}
	if shstr > 0 && shstr < len(p.secs) {
		data[shstr] = names
		p.secs[shstr].Size = uint64(len(names))
	}
	// End of the loaded image.
	var end uint64 = ehdrSize
	if n := uint64(len(p.segs)); n > 0 {
		end = max(end, p.hdr.Phoff+n*phdrSize)
	}
	for _, g := range p.segs {
		if g.Type != PT_GNU_STACK {
			end = max(end, g.Offset+g.Filesz)
		}
	}
	for _, s := range p.secs {
		if s.Flags&SHF_ALLOC != 0 && s.Type != SHT_NOBITS {
			end = max(end, s.Offset+s.Size)
		}
	}
	var order []int
	for i, s := range p.secs {
		if data[i] != nil || (s.Flags&SHF_ALLOC == 0 && s.Type != SHT_NULL && s.Type != SHT_NOBITS) {
			order = append(order, i)
		}
	}
	nOld := len(p.f.Sections)
	sort.SliceStable(order, func(a, b int) bool {
		ia, ib := order[a], order[b]
		if (ia < nOld) != (ib < nOld) {
			return ia < nOld
		}
		if ia < nOld {
			return p.f.Sections[ia].Offset < p.f.Sections[ib].Offset
		}
		return ia < ib
	})
	if end > uint64(len(p.img)) {
		return nil, fmt.Errorf("loader: patch: loaded contents end at 0x%x, past the 0x%x-byte image", end, len(p.img))
	}
	// The image is private and what follows end was copied into data:
	// the new file is written over it.
	img := p.img[:end]
	for _, i := range order {
		s := &p.secs[i]
		off := align(uint64(len(img)), max(s.Align, 1))
		img = append(img, make([]byte, off-uint64(len(img)))...)
		s.Offset = off
		s.Size = uint64(len(data[i]))
		img = append(img, data[i]...)
	}
	p.hdr.Shoff = align(uint64(len(img)), 8)
	p.hdr.Shnum = uint16(len(p.secs))
	p.hdr.Phnum = uint16(len(p.segs))
	if len(p.secs) > 0xff00 {
		return nil, fmt.Errorf("loader: patch: %d sections", len(p.secs))
	}
	img = append(img, make([]byte, p.hdr.Shoff-uint64(len(img))+uint64(len(p.secs))*shdrSize)...)
	p.hdr.encode(img)
	for i := range p.segs {
		p.segs[i].encode(img[p.hdr.Phoff+uint64(i)*phdrSize:])
	}
	for i := range p.secs {
		p.secs[i].encode(img[p.hdr.Shoff+uint64(i)*shdrSize:])
	}
	return img[:len(img):len(img)], nil
}

// CheckLayout verifies the invariants a loader relies on: LOAD segments
// keep p_offset % p_align == p_vaddr % p_align, ALLOC sections do not
// overlap in memory or in the file, and every ALLOC section lies inside
// a LOAD segment.
func (f *File) CheckLayout() error {
	for i, g := range f.Segments {
		if g.Type == PT_LOAD && g.Align > 1 && g.Offset%g.Align != g.Vaddr%g.Align {
			return fmt.Errorf("loader: LOAD segment %d: p_offset 0x%x and p_vaddr 0x%x differ modulo p_align 0x%x", i, g.Offset, g.Vaddr, g.Align)
		}
	}
	type span struct {
		lo, hi uint64
		name   string
	}
	var mem, file []span
	for _, s := range f.Sections {
		if !s.Alloc() || s.Size == 0 {
			continue
		}
		mem = append(mem, span{s.Addr, s.Addr + s.Size, s.Name})
		if s.Type != SHT_NOBITS {
			file = append(file, span{s.Offset, s.Offset + s.Size, s.Name})
		}
		inLoad := false
		for _, g := range f.Segments {
			if g.Type == PT_LOAD && s.Addr >= g.Vaddr && s.Addr+s.Size <= g.Vaddr+g.Memsz {
				inLoad = true
			}
		}
		if !inLoad {
			return fmt.Errorf("loader: section %s [0x%x, 0x%x) is in no LOAD segment", s.Name, s.Addr, s.Addr+s.Size)
		}
		if s.Align > 1 && s.Addr%s.Align != 0 {
			return fmt.Errorf("loader: section %s address 0x%x is not aligned to %d", s.Name, s.Addr, s.Align)
		}
	}
	for _, l := range [][]span{mem, file} {
		sort.Slice(l, func(a, b int) bool { return l[a].lo < l[b].lo })
		for i := 1; i < len(l); i++ {
			if l[i].lo < l[i-1].hi {
				return fmt.Errorf("loader: sections %s and %s overlap", l[i-1].name, l[i].name)
			}
		}
	}
	return nil
}
