package gfx950gfx12

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/cfg"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/dbt/pair/gfx950_gfx12/internal/names"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
)

// Buffer resource descriptors (V#s) keep base, stride and NUM_RECORDS in
// the same bits on gfx9 and gfx12, but word3 differs (research note §4):
// gfx9 DATA_FORMAT [18:15] / NUM_FORMAT [14:12], gfx12 FORMAT [17:12] and
// OOB_SELECT [29:28]. A gfx9 word3 such as 0x00020000 read as gfx12 has
// OOB_SELECT 0, which range-checks the offset against a stride of 0: every
// raw access would read 0 and drop its store.
//
// The conversion is done at the definitions: a forward analysis over the
// scope finds, for every SGPR, the set of `s_mov_b32 sN, constant`
// definitions its value can come from (through s_mov_b32 / s_mov_b64 /
// s_cselect_b32 copies). A definition is rewritten to the gfx12 layout when
// every read of its value is word3 of a buffer instruction's resource (or a
// copy); a buffer instruction whose word3 can come from anything else
// (memory, arithmetic, a constant also read as a number) is rejected.

// vsharpInfo is the analysis of one scope.
type vsharpInfo struct {
	// conv maps the address of a word3 definition to its gfx12 constant.
	conv map[uint64]uint32
	// why maps a buffer instruction's address to the reason its V# is not
	// proven ("" when it is).
	why map[uint64]string
}

// origins is a set of definition addresses (sorted, no duplicates).
type origins []uint64

func (o origins) union(p origins) origins {
	out := append(origins(nil), o...)
	for _, x := range p {
		i := sort.Search(len(out), func(i int) bool { return out[i] >= x })
		if i == len(out) || out[i] != x {
			out = append(out, 0)
			copy(out[i+1:], out[i:])
			out[i] = x
		}
	}
	return out
}

// sstate maps an SGPR to the constant definitions its value comes from; a
// register not in the map holds an unknown value.
type sstate map[uint16]origins

func (s sstate) clone() sstate {
	out := make(sstate, len(s))
	for k, v := range s {
		out[k] = v
	}
	return out
}

// meet keeps the registers known in both, with the union of their origins;
// it reports whether s changed.
func (s sstate) meet(t sstate) bool {
	changed := false
	for k, v := range s {
		w, ok := t[k]
		if !ok {
			delete(s, k)
			changed = true
			continue
		}
		if u := v.union(w); len(u) != len(v) {
			s[k] = u
			changed = true
		}
	}
	return changed
}

// constant returns the value of an inline or literal source operand.
func constant(in *isa.Inst, o isa.Operand) (uint32, bool) {
	switch o.Kind {
	case isa.KindLiteral:
		return in.Literal, true
	case isa.KindInline:
		switch c := o.Imm; {
		case c >= 128 && c <= 192:
			return uint32(c - 128), true
		case c >= 193 && c <= 208:
			return uint32(-(c - 192)), true
		}
	}
	return 0, false
}

func sgprOp(o isa.Operand) bool { return o.Kind == isa.KindReg && o.Class == isa.SGPR }

// copySources returns, for an instruction that only copies SGPR values
// (s_mov_b32, s_mov_b64, s_cselect_b32 of two SGPRs), the source registers
// of each destination register; ok is false for any other instruction.
func copySources(in *isa.Inst) (dst []uint16, src [][]uint16, ok bool) {
	ops := in.Operands
	switch in.Name() {
	case "s_mov_b32":
		if len(ops) == 2 && sgprOp(ops[0]) && sgprOp(ops[1]) {
			return []uint16{ops[0].Reg}, [][]uint16{{ops[1].Reg}}, true
		}
	case "s_mov_b64":
		if len(ops) == 2 && sgprOp(ops[0]) && sgprOp(ops[1]) {
			return []uint16{ops[0].Reg, ops[0].Reg + 1}, [][]uint16{{ops[1].Reg}, {ops[1].Reg + 1}}, true
		}
	case "s_cselect_b32":
		if len(ops) == 3 && sgprOp(ops[0]) && sgprOp(ops[1]) && sgprOp(ops[2]) {
			return []uint16{ops[0].Reg}, [][]uint16{{ops[1].Reg, ops[2].Reg}}, true
		}
	}
	return nil, nil, false
}

