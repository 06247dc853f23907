package dbt

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/cfg"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/legalize"
	"github.com/rocjitsu/rocjitsu/dbt/live"
	"github.com/rocjitsu/rocjitsu/dbt/mfma"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/dbt/place"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/loader/kd"
	"github.com/rocjitsu/rocjitsu/loader/target"
)

// prologueSrc is the source address that names an entry prologue's
// branch in placement errors (no guest instruction lives there).
const prologueSrc = uint64(1)<<63 | 1

// kernelT is the translation state of one kernel scope.
type kernelT struct {
	// agprBase0 is the first arch VGPR the guest's AGPRs were renamed
	// to (renameAGPRs) when renamed is set.
	agprBase0  int
	renamed    bool
	idx        int
	k          *loader.Kernel
	f          *loader.File
	g          *cfg.Graph
	scope      *cfg.Scope
	guest      host
	host       isa.Target
	hostProc   target.Processor
	hostDecode legalize.DecodeFunc
	// pair is the guest -> host pair: decisions, host descriptor,
	// prologue, spills.
	pair    pair.Pair
	hostLDS uint32
	// long marks source branches that need a long window.
	long map[uint64]bool

	live *live.Info
	// pairCache is the pair's per-scope cache (pair.Site.Memo).
	pairCache map[string]any
	body      *place.Body
	rep       report.Kernel
	cur       *isa.Inst
	// taken holds the scratch VGPRs handed out for the current
	// instruction.
	taken regSet
	// needArch is the number of arch VGPRs the translation needs
	// (at least the original count).
	needArch int
	// flat is true when the scope has FLAT memory instructions; indexed
	// when it addresses VGPRs through M0 or the GPR-index mode.
	flat, indexed bool
	// namedArch and namedAGPRs are one past the highest arch VGPR and
	// AGPR the guest scope names (0 when it names none).
	namedArch, namedAGPRs int
	// borrowed lists live VGPRs the current instruction's rule borrows;
	// they are saved to per-lane private memory around the expansion.
	borrowed []uint16
	// spillSlots is the most slots any expansion borrowed; spillBase is
	// the private-segment offset of slot 0.
	spillSlots int
	spillBase  uint32
	// forceSpill makes every scratch request borrow (tests).
	forceSpill bool
	// forceSpillPerUse puts a sidecar in spill-per-use mode (tests).
	forceSpillPerUse bool
	// islandTargets are the source targets of branches routed through
	// branch islands (every pool has a stub for each, in this order);
	// islandsGrew asks for one more emission after a target was added,
	// and lastPool is the body offset where the last pool ended.
	islandTargets []uint64
	islandsGrew   bool
	lastPool      int
	// liveScope is the scope live was computed for.
	liveScope *cfg.Scope
	// The re-emission memo: memoOK has bit i set when the scope's i-th
	// instruction (in emission order) had its host code computed once as
	// a non-control instruction (identity or inline expansion). That code
	// is in the last emission's: memoCode from memoAt[i].Off to the next
	// instruction's offset (less the island pool placed before it,
	// memoPools) or, for the last, to memoEnd. memoNotes holds, for
	// the instructions that added report notes, the notes (in
	// memoNoteText); memoNeedArch is the most arch VGPRs any of them
	// needed. Nothing here holds a pointer per instruction.
	memoOK       []uint64
	memoAt       []pcOff
	memoPools    []place.Island
	memoCode     []byte
	memoEnd      int
	memoNotes    map[int][2]int
	memoNoteText []string
	memoNeedArch int
	// memoPool is the index in memoPools of the first pool not before
	// the instruction being emitted.
	memoPool int
	// codeEnd is the length of the code before the subroutine bodies
	// (the next emission's memoEnd).
	codeEnd int
	// lastLen is the length of the last emission's code.
	lastLen int
	// emitted lists emittedFor's Map entries in emission order.
	emitted    []pcOff
	emittedFor *place.Body
	// noReuse disables memo (tests compare both paths).
	noReuse bool
	// noDecisionCache disables decided (tests compare both paths).
	noDecisionCache bool
	// selfSet caches selfUses for the instruction selfFor: the VGPRs
	// (host numbering, 0-511) it names.
	selfFor *isa.Inst
	selfSet [8]uint64
	// shared holds the scope's subroutine plans and calls (shared.go);
	// forceShared calls a body even from a key's only use, noShared never
	// calls one (tests).
	shared *sharedState
	// tallies remembers where each kind is in rep.Kinds (tally).
	tallies map[tallyKey]int
	// decisionTallies is the same by operation, rule and action.
	decisionTallies map[decisionKey]int
	// identityTallies is decisionTallies for identity decisions without
	// a rule (most instructions), by operation only: a pointer key hashes
	// faster than the three-field one.
	identityTallies map[*isa.OpInfo]int
	// decided caches the pair's decisions for the scope (decide.go).
	decided decisions
	// legal is the pass-through cache of the pair's decisions while emit
	// runs (nil otherwise).
	legal                 *legalize.Cache
	forceShared, noShared bool
	// sharedReach, when set, places the bodies in the code with this
	// call reach (tests).
	sharedReach int
	// sidecar marks the translation of a virtual-LDS sidecar.
	sidecar bool
	// needAGPRs is the number of AGPRs the translation uses (subroutine
	// saves) in a kernel whose guest has none.
	needAGPRs int
	// operands is the chunk keepOperands copies into.
	operands []isa.Operand
	// namedFor is the scope countNamed last counted.
	namedFor *cfg.Scope
}

// islandSpacing is the most body bytes between two island pools: half a
// SOPP branch's reach, so every route hop has room for the code and the
// pool between.
const islandSpacing = 64 << 10

// pool inserts an island pool before instruction i of b when the scope
// routes branches through islands and the last pool is islandSpacing
// bytes back; never between an s_getpc_b64 and the s_add_u32/s_addc_u32
// that follow it.
func (kt *kernelT) pool(code []byte, b *cfg.Block, i int) []byte {
	if len(kt.islandTargets) == 0 || len(code)-kt.lastPool < islandSpacing {
		return code
	}
	for j := max(0, i-2); j < i; j++ {
		if b.Insts[j].Name() == "s_getpc_b64" {
			return code
		}
	}
	kt.body.Islands = append(kt.body.Islands, place.Island{Off: len(code), Targets: append([]uint64(nil), kt.islandTargets...)})
	code = window(code, place.IslandSize(len(kt.islandTargets)))
	kt.lastPool = len(code)
	return code
}

