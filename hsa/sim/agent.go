// Package sim is rocjitsu's GPU-less HSA agent: a simulated gfx942 or
// gfx950 device with a sparse device address space, code-object loading,
// AQL kernel-dispatch processing and a functional wave64 interpreter
// (package wave) that runs the kernels. It is the default backend when no
// GPU is present and the oracle that checks translated code.
//
// Use:
//
//	a, _ := sim.NewAgent("gfx942")
//	ex, _ := a.LoadCodeObject(image)          // ELF bytes
//	k, _ := ex.Kernel("vector_add")
//	buf, _ := a.Alloc(4096)
//	_ = a.CopyIn(buf, data)
//	ka := make([]byte, k.KernargSegmentSize)  // explicit arguments at their metadata offsets
//	err := a.Dispatch(k, [3]uint32{1024, 1, 1}, [3]uint32{256, 1, 1}, ka)
//	_ = a.CopyOut(buf, data)
//
// Dispatch fills the hidden arguments (block counts, group sizes,
// remainders, grid dims) itself. A failing dispatch returns a
// *DispatchError naming the kernel, wave, PC and instruction. Queues
// (NewQueue, Queue.Submit) accept 64-byte AQL packets and process kernel
// dispatch and barrier packets, decrementing completion signals.
//
// For a runtime that owns the memory (a simulated kernel driver running
// ROCR in the application's process, where device addresses are host
// addresses), NewAgentOn runs over a caller's mem.Memory into which host
// buffers are mapped (mem.Map), and DispatchAQL runs an AQL packet whose
// kernel descriptor, code and kernarg segment are simply in that memory.
//
// The simulator is deterministic: workgroups run one after another in
// grid order, the waves of a group run round-robin between barriers, and
// lanes perform memory operations in lane order.
package sim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/rocjitsu/rocjitsu/dbt/cost"
	"github.com/rocjitsu/rocjitsu/hsa/sim/mem"
	"github.com/rocjitsu/rocjitsu/hsa/sim/wave"
)

// Agent is a simulated GPU. Its methods are safe for concurrent use; they
// are serialized, so dispatches run one at a time. Mem may be used
// directly as package mem allows: regions may be mapped and unmapped (Map,
// Unmap, Alloc, Free) from any goroutine while a dispatch runs, and a
// running dispatch holds no lock of Mem. Reads of Stats and changes to
// MaxInstructions and Trace must not overlap a running method.
type Agent struct {
	mu sync.Mutex

	// Target is the processor the agent is ("gfx942", "gfx950", "gfx1200"
	// or "gfx1201"; see gfx12.go for the gfx12 mode).
	Target string
	// Mem is the device address space.
	Mem *mem.Memory
	// MaxInstructions bounds the instructions one wave may execute (0: no
	// bound); a wave that exceeds it fails the dispatch.
	MaxInstructions uint64
	// Stats accumulates executed instructions over all dispatches.
	Stats Stats
	// Trace, when set, receives one line per executed instruction: the
	// wave, the code-object offset of the PC, EXEC and the instruction.
	Trace io.Writer
	// Budget bounds the instructions of one dispatch over all its waves (0:
	// no bound); a dispatch that reaches it stops with a *TimeoutError.
	Budget uint64
	// WriteLog, when set, is called for every write to device memory (not
	// LDS or private memory) a dispatch makes: the code-object offset of
	// the writing instruction (as DispatchError.Offset), the address and
	// the size. It is installed as the memory's write hook for the
	// dispatch.
	WriteLog func(pc, addr uint64, size int)
	// Executed, when set, is called for every instruction a dispatch's
	// waves execute (as Stats counts them), before it runs: the wave's ID,
	// the code-object offset of its PC (as DispatchError.Offset) and the
	// instruction. It is for attribution tools (per-PC execution counts);
	// unset, the interpreter's loop is unchanged.
	Executed func(wave int, pc uint64, in *wave.Inst)
	// Capture, when set, records every dispatch's waves and trace-data
	// markers with its cycle model (see capture.go).
	Capture *Capture

	isa   wave.Target
	progs map[wave.Target]*wave.Program
	execs []*Executable
	waves []*wave.Wave
}

