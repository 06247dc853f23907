package dbt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/cfg"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/dbt/live"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	gfx950gfx942 "github.com/rocjitsu/rocjitsu/dbt/pair/gfx950_gfx942"
	"github.com/rocjitsu/rocjitsu/dbt/place"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/dbt/vlds"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/loader/kd"
	"github.com/rocjitsu/rocjitsu/loader/target"
)

// SidecarOptions select which kernels get a virtual-LDS sidecar.
type SidecarOptions struct {
	// AllLDS makes a sidecar for every kernel that uses LDS storage (static
	// LDS, DS storage instructions or LDS DMA), not only for those whose
	// static LDS exceeds Options.HostLDS. A dispatch whose group-segment
	// request exceeds the host limit can then run any of them.
	AllLDS bool
	// forceSpill makes every scratch request of the sidecars borrow live
	// registers (tests).
	forceSpill bool
	// forceSpillPerUse keeps virtual_lds_base in private memory even when
	// a pair is free (tests of spill-per-use mode).
	forceSpillPerUse bool
}

// Sidecar describes the virtual-LDS sidecar of one kernel.
type Sidecar struct {
	// Kernel is the kernel's name.
	Kernel string
	// Made is true when the sidecar was produced; Reason says why not.
	Made   bool
	Reason string
	// StaticLDS is the guest's static LDS bytes.
	StaticLDS uint32
	// Normal and Descriptor are the ELF virtual addresses of the normal
	// and the sidecar descriptor; Entry is the sidecar's entry.
	Normal, Descriptor, Entry uint64
	// Lowered counts lowered LDS accesses; Bytes is the body size.
	Lowered, Bytes int
	// BaseSGPR is the SGPR pair holding virtual_lds_base; with
	// SpillPerUse the base lives in private memory instead and BaseSGPR
	// is only the prologue's pair.
	BaseSGPR    uint16
	SpillPerUse bool
}

// SidecarResult is a translation with virtual-LDS sidecars.
type SidecarResult struct {
	*Result
	// Sidecars lists every kernel considered for a sidecar.
	Sidecars []Sidecar
	// LDS is the committed .rocjitsu.lds section (nil when no sidecar was
	// made).
	LDS *vlds.Section
}

// sidecarEntry is the source address the sidecar body's prologue is
// mapped at: no guest code lives there and it is 256-aligned, so the
// placer puts the prologue at a descriptor-valid entry.
const sidecarEntry = uint64(1) << 63