// islandBranch routes fx (a branch whose long window has no scratch
// pair) through the scope's island pools.
func (kt *kernelT) islandBranch(fx place.Fixup) place.Fixup {
	fx.Island, fx.Size = true, 4
	i := sort.Search(len(kt.islandTargets), func(i int) bool { return kt.islandTargets[i] >= fx.Target })
	if i == len(kt.islandTargets) || kt.islandTargets[i] != fx.Target {
		kt.islandTargets = append(kt.islandTargets[:i], append([]uint64{fx.Target}, kt.islandTargets[i:]...)...)
		kt.islandsGrew = true
	}
	kt.rep.IslandBranches++
	return fx
}

// host is an alias kept for readability of the guest field's type.
type host = isa.Target

// archVGPRs returns the descriptor's arch VGPR count and AGPR count.
func (kt *kernelT) archVGPRs() (arch, agprs int) {
	d := &kt.k.Descriptor
	total := d.NextFreeVGPR(kt.f.Processor)
	acc := d.AccumOffset()
	if kt.pair != nil && kt.pair.UnifiedVGPRs() {
		// AGPRs are host VGPRs from agprBase up: the guest's registers are
		// the arch ones it names and the mapped AGPRs.
		if kt.namedAGPRs == 0 || kt.indexed {
			return max(min(total, 256), kt.namedArch, kt.agprBase()+kt.namedAGPRs), 0
		}
		return max(kt.namedArch, kt.agprBase()+kt.namedAGPRs), 0
	}
	if acc >= total {
		return min(total, 256), 0
	}
	arch, agprs = min(acc, 256), total-acc
	// The unified register file is allocated as a whole: a guest that
	// names no AGPRs may use arch VGPRs at and above ACCUM_OFFSET. Those
	// registers are the guest's and never scratch.
	if kt.namedArch > arch {
		arch = kt.namedArch
		agprs = max(0, total-arch)
	}
	return arch, agprs
}

// countNamed records the highest arch VGPR and AGPR the scope names
// (once per scope: a re-emission finds the same).
func (kt *kernelT) countNamed() {
	if kt.namedFor == kt.scope {
		return
	}
	kt.namedFor = kt.scope
	for _, a := range kt.scope.Blocks {
		b := kt.g.Blocks[a]
		if b == nil {
			continue
		}
		for _, in := range b.Insts {
			if in.Info != nil && in.Info.Mem == isa.MemFlat {
				kt.flat = true
			}
			if n := in.Name(); strings.HasPrefix(n, "v_movrel") || strings.HasPrefix(n, "s_set_gpr_idx") {
				kt.indexed = true
			}
			for _, o := range in.Operands {
				if o.Kind != isa.KindReg {
					continue
				}
				end := int(o.Reg) + int(o.Width)
				switch o.Class {
				case isa.VGPR:
					kt.namedArch = max(kt.namedArch, end)
				case isa.AGPR:
					kt.namedAGPRs = max(kt.namedAGPRs, end)
				}
			}
		}
	}
}

func (kt *kernelT) resources(d kd.Descriptor) report.Resources {
	return report.Resources{
		VGPRs:          d.NextFreeVGPR(kt.hostProc),
		SGPRs:          d.NextFreeSGPR(),
		PrivateSegment: d.PrivateSegmentFixedSize,
		GroupSegment:   d.GroupSegmentFixedSize,
	}
}

// emit translates the scope into kt.body, filling kt.rep.
func (kt *kernelT) emit() {
	if kt.legal == nil {
		// The emission's decisions share one pass-through cache.
		kt.legal = legalize.AcquireCache()
		defer func() {
			kt.legal.Release()
			kt.legal = nil
		}()
	}
	kt.emitScope()
}

