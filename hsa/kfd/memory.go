package kfd

import (
	"golang.org/x/sys/unix"
)

// bo is a memory object of AMDKFD_IOC_ALLOC_MEMORY_OF_GPU.
type bo struct {
	handle uint64
	gpu    *gpuState
	va     uint64
	size   uint64
	flags  uint32
	// off is the object's file offset in the render memfd (GTT and VRAM
	// objects), which is also its mmap offset on the render node.
	off uint64
	// view is the driver's own mapping of the object's pages (nil for
	// user pointers, whose pages are the process's).
	view []byte
	// gpuMapped is set while the bytes are mapped into the executor.
	gpuMapped bool
}

const pageSize = 4096

// maxObjects bounds the memory objects of a process: each GTT or VRAM
// object is a mapping of the driver's, and mappings are a finite resource
// of the process (vm.max_map_count).
const maxObjects = 16384

func (d *Driver) allocMemoryOfGPU(b []byte) unix.Errno {
	a := as[kfdIoctlAllocMemoryOfGPUArgs](b)
	g := d.gpuByID(a.GPUID)
	if g == nil {
		return unix.EINVAL
	}
	if a.Size == 0 || a.Size > 1<<40 || a.VAAddr%pageSize != 0 {
		return unix.EINVAL
	}
	size := (a.Size + pageSize - 1) &^ (pageSize - 1)
	kind := a.Flags & (KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_GTT | KFD_IOC_ALLOC_MEM_FLAGS_USERPTR |
		KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL | KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP)
	o := &bo{gpu: g, va: a.VAAddr, size: size, flags: a.Flags}
	var bytes []byte
	switch kind {
	case KFD_IOC_ALLOC_MEM_FLAGS_VRAM, KFD_IOC_ALLOC_MEM_FLAGS_GTT:
		d.mu.Lock()
		limit, used := g.gpu.LocalMemSize, uint64(0)
		if kind == KFD_IOC_ALLOC_MEM_FLAGS_GTT {
			limit = systemMemory()
		}
		for _, o := range d.bos {
			if o.gpu == g && o.flags&kind != 0 {
				used += o.size
			}
		}
		if used+size > limit || len(d.bos) >= maxObjects {
			d.mu.Unlock()
			return unix.ENOMEM
		}
		off := g.rnext
		g.rnext += (size + (1<<21 - 1)) &^ (1<<21 - 1)
		end := g.rnext
		d.mu.Unlock()
		if err := unix.Ftruncate(g.render, int64(end)); err != nil {
			return unix.ENOMEM
		}
		view, err := unix.Mmap(g.render, int64(off), int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_NORESERVE)
		if err != nil {
			return unix.ENOMEM
		}
		o.off, o.view, bytes = off, view, view
		a.MmapOffset = off
	case KFD_IOC_ALLOC_MEM_FLAGS_USERPTR:
		if a.MmapOffset == 0 || a.MmapOffset%pageSize != 0 {
			return unix.EINVAL
		}
		if e := probe(a.MmapOffset, size); e != 0 {
			return e
		}
		bytes = hostBytes(a.MmapOffset, size)
		o.off = a.MmapOffset
	case KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL:
		if size != doorbellPageSize {
			return unix.EINVAL
		}
		bytes = g.doorbell
		a.MmapOffset = EncodeMmapOffset(KFD_MMAP_TYPE_DOORBELL, g.id, 0)
	case KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP:
		if size != pageSize {
			return unix.EINVAL
		}
		a.MmapOffset = EncodeMmapOffset(KFD_MMAP_TYPE_MMIO, g.id, 0)
	default:
		return unix.EINVAL
	}
	if o.va != 0 && bytes != nil && g.exec != nil {
		if err := g.exec.MapMemory(o.va, bytes); err != nil {
			d.logf("kfd: GPU mapping of %#x+%#x: %v", o.va, size, err)
			if o.view != nil {
				unix.Munmap(o.view)
			}
			return unix.EINVAL
		}
		o.gpuMapped = true
	}
	d.mu.Lock()
	d.nextBO++
	o.handle = uint64(g.id)<<32 | d.nextBO
	d.bos[o.handle] = o
	d.mu.Unlock()
	a.Handle = o.handle
	return 0
}

func (d *Driver) freeMemoryOfGPU(b []byte) unix.Errno {
	a := as[kfdIoctlFreeMemoryOfGPUArgs](b)
	d.mu.Lock()
	o := d.bos[a.Handle]
	if o != nil {
		delete(d.bos, a.Handle)
	}
	d.mu.Unlock()
	if o == nil {
		return unix.EINVAL
	}
	if o.gpuMapped && o.gpu.exec != nil {
		if err := o.gpu.exec.UnmapMemory(o.va); err != nil {
			d.logf("kfd: GPU unmapping of %#x: %v", o.va, err)
		}
	}
	if o.view != nil {
		// The executor may still hold slices of the pages it fetched
		// before the unmap; the command processor retires views between
		// packets.
		d.cp.retire(o.view)
		unix.Fallocate(o.gpu.render, unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, int64(o.off), int64(o.size))
	}
	return 0
}

func (d *Driver) mapMemoryToGPU(b []byte) unix.Errno     { return d.mapUnmap(b) }
func (d *Driver) unmapMemoryFromGPU(b []byte) unix.Errno { return d.mapUnmap(b) }

// mapUnmap checks a (un)map request: objects are visible to their GPU from
// allocation on, so mapping only validates the device list.
func (d *Driver) mapUnmap(b []byte) unix.Errno {
	a := as[kfdIoctlMapMemoryToGPUArgs](b)
	d.mu.Lock()
	o := d.bos[a.Handle]
	d.mu.Unlock()
	if o == nil {
		return unix.EINVAL
	}
	if a.NDevices == 0 || a.NDevices > maxGPUs || a.DeviceIDsArrayPtr == 0 {
		return unix.EINVAL
	}
	if a.NSuccess > a.NDevices {
		return unix.EINVAL
	}
	ids, e := copyIn(a.DeviceIDsArrayPtr, uint64(a.NDevices)*4)
	if e != 0 {
		return e
	}
	for i := uint32(0); i < a.NDevices; i++ {
		id := uint32(ids[4*i]) | uint32(ids[4*i+1])<<8 | uint32(ids[4*i+2])<<16 | uint32(ids[4*i+3])<<24
		if d.gpuByID(id) == nil {
			return unix.EINVAL
		}
	}
	a.NSuccess = a.NDevices
	return 0
}

// MmapTarget resolves mmap(fd of /dev/kfd, offset, length): the descriptor
// and file offset to map instead (the driver's memfd), or an errno.
func (d *Driver) MmapTarget(offset, length uint64) (fd int, fileOffset int64, errno unix.Errno) {
	m := DecodeMmapOffset(offset)
	g := d.gpuByID(m.GPUID)
	switch m.Type {
	case KFD_MMAP_TYPE_DOORBELL:
		if g == nil || m.Offset != 0 || length > doorbellPageSize {
			return -1, 0, unix.EINVAL
		}
		return d.kfdMem, int64(g.index * doorbellPageSize), 0
	case KFD_MMAP_TYPE_MMIO:
		if g == nil || m.Offset != 0 || length > mmioPageSize {
			return -1, 0, unix.EINVAL
		}
		return d.kfdMem, int64(mmioBase + g.index*mmioPageSize), 0
	case KFD_MMAP_TYPE_EVENTS:
		if length > eventsPageSize {
			return -1, 0, unix.EINVAL
		}
		return d.kfdMem, eventsBase, 0
	}
	return -1, 0, unix.EINVAL
}
