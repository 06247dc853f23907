package sim

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/vmihailenco/msgpack/v5"
)

// Arg is one kernel argument from the code object's metadata.
type Arg struct {
	// Name is the argument's name when the metadata has one.
	Name string
	// Offset and Size locate the argument in the kernarg segment.
	Offset, Size int
	// ValueKind is the metadata's .value_kind (global_buffer, by_value,
	// hidden_block_count_x, ...).
	ValueKind string
}

// Hidden reports whether the runtime fills the argument.
func (a Arg) Hidden() bool { return strings.HasPrefix(a.ValueKind, "hidden_") }

// Descriptor holds the kernel-descriptor fields the simulator uses.
type Descriptor struct {
	GroupSegmentFixedSize   uint32
	PrivateSegmentFixedSize uint32
	KernargSize             uint32
	EntryOffset             int64
	RSRC1, RSRC2, RSRC3     uint32
	CodeProperties          uint16
	KernargPreload          uint16
}

// decodeDescriptor reads the 64-byte kernel descriptor.
func decodeDescriptor(b []byte) (Descriptor, error) {
	if len(b) < 64 {
		return Descriptor{}, fmt.Errorf("kernel descriptor: %d bytes, need 64", len(b))
	}
	le := binary.LittleEndian
	return Descriptor{
		GroupSegmentFixedSize:   le.Uint32(b[0:]),
		PrivateSegmentFixedSize: le.Uint32(b[4:]),
		KernargSize:             le.Uint32(b[8:]),
		EntryOffset:             int64(le.Uint64(b[16:])),
		RSRC3:                   le.Uint32(b[44:]),
		RSRC1:                   le.Uint32(b[48:]),
		RSRC2:                   le.Uint32(b[52:]),
		CodeProperties:          le.Uint16(b[56:]),
		KernargPreload:          le.Uint16(b[58:]),
	}, nil
}

// VGPRs returns the number of vector registers (arch + acc) the
// descriptor allocates (granule 8 on gfx90a+).
func (d Descriptor) VGPRs() int { return (int(d.RSRC1&0x3f) + 1) * 8 }

// AccumOffset returns the first AGPR's position in the unified file.
func (d Descriptor) AccumOffset() int { return (int(d.RSRC3&0x3f) + 1) * 4 }

// Kernel is a kernel of a loaded code object.
type Kernel struct {
	// Name is the kernel's name (the symbol without ".kd").
	Name string
	// KD is the device address of the kernel descriptor.
	KD uint64
	// Desc is the decoded kernel descriptor.
	Desc Descriptor
	// Args are the metadata's arguments, explicit and hidden, in order.
	Args []Arg
	// KernargSegmentSize is the metadata's .kernarg_segment_size (or the
	// descriptor's kernarg_size).
	KernargSegmentSize int
	// Exec is the executable the kernel belongs to.
	Exec *Executable
}

// Explicit returns the arguments the caller supplies.
func (k *Kernel) Explicit() []Arg {
	var out []Arg
	for _, a := range k.Args {
		if !a.Hidden() {
			out = append(out, a)
		}
	}
	return out
}

// Executable is a code object loaded into the agent's memory.
type Executable struct {
	// Base is the device address of the object's first loaded byte
	// (virtual address 0).
	Base uint64
	// Size is the loaded span in bytes.
	Size uint64
	// Target is the processor named by the object's e_flags ("gfx942", ...).
	Target string
	// Kernels are the object's kernels by name.
	Kernels map[string]*Kernel
}

// Kernel returns the named kernel.
func (e *Executable) Kernel(name string) (*Kernel, error) {
	if k, ok := e.Kernels[name]; ok {
		return k, nil
	}
	names := make([]string, 0, len(e.Kernels))
	for n := range e.Kernels {
		names = append(names, n)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("no kernel %q in the code object (kernels: %s)", name, strings.Join(names, ", "))
}

// machNames maps EF_AMDGPU_MACH values to processor names.
var machNames = map[uint32]string{0x4c: "gfx942", 0x4f: "gfx950", 0x40: "gfx940", 0x4b: "gfx941", 0x3f: "gfx90a", 0x48: "gfx1200", 0x4e: "gfx1201"}

// Target returns the processor named by a code object's e_flags.
func TargetOf(image []byte) (string, error) {
	f, err := elf.NewFile(bytes.NewReader(image))
	if err != nil {
		return "", fmt.Errorf("code object: %w", err)
	}
	if f.Machine != elf.EM_AMDGPU {
		return "", fmt.Errorf("code object: e_machine %v is not EM_AMDGPU", f.Machine)
	}
	flags := binary.LittleEndian.Uint32(image[48:52])
	n, ok := machNames[flags&0xff]
	if !ok {
		return "", fmt.Errorf("code object: e_flags %#x names an unknown processor", flags)
	}
	return n, nil
}

type kernelMeta struct {
	Name        string         `msgpack:".name"`
	Symbol      string         `msgpack:".symbol"`
	KernargSize int            `msgpack:".kernarg_segment_size"`
	Args        []argMeta      `msgpack:".args"`
	Other       map[string]any `msgpack:"-"`
}

type argMeta struct {
	Name      string `msgpack:".name"`
	Offset    int    `msgpack:".offset"`
	Size      int    `msgpack:".size"`
	ValueKind string `msgpack:".value_kind"`
}

type metadata struct {
	Kernels []kernelMeta `msgpack:"amdhsa.kernels"`
}

// readMetadata finds the NT_AMDGPU_METADATA note and decodes its kernels.
func readMetadata(f *elf.File) (map[string]kernelMeta, error) {
	out := map[string]kernelMeta{}
	for _, p := range f.Progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		data := make([]byte, p.Filesz)
		if _, err := p.ReadAt(data, 0); err != nil {
			return nil, fmt.Errorf("code object: note segment at offset %#x: %w", p.Off, err)
		}
		for off := 0; off+12 <= len(data); {
			le := binary.LittleEndian
			nsz, dsz, typ := int(le.Uint32(data[off:])), int(le.Uint32(data[off+4:])), le.Uint32(data[off+8:])
			nameStart := off + 12
			descStart := nameStart + (nsz+3)&^3
			next := descStart + (dsz+3)&^3
			if nsz < 0 || dsz < 0 || descStart+dsz > len(data) {
				return nil, fmt.Errorf("code object: note at offset %#x overruns its segment", int(p.Off)+off)
			}
			name := strings.TrimRight(string(data[nameStart:nameStart+nsz]), "\x00")
			if name == "AMDGPU" && typ == 32 {
				var md metadata
				if err := msgpack.Unmarshal(data[descStart:descStart+dsz], &md); err != nil {
					return nil, fmt.Errorf("code object: NT_AMDGPU_METADATA at offset %#x: %w", int(p.Off)+descStart, err)
				}
				for _, k := range md.Kernels {
					out[k.Name] = k
				}
			}
			off = next
		}
	}
	return out, nil
}