// Stats counts executed work.
type Stats struct {
	// Instructions is the number of wave instructions executed.
	Instructions uint64
	// Classes counts the executed wave instructions by dbt/cost class
	// (MFMA/WMMA, VALU, memory, SALU, other); they add up to Instructions.
	Classes cost.Counts
	// Passes is the executed instructions' weight in dbt/cost's
	// issue-cycle model (a model, not a cycle count): each MFMA counts its
	// passes on the agent's target (gfx942, gfx950; cost.MFMAPasses),
	// every other instruction one.
	Passes uint64
	// LaneInstructions counts vector instructions once per active lane
	// and scalar instructions once.
	LaneInstructions uint64
	// Waves is the number of waves run.
	Waves uint64
}

// dynamicStackSize is the private segment per work-item given to kernels
// whose descriptor says they use a dynamic stack (recursion, dynamic
// allocas) when the dispatch does not ask for more.
const dynamicStackSize = 16 << 10

// DefaultMaxInstructions is the per-wave instruction bound of a new agent:
// a wave that runs longer is reported as a fault (an endless loop).
const DefaultMaxInstructions = 1 << 28

// LDSSize returns the largest group segment a workgroup can have on the
// agent's target: 64 KiB on gfx942, 160 KiB on gfx950.
func (a *Agent) LDSSize() uint32 {
	if a.isa == wave.GFX950 {
		return 160 << 10
	}
	return 64 << 10
}

// NewAgent returns an agent for target ("gfx942", "gfx950", "gfx1200" or
// "gfx1201") with an address space of its own.
func NewAgent(target string) (*Agent, error) {
	return NewAgentOn(target, mem.New())
}

// NewAgentOn returns an agent for target ("gfx942" or "gfx950") whose
// device address space is m, which the caller may share with other code:
// for example one that maps the host process's own memory (mem.Map) so
// that device addresses are host addresses.
func NewAgentOn(target string, m *mem.Memory) (*Agent, error) {
	if m == nil {
		return nil, fmt.Errorf("sim: agent for %s: nil memory", target)
	}
	var t wave.Target
	switch target {
	case "gfx942":
		t = wave.GFX942
	case "gfx950":
		t = wave.GFX950
	default:
		var ok bool
		if t, ok = gfx12Target(target); !ok {
			return nil, fmt.Errorf("sim: unsupported target %q (want gfx942, gfx950, gfx1200 or gfx1201)", target)
		}
	}
	return &Agent{Target: target, Mem: m, isa: t, MaxInstructions: DefaultMaxInstructions,
		progs: map[wave.Target]*wave.Program{t: wave.NewProgram(m, t)}}, nil
}

// Alloc allocates size bytes of zeroed device memory.
func (a *Agent) Alloc(size uint64) (uint64, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.Mem.Alloc(size, 256)
}

// Free releases an allocation.
func (a *Agent) Free(addr uint64) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.Mem.Free(addr)
}

// CopyIn copies host bytes to device memory.
func (a *Agent) CopyIn(addr uint64, b []byte) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.Mem.Write(addr, b)
}

// CopyOut copies device memory to the host.
func (a *Agent) CopyOut(addr uint64, b []byte) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.Mem.Read(addr, b)
}

// LoadCodeObject loads an AMDGPU ELF code object. Objects for either gfx9
// target are accepted; they run with the agent's semantics.
func (a *Agent) LoadCodeObject(image []byte) (*Executable, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ex, err := a.load(image)
	if err != nil {
		return nil, err
	}
	ex.Image = image
	a.execs = append(a.execs, ex)
	return ex, nil
}

// kernelFor returns the kernel whose descriptor is at kd: the kernel of an
// executable loaded with LoadCodeObject, or else one made from the 64-byte
// descriptor in memory, named "kernel_object 0x..." and without
// executable or metadata.
func (a *Agent) kernelFor(kd uint64) (*Kernel, error) {
	for _, ex := range a.execs {
		for _, k := range ex.Kernels {
			if k.KD == kd {
				return k, nil
			}
		}
	}
	name := fmt.Sprintf("kernel_object %#x", kd)
	b, err := a.Mem.Slice(kd, 64, false)
	if err != nil {
		return nil, fmt.Errorf("sim: kernel %s: kernel descriptor: %w", name, err)
	}
	d, err := decodeDescriptor(b)
	if err != nil {
		return nil, fmt.Errorf("sim: kernel %s: %w", name, err)
	}
	return &Kernel{Name: name, KD: kd, Desc: d, KernargSegmentSize: int(d.KernargSize)}, nil
}