// TranslateWithSidecars translates guest like Translate and then adds a
// virtual-LDS sidecar for every kernel that needs one: a second body of
// the same scope whose LDS storage accesses go to a per-workgroup slice of
// a global backing store, its descriptor (appended after .text) and the
// .rocjitsu.lds section that maps the normal descriptor to it. A kernel
// whose sidecar cannot be made keeps only its normal body and the reason
// is recorded (the sidecar fails closed; the object still commits).
func TranslateWithSidecars(guest []byte, opt Options, so SidecarOptions) (*SidecarResult, error) {
	if opt.Host == 0 {
		opt.Host = isa.GFX942
	}
	if opt.HostLDS == 0 {
		opt.HostLDS = 65536
	}
	res, err := Translate(guest, opt)
	out := &SidecarResult{Result: res}
	if err != nil {
		return out, err
	}
	f, err := loader.Parse(guest)
	if err != nil {
		return out, fmt.Errorf("dbt: sidecar: %w", err)
	}
	gt, err := isa.TargetFromMach(uint32(f.Flags.Mach))
	if err != nil {
		return out, fmt.Errorf("dbt: sidecar: %w", err)
	}
	pr, err := pairFor(gt, opt.Host)
	if err != nil {
		return out, fmt.Errorf("dbt: sidecar: %w", err)
	}
	// The gfx950 -> gfx942 pair lowers guest DS words with package vlds;
	// other pairs lower their host code through pair.VirtualLDS.
	vp, _ := pr.(pair.VirtualLDS)
	if vp == nil && opt.Host != isa.GFX942 {
		for i := range res.Report.Kernels {
			k := &res.Report.Kernels[i]
			if k.NeedsVirtualLDS {
				k.Notes = append(k.Notes, fmt.Sprintf("no virtual-LDS sidecar: the %s -> %s pair has no virtual-LDS lowering", gt, opt.Host))
			}
		}
		return out, nil
	}
	ts := f.Section(".text")
	text := cfg.Text{Addr: ts.Addr, Data: ts.Data}
	kernels := f.Kernels()
	var roots []cfg.Root
	for i, k := range kernels {
		roots = append(roots, cfg.Root{Kernel: i, Addr: k.EntryAddr})
		if k.Descriptor.Get(kd.KERNARG_PRELOAD_SPEC_LENGTH) != 0 {
			roots = append(roots, cfg.Root{Kernel: i, Addr: k.EntryAddr + 256, Preload: true})
		}
	}
	g, err := cfg.Build(text, roots, func(code []byte, pc uint64) (isa.Inst, error) {
		return gfx9.Decode(code, pc, gt)
	}, cfg.Options{})
	if err != nil {
		return out, fmt.Errorf("dbt: sidecar: %w", err)
	}
	var agprBase int
	var renamed bool
	if !opt.noAGPRRename {
		agprBase, renamed = renameAGPRs(g, kernels, f.Processor, gt, opt.Host)
	}
	hostProc, hostDecode := pr.HostProcessor(), pr.HostDecode
	if vp == nil {
		hostProc, _ = target.ByMach(target.MachGFX942)
		hostDecode = func(code []byte, pc uint64) (isa.Inst, error) { return gfx9.Decode(code, pc, opt.Host) }
		pr = gfx950gfx942.New()
	}
	var kts []*kernelT
	var plans []*sidecarPlan
	for i := range kernels {
		kt := &kernelT{
			idx: i, k: &kernels[i], f: f, g: g, guest: gt, host: opt.Host,
			hostDecode: hostDecode, long: map[uint64]bool{}, hostProc: hostProc, pair: pr, hostLDS: opt.HostLDS,
			forceSpill: so.forceSpill, forceSpillPerUse: so.forceSpillPerUse, sidecar: true,
			agprBase0: agprBase, renamed: renamed,
		}
		kt.scope = g.Scope(i)
		static := kt.k.Descriptor.GroupSegmentFixedSize
		if static <= opt.HostLDS && !(so.AllLDS && (static > 0 || kt.scopeTouchesLDS())) {
			continue
		}
		sc := Sidecar{Kernel: kt.k.Name, StaticLDS: static, Normal: kt.k.DescriptorAddr}
		p, why := kt.planSidecar(vp)
		if why == "" {
			why = kt.emitSidecar(p)
		}
		if why != "" {
			sc.Reason = why
			out.Sidecars = append(out.Sidecars, sc)
			continue
		}
		sc.Made, sc.BaseSGPR, sc.SpillPerUse = true, p.base, p.spill
		out.Sidecars = append(out.Sidecars, sc)
		kts = append(kts, kt)
		plans = append(plans, p)
	}
	if len(kts) == 0 {
		out.notes()
		return out, nil
	}
	// Place the sidecar bodies after the translated text.
	tf, err := loader.Parse(res.Object)
	if err != nil {
		return out, fmt.Errorf("dbt: sidecar: translated object: %w", err)
	}
	hts := tf.Section(".text")
	start := (hts.Addr + uint64(len(hts.Data)) + 255) &^ 255
	var side []byte
	var placed []place.Placed
	for attempt := 0; ; attempt++ {
		bodies := make([]*place.Body, len(kts))
		for i, kt := range kts {
			bodies[i] = kt.body
		}
		side, placed, err = place.Layout(start, 0, bodies)
		var oor *place.OutOfRange
		if errors.As(err, &oor) && attempt < 8 {
			for i, kt := range kts {
				if kt.body.Name != oor.Body {
					continue
				}
				for _, src := range oor.Srcs {
					kt.long[src] = true
				}
				if why := kt.emitSidecar(plans[i]); why != "" {
					return out, fmt.Errorf("dbt: sidecar %s: re-emission with long branches: %s", kt.k.Name, why)
				}
			}
			continue
		}
		if err != nil {
			return out, fmt.Errorf("dbt: sidecar: %w", err)
		}
		break
	}
	if res.PCMap != nil {
		for i, kt := range kts {
			res.PCMap.add(kt.bodyPairs(), len(kt.body.Code), placed[i].Base)
		}
		res.PCMap.sort()
	}
	newText := append([]byte(nil), hts.Data...)
	for uint64(len(newText)) < start-hts.Addr {
		newText = binary.LittleEndian.AppendUint32(newText, place.NopWord)
	}
	newText = append(newText, side...)
	spec := loader.PatchSpec{Text: newText, TailEntries: map[int]uint64{}}
	sec := &vlds.Section{HostLDS: opt.HostLDS}
	for i, kt := range kts {
		d, err := kt.sidecarDescriptor(plans[i])
		if err != nil {
			return out, fmt.Errorf("dbt: sidecar %s: %w", kt.k.Name, err)
		}
		spec.DescriptorTail = append(spec.DescriptorTail, d.Encode()...)
		spec.TailEntries[i] = placed[i].Entry - hts.Addr
		flags := uint32(0)
		for dim, s := range plans[i].prologue.WorkgroupID {
			if s >= 0 {
				flags |= vlds.FlagWorkgroupIDX << dim
			}
		}
		sec.Entries = append(sec.Entries, vlds.Entry{
			Normal: kt.k.DescriptorAddr, StaticLDS: kt.k.Descriptor.GroupSegmentFixedSize,
			Private: d.PrivateSegmentFixedSize, Wrapper: plans[i].prologue.Wrapper, Flags: flags,
		})
	}
	// The descriptor addresses are known after layout: patch once with a
	// placeholder section of the final size, read them, then commit.
	for i := range sec.Entries {
		sec.Entries[i].Sidecar = 64
	}
	spec.Sections = []loader.NewSection{{Name: vlds.SectionName, Type: 1, Align: 8, Data: sec.Marshal()}}
	trial, err := loader.Patch(tf, spec)
	if err != nil {
		return out, fmt.Errorf("dbt: sidecar: commit: %w", err)
	}
	tail := trial.Section(".rocjitsu.kd")
	if tail == nil {
		return out, errors.New("dbt: sidecar: commit: no .rocjitsu.kd section after patching")
	}
	normalAt := map[string]uint64{}
	for _, k := range trial.Kernels() {
		normalAt[k.Name] = k.DescriptorAddr
	}
	for i, kt := range kts {
		sec.Entries[i].Sidecar = tail.Addr + uint64(64*i)
		sec.Entries[i].Normal = normalAt[kt.k.Name]
	}
	spec.Sections[0].Data = sec.Marshal()
	nf, err := loader.Patch(tf, spec)
	if err != nil {
		return out, fmt.Errorf("dbt: sidecar: commit: %w", err)
	}
	if chk := nf.Section(".rocjitsu.kd"); chk == nil || chk.Addr != tail.Addr {
		return out, errors.New("dbt: sidecar: commit: descriptor tail moved between patches")
	}
	j := 0
	for i := range out.Sidecars {
		if !out.Sidecars[i].Made {
			continue
		}
		s := &out.Sidecars[i]
		s.Normal, s.Descriptor, s.Entry = sec.Entries[j].Normal, sec.Entries[j].Sidecar, placed[j].Entry
		s.Lowered, s.Bytes = plans[j].lowered, len(kts[j].body.Code)
		j++
	}
	out.Object = nf.Raw()
	out.LDS = sec
	out.notes()
	return out, nil
}

// notes records each kernel's sidecar outcome in its report.
func (r *SidecarResult) notes() {
	for i := range r.Report.Kernels {
		k := &r.Report.Kernels[i]
		for _, s := range r.Sidecars {
			switch {
			case s.Kernel != k.Name:
			case s.Made && s.SpillPerUse:
				k.Notes = append(k.Notes, fmt.Sprintf("virtual-LDS sidecar: descriptor %#x, entry %#x, %d LDS accesses lowered; spill-per-use: virtual_lds_base in private memory, an SGPR pair borrowed around each access", s.Descriptor, s.Entry, s.Lowered))
			case s.Made:
				k.Notes = append(k.Notes, fmt.Sprintf("virtual-LDS sidecar: descriptor %#x, entry %#x, %d LDS accesses lowered", s.Descriptor, s.Entry, s.Lowered))
			default:
				k.Notes = append(k.Notes, "no virtual-LDS sidecar: "+s.Reason)
			}
		}
	}
}

// sidecarPlan is the register plan of one sidecar.
type sidecarPlan struct {
	prologue vlds.PrologueSpec
	base     uint16
	lowered  int
	// top is one past the highest SGPR the prologue and base use.
	top int
	// spill selects spill-per-use mode: base is the prologue's pair only,
	// virtual_lds_base lives in the private slots and each lowered access
	// borrows a pair.
	spill bool
	slots vlds.SpillSlots
	// host lowers the host code of a pair with pair.VirtualLDS (nil: the
	// gfx942 host, whose sidecars lower the guest's DS words directly).
	host pair.VirtualLDS
	// vm tracks the lowered accesses in flight during a gfx942 emission.
	vm vmInFlight
	// addr is the gfx942 emission's address cache (see sidecarCtx).
	addr cachedAddr
	// dma holds the LDS DMA stores not issued yet (vlds.DeferredStores).
	dma []deferredStore
	// flushAt lists the source instructions before which the deferred
	// stores are issued whatever the instruction: those whose host code
	// came with fixups (branches, windows, subroutine calls), which the
	// lowering does not inspect. An emission that finds a new one
	// deferred stores over sets redo and is repeated.
	flushAt map[uint64]bool
	redo    bool
}

// deferredStore is the store of an LDS DMA lowering issued later.
type deferredStore struct {
	words      [2]uint32
	data, lane uint16
}