// emitScope is emit with kt.legal held.
func (kt *kernelT) emitScope() {
	k := kt.k
	kt.rep = report.Kernel{Name: k.Name, SourceEntry: k.EntryAddr, Fidelity: report.Exact}
	kt.rep.Before = kt.resources(k.Descriptor)
	kt.rep.Before.VGPRs = k.Descriptor.NextFreeVGPR(kt.f.Processor)
	if kt.body != nil && kt.emittedFor == kt.body {
		kt.memoCode, kt.memoAt, kt.memoPools, kt.memoEnd = kt.body.Code, kt.emitted, kt.body.Islands, kt.codeEnd
	} else {
		kt.memoCode, kt.memoAt, kt.memoPools, kt.memoEnd = nil, nil, nil, 0
	}
	kt.memoPool = 0
	kt.body = &place.Body{Name: k.Name, Entry: k.EntryAddr, Words: kt.pair.Words(), Fixups: freeFixups.Take(16)}
	// The body's offsets (emitted becomes Body.Offsets: a new list per
	// emission).
	kt.emitted, kt.emittedFor = freeOffsets.Take(kt.scopeInsts()), kt.body
	kt.lastPool, kt.islandsGrew = 0, false
	if k.Descriptor.Get(kd.KERNARG_PRELOAD_SPEC_LENGTH) != 0 {
		kt.body.Preload = k.EntryAddr + 256
	}
	if kt.renamed {
		kt.rep.Notes = append(kt.rep.Notes, agprNote(kt.agprBase0))
	}
	kt.countNamed()
	arch, _ := kt.archVGPRs()
	kt.needArch = arch
	if k.Descriptor.GroupSegmentFixedSize > kt.hostLDS {
		kt.rep.NeedsVirtualLDS = true
		kt.rep.Notes = append(kt.rep.Notes, fmt.Sprintf("static LDS %d bytes exceeds the host's %d: the normal body is produced; running it needs a virtual-LDS sidecar", k.Descriptor.GroupSegmentFixedSize, kt.hostLDS))
	}
	sc := kt.scope
	for a, why := range sc.Errors {
		kt.rep.Reject(report.Rejection{Offset: a, Mnemonic: kt.nameAt(a), Reason: why})
	}
	if len(sc.Blocks) == 0 {
		kt.rep.Reject(report.Rejection{Offset: k.EntryAddr, Reason: "entry does not decode"})
		return
	}
	if kt.live == nil || kt.liveScope != sc {
		// Liveness depends on the scope only: a re-emission (long
		// branches) reuses it.
		kt.live, kt.liveScope = live.Analyze(kt.g, sc, kt.rawUses), sc
	}
	// A re-emission (long branches) needs about what the last one made.
	code := freeCode.Take(max(4*kt.scopeBytes(), kt.lastLen+kt.lastLen/8) + 256)
	arch0, agprs0 := kt.archVGPRs()
	pro, err := kt.pair.Prologue(pair.Plan{Kernel: k, GuestProc: kt.f.Processor, Arch: arch0, AGPRs: agprs0,
		NamedArch: kt.namedArch, NamedAGPRs: kt.namedAGPRs, AGPRBase: kt.agprBase()})
	if err != nil {
		kt.rep.Reject(report.Rejection{Offset: k.EntryAddr, Reason: err.Error()})
		return
	}
	if pro != nil {
		code = append(code, pro...)
		kt.body.Prologue = true
		kt.body.Preload = 0 // the host has one entry; the guest's entry+256 is an ordinary block
		if sc.Blocks[0] != k.EntryAddr {
			// Blocks are emitted in source order and the entry is not the
			// first one (a helper or another kernel's code sits below it):
			// the prologue branches to it.
			kt.addFixup(place.Fixup{Kind: place.Branch, Op: place.OpBranch, Off: len(code), Size: 4, Target: k.EntryAddr, Src: prologueSrc})
			code = window(code, 4)
		}
	}
	for _, l := range sc.Blocks {
		b := kt.g.Blocks[l]
		for i, in := range b.Insts {
			if cap(code)-len(code) < 1<<12 {
				// Double (append grows large slices by 1.25x: the big
				// expansions were copied a dozen times).
				code = slices.Grow(code, cap(code))
			}
			code = kt.pool(code, b, i)
			kt.emitted = append(kt.emitted, pcOff{Src: in.PC, Off: len(code)})
			kt.rep.Instructions++
			kt.rep.SourceBytes += int(in.Size)
			code = kt.one(code, b, i, in)
		}
	}
	kt.codeEnd = len(code)
	kt.body.Code = kt.appendShared(code)
	kt.lastLen = len(kt.body.Code)
	kt.setOffsets()
	if kt.islandsGrew {
		// A new island target: the pools emitted before it lack its stub.
		kt.emit()
		return
	}
	for _, ind := range kt.g.Indirect {
		if _, in := kt.body.Offset(ind.Addr); in && (ind.Kind == cfg.IndirectJump || ind.Kind == cfg.IndirectCall) {
			kt.rep.RecoveredIndirect++
		}
	}
}

// setOffsets gives the body its offsets from kt.emitted: the list itself
// when the sources ascend (scopes are emitted in source order), else a map
// of them (a later entry for a source replacing an earlier one).
func (kt *kernelT) setOffsets() {
	ascending := true
	for j := 1; j < len(kt.emitted) && ascending; j++ {
		ascending = kt.emitted[j-1].Src < kt.emitted[j].Src
	}
	if ascending {
		kt.body.Map, kt.body.Offsets = nil, kt.emitted
		return
	}
	kt.body.Map = make(map[uint64]int, len(kt.emitted))
	for _, x := range kt.emitted {
		kt.body.Map[x.Src] = x.Off
	}
}

func (kt *kernelT) nameAt(a uint64) string {
	if in, ok := kt.g.Inst(a); ok {
		return in.Name()
	}
	return ""
}

func (kt *kernelT) raw(in *isa.Inst) []byte {
	off := in.PC - kt.g.Text.Addr
	return kt.g.Text.Data[off : off+uint64(in.Size)]
}

func (kt *kernelT) reject(in *isa.Inst, why string) {
	kt.rep.Reject(report.Rejection{Offset: in.PC, Mnemonic: in.Name(), Reason: why})
	kt.tally(report.Kind{Mnemonic: in.Name(), Action: report.Reject, Fidelity: report.Rejected, Count: 1})
}

func (kt *kernelT) relocated(in *isa.Inst) {
	kt.tallyDecision(in, relocation)
}

// relocation is the decision relocated tallies.
var relocation = legalize.Decision{Action: report.Relocate, Fidelity: report.Exact}

// addFixup appends fx to the body's fixups (appendDoubling).
func (kt *kernelT) addFixup(fx place.Fixup) {
	kt.body.Fixups = appendDoubling(kt.body.Fixups, fx)
}

// appendDoubling is append that doubles s's capacity when it is full
// (append grows long slices by 1.25x: the lists a large scope builds one
// instruction at a time were copied a dozen times).
func appendDoubling[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		s = slices.Grow(s, max(16, len(s)))
	}
	return append(s, v)
}

// window appends a reserved window of n bytes of NOPs.
func window(code []byte, n int) []byte {
	for i := 0; i < n; i += 4 {
		code = binary.LittleEndian.AppendUint32(code, place.NopWord)
	}
	return code
}

