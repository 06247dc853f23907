package sim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rocjitsu/rocjitsu/hsa/aql"
	"github.com/rocjitsu/rocjitsu/hsa/sim/mem"
	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader"
)

// hostBase is where the tests place host buffers: an address of the kind a
// process's heap has, far from mem.Base, where Alloc starts.
const hostBase = 0x0000_5555_0000_0000

// host is a process address space as the simulated KFD sees it: Go byte
// slices mapped (mem.Map) at fixed addresses, so that the simulator runs
// over memory the test owns.
type host struct {
	t    testing.TB
	m    *mem.Memory
	next uint64
}

func newHost(t testing.TB) *host { return &host{t: t, m: mem.New(), next: hostBase} }

// alloc maps a fresh zeroed slice of size bytes (page-aligned, with an
// unmapped page after it) and returns its address and bytes.
func (h *host) alloc(size int) (uint64, []byte) {
	h.t.Helper()
	b := make([]byte, size)
	addr := h.next
	if err := h.m.Map(addr, b); err != nil {
		h.t.Fatal(err)
	}
	h.next += (uint64(size)+4095)&^4095 + 4096
	return addr, b
}

// mapAt maps b at addr.
func (h *host) mapAt(addr uint64, b []byte) {
	h.t.Helper()
	if err := h.m.Map(addr, b); err != nil {
		h.t.Fatal(err)
	}
}

// loadCodeObject does what ROCR's loader does with a code object: it lays
// the PT_LOAD segments out in a host buffer, applies the relocations for
// the buffer's address and maps the buffer at base. It returns the
// buffer and the descriptor address of every kernel.
func (h *host) loadCodeObject(base uint64, image []byte) ([]byte, map[string]uint64) {
	h.t.Helper()
	f, err := loader.Parse(image)
	if err != nil {
		h.t.Fatal(err)
	}
	img, err := f.LoadImage()
	if err != nil {
		h.t.Fatal(err)
	}
	for _, r := range f.Relocations {
		if r.Type == loader.R_AMDGPU_RELATIVE64 {
			binary.LittleEndian.PutUint64(img[r.Offset:], uint64(int64(base)+r.Addend))
		}
	}
	if err := h.m.Map(base, img); err != nil {
		h.t.Fatal(err)
	}
	kds := map[string]uint64{}
	for _, k := range f.Kernels() {
		kds[k.Name] = base + k.DescriptorAddr
	}
	return img, kds
}

// hostCase is a kernelref case laid out in host memory: its buffers, a
// complete kernarg segment and an AQL packet in a ring slot, ready for
// DispatchAQL.
type hostCase struct {
	c       *kernelref.Case
	bufs    map[int][]byte
	addrs   map[int]uint64
	kernarg []byte
	pkt     []byte
	pktAddr uint64
}

