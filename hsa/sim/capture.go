package sim

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rocjitsu/rocjitsu/hsa/sim/wave"
)

// CycleModel is the documented timing model of a captured dispatch: the
// cost in shader-clock cycles charged to each executed instruction by its
// class, at issue (a blocking model: memory latency is charged to the
// memory instruction itself, waits cost one cycle), plus the launch and
// barrier costs. It is coarse on purpose: marker timestamps order the
// events of a wave and weigh the work between them, they do not predict
// the hardware's times.
type CycleModel struct {
	// SALU is a scalar ALU instruction (s_mov, s_add, s_cmp, s_getreg, ...).
	SALU uint64 `json:"salu"`
	// Branch is a jump, conditional branch, call or return.
	Branch uint64 `json:"branch"`
	// SMEM is a scalar memory load or store.
	SMEM uint64 `json:"smem"`
	// VALU is a vector ALU instruction on 32-bit data.
	VALU uint64 `json:"valu"`
	// VALU64 is a vector instruction on f64 data.
	VALU64 uint64 `json:"valu64"`
	// Trans is a transcendental (v_exp, v_log, v_rcp, v_rsq, v_sqrt,
	// v_sin, v_cos).
	Trans uint64 `json:"trans"`
	// Matrix is an MFMA, SMFMAC, WMMA or SWMMAC instruction.
	Matrix uint64 `json:"matrix"`
	// LDS is a DS instruction (LDS access, permute).
	LDS uint64 `json:"lds"`
	// VMEMLoad, VMEMStore and VMEMAtomic are vector memory (global, flat,
	// scratch, buffer) loads, stores and atomics.
	VMEMLoad   uint64 `json:"vmem_load"`
	VMEMStore  uint64 `json:"vmem_store"`
	VMEMAtomic uint64 `json:"vmem_atomic"`
	// Wait is an s_waitcnt / s_wait_* counter wait.
	Wait uint64 `json:"wait"`
	// Nop is each cycle of s_nop N (N+1 of them).
	Nop uint64 `json:"nop"`
	// Marker is s_ttracedata or s_ttracedata_imm.
	Marker uint64 `json:"marker"`
	// Barrier is s_barrier / s_barrier_wait, after which every wave of the
	// group continues at the clock of the last one to arrive.
	Barrier uint64 `json:"barrier"`
	// WaveLaunch is the stagger between the launches of consecutive waves
	// of a workgroup.
	WaveLaunch uint64 `json:"wave_launch"`
	// DispatchGap separates the end of one dispatch from the start of the
	// next.
	DispatchGap uint64 `json:"dispatch_gap"`
}

// DefaultCycleModel is the model a Capture uses unless told otherwise.
var DefaultCycleModel = CycleModel{
	SALU: 1, Branch: 2, SMEM: 20, VALU: 4, VALU64: 8, Trans: 8, Matrix: 32, LDS: 32,
	VMEMLoad: 128, VMEMStore: 64, VMEMAtomic: 128, Wait: 1, Nop: 1, Marker: 4, Barrier: 8,
	WaveLaunch: 4, DispatchGap: 1000,
}

