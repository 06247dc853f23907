package sim

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/aql"
	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// TestQueueDispatch submits vector_add as an AQL kernel dispatch packet
// followed by a barrier-AND packet, and checks the output and signals.
func TestQueueDispatch(t *testing.T) {
	c, ok := kernelref.Lookup("vector_add")
	if !ok {
		t.Fatal("no vector_add case")
	}
	image, err := os.ReadFile(filepath.Join(projectpath.MustRoot(t), c.Object("gfx942")))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := NewAgent("gfx942")
	ex, err := a.LoadCodeObject(image)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := ex.Kernel(c.Name)
	addrs := map[int]uint64{}
	for _, i := range c.Buffers() {
		addrs[i], _ = a.Alloc(uint64(len(c.Args[i].Init)))
		if err := a.CopyIn(addrs[i], c.Args[i].Init); err != nil {
			t.Fatal(err)
		}
	}
	explicit, err := c.Kernarg(addrs)
	if err != nil {
		t.Fatal(err)
	}
	seg := k.KernargSegment(explicit, c.Grid, c.Block)
	kaAddr, _ := a.Alloc(uint64(len(seg)))
	if err := a.CopyIn(kaAddr, seg); err != nil {
		t.Fatal(err)
	}
	done, _ := a.NewSignal(1)
	q, err := a.NewQueue(4)
	if err != nil {
		t.Fatal(err)
	}
	p := aql.KernelDispatchPacket{
		Header: aql.MakeHeader(aql.PacketTypeKernelDispatch, true, aql.FenceScopeSystem, aql.FenceScopeSystem),
		Setup:  1, WorkgroupSizeX: uint16(c.Block[0]), WorkgroupSizeY: 1, WorkgroupSizeZ: 1,
		GridSizeX: c.Grid[0], GridSizeY: 1, GridSizeZ: 1,
		KernelObject: k.KD, KernargAddress: kaAddr, CompletionSignal: done,
	}
	b := p.Bytes()
	if err := q.Submit(b[:]); err != nil {
		t.Fatal(err)
	}
	if v, _ := a.SignalValue(done); v != 0 {
		t.Fatalf("completion signal = %d, want 0", v)
	}
	out := map[int][]byte{}
	for i, addr := range addrs {
		out[i] = make([]byte, len(c.Args[i].Init))
		if err := a.CopyOut(addr, out[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Check(out); err != nil {
		t.Fatal(err)
	}
	// A barrier on the finished dispatch completes and signals.
	bdone, _ := a.NewSignal(1)
	bp := aql.BarrierPacket{Header: aql.MakeHeader(aql.PacketTypeBarrierAnd, true, 0, 0), CompletionSignal: bdone}
	bp.DepSignal[0] = done
	bb := bp.Bytes()
	if err := q.Submit(bb[:]); err != nil {
		t.Fatal(err)
	}
	if v, _ := a.SignalValue(bdone); v != 0 {
		t.Fatalf("barrier completion signal = %d, want 0", v)
	}
	// A barrier on a signal nothing will decrement fails instead of hanging.
	never, _ := a.NewSignal(1)
	bp.DepSignal[0] = never
	bb = bp.Bytes()
	if err := q.Submit(bb[:]); err == nil {
		t.Fatal("unsatisfiable barrier must fail")
	}
	// The ring wraps: 4 slots, 3 used so far; the failed packet stays.
	if q.Read != 2 || q.Write != 3 {
		t.Fatalf("read %d write %d", q.Read, q.Write)
	}
	// The slot of a processed packet reads INVALID again.
	var hdr [2]byte
	if err := a.CopyOut(q.Base, hdr[:]); err != nil || binary.LittleEndian.Uint16(hdr[:]) != uint16(aql.PacketTypeInvalid) {
		t.Fatalf("processed slot header %x, %v", hdr, err)
	}
}

// TestConcurrentDispatch dispatches vector_add from several goroutines on
// one agent; every result must be right (and -race must stay quiet).
func TestConcurrentDispatch(t *testing.T) {
	c, _ := kernelref.Lookup("vector_add")
	image, err := os.ReadFile(filepath.Join(projectpath.MustRoot(t), c.Object("gfx942")))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := NewAgent("gfx942")
	ex, err := a.LoadCodeObject(image)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := ex.Kernel(c.Name)
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func() {
			addrs := map[int]uint64{}
			for _, i := range c.Buffers() {
				addr, err := a.Alloc(uint64(len(c.Args[i].Init)))
				if err == nil {
					err = a.CopyIn(addr, c.Args[i].Init)
				}
				if err != nil {
					errs <- err
					return
				}
				addrs[i] = addr
			}
			ka, err := c.Kernarg(addrs)
			if err == nil {
				err = a.Dispatch(k, c.Grid, c.Block, ka)
			}
			if err != nil {
				errs <- err
				return
			}
			out := map[int][]byte{}
			for i, addr := range addrs {
				out[i] = make([]byte, len(c.Args[i].Init))
				if err := a.CopyOut(addr, out[i]); err != nil {
					errs <- err
					return
				}
			}
			errs <- c.Check(out)
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
