package dbt

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/rocjitsu/rocjitsu/dbt/cfg"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/legalize"
	"github.com/rocjitsu/rocjitsu/dbt/live"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/dbt/place"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
)

// Subroutines (issue 15): a rule with a Shared form whose key occurs at
// two or more uses of a kernel scope gets one body per key; each use
// copies its operands into fixed registers, calls the body with
// s_call_b64 and copies the results out. The fixed VGPRs and the return
// SGPR pair are free at every use of the rule (no instruction reads them
// after any use, no use names them), so a body may clobber them. When too
// few VGPRs are free at every use (kernels that use the whole register
// file) and the kernel names no AGPRs, the fixed VGPRs are any the uses do
// not name (the free ones first), and those live at some use are saved to
// AGPRs a0.. around each use by two more per-kernel stubs, all lanes at
// once (the descriptor then allocates the AGPRs; a second SGPR pair dead at
// every use holds EXEC meanwhile); when the guest names AGPRs, they are
// saved to the per-lane private slots of borrowed registers instead. The
// bodies follow the scope's code;
// once a call from there went out of SOPP range (placement asked for a
// long window at a use), the next emission puts copies into the code
// instead, each before the first use more than sharedReach past the last
// copy, branched over. A use stays inline when its key occurs once or no
// fixed registers are found.

// sharedPlan is the subroutine plan of one rule in a scope.
type sharedPlan struct {
	// keys holds what the plan knows of each key (one lookup a use).
	keys map[string]*sharedKeyPlan
	// regs are the VGPRs free at every use; ret is the return pair and
	// exec the pair that holds EXEC while a save or restore stub runs.
	regs      []uint16
	aregs     []uint16 // AGPRs free at every use
	ret, exec uint16
	ok        bool
	// execOK says exec was found (it is also the pair a body with
	// Shared.SGPRPair clobbers: bodies and save stubs never overlap).
	execOK bool
	// unnamed are the VGPRs no use names (the free ones first), live
	// those read after some use; saveOK allows fixed registers from
	// unnamed saved to AGPRs.
	unnamed []uint16
	live    live.Set
	saveOK  bool
	// siteCache holds the Site answers of uses whose key's registers
	// were chosen, by key and bytes.
	siteCache map[sharedSiteKey]cachedSite
	// agprs is the most AGPRs a key's saves use.
	agprs int
	// sites are the addresses of the uses.
	sites []uint64
	// memOK allows saves to private memory instead (the guest names
	// AGPRs; no dynamic stack); slots is the most slots the saves of the
	// keys saved there use.
	memOK bool
	slots int
}

// sharedKeyPlan is what a plan knows of one key.
type sharedKeyPlan struct {
	// uses counts the scope's uses of the key.
	uses int
	// chosen says list and body are set: the key's register list (the
	// plan's regs or unnamed), chosen at its first use, and its body
	// (which depends on the plan only).
	chosen bool
	list   []uint16
	body   []byte
	// saving says saves holds the save and restore stubs of the fixed
	// registers live at some use; inMemory that they save to private
	// memory.
	saving   bool
	saves    [2][]byte
	inMemory bool
	// tail is the length of the body's shareable tail (Shared.Tail);
	// head that of its shareable head (Shared.Head) when another key of
	// the scope has one of the same bytes: the uses of such a key call
	// the head (emitted once per bytes and return pair) and run the rest
	// of the body inline.
	tail, head int
	// head0 is the body and head length sharedHeadKeys made (when
	// head0OK).
	head0   headBody
	head0OK bool
	// inline marks a key whose saves found no room.
	inline bool
}

// key returns the plan of key k, adding an empty one.
func (p *sharedPlan) key(k string) *sharedKeyPlan {
	kp, ok := p.keys[k]
	if !ok {
		kp = &sharedKeyPlan{}
		p.keys[k] = kp
	}
	return kp
}

// sharedHead is a shareable body head (Shared.Head) by return pair and
// bytes.
type sharedHead struct {
	ret  uint16
	code string
}

