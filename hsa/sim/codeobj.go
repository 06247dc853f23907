package sim

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/rocjitsu/rocjitsu/loader"
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
	// Image is the code object as given to LoadCodeObject (not copied).
	Image []byte
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

// TargetOf returns the processor named by a code object's e_flags
// ("gfx942", "gfx950", ...).
func TargetOf(image []byte) (string, error) {
	f, err := loader.Parse(image)
	if err != nil {
		return "", fmt.Errorf("code object: %w", err)
	}
	if f.Processor.Name == "" {
		return "", fmt.Errorf("code object: e_flags %#x name an unknown processor", f.Header.Flags)
	}
	return f.Processor.Name, nil
}

// load parses the code object with package loader, maps its PT_LOAD
// segments at a fresh base, applies R_AMDGPU_RELATIVE64 relocations and
// finds the kernels with their descriptors and metadata.
func (a *Agent) load(image []byte) (*Executable, error) {
	f, err := loader.Parse(image)
	if err != nil {
		return nil, fmt.Errorf("code object: %w", err)
	}
	if f.Processor.Name == "" {
		return nil, fmt.Errorf("code object: e_flags %#x name an unknown processor", f.Header.Flags)
	}
	if err := a.checkFamily(f.Processor.Name); err != nil {
		return nil, err
	}
	if f.Header.Type != uint16(elf.ET_DYN) {
		return nil, fmt.Errorf("code object: e_type %d is not a shared object (ET_DYN); link it first", f.Header.Type)
	}
	// The segments are written into freshly allocated (zeroed) memory:
	// no image-sized buffer of zeros is built and copied for p_memsz
	// past p_filesz.
	size, err := f.ImageSize()
	if err != nil {
		return nil, fmt.Errorf("code object: %w", err)
	}
	if size == 0 {
		return nil, fmt.Errorf("code object: no loadable segments")
	}
	base, err := a.Mem.Alloc(size, 1<<16)
	if err != nil {
		return nil, err
	}
	if err := f.LoadSegments(func(vaddr uint64, b []byte) error { return a.Mem.Write(base+vaddr, b) }); err != nil {
		return nil, fmt.Errorf("code object: %w", err)
	}
	for i, r := range f.Relocations {
		if r.Type != loader.R_AMDGPU_RELATIVE64 {
			continue
		}
		if err := a.Mem.Store64(base+r.Offset, uint64(int64(base)+r.Addend)); err != nil {
			return nil, fmt.Errorf("code object: relocation %d at %#x: %w", i, r.Offset, err)
		}
	}
	ex := &Executable{Base: base, Size: size, Target: f.Processor.Name, Kernels: map[string]*Kernel{}}
	for _, lk := range f.Kernels() {
		kdb, err := a.Mem.Slice(base+lk.DescriptorAddr, 64, false)
		if err != nil {
			return nil, fmt.Errorf("code object: descriptor %s at %#x: %w", lk.Symbol, lk.DescriptorAddr, err)
		}
		d, err := decodeDescriptor(kdb)
		if err != nil {
			return nil, fmt.Errorf("code object: %s: %w", lk.Symbol, err)
		}
		k := &Kernel{Name: lk.Name, KD: base + lk.DescriptorAddr, Desc: d, KernargSegmentSize: int(d.KernargSize), Exec: ex}
		if m := lk.Metadata; m != nil {
			for _, am := range m.Args {
				k.Args = append(k.Args, Arg{Name: am.Name, Offset: int(am.Offset), Size: int(am.Size), ValueKind: am.ValueKind})
			}
			if int(m.KernargSegmentSize) > k.KernargSegmentSize && m.KernargSegmentSize < 1<<20 {
				k.KernargSegmentSize = int(m.KernargSegmentSize)
			}
		}
		ex.Kernels[k.Name] = k
	}
	if len(ex.Kernels) == 0 {
		return nil, fmt.Errorf("code object: no kernel descriptors (.kd symbols)")
	}
	return ex, nil
}
