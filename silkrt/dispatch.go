package silkrt

import (
	"fmt"
	"unsafe"

	"github.com/rocjitsu/rocjitsu/hsa/aql"
)

// DefaultMaxFlatWorkgroupSize is the flat work-group size limit used when a
// DispatchConfig leaves MaxFlatWorkgroupSize at zero.
const DefaultMaxFlatWorkgroupSize = 1024

// DispatchConfig describes one kernel dispatch. It mirrors the C struct
// SilkAmdGpuAqlDispatchPacketConfig of c/include/silk.h.
type DispatchConfig struct {
	// Dimensions is the number of grid dimensions, 1 to 3.
	Dimensions uint16
	// WorkgroupSizeX, WorkgroupSizeY and WorkgroupSizeZ are work-items per
	// workgroup; unused dimensions must be 1.
	WorkgroupSizeX, WorkgroupSizeY, WorkgroupSizeZ uint16
	// GridSizeX, GridSizeY and GridSizeZ are work-items in the grid (not
	// workgroups); unused dimensions must be 1.
	GridSizeX, GridSizeY, GridSizeZ uint32
	// PrivateSegmentSize is the private (scratch) bytes per work-item.
	PrivateSegmentSize uint32
	// GroupSegmentSize is the group (LDS) bytes per workgroup.
	GroupSegmentSize uint32
	// MaxFlatWorkgroupSize bounds X*Y*Z of the workgroup; 0 selects
	// DefaultMaxFlatWorkgroupSize.
	MaxFlatWorkgroupSize uint32
	// KernelObject is the kernel descriptor address.
	KernelObject uint64
	// KernargAddress is the kernel argument buffer address.
	KernargAddress uint64
	// CompletionSignal is the hsa_signal_t handle, 0 for none.
	CompletionSignal uint64
	// Barrier sets the header barrier bit.
	Barrier bool
	// AcquireFenceScope and ReleaseFenceScope go to the header.
	AcquireFenceScope, ReleaseFenceScope aql.FenceScope
}

// Rule identifies the validation rule a DispatchConfig broke. Its numeric
// value is the status code returned through the C ABI
// (SILK_AMDGPU_AQL_STATUS_* in silk.h); 0 is success.
type Rule int32

// Validation rules, checked in this order.
const (
	// RuleOK is success (SILK_AMDGPU_AQL_STATUS_OK).
	RuleOK Rule = 0
	// RuleNullPointer: the config or output pointer is NULL (C ABI only).
	RuleNullPointer Rule = 1
	// RuleDimensions: Dimensions is not 1, 2 or 3.
	RuleDimensions Rule = 2
	// RuleZeroWorkgroupSize: a workgroup dimension is zero.
	RuleZeroWorkgroupSize Rule = 3
	// RuleZeroGridSize: a grid dimension is zero.
	RuleZeroGridSize Rule = 4
	// RuleGridSmallerThanWorkgroup: a grid dimension is smaller than the
	// matching workgroup dimension.
	RuleGridSmallerThanWorkgroup Rule = 5
	// RuleUnusedDimension: a dimension at or above Dimensions has a
	// workgroup or grid size other than 1.
	RuleUnusedDimension Rule = 6
	// RuleFlatWorkgroupSize: X*Y*Z of the workgroup exceeds the maximum.
	RuleFlatWorkgroupSize Rule = 7
	// RuleFenceScope: a fence scope is not NONE, AGENT or SYSTEM.
	RuleFenceScope Rule = 8
	// RuleBufferSize: the output buffer is shorter than 64 bytes (Go API only).
	RuleBufferSize Rule = 9
)

var ruleNames = [...]string{
	RuleOK:                       "ok",
	RuleNullPointer:              "null pointer",
	RuleDimensions:               "dimensions not 1, 2 or 3",
	RuleZeroWorkgroupSize:        "zero workgroup size",
	RuleZeroGridSize:             "zero grid size",
	RuleGridSmallerThanWorkgroup: "grid smaller than workgroup",
	RuleUnusedDimension:          "unused dimension not 1",
	RuleFlatWorkgroupSize:        "flat workgroup size too large",
	RuleFenceScope:               "invalid fence scope",
	RuleBufferSize:               "output buffer too short",
	RuleDepSignals:               "too many dependency signals",
}

