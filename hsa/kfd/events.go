package kfd

import (
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// event is a KFD event. Signal events carry an age that every set
// increments, so a waiter that passes the age it last saw (ROCR passes 1)
// returns at once when the event fired in between.
type event struct {
	id        uint32
	typ       uint32
	autoReset bool
	signaled  bool
	age       uint64
	// memory-exception data for KFD_IOC_EVENT_MEMORY events
	fault *MemoryFault
}

// MemoryFault describes a GPU memory access fault reported through a
// KFD_IOC_EVENT_MEMORY event.
type MemoryFault struct {
	// VA is the faulting address; GPUID the device.
	VA    uint64
	GPUID uint32
	// NotPresent, ReadOnly and NoExecute are the failure kinds.
	NotPresent, ReadOnly, NoExecute bool
}

type eventTable struct {
	mu      sync.Mutex
	evs     map[uint32]*event
	changed chan struct{}
	// page is the handle of the events page libhsakmt registered.
	page uint64
}

func newEventTable() *eventTable {
	return &eventTable{evs: map[uint32]*event{}, changed: make(chan struct{})}
}

// notify wakes every waiter; the caller holds t.mu.
func (t *eventTable) notify() {
	close(t.changed)
	t.changed = make(chan struct{})
}

// firstNonSignalEventID is where ids of events other than signal events
// start, above the signal-event slots.
const firstNonSignalEventID = KFD_SIGNAL_EVENT_LIMIT

func (d *Driver) createEvent(b []byte) unix.Errno {
	a := as[kfdIoctlCreateEventArgs](b)
	if a.EventType > KFD_IOC_EVENT_MEMORY {
		return unix.EINVAL
	}
	t := d.events
	t.mu.Lock()
	defer t.mu.Unlock()
	if a.EventPageOffset != 0 && t.page == 0 {
		d.mu.Lock()
		_, ok := d.bos[a.EventPageOffset]
		d.mu.Unlock()
		if !ok {
			return unix.EINVAL
		}
		t.page = a.EventPageOffset
	}
	lo, hi := uint32(0), uint32(KFD_SIGNAL_EVENT_LIMIT)
	if a.EventType != KFD_IOC_EVENT_SIGNAL {
		lo, hi = firstNonSignalEventID, 1<<31
	}
	id := lo
	for ; id < hi; id++ {
		if t.evs[id] == nil {
			break
		}
	}
	if id == hi {
		return unix.ENOSPC
	}
	t.evs[id] = &event{id: id, typ: a.EventType, autoReset: a.AutoReset != 0, age: 1}
	a.EventID = id
	a.EventTriggerData = id
	a.EventSlotIndex = 0
	if a.EventType == KFD_IOC_EVENT_SIGNAL {
		a.EventSlotIndex = id
	}
	// As the kernel does, a signal event reports the events page (the
	// process's own when it registered one, else the driver's, which an APU
	// runtime maps) and its slot there; libhsakmt makes the slot the
	// signal's mailbox only when the offset is non-zero.
	a.EventPageOffset = 0
	if a.EventType == KFD_IOC_EVENT_SIGNAL {
		a.EventPageOffset = EncodeMmapOffset(KFD_MMAP_TYPE_EVENTS, 0, 0)
	}
	return 0
}

func (d *Driver) destroyEvent(b []byte) unix.Errno {
	a := as[kfdIoctlEventIDArgs](b)
	t := d.events
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.evs[a.EventID] == nil {
		return unix.EINVAL
	}
	delete(t.evs, a.EventID)
	t.notify()
	return 0
}

func (d *Driver) setEvent(b []byte) unix.Errno {
	a := as[kfdIoctlEventIDArgs](b)
	if !d.SignalEvent(a.EventID) {
		return unix.EINVAL
	}
	return 0
}

func (d *Driver) resetEvent(b []byte) unix.Errno {
	a := as[kfdIoctlEventIDArgs](b)
	t := d.events
	t.mu.Lock()
	defer t.mu.Unlock()
	ev := t.evs[a.EventID]
	if ev == nil {
		return unix.EINVAL
	}
	ev.signaled = false
	return 0
}

// SignalEvent sets event id (as the interrupt of a completion signal does)
// and wakes its waiters. It reports whether the event exists.
func (d *Driver) SignalEvent(id uint32) bool {
	t := d.events
	t.mu.Lock()
	defer t.mu.Unlock()
	ev := t.evs[id]
	if ev == nil {
		return false
	}
	ev.signaled = true
	ev.age++
	t.notify()
	return true
}

// SignalAll sets every signal event (an interrupt without a valid id).
func (d *Driver) SignalAll() {
	t := d.events
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, ev := range t.evs {
		if ev.typ == KFD_IOC_EVENT_SIGNAL {
			ev.signaled = true
			ev.age++
		}
	}
	t.notify()
}

// ReportMemoryFault raises every memory event with the fault's data.
func (d *Driver) ReportMemoryFault(f MemoryFault) {
	t := d.events
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, ev := range t.evs {
		if ev.typ == KFD_IOC_EVENT_MEMORY {
			ev.signaled = true
			ev.age++
			fc := f
			ev.fault = &fc
		}
	}
	t.notify()
}

// memory_exception_data layout in struct kfd_event_data's union:
// failure flags (u32 NotPresent, ReadOnly, NoExecute, imprecise), va
// (u64), gpu_id (u32), ErrorType (u32).
func putMemoryException(ed *kfdEventData, f *MemoryFault) {
	u := (*[32]byte)(unsafe.Pointer(ed))[:]
	le32 := func(o int, v uint32) { u[o], u[o+1], u[o+2], u[o+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24) }
	b2u := func(b bool) uint32 {
		if b {
			return 1
		}
		return 0
	}
	le32(0, b2u(f.NotPresent))
	le32(4, b2u(f.ReadOnly))
	le32(8, b2u(f.NoExecute))
	le32(12, 0)
	for i := 0; i < 8; i++ {
		u[16+i] = byte(f.VA >> (8 * i))
	}
	le32(24, f.GPUID)
	le32(28, 0)
}

func (d *Driver) waitEvents(b []byte) unix.Errno {
	a := as[kfdIoctlWaitEventsArgs](b)
	if a.NumEvents == 0 || a.NumEvents > 1<<16 || a.EventsPtr == 0 {
		return unix.EINVAL
	}
	sz := uint64(unsafe.Sizeof(kfdEventData{}))
	raw, e := copyIn(a.EventsPtr, uint64(a.NumEvents)*sz)
	if e != 0 {
		return e
	}
	data := make([]*kfdEventData, a.NumEvents)
	for i := range data {
		data[i] = as[kfdEventData](raw[uint64(i)*sz:])
	}
	d.cp.kick() // a waiter is a hint that work was just queued
	var deadline <-chan time.Time
	if a.Timeout != 0xffffffff {
		tm := time.NewTimer(time.Duration(a.Timeout) * time.Millisecond)
		defer tm.Stop()
		deadline = tm.C
	}
	t := d.events
	for {
		t.mu.Lock()
		ready, n := make([]bool, len(data)), 0
		for i, ed := range data {
			ev := t.evs[ed.EventID]
			if ev == nil {
				t.mu.Unlock()
				return unix.EINVAL
			}
			if ev.signaled || (ev.typ == KFD_IOC_EVENT_SIGNAL && ed.LastEventAge != 0 && ev.age != ed.LastEventAge) {
				ready[i] = true
				n++
			}
		}
		done := (a.WaitForAll == 0 && n > 0) || (a.WaitForAll != 0 && n == len(data))
		if done {
			for i, ed := range data {
				ev := t.evs[ed.EventID]
				if ev.typ == KFD_IOC_EVENT_SIGNAL {
					ed.LastEventAge = ev.age
				}
				if !ready[i] {
					continue
				}
				if ev.typ == KFD_IOC_EVENT_MEMORY && ev.fault != nil {
					putMemoryException(ed, ev.fault)
				}
				if ev.autoReset {
					ev.signaled = false
				}
			}
			t.mu.Unlock()
			a.WaitResult = KFD_IOC_WAIT_RESULT_COMPLETE
			return copyOut(a.EventsPtr, raw)
		}
		if a.Timeout == 0 {
			t.mu.Unlock()
			a.WaitResult = KFD_IOC_WAIT_RESULT_TIMEOUT
			return 0
		}
		ch := t.changed
		t.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			a.WaitResult = KFD_IOC_WAIT_RESULT_TIMEOUT
			return 0
		}
	}
}
