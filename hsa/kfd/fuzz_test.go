package kfd

import (
	"encoding/binary"
	"sync"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

var (
	fuzzOnce sync.Once
	fuzzDrv  *Driver
	fuzzArg  []byte
	// fuzzRender is a render-node descriptor for the DRM requests.
	fuzzRender int
	// fuzzUser is the only process memory fuzzed user pointers may reach.
	fuzzUser []byte
)

const (
	fuzzUserSize  = 1 << 20
	fuzzGuardSize = 8 << 20
)

// confinePointers rewrites every 8-byte word of a fuzzed argument that
// could be a user-space address into the fuzzUser buffer: the driver
// copies to and from user pointers as the kernel does, and a pointer into
// the fuzzing process's own data would let it write there. Words that are
// not addresses (small values, kernel-half values) stay, so the EFAULT
// paths are fuzzed too.
func confinePointers(b []byte) {
	base := uint64(uintptr(unsafe.Pointer(&fuzzUser[0])))
	for i := 0; i+8 <= len(b); i += 8 {
		v := binary.LittleEndian.Uint64(b[i:])
		if v >= 1<<16 && v < 1<<47 {
			binary.LittleEndian.PutUint64(b[i:], base+(v%(fuzzUserSize-4096))&^7)
		}
	}
}

// FuzzIoctl sends arbitrary requests with arbitrary argument bytes (and
// so arbitrary user pointers inside them) to the KFD and render-node
// handlers: every outcome must be an errno or success, never a panic or a
// fault of the process.
func FuzzIoctl(f *testing.F) {
	seed := func(req uint32, fill func(b []byte)) {
		b := make([]byte, IoctlSize(req))
		if fill != nil {
			fill(b)
		}
		f.Add(req, false, b)
	}
	le := binary.LittleEndian
	for req := range kfdHandlers {
		seed(req, nil)
		seed(req, func(b []byte) {
			for i := 0; i+4 <= len(b); i += 4 {
				le.PutUint32(b[i:], GPUID(1))
			}
		})
	}
	seed(AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, func(b []byte) {
		le.PutUint64(b[0:], 0x7100_0000_0000)
		le.PutUint64(b[8:], 1<<20)
		le.PutUint32(b[32:], GPUID(1))
		le.PutUint32(b[36:], KFD_IOC_ALLOC_MEM_FLAGS_VRAM)
	})
	seed(AMDKFD_IOC_SVM|2<<iocSizeShift, nil)
	f.Add(DRM_IOCTL_VERSION, true, make([]byte, 64))
	f.Add(DRM_IOCTL_AMDGPU_INFO, true, make([]byte, 32))
	f.Fuzz(func(t *testing.T, req uint32, render bool, arg []byte) {
		fuzzOnce.Do(func() {
			g, _ := KnownGPU("gfx942")
			fe := &fakeExec{maps: map[uint64][]byte{}}
			d, err := New(Config{GPUs: []GPU{g}, SysfsDir: t.TempDir() + "-fuzz", holdQueues: true, Executor: func(int, GPU) (Executor, error) { return fe, nil }})
			if err != nil {
				t.Fatal(err)
			}
			fuzzDrv = d
			fuzzArg, _ = unix.Mmap(-1, 0, 1<<16, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
			// The buffer is followed by an inaccessible guard larger than
			// any copy the driver makes (events arrays up to 3 MiB), so a
			// confined pointer plus its length never reaches other memory.
			m, err := unix.Mmap(-1, 0, fuzzUserSize+fuzzGuardSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
			if err != nil {
				t.Fatal(err)
			}
			if err := unix.Mprotect(m[fuzzUserSize:], unix.PROT_NONE); err != nil {
				t.Fatal(err)
			}
			fuzzUser = m[:fuzzUserSize]
			fuzzRender, _ = d.OpenRender(DRMRenderMinorBase, unix.O_CLOEXEC)
		})
		if len(arg) > len(fuzzArg) {
			arg = arg[:len(fuzzArg)]
		}
		clear(fuzzArg)
		copy(fuzzArg, arg)
		confinePointers(fuzzArg[:len(arg)])
		if IoctlNR(req) == IoctlNR(AMDKFD_IOC_WAIT_EVENTS) && IoctlSize(req) >= 20 {
			le.PutUint32(fuzzArg[16:], 0) // no blocking waits in the fuzzer
		}
		k := FileKFD
		if render {
			k = FileRender
		}
		e := fuzzDrv.Ioctl(k, fuzzRender, req, uintptr(unsafe.Pointer(&fuzzArg[0])))
		if e < 0 || e > 4095 {
			t.Fatalf("request %#x: errno %d", req, e)
		}
	})
}

// FuzzMmapOffset decodes arbitrary mmap offsets of /dev/kfd: a target is
// the driver's own memfd range, or an errno.
func FuzzMmapOffset(f *testing.F) {
	f.Add(EncodeMmapOffset(KFD_MMAP_TYPE_DOORBELL, GPUID(1), 0), uint64(doorbellPageSize))
	f.Add(EncodeMmapOffset(KFD_MMAP_TYPE_MMIO, GPUID(1), 0), uint64(pageSize))
	f.Add(EncodeMmapOffset(KFD_MMAP_TYPE_EVENTS, 0, 0), uint64(eventsPageSize))
	f.Add(uint64(1)<<63, uint64(1)<<40)
	d, _ := newFuzzDriver(f)
	f.Fuzz(func(t *testing.T, off, length uint64) {
		m := DecodeMmapOffset(off)
		if EncodeMmapOffset(m.Type, m.GPUID, m.Offset) != off {
			t.Fatalf("%#x does not round-trip: %+v", off, m)
		}
		fd, foff, e := d.MmapTarget(off, length)
		if e != 0 {
			return
		}
		if fd != d.kfdMem || foff < 0 || uint64(foff)+length > kfdMemSize {
			t.Fatalf("offset %#x length %#x: target fd %d offset %#x outside the driver's pages", off, length, fd, foff)
		}
	})
}

func newFuzzDriver(f *testing.F) (*Driver, *fakeExec) {
	g, _ := KnownGPU("gfx942")
	fe := &fakeExec{maps: map[uint64][]byte{}}
	d, err := New(Config{GPUs: []GPU{g}, SysfsDir: f.TempDir(), Executor: func(int, GPU) (Executor, error) { return fe, nil }})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(d.Close)
	return d, fe
}