// sharedHeadKeys returns st.headKeys, made at the first call from the
// bodies of every key used at least twice in the scope (with the
// registers of its plan): a head is worth its own call only when the
// bodies of two keys begin with it.
func (kt *kernelT) sharedHeadKeys() map[sharedHead]int {
	st := kt.shared
	if st.headKeys != nil {
		return st.headKeys
	}
	st.headKeys = map[sharedHead]int{}
	seen := map[*rules.Shared]map[string]bool{}
	for n := range st.scan {
		u := &st.scan[n]
		r := u.form
		if r.Head == nil {
			continue
		}
		raw := kt.raw(u.in)
		key, ok := kt.useKey(u)
		if !ok || seen[r][key] {
			continue
		}
		p := kt.sharedPlanFor(r)
		kp := p.key(key)
		if !p.ok || kp.uses < 2 {
			continue
		}
		if seen[r] == nil {
			seen[r] = map[string]bool{}
		}
		seen[r][key] = true
		regs := rules.SharedRegs{V: p.regs, SPair: p.exec, A: p.aregs}
		if kp.chosen {
			regs.V = kp.list
		}
		body, err := r.Body(u.in, raw, regs)
		if err != nil {
			continue
		}
		n := r.Head(u.in, raw, regs)
		if n > 0 && n < len(body) {
			st.headKeys[sharedHead{p.ret, string(body[:n])}]++
		}
		if !kp.head0OK {
			// Bodies depend on the key and the registers only: the use
			// that emits the key first reuses this one when it gets the
			// same registers.
			kp.head0, kp.head0OK = headBody{v: regs.V, body: body, head: n}, true
		}
	}
	return st.headKeys
}

// sharedUse is an instruction of the scope with a subroutine form, and
// the form's key for it (Shared.Key, asked once: the planning, the head
// count and the emission of the use all need it).
type sharedUse struct {
	in       *isa.Inst
	form     *rules.Shared
	key      string
	keyOK    bool
	keyAsked bool
}

// useKey returns u.form's key for u.in, asking the form once.
func (kt *kernelT) useKey(u *sharedUse) (string, bool) {
	if !u.keyAsked {
		u.key, u.keyOK = u.form.Key(u.in, kt.raw(u.in))
		u.keyAsked = true
	}
	return u.key, u.keyOK
}

// sharedKey returns r's key for in: the scan's answer when in is a use of
// r there, else r.Key's.
func (kt *kernelT) sharedKey(r *rules.Shared, in *isa.Inst, raw []byte) (string, bool) {
	if st := kt.shared; st != nil {
		if n, ok := st.scanAt[in]; ok && st.scan[n].form == r {
			return kt.useKey(&st.scan[n])
		}
	}
	return r.Key(in, raw)
}

// sharedSiteKey names a use's site code in a plan: the key and the
// instruction's bytes.
type sharedSiteKey struct {
	key string
	// raw holds the instruction's n bytes (at most 16: an instruction
	// with more is not cached), so that a lookup allocates nothing.
	raw [16]byte
	n   uint8
}

// cachedSite is a Shared.Site answer.
type cachedSite struct {
	site rules.SharedSite
	err  error
}

// headBody is a key's body made for the head count (sharedHeadKeys), with
// the fixed VGPRs it was made for and its Shared.Head length.
type headBody struct {
	v    []uint16
	body []byte
	head int
}

// sharedCall is one emitted call: its fixup index and the body's rule,
// key and part (partBody, partSave, partRestore, partHead).
type sharedCall struct {
	fx   int
	rule *rules.Shared
	key  string
	part int
}

// The parts of a key's subroutine code a use calls.
const (
	partBody    = iota // the whole body
	partSave           // the stub saving the fixed registers live at the use
	partRestore        // the stub restoring them
	partHead           // a head shared with other keys (Shared.Head)
)

