// Package dbt is rocjitsu's binary translator: it turns an AMDGPU code
// object for a guest ISA (gfx950) into a loadable code object for a host ISA
// (gfx942, or gfx1201/gfx1200 in wave64), one kernel scope at a time,
// following the DBT specification:
// descriptor plans, the source CFG with call edges and recovered indirect
// transfers (dbt/cfg), kernel scopes with shared helpers duplicated,
// per-scope emission in source order with a legalization decision per
// instruction (dbt/legalize, dbt/rules), placement and branch repair
// (dbt/place), resource feedback into the descriptors and an all-or-nothing
// commit through the loader's patcher. Every run also produces a fidelity
// report (dbt/report). What is specific to a guest -> host pair (decisions,
// renames, rules, descriptor, entry prologue, host words) is behind
// dbt/pair's interface, one package per pair (dbt/pair/gfx950_gfx942,
// dbt/pair/gfx950_gfx12).
//
// The translator fails closed: an instruction with no proven rule rejects
// its kernel, and a rejected kernel rejects the object (nothing is
// committed); the report lists every rejection with its address and reason.
//
//	res, err := dbt.Translate(guest, dbt.Options{Host: isa.GFX942})
//	if err != nil { ... res.Report says why ... }
//	os.WriteFile(out, res.Object, 0o644)
package dbt

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/cfg"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/dbt/place"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/loader/kd"
	"github.com/rocjitsu/rocjitsu/loader/metadata"
	"github.com/rocjitsu/rocjitsu/loader/target"
)

// Options configure a translation.
type Options struct {
	// Host is the target to translate for: gfx942 (the default), gfx1201
	// or gfx1200.
	Host isa.Target
	// Name labels the input in the report (for example its file name).
	Name string
	// Diff asks for Result.Changes.
	Diff bool
	// noReuse makes a re-emission recompute every instruction (tests).
	noReuse bool
	// noDecisionCache asks the pair for every decision and form again
	// (tests compare both paths).
	noDecisionCache bool
	// forceSpill makes every scratch-register request borrow live
	// registers through private memory (tests of the spill path).
	forceSpill bool
	// forceShared calls a rule's shared subroutine even from a key's only
	// use; noShared inlines every expansion (tests).
	forceShared, noShared bool
	// noAGPRRename keeps the guest's AGPRs (renameAGPRs; tests of the
	// AGPR paths).
	noAGPRRename bool
	// sharedReach, when set, places subroutine bodies in the code with
	// this call reach in bytes (tests).
	sharedReach int
	// Workers bounds the goroutines that emit the kernels of one object
	// in parallel (0: GOMAXPROCS; 1: one after another). The output does
	// not depend on it.
	Workers int
	// Stats asks for per-kernel static instruction counts by class, guest
	// and host, in the report (Kernel.Static); it decodes the host code
	// once more.
	Stats bool
	// HostLDS is the host's LDS bytes per workgroup (default 65536);
	// kernels whose static LDS exceeds it are reported as needing a
	// virtual-LDS sidecar.
	HostLDS uint32
	// NoPCMap leaves Result.PCMap nil, saving its construction for callers
	// that do not use it (rocjitsu translate). The object and the report
	// do not depend on it.
	NoPCMap bool
}

// Result is a translation's output.
type Result struct {
	// Object is the translated code object (nil when rejected).
	Object []byte
	// Report is the fidelity report.
	Report report.Object
	// Changes lists the instructions whose host code differs from the
	// guest bytes (only with Options.Diff).
	Changes []Change
	// PCMap maps host code addresses to guest instructions (nil when the
	// object was rejected or is its own translation).
	PCMap *PCMap
}

// ErrRejected is wrapped by the error Translate returns when one or more
// kernels have no faithful translation.
var ErrRejected = errors.New("dbt: translation rejected")

