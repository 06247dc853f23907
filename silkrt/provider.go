package silkrt

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// DevicePtr is a device address returned by Provider.Alloc.
type DevicePtr uint64

// Dim3 is a grid or workgroup size in work-items, per dimension.
type Dim3 struct {
	// X, Y and Z are the sizes; an unused dimension is 1.
	X, Y, Z uint32
}

// D3 returns Dim3{x, y, z}.
func D3(x, y, z uint32) Dim3 { return Dim3{X: x, Y: y, Z: z} }

// Dimensions returns 3 when Z > 1, 2 when Y > 1, else 1.
func (d Dim3) Dimensions() int {
	switch {
	case d.Z > 1:
		return 3
	case d.Y > 1:
		return 2
	}
	return 1
}

// String formats the size as "X,Y,Z".
func (d Dim3) String() string { return fmt.Sprintf("%d,%d,%d", d.X, d.Y, d.Z) }

// ParseDim3 parses "X", "X,Y" or "X,Y,Z"; missing dimensions are 1.
func ParseDim3(s string) (Dim3, error) {
	parts := strings.Split(s, ",")
	if len(parts) > 3 || s == "" {
		return Dim3{}, fmt.Errorf("silkrt: size %q: want X, X,Y or X,Y,Z", s)
	}
	v := [3]uint32{1, 1, 1}
	for i, p := range parts {
		n, err := strconv.ParseUint(strings.TrimSpace(p), 0, 32)
		if err != nil {
			return Dim3{}, fmt.Errorf("silkrt: size %q: dimension %d: %w", s, i, err)
		}
		v[i] = uint32(n)
	}
	return Dim3{v[0], v[1], v[2]}, nil
}

// Provider is a GPU runtime that can load a bundle and run its entries.
// Implementations: package silkrt/hip (a dlopen'ed libamdhip64), AQL here
// (any AQLDevice) and package silkrt/simulator (AQL on hsa/sim). Methods
// are safe for concurrent use.
type Provider interface {
	// Name returns the provider's name, for example "hip".
	Name() string
	// Load loads every code object of the bundle; it fails for a bundle
	// whose provider identity is not this provider's.
	Load(b *Bundle) error
	// Alloc allocates size bytes of device memory.
	Alloc(size uint64) (DevicePtr, error)
	// CopyIn copies src to device memory at dst, which must lie inside one
	// allocation.
	CopyIn(dst DevicePtr, src []byte) error
	// CopyOut copies device memory at src into dst.
	CopyOut(dst []byte, src DevicePtr) error
	// Free releases an allocation made by Alloc.
	Free(p DevicePtr) error
	// Launch starts the named entry of the loaded bundle. grid and block are
	// in work-items; kernargs are the explicit kernel arguments and must be
	// exactly the entry's KernargSize bytes. Launch does not wait.
	Launch(entry string, grid, block Dim3, kernargs []byte) error
	// LaunchWith is Launch with the less common parameters.
	LaunchWith(entry string, grid, block Dim3, kernargs []byte, opts LaunchOptions) error
	// Synchronize waits until every launched kernel has finished.
	Synchronize() error
	// Close releases modules and allocations.
	Close() error
}

// LaunchOptions are launch parameters beyond grid, block and arguments.
type LaunchOptions struct {
	// DynamicGroupSegmentSize is LDS bytes per workgroup added to the
	// kernel's static group segment (HIP's sharedMemBytes).
	DynamicGroupSegmentSize uint32
	// GlobalOffset is added to work-item ids by code that reads the
	// hidden_global_offset_* arguments (OpenCL's global work offset). The
	// AQL provider writes it; HIP has no such parameter and rejects a
	// nonzero offset.
	GlobalOffset [3]uint64
}

// ErrNoDevice is matched (errors.Is) by provider errors caused by the
// absence of a usable GPU.
var ErrNoDevice = errors.New("no GPU device")

// LaunchConfig validates a launch geometry with the dispatch packet rules
// (the same rules a raw AQL dispatch would apply) and returns the
// corresponding config. maxFlat 0 means DefaultMaxFlatWorkgroupSize.
func LaunchConfig(grid, block Dim3, maxFlat uint32) (DispatchConfig, error) {
	dims := max(grid.Dimensions(), block.Dimensions())
	if block.X > 0xffff || block.Y > 0xffff || block.Z > 0xffff {
		return DispatchConfig{}, fmt.Errorf("silkrt: workgroup size %v does not fit 16 bits per dimension", block)
	}
	c := DispatchConfig{
		Dimensions:     uint16(dims),
		WorkgroupSizeX: uint16(block.X), WorkgroupSizeY: uint16(block.Y), WorkgroupSizeZ: uint16(block.Z),
		GridSizeX: grid.X, GridSizeY: grid.Y, GridSizeZ: grid.Z,
		MaxFlatWorkgroupSize: maxFlat,
	}
	if err := c.Validate(); err != nil {
		return DispatchConfig{}, err
	}
	return c, nil
}

// Allocations tracks a provider's live device allocations (base address
// to size) so that copies are bounds-checked before they reach a runtime.
type Allocations map[DevicePtr]uint64

// Check returns the base of the allocation that holds all of [p, p+n), or
// an error saying how the range misses.
func (a Allocations) Check(p DevicePtr, n uint64) (DevicePtr, error) {
	for base, size := range a {
		if p >= base && uint64(p-base) < size {
			if n > size-uint64(p-base) {
				return 0, fmt.Errorf("silkrt: copy of %d bytes at %#x runs past the end of the %d-byte buffer at %#x", n, uint64(p), size, uint64(base))
			}
			return base, nil
		}
	}
	return 0, fmt.Errorf("silkrt: %#x is not inside a live allocation", uint64(p))
}