// one emits one source instruction.
func (kt *kernelT) one(code []byte, b *cfg.Block, i int, in *isa.Inst) []byte {
	kt.cur = in
	kt.taken = regSet{}
	raw := kt.raw(in)
	switch in.Info.Branch {
	case isa.BranchJump, isa.BranchCond:
		t, ok := in.BranchTarget()
		if !ok {
			break
		}
		fx := place.Fixup{Kind: place.Branch, Op: uint8(in.Opcode), Off: len(code), Size: 4, Target: t, Src: in.PC}
		if !kt.pair.Words().HasBranch(fx.Op) {
			kt.reject(in, fmt.Sprintf("branch %s has no %s form", in.Name(), kt.host))
			return append(code, raw...)
		}
		if kt.long[in.PC] {
			pair, sccReg, save, why := kt.longPair(in, t)
			if why != "" {
				// No scratch pair (or no SCC save register) for a long
				// window: a branch goes through the island pools.
				kt.addFixup(kt.islandBranch(fx))
				kt.relocated(in)
				return window(code, 4)
			}
			fx.Long, fx.Pair, fx.SaveSCC, fx.SCCReg = true, pair, save, sccReg
			fx.Size = place.LongSize(fx.Op, save)
		}
		kt.addFixup(fx)
		kt.relocated(in)
		return window(code, fx.Size)
	case isa.BranchCall:
		if t, ok := in.BranchTarget(); ok { // s_call_b64
			rp, _ := retPair(in)
			fx := place.Fixup{Kind: place.Call, Off: len(code), Size: 4, Target: t, Pair: rp, Src: in.PC}
			if kt.long[in.PC] {
				via, sccReg, save, why := kt.longPair(in, t)
				if why != "" {
					kt.reject(in, why)
					return append(code, raw...)
				}
				fx.Long, fx.Via, fx.SaveSCC, fx.SCCReg, fx.Size = true, via, save, sccReg, place.LongSize(place.OpBranch, save)
			}
			kt.addFixup(fx)
			kt.relocated(in)
			return window(code, fx.Size)
		}
		ind := kt.g.Indirect[in.PC]
		if ind == nil || ind.Kind != cfg.IndirectCall || len(ind.Targets) != 1 {
			kt.reject(in, kt.indirectWhy(ind))
			return append(code, raw...)
		}
		if kt.canonicalBuilder(b, i, ind.Pair, ind.Targets[0]) {
			// The s_getpc_b64 fixup makes the pair hold the host target.
			kt.relocated(in)
			return kt.keep(code, in, raw)
		}
		fx := place.Fixup{Kind: place.Call, Off: len(code), Size: 4, Target: ind.Targets[0], Pair: ind.RetPair, Src: in.PC}
		if kt.long[in.PC] {
			// The consumer's own target pair carries the host target.
			save, sccReg := false, uint16(0)
			if !kt.sccDeadAt(ind.Targets[0]) {
				_, r, s, why := kt.longPair(in, ind.Targets[0])
				if why != "" {
					kt.reject(in, why)
					return append(code, raw...)
				}
				save, sccReg = s, r
			}
			fx.Long, fx.Via, fx.SaveSCC, fx.SCCReg, fx.Size = true, ind.Pair, save, sccReg, place.LongSize(place.OpBranch, save)
		}
		kt.addFixup(fx)
		kt.relocated(in)
		return window(code, fx.Size)
	case isa.BranchIndirect:
		ind := kt.g.Indirect[in.PC]
		switch {
		case ind != nil && ind.Kind == cfg.Return:
			kt.relocated(in)
			return kt.keep(code, in, raw)
		case ind != nil && ind.Kind == cfg.IndirectJump && len(ind.Targets) == 1 && kt.canonicalBuilder(b, i, ind.Pair, ind.Targets[0]):
			kt.relocated(in)
			return kt.keep(code, in, raw)
		case ind != nil && ind.Kind == cfg.IndirectJump && len(ind.Targets) == 1:
			kt.addFixup(place.Fixup{Kind: place.Branch, Op: place.OpBranch, Off: len(code), Size: 4, Target: ind.Targets[0], Src: in.PC})
			kt.relocated(in)
			return window(code, 4)
		}
		kt.reject(in, kt.indirectWhy(ind))
		return append(code, raw...)
	}
	if in.Name() == "s_getpc_b64" {
		return kt.getpc(code, b, i, in, raw)
	}
	// A re-emission (after placement asked for long branches) gives
	// every other instruction the same host code: reuse it. Not in a
	// sidecar: there the host code is lowered after this returns, and the
	// lowering must not take the scratch VGPRs (kt.taken) or private
	// slots (kt.borrowed) the expansion took, which a reuse does not
	// record.
	// The instruction's index in the emission (emitScope recorded it
	// last), when it is this emission's.
	idx := -1
	reuse := !kt.noReuse && !kt.sidecar && kt.emittedFor == kt.body
	if n := len(kt.emitted); reuse && n > 0 && kt.emitted[n-1].Src == in.PC && kt.emitted[n-1].Off == len(code) {
		idx = n - 1
	}
	if lo, hi, ok := kt.memoSpan(idx, in); ok {
		kt.needArch = max(kt.needArch, kt.memoNeedArch)
		kt.tallyDecision(in, kt.emitDecision(b, i))
		if r, ok := kt.memoNotes[idx]; ok {
			for _, n := range kt.memoNoteText[r[0]:r[1]] {
				kt.rep.Notes = appendOnce(kt.rep.Notes, n)
			}
		}
		return append(code, kt.memoCode[lo:hi]...)
	}
	notes0 := len(kt.rep.Notes)
	// remember records that out, which one appends to code, is the
	// instruction's host code (the next emission finds it in this one's
	// code by the instruction's offsets).
	remember := func(out []byte) {
		if idx < 0 {
			return
		}
		if kt.memoOK == nil {
			kt.memoOK = make([]uint64, (kt.scopeInsts()+63)/64)
		}
		if idx/64 >= len(kt.memoOK) {
			return
		}
		kt.memoOK[idx/64] |= 1 << (idx % 64)
		kt.memoNeedArch = max(kt.memoNeedArch, kt.needArch)
		if len(kt.rep.Notes) > notes0 {
			if kt.memoNotes == nil {
				kt.memoNotes = map[int][2]int{}
			}
			n0 := len(kt.memoNoteText)
			kt.memoNoteText = append(kt.memoNoteText, kt.rep.Notes[notes0:]...)
			kt.memoNotes[idx] = [2]int{n0, len(kt.memoNoteText)}
		}
	}
	d := kt.emitDecision(b, i)
	switch d.Action {
	case report.Identity, report.Substitute:
		kt.tallyDecision(in, d)
		remember(raw)
		return append(code, raw...)
	case report.Expand, report.Lower:
		if d.Rule.Shared != nil {
			if out, ok := kt.sharedSite(code, b, i, in, raw, d); ok {
				return out
			}
		}
		kt.borrowed = kt.borrowed[:0]
		out, err := d.Rule.Emit(kt, in, raw)
		if err != nil {
			kt.reject(in, fmt.Sprintf("rule %s: %v", d.Rule.Name, err))
			return append(code, raw...)
		}
		if len(kt.borrowed) > 0 {
			if out, err = kt.spillAround(out); err != nil {
				kt.reject(in, fmt.Sprintf("rule %s: %v", d.Rule.Name, err))
				return append(code, raw...)
			}
		}
		kt.tallyDecision(in, d)
		remember(out)
		return append(code, out...)
	}
	kt.reject(in, d.Reason)
	return append(code, raw...)
}