// prepare maps the case's buffers, kernarg segment and packet. The kernarg
// segment's layout (hidden arguments) comes from the object's metadata via
// a scratch agent for target, as ROCR takes it from the metadata; the
// packet names the descriptor at kd.
func (h *host) prepare(c *kernelref.Case, target string, image []byte, kd uint64) *hostCase {
	h.t.Helper()
	scratch, err := NewAgent(target)
	if err != nil {
		h.t.Fatal(err)
	}
	ex, err := scratch.LoadCodeObject(image)
	if err != nil {
		h.t.Fatal(err)
	}
	k, err := ex.Kernel(c.Name)
	if err != nil {
		h.t.Fatal(err)
	}
	hc := &hostCase{c: c, bufs: map[int][]byte{}, addrs: map[int]uint64{}}
	for _, i := range c.Buffers() {
		addr, b := h.alloc(len(c.Args[i].Init))
		copy(b, c.Args[i].Init)
		hc.addrs[i], hc.bufs[i] = addr, b
	}
	explicit, err := c.Kernarg(hc.addrs)
	if err != nil {
		h.t.Fatal(err)
	}
	seg := k.KernargSegment(explicit, c.Grid, c.Block)
	for _, arg := range k.Args {
		if arg.ValueKind == "hidden_dynamic_lds_size" {
			binary.LittleEndian.PutUint32(seg[arg.Offset:], c.DynamicLDS())
		}
	}
	kaAddr, ka := h.alloc(len(seg))
	copy(ka, seg)
	hc.kernarg = ka
	private := k.Desc.PrivateSegmentFixedSize
	if k.Desc.CodeProperties&(1<<11) != 0 { // dynamic stack, as DispatchExt sizes it
		private = max(private, dynamicStackSize)
	}
	dims := uint16(1)
	if c.Grid[2] > 1 {
		dims = 3
	} else if c.Grid[1] > 1 {
		dims = 2
	}
	p := aql.KernelDispatchPacket{
		Header: aql.MakeHeader(aql.PacketTypeKernelDispatch, true, aql.FenceScopeSystem, aql.FenceScopeSystem),
		Setup:  dims, WorkgroupSizeX: uint16(c.Block[0]), WorkgroupSizeY: uint16(c.Block[1]), WorkgroupSizeZ: uint16(c.Block[2]),
		GridSizeX: c.Grid[0], GridSizeY: c.Grid[1], GridSizeZ: c.Grid[2],
		PrivateSegmentSize: private, GroupSegmentSize: k.Desc.GroupSegmentFixedSize + c.DynamicLDS(),
		KernelObject: kd, KernargAddress: kaAddr,
	}
	ringAddr, ring := h.alloc(4 * aql.PacketSize)
	slot := 2 // not the ring's first slot, so that pktAddr matters
	p.Encode(ring[slot*aql.PacketSize:])
	hc.pkt, hc.pktAddr = ring[slot*aql.PacketSize:(slot+1)*aql.PacketSize], ringAddr+uint64(slot*aql.PacketSize)
	return hc
}

// check compares the buffers with the case's CPU reference and the kernarg
// segment with what prepare wrote.
func (hc *hostCase) check(t testing.TB, kernarg []byte) {
	t.Helper()
	if err := hc.c.Check(hc.bufs); err != nil {
		t.Fatal(err)
	}
	if string(hc.kernarg) != string(kernarg) {
		t.Fatal("DispatchAQL changed the kernarg segment")
	}
}

func readObject(t testing.TB, c *kernelref.Case, target string) []byte {
	t.Helper()
	image, err := os.ReadFile(filepath.Join(projectpath.MustRoot(t), c.Object(target)))
	if os.IsNotExist(err) {
		t.Skipf("%s is not built yet", c.Object(target))
	}
	if err != nil {
		t.Fatal(err)
	}
	return image
}

// TestDispatchAQLHostMemory runs every corpus kernel (gfx9 objects and
// their gfx950 retargets, gfx12 wave32 objects) the way the simulated
// KFD does: code object, buffers, kernarg segment and packet in host
// buffers mapped at fixed addresses, nothing loaded with LoadCodeObject,
// dispatched by the packet alone. Buffers must match the CPU references
// and the kernarg segment must be left as written.
func TestDispatchAQLHostMemory(t *testing.T) {
	cases := kernelref.AllCases()
	ran := 0
	for _, target := range []string{"gfx942", "gfx950", "gfx1200", "gfx1201"} {
		for i := range cases {
			c := &cases[i]
			if !c.HasTarget(target) {
				continue
			}
			t.Run(target+"/"+c.Name, func(t *testing.T) {
				image := readObject(t, c, target)
				h := newHost(t)
				_, kds := h.loadCodeObject(hostBase+0x1000_0000, image)
				hc := h.prepare(c, target, image, kds[c.Name])
				ka := append([]byte(nil), hc.kernarg...)
				a, err := NewAgentOn(target, h.m)
				if err != nil {
					t.Fatal(err)
				}
				if err := a.DispatchAQL(hc.pkt, hc.pktAddr); err != nil {
					t.Fatal(err)
				}
				hc.check(t, ka)
				ran++
			})
		}
	}
	if ran == 0 {
		t.Fatal("no corpus kernel ran")
	}
}

