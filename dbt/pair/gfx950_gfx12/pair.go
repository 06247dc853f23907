package gfx950gfx12

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12"
	"github.com/rocjitsu/rocjitsu/dbt/legalize"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/dbt/place"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
	"github.com/rocjitsu/rocjitsu/loader/kd"
	"github.com/rocjitsu/rocjitsu/loader/target"
)

// Pair is the gfx950 -> gfx1200 or gfx1201 pair.
type Pair struct{ host isa.Target }

// New returns the pair for host isa.GFX1200 or isa.GFX1201.
func New(host isa.Target) Pair { return Pair{host: host} }

var _ pair.Pair = Pair{}

// Guests implements pair.Pair.
func (Pair) Guests() isa.Target { return isa.GFX950 }

// Host implements pair.Pair.
func (p Pair) Host() isa.Target { return p.host }

// HostProcessor implements pair.Pair.
func (p Pair) HostProcessor() target.Processor {
	m := target.MachGFX1201
	if p.host == isa.GFX1200 {
		m = target.MachGFX1200
	}
	pr, _ := target.ByMach(m)
	return pr
}

// HostDecode implements pair.Pair (wave64 code).
func (p Pair) HostDecode(code []byte, pc uint64) (isa.Inst, error) {
	return gfx12.Decode(code, pc, p.host|isa.Wave64)
}

// HostPrint implements pair.Pair (wave64 syntax).
func (Pair) HostPrint(in *isa.Inst) string { return gfx12.Print(in) }

// Words implements pair.Pair.
func (Pair) Words() *place.Words { return place.GFX12 }

// UnifiedVGPRs implements pair.Pair: AGPRs become VGPRs above the arch
// ones.
func (Pair) UnifiedVGPRs() bool { return true }

// Decide implements pair.Pair: a hand rule when one exists, else the
// generated re-encoding; either is checked by encoding it here, so a
// failure rejects with its reason.
func (p Pair) Decide(in *isa.Inst, raw []byte, guest isa.Target, site pair.Site) legalize.Decision {
	if out, ok, err := word3Def(in, site); ok {
		if err != nil {
			return legalize.Decision{Action: report.Reject, Fidelity: report.Rejected, Reason: "V# word3 definition: " + err.Error()}
		}
		return legalize.Decision{Action: report.Expand, Fidelity: report.Approximate, Bound: bufferBound, Rule: &rules.Rule{
			Name: "gfx12-vsharp-word3", Ops: []string{in.Name()}, Fidelity: report.Approximate, Bound: bufferBound,
			Emit: func(rules.Context, *isa.Inst, []byte) ([]byte, error) { return out, nil },
		}}
	}
	if in.Format == isa.DPP && rowBcast(in.Mod.DPPCtrl) {
		fid, bound := report.Exact, hostOps()[in.Name()].bound
		if bound != "" {
			fid = report.Approximate
		}
		return legalize.Decision{Action: report.Expand, Fidelity: fid, Bound: bound, Rule: &rules.Rule{
			Name: "gfx12-dpp-row-bcast", Ops: []string{in.Name()}, Fidelity: fid, Bound: bound,
			Emit: func(ctx rules.Context, in *isa.Inst, _ []byte) ([]byte, error) { return dppRowBcast(ctx, in, site) },
		}}
	}
	if in.Format == isa.MUBUF && in.Mod.LDS {
		return legalize.Decision{Action: report.Expand, Fidelity: report.Approximate, Bound: ldsBound, Rule: &rules.Rule{
			Name: "gfx12-buffer-load-lds", Ops: []string{in.Name()}, Fidelity: report.Approximate, Bound: ldsBound,
			Emit: func(ctx rules.Context, in *isa.Inst, _ []byte) ([]byte, error) { return bufferLoadLDS(ctx, in, site) },
		}}
	}
	if in.Format == isa.MUBUF {
		out, err := lowerBuffer(in, site)
		if err != nil {
			return legalize.Decision{Action: report.Reject, Fidelity: report.Rejected, Reason: in.Name() + ": " + err.Error()}
		}
		bound := bufferOpBound(in.Name())
		return legalize.Decision{Action: report.Lower, Fidelity: report.Approximate, Bound: bound, Rule: &rules.Rule{
			Ops: []string{in.Name()}, Fidelity: report.Approximate, Bound: bound,
			Emit: func(rules.Context, *isa.Inst, []byte) ([]byte, error) { return out, nil },
		}}
	}
	r := gprIdxRule(in, site)
	if r == nil {
		r = handRules()[in.Name()]
	}
	if r == nil && strings.HasPrefix(in.Name(), "v_cmpx_") {
		r = &rule{name: "gfx12-cmpx", fidelity: report.Exact, emit: cmpx}
	}
	if in.Format == isa.SDWA {
		r = nil
		if sdwaOps()[in.Name()] {
			r = &rule{name: "gfx12-sdwa", fidelity: report.Exact, emit: sdwa}
		}
	}
	if r == nil {
		if g := rules.ForInst(isa.GFX950, isa.GFX942, in); g != nil && retarget[g.Name] {
			return retargeted(g, in, site)
		}
	}
	if r != nil {
		var shared *rules.Shared
		if r == handRules()[in.Name()] {
			shared = p.SharedForm(in, site.AGPRBase)
		}
		return legalize.Decision{Action: report.Expand, Fidelity: r.fidelity, Bound: r.bound, Rule: &rules.Rule{
			Name: r.name, Ops: []string{in.Name()}, Fidelity: r.fidelity, Bound: r.bound,
			Emit:   func(ctx rules.Context, in *isa.Inst, _ []byte) ([]byte, error) { return r.emit(ctx, in, site) },
			Shared: shared,
		}}
	}
	out, bound, err := lower(in, site)
	if err != nil {
		return legalize.Decision{Action: report.Reject, Fidelity: report.Rejected, Reason: err.Error()}
	}
	fid := report.Exact
	if bound != "" {
		fid = report.Approximate
	}
	return legalize.Decision{Action: report.Lower, Fidelity: fid, Bound: bound, Rule: &rules.Rule{
		Ops: []string{in.Name()}, Fidelity: fid, Bound: bound,
		Emit: func(rules.Context, *isa.Inst, []byte) ([]byte, error) { return out, nil },
	}}
}