// transfer applies in to s.
func transfer(in *isa.Inst, s sstate) {
	if in.Name() == "s_mov_b32" && len(in.Operands) == 2 && sgprOp(in.Operands[0]) {
		if _, ok := constant(in, in.Operands[1]); ok {
			s[in.Operands[0].Reg] = origins{in.PC}
			return
		}
	}
	if dst, src, ok := copySources(in); ok {
		vals := make([]origins, len(dst))
		known := make([]bool, len(dst))
		for i, rs := range src {
			known[i] = true
			for _, r := range rs {
				v, ok := s[r]
				if !ok {
					known[i] = false
					break
				}
				vals[i] = vals[i].union(v)
			}
		}
		for i, d := range dst {
			if known[i] {
				s[d] = vals[i]
			} else {
				delete(s, d)
			}
		}
		return
	}
	for _, o := range in.Operands {
		if sgprOp(o) && o.Role.Defines() {
			for r := o.Reg; r < o.Reg+uint16(max(o.Width, 1)); r++ {
				delete(s, r)
			}
		}
	}
}

// bufferRsrc returns the first SGPR of a MUBUF instruction's resource.
func bufferRsrc(in *isa.Inst) (uint16, bool) {
	if in.Format != isa.MUBUF {
		return 0, false
	}
	for _, o := range in.Operands {
		if sgprOp(o) && o.Width == 4 && o.Role.Uses() {
			return o.Reg, true
		}
	}
	return 0, false
}

// vsharps returns the analysis of the site's scope, computing it once.
func vsharps(site pair.Site) *vsharpInfo {
	key := fmt.Sprintf("vsharp %p", site.Scope) // one analysis per scope
	if site.Memo != nil {
		if v, ok := site.Memo[key].(*vsharpInfo); ok {
			return v
		}
	}
	v := analyzeVSharps(site.Graph, site.Scope)
	if site.Memo != nil {
		site.Memo[key] = v
	}
	return v
}

// analyzeVSharps runs the forward analysis over sc and decides which
// word3 definitions are converted and which buffer instructions are
// proven.
func analyzeVSharps(g *cfg.Graph, sc *cfg.Scope) *vsharpInfo {
	info := &vsharpInfo{conv: map[uint64]uint32{}, why: map[uint64]string{}}
	if g == nil || sc == nil {
		return info
	}
	indexed := ""
	inScope := map[uint64]bool{}
	for _, l := range sc.Blocks {
		inScope[l] = true
		for _, x := range g.Blocks[l].Insts {
			if strings.HasPrefix(x.Name(), "s_movrel") {
				// M0-relative SGPR reads and writes escape the analysis:
				// every buffer instruction of the scope stays unproven.
				indexed = x.Name()
			}
		}
	}
	if indexed != "" {
		for _, l := range sc.Blocks {
			for _, x := range g.Blocks[l].Insts {
				if _, ok := bufferRsrc(x); ok {
					info.why[x.PC] = "the scope indexes SGPRs through M0 (" + indexed + "): V# definitions cannot be followed"
				}
			}
		}
		return info
	}
	var conts []uint64
	for _, l := range sc.Blocks {
		for _, c := range g.Blocks[l].Calls {
			conts = append(conts, c.Cont)
		}
	}
	succs := func(b *cfg.Block) []uint64 {
		out := append([]uint64(nil), b.Succs...)
		for _, c := range b.Calls {
			out = append(out, c.Callee)
		}
		if ind, ok := g.Indirect[b.Last().PC]; ok && ind.Kind == cfg.Return {
			out = append(out, conts...)
		}
		return out
	}
	in := map[uint64]sstate{}
	work := []uint64{}
	for _, r := range sc.Roots {
		if inScope[r] {
			in[r] = sstate{}
			work = append(work, r)
		}
	}
	queued := map[uint64]bool{}
	for _, w := range work {
		queued[w] = true
	}
	for len(work) > 0 {
		l := work[0]
		work = work[1:]
		queued[l] = false
		b := g.Blocks[l]
		s := in[l].clone()
		for _, x := range b.Insts {
			transfer(x, s)
		}
		for _, n := range succs(b) {
			if !inScope[n] {
				continue
			}
			changed := false
			if cur, ok := in[n]; !ok {
				in[n] = s.clone()
				changed = true
			} else {
				changed = cur.meet(s)
			}
			if changed && !queued[n] {
				queued[n] = true
				work = append(work, n)
			}
		}
	}
	// Uses: which origins reach word3 of a buffer resource, and which are
	// read in any other way.
	word3 := map[uint64]bool{}
	taint := map[uint64]string{}
	type use struct {
		pc   uint64
		orig origins
	}
	var bufs []use
	for _, l := range sc.Blocks {
		s0, ok := in[l]
		if !ok {
			continue
		}
		s := s0.clone()
		for _, x := range g.Blocks[l].Insts {
			_, _, isCopy := copySources(x)
			if rs, ok := bufferRsrc(x); ok {
				v, known := s[rs+3]
				switch {
				case !known:
					info.why[x.PC] = fmt.Sprintf("V# word3 in s%d is not a constant the translator can follow to its definition (gfx9 DATA/NUM_FORMAT vs gfx12 FORMAT/OOB_SELECT)", rs+3)
				case x.Mod.Idxen:
					info.why[x.PC] = "structured buffer access (idxen): gfx9 and gfx12 range checks of indexed V#s are not proven equal"
					for _, o := range v {
						taint[o] = "used by an idxen access"
					}
				default:
					bufs = append(bufs, use{x.PC, v})
					for _, o := range v {
						word3[o] = true
					}
				}
				for r := rs; r < rs+3; r++ {
					for _, o := range s[r] {
						taint[o] = "also read as another V# word"
					}
				}
			}
			for _, o := range x.Operands {
				if !sgprOp(o) || !o.Role.Uses() || isCopy {
					continue
				}
				if rs, ok := bufferRsrc(x); ok && o.Reg == rs && o.Width == 4 {
					continue
				}
				for r := o.Reg; r < o.Reg+uint16(max(o.Width, 1)); r++ {
					for _, org := range s[r] {
						taint[org] = "also read by " + x.Name()
					}
				}
			}
			transfer(x, s)
		}
	}
	for o := range word3 {
		if taint[o] != "" {
			continue
		}
		x, _ := g.Inst(o)
		if x == nil {
			taint[o] = "definition not decoded"
			continue
		}
		k, _ := constant(x, x.Operands[1])
		c, err := convertWord3(k)
		if err != nil {
			taint[o] = err.Error()
			continue
		}
		info.conv[o] = c
	}
	for _, u := range bufs {
		for _, o := range u.orig {
			if why := taint[o]; why != "" {
				info.why[u.pc] = fmt.Sprintf("V# word3 defined at %#x cannot be converted to the gfx12 layout: %s", o, why)
				break
			}
		}
		if _, ok := info.why[u.pc]; !ok {
			info.why[u.pc] = ""
		}
	}
	return info
}

