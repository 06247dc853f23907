package wave

import (
	"errors"
	"fmt"
	"math"

	"github.com/rocjitsu/rocjitsu/dbt/cost"
	"github.com/rocjitsu/rocjitsu/hsa/sim/mem"
)

// Target selects the ISA whose semantics the interpreter follows where
// gfx942 and gfx950 differ (FP8/BF8 formats, gfx950-only opcodes).
type Target int

// Targets. The gfx12 targets run wave32 code unless Wave64 is ORed in.
const (
	GFX942 Target = iota
	GFX950
	GFX1200
	GFX1201
	// Wave64 marks a gfx12 target running wave64 code.
	Wave64 Target = 1 << 4
)

func (t Target) String() string { return targetString(t) }

// Register numbers of special scalar operands.
const (
	RegFlatScratchLo = 102
	RegVCCLo         = 106
	RegVCCHi         = 107
	RegTTMP0         = 108
	RegM0            = 124
	RegExecLo        = 126
	RegExecHi        = 127
)

// Aperture bases of the flat address space: flat addresses in
// [SharedBase, SharedBase+4GiB) reach the workgroup's LDS and those in
// [PrivateBase, PrivateBase+4GiB) the lane's private (scratch) memory.
const (
	SharedBase  = 0x0001_0000_0000_0000
	PrivateBase = 0x0002_0000_0000_0000
)

// Group is the state a workgroup's waves share: LDS and barrier state.
type Group struct {
	// LDS is the workgroup's local data share.
	LDS []byte
	// signaled is the last barrier phase a wave of the group signalled
	// (gfx12 s_barrier_signal_isfirst).
	signaled uint32
}

// Wave is the architectural state of one wave64.
type Wave struct {
	// S holds SGPRs s0..s101 and the special registers at their operand
	// numbers: FLAT_SCRATCH (102-103), XNACK_MASK (104-105), VCC (106-107),
	// TTMP0-15 (108-123), M0 (124) and EXEC (126-127).
	S [128]uint32
	// SCC is the scalar condition code.
	SCC bool
	// PC is the byte address of the next instruction.
	PC uint64
	// V holds the vector registers: v0..v255 at 0..255 and the
	// accumulation registers a0..a255 at 256..511; V[r][lane].
	V [512][64]uint32
	// Private is each lane's private (scratch) memory.
	Private [64][]byte
	// ID is the wave's number in its dispatch, for error messages.
	ID int
	// Done is set by s_endpgm.
	Done bool
	// AtBarrier is set by s_barrier until the group releases it.
	AtBarrier bool
	// barrierPhase counts the gfx12 workgroup-barrier signals of the wave.
	barrierPhase uint32
	// FlushF32 and FlushF64 flush denormal inputs and results of f32 and
	// f64 arithmetic to zero (the descriptor's FLOAT_DENORM_MODE_32 and
	// _16_64 fields set to flush); false preserves denormals.
	FlushF32, FlushF64 bool
	// Count is the number of instructions the wave executed.
	Count uint64
	// Classes counts the executed instructions by dbt/cost class (they
	// add up to Count).
	Classes cost.Counts
	// Passes is the executed instructions' weight in dbt/cost's
	// issue-cycle model: the passes of each MFMA on the wave's target
	// (gfx942, gfx950), one for every other instruction.
	Passes uint64
	// Lanes is the number of lane-instructions (active lanes of vector
	// instructions, one per scalar instruction).
	Lanes uint64

	// Trace, when set, is called before each instruction executes.
	Trace func(w *Wave, in *Inst)

	// Clock is the wave's shader clock in cycles. Each executed
	// instruction reads it at its issue and then advances it by Cost(in),
	// or by one when Cost is nil (Clock then equals Count after Reset).
	// gfx12 s_getreg of SHADER_CYCLES_LO/HI reads it.
	Clock uint64
	// Cost, when set, is the cycle cost of an executed instruction.
	Cost func(in *Inst) uint64
	// Marker, when set, receives every executed s_ttracedata (value: M0)
	// and s_ttracedata_imm (value: the low 8 bits of the immediate, imm
	// set) while Clock is the marker's issue time.
	Marker func(w *Wave, value uint32, imm bool)
	// HWID is the value s_getreg reads from HW_ID on gfx9 and from HW_ID1
	// on gfx12; HWID2 is gfx12's HW_ID2. The agent sets them from the
	// wave's place (wave slot, SIMD, CU, shader engine, workgroup).
	HWID, HWID2 uint32

	gprIdx bool // s_set_gpr_idx_on is in effect
	// vskip is the VSKIP mode (s_setvskip): vector instructions (VALU,
	// DS, FLAT, MUBUF) are not issued while it is set.
	vskip bool
	// wave32 is set for gfx12 wave32 code: lane masks are 32 bits.
	wave32 bool
	// scale holds the per-lane E8M0 scales loaded by v_mfma_ld_scale_b32
	// for A and B; scalePC is the address of the MFMA they apply to.
	scale   [2][64]uint8
	scalePC uint64

	prog   *Program
	mem    *mem.Memory
	group  *Group
	target Target
	// scratch vectors for operand broadcast and modifiers
	tmp [9][64]uint32
}