// codeBase is the address PCs are reported relative to: the executable's
// load base, or the descriptor's address for a kernel without executable.
// waveTrace returns the per-instruction callback of a dispatch's waves
// (nil when none is asked for), base being the code object's address:
// it records the executing instruction's offset in *cur (WriteLog),
// calls Executed, and prints the instruction to Trace, in that order.
func (a *Agent) waveTrace(base uint64, cur *uint64) func(*wave.Wave, *wave.Inst) {
	tw, f, logged := a.Trace, a.Executed, a.WriteLog != nil
	if tw == nil && f == nil && !logged {
		return nil
	}
	return func(w *wave.Wave, in *wave.Inst) {
		off := in.PC - base
		if logged {
			*cur = off
		}
		if f != nil {
			f(w.ID, off, in)
		}
		if tw != nil {
			fmt.Fprintf(tw, "wave %d %#06x exec %016x %s\n", w.ID, off, w.Exec(), in)
		}
	}
}

func (k *Kernel) codeBase() uint64 {
	if k.Exec != nil {
		return k.Exec.Base
	}
	return k.KD
}

// TimeoutError is the error of a dispatch that reached the agent's Budget.
type TimeoutError struct {
	// Kernel is the kernel's name.
	Kernel string
	// Executed is the number of instructions the dispatch ran.
	Executed uint64
	// Offset is the next instruction of the wave that reached the budget,
	// relative to the code object's load base.
	Offset uint64
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("kernel %s: instruction budget of %d reached (code object offset %#x)", e.Kernel, e.Executed, e.Offset)
}

// DispatchError is the error of a failed kernel dispatch.
type DispatchError struct {
	// Kernel is the kernel's name ("kernel_object 0x..." for a kernel
	// dispatched by its descriptor's address alone, see DispatchAQL).
	Kernel string
	// Offset is the faulting PC relative to the code object's load base
	// or, when FromDescriptor is set (the kernel descriptor is not in an
	// executable loaded with LoadCodeObject), relative to the kernel
	// descriptor's address (two's complement if the PC is below it).
	Offset uint64
	// FromDescriptor reports that Offset is relative to the kernel
	// descriptor.
	FromDescriptor bool
	// Fault is the interpreter's fault (wave, PC, instruction, cause).
	Fault *wave.Fault
}

func (e *DispatchError) Error() string {
	if e.FromDescriptor {
		return fmt.Sprintf("kernel %s: %v (offset %#x from the kernel descriptor)", e.Kernel, e.Fault, int64(e.Offset))
	}
	return fmt.Sprintf("kernel %s: %v (code object offset %#x)", e.Kernel, e.Fault, e.Offset)
}

func (e *DispatchError) Unwrap() error { return e.Fault }

// Dispatch runs kernel k over grid work-items (AQL grid size) in
// workgroups of block work-items, with kernarg as the kernarg segment's
// explicit part (hidden arguments are filled in). It blocks until the
// kernel completes or faults.
func (a *Agent) Dispatch(k *Kernel, grid, block [3]uint32, kernarg []byte) error {
	return a.DispatchExt(k, grid, block, kernarg, 0, 0)
}

// DispatchExt is Dispatch with extra dynamic group-segment (LDS) bytes and
// a private segment size per work-item (0: the descriptor's).
func (a *Agent) DispatchExt(k *Kernel, grid, block [3]uint32, kernarg []byte, dynGroup, private uint32) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := checkSizes(k, grid, block); err != nil {
		return err
	}
	ka := k.KernargSegment(kernarg, grid, block)
	for _, arg := range k.Args {
		if arg.ValueKind == "hidden_dynamic_lds_size" && arg.Offset+4 <= len(ka) {
			binary.LittleEndian.PutUint32(ka[arg.Offset:], dynGroup)
		}
	}
	dims := uint16(1)
	if grid[2] > 1 {
		dims = 3
	} else if grid[1] > 1 {
		dims = 2
	}
	le := binary.LittleEndian
	kaAddr, err := a.Mem.Alloc(uint64(len(ka)), 256)
	if err != nil {
		return err
	}
	defer a.Mem.Free(kaAddr)
	if err := a.Mem.Write(kaAddr, ka); err != nil {
		return err
	}
	// A dispatch packet in device memory for kernels that read it.
	pkt := make([]byte, 64)
	le.PutUint16(pkt[0:], 2)
	le.PutUint16(pkt[2:], dims)
	le.PutUint16(pkt[4:], uint16(block[0]))
	le.PutUint16(pkt[6:], uint16(block[1]))
	le.PutUint16(pkt[8:], uint16(block[2]))
	le.PutUint32(pkt[12:], grid[0])
	le.PutUint32(pkt[16:], grid[1])
	le.PutUint32(pkt[20:], grid[2])
	if private == 0 {
		private = k.Desc.PrivateSegmentFixedSize
		if k.Desc.CodeProperties&(1<<11) != 0 && private < dynamicStackSize {
			private = dynamicStackSize // USES_DYNAMIC_STACK: room beyond the fixed frame
		}
	}
	group := k.Desc.GroupSegmentFixedSize + dynGroup
	le.PutUint32(pkt[24:], private)
	le.PutUint32(pkt[28:], group)
	le.PutUint64(pkt[32:], k.KD)
	le.PutUint64(pkt[40:], kaAddr)
	pktAddr, err := a.Mem.Alloc(64, 64)
	if err != nil {
		return err
	}
	defer a.Mem.Free(pktAddr)
	if err := a.Mem.Write(pktAddr, pkt); err != nil {
		return err
	}
	return a.run(&launch{k: k, grid: grid, block: block, kernarg: kaAddr, packet: pktAddr, group: group, private: private})
}

