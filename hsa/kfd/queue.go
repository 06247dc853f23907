package kfd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// amd_queue_t offsets (inc/amd_hsa_queue.h): the driver receives the
// addresses of write_dispatch_id and read_dispatch_id and finds the rest
// from them.
const (
	amdQueueWriteDispatchID   = 0x38
	amdQueueReadDispatchID    = 0x80
	amdQueueQueueProperties   = 0xb4
	amdQueueInactiveSignal    = 0xc0
	amdQueuePropertiesProfile = 1 << 3
)

// amd_signal_t offsets (inc/amd_hsa_signal.h).
const (
	amdSignalValue        = 8
	amdSignalEventMailbox = 16
	amdSignalEventID      = 24
	amdSignalStartTS      = 32
	amdSignalEndTS        = 40
)

// AQL packet types and AMD vendor formats.
const (
	hsaPacketTypeVendorSpecific = 0
	hsaPacketTypeInvalid        = 1
	hsaPacketTypeKernelDispatch = 2
	hsaPacketTypeBarrierAnd     = 3
	hsaPacketTypeAgentDispatch  = 4
	hsaPacketTypeBarrierOr      = 5

	amdAQLFormatPM4IB        = 1
	amdAQLFormatBarrierValue = 2

	aqlPacketSize = 64
)

// queue is one user-mode AQL queue registered with CREATE_QUEUE.
type queue struct {
	id       uint32
	gpu      *gpuState
	ringVA   uint64
	ring     []byte
	packets  uint64
	wptr     *uint64 // &amd_queue_t.write_dispatch_id
	rptr     *uint64 // &amd_queue_t.read_dispatch_id
	amdQueue uint64
	slot     uint32 // doorbell slot in the GPU's doorbell page
	broken   bool   // a kernel faulted: the queue stops, as after a CP error
}

func (d *Driver) createQueue(b []byte) unix.Errno {
	a := as[kfdIoctlCreateQueueArgs](b)
	g := d.gpuByID(a.GPUID)
	if g == nil {
		return unix.EINVAL
	}
	if a.QueueType != KFD_IOC_QUEUE_TYPE_COMPUTE_AQL {
		// The simulated GPUs have no SDMA engines and no PM4 queues.
		return unix.EINVAL
	}
	if a.RingSize < aqlPacketSize || a.RingSize&(a.RingSize-1) != 0 || a.RingBaseAddress == 0 || a.RingBaseAddress%aqlPacketSize != 0 {
		return unix.EINVAL
	}
	if a.WritePointerAddress == 0 || a.ReadPointerAddress == 0 || a.WritePointerAddress%8 != 0 || a.ReadPointerAddress%8 != 0 {
		return unix.EFAULT
	}
	if e := probe(a.RingBaseAddress, uint64(a.RingSize)); e != 0 {
		return e
	}
	if probe(a.WritePointerAddress, 8) != 0 || probe(a.ReadPointerAddress, 8) != 0 {
		return unix.EFAULT
	}
	q := &queue{gpu: g, ringVA: a.RingBaseAddress, ring: hostBytes(a.RingBaseAddress, uint64(a.RingSize)),
		packets: uint64(a.RingSize) / aqlPacketSize,
		wptr:    (*uint64)(unsafe.Pointer(&hostBytes(a.WritePointerAddress, 8)[0])),
		rptr:    (*uint64)(unsafe.Pointer(&hostBytes(a.ReadPointerAddress, 8)[0])),
	}
	if a.ReadPointerAddress-a.WritePointerAddress == amdQueueReadDispatchID-amdQueueWriteDispatchID {
		q.amdQueue = a.WritePointerAddress - amdQueueWriteDispatchID
	}
	id, slot, err := d.cp.add(q)
	if err != 0 {
		return err
	}
	a.QueueID = id
	a.DoorbellOffset = EncodeMmapOffset(KFD_MMAP_TYPE_DOORBELL, g.id, 0) | uint64(slot*8)
	d.logf("kfd: GPU %d queue %d: ring %#x (%d packets), amd_queue_t %#x, doorbell slot %d", g.index, id, q.ringVA, q.packets, q.amdQueue, slot)
	return 0
}

func (d *Driver) destroyQueue(b []byte) unix.Errno {
	a := as[kfdIoctlDestroyQueueArgs](b)
	return d.cp.remove(a.QueueID)
}

func (d *Driver) updateQueue(b []byte) unix.Errno {
	a := as[kfdIoctlUpdateQueueArgs](b)
	return d.cp.update(a.QueueID, a.RingBaseAddress, a.RingSize)
}

// maxQueues is the number of queues a process may create (KFD's default
// max_queues is 128 per device).
const maxQueues = 128

