package kfd

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

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

var selfPid = unix.Getpid()

// copyIn reads n bytes of process memory at addr the way a driver reads a
// user pointer: an address that is not mapped readable gives EFAULT
// instead of a crash.
func copyIn(addr, n uint64) ([]byte, unix.Errno) {
	b := make([]byte, n)
	if n == 0 {
		return b, 0
	}
	if addr == 0 || addr+n < addr {
		return nil, unix.EFAULT
	}
	if e := vmCopy(b, addr, false); e != 0 {
		return nil, e
	}
	return b, 0
}

// copyOut writes b to process memory at addr, or gives EFAULT.
func copyOut(addr uint64, b []byte) unix.Errno {
	if len(b) == 0 {
		return 0
	}
	if addr == 0 || addr+uint64(len(b)) < addr {
		return unix.EFAULT
	}
	return vmCopy(b, addr, true)
}

// vmCopy moves bytes between b and the process's own memory at addr with
// process_vm_readv/writev, which fail instead of faulting.
func vmCopy(b []byte, addr uint64, write bool) unix.Errno {
	if getpid() != selfPid {
		selfPid = getpid() // a forked child
	}
	local := []unix.Iovec{{Base: &b[0]}}
	local[0].SetLen(len(b))
	remote := []unix.RemoteIovec{{Base: uintptr(addr), Len: len(b)}}
	var n int
	var err error
	if write {
		n, err = unix.ProcessVMWritev(selfPid, local, remote, 0)
	} else {
		n, err = unix.ProcessVMReadv(selfPid, local, remote, 0)
	}
	if err != nil || n != len(b) {
		return unix.EFAULT
	}
	return 0
}

func getpid() int { return unix.Getpid() }

// probe checks that [addr, addr+n) starts and ends in readable memory.
func probe(addr, n uint64) unix.Errno {
	if n == 0 || addr == 0 || addr+n < addr {
		return unix.EFAULT
	}
	var one [1]byte
	if e := vmCopy(one[:], addr, false); e != 0 {
		return e
	}
	return vmCopy(one[:], addr+n-1, false)
}