// sharedReach is how far back (bytes) a call reaches a body copy placed
// in the code: s_call_b64's SOPP-range offset is +-128 KiB, less the
// call site's own code before the call.
const sharedReach = 120 << 10

// sharedState is a scope's subroutine bookkeeping.
type sharedState struct {
	// live is the analysis the plans were made for.
	live  *live.Info
	plans map[*rules.Shared]*sharedPlan
	// headKeys counts, per head bytes and return pair, the keys of the
	// scope's bodies that begin with it (Shared.Head; nil until the
	// first body with a head asks).
	headKeys map[sharedHead]int
	// scan lists the scope's instructions that have a form (made once,
	// for every plan).
	scan    []sharedUse
	scanned bool
	// scanAt is the index of each instruction in scan.
	scanAt map[*isa.Inst]int
	// body is the emission the rest belongs to (reset with it): calls
	// of bodies placed after the code (patched there) and those bodies
	// in first-call order; near is, per rule, whether the emission puts
	// body copies into the code instead (a call went out of range after
	// the code), copies the latest copy of each part, nCopies their
	// number; uses counts the calls of bodies.
	body    *place.Body
	calls   []sharedCall
	order   []sharedCall
	near    map[*rules.Shared]bool
	copies  map[sharedCall]int
	nCopies int
	uses    int
	// inMemory says a use of the emission saves to private memory.
	inMemory bool
}

// sharedAt returns the subroutine form of the rule the pair chooses for
// b.Insts[i]: the pair's own (pair.SharedForms) when it has them, else the
// Shared of the rule its Decide picks (a rule such as the FP8 MFMA's has a
// variant per block shape, each with its own form), asked only when the
// registry rule has a form; nil when there is none. Uses of one form share
// a plan. The answers are kept per scope (decide.go).
func (kt *kernelT) sharedAt(b *cfg.Block, i int) *rules.Shared {
	in := b.Insts[i]
	if f, ok := kt.pair.(pair.SharedForms); ok {
		return f.SharedForm(in, kt.agprBase())
	}
	return kt.sharedFormAt(b, i)
}

// chosenForm reports whether form, the Shared of the rule the pair's
// Decide chose for b.Insts[i], is the form its plan is made for (with
// pair.SharedForms, the pair's own form for it).
func (kt *kernelT) chosenForm(b *cfg.Block, i int, form *rules.Shared) bool {
	if _, ok := kt.pair.(pair.SharedForms); ok {
		return kt.sharedAt(b, i) == form
	}
	return true
}

