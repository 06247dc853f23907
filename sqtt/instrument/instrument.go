// Package instrument inserts SQTT markers into an existing AMDGPU code
// object (gfx942, gfx950, gfx1200, gfx1201) after the fact, the same-ISA
// counterpart of the seed's compile-time pass: barrier points, memory-op
// group points, function enter/exit for callees, natural loops and named
// regions as scopes, optional scope filters (s_getreg of HW_ID, or
// HW_ID1/HW_ID2 on gfx12) and gfx12 shader-clock packing, with the
// .sqtt_funcmap section the decoders read.
//
// The code is rebuilt with the translator's machinery: the source CFG and
// kernel scopes of dbt/cfg, register liveness of dbt/live, and dbt/place's
// layout and branch repair (every branch, call and s_getpc_b64-relative
// address becomes a fixup that placement re-resolves, long windows when a
// branch no longer reaches), then the loader's patcher commits the grown
// .text, moves symbols and descriptor entries, and appends the section.
//
// A marker sequence preserves the wave's state: M0 and SCC are saved in
// dead SGPRs and restored when they are live, temporaries are SGPRs no
// later instruction reads, no wait counter is touched (markers are scalar
// and issue no memory operation). Anything the pass cannot prove safe
// rejects the object with the reason (fail closed).
//
//	res, err := instrument.Instrument(obj, instrument.Options{Barriers: true})
//	os.WriteFile(out, res.Object, 0o644)
package instrument

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/cfg"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/dbt/live"
	"github.com/rocjitsu/rocjitsu/dbt/place"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/loader/kd"
	"github.com/rocjitsu/rocjitsu/sqtt"
)

// Result is an instrumented object and what was done to it.
type Result struct {
	// Object is the instrumented code object.
	Object []byte
	// Funcmap is the .sqtt_funcmap section's bytes.
	Funcmap []byte
	// Target is the object's ISA.
	Target isa.Target
	// Sites lists every marker sequence, in kernel and address order.
	Sites []Site
	// Stats sums the sequences.
	Stats Stats
	// Notes explains what was skipped (loops, small functions).
	Notes []string
}

// Site is one inserted marker sequence.
type Site struct {
	// Kernel is the kernel whose body holds the sequence.
	Kernel string
	// PC is the source address of the instruction it precedes (or, with
	// After, follows).
	PC    uint64
	After bool
	// Values are the marker words the sequence writes, in order.
	Values []uint32
	// Words is the number of instructions the sequence adds (a
	// readlane loop counts once).
	Words int
	// Payload is the number of raw records that follow the headers of
	// address-trace blocks per execution.
	Payload int
}

// Stats are static overhead figures.
type Stats struct {
	// Markers counts marker words written (s_ttracedata or _imm); Imm the
	// ones using s_ttracedata_imm.
	Markers, Imm int
	// AddedInsts counts inserted instructions (marker sequences and the
	// per-kernel scope check).
	AddedInsts int
	// SourceText and Text are the .text sizes before and after.
	SourceText, Text int
	// SourceBytes are the bytes of the instructions the kernels reach and
	// BodyBytes the bytes of their instrumented bodies (helpers shared by
	// kernels count once per kernel in both).
	SourceBytes, BodyBytes int
}

// ErrRejected is wrapped by every error that refuses an object.
var ErrRejected = errors.New("instrument: rejected")

func reject(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRejected, fmt.Sprintf(format, args...))
}

// object is the state of one instrumentation.
type object struct {
	f      *loader.File
	g      *cfg.Graph
	t      isa.Target
	w      *words
	opt    *Options
	reg    *registry
	packed bool
	// waveSize is the W: row (0: no address trace).
	waveSize int
}

func (o *object) funcName(a uint64) string {
	if s, ok := o.f.SymbolAt(a); ok && s.Value == a && s.Name != "" {
		return s.Name
	}
	return fmt.Sprintf("func_%#x", a)
}

// kplan is one kernel's plan and body.
type kplan struct {
	o        *object
	opt      *Options
	reg      *registry
	k        *loader.Kernel
	sc       *cfg.Scope
	roots    []uint64
	inScope  map[uint64]bool
	live     *live.Info
	sp       *specialLive
	sites    map[uint64]*site
	backEdge map[uint64]uint64
	// tramps are the marker sequences of taken branch edges;
	// trampOrder lists each branch's edge targets in planning order.
	tramps     map[edge][]mark
	trampOrder map[uint64][]uint64
	flag       int
	limit      int
	long       map[uint64]bool
	body       *place.Body
	notes      []string
	out        []Site
	added      int
	entryCode  []byte
	// extra counts the SGPR granules added to the descriptor (gfx9).
	extra int
}

