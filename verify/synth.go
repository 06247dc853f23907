package verify

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/rocjitsu/rocjitsu/hsa/sim"
)

// Pager window: pointers the harness synthesizes, and every address a
// kernel computes from them, fall in [PagerLo, PagerHi), which both sides
// materialize on demand with the same content. The simulator's own
// allocations (code, kernarg segments, sidecar backing stores) live above
// PagerHi (package mem's Base).
const (
	PagerLo = 0x0000_0100_0000_0000
	PagerHi = 0x0000_7e00_0000_0000
	// regionStride separates the regions of pointer arguments.
	regionStride = 1 << 36
)

// maxKernarg bounds the kernarg segment Synthesize accepts.
const maxKernarg = 1 << 16

// Args are synthesized kernel arguments.
type Args struct {
	// Kernarg holds the explicit arguments at their metadata offsets.
	Kernarg []byte
	// Pointers are the addresses given to pointer arguments, in argument
	// order.
	Pointers []uint64
}

// Synthesize makes the explicit kernel arguments of a kernel from its
// metadata (args, and size, the kernarg segment size): every pointer
// argument (global_buffer) gets a distinct region of the pager window;
// by-value arguments named "pad" (or bigger than 8 bytes) are zero, the
// other by-value integers get small values (1 to 4) derived from seed and
// their offset, so that loop counts and sizes stay small;
// dynamic_shared_pointer is 0. Hidden arguments are left to the simulator.
// An argument outside the segment is an error naming it and its offset.
func Synthesize(args []sim.Arg, size int, seed uint64) (Args, error) {
	return SynthesizeWith(args, size, seed, nil)
}

// SynthesizeWith is Synthesize for kernels whose code shows which kernarg
// bytes are 64-bit: inside a by-value argument of more than 8 bytes (a
// struct), every 8-byte slot whose offset is in pointers gets a pointer
// region of its own and every other 4-byte slot a small integer, instead of
// zeros.
func SynthesizeWith(args []sim.Arg, size int, seed uint64, pointers map[int]bool) (Args, error) {
	if size < 0 || size > maxKernarg {
		return Args{}, fmt.Errorf("verify: kernarg segment size %d is outside [0, %d]", size, maxKernarg)
	}
	out := Args{Kernarg: make([]byte, size)}
	le := binary.LittleEndian
	for i, a := range args {
		if a.Hidden() {
			continue
		}
		if a.Offset < 0 || a.Size < 0 || a.Offset > size || a.Size > size-a.Offset {
			return Args{}, fmt.Errorf("verify: argument %d (%q, %s) at offset %d of %d bytes is outside the %d-byte kernarg segment", i, a.Name, a.ValueKind, a.Offset, a.Size, size)
		}
		b := out.Kernarg[a.Offset : a.Offset+a.Size]
		switch a.ValueKind {
		case "global_buffer", "image", "sampler", "pipe", "queue":
			p := uint64(PagerLo) + uint64(len(out.Pointers)+1)*regionStride
			if p >= PagerHi {
				return Args{}, fmt.Errorf("verify: argument %d at offset %d: more pointer arguments than pager regions", i, a.Offset)
			}
			out.Pointers = append(out.Pointers, p)
			switch a.Size {
			case 8:
				le.PutUint64(b, p)
			case 4:
				le.PutUint32(b, uint32(p))
			default:
				return Args{}, fmt.Errorf("verify: argument %d (%q) at offset %d: pointer of %d bytes", i, a.Name, a.Offset, a.Size)
			}
		case "by_value":
			if a.Size > 8 && len(pointers) > 0 {
				for o := 0; o+4 <= a.Size; o += 4 {
					at := a.Offset + o
					if pointers[at] && at%8 == 0 && o+8 <= a.Size {
						p := uint64(PagerLo) + uint64(len(out.Pointers)+1)*regionStride
						if p >= PagerHi {
							return Args{}, fmt.Errorf("verify: argument %d at offset %d: more pointer arguments than pager regions", i, at)
						}
						out.Pointers = append(out.Pointers, p)
						le.PutUint64(b[o:], p)
						o += 4
						continue
					}
					le.PutUint32(b[o:], uint32(1+mix(seed^uint64(at)*0x9e37)%4))
				}
				continue
			}
			if strings.HasPrefix(strings.ToLower(a.Name), "pad") || strings.HasPrefix(a.Name, "_pad") || a.Size > 8 {
				continue
			}
			v := 1 + mix(seed^uint64(a.Offset)*0x9e37)%4
			switch a.Size {
			case 1:
				b[0] = byte(v)
			case 2:
				le.PutUint16(b, uint16(v))
			case 4:
				le.PutUint32(b, uint32(v))
			case 8:
				le.PutUint64(b, v)
			}
		}
	}
	return out, nil
}

// mix is splitmix64's finalizer.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
