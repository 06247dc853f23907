package silkrt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/rocjitsu/rocjitsu/hsa/aql"
)

// AQLDevice is a GPU driven at the HSA level with AQL packets: the
// simulator (hsa/sim) or a raw ROCR queue. The AQL provider does the
// runtime's part on top of it: kernel argument segments with hidden
// arguments, and packets built by BuildDispatchPacket.
type AQLDevice interface {
	// LoadKernel loads an AMDHSA code object and returns the device
	// address of its kernel descriptor called symbol ("name.kd"), the
	// value for the packet's kernel_object.
	LoadKernel(code []byte, symbol string) (kernelObject uint64, err error)
	// Alloc maps size bytes of device memory aligned to at least 64 bytes.
	Alloc(size uint64) (uint64, error)
	// Free unmaps an allocation.
	Free(addr uint64) error
	// Write copies p to device memory at addr.
	Write(addr uint64, p []byte) error
	// Read copies device memory at addr into p.
	Read(addr uint64, p []byte) error
	// Dispatch submits one 64-byte AQL packet.
	Dispatch(packet []byte) error
	// Wait blocks until every submitted packet has completed and returns
	// the first execution error.
	Wait() error
}

// KernargSegmentPad is the granule kernarg segments are padded to.
const KernargSegmentPad = 256

// AQL is the provider for an AQLDevice.
type AQL struct {
	mu      sync.Mutex
	name    string
	dev     AQLDevice
	bundle  *Bundle
	kernels map[string]aqlKernel
	allocs  Allocations
	pending []uint64 // kernarg segments of launches not yet waited for
}

type aqlKernel struct {
	info         KernelInfo
	kernelObject uint64
}

// NewAQL returns a provider called name (for example "sim") on dev.
func NewAQL(name string, dev AQLDevice) *AQL {
	return &AQL{name: name, dev: dev, kernels: map[string]aqlKernel{}, allocs: Allocations{}}
}

// Device returns the device the provider drives.
func (a *AQL) Device() AQLDevice { return a.dev }

// Name returns the name given to NewAQL.
func (a *AQL) Name() string { return a.name }