// sharedPlanFor returns the plan of rule r, computing the scope's plans
// on first use after a new liveness analysis.
func (kt *kernelT) sharedPlanFor(r *rules.Shared) *sharedPlan {
	if kt.shared == nil || kt.shared.live != kt.live {
		kt.shared = &sharedState{live: kt.live, plans: map[*rules.Shared]*sharedPlan{}}
	}
	if p, ok := kt.shared.plans[r]; ok {
		return p
	}
	p := &sharedPlan{keys: map[string]*sharedKeyPlan{}}
	kt.shared.plans[r] = p
	st := kt.shared
	if !st.scanned {
		kt.scanShared()
	}
	var sites []*isa.Inst
	var named, namedA live.Set
	for n := range st.scan {
		if u := &st.scan[n]; u.form == r {
			in := u.in
			sites = append(sites, in)
			p.sites = append(p.sites, in.PC)
			regs, ok := r.Names(in, kt.raw(in))
			if !ok {
				return p // a use whose registers are unknown: no plan
			}
			for _, v := range regs {
				if v < 256 {
					named.Add(int(v), 1)
				} else {
					namedA.Add(int(v)-256, 1)
				}
			}
			if key, ok := kt.useKey(u); ok {
				p.key(key).uses++
			}
		}
	}
	if len(sites) == 0 {
		return p
	}
	after, known := kt.liveAfterAll(sites)
	arch, agprs := kt.archVGPRs()
	unified := kt.pair.UnifiedVGPRs()
	mapped := kt.mappedAGPRs()
	for v := 0; v < 256; v++ {
		if v >= arch && agprs > 0 && (v+1+3)&^3+agprs > 512 {
			break
		}
		if mapped.Has(v) || named.Has(v) {
			continue
		}
		if known && (v >= arch || !after.V.Has(v)) {
			p.regs = append(p.regs, uint16(v))
		} else {
			p.live.Add(v, 1)
			p.unnamed = append(p.unnamed, uint16(v))
		}
	}
	// AGPRs the guest allocates that no use names and nothing reads
	// after any use.
	for a := 0; a < agprs && !unified && known; a++ {
		if !namedA.Has(a) && !after.A.Has(a) {
			p.aregs = append(p.aregs, uint16(a))
		}
	}
	// The free ones first: only what they cannot hold is saved.
	p.unnamed = append(slices.Clone(p.regs), p.unnamed...)
	p.saveOK = !unified && kt.namedAGPRs == 0 && agprs == 0
	p.memOK = !p.saveOK && !(kt.k.Metadata != nil && kt.k.Metadata.UsesDynamicStack)
	// The return pair, and a second pair for EXEC around the saves.
	limit := min(kt.k.Descriptor.NextFreeSGPR()-6, 102)
	var pairs []uint16
	if known {
		busy := after.S
		busy.Or(sgprsNamed(sites))
		for s := 0; s+1 < limit && len(pairs) < 2; s += 2 {
			if !busy.Has(s) && !busy.Has(s+1) {
				pairs = append(pairs, uint16(s))
			}
		}
	}
	if len(pairs) > 0 {
		p.ret, p.ok = pairs[0], true
	}
	if len(pairs) > 1 {
		p.exec, p.execOK = pairs[1], true
	} else {
		p.saveOK, p.memOK = false, false
	}
	return p
}

// scanShared lists the scope's instructions that have a subroutine form
// (st.scan, st.scanAt).
func (kt *kernelT) scanShared() {
	st := kt.shared
	st.scanned = true
	st.scan = freeUses.TakeMin(16, 64)
	for _, l := range kt.scope.Blocks {
		blk := kt.g.Blocks[l]
		for j, in := range blk.Insts {
			if f := kt.sharedAt(blk, j); f != nil {
				st.scan = appendDoubling(st.scan, sharedUse{in: in, form: f})
			}
		}
	}
	st.scanAt = make(map[*isa.Inst]int, len(st.scan))
	for n := range st.scan {
		st.scanAt[st.scan[n].in] = n
	}
}

// liveAfterAll returns the union of the registers live after each of
// sites, and false when some site's are unknown.
func (kt *kernelT) liveAfterAll(sites []*isa.Inst) (live.Regs, bool) {
	var all live.Regs
	for _, in := range sites {
		a := kt.live.After(in.PC)
		if a == nil {
			return live.Regs{}, false
		}
		all.V.Or(&a.V)
		all.A.Or(&a.A)
		all.S.Or(&a.S)
	}
	return all, true
}

// sgprsNamed returns the SGPRs the operands of sites name.
func sgprsNamed(sites []*isa.Inst) *live.Set {
	var s live.Set
	for _, in := range sites {
		for _, o := range in.Operands {
			if o.Kind == isa.KindReg && o.Class == isa.SGPR {
				s.Add(int(o.Reg), int(o.Width))
			}
		}
	}
	return &s
}

// mappedAGPRs is the set of host VGPRs mappedAGPR reports.
func (kt *kernelT) mappedAGPRs() live.Set {
	var s live.Set
	if kt.pair != nil && kt.pair.UnifiedVGPRs() && kt.namedAGPRs > 0 {
		acc := kt.agprBase()
		s.Add(max(acc, 0), acc+kt.namedAGPRs-max(acc, 0))
	}
	return s
}