// Fault is the error of an instruction that could not execute: a trap, a
// memory fault, an unknown or unsupported instruction.
type Fault struct {
	// PC is the address of the faulting instruction.
	PC uint64
	// Wave is the wave's number in its dispatch.
	Wave int
	// Inst is the instruction (mnemonic, or the raw words when unknown).
	Inst string
	// Err is the cause.
	Err error
}

func (f *Fault) Error() string {
	return fmt.Sprintf("wave %d, pc %#x, %s: %v", f.Wave, f.PC, f.Inst, f.Err)
}

func (f *Fault) Unwrap() error { return f.Err }

// ErrTrap is the cause of a fault raised by s_trap.
var ErrTrap = errors.New("s_trap")

// Exec returns the 64-bit EXEC mask.
func (w *Wave) Exec() uint64 { return uint64(w.S[RegExecLo]) | uint64(w.S[RegExecHi])<<32 }

// SetExec sets the 64-bit EXEC mask.
func (w *Wave) SetExec(m uint64) { w.S[RegExecLo], w.S[RegExecHi] = uint32(m), uint32(m>>32) }

// VCC returns the 64-bit VCC mask.
func (w *Wave) VCC() uint64 { return uint64(w.S[RegVCCLo]) | uint64(w.S[RegVCCHi])<<32 }

// SetVCC sets the 64-bit VCC mask.
func (w *Wave) SetVCC(m uint64) { w.S[RegVCCLo], w.S[RegVCCHi] = uint32(m), uint32(m>>32) }

// Reset prepares w to run the program from pc with the given memory and
// group; it zeroes SGPRs and the first nv VGPRs and na AGPRs.
func (w *Wave) Reset(p *Program, m *mem.Memory, g *Group, target Target, pc uint64, nv, na int) {
	w.S = [128]uint32{}
	w.SCC = false
	w.PC = pc
	if nv > 256 {
		nv = 256
	}
	if na > 256 {
		na = 256
	}
	for r := 0; r < nv; r++ {
		w.V[r] = [64]uint32{}
	}
	for r := 0; r < na; r++ {
		w.V[256+r] = [64]uint32{}
	}
	w.prog, w.mem, w.group, w.target = p, m, g, target
	w.wave32 = target.GFX12() && target&Wave64 == 0
	w.Done, w.AtBarrier, w.gprIdx, w.vskip = false, false, false, false
	w.FlushF32, w.FlushF64 = false, false
	w.scalePC = 0
	w.barrierPhase = 0
	w.Count, w.Lanes = 0, 0
	w.Classes, w.Passes = cost.Counts{}, 0
	w.Clock = 0
}

// Run executes instructions until the wave ends, reaches a barrier, faults
// or has executed limit more instructions (limit 0: no limit).
func (w *Wave) Run(limit uint64) error {
	start := w.Count
	for !w.Done && !w.AtBarrier {
		if limit != 0 && w.Count-start >= limit {
			return &Fault{PC: w.PC, Wave: w.ID, Inst: "-", Err: fmt.Errorf("instruction limit of %d reached", limit)}
		}
		in, err := w.prog.Fetch(w.PC)
		if err != nil {
			return &Fault{PC: w.PC, Wave: w.ID, Inst: "(fetch)", Err: err}
		}
		pc := w.PC
		w.PC += uint64(in.Size)
		w.Count++
		w.Classes[in.class]++
		w.Passes += uint64(in.passes)
		if w.gprIdx {
			in = w.indexed(in)
		}
		if w.Trace != nil {
			w.Trace(w, in)
		}
		if w.vskip && in.Fmt >= FmtVOP2 && in.Fmt != FmtVOPD {
			continue
		}
		if err := in.exec(w, in); err != nil {
			w.PC = pc
			return &Fault{PC: pc, Wave: w.ID, Inst: in.String(), Err: err}
		}
		w.tick(in)
	}
	return nil
}

