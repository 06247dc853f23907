package kfd

import (
	"encoding/binary"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fakeExec records what the driver maps and dispatches.
type fakeExec struct {
	mu         sync.Mutex
	maps       map[uint64][]byte
	dispatched [][4]uint64 // kernel_object, pktAddr, queueAddr, dispatchID
	fail       error
}

func (f *fakeExec) MapMemory(va uint64, b []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.maps[va]; ok {
		return errors.New("overlap")
	}
	f.maps[va] = b
	return nil
}

func (f *fakeExec) UnmapMemory(va uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.maps[va]; !ok {
		return errors.New("not mapped")
	}
	delete(f.maps, va)
	return nil
}

func (f *fakeExec) Dispatch(pkt []byte, pktAddr, queueAddr, id uint64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dispatched = append(f.dispatched, [4]uint64{binary.LittleEndian.Uint64(pkt[32:]), pktAddr, queueAddr, id})
	return f.fail
}

func newTestDriver(t *testing.T) (*Driver, *fakeExec) {
	t.Helper()
	g, err := KnownGPU("gfx942")
	if err != nil {
		t.Fatal(err)
	}
	fe := &fakeExec{maps: map[uint64][]byte{}}
	d, err := New(Config{GPUs: []GPU{g}, SysfsDir: t.TempDir(), Executor: func(int, GPU) (Executor, error) { return fe, nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d, fe
}

// pages returns n bytes of fresh anonymous memory (stable addresses, as
// the process memory the driver is handed).
func pages(t *testing.T, n int) []byte {
	t.Helper()
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(b) })
	return b
}

func addr(b []byte) uint64 { return uint64(uintptr(unsafe.Pointer(&b[0]))) }

// call issues an ioctl with the argument struct *a.
func call[T any](d *Driver, req uint32, a *T) unix.Errno {
	return d.Ioctl(FileKFD, -1, req, uintptr(unsafe.Pointer(a)))
}

func TestVersionAndUnknownIoctls(t *testing.T) {
	d, _ := newTestDriver(t)
	var v kfdIoctlGetVersionArgs
	if e := call(d, AMDKFD_IOC_GET_VERSION, &v); e != 0 || v.MajorVersion != 1 || v.MinorVersion != 17 {
		t.Fatalf("GET_VERSION: %v %+v", e, v)
	}
	var buf [64]byte
	for _, req := range []uint32{amdkfdIOWR(0x7e, 8), amdkfdIOWR(0x0d, 8), ioc(iocRead, 'Q', 1, 8)} {
		if e := d.Ioctl(FileKFD, -1, req, uintptr(unsafe.Pointer(&buf))); e != unix.ENOTTY {
			t.Errorf("request %#x: %v, want ENOTTY", req, e)
		}
	}
	if e := d.Ioctl(FileKFD, -1, AMDKFD_IOC_GET_VERSION, 0x10); e != unix.EFAULT {
		t.Errorf("argument at 0x10: %v, want EFAULT", e)
	}
	// A direction that does not match the command is refused.
	if e := d.Ioctl(FileKFD, -1, amdkfdIOW(0x01, 8), uintptr(unsafe.Pointer(&buf))); e != unix.EINVAL {
		t.Errorf("GET_VERSION written: %v, want EINVAL", e)
	}
	var ap kfdIoctlAcquireVMArgs
	ap.GPUID = 12345
	if e := call(d, AMDKFD_IOC_ACQUIRE_VM, &ap); e != unix.EINVAL {
		t.Errorf("unknown gpu_id: %v, want EINVAL", e)
	}
}

func TestAperturesAndRender(t *testing.T) {
	d, _ := newTestDriver(t)
	var a kfdIoctlGetProcessAperturesNewArgs
	if e := call(d, AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, &a); e != 0 || a.NumOfNodes != 1 {
		t.Fatalf("count: %v %+v", e, a)
	}
	out := make([]kfdProcessDeviceApertures, 1)
	a.KFDProcessDeviceAperturesPtr = uint64(uintptr(unsafe.Pointer(&out[0])))
	if e := call(d, AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, &a); e != 0 {
		t.Fatal(e)
	}
	if out[0].GPUID != GPUID(1) || out[0].GPUVMBase == 0 || out[0].GPUVMLimit <= out[0].GPUVMBase {
		t.Errorf("apertures %+v", out[0])
	}
	fd, err := d.OpenRender(DRMRenderMinorBase, unix.O_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if m := d.RenderMinor(fd); m != DRMRenderMinorBase {
		t.Errorf("RenderMinor %d", m)
	}
	vm := kfdIoctlAcquireVMArgs{DRMFd: uint32(fd), GPUID: GPUID(1)}
	if e := call(d, AMDKFD_IOC_ACQUIRE_VM, &vm); e != 0 {
		t.Errorf("ACQUIRE_VM: %v", e)
	}
	vm.DRMFd = 0 // not a render node
	if e := call(d, AMDKFD_IOC_ACQUIRE_VM, &vm); e != unix.EINVAL {
		t.Errorf("ACQUIRE_VM of stdin: %v, want EINVAL", e)
	}
	// DRM_IOCTL_VERSION fills the caller's buffers and the full lengths.
	name := make([]byte, 3)
	v := drmVersion{Name: uint64(uintptr(unsafe.Pointer(&name[0]))), NameLen: 3}
	if e := d.Ioctl(FileRender, fd, DRM_IOCTL_VERSION, uintptr(unsafe.Pointer(&v))); e != 0 {
		t.Fatal(e)
	}
	if string(name) != "amd" || v.NameLen != 6 || v.VersionMajor != 3 {
		t.Errorf("version %q %+v", name, v)
	}
	var di drmAMDGPUInfoDevice
	q := drmAMDGPUInfo{ReturnPointer: uint64(uintptr(unsafe.Pointer(&di))), ReturnSize: uint32(unsafe.Sizeof(di)), Query: AMDGPU_INFO_DEV_INFO}
	if e := d.Ioctl(FileRender, fd, DRM_IOCTL_AMDGPU_INFO, uintptr(unsafe.Pointer(&q))); e != 0 {
		t.Fatal(e)
	}
	if di.DeviceID != 0x74a1 || di.GPUCounterFreq != gpuCounterHz/1000 || di.CUActiveNumber != 304 {
		t.Errorf("device info %+v", di)
	}
	q.ReturnPointer = 8
	if e := d.Ioctl(FileRender, fd, DRM_IOCTL_AMDGPU_INFO, uintptr(unsafe.Pointer(&q))); e != unix.EFAULT {
		t.Errorf("bad return pointer: %v, want EFAULT", e)
	}
	if e := d.Ioctl(FileRender, fd, ioc(iocRead|iocWrite, 'd', 0x99, 8), uintptr(unsafe.Pointer(&q))); e != unix.EINVAL {
		t.Errorf("unknown DRM ioctl: %v, want EINVAL", e)
	}
}

func TestMemoryObjects(t *testing.T) {
	d, fe := newTestDriver(t)
	user := pages(t, 3*pageSize)
	const va = 0x7000_0000_0000
	a := kfdIoctlAllocMemoryOfGPUArgs{VAAddr: va, Size: 3 * pageSize, MmapOffset: addr(user), GPUID: GPUID(1),
		Flags: KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE}
	if e := call(d, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &a); e != 0 {
		t.Fatal(e)
	}
	user[5] = 42
	if b := fe.maps[va]; len(b) != 3*pageSize || b[5] != 42 {
		t.Fatalf("user pointer not mapped at its GPU address")
	}
	// GTT: the returned offset maps the same pages on the render node.
	g := kfdIoctlAllocMemoryOfGPUArgs{VAAddr: va + 1<<30, Size: 2 * pageSize, GPUID: GPUID(1), Flags: KFD_IOC_ALLOC_MEM_FLAGS_GTT}
	if e := call(d, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &g); e != 0 {
		t.Fatal(e)
	}
	fd, _ := d.OpenRender(DRMRenderMinorBase, 0)
	defer unix.Close(fd)
	cpu, err := unix.Mmap(fd, int64(g.MmapOffset), 2*pageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(cpu)
	cpu[100] = 7
	if fe.maps[va+1<<30][100] != 7 {
		t.Errorf("GTT object: the CPU mapping and the GPU mapping differ")
	}
	ids := []uint32{GPUID(1)}
	m := kfdIoctlMapMemoryToGPUArgs{Handle: g.Handle, DeviceIDsArrayPtr: uint64(uintptr(unsafe.Pointer(&ids[0]))), NDevices: 1}
	if e := call(d, AMDKFD_IOC_MAP_MEMORY_TO_GPU, &m); e != 0 || m.NSuccess != 1 {
		t.Errorf("MAP: %v %+v", e, m)
	}
	ids[0] = 99
	m.NSuccess = 0
	if e := call(d, AMDKFD_IOC_MAP_MEMORY_TO_GPU, &m); e != unix.EINVAL {
		t.Errorf("MAP to an unknown GPU: %v", e)
	}
	if e := call(d, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &kfdIoctlFreeMemoryOfGPUArgs{Handle: g.Handle}); e != 0 {
		t.Fatal(e)
	}
	if _, ok := fe.maps[va+1<<30]; ok {
		t.Errorf("freed object still mapped")
	}
	if e := call(d, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &kfdIoctlFreeMemoryOfGPUArgs{Handle: g.Handle}); e != unix.EINVAL {
		t.Errorf("double free: %v", e)
	}
	// A user pointer that is not mapped is refused, as get_user_pages fails.
	bad := a
	bad.VAAddr, bad.MmapOffset = va+2<<30, 0x1000
	if e := call(d, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &bad); e != unix.EFAULT {
		t.Errorf("unmapped user pointer: %v, want EFAULT", e)
	}
	// Doorbell objects and their mmap offsets.
	db := kfdIoctlAllocMemoryOfGPUArgs{VAAddr: va + 3<<30, Size: doorbellPageSize, GPUID: GPUID(1), Flags: KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL}
	if e := call(d, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &db); e != 0 {
		t.Fatal(e)
	}
	if mo := DecodeMmapOffset(db.MmapOffset); mo.Type != KFD_MMAP_TYPE_DOORBELL || mo.GPUID != GPUID(1) {
		t.Errorf("doorbell offset %+v", mo)
	}
	if _, _, e := d.MmapTarget(db.MmapOffset, doorbellPageSize); e != 0 {
		t.Errorf("doorbell mmap: %v", e)
	}
	if _, _, e := d.MmapTarget(EncodeMmapOffset(KFD_MMAP_TYPE_DOORBELL, 77, 0), pageSize); e != unix.EINVAL {
		t.Errorf("doorbell of an unknown GPU: %v", e)
	}
	if _, _, e := d.MmapTarget(db.MmapOffset, 1<<20); e != unix.EINVAL {
		t.Errorf("oversized doorbell mmap: %v", e)
	}
}

// aqlQueue is a queue laid out as ROCR lays it out: a ring and an
// amd_queue_t whose read/write dispatch ids the driver is given.
type aqlQueue struct {
	ring, amd []byte
	id        uint32
}

func (q *aqlQueue) wptr() *uint64 { return (*uint64)(unsafe.Pointer(&q.amd[amdQueueWriteDispatchID])) }
func (q *aqlQueue) rptr() *uint64 { return (*uint64)(unsafe.Pointer(&q.amd[amdQueueReadDispatchID])) }

func newQueue(t *testing.T, d *Driver, packets int) *aqlQueue {
	t.Helper()
	q := &aqlQueue{ring: pages(t, packets*aqlPacketSize), amd: pages(t, pageSize)}
	for i := 0; i < packets; i++ {
		binary.LittleEndian.PutUint16(q.ring[i*64:], hsaPacketTypeInvalid)
	}
	a := kfdIoctlCreateQueueArgs{RingBaseAddress: addr(q.ring), RingSize: uint32(len(q.ring)), GPUID: GPUID(1),
		QueueType: KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, WritePointerAddress: addr(q.amd) + amdQueueWriteDispatchID,
		ReadPointerAddress: addr(q.amd) + amdQueueReadDispatchID}
	if e := call(d, AMDKFD_IOC_CREATE_QUEUE, &a); e != 0 {
		t.Fatal(e)
	}
	if mo := DecodeMmapOffset(a.DoorbellOffset &^ (doorbellPageSize - 1)); mo.Type != KFD_MMAP_TYPE_DOORBELL {
		t.Fatalf("doorbell offset %#x", a.DoorbellOffset)
	}
	q.id = a.QueueID
	return q
}

// submit publishes a packet (body first, header last) and rings.
func (q *aqlQueue) submit(d *Driver, pkt [64]byte) {
	w := atomic.LoadUint64(q.wptr())
	slot := q.ring[(w%uint64(len(q.ring)/64))*64:]
	copy(slot[4:64], pkt[4:])
	atomic.StoreUint64(q.wptr(), w+1)
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&slot[0])), binary.LittleEndian.Uint32(pkt[:4]))
	d.cp.kick()
}

// signal is an amd_signal_t in process memory.
func newSignal(t *testing.T, value int64) []byte {
	s := pages(t, pageSize)[:64]
	binary.LittleEndian.PutUint64(s[0:], 1)
	binary.LittleEndian.PutUint64(s[amdSignalValue:], uint64(value))
	return s
}

func signalOf(s []byte) int64 { return atomic.LoadInt64((*int64)(unsafe.Pointer(&s[amdSignalValue]))) }

func waitValue(t *testing.T, s []byte, want int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for signalOf(s) != want {
		if time.Now().After(deadline) {
			t.Fatalf("signal value %d, want %d", signalOf(s), want)
		}
		time.Sleep(50 * time.Microsecond)
	}
}

func TestQueuePackets(t *testing.T) {
	d, fe := newTestDriver(t)
	q := newQueue(t, d, 8)
	done := newSignal(t, 1)
	// An event the completion signal raises through its mailbox.
	ev := kfdIoctlCreateEventArgs{EventType: KFD_IOC_EVENT_SIGNAL, AutoReset: 1}
	if e := call(d, AMDKFD_IOC_CREATE_EVENT, &ev); e != 0 {
		t.Fatal(e)
	}
	mailbox := pages(t, pageSize)
	binary.LittleEndian.PutUint64(done[amdSignalEventMailbox:], addr(mailbox))
	binary.LittleEndian.PutUint32(done[amdSignalEventID:], ev.EventID)

	var k [64]byte
	binary.LittleEndian.PutUint16(k[0:], hsaPacketTypeKernelDispatch)
	binary.LittleEndian.PutUint64(k[32:], 0xabcdef00)
	binary.LittleEndian.PutUint64(k[56:], addr(done))
	q.submit(d, k)
	// A thread waiting on the event wakes.
	evs := []kfdEventData{{EventID: ev.EventID}}
	w := kfdIoctlWaitEventsArgs{EventsPtr: uint64(uintptr(unsafe.Pointer(&evs[0]))), NumEvents: 1, Timeout: 5000}
	if e := call(d, AMDKFD_IOC_WAIT_EVENTS, &w); e != 0 || w.WaitResult != KFD_IOC_WAIT_RESULT_COMPLETE {
		t.Fatalf("WAIT_EVENTS: %v result %d", e, w.WaitResult)
	}
	waitValue(t, done, 0)
	if binary.LittleEndian.Uint64(mailbox) != uint64(ev.EventID) {
		t.Errorf("mailbox holds %d", binary.LittleEndian.Uint64(mailbox))
	}
	if binary.LittleEndian.Uint64(done[amdSignalEndTS:]) < binary.LittleEndian.Uint64(done[amdSignalStartTS:]) {
		t.Errorf("timestamps out of order")
	}
	fe.mu.Lock()
	got := fe.dispatched
	fe.mu.Unlock()
	if len(got) != 1 || got[0][0] != 0xabcdef00 || got[0][1] != addr(q.ring) || got[0][2] != addr(q.amd) || got[0][3] != 0 {
		t.Fatalf("dispatched %x", got)
	}
	if atomic.LoadUint64(q.rptr()) != 1 || binary.LittleEndian.Uint16(q.ring) != hsaPacketTypeInvalid {
		t.Errorf("packet not consumed: read index %d, header %#x", *q.rptr(), binary.LittleEndian.Uint16(q.ring))
	}

	// A barrier-AND waits for its dependency; the packets after it wait too.
	dep, bdone, kdone := newSignal(t, 1), newSignal(t, 1), newSignal(t, 1)
	var b [64]byte
	binary.LittleEndian.PutUint16(b[0:], hsaPacketTypeBarrierAnd)
	binary.LittleEndian.PutUint64(b[8:], addr(dep))
	binary.LittleEndian.PutUint64(b[56:], addr(bdone))
	q.submit(d, b)
	binary.LittleEndian.PutUint64(k[56:], addr(kdone))
	q.submit(d, k)
	time.Sleep(20 * time.Millisecond)
	if signalOf(bdone) != 1 || signalOf(kdone) != 1 {
		t.Fatalf("barrier passed before its dependency: %d %d", signalOf(bdone), signalOf(kdone))
	}
	atomic.StoreInt64((*int64)(unsafe.Pointer(&dep[amdSignalValue])), 0)
	d.cp.kick()
	waitValue(t, bdone, 0)
	waitValue(t, kdone, 0)

	// An AMD barrier-value packet: signal & mask == value.
	bv, bvdone := newSignal(t, 5), newSignal(t, 1)
	var p [64]byte
	binary.LittleEndian.PutUint16(p[0:], hsaPacketTypeVendorSpecific)
	p[2] = amdAQLFormatBarrierValue
	binary.LittleEndian.PutUint64(p[8:], addr(bv))
	binary.LittleEndian.PutUint64(p[16:], 4) // value
	binary.LittleEndian.PutUint64(p[24:], 6) // mask
	binary.LittleEndian.PutUint64(p[56:], addr(bvdone))
	q.submit(d, p)
	waitValue(t, bvdone, 0) // 5 & 6 == 4

	var dq kfdIoctlDestroyQueueArgs
	dq.QueueID = q.id
	if e := call(d, AMDKFD_IOC_DESTROY_QUEUE, &dq); e != 0 {
		t.Fatal(e)
	}
	if e := call(d, AMDKFD_IOC_DESTROY_QUEUE, &dq); e != unix.EINVAL {
		t.Errorf("destroying twice: %v", e)
	}
}

func TestQueueArguments(t *testing.T) {
	d, _ := newTestDriver(t)
	ring := pages(t, pageSize)
	amd := pages(t, pageSize)
	ok := kfdIoctlCreateQueueArgs{RingBaseAddress: addr(ring), RingSize: pageSize, GPUID: GPUID(1),
		QueueType: KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, WritePointerAddress: addr(amd) + 0x38, ReadPointerAddress: addr(amd) + 0x80}
	cases := []struct {
		name string
		mod  func(a *kfdIoctlCreateQueueArgs)
		want unix.Errno
	}{
		{"SDMA queue", func(a *kfdIoctlCreateQueueArgs) { a.QueueType = KFD_IOC_QUEUE_TYPE_SDMA }, unix.EINVAL},
		{"ring size not a power of two", func(a *kfdIoctlCreateQueueArgs) { a.RingSize = 3000 }, unix.EINVAL},
		{"unknown GPU", func(a *kfdIoctlCreateQueueArgs) { a.GPUID = 1 }, unix.EINVAL},
		{"unmapped ring", func(a *kfdIoctlCreateQueueArgs) { a.RingBaseAddress = 0x40000 }, unix.EFAULT},
		{"unmapped write pointer", func(a *kfdIoctlCreateQueueArgs) { a.WritePointerAddress = 0x40000 }, unix.EFAULT},
	}
	for _, c := range cases {
		a := ok
		c.mod(&a)
		if e := call(d, AMDKFD_IOC_CREATE_QUEUE, &a); e != c.want {
			t.Errorf("%s: %v, want %v", c.name, e, c.want)
		}
	}
}

func TestEvents(t *testing.T) {
	d, _ := newTestDriver(t)
	mk := func(auto uint32) uint32 {
		ev := kfdIoctlCreateEventArgs{EventType: KFD_IOC_EVENT_SIGNAL, AutoReset: auto}
		if e := call(d, AMDKFD_IOC_CREATE_EVENT, &ev); e != 0 {
			t.Fatal(e)
		}
		// libhsakmt gives a signal its mailbox (the events-page slot) only
		// when the offset comes back non-zero, as from the kernel.
		if DecodeMmapOffset(ev.EventPageOffset).Type != KFD_MMAP_TYPE_EVENTS || ev.EventSlotIndex != ev.EventID {
			t.Fatalf("signal event: page offset %#x, slot %d, id %d", ev.EventPageOffset, ev.EventSlotIndex, ev.EventID)
		}
		return ev.EventID
	}
	a, b := mk(1), mk(0)
	wait := func(all uint32, timeout uint32, ages []uint64, ids ...uint32) (unix.Errno, uint32, []kfdEventData) {
		evs := make([]kfdEventData, len(ids))
		for i, id := range ids {
			evs[i].EventID = id
			if ages != nil {
				evs[i].LastEventAge = ages[i]
			}
		}
		w := kfdIoctlWaitEventsArgs{EventsPtr: uint64(uintptr(unsafe.Pointer(&evs[0]))), NumEvents: uint32(len(ids)), WaitForAll: all, Timeout: timeout}
		e := call(d, AMDKFD_IOC_WAIT_EVENTS, &w)
		return e, w.WaitResult, evs
	}
	if e, r, _ := wait(0, 0, nil, a, b); e != 0 || r != KFD_IOC_WAIT_RESULT_TIMEOUT {
		t.Fatalf("nothing set: %v %d", e, r)
	}
	d.SignalEvent(b)
	if _, r, _ := wait(1, 10, nil, a, b); r != KFD_IOC_WAIT_RESULT_TIMEOUT {
		t.Errorf("wait for all with one set: %d", r)
	}
	if _, r, _ := wait(0, 10, nil, a, b); r != KFD_IOC_WAIT_RESULT_COMPLETE {
		t.Errorf("wait for any with one set: %d", r)
	}
	// Manual-reset b stays set; auto-reset a is consumed by its waiter.
	go func() { time.Sleep(10 * time.Millisecond); d.SignalEvent(a) }()
	_, r, evs := wait(1, 2000, nil, a, b)
	if r != KFD_IOC_WAIT_RESULT_COMPLETE {
		t.Fatalf("wait for all: %d", r)
	}
	if _, r, _ := wait(0, 0, nil, a); r != KFD_IOC_WAIT_RESULT_TIMEOUT {
		t.Errorf("auto-reset event still set after its wait")
	}
	// Age: a waiter that passes the age it saw returns at once once the
	// event fired since, even though the auto-reset consumed it.
	age := evs[0].LastEventAge
	d.SignalEvent(a)
	wait(0, 0, nil, a) // consumed by someone else
	if _, r, _ := wait(0, 0, []uint64{age}, a); r != KFD_IOC_WAIT_RESULT_COMPLETE {
		t.Errorf("age %d: fired since, yet the wait timed out", age)
	}
	if e := call(d, AMDKFD_IOC_RESET_EVENT, &kfdIoctlEventIDArgs{EventID: b}); e != 0 {
		t.Fatal(e)
	}
	if _, r, _ := wait(0, 0, nil, b); r != KFD_IOC_WAIT_RESULT_TIMEOUT {
		t.Errorf("reset event still set")
	}
	if e, _, _ := wait(0, 0, nil, 3999); e != unix.EINVAL {
		t.Errorf("unknown event: %v", e)
	}
	if e := call(d, AMDKFD_IOC_DESTROY_EVENT, &kfdIoctlEventIDArgs{EventID: a}); e != 0 {
		t.Fatal(e)
	}
	if e := call(d, AMDKFD_IOC_SET_EVENT, &kfdIoctlEventIDArgs{EventID: a}); e != unix.EINVAL {
		t.Errorf("set of a destroyed event: %v", e)
	}
}

func TestKernelFaultRaisesMemoryEvent(t *testing.T) {
	d, fe := newTestDriver(t)
	fe.fail = &MemoryFaultError{Addr: 0x10, Err: errors.New("memory fault at 0x10")}
	mev := kfdIoctlCreateEventArgs{EventType: KFD_IOC_EVENT_MEMORY}
	if e := call(d, AMDKFD_IOC_CREATE_EVENT, &mev); e != 0 {
		t.Fatal(e)
	}
	q := newQueue(t, d, 4)
	done := newSignal(t, 1)
	var k [64]byte
	binary.LittleEndian.PutUint16(k[0:], hsaPacketTypeKernelDispatch)
	binary.LittleEndian.PutUint64(k[56:], addr(done))
	q.submit(d, k)
	evs := []kfdEventData{{EventID: mev.EventID}}
	w := kfdIoctlWaitEventsArgs{EventsPtr: uint64(uintptr(unsafe.Pointer(&evs[0]))), NumEvents: 1, Timeout: 5000}
	if e := call(d, AMDKFD_IOC_WAIT_EVENTS, &w); e != 0 || w.WaitResult != KFD_IOC_WAIT_RESULT_COMPLETE {
		t.Fatalf("memory event: %v %d", e, w.WaitResult)
	}
	raw := (*[48]byte)(unsafe.Pointer(&evs[0]))
	if np, va, gpu := binary.LittleEndian.Uint32(raw[0:]), binary.LittleEndian.Uint64(raw[16:]), binary.LittleEndian.Uint32(raw[24:]); np != 1 || va != 0x10 || gpu != GPUID(1) {
		t.Errorf("memory exception data: not-present %d, va %#x, gpu %#x", np, va, gpu)
	}
	waitValue(t, done, 0) // the faulting dispatch ends
	// The queue goes on after a memory fault...
	fe.mu.Lock()
	fe.fail = errors.New("illegal instruction")
	fe.mu.Unlock()
	later := newSignal(t, 1)
	binary.LittleEndian.PutUint64(k[56:], addr(later))
	q.submit(d, k)
	waitValue(t, later, 0)
	// ...but stops after any other error: later packets do not run.
	last := newSignal(t, 1)
	binary.LittleEndian.PutUint64(k[56:], addr(last))
	q.submit(d, k)
	time.Sleep(20 * time.Millisecond)
	if signalOf(last) != 1 {
		t.Errorf("a stopped queue ran a packet")
	}
}

func TestMmapOffsetRoundTrip(t *testing.T) {
	for _, c := range []struct {
		typ uint64
		id  uint32
		off uint64
	}{{KFD_MMAP_TYPE_DOORBELL, GPUID(1), 0}, {KFD_MMAP_TYPE_MMIO, 0xffff, 0x1000}, {KFD_MMAP_TYPE_EVENTS, 0, 1<<46 - 1}} {
		m := DecodeMmapOffset(EncodeMmapOffset(c.typ, c.id, c.off))
		if m.Type != c.typ || m.GPUID != c.id || m.Offset != c.off {
			t.Errorf("%+v -> %+v", c, m)
		}
	}
}

func TestTwoGPUs(t *testing.T) {
	a, _ := KnownGPU("gfx942")
	b, _ := KnownGPU("gfx1201")
	d, err := New(Config{GPUs: []GPU{a, b}, SysfsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var ap kfdIoctlGetProcessAperturesNewArgs
	if e := call(d, AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, &ap); e != 0 || ap.NumOfNodes != 2 {
		t.Fatalf("apertures: %v %d", e, ap.NumOfNodes)
	}
	for i, g := range []GPU{a, b} {
		fd, err := d.OpenRender(DRMRenderMinorBase+i, 0)
		if err != nil {
			t.Fatal(err)
		}
		var di drmAMDGPUInfoDevice
		q := drmAMDGPUInfo{ReturnPointer: uint64(uintptr(unsafe.Pointer(&di))), ReturnSize: uint32(unsafe.Sizeof(di)), Query: AMDGPU_INFO_DEV_INFO}
		if e := d.Ioctl(FileRender, fd, DRM_IOCTL_AMDGPU_INFO, uintptr(unsafe.Pointer(&q))); e != 0 {
			t.Fatal(e)
		}
		if di.DeviceID != g.DeviceID || di.WaveFrontSize != g.WaveSize {
			t.Errorf("renderD%d answers for device %#x wave%d, want %#x wave%d", DRMRenderMinorBase+i, di.DeviceID, di.WaveFrontSize, g.DeviceID, g.WaveSize)
		}
		// ACQUIRE_VM pairs each GPU with its own render node only.
		vm := kfdIoctlAcquireVMArgs{DRMFd: uint32(fd), GPUID: GPUID(i + 1)}
		if e := call(d, AMDKFD_IOC_ACQUIRE_VM, &vm); e != 0 {
			t.Errorf("ACQUIRE_VM GPU %d: %v", i, e)
		}
		vm.GPUID = GPUID(2 - i)
		if e := call(d, AMDKFD_IOC_ACQUIRE_VM, &vm); e != unix.EINVAL {
			t.Errorf("ACQUIRE_VM of GPU %d with the other's node: %v", 1-i, e)
		}
		unix.Close(fd)
	}
	if _, err := d.OpenRender(DRMRenderMinorBase+2, 0); err != unix.ENOENT {
		t.Errorf("a third render node: %v", err)
	}
}