// Relocated implements pair.Pair.
func (Pair) Relocated(in *isa.Inst, raw []byte) ([]byte, error) {
	w := place.GFX12
	reg := func(i int) (uint16, error) {
		if len(in.Operands) <= i || in.Operands[i].Kind != isa.KindReg || in.Operands[i].Class != isa.SGPR {
			return 0, fmt.Errorf("%s operand %d is not an SGPR pair", in.Name(), i)
		}
		return in.Operands[i].Reg, nil
	}
	var word uint32
	switch in.Name() {
	case "s_getpc_b64":
		r, err := reg(0)
		if err != nil {
			return nil, err
		}
		word = w.Getpc(r)
	case "s_setpc_b64":
		r, err := reg(0)
		if err != nil {
			return nil, err
		}
		word = w.Setpc(r)
	case "s_swappc_b64":
		d, err := reg(0)
		if err != nil {
			return nil, err
		}
		s, err := reg(1)
		if err != nil {
			return nil, err
		}
		word = w.Swappc(d, s)
	default:
		return nil, fmt.Errorf("%s kept in place has no gfx12 form", in.Name())
	}
	return binary.LittleEndian.AppendUint32(nil, word), nil
}

// Spill implements pair.Pair: scratch_store_b32 / scratch_load_b32 through
// the architected flat scratch, each side completed with
// s_wait_storecnt 0 / s_wait_loadcnt 0 before the code that follows (the
// waits also cover older guest operations, which only over-waits).
func (Pair) Spill(base uint32, regs []uint16) (save, restore []byte, ok bool) {
	var hs, hr []host
	for i, r := range regs {
		at := int32(base) + int32(4*i)
		st := host{mnem: "scratch_store_b32", ops: []isa.Operand{off(), vr(r, 1), off()}}
		st.mod.Offset = at
		ld := host{mnem: "scratch_load_b32", ops: []isa.Operand{vr(r, 1), off(), off()}}
		ld.mod.Offset = at
		hs, hr = append(hs, st), append(hr, ld)
	}
	hs = append(hs, host{mnem: "s_wait_storecnt", ops: []isa.Operand{imm(0)}})
	hr = append(hr, host{mnem: "s_wait_loadcnt", ops: []isa.Operand{imm(0)}})
	save, err := seq(hs...)
	if err != nil {
		return nil, nil, false
	}
	restore, err = seq(hr...)
	if err != nil {
		return nil, nil, false
	}
	return save, restore, true
}

