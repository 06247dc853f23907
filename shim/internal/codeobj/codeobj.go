// Package codeobj reads just enough of an AMDGPU ELF code object for the
// shim: the ELF header's e_flags (machine and feature bits), the kernel
// descriptor symbols ("<name>.kd") and the 64-byte descriptors they name.
// It also rewrites descriptors and the machine bits in place, which is all
// the retarget translator and the dispatch planner need. Full parsing and
// writing of code objects lives in the loader package.
package codeobj

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
)

// EMAMDGPU is the ELF e_machine value of AMDGPU code objects.
const EMAMDGPU = 224

// EFlagsOffset is the file offset of e_flags in an ELF64 header.
const EFlagsOffset = 48

// MachMask selects the machine (GPU) bits of e_flags.
const MachMask = 0xff

// DescriptorSize is the size of an AMDHSA kernel descriptor.
const DescriptorSize = 64

// machs maps processor names to their e_flags machine values.
var machs = map[string]uint8{
	"gfx942":  0x4c,
	"gfx950":  0x4f,
	"gfx1200": 0x48,
	"gfx1201": 0x4e,
}

// MachOf returns the e_flags machine value of a processor name such as
// "gfx950".
func MachOf(processor string) (uint8, bool) {
	m, ok := machs[processor]
	return m, ok
}

// ProcessorOf returns the processor name of an e_flags machine value.
func ProcessorOf(mach uint8) (string, bool) {
	for n, m := range machs {
		if m == mach {
			return n, true
		}
	}
	return "", false
}