// String returns a short description of the rule.
func (r Rule) String() string {
	if r >= 0 && int(r) < len(ruleNames) {
		return ruleNames[r]
	}
	return fmt.Sprintf("Rule(%d)", int32(r))
}

// DispatchError reports a DispatchConfig that breaks a validation rule.
type DispatchError struct {
	// Rule is the broken rule.
	Rule Rule
	// Field is the config field at fault, for example "grid_size_y".
	Field string
	// Value is the offending value.
	Value uint64
	// Limit is the bound Value was checked against, where there is one.
	Limit uint64
}

// Error says which field broke which rule, with the value and the bound.
func (e *DispatchError) Error() string {
	switch e.Rule {
	case RuleGridSmallerThanWorkgroup:
		return fmt.Sprintf("silkrt: dispatch: %s = %d is smaller than the workgroup size %d", e.Field, e.Value, e.Limit)
	case RuleFlatWorkgroupSize:
		return fmt.Sprintf("silkrt: dispatch: %s = %d exceeds max_flat_workgroup_size %d", e.Field, e.Value, e.Limit)
	case RuleDimensions:
		return fmt.Sprintf("silkrt: dispatch: %s = %d, want 1, 2 or 3", e.Field, e.Value)
	case RuleUnusedDimension:
		return fmt.Sprintf("silkrt: dispatch: %s = %d in an unused dimension, want 1", e.Field, e.Value)
	case RuleFenceScope:
		return fmt.Sprintf("silkrt: dispatch: %s = %d, want 0 (none), 1 (agent) or 2 (system)", e.Field, e.Value)
	case RuleDepSignals:
		return fmt.Sprintf("silkrt: barrier: %d dependency signals, at most %d", e.Value, e.Limit)
	case RuleBufferSize:
		return fmt.Sprintf("silkrt: dispatch: %s is %d bytes, want %d", e.Field, e.Value, e.Limit)
	}
	return fmt.Sprintf("silkrt: dispatch: %s = %d: %v", e.Field, e.Value, e.Rule)
}

var axis = [3]string{"x", "y", "z"}

// Validate checks c against the dispatch rules in their fixed order and
// returns the first broken one as a *DispatchError.
func (c *DispatchConfig) Validate() error {
	if c.Dimensions < 1 || c.Dimensions > 3 {
		return &DispatchError{Rule: RuleDimensions, Field: "dimensions", Value: uint64(c.Dimensions)}
	}
	wg := [3]uint32{uint32(c.WorkgroupSizeX), uint32(c.WorkgroupSizeY), uint32(c.WorkgroupSizeZ)}
	grid := [3]uint32{c.GridSizeX, c.GridSizeY, c.GridSizeZ}
	for i := range 3 {
		if wg[i] == 0 {
			return &DispatchError{Rule: RuleZeroWorkgroupSize, Field: "workgroup_size_" + axis[i]}
		}
	}
	for i := range 3 {
		if grid[i] == 0 {
			return &DispatchError{Rule: RuleZeroGridSize, Field: "grid_size_" + axis[i]}
		}
	}
	for i := range 3 {
		if grid[i] < wg[i] {
			return &DispatchError{Rule: RuleGridSmallerThanWorkgroup, Field: "grid_size_" + axis[i], Value: uint64(grid[i]), Limit: uint64(wg[i])}
		}
	}
	for i := int(c.Dimensions); i < 3; i++ {
		if wg[i] != 1 {
			return &DispatchError{Rule: RuleUnusedDimension, Field: "workgroup_size_" + axis[i], Value: uint64(wg[i])}
		}
		if grid[i] != 1 {
			return &DispatchError{Rule: RuleUnusedDimension, Field: "grid_size_" + axis[i], Value: uint64(grid[i])}
		}
	}
	limit := uint64(c.MaxFlatWorkgroupSize)
	if limit == 0 {
		limit = DefaultMaxFlatWorkgroupSize
	}
	if flat := uint64(wg[0]) * uint64(wg[1]) * uint64(wg[2]); flat > limit {
		return &DispatchError{Rule: RuleFlatWorkgroupSize, Field: "workgroup_size_x*y*z", Value: flat, Limit: limit}
	}
	if !c.AcquireFenceScope.Valid() {
		return &DispatchError{Rule: RuleFenceScope, Field: "acquire_fence_scope", Value: uint64(c.AcquireFenceScope)}
	}
	if !c.ReleaseFenceScope.Valid() {
		return &DispatchError{Rule: RuleFenceScope, Field: "release_fence_scope", Value: uint64(c.ReleaseFenceScope)}
	}
	return nil
}