// DeferStore implements vlds.DeferredStores: accepted unless a scratch
// VGPR of the lowering is borrowed (its restore would come first) or in
// spill-per-use mode.
func (c sidecarCtx) DeferStore(store [2]uint32, data, lane uint16) bool {
	if c.p.spill || len(c.kt.borrowed) > 0 || len(c.p.dma) >= maxDeferredDMA {
		return false
	}
	c.p.dma = append(c.p.dma, deferredStore{words: store, data: data, lane: lane})
	return true
}

// maxDeferredDMA bounds a run of deferred LDS DMA stores (each holds two
// VGPRs).
const maxDeferredDMA = 16

// defers reports whether VGPR r holds data or an address of a deferred
// store.
func (p *sidecarPlan) defers(r int) bool {
	for _, d := range p.dma {
		if int(d.data) == r || int(d.lane) == r {
			return true
		}
	}
	return false
}

// flushDMA appends the deferred LDS DMA stores to code: s_waitcnt
// vmcnt(0) for their loads, then the stores.
func (p *sidecarPlan) flushDMA(code []byte) []byte {
	if len(p.dma) == 0 {
		return code
	}
	code = p.vm.wait(code)
	for _, d := range p.dma {
		code = binary.LittleEndian.AppendUint32(code, d.words[0])
		code = binary.LittleEndian.AppendUint32(code, d.words[1])
	}
	p.vm.any = true
	p.dma = p.dma[:0]
	return code
}

// keepsDMA reports whether host instruction hin (not lowered code) may
// run while LDS DMA stores are deferred: a VALU or SALU instruction that
// is no wait, barrier, end or control flow, writes no EXEC (M0 is fine:
// the lane offsets are computed) and names none of their VGPRs.
func (p *sidecarPlan) keepsDMA(hin *isa.Inst) bool {
	if hin.Info == nil || hin.Info.Branch != isa.BranchNone || hin.Info.ImplicitWrites&isa.ImpEXEC != 0 || hin.Info.Mem != isa.MemNone {
		return false
	}
	switch hin.Format {
	case isa.SOP1, isa.SOP2, isa.SOPK, isa.SOPC, isa.VOP1, isa.VOP2, isa.VOP3:
	default:
		return false
	}
	if strings.HasPrefix(hin.Name(), "s_waitcnt") || strings.HasPrefix(hin.Name(), "v_cmpx") {
		return false
	}
	for _, o := range hin.Operands {
		if o.Kind != isa.KindReg {
			continue
		}
		n := int(max(o.Width, 1))
		if o.Role.Defines() && (o.Class == isa.Special && o.Reg != uint16(isa.RegM0) || o.Class == isa.SGPR && int(o.Reg)+n > 102 && !(int(o.Reg) == 124 && n == 1)) {
			return false
		}
		if o.Class == isa.VGPR {
			for r := int(o.Reg); r < int(o.Reg)+n; r++ {
				if p.defers(r) {
					return false
				}
			}
		}
	}
	return true
}

// cachedAddr is a scratch VGPR that holds a DS address VGPR plus k at the
// current point of a gfx942 sidecar emission.
type cachedAddr struct {
	valid     bool
	addr, reg uint16
	k         uint32
	// lane, when laneValid, holds the LDS DMA lane offsets, id, when
	// idValid, the lane IDs (vlds.LaneAddressCache).
	laneValid, idValid bool
	lane, id           uint16
}

// holds reports whether the cache keeps a value in VGPR r.
func (a *cachedAddr) holds(r uint16) bool {
	return a.valid && (a.reg == r || a.addr == r) || a.laneValid && a.lane == r || a.idValid && a.id == r
}

// sidecarCtx is the vlds.Context a gfx942 sidecar lowers with: kt's
// scratch VGPRs and the plan's address cache (vlds.AddressCache). An entry
// is kept only for a dead scratch VGPR (not one borrowed and restored), and
// not in spill-per-use mode; track drops it where its registers or EXEC
// are written, a block starts or control flow leaves.
type sidecarCtx struct {
	kt *kernelT
	p  *sidecarPlan
}

// TempVGPRs implements vlds.Context.
func (c sidecarCtx) TempVGPRs(n int) ([]uint16, error) { return c.kt.TempVGPRs(n) }

// TempVGPRRange implements vlds.Context.
func (c sidecarCtx) TempVGPRRange(n, align int) (uint16, error) {
	return c.kt.TempVGPRRange(n, align)
}

// DeadVGPR implements vlds.DeadTemps: a scratch VGPR the allocator finds
// without borrowing a live register (a borrowing it would do is undone).
func (c sidecarCtx) DeadVGPR() (uint16, bool) {
	n := len(c.kt.borrowed)
	r, err := c.kt.TempVGPRs(1)
	if err != nil {
		return 0, false
	}
	if len(c.kt.borrowed) > n {
		c.kt.borrowed = c.kt.borrowed[:n]
		return 0, false
	}
	return r[0], true
}

// cacheable reports whether reg may be kept across lowerings by one of
// the sidecar's caches: not in a spilling plan, not a borrowed register,
// and not one the address caches hold already.
func (c sidecarCtx) cacheable(reg uint16) bool {
	return !c.p.spill && !slices.Contains(c.kt.borrowed, reg) && !c.p.addr.holds(reg)
}

// CachedAddress implements vlds.AddressCache.
func (c sidecarCtx) CachedAddress(addr uint16) (uint16, uint32, bool) {
	a := c.p.addr
	return a.reg, a.k, a.valid && a.addr == addr
}

// CacheAddress implements vlds.AddressCache.
func (c sidecarCtx) CacheAddress(addr, reg uint16, k uint32) {
	a := &c.p.addr
	a.valid = false
	if !c.cacheable(reg) {
		return
	}
	a.valid, a.addr, a.reg, a.k = true, addr, reg, k
}

// CachedLaneAddress implements vlds.LaneAddressCache.
func (c sidecarCtx) CachedLaneAddress() (uint16, bool) {
	return c.p.addr.lane, c.p.addr.laneValid
}

// CacheLaneAddress implements vlds.LaneAddressCache.
func (c sidecarCtx) CacheLaneAddress(reg uint16) {
	a := &c.p.addr
	a.laneValid = false
	if !c.cacheable(reg) {
		return
	}
	a.laneValid, a.lane = true, reg
}

// CachedLaneID implements vlds.LaneAddressCache.
func (c sidecarCtx) CachedLaneID() (uint16, bool) {
	return c.p.addr.id, c.p.addr.idValid
}

// CacheLaneID implements vlds.LaneAddressCache.
func (c sidecarCtx) CacheLaneID(reg uint16) {
	a := &c.p.addr
	a.idValid = false
	if !c.cacheable(reg) {
		return
	}
	a.idValid, a.id = true, reg
}

// reserveCached keeps the cached scratch and address VGPRs from the
// scratch allocator for the lowering about to run.
func (kt *kernelT) reserveCached(p *sidecarPlan) {
	if p.addr.valid {
		kt.take(p.addr.reg)
		kt.take(p.addr.addr)
	}
	if p.addr.laneValid {
		kt.take(p.addr.lane)
	}
	if p.addr.idValid {
		kt.take(p.addr.id)
	}
	for _, d := range p.dma {
		kt.take(d.data)
		kt.take(d.lane)
	}
}