func (k *kplan) inScopeInst(pc uint64) bool {
	in, ok := k.o.g.Inst(pc)
	if !ok {
		return false
	}
	for _, a := range k.sc.Blocks {
		b := k.o.g.Blocks[a]
		if pc >= b.Start && pc < b.End {
			return in != nil
		}
	}
	return false
}

// Instrument inserts the markers opt asks for into the code object obj.
func Instrument(obj []byte, opt Options) (*Result, error) {
	if opt.ShaderClockBits > 0 {
		if opt.ShaderClockBits > 29 || opt.ShaderClockShift > 32 || opt.ShaderClockBits > 32-opt.ShaderClockShift {
			return nil, fmt.Errorf("instrument: shader clock bits %d shift %d: want bits <= 29 and bits+shift <= 32", opt.ShaderClockBits, opt.ShaderClockShift)
		}
	}
	if opt.Addresses != 0 && opt.Memory.N > 0 {
		return nil, errors.New("instrument: address tracing and memory markers are mutually exclusive (address traces already mark every memory op)")
	}
	if opt.Addresses != 0 && opt.ShaderClockBits > 0 {
		return nil, errors.New("instrument: address traces carry payload records, which need shader-clock packing off")
	}
	f, err := loader.Parse(obj)
	if err != nil {
		return nil, fmt.Errorf("instrument: %w", err)
	}
	t, err := isa.TargetFromMach(uint32(f.Flags.Mach))
	if err != nil {
		return nil, fmt.Errorf("instrument: e_flags machine %#x: %w", uint32(f.Flags.Mach), err)
	}
	if f.Section(sqtt.SectionName) != nil {
		return nil, reject("the object already has a %s section", sqtt.SectionName)
	}
	if opt.ShaderClockBits > 0 && isa.GFX9.Has(t) {
		return nil, fmt.Errorf("instrument: shader-clock packing is for gfx1200/gfx1201, not %s", t)
	}
	ts := f.Section(".text")
	if ts == nil || ts.Data == nil {
		return nil, reject("no .text section")
	}
	kernels := f.Kernels()
	if len(kernels) == 0 {
		return nil, reject("no kernel descriptors")
	}
	o := &object{f: f, t: t, w: wordsFor(t), opt: &opt, reg: newRegistry(), packed: opt.ShaderClockBits > 0}
	decode := func(code []byte, pc uint64) (isa.Inst, error) {
		if isa.GFX9.Has(t) {
			return gfx9.Decode(code, pc, t)
		}
		return gfx12.Decode(code, pc, t)
	}
	var roots []cfg.Root
	for i, k := range kernels {
		roots = append(roots, cfg.Root{Kernel: i, Addr: k.EntryAddr})
		if k.Descriptor.Get(kd.KERNARG_PRELOAD_SPEC_LENGTH) != 0 {
			roots = append(roots, cfg.Root{Kernel: i, Addr: k.EntryAddr + 256, Preload: true})
		}
	}
	text := cfg.Text{Addr: ts.Addr, Data: ts.Data}
	o.g, err = cfg.Build(text, roots, decode, cfg.Options{})
	if err != nil {
		return nil, fmt.Errorf("instrument: %w", err)
	}
	// Callees of the whole object.
	fns := map[uint64]*function{}
	if opt.Functions.N > 0 || opt.Functions.Cost {
		for _, a := range o.g.Order {
			for _, c := range o.g.Blocks[a].Calls {
				if _, ok := fns[c.Callee]; !ok && o.g.Blocks[c.Callee] != nil {
					fns[c.Callee] = callee(o.g, c.Callee, opt.Functions.Cost)
				}
			}
		}
	}
	kps := make([]*kplan, len(kernels))
	res := &Result{Target: t}
	for i := range kernels {
		k := &kernels[i]
		sc := o.g.Scope(i)
		for a, why := range sc.Errors {
			return nil, reject("kernel %s: %#x: %s", k.Name, a, why)
		}
		if len(sc.Blocks) == 0 {
			return nil, reject("kernel %s: entry does not decode", k.Name)
		}
		kp := &kplan{o: o, opt: &opt, reg: o.reg, k: k, sc: sc, inScope: map[uint64]bool{}, sites: map[uint64]*site{},
			backEdge: map[uint64]uint64{}, tramps: map[edge][]mark{}, trampOrder: map[uint64][]uint64{}, flag: -1, long: map[uint64]bool{}}
		for _, a := range sc.Blocks {
			kp.inScope[a] = true
		}
		kp.roots = sc.Roots
		kp.live = live.Analyze(o.g, sc, nil)
		kp.sp = analyzeSpecial(o.g, sc)
		kp.limit = 106
		if isa.GFX9.Has(t) {
			kp.limit = min(k.Descriptor.NextFreeSGPR()-6, 102)
		}
		if len(fns) > 0 {
			kp.planFunctions(fns)
		}
		if opt.Loops {
			kp.planLoops()
		}
		for _, a := range sc.Blocks {
			b := o.g.Blocks[a]
			if opt.Barriers {
				kp.planBarriers(b)
			}
			if opt.Memory.N > 0 {
				kp.planMemory(b, opt.Memory)
			}
			if opt.Addresses != 0 {
				lanes := k.Descriptor.WavefrontSize(f.Processor)
				if o.waveSize != 0 && o.waveSize != lanes {
					return nil, reject("kernels of wave%d and wave%d in one object: the funcmap has one W: row", o.waveSize, lanes)
				}
				n := len(o.reg.list)
				if err := kp.planAddresses(b.Insts, lanes); err != nil {
					return nil, err
				}
				if len(o.reg.list) > n {
					o.waveSize = lanes
				}
			}
		}
		if err := kp.planRegions(); err != nil {
			return nil, reject("%v", err)
		}
		kps[i] = kp
	}
	o.reg.assign()
	for _, kp := range kps {
		if err := kp.prepareScope(); err != nil {
			return nil, err
		}
		if err := kp.emit(); err != nil {
			return nil, err
		}
	}
	newText, placed, err := layout(text, kps)
	if err != nil {
		return nil, err
	}
	fm, err := o.funcmap(kernels)
	if err != nil {
		return nil, err
	}
	spec := loader.PatchSpec{Text: newText, Sections: []loader.NewSection{{Name: sqtt.SectionName, Type: 1, Align: 1, Data: fm}},
		Descriptors: map[string]kd.Descriptor{}, SyncMetadata: true}
	for _, kp := range kps {
		if kp.extra == 0 {
			continue
		}
		d := kp.k.Descriptor
		if err := d.Set(kd.RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT, kd.SGPRGranules(f.Processor, d.NextFreeSGPR()+8*kp.extra)); err != nil {
			return nil, fmt.Errorf("instrument: kernel %s: %w", kp.k.Name, err)
		}
		spec.Descriptors[kp.k.Symbol] = d
	}
	hostAt := map[uint64]uint64{}
	for i, kp := range kps {
		p := placed[i]
		if _, dup := hostAt[kp.k.EntryAddr]; !dup {
			hostAt[kp.k.EntryAddr] = p.Entry
		}
		addrs := make([]uint64, 0, len(kp.body.Map))
		for a := range kp.body.Map {
			addrs = append(addrs, a)
		}
		sort.Slice(addrs, func(a, b int) bool { return addrs[a] < addrs[b] })
		for _, a := range addrs {
			if _, dup := hostAt[a]; !dup {
				hostAt[a] = p.Base + uint64(kp.body.Map[a])
			}
		}
	}
	spec.TextMap = place.TextMap(text.Addr, hostAt, uint64(len(newText)))
	nf, err := loader.Patch(f, spec)
	if err != nil {
		return nil, fmt.Errorf("instrument: commit: %w", err)
	}
	if moved, err := rebiasData(f, nf, newText, text, kps, placed); err != nil {
		return nil, err
	} else if moved {
		spec.Text = newText
		if nf, err = loader.Patch(f, spec); err != nil {
			return nil, fmt.Errorf("instrument: commit: %w", err)
		}
	}
	res.Object = nf.Raw()
	res.Funcmap = fm
	for _, kp := range kps {
		res.Sites = append(res.Sites, kp.out...)
		res.Notes = append(res.Notes, kp.notes...)
		res.Stats.AddedInsts += kp.added
		res.Stats.BodyBytes += len(kp.body.Code)
		for _, a := range kp.sc.Blocks {
			b := o.g.Blocks[a]
			res.Stats.SourceBytes += int(b.End - b.Start)
		}
	}
	for _, s := range res.Sites {
		res.Stats.Markers += len(s.Values)
		for _, v := range s.Values {
			if o.useImm(v) {
				res.Stats.Imm++
			}
		}
	}
	res.Stats.SourceText, res.Stats.Text = len(text.Data), len(newText)
	return res, nil
}