// userSGPRs returns the number of user SGPRs the descriptor's enables
// initialise before any preloaded kernargs, and the kernarg pointer's
// first SGPR (-1 when not enabled).
func userSGPRs(d *kd.Descriptor) (n, kernarg int) {
	kernarg = -1
	for _, e := range []struct {
		f kd.Field
		n int
	}{
		{kd.KCP_ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER, 4}, {kd.KCP_ENABLE_SGPR_DISPATCH_PTR, 2},
		{kd.KCP_ENABLE_SGPR_QUEUE_PTR, 2}, {kd.KCP_ENABLE_SGPR_KERNARG_SEGMENT_PTR, 2},
		{kd.KCP_ENABLE_SGPR_DISPATCH_ID, 2}, {kd.KCP_ENABLE_SGPR_FLAT_SCRATCH_INIT, 2},
		{kd.KCP_ENABLE_SGPR_PRIVATE_SEGMENT_SIZE, 1},
	} {
		if d.Flag(e.f) {
			if e.f == kd.KCP_ENABLE_SGPR_KERNARG_SEGMENT_PTR {
				kernarg = n
			}
			n += e.n
		}
	}
	return n, kernarg
}

// Prologue implements pair.Pair. gfx12 delivers the workgroup ids in
// TTMP9 (X) and TTMP7 (Y, or Y in [15:0] and Z in [31:16] when Z is
// enabled) instead of the SGPRs after the user SGPRs, allocates no private
// segment wave offset SGPR, and has no kernarg preloading. The prologue
// loads the preloaded kernarg dwords into their SGPRs (waiting for them),
// copies the ids to s[USER_SGPR_COUNT...] and zeroes the wave offset
// SGPR (gfx940-class code addresses scratch through architected flat
// scratch and does not read it; the gfx9 simulator delivers 0 too).
func (Pair) Prologue(pl pair.Plan) ([]byte, error) {
	k := pl.Kernel
	d := &k.Descriptor
	if n := pl.AGPRBase + pl.NamedAGPRs; pl.NamedAGPRs > 0 && n > 256 || pl.NamedArch > 256 {
		return nil, fmt.Errorf("the guest needs %d VGPRs (%d arch, AGPRs up to a%d above them), more than the 256 a gfx12 wave64 addresses (spilling is not implemented)", max(n, pl.NamedArch), pl.NamedArch, pl.NamedAGPRs-1)
	}
	var hs []host
	if n := d.Get(kd.KERNARG_PRELOAD_SPEC_LENGTH); n != 0 {
		base, kp := userSGPRs(d)
		if kp < 0 {
			return nil, fmt.Errorf("kernarg preload without a kernarg segment pointer")
		}
		offDW := d.Get(kd.KERNARG_PRELOAD_SPEC_OFFSET)
		for i := uint32(0); i < n; i++ {
			off := 4 * int64(offDW+i)
			h := host{mnem: "s_load_b32", ops: []isa.Operand{sr(uint16(base)+uint16(i), 1), sr(uint16(kp), 2), imm(off)}}
			h.mod.Offset = int32(off)
			hs = append(hs, h)
		}
		hs = append(hs, host{mnem: "s_wait_kmcnt", ops: []isa.Operand{imm(0)}})
	}
	s := uint16(d.Get(kd.RSRC2_USER_SGPR_COUNT))
	x, y, z := d.Flag(kd.RSRC2_ENABLE_SGPR_WORKGROUP_ID_X), d.Flag(kd.RSRC2_ENABLE_SGPR_WORKGROUP_ID_Y), d.Flag(kd.RSRC2_ENABLE_SGPR_WORKGROUP_ID_Z)
	if x {
		hs = append(hs, host{mnem: "s_mov_b32", ops: []isa.Operand{sr(s, 1), ttmp(9)}})
		s++
	}
	if y {
		if z {
			hs = append(hs, host{mnem: "s_and_b32", ops: []isa.Operand{sr(s, 1), ttmp(7), lit(0xffff)}})
		} else {
			hs = append(hs, host{mnem: "s_mov_b32", ops: []isa.Operand{sr(s, 1), ttmp(7)}})
		}
		s++
	}
	if z {
		hs = append(hs, host{mnem: "s_lshr_b32", ops: []isa.Operand{sr(s, 1), ttmp(7), inl(16)}})
		s++
	}
	if d.Flag(kd.RSRC2_ENABLE_SGPR_WORKGROUP_INFO) {
		return nil, fmt.Errorf("the guest reads the workgroup-info SGPR, which gfx12 does not deliver (no rule)")
	}
	if d.Flag(kd.RSRC2_ENABLE_PRIVATE_SEGMENT) {
		hs = append(hs, host{mnem: "s_mov_b32", ops: []isa.Operand{sr(s, 1), inl(0)}})
		s++
	}
	if s > 106 {
		return nil, fmt.Errorf("initial SGPRs end at s%d, beyond s105", s-1)
	}
	if len(hs) == 0 {
		return nil, nil
	}
	return seq(hs...)
}