// tick advances Clock past an executed instruction.
func (w *Wave) tick(in *Inst) {
	if w.Cost != nil {
		w.Clock += w.Cost(in)
	} else {
		w.Clock++
	}
}

// ttrace delivers an executed trace-data instruction to Marker.
func (w *Wave) ttrace(value uint32, imm bool) {
	if w.Marker != nil {
		w.Marker(w, value, imm)
	}
}

// indexed applies VGPR indexing (s_set_gpr_idx_on) to a vector ALU
// instruction's VGPR operands.
func (w *Wave) indexed(in *Inst) *Inst {
	switch in.Fmt {
	case FmtVOP1, FmtVOP2, FmtVOPC, FmtVOP3, FmtVOP3P:
	default:
		return in
	}
	idx := uint16(w.S[RegM0] & 0xff)
	mode := w.S[RegM0] >> 12 & 0xf
	c := *in
	for i := 0; i < 3; i++ {
		if mode>>i&1 != 0 && c.Src[i] >= opVGPR && c.Src[i] < 512 {
			c.Src[i] = opVGPR + (c.Src[i]-opVGPR+idx)&255
		}
	}
	if mode&8 != 0 && c.Dst >= opVGPR && c.Dst < 512 {
		c.Dst = opVGPR + (c.Dst-opVGPR+idx)&255
	}
	return &c
}

// Step executes one instruction.
func (w *Wave) Step() error {
	in, err := w.prog.Fetch(w.PC)
	if err != nil {
		return &Fault{PC: w.PC, Wave: w.ID, Inst: "(fetch)", Err: err}
	}
	pc := w.PC
	w.PC += uint64(in.Size)
	w.Count++
	w.Classes[in.class]++
	w.Passes += uint64(in.passes)
	if w.vskip && in.Fmt >= FmtVOP2 && in.Fmt != FmtVOPD {
		return nil
	}
	if err := in.exec(w, in); err != nil {
		w.PC = pc
		return &Fault{PC: pc, Wave: w.ID, Inst: in.String(), Err: err}
	}
	w.tick(in)
	return nil
}

// Program is the decoded-instruction cache of the code in a Memory: it
// fetches instruction words from memory and decodes each PC once.
//
// Cached instructions are tied to the memory region they were decoded
// from: when the address space changes (Memory.Generation), the region
// under the current code window is looked up again and a window whose
// region was unmapped or replaced (a new mapping at the same address, even
// over the same bytes) is dropped. Writes to code that stays mapped are
// seen after Invalidate, which the agent calls at the start of every
// dispatch as the hardware invalidates its instruction cache: each cached
// instruction is then checked against the words in memory the next time
// it is fetched, and decoded again if they changed.
//
// A Program is used by one goroutine at a time; the Memory it reads may be
// changed by others (see mem.Memory).
type Program struct {
	mem    *mem.Memory
	target Target
	// gen is the memory generation at which lo, hi and dense were checked
	// against the address space.
	gen uint64
	// epoch counts Invalidate calls; an instruction whose epoch differs is
	// checked against memory before it is used.
	epoch uint64
	// lo, hi and dense are the current window: decoded instructions of
	// [lo, hi) by (pc - lo) / 4.
	lo, hi uint64
	dense  []*Inst
	// windows are the code windows seen so far, by their first address.
	windows map[uint64]*codeWindow
	// pruned is the memory generation at which windows were last checked
	// for regions that are gone.
	pruned uint64
}

// codeWindow caches the decoded instructions of [lo, hi), a span of the
// memory region with identity id.
type codeWindow struct {
	id     uint64
	lo, hi uint64
	dense  []*Inst
}

// maxWindow is the largest span one code window covers (1 MiB of code,
// 2 MiB of cache slots); bigger regions get one window per MiB.
const maxWindow = 1 << 20

// NewProgram returns a decoder for code in m.
func NewProgram(m *mem.Memory, target Target) *Program {
	return &Program{mem: m, target: target, windows: map[uint64]*codeWindow{}}
}

