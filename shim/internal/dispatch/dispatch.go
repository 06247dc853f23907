// Package dispatch decides how the shim rewrites an AQL kernel dispatch
// packet for a translated kernel. HIP fills group_segment_size,
// private_segment_size and the kernarg buffer from the metadata of the
// original (guest) code object; when the translated descriptor asks for more,
// the packet must be fixed on its way to the hardware. Plan compares the two
// descriptors and returns the recipe that the C intercept handler applies.
package dispatch

import (
	"fmt"

	"github.com/rocjitsu/rocjitsu/shim/internal/codeobj"
)

// NoPointer in Entry.PtrOffset means the kernarg wrapper carries no copy of
// the original kernarg pointer.
const NoPointer = ^uint32(0)

// Entry is the rewrite for one kernel object. The zero Entry changes
// nothing.
type Entry struct {
	// NewKernelObject replaces the packet's kernel_object when non-zero
	// (virtual-LDS sidecars).
	NewKernelObject uint64
	// GroupAdd is added to the packet's group_segment_size (the guest's
	// dynamic LDS is kept).
	GroupAdd uint32
	// GroupZero sets group_segment_size to 0 (virtual-LDS sidecars).
	GroupZero bool
	// PrivateMin raises private_segment_size to at least this.
	PrivateMin uint32
	// KernargSize, when non-zero, makes the handler build a new kernarg
	// buffer of this size: CopySize bytes of the application's kernargs,
	// zero padding, the original kernarg pointer at PtrOffset (unless
	// NoPointer) and Payload right after it.
	KernargSize uint32
	CopySize    uint32
	PtrOffset   uint32
	Payload     []byte
	// VLDS, when set, lets the handler switch a dispatch to the kernel's
	// virtual-LDS sidecar when its LDS request exceeds the host's.
	VLDS *VirtualLDS
}

// VirtualLDS is the per-dispatch virtual-LDS decision's input, from the
// translated object's .rocjitsu.lds entry. When requested_lds =
// max(StaticLDS, packet group_segment_size) exceeds HostLDS, the handler
// allocates a backing store of one 256-byte-aligned requested_lds slice per
// workgroup, builds the wrapper (WrapperSize bytes: Prefix guest kernarg
// bytes, the original kernarg pointer at PtrOffset, the 24-byte
// VirtualLdsDispatchState at StateOffset), switches kernel_object to
// KernelObject, sets group_segment_size to 0 and private_segment_size to at
// least Private. Other dispatches run the normal kernel.
type VirtualLDS struct {
	KernelObject                                uint64
	StaticLDS, HostLDS, Private                 uint32
	Prefix, PtrOffset, StateOffset, WrapperSize uint32
	// Flags has bit d set when the sidecar reads the workgroup ID of
	// dimension d; a dispatch with more than one workgroup in a dimension
	// without it runs the normal kernel.
	Flags uint32
}

// IsZero reports whether the entry leaves packets unchanged.
func (e Entry) IsZero() bool {
	return e.NewKernelObject == 0 && e.GroupAdd == 0 && !e.GroupZero && e.PrivateMin == 0 && e.KernargSize == 0 && e.VLDS == nil
}

// String describes the entry for logs.
func (e Entry) String() string {
	if e.IsZero() {
		return "pass-through"
	}
	s := fmt.Sprintf("group+%d private>=%d", e.GroupAdd, e.PrivateMin)
	if v := e.VLDS; v != nil {
		s += fmt.Sprintf("; virtual-LDS sidecar %#x when LDS > %d (static %d, wrapper %d bytes)", v.KernelObject, v.HostLDS, v.StaticLDS, v.WrapperSize)
	}
	if e.GroupZero {
		s = fmt.Sprintf("group=0 private>=%d", e.PrivateMin)
	}
	if e.NewKernelObject != 0 {
		s += fmt.Sprintf(" kernel_object=%#x", e.NewKernelObject)
	}
	if e.KernargSize != 0 {
		s += fmt.Sprintf(" kernarg %d->%d", e.CopySize, e.KernargSize)
		if e.PtrOffset != NoPointer {
			s += fmt.Sprintf(" (original pointer at %d, %d payload bytes)", e.PtrOffset, len(e.Payload))
		}
	}
	return s
}

// MaxKernarg is the largest kernarg buffer the handler builds (its pool slot
// size).
const MaxKernarg = 4096

// Plan compares the descriptor the application was built against (guest)
// with the one that will run (host). The kernarg wrapper follows the DBT
// seed's kernarg extension: guest bytes, padding to 8, the original pointer,
// then the payload (zeros here; translators that need payload data supply it
// through the entry later).
func Plan(guest, host codeobj.Descriptor) (Entry, error) {
	return PlanArgs(guest, host, guest.KernargSize)
}

// PlanArgs is Plan when the application's kernarg buffer holds appKernarg
// bytes: HIP sizes and fills it from the code object's metadata
// (.kernarg_segment_size), which hand-written kernels can have larger than
// their descriptor's kernarg_size. The larger of the two is what the wrapper
// copies and what the translated descriptor is compared with.
func PlanArgs(guest, host codeobj.Descriptor, appKernarg uint32) (Entry, error) {
	if guest.KernargSize > appKernarg {
		appKernarg = guest.KernargSize
	}
	guest.KernargSize = appKernarg
	var e Entry
	if host.GroupSegmentFixedSize > guest.GroupSegmentFixedSize {
		e.GroupAdd = host.GroupSegmentFixedSize - guest.GroupSegmentFixedSize
	}
	if host.PrivateSegmentFixedSize > guest.PrivateSegmentFixedSize {
		e.PrivateMin = host.PrivateSegmentFixedSize
	}
	if host.KernargSize > guest.KernargSize {
		if host.KernargSize > MaxKernarg {
			return Entry{}, fmt.Errorf("dispatch: translated kernarg segment of %d bytes exceeds the %d-byte pool slot", host.KernargSize, MaxKernarg)
		}
		e.KernargSize = host.KernargSize
		e.CopySize = guest.KernargSize
		e.PtrOffset = NoPointer
		if p := (guest.KernargSize + 7) &^ 7; p+8 <= host.KernargSize {
			e.PtrOffset = p
			e.Payload = make([]byte, host.KernargSize-p-8)
		}
	}
	return e, nil
}