// Descriptor implements pair.Pair: the gfx950 descriptor re-derived for
// gfx12 wave64 in CU mode (research note §1.2): the VGPR count (AGPRs
// included, at most 256) in granules of 4, no SGPR count, DX10_CLAMP /
// IEEE_MODE bits cleared (they are WG_RR_EN / DISABLE_PERF on gfx12),
// WGP_MODE 0, MEM_ORDERED 1, no trap-handler bit, RSRC3 cleared
// (ACCUM_OFFSET, TG_SPLIT), wave64, no kernarg preload.
func (p Pair) Descriptor(pl pair.Plan) (kd.Descriptor, []string, error) {
	d := pl.Kernel.Descriptor
	var notes []string
	if d.Flag(kd.RSRC3_TG_SPLIT) {
		return d, nil, fmt.Errorf("TG_SPLIT=1 (a workgroup without LDS spread over CUs) has no gfx12 counterpart")
	}
	total := max(pl.Arch, pl.NeedArch)
	if total > 256 {
		return d, nil, fmt.Errorf("needs %d VGPRs (arch and AGPRs mapped above them, scratch included), more than the 256 a gfx12 wave64 addresses (spilling is not implemented)", total)
	}
	if pl.SpillSlots > 0 {
		need := pl.SpillBase + uint32(4*pl.SpillSlots)
		if need >= 1<<23 {
			return d, nil, fmt.Errorf("private spill slots end at %d bytes, beyond the 24-bit scratch offset", need)
		}
		if need > d.PrivateSegmentFixedSize {
			d.PrivateSegmentFixedSize = need
		}
		if err := d.Set(kd.RSRC2_ENABLE_PRIVATE_SEGMENT, 1); err != nil {
			return d, nil, err
		}
	}
	host := p.HostProcessor()
	set := func(f kd.Field, v uint32) error { return d.Set(f, v) }
	for _, s := range []struct {
		f kd.Field
		v uint32
	}{
		{kd.RSRC1_GRANULATED_WORKITEM_VGPR_COUNT, kd.VGPRGranules(host, false, max(total, 1))},
		{kd.RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT, 0},
		{kd.RSRC1_ENABLE_DX10_CLAMP, 0}, {kd.RSRC1_ENABLE_IEEE_MODE, 0},
		{kd.RSRC1_WGP_MODE, 0}, {kd.RSRC1_MEM_ORDERED, 1}, {kd.RSRC1_FWD_PROGRESS, 0},
		{kd.RSRC2_ENABLE_TRAP_HANDLER, 0}, {kd.RSRC2_WGP_TAKEOVER, 0},
		{kd.KCP_ENABLE_WAVEFRONT_SIZE32, 0},
	} {
		if err := set(s.f, s.v); err != nil {
			return d, nil, err
		}
	}
	if pl.Kernel.Descriptor.Flag(kd.RSRC1_ENABLE_IEEE_MODE) {
		notes = append(notes, "guest IEEE mode: gfx12 has no IEEE-mode bit; min/max use the *_num semantics (sNaN bound)")
	}
	d.ComputePgmRsrc3 = 0
	d.KernargPreload = 0
	if total > pl.Arch {
		notes = append(notes, fmt.Sprintf("VGPRs grown from %d to %d for scratch registers", pl.Arch, total))
	}
	if err := d.Check(host); err != nil {
		return d, nil, err
	}
	return d, notes, nil
}