// Processors lists the processors this package knows, sorted.
func Processors() []string {
	var out []string
	for n := range machs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Descriptor is the part of an AMDHSA kernel descriptor (llvm::amdhsa::
// kernel_descriptor_t) that decides what a dispatch packet must provide.
type Descriptor struct {
	GroupSegmentFixedSize   uint32 // offset 0
	PrivateSegmentFixedSize uint32 // offset 4
	KernargSize             uint32 // offset 8
	KernelCodeEntryOffset   int64  // offset 16
	ComputePgmRsrc3         uint32 // offset 44
	ComputePgmRsrc1         uint32 // offset 48
	ComputePgmRsrc2         uint32 // offset 52
	KernelCodeProperties    uint16 // offset 56
	KernargPreload          uint16 // offset 58
}

// DecodeDescriptor decodes a 64-byte kernel descriptor.
func DecodeDescriptor(b []byte) (Descriptor, error) {
	if len(b) < DescriptorSize {
		return Descriptor{}, fmt.Errorf("codeobj: kernel descriptor: %d bytes, want %d", len(b), DescriptorSize)
	}
	le := binary.LittleEndian
	return Descriptor{
		GroupSegmentFixedSize:   le.Uint32(b[0:]),
		PrivateSegmentFixedSize: le.Uint32(b[4:]),
		KernargSize:             le.Uint32(b[8:]),
		KernelCodeEntryOffset:   int64(le.Uint64(b[16:])),
		ComputePgmRsrc3:         le.Uint32(b[44:]),
		ComputePgmRsrc1:         le.Uint32(b[48:]),
		ComputePgmRsrc2:         le.Uint32(b[52:]),
		KernelCodeProperties:    le.Uint16(b[56:]),
		KernargPreload:          le.Uint16(b[58:]),
	}, nil
}

// PutSizes writes the three segment sizes of d into the descriptor bytes b.
func (d Descriptor) PutSizes(b []byte) {
	le := binary.LittleEndian
	le.PutUint32(b[0:], d.GroupSegmentFixedSize)
	le.PutUint32(b[4:], d.PrivateSegmentFixedSize)
	le.PutUint32(b[8:], d.KernargSize)
}

// Wave32 reports whether the descriptor enables wavefront size 32.
func (d Descriptor) Wave32() bool { return d.KernelCodeProperties&(1<<10) != 0 }

// Kernel is one kernel descriptor symbol of a code object.
type Kernel struct {
	Name   string // symbol name, ending in ".kd"
	Offset int    // file offset of the descriptor
	Desc   Descriptor
}

// Object is what the shim reads from a code object.
type Object struct {
	EFlags  uint32
	Kernels []Kernel // sorted by name
}

// Mach returns the machine bits of e_flags.
func (o *Object) Mach() uint8 { return uint8(o.EFlags & MachMask) }

// Kernel returns the kernel with the given ".kd" symbol name.
func (o *Object) Kernel(name string) (Kernel, bool) {
	i := sort.Search(len(o.Kernels), func(i int) bool { return o.Kernels[i].Name >= name })
	if i < len(o.Kernels) && o.Kernels[i].Name == name {
		return o.Kernels[i], true
	}
	return Kernel{}, false
}

type section struct {
	name            uint32
	typ             uint32
	addr, off, size uint64
	link            uint32
	entsize         uint64
}

// Parse reads an AMDGPU ELF64 code object. Errors name the offset and the
// field that is wrong.
func Parse(b []byte) (*Object, error) {
	le := binary.LittleEndian
	if len(b) < 64 {
		return nil, fmt.Errorf("codeobj: ELF header: file has %d bytes, want at least 64", len(b))
	}
	if string(b[0:4]) != "\x7fELF" {
		return nil, fmt.Errorf("codeobj: offset 0: e_ident magic is %q, want \\x7fELF", b[0:4])
	}
	if b[4] != 2 {
		return nil, fmt.Errorf("codeobj: offset 4: EI_CLASS is %d, want 2 (ELF64)", b[4])
	}
	if b[5] != 1 {
		return nil, fmt.Errorf("codeobj: offset 5: EI_DATA is %d, want 1 (little endian)", b[5])
	}
	if m := le.Uint16(b[18:]); m != EMAMDGPU {
		return nil, fmt.Errorf("codeobj: offset 18: e_machine is %d, want %d (EM_AMDGPU)", m, EMAMDGPU)
	}
	o := &Object{EFlags: le.Uint32(b[EFlagsOffset:])}
	shoff := le.Uint64(b[40:])
	shentsize := uint64(le.Uint16(b[58:]))
	shnum := uint64(le.Uint16(b[60:]))
	if shnum == 0 {
		return o, nil
	}
	if shentsize != 64 {
		return nil, fmt.Errorf("codeobj: offset 58: e_shentsize is %d, want 64", shentsize)
	}
	if shoff > uint64(len(b)) || shnum*64 > uint64(len(b))-shoff {
		return nil, fmt.Errorf("codeobj: offset 40: section header table at %d with %d entries runs past the end of the %d-byte file", shoff, shnum, len(b))
	}
	secs := make([]section, shnum)
	for i := range secs {
		p := b[shoff+uint64(i)*64:]
		secs[i] = section{
			name: le.Uint32(p[0:]), typ: le.Uint32(p[4:]), addr: le.Uint64(p[16:]),
			off: le.Uint64(p[24:]), size: le.Uint64(p[32:]), link: le.Uint32(p[40:]), entsize: le.Uint64(p[56:]),
		}
		if secs[i].typ != 8 /* SHT_NOBITS */ && (secs[i].off > uint64(len(b)) || secs[i].size > uint64(len(b))-secs[i].off) {
			return nil, fmt.Errorf("codeobj: offset %d: section %d (sh_offset %d, sh_size %d) runs past the end of the %d-byte file", shoff+uint64(i)*64+24, i, secs[i].off, secs[i].size, len(b))
		}
	}
	// Prefer .dynsym (what the loader uses); fall back to .symtab.
	symIdx := -1
	for i, s := range secs {
		if s.typ == 11 /* SHT_DYNSYM */ {
			symIdx = i
			break
		}
	}
	if symIdx < 0 {
		for i, s := range secs {
			if s.typ == 2 /* SHT_SYMTAB */ {
				symIdx = i
				break
			}
		}
	}
	if symIdx < 0 {
		return o, nil
	}
	st := secs[symIdx]
	if uint64(st.link) >= shnum {
		return nil, fmt.Errorf("codeobj: section %d: sh_link %d names no section (%d sections)", symIdx, st.link, shnum)
	}
	strs := secs[st.link]
	strtab := b[strs.off : strs.off+strs.size]
	symOff := st.off
	for n := uint64(0); n+24 <= st.size; n += 24 {
		p := b[symOff+n:]
		nameOff := le.Uint32(p[0:])
		info := p[4]
		shndx := le.Uint16(p[6:])
		value := le.Uint64(p[8:])
		size := le.Uint64(p[16:])
		if info&0xf != 1 /* STT_OBJECT */ {
			continue
		}
		if uint64(nameOff) >= uint64(len(strtab)) {
			return nil, fmt.Errorf("codeobj: offset %d: st_name %d is outside the %d-byte string table", symOff+n, nameOff, len(strtab))
		}
		name := cstring(strtab[nameOff:])
		if !strings.HasSuffix(name, ".kd") {
			continue
		}
		if size != DescriptorSize {
			return nil, fmt.Errorf("codeobj: offset %d: symbol %s has st_size %d, want %d", symOff+n+16, name, size, DescriptorSize)
		}
		if uint64(shndx) >= shnum {
			return nil, fmt.Errorf("codeobj: offset %d: symbol %s has st_shndx %d, outside %d sections", symOff+n+6, name, shndx, shnum)
		}
		sec := secs[shndx]
		if sec.typ == 8 || value < sec.addr || value-sec.addr > sec.size || sec.size-(value-sec.addr) < DescriptorSize {
			return nil, fmt.Errorf("codeobj: offset %d: symbol %s value %#x is not inside its section %d", symOff+n+8, name, value, shndx)
		}
		off := sec.off + (value - sec.addr)
		d, err := DecodeDescriptor(b[off : off+DescriptorSize])
		if err != nil {
			return nil, err
		}
		o.Kernels = append(o.Kernels, Kernel{Name: name, Offset: int(off), Desc: d})
	}
	sort.Slice(o.Kernels, func(i, j int) bool { return o.Kernels[i].Name < o.Kernels[j].Name })
	for i := 1; i < len(o.Kernels); i++ {
		if o.Kernels[i].Name == o.Kernels[i-1].Name {
			return nil, fmt.Errorf("codeobj: kernel symbol %s is defined twice", o.Kernels[i].Name)
		}
	}
	return o, nil
}

func cstring(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// SetMach rewrites the machine bits of e_flags in b (in place), keeping the
// feature bits above them.
func SetMach(b []byte, mach uint8) error {
	if len(b) < 64 || string(b[0:4]) != "\x7fELF" {
		return fmt.Errorf("codeobj: offset 0: not an ELF file")
	}
	le := binary.LittleEndian
	f := le.Uint32(b[EFlagsOffset:])
	le.PutUint32(b[EFlagsOffset:], f&^MachMask|uint32(mach))
	return nil
}