// overlaps reports whether registers [r, r+n) of class c include the
// VGPR v.
func overlaps(c isa.RegClass, r, n int, v uint16) bool {
	return c == isa.VGPR && int(v) >= r && int(v) < r+n
}

// dropCached invalidates the address cache when host instruction hin
// (not lowered code) may change what it holds: it names the scratch VGPR,
// writes the address VGPR, writes EXEC or a special register, or is not
// known.
func (p *sidecarPlan) dropCached(hin *isa.Inst) {
	a := &p.addr
	if !a.valid && !a.laneValid && !a.idValid {
		return
	}
	if hin.Info == nil || hin.Info.Branch != isa.BranchNone || hin.Info.ImplicitWrites&isa.ImpEXEC != 0 {
		*a = cachedAddr{}
		return
	}
	if hin.Info.ImplicitWrites&isa.ImpM0 != 0 {
		a.laneValid = false
	}
	for _, o := range hin.Operands {
		if o.Kind != isa.KindReg {
			continue
		}
		n := int(max(o.Width, 1))
		if o.Role.Defines() && (o.Class == isa.Special && o.Reg == uint16(isa.RegM0) || o.Class == isa.SGPR && int(o.Reg) == 124 && n == 1) {
			a.laneValid = false // M0: the lane IDs still hold
			continue
		}
		if o.Role.Defines() && (o.Class == isa.Special || o.Class == isa.SGPR && int(o.Reg)+n > 102) {
			*a = cachedAddr{} // EXEC or another special register
			return
		}
		if a.valid && (overlaps(o.Class, int(o.Reg), n, a.reg) || o.Role.Defines() && overlaps(o.Class, int(o.Reg), n, a.addr)) {
			a.valid = false
		}
		if a.laneValid && overlaps(o.Class, int(o.Reg), n, a.lane) {
			a.laneValid = false
		}
		if a.idValid && overlaps(o.Class, int(o.Reg), n, a.id) {
			a.idValid = false
		}
	}
}

// vmInFlight is what a gfx942 sidecar emission knows about its lowered
// global accesses that no s_waitcnt vmcnt(0) has covered yet at the
// current point of a block (lowered accesses are not waited for where they
// are issued; package vlds states the rules).
type vmInFlight struct {
	// v and a are the destination VGPRs and AGPRs of lowered loads and
	// returning atomics in flight.
	v, a live.Set
	// loads is true when v or a is not empty.
	loads bool
	// any is true when some lowered access may be in flight (at a block
	// start: unknown, so true).
	any bool
	// hazV and hazA are the data registers of the last lowered store with
	// more than 64 bits of data while hazLeft of the two wait states a
	// write of them needs after it are still to come.
	hazV, hazA live.Set
	hazLeft    int
}

// nopWord is s_nop n (n+1 wait states).
func nopWord(n int) uint32 { return 0xbf800000 | uint32(n) }

// storeHazard follows host instruction hin (word w0) after a wide lowered
// store: it returns s_nop words to put before hin when hin writes the
// store's data registers too soon.
func (f *vmInFlight) storeHazard(hin *isa.Inst, w0 uint32) []byte {
	if f.hazLeft <= 0 {
		return nil
	}
	switch {
	case w0>>16 == 0xbf80: // s_nop N
		f.hazLeft -= int(w0&0xf) + 1
		return nil
	case vlds.WaitsAllVM(w0): // the store has completed
		f.hazLeft = 0
		return nil
	}
	for _, o := range hin.Operands {
		if o.Kind != isa.KindReg || !o.Role.Defines() {
			continue
		}
		var set *live.Set
		switch o.Class {
		case isa.VGPR:
			set = &f.hazV
		case isa.AGPR:
			set = &f.hazA
		default:
			continue
		}
		for r := int(o.Reg); r < int(o.Reg)+int(max(o.Width, 1)); r++ {
			if set.Has(r) {
				n := f.hazLeft
				f.hazLeft = 0
				return binary.LittleEndian.AppendUint32(nil, nopWord(n-1))
			}
		}
	}
	f.hazLeft--
	return nil
}

// flushHazard returns the wait states a wide store still needs where
// the emission cannot see what follows (a block's end).
func (f *vmInFlight) flushHazard(code []byte) []byte {
	if f.hazLeft <= 0 {
		return code
	}
	n := f.hazLeft
	f.hazLeft = 0
	return binary.LittleEndian.AppendUint32(code, nopWord(n-1))
}

// PlacesStoreWaitStates implements vlds.StoreHazards: track places them.
func (c sidecarCtx) PlacesStoreWaitStates() bool { return true }

// clobberable reports whether a destination register of a load in flight
// is not read after the instruction whose live-after set is after: the
// scratch allocator may hand such a register out (or the guest write it)
// while the load's data can still arrive.
func (f *vmInFlight) clobberable(after *live.Regs, deferred func(r int) bool) bool {
	if !f.loads {
		return false
	}
	if after == nil {
		return true
	}
	for w := range f.v {
		if f.a[w]&^after.A[w] != 0 {
			return true
		}
		for m := f.v[w] &^ after.V[w]; m != 0; m &= m - 1 {
			// A deferred DMA store's data VGPR is kept from other uses
			// until its flush, which waits.
			if !deferred(64*w + bits.TrailingZeros64(m)) {
				return true
			}
		}
	}
	return false
}

// waited records an s_waitcnt vmcnt(0).
func (f *vmInFlight) waited() { *f = vmInFlight{} }

// wait appends s_waitcnt vmcnt(0) to code and records it.
func (f *vmInFlight) wait(code []byte) []byte {
	f.waited()
	return binary.LittleEndian.AppendUint32(code, vlds.WaitVMCNT0)
}