// Cost returns the cycles charged to in.
func (m *CycleModel) Cost(in *wave.Inst) uint64 {
	n := in.Name
	switch in.Fmt {
	case wave.FmtSMEM:
		return m.SMEM
	case wave.FmtDS:
		return m.LDS
	case wave.FmtFLAT, wave.FmtMUBUF:
		switch {
		case strings.Contains(n, "atomic"):
			return m.VMEMAtomic
		case strings.Contains(n, "store"):
			return m.VMEMStore
		}
		return m.VMEMLoad
	case wave.FmtSOPP, wave.FmtSOP1, wave.FmtSOP2, wave.FmtSOPK, wave.FmtSOPC:
		switch {
		case strings.HasPrefix(n, "s_ttracedata"):
			return m.Marker
		case strings.HasPrefix(n, "s_barrier"):
			return m.Barrier
		case n == "s_nop":
			return m.Nop * uint64(in.Imm&0xf+1)
		case strings.HasPrefix(n, "s_waitcnt") || strings.HasPrefix(n, "s_wait_"):
			return m.Wait
		case strings.HasPrefix(n, "s_branch") || strings.HasPrefix(n, "s_cbranch") || strings.HasPrefix(n, "s_setpc") ||
			strings.HasPrefix(n, "s_swappc") || strings.HasPrefix(n, "s_call"):
			return m.Branch
		}
		return m.SALU
	}
	switch {
	case strings.HasPrefix(n, "v_mfma") || strings.HasPrefix(n, "v_smfmac") || strings.HasPrefix(n, "v_wmma") || strings.HasPrefix(n, "v_swmmac"):
		return m.Matrix
	case strings.HasSuffix(n, "_f64") || strings.Contains(n, "_f64_"):
		return m.VALU64
	}
	for _, p := range [...]string{"v_exp_", "v_log_", "v_rcp_", "v_rsq_", "v_sqrt_", "v_sin_", "v_cos_"} {
		if strings.HasPrefix(n, p) {
			return m.Trans
		}
	}
	return m.VALU
}

// Geometry is the modeled shape of the device a capture places waves on:
// workgroups go round-robin over the compute units (CU on gfx9, WGP on
// gfx12), shader engines first, one workgroup per compute unit at a time;
// wave i of a workgroup runs on SIMD i mod SIMDsPerCU in slot
// i / SIMDsPerCU.
type Geometry struct {
	// SEs is the number of shader engines.
	SEs int `json:"shader_engines"`
	// CUsPerSE is the number of compute units (WGPs) per shader engine.
	CUsPerSE int `json:"cus_per_se"`
	// SIMDsPerCU is the number of SIMDs per compute unit.
	SIMDsPerCU int `json:"simds_per_cu"`
	// SlotsPerSIMD is the number of wave slots per SIMD.
	SlotsPerSIMD int `json:"slots_per_simd"`
}

// DefaultGeometry returns the modeled device shape of target: gfx942 and
// gfx950 4 SEs of 10 CUs of 4 SIMDs with 8 slots (one XCD); gfx1201 4 SEs
// and gfx1200 2 SEs of 8 WGPs of 4 SIMDs with 16 slots.
func DefaultGeometry(target string) Geometry {
	switch target {
	case "gfx1201":
		return Geometry{SEs: 4, CUsPerSE: 8, SIMDsPerCU: 4, SlotsPerSIMD: 16}
	case "gfx1200":
		return Geometry{SEs: 2, CUsPerSE: 8, SIMDsPerCU: 4, SlotsPerSIMD: 16}
	}
	return Geometry{SEs: 4, CUsPerSE: 10, SIMDsPerCU: 4, SlotsPerSIMD: 8}
}

// slot returns the place of wave wi of the workgroup with linear index g
// and the index of its compute unit.
func (geo Geometry) slot(g uint64, wi int) (WaveSlot, int) {
	cu := int(g % uint64(geo.SEs*geo.CUsPerSE))
	return WaveSlot{SE: uint32(cu % geo.SEs), CU: uint8(cu / geo.SEs), SIMD: uint8(wi % geo.SIMDsPerCU),
		Wave: uint8(wi / geo.SIMDsPerCU % geo.SlotsPerSIMD)}, cu
}

// WaveSlot is the place of a wave: shader engine, compute unit (WGP on
// gfx12), SIMD and wave slot.
type WaveSlot struct {
	SE   uint32
	CU   uint8
	SIMD uint8
	Wave uint8
}

// CapturedDispatch describes a dispatch to a Capturer.
type CapturedDispatch struct {
	// ID numbers the dispatches of a Capture from 1.
	ID uint64
	// Kernel is the kernel's name.
	Kernel string
	// Target is the agent's processor.
	Target string
	// CodeObject numbers the kernel's executable in load order from 1; 0
	// for a kernel dispatched by its descriptor alone.
	CodeObject uint64
	// Image is the executable's code object (nil when CodeObject is 0).
	Image []byte
	// Entry is the kernel's entry point: a virtual address in the code
	// object, or the address in memory when CodeObject is 0.
	Entry uint64
	// Grid and Block are the dispatch's sizes in work-items.
	Grid, Block [3]uint32
	// Start is the dispatch's start time in cycles.
	Start int64
	// Model and Geometry are the timing model and device shape in use.
	Model    CycleModel
	Geometry Geometry
}