// useImm reports whether marker word v is written with s_ttracedata_imm.
func (o *object) useImm(v uint32) bool { return o.w.hasImm && !o.packed && v <= 0xff }

// rowName checks that a row's payload reads back unchanged: rows end at a
// newline or NUL and lose trailing CR, space and tab, and the parser
// splits the source location off at the first '@' (scope rows may carry
// one, "name@loc"; a kernel name may not contain '@').
func rowName(what, payload string, withLoc bool) error {
	name, _, hasLoc := strings.Cut(payload, "@")
	if name == "" || (hasLoc && !withLoc) || strings.ContainsAny(payload, "\n\x00") || strings.TrimRight(payload, "\r \t") != payload {
		return reject("%s name %q cannot be written in a .sqtt_funcmap row (empty, newline, NUL, '@' or trailing whitespace)", what, payload)
	}
	return nil
}

// funcmap renders the .sqtt_funcmap section; it rejects names a row
// cannot hold.
func (o *object) funcmap(kernels []loader.Kernel) ([]byte, error) {
	var b strings.Builder
	for _, k := range kernels {
		if err := rowName("kernel", k.Name, false); err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "K:%s\n", k.Name)
	}
	for _, e := range o.reg.list {
		if err := rowName("scope", e.name, true); err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "%c:%d:%s\n", byte(e.kind), e.id, e.name)
	}
	if o.waveSize != 0 {
		fmt.Fprintf(&b, "W:%d\n", o.waveSize)
	}
	for _, e := range o.reg.list {
		if e.payload > 0 {
			fmt.Fprintf(&b, "R:%d:extra_payload_count=%d\n", e.id, e.payload)
		}
	}
	if o.packed {
		fmt.Fprintf(&b, "M:shader_clock_bits=%d;shader_clock_shift=%d\n", o.opt.ShaderClockBits, o.opt.ShaderClockShift)
	}
	return append([]byte(b.String()), 0), nil
}