// track follows the host code seg of one source instruction: in lowered
// code every global load and returning atomic is a lowered access in
// flight; in any code an s_waitcnt that waits on lgkmcnt becomes the
// sidecar's wait (vlds.SidecarWait), and s_barrier and s_endpgm get an
// s_waitcnt vmcnt(0) before them while a lowered access may be in flight.
// It returns seg with those changes.
func (kt *kernelT) track(p *sidecarPlan, seg []byte, lowered bool) ([]byte, error) {
	var out []byte
	for off := 0; off < len(seg); {
		hin, err := kt.hostDecode(seg[off:], 0)
		if err != nil || hin.Size == 0 || off+int(hin.Size) > len(seg) {
			return nil, fmt.Errorf("host code of the sidecar does not decode at +%d", off)
		}
		h := seg[off : off+int(hin.Size)]
		off += int(hin.Size)
		w0 := binary.LittleEndian.Uint32(h)
		out = append(out, p.vm.storeHazard(&hin, w0)...)
		if w, ok := vlds.SidecarWait(w0); ok {
			out = binary.LittleEndian.AppendUint32(out, w)
			out = append(out, h[4:]...)
			if vlds.WaitsAllVM(w) {
				p.vm.waited()
			}
			continue
		}
		if (w0 == sBarrier || w0 == sEndpgm) && p.vm.any {
			out = p.vm.wait(out)
		}
		if !lowered {
			p.dropCached(&hin)
		}
		if lowered && len(h) == 8 && w0>>26 == 0x37 && w0>>14&3 == 2 {
			p.vm.any = true
			if r, n, acc := vlds.WideStoreData(w0, binary.LittleEndian.Uint32(h[4:])); n > 0 {
				p.vm.hazV, p.vm.hazA = live.Set{}, live.Set{}
				if acc {
					p.vm.hazA.Add(int(r), n)
				} else {
					p.vm.hazV.Add(int(r), n)
				}
				p.vm.hazLeft = 2
				out = append(out, h...)
				continue
			}
			if r, n, acc := vlds.LoadDestination(w0, binary.LittleEndian.Uint32(h[4:])); n > 0 {
				if acc {
					p.vm.a.Add(int(r), n)
				} else {
					p.vm.v.Add(int(r), n)
					if overlaps(isa.VGPR, int(r), n, p.addr.reg) || overlaps(isa.VGPR, int(r), n, p.addr.addr) {
						p.addr.valid = false
					}
					if overlaps(isa.VGPR, int(r), n, p.addr.lane) {
						p.addr.laneValid = false
					}
					if overlaps(isa.VGPR, int(r), n, p.addr.id) {
						p.addr.idValid = false
					}
				}
				p.vm.loads = true
			}
		}
		out = append(out, h...)
	}
	return out, nil
}

// Words the wait tracking of a sidecar recognises.
const (
	sBarrier = 0xbf8a0000 // s_barrier
	sEndpgm  = 0xbf810000 // s_endpgm
)

// userSGPRs returns the first SGPR of the kernarg pointer (-1 when not
// enabled) and the number of user SGPRs before it.
func kernargSGPR(d *kd.Descriptor) int {
	n := 0
	if d.Flag(kd.KCP_ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER) {
		n += 4
	}
	if d.Flag(kd.KCP_ENABLE_SGPR_DISPATCH_PTR) {
		n += 2
	}
	if d.Flag(kd.KCP_ENABLE_SGPR_QUEUE_PTR) {
		n += 2
	}
	if !d.Flag(kd.KCP_ENABLE_SGPR_KERNARG_SEGMENT_PTR) {
		return -1
	}
	return n
}

// planSidecar chooses the registers of the sidecar prologue.
func (kt *kernelT) planSidecar(host pair.VirtualLDS) (*sidecarPlan, string) {
	d := &kt.k.Descriptor
	ka := kernargSGPR(d)
	if ka < 0 {
		return nil, "the descriptor requests no kernarg segment pointer SGPR (adding a target-only pair is not implemented)"
	}
	user := int(d.Get(kd.RSRC2_USER_SGPR_COUNT))
	sys := user
	wg := [3]int{-1, -1, -1}
	for i, f := range []kd.Field{kd.RSRC2_ENABLE_SGPR_WORKGROUP_ID_X, kd.RSRC2_ENABLE_SGPR_WORKGROUP_ID_Y, kd.RSRC2_ENABLE_SGPR_WORKGROUP_ID_Z} {
		if d.Flag(f) {
			wg[i] = sys
			sys++
		}
	}
	if d.Flag(kd.RSRC2_ENABLE_SGPR_WORKGROUP_INFO) {
		sys++
	}
	if d.Flag(kd.RSRC2_ENABLE_PRIVATE_SEGMENT) {
		sys++
	}
	for _, l := range kt.scope.Blocks {
		for _, in := range kt.g.Blocks[l].Insts {
			if n := in.Name(); strings.HasPrefix(n, "s_movrel") {
				return nil, fmt.Sprintf("%#x %s indexes SGPRs through M0: the SGPRs the scope uses are not known", in.PC, n)
			}
		}
	}
	info := live.Analyze(kt.g, kt.scope, kt.rawUses)
	used := info.Used.S // every SGPR the scope names
	used.Add(0, sys)    // and those the hardware initialises
	// virtual_lds_base: an even pair the scope never names, preferring
	// one inside the current allocation.
	base := -1
	for r := 0; r+1 < 102; r += 2 {
		if !used.Has(r) && !used.Has(r+1) && (base < 0 || r+1 < d.NextFreeSGPR()-6) {
			base = r
			if r+1 < d.NextFreeSGPR()-6 {
				break
			}
		}
	}
	spill := base < 0 || kt.forceSpillPerUse
	if spill {
		// Spill-per-use: the prologue computes the base in a pair the
		// hardware does not initialise (undefined at the entry), stores it
		// to private memory, and the guest keeps every SGPR.
		if kt.k.Metadata != nil && kt.k.Metadata.UsesDynamicStack {
			return nil, "no SGPR pair is free in the whole scope for virtual_lds_base, and spill-per-use mode needs private memory the kernel's dynamic stack may overlap"
		}
		base = -1
		for r := sys + sys%2; r+1 < 102; r += 2 {
			if r != ka && r+1 != ka && r != ka+1 {
				base = r
				break
			}
		}
		if base < 0 {
			return nil, "no SGPR pair above the hardware-initialised ones for the spill-per-use prologue"
		}
	}
	// Prologue temporaries: any SGPRs the hardware does not initialise.
	// Their contents at the entry are undefined, so no correct guest
	// observes them; the prologue's values are as good as any.
	free := func(r int) bool {
		return r >= sys && r < 102 && r != base && r != base+1 && r != ka && r != ka+1
	}
	var temps [4]uint16
	pair := -1
	for r := 0; r+1 < 102; r += 2 {
		if free(r) && free(r+1) {
			pair = r
			break
		}
	}
	if pair < 0 {
		return nil, "no SGPR pair is left above the hardware-initialised ones for the prologue"
	}
	temps[0], temps[1] = uint16(pair), uint16(pair+1)
	n := 2
	for r := 0; r < 102 && n < 4; r++ {
		if free(r) && r != pair && r != pair+1 {
			temps[n] = uint16(r)
			n++
		}
	}
	if n < 4 {
		return nil, "fewer than four SGPRs are left above the hardware-initialised ones for the prologue"
	}
	// The wrapper preserves the largest of kernarg_size, the metadata's
	// kernarg segment (the buffer the application fills, hidden arguments
	// included: code reading arguments through the dispatch packet's
	// kernarg_address sees the same bytes) and the preloaded range (the
	// hardware preloads SGPRs from the wrapper).
	prefix := d.KernargSize
	if md := kt.k.Metadata; md != nil && md.KernargSegmentSize <= 1<<16 {
		prefix = max(prefix, uint32(md.KernargSegmentSize))
	}
	if n := d.Get(kd.KERNARG_PRELOAD_SPEC_LENGTH); n != 0 {
		prefix = max(prefix, 4*(d.Get(kd.KERNARG_PRELOAD_SPEC_OFFSET)+n))
	}
	slots := vlds.SpillSlots{Base: (d.PrivateSegmentFixedSize + 7) &^ 7}
	slots.Save = slots.Base + 8
	return &sidecarPlan{host: host, spill: spill, slots: slots, base: uint16(base), top: max(base+2, int(temps[0])+2, int(temps[2])+1, int(temps[3])+1), prologue: vlds.PrologueSpec{
		Kernarg: uint16(ka), Wrapper: vlds.Layout(prefix), WorkgroupID: wg, Base: uint16(base), Temps: temps,
	}}, ""
}