// checkSizes rejects zero grid or workgroup sizes and workgroups of more
// than 1024 work-items.
func checkSizes(k *Kernel, grid, block [3]uint32) error {
	for i := 0; i < 3; i++ {
		if grid[i] == 0 || block[i] == 0 {
			return fmt.Errorf("sim: kernel %s: zero grid or workgroup size in dimension %d", k.Name, i)
		}
	}
	if n := uint64(block[0]) * uint64(block[1]) * uint64(block[2]); n > 1024 {
		return fmt.Errorf("sim: kernel %s: workgroup of %d work-items exceeds 1024", k.Name, n)
	}
	return nil
}

// launch is one kernel dispatch as the command processor starts it: the
// sizes, the segments and the addresses the user SGPRs receive.
type launch struct {
	k           *Kernel
	grid, block [3]uint32
	kernarg     uint64 // kernarg segment (kernarg-segment-ptr SGPRs)
	packet      uint64 // the dispatch packet (dispatch-ptr SGPRs)
	queue       uint64 // the queue (queue-ptr SGPRs); 0: none
	id          uint64 // the dispatch id (dispatch-id SGPRs)
	// group and private are the group segment per workgroup and the
	// private segment per work-item in bytes.
	group, private uint32
}

// run executes a dispatch whose kernarg segment and packet are in memory.
func (a *Agent) run(l *launch) (err error) {
	k, grid, block, group := l.k, l.grid, l.block, l.group
	if group > a.LDSSize() {
		return fmt.Errorf("sim: kernel %s: group segment of %d bytes exceeds the %d bytes of LDS of %s", k.Name, group, a.LDSSize(), a.Target)
	}
	if c := a.Capture; c != nil {
		if err := c.begin(a, l); err != nil {
			return err
		}
		defer func() { err = c.end(err) }()
	}
	d := k.Desc
	isa, lanes := a.waveISA(k)
	prog := a.program(isa)
	prog.Invalidate() // code may have been rewritten since the last dispatch
	entry := uint64(int64(k.KD) + d.EntryOffset)
	preloadLen := int(d.KernargPreload & 0x7f)
	preloadOff := int(d.KernargPreload>>7) * 4
	if preloadLen > 0 {
		entry += 256
	}
	nv := d.AccumOffset()
	na := d.VGPRs() - nv
	if na < 0 || d.RSRC3 == 0 {
		nv, na = d.VGPRs(), 0
	}
	if nv > 256 {
		nv = 256
	}
	if isa.GFX12() {
		nv, na = gfx12VGPRs(d, lanes), 0
	}
	var ka []byte
	if preloadLen > 0 {
		b, err := a.Mem.Slice(l.kernarg, preloadOff+4*preloadLen, false)
		if err != nil {
			return fmt.Errorf("sim: kernel %s: preloaded kernel arguments: %w", k.Name, err)
		}
		// A copy: the segment may be unmapped by another goroutine while
		// the waves are set up.
		ka = append([]byte(nil), b...)
	}
	groups := [3]uint32{}
	for i := range groups {
		groups[i] = (grid[i] + block[i] - 1) / block[i]
	}
	lds := make([]byte, group)
	waveID := 0
	var cur uint64 // PC offset of the executing instruction (WriteLog)
	if a.WriteLog != nil {
		log := a.WriteLog
		a.Mem.SetWriteHook(func(addr uint64, size int) { log(cur, addr, size) })
		defer a.Mem.SetWriteHook(nil)
	}
	trace := a.waveTrace(k.codeBase(), &cur)
	var used uint64   // instructions of this dispatch (Budget)
	gidx := uint64(0) // the group's linear index
	for gz := uint32(0); gz < groups[2]; gz++ {
		for gy := uint32(0); gy < groups[1]; gy++ {
			for gx := uint32(0); gx < groups[0]; gx++ {
				gid := [3]uint32{gx, gy, gz}
				var bs [3]uint32 // this group's size (partial at the grid's edge)
				for i := 0; i < 3; i++ {
					bs[i] = block[i]
					if rem := grid[i] - gid[i]*block[i]; rem < bs[i] {
						bs[i] = rem
					}
				}
				threads := int(bs[0] * bs[1] * bs[2])
				nw := (threads + lanes - 1) / lanes
				for len(a.waves) < nw {
					a.waves = append(a.waves, &wave.Wave{})
				}
				for i := range lds {
					lds[i] = 0
				}
				g := &wave.Group{LDS: lds}
				ws := a.waves[:nw]
				for wi, w := range ws {
					w.Reset(prog, a.Mem, g, isa, entry, nv, na)
					w.Trace = trace
					w.ID = waveID
					waveID++
					a.initWave(w, l, wi, threads, bs, gid, ka, preloadOff, preloadLen)
					a.place(w, gidx, wi)
				}
				err := a.runGroup(k, ws, &used)
				a.groupDone(ws, gidx)
				if err != nil {
					return err
				}
				gidx++
			}
		}
	}
	return nil
}

