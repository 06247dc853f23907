// Package aql defines the HSA Architected Queuing Language (AQL) packet
// layouts: the 64-byte kernel dispatch, barrier-AND, barrier-OR and agent
// dispatch packets, the packet header bit fields, packet type and fence scope
// constants, and encoding to and decoding from the exact byte image that sits
// in a user-mode queue.
//
// Names mirror HSA's hsa.h: KernelDispatchPacket is hsa_kernel_dispatch_packet_t,
// BarrierAndPacket is hsa_barrier_and_packet_t, and the Offset constants give
// the byte offset of each C field (OffsetGridSizeX is offsetof(grid_size_x)).
// All multi-byte fields are little-endian.
//
// The package does no policy checks (dimension counts, size limits); callers
// that build packets for submission validate them (see silkrt). Decoding
// checks only what is needed to read the bytes safely: the buffer length and
// the packet type in the header.
//
// When writing a packet into a live queue, write the body first and publish
// the first 32 bits (header and setup) last with a single atomic store;
// HeaderSetupWord returns that word.
package aql

import (
	"encoding/binary"
	"fmt"
)

// PacketSize is the size in bytes of every AQL packet.
const PacketSize = 64

// PacketType is the packet type in bits 0-7 of the header (hsa_packet_type_t).
type PacketType uint8

// Packet types (hsa_packet_type_t).
const (
	// PacketTypeVendorSpecific is HSA_PACKET_TYPE_VENDOR_SPECIFIC.
	PacketTypeVendorSpecific PacketType = 0
	// PacketTypeInvalid is HSA_PACKET_TYPE_INVALID: the slot holds no packet
	// (the packet processor stops at it).
	PacketTypeInvalid PacketType = 1
	// PacketTypeKernelDispatch is HSA_PACKET_TYPE_KERNEL_DISPATCH.
	PacketTypeKernelDispatch PacketType = 2
	// PacketTypeBarrierAnd is HSA_PACKET_TYPE_BARRIER_AND.
	PacketTypeBarrierAnd PacketType = 3
	// PacketTypeAgentDispatch is HSA_PACKET_TYPE_AGENT_DISPATCH.
	PacketTypeAgentDispatch PacketType = 4
	// PacketTypeBarrierOr is HSA_PACKET_TYPE_BARRIER_OR.
	PacketTypeBarrierOr PacketType = 5
)

// String returns the HSA name of the packet type without its prefix, for
// example "KERNEL_DISPATCH".
func (t PacketType) String() string {
	switch t {
	case PacketTypeVendorSpecific:
		return "VENDOR_SPECIFIC"
	case PacketTypeInvalid:
		return "INVALID"
	case PacketTypeKernelDispatch:
		return "KERNEL_DISPATCH"
	case PacketTypeBarrierAnd:
		return "BARRIER_AND"
	case PacketTypeAgentDispatch:
		return "AGENT_DISPATCH"
	case PacketTypeBarrierOr:
		return "BARRIER_OR"
	}
	return fmt.Sprintf("PacketType(%d)", uint8(t))
}

// FenceScope is a memory fence scope (hsa_fence_scope_t) as stored in the
// two-bit acquire and release fields of the header.
type FenceScope uint8

// Fence scopes (hsa_fence_scope_t).
const (
	// FenceScopeNone is HSA_FENCE_SCOPE_NONE.
	FenceScopeNone FenceScope = 0
	// FenceScopeAgent is HSA_FENCE_SCOPE_AGENT.
	FenceScopeAgent FenceScope = 1
	// FenceScopeSystem is HSA_FENCE_SCOPE_SYSTEM.
	FenceScopeSystem FenceScope = 2
)

// String returns "NONE", "AGENT", "SYSTEM" or FenceScope(n) for the reserved
// value 3.
func (s FenceScope) String() string {
	switch s {
	case FenceScopeNone:
		return "NONE"
	case FenceScopeAgent:
		return "AGENT"
	case FenceScopeSystem:
		return "SYSTEM"
	}
	return fmt.Sprintf("FenceScope(%d)", uint8(s))
}

// Valid reports whether s is one of the three defined scopes.
func (s FenceScope) Valid() bool { return s <= FenceScopeSystem }