// layout places the bodies, re-emitting those whose branches went out of
// range with long windows.
func layout(text cfg.Text, kps []*kplan) ([]byte, []place.Placed, error) {
	for attempt := 0; ; attempt++ {
		bodies := make([]*place.Body, len(kps))
		for i, kp := range kps {
			bodies[i] = kp.body
		}
		nt, placed, err := place.Layout(text.Addr, len(text.Data), bodies)
		var oor *place.OutOfRange
		if errors.As(err, &oor) && attempt < 8 {
			for _, kp := range kps {
				if kp.body.Name != oor.Body {
					continue
				}
				grew := false
				for _, src := range oor.Srcs {
					if !kp.long[src] {
						kp.long[src], grew = true, true
					}
				}
				if !grew {
					return nil, nil, reject("%v", err)
				}
				if err := kp.emit(); err != nil {
					return nil, nil, err
				}
			}
			continue
		}
		if err != nil {
			return nil, nil, reject("%v", err)
		}
		return nt, placed, nil
	}
}

// rebiasData rewrites the literals of s_getpc_b64-relative references to
// data after .text, which moved when .text grew.
func rebiasData(f, nf *loader.File, newText []byte, text cfg.Text, kps []*kplan, placed []place.Placed) (bool, error) {
	moved := false
	for i, kp := range kps {
		for _, fx := range kp.body.Fixups {
			if fx.Kind != place.PCRel || !fx.Data || text.Contains(fx.Target) || fx.Target < text.Addr {
				continue
			}
			idx := -1
			for j, s := range f.Sections {
				if s.Alloc() && fx.Target >= s.Addr && fx.Target <= s.Addr+s.Size && s.Addr >= text.Addr {
					idx = j
					break
				}
			}
			if idx < 0 || idx >= len(nf.Sections) || nf.Sections[idx].Name != f.Sections[idx].Name {
				return false, reject("kernel %s: s_getpc_b64 at %#x computes %#x, which is in no section after .text", kp.k.Name, fx.Src, fx.Target)
			}
			to := nf.Sections[idx].Addr + (fx.Target - f.Sections[idx].Addr)
			if to == fx.Target {
				continue
			}
			moved = true
			d := to - (placed[i].Base + uint64(fx.Off) + 4)
			at := placed[i].Base - text.Addr
			binary.LittleEndian.PutUint32(newText[at+uint64(fx.LoLit):], uint32(d))
			binary.LittleEndian.PutUint32(newText[at+uint64(fx.HiLit):], uint32(d>>32))
		}
	}
	return moved, nil
}