// probeWords is a hand-made kernel (llvm-mc-19 -mcpu=gfx942 encodings) that
// stores its user SGPRs and a marker to the address in kernarg[0:8]:
//
//	s_load_dwordx2 s[8:9], s[4:5], 0x0
//	s_mov_b32 s10, MARKER                   ; literal at word 3
//	s_waitcnt lgkmcnt(0)
//	v_mov_b32 v0..v3, s0..s3                ; dispatch ptr, queue ptr
//	v_mov_b32 v4, s6 ; v_mov_b32 v5, s7     ; dispatch id
//	v_mov_b32 v6, s10 ; v_mov_b32 v7, 0
//	global_store_dwordx4 v7, v[0:3], s[8:9]
//	global_store_dwordx3 v7, v[4:6], s[8:9] offset:16
//	s_endpgm
var probeWords = []uint32{
	0xc0060202, 0x00000000,
	0xbe8a00ff, 0x11111111,
	0xbf8cc07f,
	0x7e000200, 0x7e020201, 0x7e040202, 0x7e060203,
	0x7e080206, 0x7e0a0207, 0x7e0c020a, 0x7e0e0280,
	0xdc7c8000, 0x00080007,
	0xdc788010, 0x00080407,
	0xbf810000,
}

// probeEntry is the code's offset from the descriptor.
const probeEntry = 256

// probeCode returns a code region: the probe's kernel descriptor at offset
// 0 (user SGPRs: dispatch ptr, queue ptr, kernarg ptr, dispatch id) and
// its code, with marker as the stored constant, at probeEntry.
func probeCode(marker uint32) []byte {
	b := make([]byte, 4096)
	le := binary.LittleEndian
	le.PutUint32(b[8:], 8)           // kernarg_size
	le.PutUint64(b[16:], probeEntry) // kernel_code_entry_byte_offset
	le.PutUint32(b[52:], 8<<1)       // RSRC2: 8 user SGPRs
	le.PutUint16(b[56:], 2|4|8|16)   // dispatch ptr, queue ptr, kernarg ptr, dispatch id
	for i, w := range probeWords {
		le.PutUint32(b[probeEntry+4*i:], w)
	}
	le.PutUint32(b[probeEntry+12:], marker)
	return b
}

// probe is the probe kernel's dispatch in host memory.
type probe struct {
	h       *host
	a       *Agent
	pkt     []byte
	pktAddr uint64
	out     []byte
}

// newProbe maps a kernarg segment, an output buffer and a packet naming the
// descriptor at kd.
func newProbe(t *testing.T, h *host, a *Agent, kd uint64) *probe {
	outAddr, out := h.alloc(64)
	kaAddr, ka := h.alloc(256)
	binary.LittleEndian.PutUint64(ka, outAddr)
	pktAddr, pkt := h.alloc(aql.PacketSize)
	p := aql.KernelDispatchPacket{
		Header: aql.MakeHeader(aql.PacketTypeKernelDispatch, true, aql.FenceScopeSystem, aql.FenceScopeSystem),
		Setup:  1, WorkgroupSizeX: 1, WorkgroupSizeY: 1, WorkgroupSizeZ: 1, GridSizeX: 1, GridSizeY: 1, GridSizeZ: 1,
		KernelObject: kd, KernargAddress: kaAddr,
	}
	p.Encode(pkt)
	return &probe{h: h, a: a, pkt: pkt, pktAddr: pktAddr, out: out}
}

// run dispatches the probe and returns what it stored: dispatch ptr, queue
// ptr, dispatch id and marker.
func (p *probe) run(t *testing.T, queue, id uint64) (pktPtr, queuePtr, dispatchID uint64, marker uint32) {
	t.Helper()
	clear(p.out)
	if err := p.a.DispatchAQLOnQueue(p.pkt, p.pktAddr, queue, id); err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	return le.Uint64(p.out[0:]), le.Uint64(p.out[8:]), le.Uint64(p.out[16:]), le.Uint32(p.out[24:])
}

// probeAddr is where the tests map the probe's code region.
const probeAddr = hostBase + 0x2000_0000