// Header bit positions and widths (hsa_packet_header_t and
// hsa_packet_header_width_t).
const (
	// HeaderType is the bit offset of the packet type (HSA_PACKET_HEADER_TYPE).
	HeaderType = 0
	// HeaderBarrier is the bit offset of the barrier bit
	// (HSA_PACKET_HEADER_BARRIER).
	HeaderBarrier = 8
	// HeaderScacquireFenceScope is the bit offset of the acquire fence scope
	// (HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE).
	HeaderScacquireFenceScope = 9
	// HeaderScreleaseFenceScope is the bit offset of the release fence scope
	// (HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE).
	HeaderScreleaseFenceScope = 11

	// HeaderWidthType is the width in bits of the packet type.
	HeaderWidthType = 8
	// HeaderWidthBarrier is the width in bits of the barrier bit.
	HeaderWidthBarrier = 1
	// HeaderWidthScacquireFenceScope is the width in bits of the acquire scope.
	HeaderWidthScacquireFenceScope = 2
	// HeaderWidthScreleaseFenceScope is the width in bits of the release scope.
	HeaderWidthScreleaseFenceScope = 2
)

// Kernel dispatch setup bit fields (hsa_kernel_dispatch_packet_setup_t).
const (
	// KernelDispatchPacketSetupDimensions is the bit offset of the
	// dimension count in the setup field
	// (HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS).
	KernelDispatchPacketSetupDimensions = 0
	// KernelDispatchPacketSetupWidthDimensions is the width in bits of the
	// dimension count.
	KernelDispatchPacketSetupWidthDimensions = 2
)

// Header is the 16-bit packet header shared by every AQL packet type.
type Header uint16

// MakeHeader assembles a header. Fence scopes are truncated to their two-bit
// fields; use FenceScope.Valid to reject the reserved value first.
func MakeHeader(t PacketType, barrier bool, acquire, release FenceScope) Header {
	h := uint16(t) << HeaderType
	if barrier {
		h |= 1 << HeaderBarrier
	}
	h |= uint16(acquire&3) << HeaderScacquireFenceScope
	h |= uint16(release&3) << HeaderScreleaseFenceScope
	return Header(h)
}

// Type returns the packet type (bits 0-7).
func (h Header) Type() PacketType { return PacketType(h >> HeaderType) }

// Barrier reports whether the barrier bit (bit 8) is set.
func (h Header) Barrier() bool { return h>>HeaderBarrier&1 != 0 }

// AcquireFenceScope returns the acquire fence scope (bits 9-10).
func (h Header) AcquireFenceScope() FenceScope {
	return FenceScope(h >> HeaderScacquireFenceScope & 3)
}

// ReleaseFenceScope returns the release fence scope (bits 11-12).
func (h Header) ReleaseFenceScope() FenceScope {
	return FenceScope(h >> HeaderScreleaseFenceScope & 3)
}

// Reserved returns bits 13-15, which HSA reserves and requires to be zero.
func (h Header) Reserved() uint16 { return uint16(h) >> 13 }

// String formats the header as its fields, for example
// "KERNEL_DISPATCH barrier acquire=SYSTEM release=SYSTEM".
func (h Header) String() string {
	s := h.Type().String()
	if h.Barrier() {
		s += " barrier"
	}
	s += " acquire=" + h.AcquireFenceScope().String() + " release=" + h.ReleaseFenceScope().String()
	if r := h.Reserved(); r != 0 {
		s += fmt.Sprintf(" reserved=%#x", r)
	}
	return s
}

// Byte offsets of the fields of hsa_kernel_dispatch_packet_t.
const (
	OffsetHeader             = 0  // uint16 header
	OffsetSetup              = 2  // uint16 setup
	OffsetWorkgroupSizeX     = 4  // uint16 workgroup_size_x
	OffsetWorkgroupSizeY     = 6  // uint16 workgroup_size_y
	OffsetWorkgroupSizeZ     = 8  // uint16 workgroup_size_z
	OffsetReserved0          = 10 // uint16 reserved0, must be 0
	OffsetGridSizeX          = 12 // uint32 grid_size_x
	OffsetGridSizeY          = 16 // uint32 grid_size_y
	OffsetGridSizeZ          = 20 // uint32 grid_size_z
	OffsetPrivateSegmentSize = 24 // uint32 private_segment_size
	OffsetGroupSegmentSize   = 28 // uint32 group_segment_size
	OffsetKernelObject       = 32 // uint64 kernel_object
	OffsetKernargAddress     = 40 // void* kernarg_address (64-bit)
	OffsetReserved2          = 48 // uint64 reserved2, must be 0
	OffsetCompletionSignal   = 56 // hsa_signal_t completion_signal
)