// scopeTouchesLDS reports whether an instruction of the scope accesses LDS
// storage.
func (kt *kernelT) scopeTouchesLDS() bool {
	for _, l := range kt.scope.Blocks {
		for _, in := range kt.g.Blocks[l].Insts {
			raw := kt.raw(in)
			if len(raw) >= 4 && vlds.TouchesLDS(binary.LittleEndian.Uint32(raw)) {
				return true
			}
			if in.Mod.LDS && in.Format == isa.MUBUF {
				return true
			}
		}
	}
	return false
}

// emitSidecar translates the scope into a sidecar body: the prologue at
// sidecarEntry, then the scope with every LDS storage access lowered. It
// returns why the sidecar is rejected ("" on success).
func (kt *kernelT) emitSidecar(p *sidecarPlan) string {
	k := kt.k
	kt.rep = report.Kernel{Name: k.Name + ".vlds", SourceEntry: k.EntryAddr, Fidelity: report.Exact}
	kt.body = &place.Body{Name: k.Name + ".vlds", Map: map[uint64]int{sidecarEntry: 0}, Entry: sidecarEntry, Words: kt.pair.Words()}
	kt.lastPool, kt.islandsGrew = 0, false
	// kt.ordinal is not reset: a sidecar re-emission recomputes every
	// instruction (reusing the first emission's code changed the fmha_v4
	// f4f4 sidecar so that it read outside its backing store, found by
	// rocjitsu verify).
	arch, _ := kt.archVGPRs()
	kt.needArch = arch
	p.lowered = 0
	p.dma, p.redo = p.dma[:0], false
	sc := kt.scope
	if len(sc.Errors) > 0 || len(sc.Blocks) == 0 {
		return "the scope has decode or control-flow errors"
	}
	kt.live = live.Analyze(kt.g, sc, kt.rawUses)
	// Reserve the base pair: no scratch pair of a rule or long branch may
	// take it (the analysis sees it as never read).
	for _, l := range sc.Blocks {
		for _, in := range kt.g.Blocks[l].Insts {
			if a := kt.live.After(in.PC); a != nil && !p.spill {
				a.S.Add(int(p.base), 2)
			}
		}
	}
	if p.host != nil {
		return kt.emitHostSidecar(p)
	}
	pro, err := vlds.Prologue(p.prologue)
	if err != nil {
		return err.Error()
	}
	if p.spill {
		// The persistent slots come first in the private memory after the
		// guest's; transient spill slots follow them.
		kt.spillBase = p.slots.Save + 8
		kt.spillSlots = max(kt.spillSlots, 1)
		kt.taken = regSet{}
		kt.take(spillPrologueVGPR)
		st, err := vlds.StoreBase(p.base, p.prologue.Temps[0], spillPrologueVGPR, p.slots)
		if err != nil {
			return err.Error()
		}
		pro = append(pro, st...)
		kt.rep.Notes = appendOnce(kt.rep.Notes, fmt.Sprintf("spill-per-use: virtual_lds_base in private memory at %d, an SGPR pair borrowed and restored around each lowered access", p.slots.Base))
	}
	code := append([]byte(nil), pro...)
	if sc.Blocks[0] != k.EntryAddr || k.Descriptor.Get(kd.KERNARG_PRELOAD_SPEC_LENGTH) != 0 {
		// The prologue jumps to the entry block when it is not the
		// scope's lowest block.
		kt.body.Fixups = append(kt.body.Fixups, place.Fixup{Kind: place.Branch, Op: place.OpBranch, Off: len(code), Size: 4, Target: k.EntryAddr, Src: k.EntryAddr})
		code = window(code, 4)
	}
	if k.Descriptor.Get(kd.KERNARG_PRELOAD_SPEC_LENGTH) != 0 {
		// Kernarg preload: a second hardware entry 256 bytes later runs
		// the same prologue and continues at the source preload entry;
		// the placer puts entry stubs for both.
		kt.body.Preload = sidecarEntry + 256
		kt.body.Map[sidecarEntry+256] = len(code)
		code = append(code, pro...)
		kt.body.Fixups = append(kt.body.Fixups, place.Fixup{Kind: place.Branch, Op: place.OpBranch, Off: len(code), Size: 4, Target: k.EntryAddr + 256, Src: k.EntryAddr + 256})
		code = window(code, 4)
	}
	return kt.emitSidecarBlocks(code, p)
}

// emitSidecarBlocks appends the sidecar code of every block of the scope to
// code (the prologue already in it) and finishes the emission.
func (kt *kernelT) emitSidecarBlocks(code []byte, p *sidecarPlan) string {
	for _, l := range kt.scope.Blocks {
		b := kt.g.Blocks[l]
		for i, in := range b.Insts {
			code = kt.pool(code, b, i)
			kt.body.Map[in.PC] = len(code)
			kt.rep.Instructions++
			kt.rep.SourceBytes += int(in.Size)
			last := i == len(b.Insts)-1
			if p.host == nil {
				// A block is entered with nothing known in flight and left
				// with no lowered load in flight (its successors do not
				// know which registers it would have pending); a register
				// a load may still write is never left to reuse.
				if i == 0 {
					p.vm = vmInFlight{any: true}
					p.addr = cachedAddr{}
					p.dma = p.dma[:0] // the previous block flushed
				}
				branch := last && in.Info != nil && in.Info.Branch != isa.BranchNone
				if p.vm.clobberable(kt.live.After(in.PC), p.defers) || branch && p.vm.loads {
					code = p.vm.wait(code)
				}
				if branch || in.Info == nil {
					code = p.flushDMA(code)
					code = p.vm.flushHazard(code)
				}
			}
			var why string
			code, why = kt.sidecarOne(code, b, i, in, p)
			if why != "" {
				return fmt.Sprintf("%#x %s: %s", in.PC, in.Name(), why)
			}
			if p.host == nil && last {
				code = p.flushDMA(code)
				if p.vm.loads {
					code = p.vm.wait(code)
				}
				code = p.vm.flushHazard(code)
			}
		}
	}
	if p.redo {
		p.redo = false
		return kt.emitSidecar(p) // deferred DMA stores met code the lowering does not inspect
	}
	kt.body.Code = kt.appendShared(code)
	return kt.finishSidecar(p)
}