// Capturer receives the events of captured dispatches, in the order the
// simulator produces them (not in time order: waves run one after another).
type Capturer interface {
	// BeginDispatch starts a dispatch; an error stops it before any wave
	// runs.
	BeginDispatch(d *CapturedDispatch) error
	// WaveStart and WaveEnd give a wave's launch and end times.
	WaveStart(s WaveSlot, t int64)
	WaveEnd(s WaveSlot, t int64)
	// Marker is an executed s_ttracedata (value M0) or s_ttracedata_imm
	// (value the 8-bit immediate, imm set) at its issue time.
	Marker(s WaveSlot, t int64, value uint32, imm bool)
	// EndDispatch ends the dispatch at time end; fault is the dispatch's
	// error (nil when it completed). It is called for faulting dispatches
	// too, so their traces are written.
	EndDispatch(end int64, fault error) error
}

// Capture records the dispatches of an agent (Agent.Capture) with the
// cycle model: every wave's Clock starts at its launch time and advances
// by Model.Cost per instruction; barriers bring a group's waves to the
// latest clock; dispatches follow each other on one device timeline.
//
// Use with package att, which writes the rocprofv3 --att tree:
//
//	w, _ := att.NewWriter(dir)
//	a.Capture = sim.NewCapture(w)
//	err := a.Dispatch(k, grid, block, kernarg) // dir/ui_output_agent_1_dispatch_1/...
type Capture struct {
	// Sink receives the events.
	Sink Capturer
	// Model is the cycle model (NewCapture sets DefaultCycleModel).
	Model CycleModel
	// Geometry is the device shape; the zero value means
	// DefaultGeometry(agent target).
	Geometry Geometry

	now, start int64
	n          uint64
	cuFree     []int64
	geo        Geometry
	costs      []uint64
	cost       func(in *wave.Inst) uint64
}

// NewCapture returns a Capture with DefaultCycleModel that sends its
// events to sink.
func NewCapture(sink Capturer) *Capture {
	return &Capture{Sink: sink, Model: DefaultCycleModel}
}

// costOf is Model.Cost memoized by encoding and opcode (one agent runs
// one ISA, where they name one mnemonic up to the segment of FLAT and
// MUBUF forms, which does not change the class); s_nop depends on its
// immediate.
func (c *Capture) costOf(in *wave.Inst) uint64 {
	i := int(in.Fmt)<<costOpBits | in.Op
	if in.Op < 0 || in.Op >= 1<<costOpBits || int(in.Fmt) >= costFormats || in.Name == "s_nop" {
		return c.Model.Cost(in)
	}
	if v := c.costs[i]; v != 0 {
		return v - 1
	}
	v := c.Model.Cost(in)
	c.costs[i] = v + 1
	return v
}

// The memo of costOf: (format, opcode) slots holding cost+1, 0 unknown.
const (
	costOpBits  = 10
	costFormats = 32
)

// begin starts capturing dispatch l.
func (c *Capture) begin(a *Agent, l *launch) error {
	c.geo = c.Geometry
	if c.geo.SEs <= 0 || c.geo.CUsPerSE <= 0 || c.geo.SIMDsPerCU <= 0 || c.geo.SlotsPerSIMD <= 0 {
		c.geo = DefaultGeometry(a.Target)
	}
	if c.costs == nil {
		c.cost = c.costOf
	}
	// A new memo per dispatch: Model may have changed.
	c.costs = make([]uint64, costFormats<<costOpBits)
	c.n++
	if c.n > 1 {
		c.now += int64(c.Model.DispatchGap)
	}
	c.start = c.now
	c.cuFree = make([]int64, c.geo.SEs*c.geo.CUsPerSE)
	for i := range c.cuFree {
		c.cuFree[i] = c.start
	}
	d := &CapturedDispatch{ID: c.n, Kernel: l.k.Name, Target: a.Target, Grid: l.grid, Block: l.block, Start: c.start, Model: c.Model, Geometry: c.geo}
	d.Entry = uint64(int64(l.k.KD) + l.k.Desc.EntryOffset)
	for i, ex := range a.execs {
		if ex == l.k.Exec {
			d.CodeObject, d.Image, d.Entry = uint64(i+1), ex.Image, d.Entry-ex.Base
		}
	}
	if err := c.Sink.BeginDispatch(d); err != nil {
		return fmt.Errorf("sim: kernel %s: capture: %w", l.k.Name, err)
	}
	return nil
}