// sharedSite emits in as a call of the shared body of the rule of d (its
// emission decision), or reports false to leave it to the inline
// expansion.
func (kt *kernelT) sharedSite(code []byte, b *cfg.Block, i int, in *isa.Inst, raw []byte, d legalize.Decision) ([]byte, bool) {
	rule := d.Rule
	if rule == nil || rule.Shared == nil || kt.forceSpill || kt.noShared || (rule.Shared.LDS && kt.sidecar) || (rule.Shared.Inline && !kt.forceShared) || !kt.chosenForm(b, i, rule.Shared) {
		return code, false
	}
	r := rule.Shared
	p := kt.sharedPlanFor(r)
	key, ok := kt.sharedKey(r, in, raw)
	if !ok {
		return code, false
	}
	kp := p.key(key)
	if !p.ok || (kp.uses < 2 && !kt.forceShared) {
		return code, false
	}
	if r.SGPRPair && !p.execOK {
		return code, false
	}
	regs := rules.SharedRegs{V: p.regs, SPair: p.exec, A: p.aregs}
	var site rules.SharedSite
	var err error
	if kp.chosen {
		// The key's registers are chosen: the site code depends on the
		// instruction's bytes only (as the key's body does), so a use
		// with the bytes of an earlier one gets its answer.
		regs.V = kp.list
		sk := sharedSiteKey{key: key, n: uint8(len(raw))}
		cacheable := copy(sk.raw[:], raw) == len(raw)
		if c, ok := p.siteCache[sk]; ok && cacheable {
			site, err = c.site, c.err
		} else {
			site, err = r.Site(in, raw, regs)
			if cacheable {
				if p.siteCache == nil {
					p.siteCache = map[sharedSiteKey]cachedSite{}
				}
				p.siteCache[sk] = cachedSite{site, err}
			}
		}
	} else {
		site, err = r.Site(in, raw, regs)
		if err != nil && (p.saveOK || p.memOK) {
			regs.V = p.unnamed
			site, err = r.Site(in, raw, regs)
		}
	}
	if err != nil || kp.inline {
		return code, false
	}
	if !kp.chosen {
		var saved []uint16
		for _, v := range site.Used {
			if p.live.Has(int(v)) {
				saved = append(saved, v)
			}
		}
		h0 := kp.head0
		made := kp.head0OK && slices.Equal(h0.v, regs.V)
		var body []byte
		if made {
			body = h0.body
		} else {
			body, err = r.Body(in, raw, regs)
		}
		var sv, rs []byte
		switch {
		case err != nil || len(saved) == 0:
		case p.saveOK:
			sv, rs = rules.AGPRSave(saved, p.exec)
			p.agprs = max(p.agprs, len(saved))
		default:
			// Saved to the private slots of borrowed registers (no
			// expansion borrows while a use runs), all lanes at once.
			if kt.spillBase == 0 {
				kt.spillBase = (kt.k.Descriptor.PrivateSegmentFixedSize + 3) &^ 3
			}
			var ok bool
			sv, rs, ok = kt.pair.Spill(kt.spillBase, saved)
			if !ok || len(saved) > r.MemorySaves || kt.spillBase+uint32(4*len(saved)) > 4096 {
				err = fmt.Errorf("no spill path for %d saved registers", len(saved))
				break
			}
			sv, rs = rules.AllLanes(sv, p.exec), rules.AllLanes(rs, p.exec)
			p.slots = max(p.slots, len(saved))
		}
		if err != nil {
			kp.inline = true
			return code, false
		}
		kp.chosen, kp.list, kp.body = true, regs.V, body
		if r.Tail != nil {
			kp.tail = r.Tail(in, raw, regs)
		}
		if r.Head != nil {
			n := h0.head
			if !made {
				n = r.Head(in, raw, regs)
			}
			if n > 0 && n+kp.tail < len(body) && kt.sharedHeadKeys()[sharedHead{p.ret, string(body[:n])}] > 1 {
				kp.head = n
			}
		}
		if sv != nil {
			kp.saving, kp.saves, kp.inMemory = true, [2][]byte{sv, rs}, !p.saveOK
		}
	}
	body := kp.body
	st := kt.shared
	if st.body != kt.body {
		// The last emission's call lists are done with: their buffers
		// hold this one's.
		calls, order := st.calls[:0], st.order[:0]
		if calls == nil {
			calls, order = freeCalls.TakeMin(16, 64), freeCalls.TakeMin(16, 64)
		}
		*st = sharedState{live: st.live, plans: st.plans, headKeys: st.headKeys, scan: st.scan, scanned: st.scanned, scanAt: st.scanAt, body: kt.body,
			calls: calls, order: order, near: map[*rules.Shared]bool{}, copies: map[sharedCall]int{}}
	}
	reach := sharedReach
	if kt.sharedReach > 0 {
		reach = kt.sharedReach
	}
	near, known := st.near[r]
	if !known {
		near = kt.sharedReach > 0
		for _, pc := range p.sites {
			near = near || kt.long[pc]
		}
		st.near[r] = near
	}
	saves, saving := kp.saves, kp.saving
	// A key with a shared head calls the head and runs the rest of its
	// body inline: a call and a return per use, as with the whole body
	// called (whose end may also branch into a shared tail).
	head := kp.head
	var partList [3]int
	parts := partList[:1]
	parts[0] = partBody
	if head > 0 {
		parts[0] = partHead
	}
	if saving {
		parts = append(parts, partSave, partRestore)
	}
	part := func(n int) []byte {
		switch n {
		case partBody:
			return body
		case partHead:
			return body[:head]
		}
		return saves[n-partSave]
	}
	k0 := sharedCall{rule: r, key: key, part: parts[0]} // the part a use calls first
	switch {
	case near:
		if at, ok := st.copies[k0]; !ok || len(code)-at > reach {
			// A copy here, branched over.
			skip := len(code)
			code = window(code, 4)
			for _, n := range parts {
				st.copies[sharedCall{rule: r, key: key, part: n}] = len(code)
				code = append(code, part(n)...)
				code = binary.LittleEndian.AppendUint32(code, kt.pair.Words().Setpc(p.ret))
			}
			binary.LittleEndian.PutUint32(code[skip:], kt.pair.Words().SOPP(place.OpBranch, int16((len(code)-skip-4)/4)))
			st.nCopies++
		}
	case !slices.Contains(st.order, k0):
		for _, n := range parts {
			st.order = appendDoubling(st.order, sharedCall{rule: r, key: key, part: n})
		}
	}
	for _, v := range site.Used {
		kt.take(v)
	}
	if saving && kp.inMemory {
		kt.spillSlots = max(kt.spillSlots, p.slots)
		st.inMemory = true
	} else if saving {
		kt.needAGPRs = max(kt.needAGPRs, p.agprs)
	}
	call := func(n int) {
		c := sharedCall{fx: len(kt.body.Fixups), rule: r, key: key, part: n}
		fx := place.Fixup{Kind: place.Call, Off: len(code), Size: 4, Pair: p.ret, Local: true, Src: in.PC}
		if near {
			fx.Target = uint64(st.copies[sharedCall{rule: r, key: key, part: n}])
		} else {
			st.calls = appendDoubling(st.calls, c)
		}
		kt.addFixup(fx)
		code = window(code, 4)
	}
	if r.LeadWaits == 0 || !kt.xdlQuiet(b, i, r.LeadWaits, r) {
		code = append(code, site.Lead...)
	}
	if saving {
		call(partSave)
	}
	code = append(code, site.Pre...)
	if head > 0 {
		call(partHead)
		code = append(code, body[head:]...)
	} else {
		call(partBody)
	}
	code = append(code, site.Post...)
	if saving {
		call(partRestore)
	}
	code = append(code, site.Tail...)
	st.uses++
	kt.tallyDecision(in, d)
	return code, true
}

