package instrument

import (
	"github.com/rocjitsu/rocjitsu/dbt/cfg"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/live"
	"github.com/rocjitsu/rocjitsu/dbt/place"
	"github.com/rocjitsu/rocjitsu/sqtt"
)

// lshr opcodes (SOP2 s_lshr_b32).
func (w *words) lshr() uint32 {
	if w == gfx9Words {
		return 0x1e
	}
	return 0x0a
}

// selfRegs are the SGPRs an instruction names.
func selfRegs(in *isa.Inst) live.Set {
	var s live.Set
	for _, o := range in.Operands {
		if o.Kind == isa.KindReg && o.Class == isa.SGPR {
			s.Add(int(o.Reg), int(o.Width))
		}
	}
	return s
}

// freeSGPRs returns n SGPRs below the limit that nothing reads after in,
// that in does not name, and that are not the scope flag.
func (k *kplan) freeSGPRs(in *isa.Inst, n int, except ...int) ([]uint32, bool) {
	if in == nil {
		return nil, n == 0
	}
	a := k.live.After(in.PC)
	if a == nil {
		return nil, n == 0
	}
	self := selfRegs(in)
	for {
		var out []uint32
		for r := 0; r < k.limit && len(out) < n; r++ {
			if a.S.Has(r) || self.Has(r) || r == k.flag || containsInt(except, r) {
				continue
			}
			out = append(out, uint32(r))
		}
		if len(out) == n || !k.grow() {
			return out, len(out) == n
		}
	}
}