// end finishes the dispatch; err is the dispatch's result, returned joined
// with any error of the sink.
func (c *Capture) end(err error) error {
	end := c.start
	for _, t := range c.cuFree {
		end = max(end, t)
	}
	c.now = end
	if serr := c.Sink.EndDispatch(end, err); serr != nil {
		serr = fmt.Errorf("sim: capture: %w", serr)
		if err == nil {
			return serr
		}
		return errors.Join(err, serr)
	}
	return err
}

// place puts wave wi of the workgroup with linear index g on its slot: it
// sets HW_ID (gfx9) or HW_ID1/HW_ID2 (gfx12) and, when capturing, the
// wave's launch clock, cost and marker hooks.
func (a *Agent) place(w *wave.Wave, g uint64, wi int) {
	geo := DefaultGeometry(a.Target)
	c := a.Capture
	if c != nil {
		geo = c.geo
	}
	s, cu := geo.slot(g, wi)
	if a.isa.GFX12() {
		// HW_ID1: WAVE_ID [4:0], SIMD_ID [9:8], WGP_ID [13:10], SA_ID [16],
		// SE_ID [20:18]; HW_ID2: WG_ID [20:16] (the group's slot, 0).
		wgp := uint32(s.CU)
		w.HWID = uint32(s.Wave)&0x1f | uint32(s.SIMD)&3<<8 | wgp&0xf<<10 | wgp>>4&1<<16 | s.SE&7<<18
		w.HWID2 = 0
	} else {
		// HW_ID: WAVE_ID [3:0], SIMD_ID [5:4], CU_ID [11:8], SH_ID [12],
		// SE_ID [15:13], TG_ID [19:16] (the group's slot, 0).
		w.HWID = uint32(s.Wave)&0xf | uint32(s.SIMD)&3<<4 | uint32(s.CU)&0xf<<8 | uint32(s.CU)>>4&1<<12 | s.SE&7<<13
		w.HWID2 = 0
	}
	w.Cost, w.Marker = nil, nil
	if c == nil {
		return
	}
	t := c.cuFree[cu] + int64(wi)*int64(c.Model.WaveLaunch)
	w.Clock = uint64(t)
	w.Cost = c.cost
	sink := c.Sink
	w.Marker = func(w *wave.Wave, v uint32, imm bool) { sink.Marker(s, int64(w.Clock), v, imm) }
	sink.WaveStart(s, t)
}

// barrierSync brings the waves of a group released from a barrier to the
// clock of the last one to arrive, when capturing.
func (a *Agent) barrierSync(ws []*wave.Wave) {
	if a.Capture == nil {
		return
	}
	var t uint64
	for _, w := range ws {
		if !w.Done {
			t = max(t, w.Clock)
		}
	}
	for _, w := range ws {
		if !w.Done {
			w.Clock = t
		}
	}
}

// groupDone ends the waves of the workgroup with linear index g (also
// after a fault: a wave ends at its clock) and frees its compute unit at
// the last wave's end.
func (a *Agent) groupDone(ws []*wave.Wave, g uint64) {
	c := a.Capture
	if c == nil {
		return
	}
	for wi, w := range ws {
		s, cu := c.geo.slot(g, wi)
		c.Sink.WaveEnd(s, int64(w.Clock))
		c.cuFree[cu] = max(c.cuFree[cu], int64(w.Clock))
	}
}