// TestDispatchAQLUserSGPRs checks the dispatch-ptr, queue-ptr and
// dispatch-id user SGPRs of a kernel known only by its descriptor.
func TestDispatchAQLUserSGPRs(t *testing.T) {
	h := newHost(t)
	h.mapAt(probeAddr, probeCode(0x11111111))
	a, err := NewAgentOn("gfx942", h.m)
	if err != nil {
		t.Fatal(err)
	}
	p := newProbe(t, h, a, probeAddr)
	const queue, id = 0x0000_7fff_1234_5000, 0xfedc_ba98_7654_3210
	pp, qp, did, marker := p.run(t, queue, id)
	if pp != p.pktAddr || qp != queue || did != id || marker != 0x11111111 {
		t.Fatalf("dispatch ptr %#x, queue ptr %#x, dispatch id %#x, marker %#x; want %#x, %#x, %#x, 0x11111111",
			pp, qp, did, marker, p.pktAddr, uint64(queue), uint64(id))
	}
	clear(p.out)
	if err := a.DispatchAQL(p.pkt, p.pktAddr); err != nil {
		t.Fatal(err)
	}
	if qp, did := binary.LittleEndian.Uint64(p.out[8:]), binary.LittleEndian.Uint64(p.out[16:]); qp != 0 || did != 0 {
		t.Fatalf("DispatchAQL: queue ptr %#x, dispatch id %#x; want 0, 0", qp, did)
	}
}