// Invalidate makes every cached instruction be checked against the words
// in memory before its next use, so that code rewritten in place (a new
// code object loaded where an old one was) runs as written.
func (p *Program) Invalidate() { p.epoch++ }

// Fetch returns the decoded instruction at pc.
func (p *Program) Fetch(pc uint64) (*Inst, error) {
	if pc-p.lo < p.hi-p.lo && p.gen == p.mem.Generation() {
		if in := p.dense[(pc-p.lo)>>2]; in != nil && in.PC == pc && in.epoch == p.epoch {
			return in, nil
		}
	}
	return p.fetch(pc)
}

// fetch is Fetch's slow path: it revalidates the current window after a
// change of the address space, switches windows, checks instructions from
// before the last Invalidate and decodes new ones.
func (p *Program) fetch(pc uint64) (*Inst, error) {
	if g := p.mem.Generation(); g != p.gen {
		// The region under the window may be gone or replaced: look the
		// window up again (after reading g, so a later change is seen
		// by the next Fetch).
		p.gen = g
		p.lo, p.hi, p.dense = 0, 0, nil
	}
	if pc&3 != 0 { // never cached: dense slots are per dword
		return p.decode(pc)
	}
	if !(pc-p.lo < p.hi-p.lo) {
		if err := p.window(pc); err != nil {
			return nil, err
		}
	}
	slot := &p.dense[(pc-p.lo)>>2]
	if in := *slot; in != nil && in.PC == pc {
		if in.epoch == p.epoch {
			return in, nil
		}
		if p.unchanged(in) {
			in.epoch = p.epoch
			return in, nil
		}
	}
	in, err := p.decode(pc)
	if err != nil {
		return nil, err
	}
	*slot = in
	return in, nil
}

// window makes the code window holding pc current.
func (p *Program) window(pc uint64) error {
	base, size, id, ok := p.mem.RegionID(pc)
	if !ok {
		return fmt.Errorf("instruction fetch at %#x: %w", pc, &mem.Fault{Addr: pc, Size: 4})
	}
	off := (pc - base) &^ (maxWindow - 1)
	lo := base + off
	hi := lo + min(maxWindow, size-off)
	cw := p.windows[lo]
	if cw == nil || cw.id != id || cw.hi != hi {
		if cw == nil {
			p.prune()
		}
		cw = &codeWindow{id: id, lo: lo, hi: hi, dense: make([]*Inst, (hi-lo+3)/4)}
		p.windows[lo] = cw
	}
	p.lo, p.hi, p.dense = cw.lo, cw.hi, cw.dense
	return nil
}

// prune drops the windows whose region was unmapped or replaced, once per
// memory generation.
func (p *Program) prune() {
	if p.pruned == p.gen {
		return
	}
	p.pruned = p.gen
	for lo, cw := range p.windows {
		if _, _, id, ok := p.mem.RegionID(lo); !ok || id != cw.id {
			delete(p.windows, lo)
		}
	}
}

// unchanged reports whether memory still holds in's words at in.PC.
func (p *Program) unchanged(in *Inst) bool {
	b, err := p.mem.Slice(in.PC, in.Size, false)
	if err != nil {
		return false
	}
	for i, w := range in.Words {
		if le.Uint32(b[4*i:]) != w {
			return false
		}
	}
	return true
}

// decode decodes the instruction at pc from the words of its region (at
// most four: the longest instruction).
func (p *Program) decode(pc uint64) (*Inst, error) {
	base, data, ok := p.mem.RegionBytes(pc)
	if !ok || pc-base+4 > uint64(len(data)) {
		return nil, fmt.Errorf("instruction fetch at %#x: %w", pc, &mem.Fault{Addr: pc, Size: 4})
	}
	b := data[pc-base:]
	var words [4]uint32
	n := 0
	for ; n < 4 && len(b) >= 4; n++ {
		words[n] = le.Uint32(b)
		b = b[4:]
	}
	in, err := Decode(words[:n], p.target)
	if err != nil {
		return nil, err
	}
	in.PC = pc
	in.epoch = p.epoch
	classify(in, p.target)
	return in, nil
}

func f32(u uint32) float32  { return math.Float32frombits(u) }
func u32(f float32) uint32  { return math.Float32bits(f) }
func f64(u uint64) float64  { return math.Float64frombits(u) }
func u64f(f float64) uint64 { return math.Float64bits(f) }