// Load loads the code object of every entry and checks that the entry's
// kernarg size matches the kernel's metadata.
func (a *AQL) Load(b *Bundle) error {
	if b.Provider != ProviderHIP {
		return fmt.Errorf("silkrt: %s: bundle is for provider %v; AMDHSA devices load only hip bundles", a.name, b.Provider)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.bundle != nil {
		return fmt.Errorf("silkrt: %s: a bundle is already loaded", a.name)
	}
	kernels := map[string]aqlKernel{}
	for _, e := range b.Entries {
		info, err := InspectCodeObject(e.CodeObject)
		if err != nil {
			return fmt.Errorf("silkrt: %s: entry %q: %w", a.name, e.Name, err)
		}
		if info.Target != b.Target {
			return fmt.Errorf("silkrt: %s: entry %q: code object is for %s, bundle target is %d", a.name, e.Name, info.Processor, b.Target)
		}
		k, ok := info.Kernel(e.Name)
		if !ok {
			return fmt.Errorf("silkrt: %s: entry %q: the code object has no such kernel", a.name, e.Name)
		}
		if k.ExplicitKernargSize != e.KernargSize {
			return fmt.Errorf("silkrt: %s: entry %q: bundle says %d kernarg bytes, the kernel's metadata %d", a.name, e.Name, e.KernargSize, k.ExplicitKernargSize)
		}
		ko, err := a.dev.LoadKernel(e.CodeObject, e.Name+".kd")
		if err != nil {
			return fmt.Errorf("silkrt: %s: entry %q: %w", a.name, e.Name, err)
		}
		kernels[e.Name] = aqlKernel{info: k, kernelObject: ko}
	}
	a.bundle, a.kernels = b, kernels
	return nil
}

// Alloc allocates device memory.
func (a *AQL) Alloc(size uint64) (DevicePtr, error) {
	if size == 0 {
		return 0, fmt.Errorf("silkrt: %s: zero-byte allocation", a.name)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	p, err := a.dev.Alloc(size)
	if err != nil {
		return 0, fmt.Errorf("silkrt: %s: %w", a.name, err)
	}
	a.allocs[DevicePtr(p)] = size
	return DevicePtr(p), nil
}

// CopyIn writes src to device memory inside one allocation.
func (a *AQL) CopyIn(dst DevicePtr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, err := a.allocs.Check(dst, uint64(len(src))); err != nil {
		return err
	}
	return a.dev.Write(uint64(dst), src)
}

// CopyOut reads device memory inside one allocation into dst.
func (a *AQL) CopyOut(dst []byte, src DevicePtr) error {
	if len(dst) == 0 {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, err := a.allocs.Check(src, uint64(len(dst))); err != nil {
		return err
	}
	return a.dev.Read(uint64(src), dst)
}

// Free releases an allocation.
func (a *AQL) Free(p DevicePtr) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.allocs[p]; !ok {
		return fmt.Errorf("silkrt: %s: free of %#x, which is not a live allocation", a.name, uint64(p))
	}
	delete(a.allocs, p)
	return a.dev.Free(uint64(p))
}

// HiddenArgValue returns the value the runtime stores in a hidden kernel
// argument of the given kind for a dispatch of grid work-items in
// workgroups of block with the given options, and whether the kind is one
// it fills (others are zero: hostcall and heap pointers, queue pointers).
func HiddenArgValue(kind string, grid, block Dim3, opts LaunchOptions) (uint64, bool) {
	g := [3]uint64{uint64(grid.X), uint64(grid.Y), uint64(grid.Z)}
	b := [3]uint64{uint64(block.X), uint64(block.Y), uint64(block.Z)}
	for i, ax := range axis {
		switch kind {
		case "hidden_block_count_" + ax:
			// Whole workgroups only; the partial one shows in the
			// remainder (device code counts n + (remainder != 0)).
			return g[i] / b[i], true
		case "hidden_group_size_" + ax:
			return b[i], true
		case "hidden_remainder_" + ax:
			return g[i] % b[i], true
		case "hidden_global_offset_" + ax:
			return opts.GlobalOffset[i], true
		}
	}
	if kind == "hidden_grid_dims" {
		return uint64(max(grid.Dimensions(), block.Dimensions())), true
	}
	return 0, false
}

// Launch builds the kernarg segment (explicit arguments, then the hidden
// arguments the metadata lists) in device memory, builds the packet with
// BuildDispatchPacket (barrier bit set, system-scope acquire and release,
// the kernel's LDS and scratch sizes) and submits it.
func (a *AQL) Launch(entry string, grid, block Dim3, kernargs []byte) error {
	return a.LaunchWith(entry, grid, block, kernargs, LaunchOptions{})
}

// LaunchWith is Launch with options; dynamic LDS is added to the packet's
// group_segment_size and the global offset goes to the hidden arguments.
func (a *AQL) LaunchWith(entry string, grid, block Dim3, kernargs []byte, opts LaunchOptions) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.bundle == nil {
		return fmt.Errorf("silkrt: %s: no bundle loaded", a.name)
	}
	k, ok := a.kernels[entry]
	if !ok {
		return fmt.Errorf("silkrt: %s: bundle has no entry %q", a.name, entry)
	}
	if len(kernargs) != int(k.info.ExplicitKernargSize) {
		return fmt.Errorf("silkrt: %s: entry %q takes %d bytes of kernel arguments, got %d", a.name, entry, k.info.ExplicitKernargSize, len(kernargs))
	}
	c, err := LaunchConfig(grid, block, k.info.MaxFlatWorkgroupSize)
	if err != nil {
		return err
	}
	if uint64(k.info.GroupSegmentFixedSize)+uint64(opts.DynamicGroupSegmentSize) > 1<<32-1 {
		return fmt.Errorf("silkrt: %s: entry %q: group segment of %d + %d bytes does not fit 32 bits", a.name, entry, k.info.GroupSegmentFixedSize, opts.DynamicGroupSegmentSize)
	}
	// Scalar loads of kernel arguments may read past the declared segment
	// (an s_load_dwordx8 of the last few arguments), which hardware
	// tolerates; the segment is padded with zeros to a multiple of
	// KernargSegmentPad bytes so that such reads stay in bounds.
	segSize := max(k.info.KernargSegmentSize, uint32(len(kernargs)))
	seg := make([]byte, (segSize+KernargSegmentPad-1)/KernargSegmentPad*KernargSegmentPad)
	copy(seg, kernargs)
	for _, h := range k.info.HiddenArgs {
		if uint64(h.Offset)+uint64(h.Size) > uint64(len(seg)) {
			return fmt.Errorf("silkrt: %s: entry %q: hidden argument %s at %d+%d is outside the %d-byte kernarg segment", a.name, entry, h.Kind, h.Offset, h.Size, len(seg))
		}
		v, _ := HiddenArgValue(h.Kind, grid, block, opts)
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], v)
		copy(seg[h.Offset:h.Offset+h.Size], w[:min(h.Size, 8)])
	}
	var kernarg uint64
	if segSize > 0 {
		if kernarg, err = a.dev.Alloc(uint64(len(seg))); err != nil {
			return fmt.Errorf("silkrt: %s: kernarg segment: %w", a.name, err)
		}
		if err := a.dev.Write(kernarg, seg); err != nil {
			a.dev.Free(kernarg)
			return fmt.Errorf("silkrt: %s: kernarg segment: %w", a.name, err)
		}
	}
	c.KernelObject = k.kernelObject
	c.KernargAddress = kernarg
	c.GroupSegmentSize = k.info.GroupSegmentFixedSize + opts.DynamicGroupSegmentSize
	c.PrivateSegmentSize = k.info.PrivateSegmentFixedSize
	c.Barrier = true
	c.AcquireFenceScope, c.ReleaseFenceScope = aql.FenceScopeSystem, aql.FenceScopeSystem
	var pkt [aql.PacketSize]byte
	if err := EncodeDispatchPacket(&c, pkt[:]); err != nil {
		return err
	}
	if err := a.dev.Dispatch(pkt[:]); err != nil {
		if kernarg != 0 {
			a.dev.Free(kernarg)
		}
		return fmt.Errorf("silkrt: %s: entry %q: %w", a.name, entry, err)
	}
	if kernarg != 0 {
		a.pending = append(a.pending, kernarg)
	}
	return nil
}

// Synchronize waits for the device and frees the kernarg segments of the
// finished launches.
func (a *AQL) Synchronize() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	err := a.dev.Wait()
	for _, p := range a.pending {
		err = errors.Join(err, a.dev.Free(p))
	}
	a.pending = nil
	if err != nil {
		return fmt.Errorf("silkrt: %s: %w", a.name, err)
	}
	return nil
}

// Close waits for outstanding work and frees the remaining allocations.
func (a *AQL) Close() error {
	err := a.Synchronize()
	a.mu.Lock()
	defer a.mu.Unlock()
	for p := range a.allocs {
		err = errors.Join(err, a.dev.Free(uint64(p)))
	}
	a.allocs = Allocations{}
	return err
}

var _ Provider = (*AQL)(nil)