// Byte offsets of the fields of hsa_barrier_and_packet_t and
// hsa_barrier_or_packet_t (the two share one layout).
const (
	OffsetBarrierReserved0        = 2  // uint16 reserved0, must be 0
	OffsetBarrierReserved1        = 4  // uint32 reserved1, must be 0
	OffsetBarrierDepSignal        = 8  // hsa_signal_t dep_signal[5], 8 bytes each
	OffsetBarrierReserved2        = 48 // uint64 reserved2, must be 0
	OffsetBarrierCompletionSignal = 56 // hsa_signal_t completion_signal
)

// NumBarrierDepSignals is the number of dependency signal slots in a
// barrier packet.
const NumBarrierDepSignals = 5

// Byte offsets of the fields of hsa_agent_dispatch_packet_t.
const (
	OffsetAgentType             = 2  // uint16 type (application-defined function code)
	OffsetAgentReserved0        = 4  // uint32 reserved0, must be 0
	OffsetAgentReturnAddress    = 8  // void* return_address
	OffsetAgentArg              = 16 // uint64 arg[4]
	OffsetAgentReserved2        = 48 // uint64 reserved2, must be 0
	OffsetAgentCompletionSignal = 56 // hsa_signal_t completion_signal
)

// DecodeError reports a packet that cannot be decoded, naming the byte offset
// and the field.
type DecodeError struct {
	// Offset is the byte offset in the packet where the problem is.
	Offset int
	// Field is the HSA name of the field, for example "header.type".
	Field string
	// Msg says what is wrong.
	Msg string
}

// Error formats the error as "aql: offset N (field): message".
func (e *DecodeError) Error() string {
	return fmt.Sprintf("aql: offset %d (%s): %s", e.Offset, e.Field, e.Msg)
}

var le = binary.LittleEndian

// ReadHeader returns the header of the packet at the start of b.
func ReadHeader(b []byte) (Header, error) {
	if len(b) < 2 {
		return 0, &DecodeError{Offset: len(b), Field: "header", Msg: fmt.Sprintf("need 2 bytes, have %d", len(b))}
	}
	return Header(le.Uint16(b)), nil
}

func checkPacket(b []byte, want ...PacketType) (Header, error) {
	if len(b) < PacketSize {
		return 0, &DecodeError{Offset: len(b), Field: "packet", Msg: fmt.Sprintf("need %d bytes, have %d", PacketSize, len(b))}
	}
	h := Header(le.Uint16(b))
	for _, t := range want {
		if h.Type() == t {
			return h, nil
		}
	}
	return 0, &DecodeError{Offset: OffsetHeader, Field: "header.type", Msg: fmt.Sprintf("packet type %v, want %v", h.Type(), want[0])}
}

// HeaderSetupWord returns the first 32 bits of a packet: header in the low
// half, the type-specific 16 bits (setup, reserved0 or type) in the high half.
// Publishing a packet stores this word last, atomically.
func HeaderSetupWord(header Header, setup uint16) uint32 {
	return uint32(header) | uint32(setup)<<16
}

// KernelDispatchPacket is hsa_kernel_dispatch_packet_t.
type KernelDispatchPacket struct {
	Header             Header // packet header; type KERNEL_DISPATCH
	Setup              uint16 // bits 0-1: number of dimensions (1-3)
	WorkgroupSizeX     uint16 // work-items per workgroup in X
	WorkgroupSizeY     uint16 // work-items per workgroup in Y
	WorkgroupSizeZ     uint16 // work-items per workgroup in Z
	Reserved0          uint16 // must be 0
	GridSizeX          uint32 // work-items in the grid in X
	GridSizeY          uint32 // work-items in the grid in Y
	GridSizeZ          uint32 // work-items in the grid in Z
	PrivateSegmentSize uint32 // bytes of private memory per work-item
	GroupSegmentSize   uint32 // bytes of group (LDS) memory per workgroup
	KernelObject       uint64 // address of the kernel descriptor
	KernargAddress     uint64 // address of the kernel argument buffer
	Reserved2          uint64 // must be 0
	CompletionSignal   uint64 // hsa_signal_t handle; 0 for none
}