// gfx12 word3 fields the conversion writes.
const (
	// untypedFormat is the FORMAT written for untyped access: any valid
	// format serves (the instruction's size decides), 4 is the one
	// composable_kernel's gfx12 constant 0x31004000 uses.
	untypedFormat = 4
	// oobRaw is OOB_SELECT 3: out of range when the offset reaches
	// NUM_RECORDS bytes.
	oobRaw = 3
)

// convertWord3 converts a gfx9 V# word3 used only by untyped, non-indexed
// buffer accesses to the gfx12 layout: DST_SEL kept, FORMAT := a valid
// untyped format, OOB_SELECT := raw. It fails on the fields whose meaning
// it does not carry over: an invalid DATA_FORMAT (0: gfx9 treats the
// buffer as out of range), ADD_TID_ENABLE (an index), USER_VM, NV and a
// non-buffer TYPE.
func convertWord3(w uint32) (uint32, error) {
	switch {
	case w>>15&15 == 0:
		return 0, fmt.Errorf("word3 %#x has DATA_FORMAT 0 (invalid)", w)
	case w>>23&1 != 0:
		return 0, fmt.Errorf("word3 %#x sets ADD_TID_ENABLE (the index is the lane id)", w)
	case w>>19&3 != 0:
		return 0, fmt.Errorf("word3 %#x sets USER_VM_ENABLE/MODE", w)
	case w>>27&1 != 0:
		return 0, fmt.Errorf("word3 %#x sets NV", w)
	case w>>24&0xf != 0 || w>>28 != 0:
		return 0, fmt.Errorf("word3 %#x sets reserved bits or a non-buffer TYPE", w)
	}
	return w&0xfff | untypedFormat<<12 | w&(3<<21) | oobRaw<<28, nil
}