// load maps the code object's PT_LOAD segments into memory at a fresh
// base, applies R_AMDGPU_RELATIVE64 relocations and finds the kernels.
func (a *Agent) load(image []byte) (*Executable, error) {
	target, err := TargetOf(image)
	if err != nil {
		return nil, err
	}
	f, err := elf.NewFile(bytes.NewReader(image))
	if err != nil {
		return nil, fmt.Errorf("code object: %w", err)
	}
	var span uint64
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Vaddr+p.Memsz > span {
			span = p.Vaddr + p.Memsz
		}
	}
	if span == 0 || span > 1<<32 {
		return nil, fmt.Errorf("code object: loadable span of %d bytes", span)
	}
	base, err := a.Mem.Alloc(span, 1<<16)
	if err != nil {
		return nil, err
	}
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD || p.Filesz == 0 {
			continue
		}
		if p.Filesz > p.Memsz || p.Off+p.Filesz > uint64(len(image)) {
			return nil, fmt.Errorf("code object: segment at file offset %#x: p_filesz %#x out of bounds", p.Off, p.Filesz)
		}
		if err := a.Mem.Write(base+p.Vaddr, image[p.Off:p.Off+p.Filesz]); err != nil {
			return nil, fmt.Errorf("code object: segment at vaddr %#x: %w", p.Vaddr, err)
		}
	}
	// Dynamic relocations.
	for _, s := range f.Sections {
		if s.Type != elf.SHT_RELA {
			continue
		}
		data, err := s.Data()
		if err != nil {
			return nil, fmt.Errorf("code object: section %s: %w", s.Name, err)
		}
		for off := 0; off+24 <= len(data); off += 24 {
			le := binary.LittleEndian
			r, info, add := le.Uint64(data[off:]), le.Uint64(data[off+8:]), int64(le.Uint64(data[off+16:]))
			if uint32(info) == 13 { // R_AMDGPU_RELATIVE64
				if err := a.Mem.Store64(base+r, uint64(int64(base)+add)); err != nil {
					return nil, fmt.Errorf("code object: relocation at %s+%#x: %w", s.Name, off, err)
				}
			}
		}
	}
	meta, err := readMetadata(f)
	if err != nil {
		return nil, err
	}
	ex := &Executable{Base: base, Size: span, Target: target, Kernels: map[string]*Kernel{}}
	syms, _ := f.DynamicSymbols()
	if s2, err := f.Symbols(); err == nil {
		syms = append(syms, s2...)
	}
	for _, s := range syms {
		if !strings.HasSuffix(s.Name, ".kd") || s.Value == 0 {
			continue
		}
		name := strings.TrimSuffix(s.Name, ".kd")
		if _, dup := ex.Kernels[name]; dup {
			continue
		}
		kdb, err := a.Mem.Slice(base+s.Value, 64, false)
		if err != nil {
			return nil, fmt.Errorf("code object: descriptor %s at %#x: %w", s.Name, s.Value, err)
		}
		d, err := decodeDescriptor(kdb)
		if err != nil {
			return nil, fmt.Errorf("code object: %s: %w", s.Name, err)
		}
		k := &Kernel{Name: name, KD: base + s.Value, Desc: d, KernargSegmentSize: int(d.KernargSize), Exec: ex}
		if m, ok := meta[name]; ok {
			for _, am := range m.Args {
				k.Args = append(k.Args, Arg{Name: am.Name, Offset: am.Offset, Size: am.Size, ValueKind: am.ValueKind})
			}
			if m.KernargSize > k.KernargSegmentSize {
				k.KernargSegmentSize = m.KernargSize
			}
		}
		ex.Kernels[name] = k
	}
	if len(ex.Kernels) == 0 {
		return nil, fmt.Errorf("code object: no kernel descriptors (.kd symbols)")
	}
	return ex, nil
}