// finishSidecar ends an emission of a sidecar body: a re-emission when an
// island pool grew, and the verdict.
func (kt *kernelT) finishSidecar(p *sidecarPlan) string {
	k := kt.k
	if kt.islandsGrew {
		return kt.emitSidecar(p) // the pools emitted before a new island target lack its stub
	}
	if kt.rep.Fidelity == report.Rejected {
		r := kt.rep.Rejections[0]
		return fmt.Sprintf("%#x %s: %s", r.Offset, r.Mnemonic, r.Reason)
	}
	if _, ok := kt.body.Map[k.EntryAddr]; !ok {
		return "the kernel entry is not in the scope"
	}
	return ""
}

// sidecarOne emits one source instruction of a sidecar.
func (kt *kernelT) sidecarOne(code []byte, b *cfg.Block, i int, in *isa.Inst, p *sidecarPlan) ([]byte, string) {
	raw := kt.raw(in)
	w0 := uint32(0)
	if len(raw) >= 4 {
		w0 = binary.LittleEndian.Uint32(raw)
	}
	d, known := vlds.Lookup(w0)
	if p.host == nil && in.Info != nil && in.Info.Branch == isa.BranchNone && vlds.IsDS(w0) && len(raw) == 8 && known && d.Kind != vlds.Unsupported {
		kt.cur = in
		kt.taken = regSet{}
		if d.Name != in.Name() {
			return code, fmt.Sprintf("guest DS opcode decodes as %s, the lowering table names %s", in.Name(), d.Name)
		}
		kt.borrowed = kt.borrowed[:0]
		kt.reserveCached(p)
		ctx := sidecarCtx{kt, p}
		out, err := kt.lowerWith(func() ([]byte, error) {
			return kt.vldsAccess(p, raw, func(b uint16) ([]byte, error) { return vlds.Lower(ctx, raw, b) })
		})
		if err != nil {
			return code, err.Error()
		}
		code = p.flushDMA(code)
		if out, err = kt.track(p, out, d.Kind != vlds.Native); err != nil {
			return code, err.Error()
		}
		if d.Kind != vlds.Native {
			p.lowered++
			kt.tally(report.Kind{Mnemonic: in.Name(), Action: report.Expand, Rule: "virtual-lds", Fidelity: report.Exact, Count: 1})
		} else {
			kt.tally(report.Kind{Mnemonic: in.Name(), Action: report.Identity, Fidelity: report.Exact, Count: 1})
		}
		return append(code, out...), ""
	}
	// Everything else (including guest-only DS forms such as the
	// transposed reads, which a rule expands into host DS code) goes
	// through the normal emitter; its host code is then lowered.
	if p.host == nil && p.flushAt[in.PC] {
		code = p.flushDMA(code)
	}
	at := len(code)
	nfx := len(kt.body.Fixups)
	code = kt.one(code, b, i, in)
	if len(kt.body.Fixups) != nfx {
		if p.host == nil && len(p.dma) > 0 {
			if p.flushAt == nil {
				p.flushAt = map[uint64]bool{}
			}
			p.flushAt[in.PC], p.redo = true, true
		}
		// Control flow, PC-relative windows and subroutine calls carry
		// no LDS access (nor a wait, a barrier or the end of the
		// program); deferred DMA stores must be issued before them
		// (flushAt).
		p.addr = cachedAddr{}
		return code, ""
	}
	seg := append([]byte(nil), code[at:]...)
	var low []byte
	changed := false
	for off := 0; off < len(seg); {
		hin, err := kt.hostDecode(seg[off:], 0)
		if err != nil || hin.Size == 0 || off+int(hin.Size) > len(seg) {
			return code, fmt.Sprintf("host code of the translation does not decode at +%d", off)
		}
		h := seg[off : off+int(hin.Size)]
		hw0 := binary.LittleEndian.Uint32(h)
		if p.host != nil {
			if !p.host.TouchesLDS(h) {
				low = append(low, h...)
				off += int(hin.Size)
				continue
			}
			out, err := kt.lowerWith(func() ([]byte, error) {
				return kt.vldsAccess(p, h, func(b uint16) ([]byte, error) {
					out, lowered, err := p.host.LowerLDS(kt, h, b)
					if err == nil && !lowered {
						err = fmt.Errorf("host %s touches LDS but was not lowered", hin.Name())
					}
					return out, err
				})
			})
			if err != nil {
				return code, err.Error()
			}
			p.lowered++
			changed = true
			low = append(low, out...)
			off += int(hin.Size)
			continue
		}
		switch {
		case vlds.IsDS(hw0) && len(h) == 8:
			kt.reserveCached(p)
			ctx := sidecarCtx{kt, p}
			out, err := kt.lowerWith(func() ([]byte, error) {
				return kt.vldsAccess(p, h, func(b uint16) ([]byte, error) { return vlds.Lower(ctx, h, b) })
			})
			if err != nil {
				return code, err.Error()
			}
			d, _ := vlds.Lookup(hw0)
			low = p.flushDMA(low)
			if out, err = kt.track(p, out, d.Kind != vlds.Native); err != nil {
				return code, err.Error()
			}
			if d.Kind != vlds.Native {
				p.lowered++
				changed = true
			}
			low = append(low, out...)
		case vlds.IsLDSDMA(hw0) && len(h) == 8:
			kt.reserveCached(p)
			out, err := kt.lowerWith(func() ([]byte, error) {
				return kt.vldsAccess(p, h, func(b uint16) ([]byte, error) { return vlds.LowerLDSDMA(sidecarCtx{kt, p}, h, b) })
			})
			if err != nil {
				return code, err.Error()
			}
			if out, err = kt.track(p, out, true); err != nil {
				return code, err.Error()
			}
			p.lowered++
			changed = true
			low = append(low, out...)
		case vlds.TouchesLDS(hw0) || (hin.Mod.LDS && hin.Format == isa.MUBUF):
			return code, fmt.Sprintf("host %s accesses LDS and has no virtual-LDS lowering", hin.Name())
		default:
			if len(p.dma) > 0 && !p.keepsDMA(&hin) {
				low = p.flushDMA(low)
			}
			t, err := kt.track(p, h, false)
			if err != nil {
				return code, err.Error()
			}
			low = append(low, t...)
		}
		off += int(hin.Size)
	}
	if changed {
		kt.tally(report.Kind{Mnemonic: in.Name(), Action: report.Expand, Rule: "virtual-lds", Fidelity: report.Exact, Count: 1})
	}
	return append(code[:at], low...), ""
}