// bufferBound is the premise of the V# conversion.
const bufferBound = "V# range check: gfx9 checks a non-swizzled buffer's offset against NUM_RECORDS bytes, gfx12 OOB_SELECT 3 the same (index 0: no idxen, no ADD_TID); word1 bits 30-31 (gfx9 CACHE_SWIZZLE/SWIZZLE_EN, gfx12 SWIZZLE_ENABLE) are not converted"

// bufferSizes renames the MUBUF data-size suffixes.
var bufferSizes = map[string]string{"dword": "b32", "dwordx2": "b64", "dwordx3": "b96", "dwordx4": "b128",
	"ubyte": "u8", "sbyte": "i8", "ushort": "u16", "sshort": "i16", "byte": "b8", "short": "b16"}

// bufferAtomics renames the MUBUF atomics gfx12 has with the same
// operation.
var bufferAtomics = map[string]string{"add": "add_u32", "sub": "sub_u32", "smin": "min_i32", "umin": "min_u32",
	"smax": "max_i32", "umax": "max_u32", "and": "and_b32", "or": "or_b32", "xor": "xor_b32",
	"inc": "inc_u32", "dec": "dec_u32", "swap": "swap_b32", "cmpswap": "cmpswap_b32",
	"add_x2": "add_u64", "sub_x2": "sub_u64", "smin_x2": "min_i64", "umin_x2": "min_u64",
	"smax_x2": "max_i64", "umax_x2": "max_u64", "and_x2": "and_b64", "or_x2": "or_b64", "xor_x2": "xor_b64",
	"inc_x2": "inc_u64", "dec_x2": "dec_u64", "swap_x2": "swap_b64", "cmpswap_x2": "cmpswap_b64",
	"add_f32": "add_f32", "pk_add_f16": "pk_add_f16", "pk_add_bf16": "pk_add_bf16"}

// bufferOpBound is the bound of a re-encoded MUBUF operation: the V#
// premise, and a d16 rename's own premise when it has one.
func bufferOpBound(name string) string {
	if r := names.BufferD16()[name]; r.Bound != "" {
		return bufferBound + "; " + r.Bound
	}
	return bufferBound
}

// bufferName returns the gfx12 VBUFFER operation of a MUBUF operation:
// the reviewed d16 renames first, then the size and atomic suffixes.
func bufferName(name string) (string, bool) {
	if r, ok := names.BufferD16()[name]; ok {
		return r.To, true
	}
	for _, p := range []string{"buffer_load_", "buffer_store_"} {
		if s, ok := strings.CutPrefix(name, p); ok {
			to, ok := bufferSizes[s]
			if !ok || p == "buffer_load_" && (s == "byte" || s == "short") || p == "buffer_store_" && to[0] != 'b' {
				return "", false
			}
			return p + to, true
		}
	}
	if s, ok := strings.CutPrefix(name, "buffer_atomic_"); ok {
		to, ok := bufferAtomics[s]
		return "buffer_atomic_" + to, ok
	}
	return "", false
}

// lowerBuffer re-encodes a MUBUF instruction whose V# is proven as a
// gfx12 VBUFFER instruction.
func lowerBuffer(in *isa.Inst, site pair.Site) ([]byte, error) {
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	if len(ops) != 4 {
		return nil, fmt.Errorf("%d operands, want vdata, vaddr, srsrc, soffset", len(ops))
	}
	h, err := bufferHost(in, site, in.Name(), ops)
	if err != nil {
		return nil, err
	}
	return h.encode()
}