// Dimensions returns the dimension count from the setup field (0-3; only 1-3
// are valid).
func (p *KernelDispatchPacket) Dimensions() int {
	return int(p.Setup >> KernelDispatchPacketSetupDimensions & (1<<KernelDispatchPacketSetupWidthDimensions - 1))
}

// Encode writes the 64-byte packet into b, which must be at least
// PacketSize long (it panics otherwise, like binary.LittleEndian.PutUint64).
// It writes every field including the header; see HeaderSetupWord for the
// publication order in a live queue.
func (p *KernelDispatchPacket) Encode(b []byte) {
	_ = b[PacketSize-1]
	le.PutUint16(b[OffsetHeader:], uint16(p.Header))
	le.PutUint16(b[OffsetSetup:], p.Setup)
	le.PutUint16(b[OffsetWorkgroupSizeX:], p.WorkgroupSizeX)
	le.PutUint16(b[OffsetWorkgroupSizeY:], p.WorkgroupSizeY)
	le.PutUint16(b[OffsetWorkgroupSizeZ:], p.WorkgroupSizeZ)
	le.PutUint16(b[OffsetReserved0:], p.Reserved0)
	le.PutUint32(b[OffsetGridSizeX:], p.GridSizeX)
	le.PutUint32(b[OffsetGridSizeY:], p.GridSizeY)
	le.PutUint32(b[OffsetGridSizeZ:], p.GridSizeZ)
	le.PutUint32(b[OffsetPrivateSegmentSize:], p.PrivateSegmentSize)
	le.PutUint32(b[OffsetGroupSegmentSize:], p.GroupSegmentSize)
	le.PutUint64(b[OffsetKernelObject:], p.KernelObject)
	le.PutUint64(b[OffsetKernargAddress:], p.KernargAddress)
	le.PutUint64(b[OffsetReserved2:], p.Reserved2)
	le.PutUint64(b[OffsetCompletionSignal:], p.CompletionSignal)
}

// Bytes returns the 64-byte encoding of the packet.
func (p *KernelDispatchPacket) Bytes() [PacketSize]byte {
	var b [PacketSize]byte
	p.Encode(b[:])
	return b
}

// DecodeKernelDispatchPacket reads a kernel dispatch packet from the first 64
// bytes of b. It fails if b is short or the header type is not
// KERNEL_DISPATCH; reserved fields are returned as found.
func DecodeKernelDispatchPacket(b []byte) (KernelDispatchPacket, error) {
	h, err := checkPacket(b, PacketTypeKernelDispatch)
	if err != nil {
		return KernelDispatchPacket{}, err
	}
	return KernelDispatchPacket{
		Header:             h,
		Setup:              le.Uint16(b[OffsetSetup:]),
		WorkgroupSizeX:     le.Uint16(b[OffsetWorkgroupSizeX:]),
		WorkgroupSizeY:     le.Uint16(b[OffsetWorkgroupSizeY:]),
		WorkgroupSizeZ:     le.Uint16(b[OffsetWorkgroupSizeZ:]),
		Reserved0:          le.Uint16(b[OffsetReserved0:]),
		GridSizeX:          le.Uint32(b[OffsetGridSizeX:]),
		GridSizeY:          le.Uint32(b[OffsetGridSizeY:]),
		GridSizeZ:          le.Uint32(b[OffsetGridSizeZ:]),
		PrivateSegmentSize: le.Uint32(b[OffsetPrivateSegmentSize:]),
		GroupSegmentSize:   le.Uint32(b[OffsetGroupSegmentSize:]),
		KernelObject:       le.Uint64(b[OffsetKernelObject:]),
		KernargAddress:     le.Uint64(b[OffsetKernargAddress:]),
		Reserved2:          le.Uint64(b[OffsetReserved2:]),
		CompletionSignal:   le.Uint64(b[OffsetCompletionSignal:]),
	}, nil
}

// BarrierPacket is hsa_barrier_and_packet_t and hsa_barrier_or_packet_t; the
// header type (BARRIER_AND or BARRIER_OR) says which. A zero DepSignal entry
// means no dependency in that slot.
type BarrierPacket struct {
	Header           Header                       // packet header; type BARRIER_AND or BARRIER_OR
	Reserved0        uint16                       // must be 0
	Reserved1        uint32                       // must be 0
	DepSignal        [NumBarrierDepSignals]uint64 // hsa_signal_t handles; 0 for an empty slot
	Reserved2        uint64                       // must be 0
	CompletionSignal uint64                       // hsa_signal_t handle; 0 for none
}