// Translate translates a guest code object. On rejection it returns the
// report (with every rejection) and an error wrapping ErrRejected.
func Translate(guest []byte, opt Options) (*Result, error) {
	if opt.Host == 0 {
		opt.Host = isa.GFX942
	}
	if opt.HostLDS == 0 {
		opt.HostLDS = 65536
	}
	res := &Result{Report: report.Object{Name: opt.Name, Host: opt.Host.String()}}
	rep := &res.Report
	fail := func(err error) (*Result, error) {
		rep.Error = err.Error()
		rep.Finish()
		return res, err
	}
	f, err := loader.Parse(guest)
	if err != nil {
		return fail(fmt.Errorf("dbt: %w", err))
	}
	gt, err := isa.TargetFromMach(uint32(f.Flags.Mach))
	if err != nil {
		return fail(fmt.Errorf("dbt: guest e_flags machine %#x: %w", uint32(f.Flags.Mach), err))
	}
	rep.Guest = gt.String()
	pr, err := pairFor(gt, opt.Host)
	if err != nil {
		return fail(err)
	}
	hostProc := pr.HostProcessor()
	ts := f.Section(".text")
	if ts == nil || ts.Data == nil {
		return fail(errors.New("dbt: no .text section"))
	}
	rep.SourceText = len(ts.Data)
	text := cfg.Text{Addr: ts.Addr, Data: ts.Data}
	kernels := f.Kernels()
	if len(kernels) == 0 {
		return fail(errors.New("dbt: no kernel descriptors"))
	}
	// 1. Descriptor plans: roots (and preload entries).
	var roots []cfg.Root
	for i, k := range kernels {
		if k.Descriptor.WavefrontSize(f.Processor) != 64 {
			return fail(fmt.Errorf("dbt: kernel %s is wave%d; only wave64 guests are translated (the wave size is kept)", k.Name, k.Descriptor.WavefrontSize(f.Processor)))
		}
		roots = append(roots, cfg.Root{Kernel: i, Addr: k.EntryAddr})
		if k.Descriptor.Get(kd.KERNARG_PRELOAD_SPEC_LENGTH) != 0 {
			roots = append(roots, cfg.Root{Kernel: i, Addr: k.EntryAddr + 256, Preload: true})
		}
	}
	// 2. Source CFG.
	g, err := cfg.Build(text, roots, func(code []byte, pc uint64) (isa.Inst, error) {
		return gfx9.Decode(code, pc, gt)
	}, cfg.Options{DecodeInto: func(dst *isa.Inst, code []byte, pc uint64) error {
		return gfx9.DecodeInto(dst, code, pc, gt)
	}, DecodeWindow: func(in *isa.Inst) int { return gfx9.DecodeWindow(in, gt) }})
	if err != nil {
		return fail(fmt.Errorf("dbt: %w", err))
	}
	// Nothing the result holds points into the graph: its chunks go to
	// the next object's decode.
	defer g.Release()
	hostDecode := pr.HostDecode
	var agprBase int
	var renamed bool
	if !opt.noAGPRRename {
		agprBase, renamed = renameAGPRs(g, kernels, f.Processor, gt, opt.Host)
	}
	// 3-4. Scopes, emitted one at a time.
	kts := make([]*kernelT, len(kernels))
	rejected := 0
	for i := range kernels {
		kt := &kernelT{
			idx: i, k: &kernels[i], f: f, g: g, guest: gt, host: opt.Host,
			hostDecode: hostDecode, long: map[uint64]bool{}, hostProc: hostProc, pair: pr, hostLDS: opt.HostLDS, forceSpill: opt.forceSpill, noReuse: opt.noReuse, noDecisionCache: opt.noDecisionCache, forceShared: opt.forceShared, noShared: opt.noShared, sharedReach: opt.sharedReach,
			agprBase0: agprBase, renamed: renamed,
		}
		kts[i] = kt
		kt.scope = g.Scope(i)
	}
	// Layout copies the bodies and the result keeps none of the
	// kernels' buffers: they go to the next object's emission.
	defer releaseEmitBuffers(kts)
	emitAll(kts, opt.Workers)
	for _, kt := range kts {
		if kt.rep.Fidelity == report.Rejected {
			rejected++
		}
	}
	// 5. Place and repair; re-emit scopes whose branches went out of range.
	var newText []byte
	var placed []place.Placed
	for attempt := 0; ; attempt++ {
		if rejected > 0 {
			break
		}
		bodies := make([]*place.Body, len(kts))
		for i, kt := range kts {
			bodies[i] = kt.body
		}
		newText, placed, err = place.Layout(text.Addr, len(text.Data), bodies)
		var oor *place.OutOfRange
		if errors.As(err, &oor) && attempt < 8 {
			for _, kt := range kts {
				if kt.body.Name != oor.Body {
					continue
				}
				grew := false
				for _, src := range oor.Srcs {
					if !kt.long[src] {
						kt.long[src] = true
						grew = true
					}
				}
				if !grew {
					return fail(fmt.Errorf("dbt: %w", err))
				}
				kt.emit()
				if kt.rep.Fidelity == report.Rejected {
					rejected++
				}
			}
			continue
		}
		if err != nil {
			return fail(fmt.Errorf("dbt: %w", err))
		}
		break
	}
	for _, kt := range kts {
		rep.Kernels = append(rep.Kernels, kt.rep)
	}
	if rejected > 0 && gt == opt.Host {
		// Same ISA: what could not be relocated need not move at all; the
		// object is its own translation.
		for i := range rep.Kernels {
			k := &rep.Kernels[i]
			k.Notes = append(k.Notes, fmt.Sprintf("same ISA: kept in place (%d instructions could not be relocated)", len(k.Rejections)))
			k.Rejections, k.Fidelity = nil, report.Exact
			k.Kinds = nil
		}
		res.Object = append([]byte(nil), guest...)
		rep.Committed = true
		rep.HostText = len(text.Data)
		rep.Finish()
		return res, nil
	}
	if rejected > 0 {
		var names []string
		for _, kt := range kts {
			if kt.rep.Fidelity == report.Rejected {
				names = append(names, kt.k.Name)
			}
		}
		sort.Strings(names)
		rep.Finish()
		return res, fmt.Errorf("%w: %d of %d kernels have no faithful translation (%s)", ErrRejected, rejected, len(kts), strings.Join(names, ", "))
	}
	keepDeadCode(newText, text, kts, placed, hostDecode, gt == opt.Host)
	// 6. Resource feedback and 7. commit.
	spec := loader.PatchSpec{Text: newText, Descriptors: map[string]kd.Descriptor{}, Mach: hostProc.Mach}
	// Source address -> host address, the first kernel's where scopes
	// share code, each kernel's entry before its body.
	var srcs, hosts []uint64
	if n := len(kts); n > 0 {
		m := n
		for _, kt := range kts {
			m += kt.body.Mapped()
		}
		// The address lists serve the commit only (spec.TextMap): their
		// buffers go back for the next object's.
		srcs, hosts = freeAddrs.Take(m), freeAddrs.Take(m)
		defer func() { freeAddrs.Give([][]uint64{srcs, hosts}, false) }()
	}
	pairs := make([][]pcOff, len(kts)) // each kernel's bodyPairs, for the PCMap
	for i, kt := range kts {
		p := placed[i]
		rep.Kernels[i].HostEntry = p.Entry
		rep.Kernels[i].HostBytes = len(kt.body.Code)
		rep.Kernels[i].LongBranches = p.Long
		rep.Kernels[i].IslandHops = p.IslandHops
		if opt.Stats {
			at := p.Base - text.Addr
			rep.Kernels[i].Static = kt.staticCost(newText[at:at+uint64(len(kt.body.Code))], p.Base)
		}
		srcs, hosts = append(srcs, kt.k.EntryAddr), append(hosts, p.Entry)
		pairs[i] = kt.bodyPairs()
		for _, x := range pairs[i] {
			srcs, hosts = append(srcs, x.Src), append(hosts, p.Base+uint64(x.Off))
		}
		d, err := kt.descriptor()
		if err != nil {
			return fail(fmt.Errorf("dbt: kernel %s: %w", kt.k.Name, err))
		}
		rep.Kernels[i].After = kt.resources(d)
		rep.Kernels[i].Notes = kt.rep.Notes
		spec.Descriptors[kt.k.Symbol] = d
	}
	sortPairs(srcs, hosts)
	spec.TextMap = place.TextMapSorted(text.Addr, srcs, hosts, uint64(len(newText)))
	var pm *PCMap
	if !opt.NoPCMap {
		n := 0
		for _, kt := range kts {
			n += kt.body.Mapped()
		}
		pm = &PCMap{ranges: make([]pcRange, 0, n)}
		for i, kt := range kts {
			pm.add(pairs[i], len(kt.body.Code), placed[i].Base)
		}
		pm.sort()
		res.PCMap = pm
	}
	if md, err := grownMetadata(f, kts, spec.Descriptors, hostProc); err != nil {
		return fail(fmt.Errorf("dbt: %w", err))
	} else if md != nil {
		spec.Metadata = md
	}
	if opt.Diff {
		bases := make([]uint64, len(placed))
		for i, p := range placed {
			bases[i] = p.Base
		}
		res.Changes = changes(kts, newText, text.Addr, bases, pr)
	}
	nf, err := loader.Patch(f, spec)
	if err != nil {
		return fail(fmt.Errorf("dbt: commit: %w", err))
	}
	// s_getpc_b64-relative data after .text moved with .text's growth:
	// re-bias those literals to the data's new address and commit again
	// (the text keeps its size, so the layout does not change).
	if moved, err := rebiasData(f, nf, newText, text.Addr, kts, placed); err != nil {
		return fail(fmt.Errorf("dbt: %w", err))
	} else if moved {
		spec.Text = newText
		if nf, err = loader.Patch(f, spec); err != nil {
			return fail(fmt.Errorf("dbt: commit: %w", err))
		}
	}
	if ts := nf.Section(".text"); pm != nil && ts != nil && ts.Addr != text.Addr {
		// The commit moved .text (the headers grew): host addresses
		// move with it.
		pm.shift(ts.Addr - text.Addr)
	}
	res.Object = nf.Raw()
	rep.Committed = true
	rep.HostText = len(newText)
	rep.Finish()
	return res, nil
}