// initLanes sets what every ISA's launch gives the lanes of wave wi (of
// lanes lanes) in a group of threads work-items shaped bs: the denormal
// modes, EXEC, the packed work-item ids in v0 and zeroed private memory.
func initLanes(w *wave.Wave, d Descriptor, wi, lanes, threads int, bs [3]uint32, private uint32) {
	// FLOAT_DENORM_MODE: 0 flushes inputs and outputs; 3 preserves. Modes
	// 1 and 2 (flush one side) are treated as flushing both.
	w.FlushF32 = d.RSRC1>>16&3 != 3
	w.FlushF64 = d.RSRC1>>18&3 != 3
	var exec uint64
	for ln := 0; ln < lanes; ln++ {
		t := wi*lanes + ln
		if t >= threads {
			break
		}
		exec |= 1 << ln
		x := uint32(t) % bs[0]
		y := uint32(t) / bs[0] % bs[1]
		z := uint32(t) / (bs[0] * bs[1])
		w.V[0][ln] = x | y<<10 | z<<20
	}
	w.SetExec(exec)
	for ln := 0; ln < 64; ln++ {
		if cap(w.Private[ln]) >= int(private) {
			w.Private[ln] = w.Private[ln][:private]
			clear(w.Private[ln])
		} else {
			w.Private[ln] = make([]byte, private)
		}
	}
}

// putUserSGPRs passes the user SGPRs the descriptor's code properties
// enable, in their architectural order: the private segment buffer
// descriptor (its word 3, srdWord3, is per ISA), dispatch ptr, queue ptr,
// kernarg ptr, dispatch id, flat scratch init and private segment size.
func putUserSGPRs(put func(uint32), cp uint16, l *launch, private uint32, lanes int, srdWord3 uint32) {
	if cp&1 != 0 {
		put(0)
		put(0)
		put(private * uint32(lanes))
		put(srdWord3)
	}
	if cp&2 != 0 {
		put(uint32(l.packet))
		put(uint32(l.packet >> 32))
	}
	if cp&4 != 0 {
		put(uint32(l.queue))
		put(uint32(l.queue >> 32))
	}
	if cp&8 != 0 {
		put(uint32(l.kernarg))
		put(uint32(l.kernarg >> 32))
	}
	if cp&16 != 0 {
		put(uint32(l.id))
		put(uint32(l.id >> 32))
	}
	if cp&32 != 0 { // flat scratch init
		put(0)
		put(private)
	}
	if cp&64 != 0 {
		put(private)
	}
}

