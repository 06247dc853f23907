package dbt

import (
	"encoding/binary"
	"errors"
	"fmt"
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
}

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
			var why string
			code, why = kt.sidecarOne(code, b, i, in, p)
			if why != "" {
				return fmt.Sprintf("%#x %s: %s", in.PC, in.Name(), why)
			}
		}
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
		out, err := kt.lowerWith(func() ([]byte, error) {
			return kt.vldsAccess(p, raw, func(b uint16) ([]byte, error) { return vlds.Lower(kt, raw, b) })
		})
		if err != nil {
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
	at := len(code)
	nfx := len(kt.body.Fixups)
	code = kt.one(code, b, i, in)
	if len(kt.body.Fixups) != nfx {
		// Control flow and PC-relative windows carry no LDS access.
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
			out, err := kt.lowerWith(func() ([]byte, error) {
				return kt.vldsAccess(p, h, func(b uint16) ([]byte, error) { return vlds.Lower(kt, h, b) })
			})
			if err != nil {
				return code, err.Error()
			}
			if d, _ := vlds.Lookup(hw0); d.Kind != vlds.Native {
				p.lowered++
				changed = true
			}
			low = append(low, out...)
		case vlds.IsLDSDMA(hw0) && len(h) == 8:
			out, err := kt.lowerWith(func() ([]byte, error) {
				return kt.vldsAccess(p, h, func(b uint16) ([]byte, error) { return vlds.LowerLDSDMA(kt, h, b) })
			})
			if err != nil {
				return code, err.Error()
			}
			p.lowered++
			changed = true
			low = append(low, out...)
		case vlds.TouchesLDS(hw0) || (hin.Mod.LDS && hin.Format == isa.MUBUF):
			return code, fmt.Sprintf("host %s accesses LDS and has no virtual-LDS lowering", hin.Name())
		default:
			low = append(low, h...)
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