// bufferHost builds the VBUFFER form of the MUBUF operation name with the
// host operands vdata, vaddr, srsrc, soffset: vaddr off when neither offen
// nor idxen, the inline soffset 0 as null, the offset, offen/idxen, the
// untyped format 1 LLVM writes, and the converted cache policy. It fails
// when the instruction's V# is not proven by the scope analysis.
func bufferHost(in *isa.Inst, site pair.Site, name string, ops []isa.Operand) (host, error) {
	if site.Graph == nil {
		return host{}, fmt.Errorf("no scope analysis for the V# (gfx9 DATA/NUM_FORMAT vs gfx12 FORMAT/OOB_SELECT)")
	}
	why, ok := vsharps(site).why[in.PC]
	if !ok {
		return host{}, fmt.Errorf("buffer instruction outside the analysed scope")
	}
	if why != "" {
		return host{}, fmt.Errorf("%s", why)
	}
	to, ok := bufferName(name)
	if !ok {
		return host{}, fmt.Errorf("no gfx12 VBUFFER counterpart")
	}
	switch {
	case in.Mod.Addr64:
		return host{}, fmt.Errorf("addr64 is not on gfx12")
	case in.Mod.TFE:
		return host{}, fmt.Errorf("tfe is not supported")
	}
	if !in.Mod.Offen && !in.Mod.Idxen {
		ops[1] = off()
	}
	switch so := ops[3]; {
	case so.Kind == isa.KindInline && so.Imm == 128:
		ops[3] = special(isa.RegNull, 1)
	case so.Kind == isa.KindReg && so.Class == isa.SGPR, so.Kind == isa.KindReg && so.Class == isa.Special && so.Reg == uint16(isa.RegM0):
	default:
		return host{}, fmt.Errorf("soffset is not an SGPR, M0 or 0 (gfx12 VBUFFER takes no other constant)")
	}
	h := host{mnem: to, ops: ops}
	h.mod.Offset, h.mod.Offen, h.mod.Idxen, h.mod.Format = in.Mod.Offset, in.Mod.Offen, in.Mod.Idxen, 1
	h.th, h.scope, h.ret = cachePolicy(in)
	return h, nil
}

// ldsBound is the premise of the load-to-LDS expansion.
const ldsBound = bufferBound + "; load to LDS: out-of-range lanes write 0 to LDS (as a plain load returns 0); M0 is added whole"

// bufferLoadLDS expands a gfx950 MUBUF load to LDS (gfx12 has none): the
// same VBUFFER load into scratch VGPRs, s_wait_loadcnt 0, the lane's LDS
// address M0 + lane_id * stride (4 for a dword, 16 for x3 and x4), and
// ds_store_b32/b96/b128 at the instruction offset, then s_wait_dscnt 0,
// so code that waits for the guest's DMA finds the data in LDS.
func bufferLoadLDS(ctx rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	var n int
	switch in.Name() {
	case "buffer_load_dword":
		n = 1
	case "buffer_load_dwordx3":
		n = 3
	case "buffer_load_dwordx4":
		n = 4
	default:
		return nil, fmt.Errorf("%s lds: only dword, dwordx3 and dwordx4 have a rule", in.Name())
	}
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	if len(ops) != 3 {
		return nil, fmt.Errorf("%d operands, want vaddr, srsrc, soffset", len(ops))
	}
	if in.Mod.Offset < 0 || in.Mod.Offset > 0xffff {
		return nil, fmt.Errorf("offset %d does not fit the DS offset", in.Mod.Offset)
	}
	data, err := ctx.TempVGPRRange(n, 1)
	if err != nil {
		return nil, err
	}
	at, err := ctx.TempVGPRs(1)
	if err != nil {
		return nil, err
	}
	a := at[0]
	ld, err := bufferHost(in, site, in.Name(), append([]isa.Operand{vr(data, uint8(n))}, ops...))
	if err != nil {
		return nil, err
	}
	shift := 2
	if n > 1 {
		shift = 4
	}
	st := host{mnem: map[int]string{1: "ds_store_b32", 3: "ds_store_b96", 4: "ds_store_b128"}[n], ops: []isa.Operand{vr(a, 1), vr(data, uint8(n))}}
	st.mod.Offset = in.Mod.Offset
	return seq(ld,
		host{mnem: "s_wait_loadcnt", ops: []isa.Operand{imm(0)}},
		host{mnem: "v_mbcnt_lo_u32_b32", ops: []isa.Operand{vr(a, 1), inl(-1), inl(0)}},
		host{mnem: "v_mbcnt_hi_u32_b32", ops: []isa.Operand{vr(a, 1), inl(-1), vr(a, 1)}},
		host{mnem: "v_lshl_add_u32", ops: []isa.Operand{vr(a, 1), vr(a, 1), inl(shift), special(isa.RegM0, 1)}},
		st,
		host{mnem: "s_wait_dscnt", ops: []isa.Operand{imm(0)}})
}

// word3Def returns the converted definition of a V# word3 constant, or
// nil when in is not one.
func word3Def(in *isa.Inst, site pair.Site) ([]byte, bool, error) {
	if site.Graph == nil || in.Name() != "s_mov_b32" {
		return nil, false, nil
	}
	c, ok := vsharps(site).conv[in.PC]
	if !ok {
		return nil, false, nil
	}
	b, err := host{mnem: "s_mov_b32", ops: []isa.Operand{in.Operands[0], lit(c)}}.encode()
	return b, true, err
}