// canonicalBuilder reports whether, earlier in block b, a canonical
// s_getpc_b64 / s_add_u32 / s_addc_u32 sequence sets pair to target and no
// later instruction before index i writes the pair.
func (kt *kernelT) canonicalBuilder(b *cfg.Block, i int, pair uint16, target uint64) bool {
	for j := i - 1; j >= 0; j-- {
		x := b.Insts[j]
		if x.Name() == "s_getpc_b64" && len(x.Operands) > 0 && x.Operands[0].Class == isa.SGPR && x.Operands[0].Reg == pair {
			if j+2 >= i {
				return false
			}
			add, addc := b.Insts[j+1], b.Insts[j+2]
			if add.Name() != "s_add_u32" || addc.Name() != "s_addc_u32" || !add.HasLiteral || !addc.HasLiteral {
				return false
			}
			return x.PC+4+(uint64(addc.Literal)<<32|uint64(add.Literal)) == target && noPairWrites(b.Insts[j+3:i], pair)
		}
		for _, o := range x.Operands {
			if o.Kind == isa.KindReg && o.Role.Defines() && o.Class == isa.SGPR && int(o.Reg) <= int(pair)+1 && int(o.Reg)+int(o.Width) > int(pair) && x.Name() != "s_add_u32" && x.Name() != "s_addc_u32" {
				return false
			}
		}
	}
	return false
}

func noPairWrites(xs []*isa.Inst, pair uint16) bool {
	for _, x := range xs {
		for _, o := range x.Operands {
			if o.Kind == isa.KindReg && o.Role.Defines() && o.Class == isa.SGPR && int(o.Reg) <= int(pair)+1 && int(o.Reg)+int(o.Width) > int(pair) {
				return false
			}
		}
	}
	return true
}

func (kt *kernelT) indirectWhy(ind *cfg.Indirect) string {
	switch {
	case ind == nil:
		return "indirect transfer was not analysed"
	case ind.Kind == cfg.Unresolved:
		return "unrecovered indirect transfer: " + ind.Reason
	default:
		return fmt.Sprintf("indirect %s with %d recovered targets: multi-target consumers are not supported yet", ind.Kind, len(ind.Targets))
	}
}

func retPair(in *isa.Inst) (uint16, bool) {
	for _, o := range in.Operands {
		if o.Kind == isa.KindReg && o.Role.Defines() && o.Class == isa.SGPR {
			return o.Reg, true
		}
	}
	return 0, false
}

// getpc handles s_getpc_b64 followed by the canonical
// s_add_u32 sN, sN, lit / s_addc_u32 sN+1, sN+1, lit pair: the literals are
// re-biased after placement so the pair computes the same data address, or
// the translated address of the same code.
func (kt *kernelT) getpc(code []byte, b *cfg.Block, i int, in *isa.Inst, raw []byte) []byte {
	if len(in.Operands) < 1 || in.Operands[0].Class != isa.SGPR {
		kt.reject(in, "s_getpc_b64 without an SGPR destination")
		return append(code, raw...)
	}
	n := in.Operands[0].Reg
	if i+2 >= len(b.Insts) {
		kt.reject(in, "s_getpc_b64 whose result is not consumed by an s_add_u32/s_addc_u32 literal pair in the same block")
		return append(code, raw...)
	}
	lo, ok1 := cfg.PCLiteral(b.Insts[i+1], false, n)
	hi, ok2 := cfg.PCLiteral(b.Insts[i+2], true, n+1)
	if !ok1 || !ok2 {
		kt.reject(in, "s_getpc_b64 not followed by the canonical s_add_u32/s_addc_u32 literal pair: its PC-relative arithmetic cannot be re-biased")
		return append(code, raw...)
	}
	tgt := in.PC + 4 + (uint64(hi)<<32 | uint64(lo))
	fx := place.Fixup{Kind: place.PCRel, Off: len(code), Size: 4, Pair: n, Target: tgt, Src: in.PC,
		LoLit: len(code) + 8, HiLit: len(code) + 16}
	switch {
	case kt.g.Text.Contains(tgt):
		if !kt.inScope(tgt) {
			kt.reject(in, fmt.Sprintf("s_getpc_b64 computes %#x inside .text, which is not a decoded instruction of this kernel's scope", tgt))
			return append(code, raw...)
		}
	default:
		// Data before .text keeps its address; data after .text moves
		// with .text growth and is re-biased after the commit (rebiasData).
		fx.Data = true
	}
	kt.addFixup(fx)
	kt.relocated(in)
	return kt.keep(code, in, raw)
}

// keep appends the host form of a control-flow instruction kept in place.
func (kt *kernelT) keep(code []byte, in *isa.Inst, raw []byte) []byte {
	h, err := kt.pair.Relocated(in, raw)
	if err != nil {
		kt.reject(in, err.Error())
		return append(code, raw...)
	}
	return append(code, h...)
}

// longPair finds the scratch SGPR pair for a long window at branch in and,
// unless SCC is provably dead at the target (the window's s_add_u32 writes
// it), a third dead SGPR to save SCC in.
func (kt *kernelT) longPair(in *isa.Inst, t uint64) (pair, sccReg uint16, save bool, why string) {
	limit := min(kt.k.Descriptor.NextFreeSGPR()-6, 102) // VCC, FLAT_SCRATCH, XNACK_MASK
	pair, ok := kt.live.FreeSGPRPair(in, limit)
	if !ok {
		return 0, 0, false, "out-of-range transfer needs a long window but no dead SGPR pair exists (branches then go through branch islands; direct calls cannot)"
	}
	if kt.sccDeadAt(t) {
		return pair, 0, false, ""
	}
	after := kt.live.After(in.PC)
	for r := 0; r < limit; r++ {
		if r == int(pair) || r == int(pair)+1 || after == nil || after.S.Has(r) || kt.selfUsesSGPR(in, r) {
			continue
		}
		return pair, uint16(r), true, ""
	}
	return 0, 0, false, "out-of-range branch needs a long window that saves SCC, but no third dead SGPR exists"
}