// xdlQuiet reports whether the instructions of b before index i give at
// least waits wait states with no MFMA among them, or reach a use of rule
// r first (its code, inline or called, ends with those waits after its
// last MFMA, and older MFMAs are further back). The block's first
// instruction is preceded by unknown code.
func (kt *kernelT) xdlQuiet(b *cfg.Block, i, waits int, r *rules.Shared) bool {
	n := 0
	for j := i - 1; j >= 0 && j < len(b.Insts); j-- {
		x := b.Insts[j]
		if x.Info != nil && kt.sharedAt(b, j) == r {
			return true
		}
		if x.Info == nil || x.Info.Has(isa.FlagMFMA) {
			return false
		}
		n++
		if x.Name() == "s_nop" {
			n += int(binary.LittleEndian.Uint32(kt.raw(x)) & 7)
		}
		if n >= waits {
			return true
		}
	}
	return false
}

// appendShared appends the bodies the current emission calls after the
// code (each ended by s_setpc_b64 through its plan's return pair), points
// the calls at them, and notes the emission's subroutines.
func (kt *kernelT) appendShared(code []byte) []byte {
	st := kt.shared
	if st == nil || st.body != kt.body || st.uses == 0 {
		return code
	}
	at := map[sharedCall]int{}
	bodies, saves := st.nCopies, st.nCopies > 0 && kt.needAGPRs > 0
	// tails are the offsets of the shareable tails emitted so far, by
	// bytes and return pair (the s_setpc_b64 after each): executing a
	// tail of equal bytes is the same, whichever rule made it.
	type tailKey struct {
		ret  uint16
		code string
	}
	tails := map[tailKey]int{}
	heads := map[sharedHead]int{}
	for _, c := range st.order {
		p := st.plans[c.rule]
		at[c] = len(code)
		switch c.part {
		case partHead:
			// A head shared by bodies of several keys: once per bytes
			// and return pair.
			kp := p.key(c.key)
			k := sharedHead{p.ret, string(kp.body[:kp.head])}
			if off, ok := heads[k]; ok {
				at[c] = off
				continue
			}
			heads[k] = len(code)
			code = append(code, k.code...)
			bodies++
		case partBody:
			b := p.key(c.key).body
			bodies++
			if n := p.key(c.key).tail; n > 0 && n <= len(b) {
				k := tailKey{p.ret, string(b[len(b)-n:])}
				head := len(code) + len(b) - n
				if off, ok := tails[k]; ok && (head+4-off)/4 <= 1<<15 {
					// The body's head, then a branch into the tail
					// emitted before (which returns).
					code = append(code, b[:len(b)-n]...)
					code = binary.LittleEndian.AppendUint32(code, kt.pair.Words().SOPP(place.OpBranch, int16((off-len(code)-4)/4)))
					continue
				}
				tails[k] = head
			}
			code = append(code, b...)
		default:
			code = append(code, p.key(c.key).saves[c.part-partSave]...)
			saves = true
		}
		code = binary.LittleEndian.AppendUint32(code, kt.pair.Words().Setpc(p.ret))
	}
	for _, c := range st.calls {
		kt.body.Fixups[c.fx].Target = uint64(at[sharedCall{rule: c.rule, key: c.key, part: c.part}])
	}
	where := "after the code"
	if st.nCopies > 0 {
		where = "in the code, each within call range of its uses"
	}
	kt.rep.Notes = appendOnce(kt.rep.Notes, fmt.Sprintf("%d long expansions call %d per-kernel subroutines placed %s (operands copied to fixed registers, s_call_b64)", st.uses, bodies, where))
	if saves && kt.needAGPRs > 0 {
		kt.rep.Notes = appendOnce(kt.rep.Notes, fmt.Sprintf("subroutine registers live at some use are saved to AGPRs a0..a%d around it", kt.needAGPRs-1))
	}
	if st.inMemory {
		kt.rep.Notes = appendOnce(kt.rep.Notes, "subroutine registers live at some use are saved to per-lane private memory around it")
	}
	return code
}