// keepDeadCode copies the source bytes that no scope reached (padding,
// unreachable code) into the same addresses of the new text when the layout
// did not move anything (every body sits at its source address with its
// source bytes) and the bytes are host code: the guest is the host, or they
// decode as host instructions that tile the range exactly. Otherwise those
// ranges stay NOP-filled.
func keepDeadCode(newText []byte, text cfg.Text, kts []*kernelT, placed []place.Placed, hostDecode func([]byte, uint64) (isa.Inst, error), sameISA bool) {
	covered := make([]bool, len(newText)/4)
	for i, kt := range kts {
		lo := kt.scopeStart()
		if placed[i].Stub || placed[i].Base != lo {
			return
		}
		off := lo - text.Addr
		end := off + uint64(len(kt.body.Code))
		if end > uint64(len(text.Data)) || end > uint64(len(newText)) || !bytes.Equal(newText[off:end], text.Data[off:end]) {
			return
		}
		for j := off / 4; j < (off+uint64(len(kt.body.Code)))/4; j++ {
			covered[j] = true
		}
	}
	n := min(len(newText), len(text.Data)) / 4
	for j := 0; j < n; {
		if covered[j] {
			j++
			continue
		}
		k := j
		for k < n && !covered[k] {
			k++
		}
		seg := text.Data[4*j : 4*k]
		if sameISA || tiles(seg, text.Addr+uint64(4*j), hostDecode) {
			copy(newText[4*j:4*k], seg)
		}
		j = k
	}
}

