package sim

import (
	"encoding/binary"
	"fmt"

	"github.com/rocjitsu/rocjitsu/hsa/aql"
)

// Signals are 64-byte objects in device memory laid out like amd_signal_t:
// kind (int64) at offset 0 and the value (int64) at offset 8. A signal's
// handle is its device address.
const signalSize = 64

// NewSignal creates a completion signal with an initial value and returns
// its handle.
func (a *Agent) NewSignal(initial int64) (uint64, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	h, err := a.Mem.Alloc(signalSize, 64)
	if err != nil {
		return 0, err
	}
	if err := a.Mem.Store64(h, 1); err != nil { // kind: user signal
		return 0, err
	}
	return h, a.Mem.Store64(h+8, uint64(initial))
}

// SignalValue reads a signal's value.
func (a *Agent) SignalValue(h uint64) (int64, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.signalValue(h)
}

func (a *Agent) signalValue(h uint64) (int64, error) {
	v, err := a.Mem.Load64(h + 8)
	if err != nil {
		return 0, fmt.Errorf("sim: signal %#x: %w", h, err)
	}
	return int64(v), nil
}

func (a *Agent) signalSub(h uint64) error {
	if h == 0 {
		return nil
	}
	v, err := a.signalValue(h)
	if err != nil {
		return err
	}
	return a.Mem.Store64(h+8, uint64(v-1))
}

// Queue is an AQL queue: a ring of 64-byte packets in device memory that
// the agent processes in order.
type Queue struct {
	// Base is the ring's device address.
	Base uint64
	// Size is the ring's capacity in packets (a power of two).
	Size uint32
	// Read and Write are the packet indices consumed and produced so far.
	Read, Write uint64

	agent *Agent
}