// commandProcessor serves every queue of the process from one goroutine.
// It sleeps on a futex word when there is nothing to do, wakes when an
// ioctl hints that work arrived, and otherwise polls with a back-off: a
// few microseconds right after work, up to idleWait when idle.
type commandProcessor struct {
	d       *Driver
	mu      sync.Mutex
	queues  map[uint32]*queue
	nextID  uint32
	wake    uint32 // futex word
	quit    chan struct{}
	done    chan struct{}
	started bool
	retired [][]byte
	// Dispatches counts kernel dispatches served.
	dispatches atomic.Uint64
}

const idleWait = 20 * time.Millisecond

// futex(2) operations (linux/futex.h).
const (
	futexWaitPrivate = 0 | 128
	futexWakePrivate = 1 | 128
)

func newCommandProcessor(d *Driver) *commandProcessor {
	return &commandProcessor{d: d, queues: map[uint32]*queue{}, quit: make(chan struct{}), done: make(chan struct{})}
}

func (cp *commandProcessor) add(q *queue) (uint32, uint32, unix.Errno) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if len(cp.queues) >= maxQueues {
		return 0, 0, unix.ENOSPC
	}
	used := map[uint32]bool{}
	for _, o := range cp.queues {
		if o.gpu == q.gpu {
			used[o.slot] = true
		}
	}
	slot := uint32(0)
	for used[slot] {
		slot++
	}
	q.slot = slot
	for cp.queues[cp.nextID] != nil {
		cp.nextID++
	}
	q.id = cp.nextID
	cp.nextID++
	cp.queues[q.id] = q
	if !cp.started && !cp.d.cfg.holdQueues {
		cp.started = true
		go cp.run()
	}
	cp.kickLocked()
	return q.id, slot, 0
}

func (cp *commandProcessor) remove(id uint32) unix.Errno {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	if cp.queues[id] == nil {
		return unix.EINVAL
	}
	delete(cp.queues, id)
	return 0
}

func (cp *commandProcessor) update(id uint32, ring uint64, size uint32) unix.Errno {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	q := cp.queues[id]
	if q == nil {
		return unix.EINVAL
	}
	if ring != 0 {
		if size < aqlPacketSize || size&(size-1) != 0 || ring%aqlPacketSize != 0 {
			return unix.EINVAL
		}
		q.ringVA, q.ring, q.packets = ring, hostBytes(ring, uint64(size)), uint64(size)/aqlPacketSize
	}
	return 0
}

// retire schedules a driver mapping for unmapping once no packet is being
// executed.
func (cp *commandProcessor) retire(view []byte) {
	cp.mu.Lock()
	started := cp.started
	if started {
		cp.retired = append(cp.retired, view)
	}
	cp.mu.Unlock()
	if !started {
		unix.Munmap(view)
		return
	}
	cp.kick()
}

func (cp *commandProcessor) kick() {
	cp.mu.Lock()
	cp.kickLocked()
	cp.mu.Unlock()
}

func (cp *commandProcessor) kickLocked() {
	if atomic.SwapUint32(&cp.wake, 1) == 0 {
		unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&cp.wake)), futexWakePrivate, 1, 0, 0, 0)
	}
}

func (cp *commandProcessor) stop() {
	cp.mu.Lock()
	started := cp.started
	cp.mu.Unlock()
	if !started {
		return
	}
	select {
	case <-cp.quit:
	default:
		close(cp.quit)
	}
	cp.kick()
	<-cp.done
}

// sleep waits on the futex word for at most dt or until kicked.
func (cp *commandProcessor) sleep(dt time.Duration) {
	if atomic.SwapUint32(&cp.wake, 0) != 0 {
		return
	}
	ts := unix.NsecToTimespec(dt.Nanoseconds())
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&cp.wake)), futexWaitPrivate, 0, uintptr(unsafe.Pointer(&ts)), 0, 0)
	atomic.StoreUint32(&cp.wake, 0)
}

func (cp *commandProcessor) run() {
	runtime.LockOSThread()
	defer close(cp.done)
	debug.SetPanicOnFault(true)
	// Fine-grained sleeps: the default 50 µs timer slack would dominate
	// the wake-up latency.
	unix.Prctl(unix.PR_SET_TIMERSLACK, 1000, 0, 0, 0)
	last := time.Now()
	var qs []*queue
	for {
		select {
		case <-cp.quit:
			return
		default:
		}
		cp.mu.Lock()
		qs = qs[:0]
		for _, q := range cp.queues {
			qs = append(qs, q)
		}
		retired := cp.retired
		cp.retired = nil
		cp.mu.Unlock()
		for _, v := range retired {
			unix.Munmap(v)
		}
		worked := false
		for _, q := range qs {
			if cp.serveSafe(q) {
				worked = true
			}
		}
		if worked {
			last = time.Now()
			continue
		}
		cp.sleep(pollInterval(time.Since(last)))
	}
}