// tiles reports whether seg decodes for the host as whole instructions.
func tiles(seg []byte, pc uint64, hostDecode func([]byte, uint64) (isa.Inst, error)) bool {
	for off := 0; off < len(seg); {
		in, err := hostDecode(seg[off:], pc+uint64(off))
		if err != nil || in.Size == 0 || off+int(in.Size) > len(seg) {
			return false
		}
		off += int(in.Size)
	}
	return true
}

// rebiasData rewrites the literals of every s_getpc_b64-relative data
// reference whose target section moved between the source object f and the
// committed object nf. It reports whether anything changed.
func rebiasData(f, nf *loader.File, newText []byte, textAddr uint64, kts []*kernelT, placed []place.Placed) (bool, error) {
	moved := false
	for i, kt := range kts {
		for _, fx := range kt.body.Fixups {
			if fx.Kind != place.PCRel || !fx.Data || kt.g.Text.Contains(fx.Target) || fx.Target < textAddr {
				continue
			}
			idx := -1
			for j, s := range f.Sections {
				if s.Alloc() && fx.Target >= s.Addr && fx.Target <= s.Addr+s.Size && s.Addr >= textAddr {
					idx = j
					break
				}
			}
			if idx < 0 || idx >= len(nf.Sections) || nf.Sections[idx].Name != f.Sections[idx].Name {
				return false, fmt.Errorf("kernel %s: s_getpc_b64 at %#x computes %#x, which is in no section after .text", kt.k.Name, fx.Src, fx.Target)
			}
			to := nf.Sections[idx].Addr + (fx.Target - f.Sections[idx].Addr)
			if to == fx.Target {
				continue
			}
			moved = true
			hostPC := placed[i].Base + uint64(fx.Off) + 4
			d := to - hostPC
			at := placed[i].Base - textAddr
			binary.LittleEndian.PutUint32(newText[at+uint64(fx.LoLit):], uint32(d))
			binary.LittleEndian.PutUint32(newText[at+uint64(fx.HiLit):], uint32(d>>32))
		}
	}
	return moved, nil
}