// NewQueue creates a queue of size packets.
func (a *Agent) NewQueue(size uint32) (*Queue, error) {
	if size == 0 || size&(size-1) != 0 {
		return nil, fmt.Errorf("sim: queue size %d is not a power of two", size)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	base, err := a.Mem.Alloc(uint64(size)*aql.PacketSize, 64)
	if err != nil {
		return nil, err
	}
	q := &Queue{Base: base, Size: size, agent: a}
	for i := uint32(0); i < size; i++ { // every slot starts INVALID
		var b [2]byte
		binary.LittleEndian.PutUint16(b[:], uint16(aql.PacketTypeInvalid))
		if err := a.Mem.Write(base+uint64(i)*aql.PacketSize, b[:]); err != nil {
			return nil, err
		}
	}
	return q, nil
}

// Submit writes a 64-byte packet at the write index (header last, as a
// producer publishes it) and rings the doorbell, which processes every
// pending packet. It returns the first packet's error.
func (q *Queue) Submit(pkt []byte) error {
	q.agent.mu.Lock()
	defer q.agent.mu.Unlock()
	if len(pkt) < aql.PacketSize {
		return fmt.Errorf("sim: packet of %d bytes, want %d", len(pkt), aql.PacketSize)
	}
	if q.Write-q.Read >= uint64(q.Size) {
		return fmt.Errorf("sim: queue full (%d packets)", q.Size)
	}
	slot := q.Base + (q.Write%uint64(q.Size))*aql.PacketSize
	if err := q.agent.Mem.Write(slot+2, pkt[2:aql.PacketSize]); err != nil {
		return err
	}
	if err := q.agent.Mem.Write(slot, pkt[:2]); err != nil {
		return err
	}
	q.Write++
	return q.process()
}

// Process executes the packets between the read and write indices.
func (q *Queue) Process() error {
	q.agent.mu.Lock()
	defer q.agent.mu.Unlock()
	return q.process()
}

func (q *Queue) process() error {
	a := q.agent
	for q.Read < q.Write {
		slot := q.Base + (q.Read%uint64(q.Size))*aql.PacketSize
		b, err := a.Mem.Slice(slot, aql.PacketSize, true)
		if err != nil {
			return err
		}
		h, err := aql.ReadHeader(b)
		if err != nil {
			return err
		}
		var completion uint64
		switch h.Type() {
		case aql.PacketTypeKernelDispatch:
			p, err := aql.DecodeKernelDispatchPacket(b)
			if err != nil {
				return fmt.Errorf("sim: packet %d: %w", q.Read, err)
			}
			completion = p.CompletionSignal
			// The queue has no hsa_queue_t in memory (queue ptr 0); the
			// dispatch id is the packet's index.
			if err := a.dispatchPacket(&p, slot, 0, q.Read); err != nil {
				return fmt.Errorf("sim: packet %d: %w", q.Read, err)
			}
		case aql.PacketTypeBarrierAnd, aql.PacketTypeBarrierOr:
			p, err := aql.DecodeBarrierPacket(b)
			if err != nil {
				return fmt.Errorf("sim: packet %d: %w", q.Read, err)
			}
			completion = p.CompletionSignal
			done, any := 0, false
			n := 0
			for _, s := range p.DepSignal {
				if s == 0 {
					continue
				}
				n++
				v, err := a.signalValue(s)
				if err != nil {
					return fmt.Errorf("sim: packet %d: %w", q.Read, err)
				}
				if v == 0 {
					done++
					any = true
				}
			}
			// Work completes synchronously, so an unsatisfied barrier can
			// never be satisfied later.
			if (h.Type() == aql.PacketTypeBarrierAnd && done != n) || (h.Type() == aql.PacketTypeBarrierOr && n > 0 && !any) {
				return fmt.Errorf("sim: packet %d: barrier dependencies are not satisfied and nothing else can run", q.Read)
			}
		default:
			return fmt.Errorf("sim: packet %d: unsupported packet type %v", q.Read, h.Type())
		}
		if err := a.signalSub(completion); err != nil {
			return err
		}
		binary.LittleEndian.PutUint16(b, uint16(aql.PacketTypeInvalid))
		q.Read++
	}
	return nil
}

// DispatchAQL runs one 64-byte AQL kernel-dispatch packet, pkt, whose
// device address is pktAddr; it is DispatchAQLOnQueue without a queue
// (queue address and dispatch id 0).
func (a *Agent) DispatchAQL(pkt []byte, pktAddr uint64) error {
	return a.DispatchAQLOnQueue(pkt, pktAddr, 0, 0)
}

// DispatchAQLOnQueue runs one 64-byte AQL kernel-dispatch packet, pkt (as
// package aql decodes it), and blocks until the kernel completes or
// faults. It is the command processor's step for a packet that someone
// else wrote into memory:
//
//   - kernel_object is the device address of a 64-byte kernel descriptor
//     that is in memory. If it is the descriptor of a kernel of an
//     executable loaded with LoadCodeObject, that kernel runs under its
//     name; otherwise the descriptor is read from memory and the kernel is
//     named "kernel_object 0x..." (a fault's DispatchError.Offset is then
//     relative to the descriptor's address).
//   - kernarg_address is a complete kernarg segment (hidden arguments
//     included); it is not written.
//   - the grid and workgroup sizes come from the packet (unused dimensions
//     count as 1); the group segment is the packet's group_segment_size
//     but at least the descriptor's static size, and likewise for the
//     private segment per work-item.
//   - the user SGPRs the descriptor enables receive pktAddr (dispatch
//     ptr), queueAddr (queue ptr, the address of the queue's hsa_queue_t;
//     0 for none), the kernarg address and dispatchID (dispatch id).
//
// It neither reads nor changes the packet's header in memory nor its
// completion signal; that is the caller's part of packet processing. Only
// the agent's own lock is held while the kernel runs: other goroutines
// may map and unmap memory (a.Mem) meanwhile.
func (a *Agent) DispatchAQLOnQueue(pkt []byte, pktAddr, queueAddr, dispatchID uint64) error {
	p, err := aql.DecodeKernelDispatchPacket(pkt)
	if err != nil {
		return fmt.Errorf("sim: dispatch packet at %#x: %w", pktAddr, err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.dispatchPacket(&p, pktAddr, queueAddr, dispatchID)
}

// dispatchPacket runs a kernel dispatch packet whose kernarg segment is
// already in memory (see DispatchAQLOnQueue).
func (a *Agent) dispatchPacket(p *aql.KernelDispatchPacket, pktAddr, queueAddr, dispatchID uint64) error {
	k, err := a.kernelFor(p.KernelObject)
	if err != nil {
		return err
	}
	grid := [3]uint32{p.GridSizeX, p.GridSizeY, p.GridSizeZ}
	block := [3]uint32{uint32(p.WorkgroupSizeX), uint32(p.WorkgroupSizeY), uint32(p.WorkgroupSizeZ)}
	for i := p.Dimensions(); i < 3; i++ {
		if grid[i] == 0 {
			grid[i] = 1
		}
		if block[i] == 0 {
			block[i] = 1
		}
	}
	if err := checkSizes(k, grid, block); err != nil {
		return err
	}
	group := max(p.GroupSegmentSize, k.Desc.GroupSegmentFixedSize)
	private := max(p.PrivateSegmentSize, k.Desc.PrivateSegmentFixedSize)
	return a.run(&launch{k: k, grid: grid, block: block, kernarg: p.KernargAddress, packet: pktAddr,
		queue: queueAddr, id: dispatchID, group: group, private: private})
}