// grow allocates one more granule of SGPRs on gfx9 (the descriptor's
// count grows; VCC, FLAT_SCRATCH and XNACK_MASK stay at the top of the
// allocation, so the new registers are ones no instruction names). It
// reports false when the SGPR file is full or the family allocates all
// SGPRs anyway.
func (k *kplan) grow() bool {
	if !isa.GFX9.Has(k.o.t) {
		return false
	}
	next := k.k.Descriptor.NextFreeSGPR() + 8*(k.extra+1)
	if next-6 > 102 {
		return false
	}
	k.extra++
	k.limit = next - 6
	return true
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// prepareScope picks the scope-flag SGPR (one the scope never names) and
// builds the entry code that computes it: bit 0 is set when every active
// dimension's mask has the bit of this wave's id.
func (k *kplan) prepareScope() error {
	w := k.o.w
	type dim struct {
		f    hwField
		mask uint32
	}
	var dims []dim
	for d := range 4 {
		if m, ok := k.opt.scopeActive(d, w.hwID[d].size); ok {
			dims = append(dims, dim{w.hwID[d], m})
		}
	}
	if len(dims) == 0 {
		return nil
	}
	for k.flag < 0 {
		for r := 0; r < k.limit; r++ {
			if !k.live.Used.S.Has(r) {
				k.flag = r
				break
			}
		}
		if k.flag >= 0 || !k.grow() {
			break
		}
	}
	if k.flag < 0 {
		return reject("kernel %s: scope filtering needs an SGPR the kernel never uses below s%d; there is none", k.k.Name, k.limit)
	}
	entry, _ := k.o.g.Inst(k.k.EntryAddr)
	if entry == nil {
		return reject("kernel %s: the entry %#x is not a decoded instruction: no place for the scope check", k.k.Name, k.k.EntryAddr)
	}
	tmp, ok := k.freeSGPRs(entry, 2)
	if !ok {
		return reject("kernel %s: no dead SGPR at the entry for the scope check", k.k.Name)
	}
	t, save := tmp[0], tmp[1]
	f := uint32(k.flag)
	var code []byte
	sccLive := k.sp.before[entry.PC]&spSCC != 0
	if sccLive {
		code = put(code, sop2(w.cselect, save, 0x81, 0x80))
	}
	for i, d := range dims {
		code = put(code, getreg(t, d.f), sop2(w.lshr(), t, opLiteral, t), d.mask)
		if i == 0 {
			code = put(code, sop2(w.and, f, t, 0x81))
		} else {
			code = put(code, sop2(w.and, f, f, t))
		}
	}
	if sccLive {
		code = put(code, cmpLg0(save))
	}
	k.entryCode = code
	return nil
}

// seq appends the marker sequence for ms at in (after it when after).
func (k *kplan) seq(code []byte, ms []mark, in *isa.Inst, after bool) ([]byte, error) {
	if len(ms) == 0 {
		return code, nil
	}
	w := k.o.w
	vals := values(ms)
	var addrs []*addrSpec
	for _, m := range ms {
		if m.addr != nil {
			addrs = append(addrs, m.addr)
		}
	}
	sp := k.sp.before[in.PC]
	if after {
		sp = k.sp.after[in.PC]
	}
	needM0 := len(addrs) > 0
	for _, v := range vals {
		if !k.o.useImm(v) {
			needM0 = true
		}
	}
	scope := k.flag >= 0
	saveSCC := (scope || k.o.packed || len(addrs) > 0) && sp&spSCC != 0
	saveM0 := needM0 && sp&spM0 != 0
	n := 0
	if saveSCC {
		n++
	}
	if saveM0 {
		n++
	}
	if k.o.packed {
		n++
	}
	if len(addrs) > 0 {
		n += 3
	}
	regs, ok := k.freeSGPRs(in, n)
	if !ok {
		return nil, reject("kernel %s: marker at %#x needs %d dead SGPRs (to keep M0/SCC or sample the clock), found %d", k.k.Name, in.PC, n, len(regs))
	}
	take := func() uint32 { r := regs[0]; regs = regs[1:]; return r }
	var sS, sM, sT, aC, aT, aU uint32
	if saveSCC {
		sS = take()
	}
	if saveM0 {
		sM = take()
	}
	if k.o.packed {
		sT = take()
	}
	if len(addrs) > 0 {
		aC, aT, aU = take(), take(), take()
	}
	words := 0
	emit := func(ws ...uint32) {
		code = put(code, ws...)
	}
	inst := func(ws ...uint32) { emit(ws...); words++ }
	if saveSCC {
		inst(sop2(w.cselect, sS, 0x81, 0x80))
	}
	branchAt := -1
	if scope {
		inst(cmpLg0(uint32(k.flag)))
		branchAt = len(code)
		inst(w.cbrSCC0)
	}
	if saveM0 {
		inst(w.movFromM0(sM))
	}
	for _, v := range vals {
		switch {
		case k.o.useImm(v):
			inst(w.ttraceImm | v)
		case k.o.packed:
			bits, shift := k.opt.ShaderClockBits, k.opt.ShaderClockShift
			inst(getreg(sT, hwField{hwShaderCyclesLo, shift, bits}))
			inst(sop2(w.lshl, sT, sT, 0x80+32-bits))
			inst(sop2(w.or, w.m0, sT, opLiteral))
			emit(v)
			inst(nopWord)
			inst(w.ttrace)
		default:
			if c, ok := inline(v); ok {
				inst(w.movToM0(c))
			} else {
				inst(w.movToM0(opLiteral))
				emit(v)
			}
			inst(nopWord)
			inst(w.ttrace)
		}
	}
	payload := 0
	for _, a := range addrs {
		k.addrWords(inst, func(v uint32) { emit(v) }, func() int { return len(code) }, a, aC, aT, aU)
		vals = append(vals, sqtt.Encode(a.idEntry.id, false, false))
		payload += a.payload
	}
	if saveM0 {
		// The restored M0 may feed the next instruction (LDS-direct
		// loads, s_sendmsg): one wait state, as after the source's own
		// M0 writes.
		inst(w.movToM0(sM))
		inst(nopWord)
	}
	if branchAt >= 0 {
		d := (len(code) - (branchAt + 4)) / 4
		code[branchAt] = byte(d)
		code[branchAt+1] = byte(d >> 8)
	}
	if saveSCC {
		inst(cmpLg0(sS))
	}
	k.out = append(k.out, Site{Kernel: k.k.Name, PC: in.PC, After: after, Values: vals, Words: words, Payload: payload})
	k.added += words
	return code, nil
}

// trampSrc marks the source address of a trampoline's branch (the
// branch it continues, with this bit set) in placement errors.
const trampSrc = uint64(1) << 62

// gfx12Branch maps gfx12 SOPP branch opcodes to the GFX9 ones place uses.
var gfx12Branch = map[uint16]uint8{0x20: place.OpBranch, 0x21: place.OpCbranchSCC0, 0x22: place.OpCbranchSCC1,
	0x23: place.OpCbranchVCCZ, 0x24: place.OpCbranchVCCNZ, 0x25: place.OpCbranchEXECZ, 0x26: place.OpCbranchEXECNZ}

// emit builds the kernel's body.
func (k *kplan) emit() error {
	k.body = &place.Body{Name: k.k.Name, Map: map[uint64]int{}, Entry: k.k.EntryAddr, Words: k.o.w.place}
	isRoot := map[uint64]bool{}
	for _, r := range k.roots {
		isRoot[r] = true
	}
	if isRoot[k.k.EntryAddr+256] {
		k.body.Preload = k.k.EntryAddr + 256
	}
	k.out, k.added = nil, 0
	var code []byte
	labels := map[uint64]int{}
	var pending []int
	type trampFix struct {
		fix int
		e   edge
		in  *isa.Inst
	}
	var tfix []trampFix
	var err error
	for _, l := range k.sc.Blocks {
		b := k.o.g.Blocks[l]
		for i, in := range b.Insts {
			k.body.Map[in.PC] = len(code)
			if isRoot[in.PC] && len(k.entryCode) > 0 {
				code = append(code, k.entryCode...)
				k.added += countWords(k.entryCode)
			}
			s := k.sites[in.PC]
			if s != nil {
				if code, err = k.seq(code, s.prefix, in, false); err != nil {
					return err
				}
			}
			labels[in.PC] = len(code)
			if s != nil {
				if code, err = k.seq(code, s.rest, in, false); err != nil {
					return err
				}
			}
			var local bool
			if code, local, err = k.inst(code, b, i, in); err != nil {
				return err
			}
			if local {
				fx := k.body.Fixups[len(k.body.Fixups)-1]
				if _, tr := k.tramps[edge{in.PC, fx.Target}]; tr {
					tfix = append(tfix, trampFix{len(k.body.Fixups) - 1, edge{in.PC, fx.Target}, in})
				} else {
					pending = append(pending, len(k.body.Fixups)-1)
				}
			}
			if s != nil {
				if code, err = k.seq(code, s.after, in, true); err != nil {
					return err
				}
			}
		}
	}
	for _, i := range pending {
		fx := &k.body.Fixups[i]
		fx.Target = uint64(labels[fx.Target])
	}
	// Trampolines: the edge's markers, then a branch on to the target.
	for _, tf := range tfix {
		at := len(code)
		if code, err = k.seq(code, k.tramps[tf.e], tf.in, true); err != nil {
			return err
		}
		src := tf.in.PC | trampSrc
		fx := place.Fixup{Kind: place.Branch, Op: place.OpBranch, Off: len(code), Size: 4, Target: tf.e.to, Src: src}
		if k.long[src] {
			pair, scc, save, err := k.longPair(tf.in, tf.e.to)
			if err != nil {
				return err
			}
			fx.Long, fx.Pair, fx.SaveSCC, fx.SCCReg = true, pair, save, scc
			fx.Size = place.LongSize(place.OpBranch, save)
		}
		if h, ok := k.backEdge[tf.in.PC]; ok && h == tf.e.to {
			// A latch's exit from an inner loop: continue past the
			// header's enter like the back edge itself.
			fx.Local, fx.Target = true, uint64(labels[h])
		}
		k.body.Fixups = append(k.body.Fixups, fx)
		code = window(code, fx.Size)
		k.added++
		k.body.Fixups[tf.fix].Target = uint64(at)
	}
	k.body.Code = code
	return nil
}

// countWords counts the instructions of a sequence that has literals only
// after s_lshr_b32 (the scope-check code).
func countWords(code []byte) int {
	n := 0
	for i := 0; i+4 <= len(code); i += 4 {
		w := uint32(code[i]) | uint32(code[i+1])<<8 | uint32(code[i+2])<<16 | uint32(code[i+3])<<24
		n++
		if w>>30 == 2 && w&0xff == opLiteral {
			i += 4
		}
	}
	return n
}

func window(code []byte, n int) []byte {
	for i := 0; i < n; i += 4 {
		code = put(code, place.NopWord)
	}
	return code
}

// inst appends one source instruction: its bytes, or a fixup window for
// control flow and s_getpc_b64 arithmetic. local reports a back-edge
// fixup whose Target is still the header address (resolved to the label
// after the header's loop prefix).
func (k *kplan) inst(code []byte, b *cfg.Block, i int, in *isa.Inst) ([]byte, bool, error) {
	off := in.PC - k.o.g.Text.Addr
	raw := k.o.g.Text.Data[off : off+uint64(in.Size)]
	switch in.Info.Branch {
	case isa.BranchJump, isa.BranchCond:
		t, ok := in.BranchTarget()
		if !ok {
			break
		}
		op := uint8(in.Opcode)
		if !isa.GFX9.Has(k.o.t) {
			o, ok := gfx12Branch[in.Opcode]
			if !ok {
				return nil, false, reject("kernel %s: %#x: branch %s cannot be relocated", k.k.Name, in.PC, in.Name())
			}
			op = o
		}
		fx := place.Fixup{Kind: place.Branch, Op: op, Off: len(code), Size: 4, Target: t, Src: in.PC}
		local := false
		if h, ok := k.backEdge[in.PC]; ok && h == t {
			fx.Local, local = true, true
		}
		if _, ok := k.tramps[edge{in.PC, t}]; ok {
			fx.Local, local = true, true
		}
		if k.long[in.PC] {
			pair, scc, save, err := k.longPair(in, t)
			if err != nil {
				return nil, false, err
			}
			fx.Long, fx.Pair, fx.SaveSCC, fx.SCCReg = true, pair, save, scc
			fx.Size = place.LongSize(op, save)
		}
		k.body.Fixups = append(k.body.Fixups, fx)
		return window(code, fx.Size), local, nil
	case isa.BranchCall:
		if t, ok := in.BranchTarget(); ok {
			var rp uint16
			for _, o := range in.Operands {
				if o.Kind == isa.KindReg && o.Role.Defines() && o.Class == isa.SGPR {
					rp = o.Reg
				}
			}
			fx := place.Fixup{Kind: place.Call, Off: len(code), Size: 4, Target: t, Pair: rp, Src: in.PC}
			if k.long[in.PC] {
				via, scc, save, err := k.longPair(in, t)
				if err != nil {
					return nil, false, err
				}
				fx.Long, fx.Via, fx.SaveSCC, fx.SCCReg, fx.Size = true, via, save, scc, place.LongSize(place.OpBranch, save)
			}
			k.body.Fixups = append(k.body.Fixups, fx)
			return window(code, fx.Size), false, nil
		}
		ind := k.o.g.Indirect[in.PC]
		if ind == nil || ind.Kind != cfg.IndirectCall || len(ind.Targets) != 1 {
			return nil, false, reject("kernel %s: %#x: %s with no single recovered target", k.k.Name, in.PC, in.Name())
		}
		if k.canonicalBuilder(b, i, ind.Pair, ind.Targets[0]) {
			return append(code, raw...), false, nil
		}
		if k.long[in.PC] {
			return nil, false, reject("kernel %s: %#x: indirect call out of range", k.k.Name, in.PC)
		}
		k.body.Fixups = append(k.body.Fixups, place.Fixup{Kind: place.Call, Off: len(code), Size: 4, Target: ind.Targets[0], Pair: ind.RetPair, Src: in.PC})
		return window(code, 4), false, nil
	case isa.BranchIndirect:
		ind := k.o.g.Indirect[in.PC]
		switch {
		case ind != nil && ind.Kind == cfg.Return:
			return append(code, raw...), false, nil
		case ind != nil && ind.Kind == cfg.IndirectJump && len(ind.Targets) == 1 && k.canonicalBuilder(b, i, ind.Pair, ind.Targets[0]):
			return append(code, raw...), false, nil
		case ind != nil && ind.Kind == cfg.IndirectJump && len(ind.Targets) == 1 && !k.long[in.PC]:
			k.body.Fixups = append(k.body.Fixups, place.Fixup{Kind: place.Branch, Op: place.OpBranch, Off: len(code), Size: 4, Target: ind.Targets[0], Src: in.PC})
			return window(code, 4), false, nil
		}
		return nil, false, reject("kernel %s: %#x: s_setpc_b64 with no single recovered target", k.k.Name, in.PC)
	}
	if in.Name() == "s_getpc_b64" {
		c, err := k.getpc(code, b, i, in, raw)
		return c, false, err
	}
	return append(code, raw...), false, nil
}

// longPair finds a dead SGPR pair for a long window at in and, unless SCC
// is dead at the target, a third dead SGPR to keep SCC in.
func (k *kplan) longPair(in *isa.Inst, t uint64) (pair, scc uint16, save bool, err error) {
	a := k.live.After(in.PC)
	self := selfRegs(in)
	free := func(r int) bool { return a != nil && !a.S.Has(r) && !self.Has(r) && r != k.flag }
	p := -1
	for p < 0 {
		for r := 0; r+1 < k.limit; r += 2 {
			if free(r) && free(r+1) {
				p = r
				break
			}
		}
		if p >= 0 || !k.grow() {
			break
		}
	}
	if p < 0 {
		return 0, 0, false, reject("kernel %s: %#x: out-of-range branch needs a dead SGPR pair for a long window; there is none", k.k.Name, in.PC)
	}
	if k.sp.before[t]&spSCC == 0 {
		return uint16(p), 0, false, nil
	}
	for {
		for r := 0; r < k.limit; r++ {
			if r != p && r != p+1 && free(r) {
				return uint16(p), uint16(r), true, nil
			}
		}
		if !k.grow() {
			break
		}
	}
	return 0, 0, false, reject("kernel %s: %#x: long window must keep SCC but no third dead SGPR exists", k.k.Name, in.PC)
}

// canonicalBuilder reports whether earlier in block b a s_getpc_b64 /
// s_add_u32 / s_addc_u32 literal sequence sets pair to target with no
// later write of the pair before index i (the s_getpc_b64 fixup then
// makes the pair hold the new address).
func (k *kplan) canonicalBuilder(b *cfg.Block, i int, pair uint16, target uint64) bool {
	writes := func(x *isa.Inst) bool {
		for _, o := range x.Operands {
			if o.Kind == isa.KindReg && o.Role.Defines() && o.Class == isa.SGPR && int(o.Reg) <= int(pair)+1 && int(o.Reg)+int(o.Width) > int(pair) {
				return true
			}
		}
		return false
	}
	for j := i - 1; j >= 0; j-- {
		x := b.Insts[j]
		if x.Name() == "s_getpc_b64" && len(x.Operands) > 0 && x.Operands[0].Class == isa.SGPR && x.Operands[0].Reg == pair {
			if j+2 >= i {
				return false
			}
			add, addc := b.Insts[j+1], b.Insts[j+2]
			if !isAddPair(add, addc) {
				return false
			}
			for _, y := range b.Insts[j+3 : i] {
				if writes(y) {
					return false
				}
			}
			return x.PC+4+(uint64(addc.Literal)<<32|uint64(add.Literal)) == target
		}
		if writes(x) && !isAdd(x.Name()) {
			return false
		}
	}
	return false
}

func isAdd(n string) bool {
	return n == "s_add_u32" || n == "s_addc_u32" || n == "s_add_co_u32" || n == "s_add_co_ci_u32"
}

func isAddPair(add, addc *isa.Inst) bool {
	lo := add.Name() == "s_add_u32" || add.Name() == "s_add_co_u32"
	hi := addc.Name() == "s_addc_u32" || addc.Name() == "s_add_co_ci_u32"
	return lo && hi && add.HasLiteral && addc.HasLiteral
}

// getpc relocates s_getpc_b64 followed by its canonical literal pair.
func (k *kplan) getpc(code []byte, b *cfg.Block, i int, in *isa.Inst, raw []byte) ([]byte, error) {
	if len(in.Operands) < 1 || in.Operands[0].Class != isa.SGPR {
		return nil, reject("kernel %s: %#x: s_getpc_b64 without an SGPR destination", k.k.Name, in.PC)
	}
	n := in.Operands[0].Reg
	if i+2 >= len(b.Insts) {
		return nil, reject("kernel %s: %#x: s_getpc_b64 not followed by an s_add/s_addc literal pair in its block", k.k.Name, in.PC)
	}
	lo, ok1 := cfg.PCLiteral(b.Insts[i+1], false, n)
	hi, ok2 := cfg.PCLiteral(b.Insts[i+2], true, n+1)
	if !ok1 || !ok2 {
		return nil, reject("kernel %s: %#x: s_getpc_b64 not followed by the canonical literal pair: its PC-relative arithmetic cannot be re-biased", k.k.Name, in.PC)
	}
	if k.sites[b.Insts[i+1].PC] != nil || k.sites[b.Insts[i+2].PC] != nil || (k.sites[in.PC] != nil && len(k.sites[in.PC].after) > 0) {
		return nil, reject("kernel %s: %#x: a marker would split the s_getpc_b64 literal pair", k.k.Name, in.PC)
	}
	tgt := in.PC + 4 + (uint64(hi)<<32 | uint64(lo))
	fx := place.Fixup{Kind: place.PCRel, Off: len(code), Size: 4, Pair: n, Target: tgt, Src: in.PC, LoLit: len(code) + 8, HiLit: len(code) + 16}
	if k.o.g.Text.Contains(tgt) {
		if _, ok := k.o.g.Inst(tgt); !ok || !k.inScopeInst(tgt) {
			return nil, reject("kernel %s: %#x: s_getpc_b64 computes %#x inside .text, which is not an instruction of the kernel's scope", k.k.Name, in.PC, tgt)
		}
	} else {
		fx.Data = true
	}
	k.body.Fixups = append(k.body.Fixups, fx)
	return append(code, raw...), nil
}