// BuildDispatchPacket validates c and returns the kernel dispatch packet it
// describes, with both reserved fields zero.
func BuildDispatchPacket(c *DispatchConfig) (aql.KernelDispatchPacket, error) {
	if err := c.Validate(); err != nil {
		return aql.KernelDispatchPacket{}, err
	}
	return aql.KernelDispatchPacket{
		Header:             aql.MakeHeader(aql.PacketTypeKernelDispatch, c.Barrier, c.AcquireFenceScope, c.ReleaseFenceScope),
		Setup:              c.Dimensions << aql.KernelDispatchPacketSetupDimensions,
		WorkgroupSizeX:     c.WorkgroupSizeX,
		WorkgroupSizeY:     c.WorkgroupSizeY,
		WorkgroupSizeZ:     c.WorkgroupSizeZ,
		GridSizeX:          c.GridSizeX,
		GridSizeY:          c.GridSizeY,
		GridSizeZ:          c.GridSizeZ,
		PrivateSegmentSize: c.PrivateSegmentSize,
		GroupSegmentSize:   c.GroupSegmentSize,
		KernelObject:       c.KernelObject,
		KernargAddress:     c.KernargAddress,
		CompletionSignal:   c.CompletionSignal,
	}, nil
}

// EncodeDispatchPacket zeroes the first 64 bytes of out, validates c and,
// if it is valid, writes the packet there. A short out is a RuleBufferSize
// error and is left untouched.
func EncodeDispatchPacket(c *DispatchConfig, out []byte) error {
	if len(out) < aql.PacketSize {
		return &DispatchError{Rule: RuleBufferSize, Field: "output", Value: uint64(len(out)), Limit: aql.PacketSize}
	}
	clear(out[:aql.PacketSize])
	p, err := BuildDispatchPacket(c)
	if err != nil {
		return err
	}
	p.Encode(out)
	return nil
}

// RuleOf returns the rule of a *DispatchError, RuleOK for nil, and -1 for any
// other error.
func RuleOf(err error) Rule {
	if err == nil {
		return RuleOK
	}
	if de, ok := err.(*DispatchError); ok {
		return de.Rule
	}
	return -1
}

// Layout of the C struct SilkAmdGpuAqlDispatchPacketConfig (silk.h) on LP64
// targets; the C test program asserts the same numbers with offsetof.
const (
	CConfigOffsetDimensions           = 0
	CConfigOffsetWorkgroupSizeX       = 2
	CConfigOffsetWorkgroupSizeY       = 4
	CConfigOffsetWorkgroupSizeZ       = 6
	CConfigOffsetGridSizeX            = 8
	CConfigOffsetGridSizeY            = 12
	CConfigOffsetGridSizeZ            = 16
	CConfigOffsetPrivateSegmentSize   = 20
	CConfigOffsetGroupSegmentSize     = 24
	CConfigOffsetMaxFlatWorkgroupSize = 28
	CConfigOffsetKernelObject         = 32
	CConfigOffsetKernargAddress       = 40
	CConfigOffsetCompletionSignal     = 48
	CConfigOffsetBarrier              = 56
	CConfigOffsetAcquireFenceScope    = 60
	CConfigOffsetReleaseFenceScope    = 64
	// CConfigSize is sizeof(SilkAmdGpuAqlDispatchPacketConfig).
	CConfigSize = 72
)

