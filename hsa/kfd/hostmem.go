package kfd

import "unsafe"

// hostBytes returns the process memory [addr, addr+n) as a slice. The
// driver runs inside the process whose pointers it receives, as a kernel
// driver runs in the address space of the calling process; callers check
// that the range is one the application handed over (an ioctl argument,
// a user-pointer allocation) before touching it.
func hostBytes(addr, n uint64) []byte {
	if addr == 0 || n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(nil), uintptr(addr))), int(n))
}

// argBytes returns the ioctl argument of size bytes at p.
func argBytes(p unsafe.Pointer, size uint32) []byte {
	if p == nil || size == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), int(size))
}

// as overlays a C argument struct on its bytes; the caller has checked
// len(b) >= unsafe.Sizeof(T).
func as[T any](b []byte) *T { return (*T)(unsafe.Pointer(&b[0])) }
