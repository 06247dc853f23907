package silkrt

import (
	"fmt"

	"github.com/rocjitsu/rocjitsu/loader"
)

// KernelInfo is what a bundle needs to know about one kernel of an AMDHSA
// code object.
type KernelInfo struct {
	// Name is the kernel name.
	Name string
	// ExplicitKernargSize is the end of the last explicit (non-hidden)
	// argument in the metadata, in bytes.
	ExplicitKernargSize uint32
	// MaxFlatWorkgroupSize is .max_flat_workgroup_size (0 when absent).
	MaxFlatWorkgroupSize uint32
	// KernargSegmentSize and KernargSegmentAlign are the metadata's
	// .kernarg_segment_size and .kernarg_segment_align (explicit and hidden
	// arguments together).
	KernargSegmentSize, KernargSegmentAlign uint32
	// GroupSegmentFixedSize and PrivateSegmentFixedSize are the LDS bytes
	// per workgroup and scratch bytes per work-item the kernel needs.
	GroupSegmentFixedSize, PrivateSegmentFixedSize uint32
	// HiddenArgs are the runtime-filled arguments (.value_kind hidden_*).
	HiddenArgs []HiddenArg
}

// HiddenArg is one hidden kernel argument from the metadata.
type HiddenArg struct {
	// Kind is the .value_kind, for example "hidden_block_count_x".
	Kind string
	// Offset and Size locate it in the kernarg segment.
	Offset, Size uint32
}

// CodeObjectInfo is the processor tag and kernels of an AMDHSA code object.
type CodeObjectInfo struct {
	// Processor is the processor name from e_flags, for example "gfx942".
	Processor string
	// Target is the numeric processor tag (942).
	Target uint32
	// Kernels lists the kernels with metadata.
	Kernels []KernelInfo
}

// Kernel returns the kernel called name.
func (c *CodeObjectInfo) Kernel(name string) (KernelInfo, bool) {
	for _, k := range c.Kernels {
		if k.Name == name {
			return k, true
		}
	}
	return KernelInfo{}, false
}

// InspectCodeObject parses an AMDHSA code object with package loader and
// returns its processor tag and its kernels' explicit argument sizes.
func InspectCodeObject(code []byte) (*CodeObjectInfo, error) {
	f, err := loader.Parse(code)
	if err != nil {
		return nil, fmt.Errorf("silkrt: code object: %w", err)
	}
	if f.Processor.Name == "" {
		return nil, fmt.Errorf("silkrt: code object: unknown processor (e_flags %#x)", f.Header.Flags)
	}
	tag, err := ParseTargetTag(f.Processor.Name)
	if err != nil {
		return nil, err
	}
	info := &CodeObjectInfo{Processor: f.Processor.Name, Target: tag}
	for _, k := range f.Kernels() {
		if k.Metadata == nil {
			return nil, fmt.Errorf("silkrt: code object: kernel %q has no metadata", k.Name)
		}
		md := k.Metadata
		const limit = 1 << 20 // far above any real kernarg segment (HIP allows 4 KiB)
		var end uint64
		var hidden []HiddenArg
		for _, a := range md.Args {
			if a.Offset > limit || a.Size > limit {
				return nil, fmt.Errorf("silkrt: code object: kernel %q: argument %q at %d size %d is out of range", k.Name, a.Name, a.Offset, a.Size)
			}
			if a.Hidden() {
				hidden = append(hidden, HiddenArg{Kind: a.ValueKind, Offset: uint32(a.Offset), Size: uint32(a.Size)})
			} else if a.Offset+a.Size > end {
				end = a.Offset + a.Size
			}
		}
		if md.KernargSegmentSize > limit || md.KernargSegmentAlign > limit {
			return nil, fmt.Errorf("silkrt: code object: kernel %q: kernarg segment size %d align %d out of range", k.Name, md.KernargSegmentSize, md.KernargSegmentAlign)
		}
		info.Kernels = append(info.Kernels, KernelInfo{
			Name:                    k.Name,
			ExplicitKernargSize:     uint32(end),
			MaxFlatWorkgroupSize:    uint32(min(md.MaxFlatWorkgroupSize, 1<<32-1)),
			KernargSegmentSize:      uint32(md.KernargSegmentSize),
			KernargSegmentAlign:     uint32(md.KernargSegmentAlign),
			GroupSegmentFixedSize:   uint32(min(md.GroupSegmentFixedSize, 1<<32-1)),
			PrivateSegmentFixedSize: uint32(min(md.PrivateSegmentFixedSize, 1<<32-1)),
			HiddenArgs:              hidden,
		})
	}
	return info, nil
}

// EntryFromCodeObject makes the bundle entry for kernel name of an AMDHSA
// code object and returns it with the object's processor tag.
func EntryFromCodeObject(name string, code []byte) (Entry, uint32, error) {
	info, err := InspectCodeObject(code)
	if err != nil {
		return Entry{}, 0, err
	}
	k, ok := info.Kernel(name)
	if !ok {
		names := make([]string, len(info.Kernels))
		for i, k := range info.Kernels {
			names[i] = k.Name
		}
		return Entry{}, 0, fmt.Errorf("silkrt: code object has no kernel %q (kernels: %v)", name, names)
	}
	return Entry{Name: name, KernargSize: k.ExplicitKernargSize, CodeObject: code}, info.Target, nil
}