func (kt *kernelT) selfUsesSGPR(in *isa.Inst, r int) bool {
	for _, o := range in.Operands {
		if o.Kind == isa.KindReg && o.Class == isa.SGPR && r >= int(o.Reg) && r < int(o.Reg)+int(o.Width) {
			return true
		}
	}
	return false
}

// sccDeadAt reports whether every path from a writes SCC before reading
// it (searching a bounded number of blocks; unknown means live).
func (kt *kernelT) sccDeadAt(a uint64) bool {
	seen := map[uint64]bool{}
	var visit func(a uint64, budget int) bool
	visit = func(a uint64, budget int) bool {
		if seen[a] {
			return true // a loop back to a block already being checked
		}
		b := kt.g.Blocks[a]
		if b == nil || budget == 0 {
			return false
		}
		seen[a] = true
		for _, x := range b.Insts {
			reads := x.Info.ImplicitReads&isa.ImpSCC != 0
			for _, o := range x.Operands {
				if o.Kind == isa.KindReg && o.Class == isa.Special && isa.SpecialReg(o.Reg) == isa.RegSCC && o.Role.Uses() {
					reads = true
				}
			}
			if reads {
				return false
			}
			if x.Info.ImplicitWrites&isa.ImpSCC != 0 {
				return true
			}
		}
		if len(b.Calls) > 0 || len(b.Succs) == 0 {
			return len(b.Succs) == 0 && b.Last().Info.Branch == isa.BranchEnd
		}
		for _, s := range b.Succs {
			if !visit(s, budget-1) {
				return false
			}
		}
		return true
	}
	return visit(a, 16)
}

// TempVGPRs implements rules.Context.
func (kt *kernelT) TempVGPRs(n int) ([]uint16, error) {
	arch, agprs := kt.archVGPRs()
	var got []uint16
	if !kt.forceSpill {
		for _, r := range kt.live.FreeVGPRs(kt.cur, arch, n+kt.taken.n) {
			if !kt.taken.has(int(r)) && len(got) < n && !kt.mappedAGPR(int(r)) {
				got = append(got, r)
			}
		}
		for r := arch; len(got) < n && r < 256; r++ {
			acc := (r + 1 + 3) &^ 3
			if agprs > 0 && acc+agprs > 512 {
				break
			}
			if !kt.taken.has(int(r)) {
				got = append(got, uint16(r))
			}
		}
	}
	// Borrow live VGPRs the instruction does not name, saved to
	// per-lane private memory around the expansion (not the dead ones
	// just found: handing a register out twice made two scratch values
	// share it).
	var found regSet
	for _, r := range got {
		found.add(int(r))
	}
	for r := 0; len(got) < n && r < arch; r++ {
		if kt.taken.has(int(r)) || found.has(r) || kt.selfUses(r) || !kt.canSpill() {
			continue
		}
		got = append(got, uint16(r))
		kt.borrowed = append(kt.borrowed, uint16(r))
	}
	if len(got) < n {
		return nil, fmt.Errorf("needs %d scratch VGPRs: none is dead at this point, the register file is full (%d arch + %d AGPRs) and private spills are not possible", n, arch, agprs)
	}
	for _, r := range got {
		kt.take(r)
	}
	return got, nil
}

// descriptor returns the host descriptor the pair derives from the
// source one and the translation's resource needs.
func (kt *kernelT) descriptor() (kd.Descriptor, error) {
	arch, agprs := kt.archVGPRs()
	d, notes, err := kt.pair.Descriptor(pair.Plan{
		Kernel: kt.k, GuestProc: kt.f.Processor, Arch: arch, AGPRs: agprs, NeedArch: kt.needArch, NeedAGPRs: kt.needAGPRs,
		NamedArch: kt.namedArch, NamedAGPRs: kt.namedAGPRs, AGPRBase: kt.agprBase(), SpillSlots: kt.spillSlots, SpillBase: kt.spillBase,
	})
	for _, n := range notes {
		kt.rep.Notes = appendOnce(kt.rep.Notes, n)
	}
	return d, err
}

// TempSGPRPair implements rules.Context.
func (kt *kernelT) TempSGPRPair() (uint16, error) {
	limit := min(kt.k.Descriptor.NextFreeSGPR()-6, 102)
	p, ok := kt.live.FreeSGPRPair(kt.cur, limit)
	if !ok {
		return 0, fmt.Errorf("needs a scratch SGPR pair: none below s%d is dead here", limit)
	}
	return p, nil
}

// TempVGPRRange implements rules.Context.
func (kt *kernelT) TempVGPRRange(n, align int) (uint16, error) {
	arch, agprs := kt.archVGPRs()
	after := kt.live.After(kt.cur.PC)
	// usedSet has bit r for VGPR r (< 256) taken, holding a mapped AGPR,
	// or, below arch, read later or named by the instruction.
	var usedSet [4]uint64
	kt.selfUses(0) // computes kt.selfSet for kt.cur
	for w := range usedSet {
		below := uint64(0) // the bits of word w below arch
		if k := arch - 64*w; k >= 64 {
			below = ^uint64(0)
		} else if k > 0 {
			below = 1<<uint(k) - 1
		}
		u := kt.taken.bits[w] | kt.selfSet[w]&below
		if after != nil {
			u |= after.V[w] & below
		}
		usedSet[w] = u
	}
	if kt.pair != nil && kt.pair.UnifiedVGPRs() && kt.namedAGPRs > 0 { // mappedAGPR
		acc := kt.agprBase()
		for r := max(acc, 0); r < acc+kt.namedAGPRs && r < 256; r++ {
			usedSet[r>>6] |= 1 << (r & 63)
		}
	}
	used := func(r int) bool { return usedSet[r>>6]&(1<<(r&63)) != 0 }
	for start := 0; start+n <= 256 && !kt.forceSpill; start += align {
		if start+n > arch {
			acc := (start + n + 3) &^ 3
			if agprs > 0 && acc+agprs > 512 {
				break
			}
		}
		ok := true
		for r := start; r < start+n; r++ {
			if used(r) {
				ok = false
				break
			}
		}
		if ok {
			for r := start; r < start+n; r++ {
				kt.take(uint16(r))
			}
			return uint16(start), nil
		}
	}
	// Borrow an aligned window of live VGPRs the instruction does not name.
	for start := 0; start+n <= arch && kt.canSpill(); start += align {
		ok := true
		for r := start; r < start+n; r++ {
			if kt.taken.has(int(r)) || kt.selfUses(r) {
				ok = false
				break
			}
		}
		if ok {
			for r := start; r < start+n; r++ {
				kt.take(uint16(r))
				kt.borrowed = append(kt.borrowed, uint16(r))
			}
			return uint16(start), nil
		}
	}
	return 0, fmt.Errorf("needs %d consecutive scratch VGPRs: no dead window and the register file is full (%d arch + %d AGPRs)", n, arch, agprs)
}