// DecodeCConfig reads a SilkAmdGpuAqlDispatchPacketConfig from its C memory
// image (at least CConfigSize bytes, native little-endian). A barrier byte
// other than 0 sets the barrier bit. Fence scopes outside 0-255 are mapped
// to 255 so that validation rejects them.
func DecodeCConfig(b []byte) DispatchConfig {
	_ = b[CConfigSize-1]
	u16 := func(o int) uint16 { return uint16(b[o]) | uint16(b[o+1])<<8 }
	u32 := func(o int) uint32 { return uint32(u16(o)) | uint32(u16(o+2))<<16 }
	u64 := func(o int) uint64 { return uint64(u32(o)) | uint64(u32(o+4))<<32 }
	scope := func(o int) aql.FenceScope {
		v := int32(u32(o))
		if v < 0 || v > 255 {
			return 255
		}
		return aql.FenceScope(v)
	}
	return DispatchConfig{
		Dimensions:           u16(CConfigOffsetDimensions),
		WorkgroupSizeX:       u16(CConfigOffsetWorkgroupSizeX),
		WorkgroupSizeY:       u16(CConfigOffsetWorkgroupSizeY),
		WorkgroupSizeZ:       u16(CConfigOffsetWorkgroupSizeZ),
		GridSizeX:            u32(CConfigOffsetGridSizeX),
		GridSizeY:            u32(CConfigOffsetGridSizeY),
		GridSizeZ:            u32(CConfigOffsetGridSizeZ),
		PrivateSegmentSize:   u32(CConfigOffsetPrivateSegmentSize),
		GroupSegmentSize:     u32(CConfigOffsetGroupSegmentSize),
		MaxFlatWorkgroupSize: u32(CConfigOffsetMaxFlatWorkgroupSize),
		KernelObject:         u64(CConfigOffsetKernelObject),
		KernargAddress:       u64(CConfigOffsetKernargAddress),
		CompletionSignal:     u64(CConfigOffsetCompletionSignal),
		Barrier:              b[CConfigOffsetBarrier] != 0,
		AcquireFenceScope:    scope(CConfigOffsetAcquireFenceScope),
		ReleaseFenceScope:    scope(CConfigOffsetReleaseFenceScope),
	}
}

// BuildDispatchPacketC implements the C function
// silk_amdgpu_aql_dispatch_packet_build for the cgo export wrappers in
// c/libsilk and shim: cfg points to a SilkAmdGpuAqlDispatchPacketConfig and
// out to 64 writable bytes. It zeroes out (when not NULL), validates and
// writes the packet, and returns the rule number as the status.
func BuildDispatchPacketC(cfg, out unsafe.Pointer) int32 {
	if out == nil {
		return int32(RuleNullPointer)
	}
	o := unsafe.Slice((*byte)(out), aql.PacketSize)
	clear(o)
	if cfg == nil {
		return int32(RuleNullPointer)
	}
	c := DecodeCConfig(unsafe.Slice((*byte)(cfg), CConfigSize))
	return int32(RuleOf(EncodeDispatchPacket(&c, o)))
}

// BarrierConfig describes a barrier-AND or barrier-OR packet.
type BarrierConfig struct {
	// Or selects BARRIER_OR (complete when any dependency is satisfied);
	// false selects BARRIER_AND (all of them).
	Or bool
	// DepSignals are the hsa_signal_t handles to wait on, at most
	// aql.NumBarrierDepSignals; unused slots are written as 0.
	DepSignals []uint64
	// CompletionSignal is the hsa_signal_t handle, 0 for none.
	CompletionSignal uint64
	// Barrier sets the header barrier bit.
	Barrier bool
	// AcquireFenceScope and ReleaseFenceScope go to the header.
	AcquireFenceScope, ReleaseFenceScope aql.FenceScope
}

// RuleDepSignals: a barrier packet has more than five dependency signals.
const RuleDepSignals Rule = 10

// BuildBarrierPacket validates c and returns the barrier packet.
func BuildBarrierPacket(c *BarrierConfig) (aql.BarrierPacket, error) {
	if len(c.DepSignals) > aql.NumBarrierDepSignals {
		return aql.BarrierPacket{}, &DispatchError{Rule: RuleDepSignals, Field: "dep_signal", Value: uint64(len(c.DepSignals)), Limit: aql.NumBarrierDepSignals}
	}
	if !c.AcquireFenceScope.Valid() {
		return aql.BarrierPacket{}, &DispatchError{Rule: RuleFenceScope, Field: "acquire_fence_scope", Value: uint64(c.AcquireFenceScope)}
	}
	if !c.ReleaseFenceScope.Valid() {
		return aql.BarrierPacket{}, &DispatchError{Rule: RuleFenceScope, Field: "release_fence_scope", Value: uint64(c.ReleaseFenceScope)}
	}
	t := aql.PacketTypeBarrierAnd
	if c.Or {
		t = aql.PacketTypeBarrierOr
	}
	p := aql.BarrierPacket{
		Header:           aql.MakeHeader(t, c.Barrier, c.AcquireFenceScope, c.ReleaseFenceScope),
		CompletionSignal: c.CompletionSignal,
	}
	copy(p.DepSignal[:], c.DepSignals)
	return p, nil
}