// pollInterval is how long the command processor sleeps when it found
// nothing to do, given the time since it last did something: applications
// submit in bursts (a launch, a synchronize, the next launch), so it polls
// every few microseconds for a short while after work and backs off to idleWait
// when the queues stay empty. Ioctls that hint at new work (waits,
// queue creation) wake it at once.
func pollInterval(sinceWork time.Duration) time.Duration {
	switch {
	case sinceWork < 200*time.Microsecond:
		return 5 * time.Microsecond
	case sinceWork < 2*time.Millisecond:
		return 50 * time.Microsecond
	case sinceWork < 20*time.Millisecond:
		return 500 * time.Microsecond
	case sinceWork < 200*time.Millisecond:
		return 5 * time.Millisecond
	}
	return idleWait
}

// serveSafe is serve for a queue whose ring, indices or signals may be
// memory the application has unmapped: such a fault stops the queue with
// an error instead of crashing the process.
func (cp *commandProcessor) serveSafe(q *queue) (worked bool) {
	defer func() {
		if r := recover(); r != nil {
			q.broken = true
			worked = true
			cp.d.warnf("kfd: GPU %d queue %d stopped: its ring, read/write index or a signal is not mapped (%v)", q.gpu.index, q.id, r)
		}
	}()
	return cp.serve(q)
}

// serve runs the ready packets of q; it reports whether any ran.
func (cp *commandProcessor) serve(q *queue) bool {
	if q.broken {
		return false
	}
	worked := false
	for {
		r := atomic.LoadUint64(q.rptr)
		w := atomic.LoadUint64(q.wptr)
		if r >= w {
			return worked
		}
		slot := q.ring[(r%q.packets)*aqlPacketSize:][:aqlPacketSize]
		hdr := atomic.LoadUint32((*uint32)(unsafe.Pointer(&slot[0])))
		typ := hdr & 0xff
		if typ == hsaPacketTypeInvalid {
			return worked // reserved, not yet published
		}
		completion := binary.LittleEndian.Uint64(slot[56:])
		done, start, err := cp.execute(q, slot, r, typ)
		if !done {
			return worked // a barrier waits on a signal
		}
		worked = true
		var mf *MemoryFaultError
		fault := err != nil && errors.As(err, &mf)
		if err != nil {
			// A memory fault ends the dispatch (its waves stop at the
			// faulting instruction, its completion signal is decremented)
			// and the queue goes on, so an application that handles the
			// fault event lives; any other error stops the queue.
			q.broken = !fault
			cp.d.queueError(q, err)
		}
		// The packet is consumed: its slot becomes INVALID, then the read
		// index moves, as the CP does; only then is the completion signal
		// decremented, so a thread that sees the signal also sees the slot
		// free (the slot stays intact while the kernel runs: its dispatch
		// pointer reads it).
		atomic.StoreUint32((*uint32)(unsafe.Pointer(&slot[0])), hdr&^0xff|hsaPacketTypeInvalid)
		atomic.StoreUint64(q.rptr, r+1)
		cp.complete(completion, start)
		if q.broken {
			return true
		}
	}
}

// execute runs one packet; done is false for a barrier whose condition
// does not hold yet. start is the GPU tick the packet began at, for its
// completion signal's timestamps.
func (cp *commandProcessor) execute(q *queue, p []byte, index uint64, typ uint32) (done bool, start uint64, err error) {
	le := binary.LittleEndian
	start = cp.d.gpuTicks()
	switch typ {
	case hsaPacketTypeKernelDispatch:
		if q.gpu.exec == nil {
			err = errors.New("no executor for the GPU")
			break
		}
		err = cp.dispatch(q, p, index)
		cp.dispatches.Add(1)
		return true, start, err
	case hsaPacketTypeBarrierAnd, hsaPacketTypeBarrierOr:
		n, zero := 0, 0
		for i := 0; i < 5; i++ {
			s := le.Uint64(p[8+8*i:])
			if s == 0 {
				continue
			}
			n++
			if signalValue(s) == 0 {
				zero++
			}
		}
		if typ == hsaPacketTypeBarrierAnd && zero != n || typ == hsaPacketTypeBarrierOr && n > 0 && zero == 0 {
			return false, 0, nil
		}
	case hsaPacketTypeVendorSpecific:
		switch p[2] {
		case amdAQLFormatBarrierValue:
			s := le.Uint64(p[8:])
			val, mask, cond := int64(le.Uint64(p[16:])), int64(le.Uint64(p[24:])), le.Uint32(p[32:])
			if s != 0 && !compare(signalValue(s)&mask, val, cond) {
				return false, 0, nil
			}
		case amdAQLFormatPM4IB:
			// Indirect PM4 buffers carry cache maintenance (code cache
			// invalidation after a load); the simulator decodes code
			// afresh after every (un)mapping, so there is nothing to do.
		default:
			err = errors.New("unknown AMD vendor packet format")
		}
	case hsaPacketTypeAgentDispatch:
		err = errors.New("agent dispatch packets are not supported")
	default:
		err = errors.New("invalid packet type")
	}
	return true, start, err
}