// mappedAGPR reports whether host VGPR r holds a guest AGPR (pairs whose
// host has no AGPRs map a*i* to v[ACCUM_OFFSET+i]); the guest's liveness
// knows nothing of that, so such registers are never scratch.
func (kt *kernelT) mappedAGPR(r int) bool {
	if kt.pair == nil || !kt.pair.UnifiedVGPRs() || kt.namedAGPRs == 0 {
		return false
	}
	acc := kt.agprBase()
	return r >= acc && r < acc+kt.namedAGPRs
}

// agprBase is the host VGPR of guest a0 for pairs whose host has no AGPRs:
// just above the arch VGPRs the scope names, or ACCUM_OFFSET when the
// scope indexes VGPRs (the indexed range is not known).
func (kt *kernelT) agprBase() int {
	if kt.indexed {
		return kt.k.Descriptor.AccumOffset()
	}
	return kt.namedArch
}

// selfUses reports whether the current instruction names VGPR r (decoded
// operands, or any register its raw fields can name). The set is computed
// once per instruction.
func (kt *kernelT) selfUses(r int) bool {
	if kt.selfFor != kt.cur {
		kt.selfFor = kt.cur
		kt.selfSet = [8]uint64{}
		unified := kt.pair != nil && kt.pair.UnifiedVGPRs()
		mark := func(o isa.Operand) {
			if o.Kind != isa.KindReg {
				return
			}
			lo := int(o.Reg)
			switch {
			case o.Class == isa.VGPR:
			case o.Class == isa.AGPR && unified:
				lo += kt.agprBase() // the host VGPR the AGPR maps to
			default:
				return
			}
			for x := max(lo, 0); x < lo+int(o.Width) && x < 512; x++ {
				kt.selfSet[x>>6] |= 1 << (x & 63)
			}
		}
		for _, o := range kt.rawUses(kt.cur) {
			mark(o)
		}
		for _, o := range kt.cur.Operands {
			mark(o)
		}
	}
	if r < 0 || r >= 512 {
		return false
	}
	return kt.selfSet[r>>6]&(1<<(r&63)) != 0
}

// ReserveVGPRs implements rules.VGPRReserver: regs are not handed out as
// scratch registers for the rest of the instruction's translation.
func (kt *kernelT) ReserveVGPRs(regs ...uint16) {
	for _, r := range regs {
		kt.taken.add(int(r))
	}
}

func (kt *kernelT) take(r uint16) {
	kt.taken.add(int(r))
	if int(r)+1 > kt.needArch {
		kt.needArch = int(r) + 1
	}
}

// memoSpan returns where, in the last emission's code, the host code of
// the emission's idx-th instruction in is, when it was remembered (its
// tally comes from the scope's cached decision).
func (kt *kernelT) memoSpan(idx int, in *isa.Inst) (lo, hi int, ok bool) {
	if idx < 0 || idx/64 >= len(kt.memoOK) || kt.memoOK[idx/64]&(1<<(idx%64)) == 0 || idx >= len(kt.memoAt) || kt.memoAt[idx].Src != in.PC {
		return 0, 0, false
	}
	lo, hi = kt.memoAt[idx].Off, kt.memoEnd
	if idx+1 < len(kt.memoAt) {
		hi = kt.memoAt[idx+1].Off
	}
	// An island pool placed before the next instruction ends the code
	// there.
	for kt.memoPool < len(kt.memoPools) && kt.memoPools[kt.memoPool].Off < lo {
		kt.memoPool++
	}
	if kt.memoPool < len(kt.memoPools) && kt.memoPools[kt.memoPool].Off < hi {
		hi = kt.memoPools[kt.memoPool].Off
	}
	if lo > hi || hi > len(kt.memoCode) {
		return 0, 0, false
	}
	return lo, hi, true
}

// emitDecision is the scope's decision for b.Insts[i] with a rule's
// action named as emission reports it: Expand for a named rule, Lower
// for an unnamed one.
func (kt *kernelT) emitDecision(b *cfg.Block, i int) legalize.Decision {
	d := kt.decide(b, i)
	if d.Rule != nil && d.Action != report.Reject {
		d.Action = report.Expand
		if d.Rule.Name == "" {
			d.Action = report.Lower
		}
	}
	return d
}

// kindOf is the report kind of one instance of in translated by d (the
// rule and its bound named unless in passes through).
func kindOf(in *isa.Inst, d legalize.Decision) report.Kind {
	k := report.Kind{Mnemonic: in.Name(), Action: d.Action, Fidelity: d.Fidelity, Count: 1}
	if d.Action != report.Identity && d.Action != report.Substitute && d.Rule != nil {
		k.Rule, k.Bound = d.Rule.Name, d.Bound
	}
	return k
}

// kindRule is the rule name kindOf gives d's kind.
func kindRule(d legalize.Decision) string {
	if d.Action != report.Identity && d.Action != report.Substitute && d.Rule != nil {
		return d.Rule.Name
	}
	return ""
}

// regSet is a set of VGPR numbers 0-511.
type regSet struct {
	bits [8]uint64
	n    int
}

func (s *regSet) has(r int) bool { return r >= 0 && r < 512 && s.bits[r>>6]&(1<<(r&63)) != 0 }

func (s *regSet) add(r int) {
	if r >= 0 && r < 512 && !s.has(r) {
		s.bits[r>>6] |= 1 << (r & 63)
		s.n++
	}
}

// scopeInsts and scopeBytes are the number of guest instructions and
// their bytes in the scope (capacity hints).
func (kt *kernelT) scopeInsts() int {
	n := 0
	for _, a := range kt.scope.Blocks {
		if b := kt.g.Blocks[a]; b != nil {
			n += len(b.Insts)
		}
	}
	return n
}