// initWave sets the initial register state the descriptor requests.
func (a *Agent) initWave(w *wave.Wave, l *launch, wi, threads int, bs, gid [3]uint32, ka []byte, preloadOff, preloadLen int) {
	if a.isa.GFX12() {
		a.initWave12(w, l, wi, threads, bs, gid)
		return
	}
	d, private := l.k.Desc, l.private
	initLanes(w, d, wi, 64, threads, bs, private)
	s := 0
	put := func(v uint32) {
		if s < 102 {
			w.S[s] = v
		}
		s++
	}
	putUserSGPRs(put, d.CodeProperties, l, private, 64, 0x00027fac)
	for i := 0; i < preloadLen; i++ {
		put(binary.LittleEndian.Uint32(ka[preloadOff+4*i:]))
	}
	s = int(d.RSRC2 >> 1 & 0x1f)
	for i := 0; i < 3; i++ {
		if d.RSRC2>>(7+i)&1 != 0 {
			put(gid[i])
		}
	}
	if d.RSRC2>>10&1 != 0 {
		put(0)
	}
	if d.RSRC2&1 != 0 { // private segment wave offset
		put(0)
	}
}

// KernargSegment returns the full kernarg segment for a dispatch: the
// explicit arguments followed by the hidden arguments the metadata lists
// (block counts, group sizes, remainders, grid dimensions; others zero),
// padded to a multiple of 256 bytes.
func (k *Kernel) KernargSegment(explicit []byte, grid, block [3]uint32) []byte {
	size := k.KernargSegmentSize
	if len(explicit) > size {
		size = len(explicit)
	}
	size = (size + 255) &^ 255
	if size == 0 {
		size = 256
	}
	ka := make([]byte, size)
	copy(ka, explicit)
	dims := uint16(1)
	if grid[2] > 1 {
		dims = 3
	} else if grid[1] > 1 {
		dims = 2
	}
	le := binary.LittleEndian
	for _, arg := range k.Args {
		if !arg.Hidden() || arg.Offset+arg.Size > len(ka) {
			continue
		}
		b := ka[arg.Offset:]
		for i, c := range []string{"x", "y", "z"} {
			switch arg.ValueKind {
			case "hidden_block_count_" + c:
				le.PutUint32(b, grid[i]/block[i])
			case "hidden_group_size_" + c:
				le.PutUint16(b, uint16(block[i]))
			case "hidden_remainder_" + c:
				le.PutUint16(b, uint16(grid[i]%block[i]))
			}
		}
		switch arg.ValueKind {
		case "hidden_grid_dims":
			le.PutUint16(b, dims)
		case "hidden_shared_base":
			le.PutUint32(b, uint32(wave.SharedBase>>32))
		case "hidden_private_base":
			le.PutUint32(b, uint32(wave.PrivateBase>>32))
		}
	}
	return ka
}

// runGroup runs a workgroup's waves round-robin between barriers.
func (a *Agent) runGroup(k *Kernel, ws []*wave.Wave, used *uint64) error {
	for {
		live := 0
		for _, w := range ws {
			if w.Done {
				continue
			}
			if !w.AtBarrier {
				before, classes, passes := w.Count, w.Classes, w.Passes
				limit, budget := a.MaxInstructions, false
				if a.Budget > 0 {
					if *used >= a.Budget {
						return &TimeoutError{Kernel: k.Name, Executed: *used, Offset: w.PC - k.codeBase()}
					}
					if rem := a.Budget - *used; limit == 0 || rem < limit {
						limit, budget = rem, true
					}
				}
				err := w.Run(limit)
				a.Stats.Instructions += w.Count - before
				for c := range classes {
					a.Stats.Classes[c] += w.Classes[c] - classes[c]
				}
				a.Stats.Passes += w.Passes - passes
				*used += w.Count - before
				if err != nil && budget && w.Count-before >= limit {
					return &TimeoutError{Kernel: k.Name, Executed: *used, Offset: w.PC - k.codeBase()}
				}
				if err != nil {
					var f *wave.Fault
					if errors.As(err, &f) {
						return &DispatchError{Kernel: k.Name, Offset: f.PC - k.codeBase(), FromDescriptor: k.Exec == nil, Fault: f}
					}
					return fmt.Errorf("sim: kernel %s: %w", k.Name, err)
				}
			}
			if !w.Done {
				live++
			}
		}
		if live == 0 {
			break
		}
		// Every live wave is at the barrier: release them.
		a.barrierSync(ws)
		for _, w := range ws {
			w.AtBarrier = false
		}
	}
	for _, w := range ws {
		a.Stats.LaneInstructions += w.Lanes
		a.Stats.Waves++
	}
	return nil
}