// TestDispatchAQLCodeReplaced replaces the code at one address between
// dispatches, as ROCR does when it frees a code object and loads another
// where it was: each dispatch must run the code that is there now, not
// instructions decoded from what was there before.
func TestDispatchAQLCodeReplaced(t *testing.T) {
	h := newHost(t)
	a, err := NewAgentOn("gfx942", h.m)
	if err != nil {
		t.Fatal(err)
	}
	h.mapAt(probeAddr, probeCode(0x11111111))
	p := newProbe(t, h, a, probeAddr)
	want := func(step string, marker uint32) {
		t.Helper()
		if _, _, _, got := p.run(t, 0, 0); got != marker {
			t.Fatalf("%s: the kernel stored %#x, want %#x (stale decoded code)", step, got, marker)
		}
	}
	want("first code", 0x11111111)
	if err := h.m.Unmap(probeAddr); err != nil {
		t.Fatal(err)
	}
	code := probeCode(0x22222222)
	h.mapAt(probeAddr, code)
	want("other bytes mapped at the same address", 0x22222222)
	if err := h.m.Unmap(probeAddr); err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(code[probeEntry+12:], 0x33333333)
	h.mapAt(probeAddr, code)
	want("the same bytes rewritten and mapped again", 0x33333333)
	binary.LittleEndian.PutUint32(code[probeEntry+12:], 0x44444444)
	want("the code rewritten in place", 0x44444444)

	// Real code objects: vector_add, then saxpy loaded at the same base.
	const base = hostBase + 0x3000_0000
	for _, name := range []string{"vector_add", "saxpy"} {
		c, ok := kernelref.Lookup(name)
		if !ok {
			t.Fatalf("no %s case", name)
		}
		image := readObject(t, &c, "gfx942")
		_, kds := h.loadCodeObject(base, image)
		hc := h.prepare(&c, "gfx942", image, kds[c.Name])
		ka := append([]byte(nil), hc.kernarg...)
		if err := a.DispatchAQL(hc.pkt, hc.pktAddr); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		hc.check(t, ka)
		if err := h.m.Unmap(base); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDispatchAQLFault checks the errors of kernels known only by their
// descriptor: a kernel reading unmapped memory returns a *DispatchError
// named after kernel_object with the PC relative to the descriptor, and a
// packet whose kernel_object is unmapped fails before anything runs. A
// kernel loaded with LoadCodeObject keeps its name and code-object offset.
func TestDispatchAQLFault(t *testing.T) {
	c, ok := kernelref.Lookup("vector_add")
	if !ok {
		t.Fatal("no vector_add case")
	}
	image := readObject(t, &c, "gfx942")
	h := newHost(t)
	_, kds := h.loadCodeObject(hostBase+0x1000_0000, image)
	kd := kds[c.Name]
	hc := h.prepare(&c, "gfx942", image, kd)
	a, err := NewAgentOn("gfx942", h.m)
	if err != nil {
		t.Fatal(err)
	}
	in := c.Buffers()[0]
	gone := hc.addrs[in]
	if err := h.m.Unmap(gone); err != nil {
		t.Fatal(err)
	}
	err = a.DispatchAQL(hc.pkt, hc.pktAddr)
	var de *DispatchError
	if !errors.As(err, &de) {
		t.Fatalf("DispatchAQL = %v, want a *DispatchError", err)
	}
	if want := fmt.Sprintf("kernel_object %#x", kd); de.Kernel != want || !de.FromDescriptor || de.Offset != de.Fault.PC-kd {
		t.Fatalf("DispatchError{Kernel %q, FromDescriptor %v, Offset %#x} for PC %#x; want %q, true, PC-%#x", de.Kernel, de.FromDescriptor, de.Offset, de.Fault.PC, want, kd)
	}
	var f *mem.Fault
	if !errors.As(err, &f) || f.Addr < gone || f.Addr >= gone+uint64(len(hc.bufs[in])) || f.Write {
		t.Fatalf("DispatchAQL = %v, want a read fault in the unmapped buffer [%#x, %#x)", err, gone, gone+uint64(len(hc.bufs[in])))
	}
	if !strings.Contains(err.Error(), "from the kernel descriptor") {
		t.Fatalf("error %q does not say the offset is from the descriptor", err)
	}

	// kernel_object in unmapped memory.
	bad := append([]byte(nil), hc.pkt...)
	binary.LittleEndian.PutUint64(bad[aql.OffsetKernelObject:], 0x1000)
	err = a.DispatchAQL(bad, hc.pktAddr)
	if err == nil || errors.As(err, &de) || !strings.Contains(err.Error(), "kernel_object 0x1000") {
		t.Fatalf("DispatchAQL with an unmapped kernel_object = %v", err)
	}
	// Not a kernel dispatch packet.
	binary.LittleEndian.PutUint16(bad, uint16(aql.PacketTypeBarrierAnd))
	if err := a.DispatchAQL(bad, hc.pktAddr); err == nil {
		t.Fatal("DispatchAQL accepted a barrier packet")
	}

	// The same packet on an agent that loaded the object: the executable
	// names the kernel and the offset is the code object's.
	la, err := NewAgentOn("gfx942", h.m)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := la.LoadCodeObject(image)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ex.Kernel(c.Name)
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint64(bad[aql.OffsetKernelObject:], k.KD)
	binary.LittleEndian.PutUint16(bad, uint16(aql.PacketTypeKernelDispatch))
	err = la.DispatchAQL(bad, hc.pktAddr)
	if !errors.As(err, &de) || de.Kernel != c.Name || de.FromDescriptor || de.Offset != de.Fault.PC-ex.Base {
		t.Fatalf("DispatchAQL of a loaded kernel = %v (%+v)", err, de)
	}
}

// TestDispatchAQLConcurrentMapUnmap runs kernels over host memory while
// another goroutine maps and unmaps unrelated regions (and allocates and
// frees) thousands of times, as other threads of the process do. Under
// -race it checks the region table's synchronization; it also checks
// that the results stay right.
func TestDispatchAQLConcurrentMapUnmap(t *testing.T) {
	c, ok := kernelref.Lookup("matmul_naive")
	if !ok {
		t.Fatal("no matmul_naive case")
	}
	image := readObject(t, &c, "gfx942")
	h := newHost(t)
	_, kds := h.loadCodeObject(hostBase+0x1000_0000, image)
	hc := h.prepare(&c, "gfx942", image, kds[c.Name])
	ka := append([]byte(nil), hc.kernarg...)
	a, err := NewAgentOn("gfx942", h.m)
	if err != nil {
		t.Fatal(err)
	}
	var seq atomic.Uint64 // odd while a dispatch runs (roughly: set around DispatchAQL)
	var stop atomic.Bool
	var cycles, during int
	var wg sync.WaitGroup
	errc := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		m := h.m
		for i := 0; !stop.Load() || cycles < 2000; i++ {
			s0 := seq.Load()
			addr := uint64(hostBase + 0x4000_0000 + (i%61)*0x20000)
			b := make([]byte, 4096*(1+i%7))
			if err := m.Map(addr, b); err != nil {
				errc <- err
				return
			}
			if err := m.Store32(addr+uint64(len(b))-4, uint32(i)); err != nil {
				errc <- err
				return
			}
			if v := binary.LittleEndian.Uint32(b[len(b)-4:]); v != uint32(i) {
				errc <- fmt.Errorf("cycle %d: Store32 through Memory is not in the mapped bytes (%d)", i, v)
				return
			}
			if err := m.Unmap(addr); err != nil {
				errc <- err
				return
			}
			if _, err := m.Load32(addr); err == nil {
				errc <- fmt.Errorf("cycle %d: load from %#x after Unmap did not fault", i, addr)
				return
			}
			if i%5 == 0 {
				x, err := m.Alloc(uint64(100*i%8192), 256)
				if err == nil {
					err = m.Free(x)
				}
				if err != nil {
					errc <- err
					return
				}
			}
			cycles++
			if s1 := seq.Load(); s1 == s0 && s0&1 == 1 {
				during++
			}
		}
	}()
	for i := 0; i < 4; i++ {
		out := hc.bufs[2]
		clear(out)
		seq.Add(1)
		err := a.DispatchAQL(hc.pkt, hc.pktAddr)
		seq.Add(1)
		if err != nil {
			stop.Store(true)
			wg.Wait()
			t.Fatal(err)
		}
		hc.check(t, ka)
	}
	stop.Store(true)
	wg.Wait()
	select {
	case err := <-errc:
		t.Fatal(err)
	default:
	}
	t.Logf("%d map/unmap cycles, about %d of them during a dispatch", cycles, during)
}

// writerFunc is an io.Writer made of a function.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestDispatchAQLDoesNotBlockMap stops a running kernel in the middle (in
// its trace hook, on the dispatching goroutine) and waits for another
// goroutine to map, access and unmap memory: a dispatch that held a lock
// Map or Unmap needs would make it wait until the kernel ends, here
// forever.
func TestDispatchAQLDoesNotBlockMap(t *testing.T) {
	c, ok := kernelref.Lookup("vector_add")
	if !ok {
		t.Fatal("no vector_add case")
	}
	image := readObject(t, &c, "gfx942")
	h := newHost(t)
	_, kds := h.loadCodeObject(hostBase+0x1000_0000, image)
	hc := h.prepare(&c, "gfx942", image, kds[c.Name])
	ka := append([]byte(nil), hc.kernarg...)
	a, err := NewAgentOn("gfx942", h.m)
	if err != nil {
		t.Fatal(err)
	}
	req, ack := make(chan uint64, 8), make(chan error, 8)
	go func() {
		for addr := range req {
			err := h.m.Map(addr, make([]byte, 4096))
			if err == nil {
				err = h.m.Store32(addr, 1)
			}
			if err == nil {
				err = h.m.Unmap(addr)
			}
			if err == nil {
				var x uint64
				if x, err = h.m.Alloc(64, 0); err == nil {
					err = h.m.Free(x)
				}
			}
			ack <- err
		}
	}()
	defer close(req)
	stops, done := 0, 0
	a.Trace = writerFunc(func(p []byte) (int, error) {
		if stops < 4 {
			stops++
			req <- hostBase + 0x6000_0000 + uint64(stops)*0x10000
			select {
			case err := <-ack:
				if err != nil {
					t.Error(err)
				}
				done++
			case <-time.After(10 * time.Second):
			}
		}
		return len(p), nil
	})
	if err := a.DispatchAQL(hc.pkt, hc.pktAddr); err != nil {
		t.Fatal(err)
	}
	if done != 4 {
		t.Fatalf("%d of 4 Map/Unmap cycles requested from inside a running kernel completed while it ran", done)
	}
	hc.check(t, ka)
}