// Encode writes the 64-byte packet into b, which must be at least
// PacketSize long.
func (p *BarrierPacket) Encode(b []byte) {
	_ = b[PacketSize-1]
	le.PutUint16(b[OffsetHeader:], uint16(p.Header))
	le.PutUint16(b[OffsetBarrierReserved0:], p.Reserved0)
	le.PutUint32(b[OffsetBarrierReserved1:], p.Reserved1)
	for i, s := range p.DepSignal {
		le.PutUint64(b[OffsetBarrierDepSignal+8*i:], s)
	}
	le.PutUint64(b[OffsetBarrierReserved2:], p.Reserved2)
	le.PutUint64(b[OffsetBarrierCompletionSignal:], p.CompletionSignal)
}

// Bytes returns the 64-byte encoding of the packet.
func (p *BarrierPacket) Bytes() [PacketSize]byte {
	var b [PacketSize]byte
	p.Encode(b[:])
	return b
}

// DecodeBarrierPacket reads a barrier-AND or barrier-OR packet from the first
// 64 bytes of b.
func DecodeBarrierPacket(b []byte) (BarrierPacket, error) {
	h, err := checkPacket(b, PacketTypeBarrierAnd, PacketTypeBarrierOr)
	if err != nil {
		return BarrierPacket{}, err
	}
	p := BarrierPacket{
		Header:           h,
		Reserved0:        le.Uint16(b[OffsetBarrierReserved0:]),
		Reserved1:        le.Uint32(b[OffsetBarrierReserved1:]),
		Reserved2:        le.Uint64(b[OffsetBarrierReserved2:]),
		CompletionSignal: le.Uint64(b[OffsetBarrierCompletionSignal:]),
	}
	for i := range p.DepSignal {
		p.DepSignal[i] = le.Uint64(b[OffsetBarrierDepSignal+8*i:])
	}
	return p, nil
}

// AgentDispatchPacket is hsa_agent_dispatch_packet_t.
type AgentDispatchPacket struct {
	Header           Header    // packet header; type AGENT_DISPATCH
	Type             uint16    // application-defined function code
	Reserved0        uint32    // must be 0
	ReturnAddress    uint64    // where the agent stores its result
	Arg              [4]uint64 // function arguments
	Reserved2        uint64    // must be 0
	CompletionSignal uint64    // hsa_signal_t handle; 0 for none
}

// Encode writes the 64-byte packet into b, which must be at least
// PacketSize long.
func (p *AgentDispatchPacket) Encode(b []byte) {
	_ = b[PacketSize-1]
	le.PutUint16(b[OffsetHeader:], uint16(p.Header))
	le.PutUint16(b[OffsetAgentType:], p.Type)
	le.PutUint32(b[OffsetAgentReserved0:], p.Reserved0)
	le.PutUint64(b[OffsetAgentReturnAddress:], p.ReturnAddress)
	for i, a := range p.Arg {
		le.PutUint64(b[OffsetAgentArg+8*i:], a)
	}
	le.PutUint64(b[OffsetAgentReserved2:], p.Reserved2)
	le.PutUint64(b[OffsetAgentCompletionSignal:], p.CompletionSignal)
}

// DecodeAgentDispatchPacket reads an agent dispatch packet from the first 64
// bytes of b.
func DecodeAgentDispatchPacket(b []byte) (AgentDispatchPacket, error) {
	h, err := checkPacket(b, PacketTypeAgentDispatch)
	if err != nil {
		return AgentDispatchPacket{}, err
	}
	p := AgentDispatchPacket{
		Header:           h,
		Type:             le.Uint16(b[OffsetAgentType:]),
		Reserved0:        le.Uint32(b[OffsetAgentReserved0:]),
		ReturnAddress:    le.Uint64(b[OffsetAgentReturnAddress:]),
		Reserved2:        le.Uint64(b[OffsetAgentReserved2:]),
		CompletionSignal: le.Uint64(b[OffsetAgentCompletionSignal:]),
	}
	for i := range p.Arg {
		p.Arg[i] = le.Uint64(b[OffsetAgentArg+8*i:])
	}
	return p, nil
}