// dispatch runs a kernel, turning a fault of the process's own memory
// (a user pointer the application unmapped) or a panic of the executor
// into an error of the packet instead of a crash of the process.
func (cp *commandProcessor) dispatch(q *queue, p []byte, index uint64) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if ae, ok := r.(interface{ Addr() uintptr }); ok {
				err = &MemoryFaultError{Addr: uint64(ae.Addr()), Err: fmt.Errorf("kernel accessed unmapped process memory at %#x", ae.Addr())}
				return
			}
			err = fmt.Errorf("executor failure: %v", r)
		}
	}()
	return q.gpu.exec.Dispatch(p, q.ringVA+(index%q.packets)*aqlPacketSize, q.amdQueue, index)
}

func compare(v, want int64, cond uint32) bool {
	switch cond {
	case 0:
		return v == want
	case 1:
		return v != want
	case 2:
		return v < want
	case 3:
		return v >= want
	}
	return false
}

func signalValue(h uint64) int64 {
	return atomic.LoadInt64((*int64)(unsafe.Pointer(&hostBytes(h+amdSignalValue, 8)[0])))
}

// complete decrements a completion signal, stamps its timestamps and raises
// its event.
func (cp *commandProcessor) complete(h uint64, start uint64) {
	if h == 0 {
		return
	}
	s := hostBytes(h, 64)
	le := binary.LittleEndian
	le.PutUint64(s[amdSignalStartTS:], start)
	le.PutUint64(s[amdSignalEndTS:], cp.d.gpuTicks())
	atomic.AddInt64((*int64)(unsafe.Pointer(&s[amdSignalValue])), -1)
	mailbox := le.Uint64(s[amdSignalEventMailbox:])
	id := le.Uint32(s[amdSignalEventID:])
	if mailbox != 0 {
		atomic.StoreUint64((*uint64)(unsafe.Pointer(&hostBytes(mailbox, 8)[0])), uint64(id))
		cp.d.interrupt(id)
	}
}

// interrupt is the CP's end-of-pipe interrupt for a signal's event id:
// the event is set, or, for an id that names no event, every signal event
// (KFD's scan of the whole signal page).
func (d *Driver) interrupt(id uint32) {
	if !d.SignalEvent(id) {
		d.SignalAll()
	}
}

// gpuTicks is the GPU timestamp counter (gpuCounterHz since the driver
// started), the clock of signal timestamps and GET_CLOCK_COUNTERS.
func (d *Driver) gpuTicks() uint64 {
	return uint64(time.Since(d.start).Nanoseconds()) / (1e9 / gpuCounterHz)
}

// queueError reports a failed packet as the hardware does: a memory fault
// raises the process's memory events (ROCR's VM fault handler then reports
// it, and aborts unless the application registered a system event
// handler; unlike the hardware, the queue keeps running), any other
// failure stops the queue and sets the queue's inactive signal to the
// error code ROCR maps to an HSA status for the queue's error callback
// (0x40000000: illegal instruction).
func (d *Driver) queueError(q *queue, err error) {
	var mf *MemoryFaultError
	if errors.As(err, &mf) {
		d.warnf("kfd: GPU %d queue %d: memory fault: %v", q.gpu.index, q.id, err)
		d.ReportMemoryFault(MemoryFault{VA: mf.Addr, GPUID: q.gpu.id, NotPresent: true})
		return
	}
	d.warnf("kfd: GPU %d queue %d stopped: %v", q.gpu.index, q.id, err)
	if q.amdQueue == 0 {
		return
	}
	h := binary.LittleEndian.Uint64(hostBytes(q.amdQueue+amdQueueInactiveSignal, 8))
	if h == 0 {
		return
	}
	s := hostBytes(h, 64)
	atomic.StoreInt64((*int64)(unsafe.Pointer(&s[amdSignalValue])), queueErrorIllegalInstruction)
	if mailbox := binary.LittleEndian.Uint64(s[amdSignalEventMailbox:]); mailbox != 0 {
		d.interrupt(binary.LittleEndian.Uint32(s[amdSignalEventID:]))
	}
}

// queueErrorIllegalInstruction is the queue-inactive error code of a wave
// that executed an instruction it could not.
const queueErrorIllegalInstruction = 0x40000000

// MemoryFaultError is the error an Executor returns for a kernel that
// accessed memory outside every mapping.
type MemoryFaultError struct {
	// Addr is the faulting address.
	Addr uint64
	// Err is the executor's error.
	Err error
}

func (e *MemoryFaultError) Error() string { return e.Err.Error() }
func (e *MemoryFaultError) Unwrap() error { return e.Err }