func (kt *kernelT) scopeBytes() int {
	n := 0
	for _, a := range kt.scope.Blocks {
		if b := kt.g.Blocks[a]; b != nil {
			n += int(b.End - b.Start)
		}
	}
	return n
}

// scopeStart is the lowest source address of the scope.
func (kt *kernelT) scopeStart() uint64 {
	if len(kt.scope.Blocks) == 0 {
		return kt.k.EntryAddr
	}
	return kt.scope.Blocks[0]
}

// rawUses adds, for guest-only VOP3 / VOP3P / MAI words, every register
// their raw source fields can name (as VGPRs, with generous widths) and the
// destination range, so that scratch registers never alias an operand the
// instruction model might have mis-described.
func (kt *kernelT) rawUses(in *isa.Inst) []isa.Operand {
	if in.Info == nil || in.Info.Targets.Has(kt.host) || in.Size < 8 {
		return nil
	}
	raw := kt.raw(in)
	w0 := binary.LittleEndian.Uint32(raw)
	w1 := binary.LittleEndian.Uint32(raw[4:])
	if w0>>26 != 0x34 {
		return nil
	}
	// At most 7 operands, gathered here and returned in one allocation.
	var buf [7]isa.Operand
	n := 0
	vg := func(c uint32, width uint8) {
		if c >= 256 {
			buf[n] = isa.Operand{Kind: isa.KindReg, Class: isa.VGPR, Reg: uint16(c - 256), Width: width}
			n++
		} else if c < 102 {
			buf[n] = isa.Operand{Kind: isa.KindReg, Class: isa.SGPR, Reg: uint16(c), Width: 2}
			n++
		}
	}
	if in.Info.Has(isa.FlagMFMA) {
		ab, cd := uint8(8), uint8(16)
		if s, ok := mfma.Lookup(in.Name()); ok {
			ab, cd = uint8(s.GuestABRegs()), uint8(s.CDRegs())
		}
		if w1>>27&1 == 0 {
			vg(w1&0x1ff, ab)
		}
		if w1>>28&1 == 0 {
			vg(w1>>9&0x1ff, ab)
		}
		if w0>>15&1 == 0 {
			vg(w1>>18&0x1ff, cd)
			vg(256+w0&0xff, cd)
		}
	} else {
		for _, c := range [...]uint32{w1 & 0x1ff, w1 >> 9 & 0x1ff, w1 >> 18 & 0x1ff, 256 + w0&0xff} {
			vg(c, 2)
		}
	}
	if in.Size == 16 { // VOP3PX2: the scale pair's sources too
		w3 := binary.LittleEndian.Uint32(raw[12:])
		for _, c := range [...]uint32{w3 & 0x1ff, w3 >> 9 & 0x1ff, w3 >> 18 & 0x1ff} {
			if c >= 256 {
				buf[n] = isa.Operand{Kind: isa.KindReg, Class: isa.VGPR, Reg: uint16(c - 256), Width: 16}
				n++
			}
		}
	}
	if n == 0 {
		return nil
	}
	return kt.keepOperands(buf[:n])
}

// Bounds of the chunks keepOperands allocates, in operands.
const (
	minOperandChunk = 32
	maxOperandChunk = 1024
)

// keepOperands returns a copy of ops in the kernel's operand chunks
// (liveness keeps rawUses' answers for the whole translation: one
// allocation per chunk instead of one per instruction). The copy's
// capacity ends at its length, so an append to it never reaches the
// next copy.
func (kt *kernelT) keepOperands(ops []isa.Operand) []isa.Operand {
	if cap(kt.operands)-len(kt.operands) < len(ops) {
		size := min(max(2*cap(kt.operands), minOperandChunk), maxOperandChunk)
		kt.operands = make([]isa.Operand, 0, max(size, len(ops)))
	}
	lo := len(kt.operands)
	kt.operands = append(kt.operands, ops...)
	return kt.operands[lo:len(kt.operands):len(kt.operands)]
}

// canSpill reports whether borrowed VGPRs may be saved to private memory:
// the kernel must not use a dynamic stack (whose area follows the fixed
// private segment, where the spill slots go).
func (kt *kernelT) canSpill() bool {
	if kt.k.Metadata != nil && kt.k.Metadata.UsesDynamicStack {
		return false
	}
	return len(kt.borrowed) < 64
}

// spillAround saves the borrowed VGPRs to per-lane private slots before
// code and restores them after it, with the pair's spill code. EXEC masks
// the saves, the expansion and the restores alike, so every lane that the
// expansion changes gets its value back.
func (kt *kernelT) spillAround(code []byte) ([]byte, error) {
	if kt.spillBase == 0 {
		kt.spillBase = (kt.k.Descriptor.PrivateSegmentFixedSize + 3) &^ 3
	}
	pre, post, ok := kt.pair.Spill(kt.spillBase, kt.borrowed)
	if !ok {
		return nil, fmt.Errorf("needs %d borrowed VGPRs and host %s has no spill path", len(kt.borrowed), kt.host)
	}
	if len(kt.borrowed) > kt.spillSlots {
		kt.spillSlots = len(kt.borrowed)
	}
	kt.rep.Notes = appendOnce(kt.rep.Notes, "scratch VGPRs borrowed from live registers and saved to per-lane private memory")
	out := append(pre, code...)
	return append(out, post...), nil
}

func appendOnce(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// inScope reports whether a is the address of an instruction of the scope.
func (kt *kernelT) inScope(a uint64) bool {
	if _, ok := kt.g.Inst(a); !ok {
		return false
	}
	i := sort.Search(len(kt.scope.Blocks), func(i int) bool { return kt.scope.Blocks[i] > a }) - 1
	if i < 0 {
		return false
	}
	b := kt.g.Blocks[kt.scope.Blocks[i]]
	return a >= b.Start && a < b.End
}

// inlineLDS says the uses of rules whose subroutine form accesses LDS are
// emitted inline (as sharedSite decides).
func (kt *kernelT) inlineLDS() bool { return kt.sidecar || kt.noShared || kt.forceSpill }

// pairMemo returns the pair's per-scope cache, creating it on first use.
func (kt *kernelT) pairMemo() map[string]any {
	if kt.pairCache == nil {
		kt.pairCache = map[string]any{}
	}
	return kt.pairCache
}