// grownMetadata returns the metadata note with the host target and the
// per-kernel VGPR count and private segment size of every descriptor that
// grew, or nil when nothing grew (the patcher then only rewrites the
// target). Runtimes size dispatches from these fields.
func grownMetadata(f *loader.File, kts []*kernelT, ds map[string]kd.Descriptor, host target.Processor) (*metadata.Metadata, error) {
	if f.MetadataNote == nil {
		return nil, nil
	}
	grew := false
	unified := false
	for _, kt := range kts {
		d := ds[kt.k.Symbol]
		if d.PrivateSegmentFixedSize != kt.k.Descriptor.PrivateSegmentFixedSize || d.NextFreeVGPR(host) != kt.k.Descriptor.NextFreeVGPR(kt.f.Processor) {
			grew = true
		}
		if kt.pair != nil && kt.pair.UnifiedVGPRs() {
			unified = true
		}
	}
	grew = grew || unified
	if !grew {
		return nil, nil
	}
	// f.Metadata is the decode of f.MetadataNote.Desc (loader.Parse):
	// a clone is the same value without decoding the note again.
	md := f.Metadata.Clone()
	if md == nil {
		var err error
		if md, err = metadata.Decode(f.MetadataNote.Desc); err != nil {
			return nil, fmt.Errorf("metadata: %w", err)
		}
	}
	if md.Target != "" {
		md.Target = strings.Replace(md.Target, f.Processor.Name, host.Name, 1)
	}
	for i := range md.Kernels {
		mk := &md.Kernels[i]
		for _, kt := range kts {
			if kt.k.Name != mk.Name {
				continue
			}
			d := ds[kt.k.Symbol]
			if uint64(d.PrivateSegmentFixedSize) > mk.PrivateSegmentFixedSize {
				mk.PrivateSegmentFixedSize = uint64(d.PrivateSegmentFixedSize)
				mk.MarkPresent(".private_segment_fixed_size")
			}
			arch, _ := kt.archVGPRs()
			if kt.needArch > arch && uint64(kt.needArch) > mk.VGPRCount {
				mk.VGPRCount = uint64(kt.needArch)
				mk.MarkPresent(".vgpr_count")
			}
			if unified {
				// The host has no AGPRs: they are VGPRs now, and the
				// workgroup runs in CU mode.
				mk.VGPRCount = uint64(max(arch, kt.needArch))
				mk.AGPRCount = 0
				mk.WorkgroupProcessorMode = 0
				mk.MarkPresent(".vgpr_count", ".agpr_count", ".workgroup_processor_mode")
			}
		}
	}
	return md, nil
}

// sortPairs sorts srcs ascending, hosts with them, keeping the order of
// equal sources (the first counts in place.TextMapSorted).
func sortPairs(srcs, hosts []uint64) {
	if slices.IsSorted(srcs) {
		return
	}
	idx := make([]int, len(srcs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(srcs[a], srcs[b]) })
	s, h := slices.Clone(srcs), slices.Clone(hosts)
	for i, j := range idx {
		srcs[i], hosts[i] = s[j], h[j]
	}
}