// lowerWith runs one lowering, which may ask kt for scratch VGPRs. Live
// registers the allocator lends it are saved to per-lane private slots
// around the lowered code, in slots after those the enclosing expansion's
// own borrowed registers occupy (kt.borrowed when called), so nested saves
// never overwrite an outer one.
func (kt *kernelT) lowerWith(lower func() ([]byte, error)) ([]byte, error) {
	outer := len(kt.borrowed)
	out, err := lower()
	if err != nil {
		return nil, err
	}
	mine := append([]uint16(nil), kt.borrowed[outer:]...)
	kt.borrowed = kt.borrowed[:outer]
	if len(mine) == 0 {
		return out, nil
	}
	if kt.spillBase == 0 {
		kt.spillBase = (kt.k.Descriptor.PrivateSegmentFixedSize + 3) &^ 3
	}
	if _, ok := kt.pair.(pair.VirtualLDS); ok {
		pre, post, ok := kt.pair.Spill(kt.spillBase+uint32(4*outer), mine)
		if !ok {
			return nil, fmt.Errorf("needs %d borrowed VGPRs and host %s has no spill path", len(mine), kt.host)
		}
		kt.spillSlots = max(kt.spillSlots, outer+len(mine))
		kt.rep.Notes = appendOnce(kt.rep.Notes, "scratch VGPRs borrowed from live registers and saved to per-lane private memory")
		return append(append(pre, out...), post...), nil
	}
	var pre, post []byte
	for i, r := range mine {
		off := kt.spillBase + uint32(4*(outer+i))
		if off > 4095 {
			return nil, fmt.Errorf("private spill slot at %d is beyond the 13-bit scratch offset", off)
		}
		// scratch_store_dword off, v[r], off offset:off
		pre = binary.LittleEndian.AppendUint32(pre, 0xdc704000|off&0x1fff)
		pre = binary.LittleEndian.AppendUint32(pre, 0x007f0000|uint32(r)<<8)
		// scratch_load_dword v[r], off, off offset:off
		post = binary.LittleEndian.AppendUint32(post, 0xdc504000|off&0x1fff)
		post = binary.LittleEndian.AppendUint32(post, 0x007f0000|uint32(r)<<24)
	}
	pre = binary.LittleEndian.AppendUint32(pre, 0xbf800001)   // s_nop 1
	post = binary.LittleEndian.AppendUint32(post, 0xbf8c0f70) // s_waitcnt vmcnt(0)
	kt.spillSlots = max(kt.spillSlots, outer+len(mine))
	kt.rep.Notes = appendOnce(kt.rep.Notes, "scratch VGPRs borrowed from live registers and saved to per-lane private memory")
	return append(append(pre, out...), post...), nil
}

// sidecarDescriptor returns the sidecar's descriptor: the normal host
// descriptor with no hardware LDS, the kernarg wrapper's size and the
// SGPR allocation grown for virtual_lds_base.
func (kt *kernelT) sidecarDescriptor(p *sidecarPlan) (kd.Descriptor, error) {
	d, err := kt.descriptor()
	if err != nil {
		return d, err
	}
	d.GroupSegmentFixedSize = 0
	d.KernargSize = p.prologue.Wrapper.Size
	if p.host != nil {
		if err := p.host.SidecarSGPRs(&d, p.top); err != nil {
			return d, err
		}
		return d, d.Check(kt.hostProc)
	}
	// The backing store is coherent for a workgroup's waves through the
	// CU's L1 (workgroup-scope accesses); keep them on one CU.
	if d.Flag(kd.RSRC3_TG_SPLIT) {
		if err := d.Set(kd.RSRC3_TG_SPLIT, 0); err != nil {
			return d, err
		}
	}
	need := p.top + 6 // VCC, FLAT_SCRATCH, XNACK_MASK
	if need > d.NextFreeSGPR() {
		if err := d.Set(kd.RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT, kd.SGPRGranules(kt.hostProc, need)); err != nil {
			return d, fmt.Errorf("SGPR count %d: %w", need, err)
		}
	}
	if err := d.Check(kt.hostProc); err != nil {
		return d, err
	}
	return d, nil
}

// spillPrologueVGPR is the VGPR the spill-per-use prologue stores the base
// through: not one the hardware initialises (v0-v2 hold work-item IDs), so
// undefined at the entry.
const spillPrologueVGPR = 3

// vldsAccess lowers the host LDS access h with virtual_lds_base in an SGPR
// pair: the plan's permanent pair, or in spill-per-use mode a pair that h
// does not name, borrowed for the access (its guest value saved to and
// restored from private memory through a scratch VGPR).
func (kt *kernelT) vldsAccess(p *sidecarPlan, h []byte, lower func(base uint16) ([]byte, error)) ([]byte, error) {
	if !p.spill {
		return lower(p.base)
	}
	hin, err := kt.hostDecode(h, 0)
	if err != nil {
		return nil, fmt.Errorf("spill-per-use: host access does not decode: %w", err)
	}
	named := func(r int) bool {
		for _, o := range hin.Operands {
			if o.Kind == isa.KindReg && o.Class == isa.SGPR && r >= int(o.Reg) && r < int(o.Reg)+int(max(o.Width, 1)) {
				return true
			}
		}
		return false
	}
	borrow := -1
	for r := 0; r+1 < 102; r += 2 {
		if !named(r) && !named(r+1) {
			borrow = r
			break
		}
	}
	if borrow < 0 {
		return nil, errors.New("spill-per-use: the access names every SGPR pair")
	}
	tmp, err := kt.TempVGPRs(1)
	if err != nil {
		return nil, fmt.Errorf("spill-per-use: %w", err)
	}
	access, err := lower(uint16(borrow))
	if err != nil {
		return nil, err
	}
	if p.host != nil {
		return p.host.SpillAround(access, uint16(borrow), tmp[0], p.slots)
	}
	return vlds.AroundAccess(access, uint16(borrow), tmp[0], p.slots)
}

// emitHostSidecar is emitSidecar for a pair with pair.VirtualLDS: the
// pair's sidecar prologue, the pair's own entry prologue (the guest's
// initial state), then the scope emitted as the normal translation with
// every host LDS access lowered by the pair.
func (kt *kernelT) emitHostSidecar(p *sidecarPlan) string {
	k := kt.k
	pro, err := p.host.SidecarPrologue(p.prologue)
	if err != nil {
		return err.Error()
	}
	kt.countNamed()
	arch0, agprs0 := kt.archVGPRs()
	entry, err := kt.pair.Prologue(pair.Plan{Kernel: k, GuestProc: kt.f.Processor, Arch: arch0, AGPRs: agprs0,
		NamedArch: kt.namedArch, NamedAGPRs: kt.namedAGPRs, AGPRBase: kt.agprBase()})
	if err != nil {
		return err.Error()
	}
	if p.spill {
		kt.spillBase = p.slots.Save + 8
		kt.spillSlots = max(kt.spillSlots, 1)
		kt.taken = regSet{}
		kt.take(spillPrologueVGPR)
		st, err := p.host.SpillStoreBase(p.base, p.prologue.Temps[0], spillPrologueVGPR, p.slots)
		if err != nil {
			return err.Error()
		}
		pro = append(pro, st...)
		kt.rep.Notes = appendOnce(kt.rep.Notes, fmt.Sprintf("spill-per-use: virtual_lds_base in private memory at %d, an SGPR pair borrowed and restored around each lowered access", p.slots.Base))
	}
	code := append(append([]byte(nil), pro...), entry...)
	if kt.scope.Blocks[0] != k.EntryAddr {
		kt.body.Fixups = append(kt.body.Fixups, place.Fixup{Kind: place.Branch, Op: place.OpBranch, Off: len(code), Size: 4, Target: k.EntryAddr, Src: k.EntryAddr})
		code = window(code, 4)
	}
	return kt.emitSidecarBlocks(code, p)
}
