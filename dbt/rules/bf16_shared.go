package rules

import (
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// The subroutine form of v_cvt_pk_bf16_f32: one body per kernel runs
// CvtPkBF16Code on fixed registers (two sources, the result, three
// temporaries; the NaN mask goes to the plan's SGPR pair). A call site
// copies the two sources (VGPR, SGPR or inline constant) into the fixed
// sources, calls the body and copies the result out: 4 instructions
// (16 bytes) instead of 15 (104 bytes), with identical results.

var cvtPkBF16Shared = &Shared{Key: cvtPkBF16Key, Site: cvtPkBF16Site, Body: cvtPkBF16Body, Names: cvtPkBF16Names, SGPRPair: true}

// cvtPkBF16Fields checks a v_cvt_pk_bf16_f32 and returns vdst, src0, src1.
func cvtPkBF16Fields(in *isa.Inst, raw []byte) (vdst, src0, src1 uint16, err error) {
	if len(raw) != 8 {
		return 0, 0, 0, fieldErr(in, "size", uint32(len(raw)))
	}
	w := words(raw)
	if err := noMods(in, w[0], w[1]); err != nil {
		return 0, 0, 0, err
	}
	src0, src1 = uint16(w[1]&0x1ff), uint16(w[1]>>9&0x1ff)
	if src0 == srcLit || src1 == srcLit {
		return 0, 0, 0, fieldErr(in, "literal source", srcLit)
	}
	return uint16(w[0] & 0xff), src0, src1, nil
}

func cvtPkBF16Key(in *isa.Inst, raw []byte) (string, bool) {
	_, _, _, err := cvtPkBF16Fields(in, raw)
	return "cvt-pk-bf16", err == nil
}

// cvtPkBF16Layout: sources, result, temporaries.
func cvtPkBF16Layout(regs []uint16) ([6]uint16, []uint16, error) {
	var r [6]uint16
	p := newRegPool(regs)
	if err := p.ones(&r[0], &r[1], &r[2], &r[3], &r[4], &r[5]); err != nil {
		return r, nil, err
	}
	return r, p.used, nil
}

func cvtPkBF16Site(in *isa.Inst, raw []byte, regs SharedRegs) (SharedSite, error) {
	vdst, src0, src1, err := cvtPkBF16Fields(in, raw)
	if err != nil {
		return SharedSite{}, err
	}
	r, used, err := cvtPkBF16Layout(regs.V)
	if err != nil {
		return SharedSite{}, err
	}
	pre := append(smVOP1(smMovB32, r[0], src0, 0), smVOP1(smMovB32, r[1], src1, 0)...)
	post := smVOP1(smMovB32, vdst, srcVGPR+r[2], 0)
	return SharedSite{Pre: appendWords(nil, pre...), Post: appendWords(nil, post...), Used: used}, nil
}

func cvtPkBF16Body(in *isa.Inst, raw []byte, regs SharedRegs) ([]byte, error) {
	r, _, err := cvtPkBF16Layout(regs.V)
	if err != nil {
		return nil, err
	}
	if code, ok := cvtPkBF16CheckedCode([][3]uint16{{srcVGPR + r[2], srcVGPR + r[0], srcVGPR + r[1]}}, r[3], regs.SPair); ok {
		return code, nil
	}
	return CvtPkBF16Code(r[2], srcVGPR+r[0], srcVGPR+r[1], r[3], r[4], r[5], regs.SPair), nil
}

// cvtPkBF16Names: VGPR sources and the destination.
func cvtPkBF16Names(in *isa.Inst, raw []byte) ([]uint16, bool) {
	vdst, src0, src1, err := cvtPkBF16Fields(in, raw)
	if err != nil {
		return nil, false
	}
	return vgprNames(vdst, src0, src1), true
}

// vgprNames is the VGPR vdst and the VGPRs among the 9-bit source operand
// codes srcs (SGPRs and constants are left out).
func vgprNames(vdst uint16, srcs ...uint16) []uint16 {
	out := []uint16{vdst}
	for _, s := range srcs {
		if s >= srcVGPR {
			out = append(out, s-srcVGPR)
		}
	}
	return out
}

// The in-place subroutine form (issue 15: the aiter bf16 GEMM epilogues
// convert the same four register triples 32 times each): where a kernel
// scope has cvtPkBF16InPlaceMin or more uses with the same destination
// and sources, they share a body on those registers, with only the
// temporaries fixed, so a use is the s_call_b64 alone (4 bytes and 15
// executed instructions with the body and the return, instead of 16 bytes
// and 18). Fewer uses of a triple keep the copying form: a body per
// triple would cost more bytes than the copies it saves.

// cvtPkBF16InPlaceMin is the fewest uses of one triple given its own body
// (a body is 100 bytes plus the return; a use saves 12).
const cvtPkBF16InPlaceMin = 8

var cvtPkBF16InPlaceShared = &Shared{Key: cvtPkBF16InPlaceKey, Site: cvtPkBF16InPlaceSite, Body: cvtPkBF16InPlaceBody, Names: cvtPkBF16Names, SGPRPair: true}

var (
	cvtPkBF16InPlaceOnce sync.Once
	cvtPkBF16InPlace     *Rule
)

// cvtPkBF16TriplesKey is the pair.Site.Memo entry counting a scope's
// v_cvt_pk_bf16_f32 uses per register triple.
const cvtPkBF16TriplesKey = "rules.cvt-pk-bf16-triples"

// cvtPkBF16Triple returns the 9-bit operand codes of a
// v_cvt_pk_bf16_f32's destination and register sources.
func cvtPkBF16Triple(in *isa.Inst) ([3]uint16, bool) {
	var t [3]uint16
	if in.Name() != "v_cvt_pk_bf16_f32" || len(in.Operands) != 3 {
		return t, false
	}
	for k, o := range in.Operands {
		switch {
		case o.Kind != isa.KindReg || o.Width != 1:
			return t, false
		case o.Class == isa.VGPR:
			t[k] = srcVGPR + o.Reg
		case o.Class == isa.SGPR && k > 0 && o.Reg < 106:
			t[k] = o.Reg
		default:
			return t, false
		}
	}
	return t, true
}

// CvtPkBF16RuleAt returns the cvt-pk-bf16 rule for in with the in-place
// subroutine form when the kernel scope (scope walks its instructions;
// memo is the pair's per-scope cache) has cvtPkBF16InPlaceMin or more uses
// with in's destination and sources, and nil otherwise (the rule as
// registered).
func CvtPkBF16RuleAt(in *isa.Inst, memo map[string]any, scope func(fn func(*isa.Inst))) *Rule {
	t, ok := cvtPkBF16Triple(in)
	if !ok || memo == nil || scope == nil {
		return nil
	}
	counts, _ := memo[cvtPkBF16TriplesKey].(map[[3]uint16]int)
	if counts == nil {
		counts = map[[3]uint16]int{}
		scope(func(x *isa.Inst) {
			if u, ok := cvtPkBF16Triple(x); ok {
				counts[u]++
			}
		})
		memo[cvtPkBF16TriplesKey] = counts
	}
	if counts[t] < cvtPkBF16InPlaceMin {
		return nil
	}
	cvtPkBF16InPlaceOnce.Do(func() {
		if base := For(isa.GFX950, isa.GFX942, "v_cvt_pk_bf16_f32"); base != nil {
			r := *base
			r.Shared = cvtPkBF16InPlaceShared
			cvtPkBF16InPlace = &r
		}
	})
	return cvtPkBF16InPlace
}

func cvtPkBF16InPlaceKey(in *isa.Inst, raw []byte) (string, bool) {
	vdst, src0, src1, err := cvtPkBF16Fields(in, raw)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("cvt-pk-bf16/%d,%d,%d", vdst, src0, src1), true
}

// cvtPkBF16InPlaceLayout: the three temporaries.
func cvtPkBF16InPlaceLayout(regs []uint16) ([3]uint16, []uint16, error) {
	var r [3]uint16
	p := newRegPool(regs)
	if err := p.ones(&r[0], &r[1], &r[2]); err != nil {
		return r, nil, err
	}
	return r, p.used, nil
}

func cvtPkBF16InPlaceSite(in *isa.Inst, raw []byte, regs SharedRegs) (SharedSite, error) {
	if _, _, _, err := cvtPkBF16Fields(in, raw); err != nil {
		return SharedSite{}, err
	}
	_, used, err := cvtPkBF16InPlaceLayout(regs.V)
	if err != nil {
		return SharedSite{}, err
	}
	return SharedSite{Used: used}, nil
}

func cvtPkBF16InPlaceBody(in *isa.Inst, raw []byte, regs SharedRegs) ([]byte, error) {
	vdst, src0, src1, err := cvtPkBF16Fields(in, raw)
	if err != nil {
		return nil, err
	}
	r, _, err := cvtPkBF16InPlaceLayout(regs.V)
	if err != nil {
		return nil, err
	}
	return cvtPkBF16RunCode([][3]uint16{{srcVGPR + vdst, src0, src1}}, r, regs.SPair), nil
}

// Runs of in-place conversions (issue 15: the aiter bf16 GEMM epilogues
// convert their four triples back to back, v16 <- v8,v9 up to v19 <-
// v14,v15, 32 times). Adjacent v_cvt_pk_bf16_f32 of a block whose triples
// each have the in-place form (CvtPkBF16RuleAt) make runs of at most
// cvtPkBF16RunMax, counted from the first of the block's adjacent ones;
// a run's first conversion converts the whole run, through one body
// shared by the scope's equal runs (4 bytes and one call and return per
// run instead of per conversion) or inline, and the later conversions of
// the run emit nothing. The body converts the triples in program order
// with the code of their own bodies, and nothing runs between them in the
// guest, so the results are those of the separate conversions. The run's
// registers are all named at its first conversion, so no fixed or inline
// temporary is one of them. A run whose first conversion cannot be
// emitted rejects the kernel (fails closed) like any rule error.

// cvtPkBF16RunMax bounds a run (the conversions of one body).
const cvtPkBF16RunMax = 8

// cvtPkBF16Runs caches the run rules by run: their Shared forms key the
// translator's subroutine plans, so equal runs get the same one.
var cvtPkBF16Runs struct {
	sync.Mutex
	m map[string]*Rule
}

// cvtPkBF16Plain returns the triple of a v_cvt_pk_bf16_f32 with a VGPR
// destination and no modifiers (VOP3, no literal, no unowned bits).
func cvtPkBF16Plain(in *isa.Inst) ([3]uint16, bool) {
	t, ok := cvtPkBF16Triple(in)
	if !ok || in.Size != 8 || in.HasLiteral || in.Mod != (isa.Modifiers{}) || in.Pad != ([4]uint32{}) || t[0] < srcVGPR {
		return t, false
	}
	for _, o := range in.Operands {
		if o.Mods != 0 {
			return t, false
		}
	}
	return t, true
}

// CvtPkBF16RunRuleAt returns the rule for block[i] when it is in a run of
// two or more adjacent conversions whose triples have the in-place form in
// the scope (scope and memo as for CvtPkBF16RuleAt): for the run's first,
// the rule that converts the whole run; for a later one, the rule that
// emits nothing. nil otherwise.
func CvtPkBF16RunRuleAt(block []*isa.Inst, i int, memo map[string]any, scope func(fn func(*isa.Inst))) *Rule {
	if memo == nil || scope == nil || i < 0 || i >= len(block) {
		return nil
	}
	member := func(j int) bool {
		if j < 0 || j >= len(block) {
			return false
		}
		_, ok := cvtPkBF16Plain(block[j])
		return ok && CvtPkBF16RuleAt(block[j], memo, scope) != nil
	}
	if !member(i) {
		return cvtPkBF16CopyRunRuleAt(block, i, memo, scope)
	}
	start := i
	for member(start - 1) {
		start--
	}
	first := start + (i-start)/cvtPkBF16RunMax*cvtPkBF16RunMax
	end := first + 1
	for end < len(block) && end-first < cvtPkBF16RunMax && member(end) {
		end++
	}
	if end-first < 2 {
		return nil
	}
	base := CvtPkBF16RuleAt(block[i], memo, scope)
	if i != first {
		return cvtPkBF16Nothing(base)
	}
	var triples [][3]uint16
	kb := append(make([]byte, 0, 64), "cvt-pk-bf16-run"...)
	for j := first; j < end; j++ {
		t, _ := cvtPkBF16Plain(block[j])
		triples = append(triples, t)
		// "/d,s0,s1" per conversion.
		for k, r := range t {
			kb = append(kb, "/,,"[k])
			kb = strconv.AppendUint(kb, uint64(r), 10)
		}
	}
	key := string(kb)
	cvtPkBF16Runs.Lock()
	defer cvtPkBF16Runs.Unlock()
	if r, ok := cvtPkBF16Runs.m[key]; ok {
		return r
	}
	if cvtPkBF16Runs.m == nil {
		cvtPkBF16Runs.m = map[string]*Rule{}
	}
	r := *base
	r.Shared = cvtPkBF16RunShared(key, triples)
	r.Emit = cvtPkBF16RunEmit(triples)
	cvtPkBF16Runs.m[key] = &r
	return &r
}

// cvtPkBF16RunEmit is the inline expansion of a run's first conversion:
// the whole run (cvtPkBF16RunCode) with scratch registers none of the
// run names.
func cvtPkBF16RunEmit(triples [][3]uint16) func(Context, *isa.Inst, []byte) ([]byte, error) {
	return func(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
		if t, ok := cvtPkBF16Plain(in); !ok || t != triples[0] {
			return nil, fieldErr(in, "conversion run", 0)
		}
		names := cvtPkBF16RunNames(triples)
		if res, ok := ctx.(VGPRReserver); ok {
			res.ReserveVGPRs(names...)
		}
		tv, err := ctx.TempVGPRs(3)
		if err != nil {
			return nil, err
		}
		for _, x := range tv {
			if slices.Contains(names, x) {
				return nil, fieldErr(in, "conversion run scratch", uint32(x))
			}
		}
		p, err := ctx.TempSGPRPair()
		if err != nil {
			return nil, err
		}
		return cvtPkBF16RunCode(triples, [3]uint16{tv[0], tv[1], tv[2]}, p), nil
	}
}

// cvtPkBF16Nothing is the rule of a run's later conversion: the run's
// first converts it.
func cvtPkBF16Nothing(base *Rule) *Rule {
	r := *base
	r.Shared = nil
	r.Emit = func(Context, *isa.Inst, []byte) ([]byte, error) {
		// The run's first conversion converts this one.
		return []byte{}, nil
	}
	return &r
}

// Copy runs (issue 15: the fmha_v3 attention kernels convert 16 register
// triples in runs of 5 and 6 between MFMAs, each triple used twice, too
// few for in-place bodies, so each conversion was a call of the copying
// form: 16 executed instructions with its three copies, the call and the
// return). Adjacent v_cvt_pk_bf16_f32 without the in-place form make runs
// of at most cvtPkBF16CopyRunMax, counted from the first of the block's
// adjacent ones, when no conversion of the run reads a destination an
// earlier one of the run writes; a run's first conversion converts the
// whole run through one body per run length and scope, on fixed
// registers: its call site copies the run's 2n sources in, calls the body
// (the checked form on the fixed registers, which never alias) and copies
// the n results out in program order (9n+7 executed instructions without
// a NaN, 12n+4 bytes a site), and the later conversions emit nothing.
// Reading every source before writing any destination gives the separate
// conversions' results because no source is an earlier destination; a
// destination written twice ends with the later result, copied out last.
// Copy runs are at most cvtPkBF16CopyRunMax long: a body of n costs
// about 90n bytes and each use saves 4n-4 over the copying form's calls,
// so long bodies grow .text (with runs of up to 8 the f8_block_scale epilogues,
// 64 conversions in runs of 16, grew by 400 bytes, which moved the aiter
// .text growth median past 1.30x; with 4 they stay within 100 bytes of
// the copying form). A length is
// made runs of only where the scope has two or more such runs of it
// (counted over the scope's instructions in order, which may join runs
// across a block boundary: a miscount only leaves a run inline, as the
// translator does with a body used once); the inline form of a run is its
// conversions in order (cvtPkBF16RunCode).

// cvtPkBF16CopyRunMax bounds a copy run (see above).
const cvtPkBF16CopyRunMax = 4

// cvtPkBF16CopyRunsKey is the pair.Site.Memo entry of a scope's copy runs.
const cvtPkBF16CopyRunsKey = "rules.cvt-pk-bf16-copy-runs"

// cvtPkBF16CopyRuns is a scope's copy-run state: the runs counted by
// length over the scope, the body form per length, and each run's
// triples and rule by its first conversion.
type cvtPkBF16CopyRuns struct {
	sync.Mutex
	lengths map[int]int
	shared  map[int]*Shared
	triples map[*isa.Inst][][3]uint16
	rules   map[*isa.Inst]*Rule
}

// cvtPkBF16CopyChunks splits a sequence of adjacent conversions into runs
// (at most cvtPkBF16CopyRunMax each) and calls fn with each run's triples and
// its offset in the sequence; a run that reads an earlier destination of
// its own is passed as nil.
func cvtPkBF16CopyChunks(seq [][3]uint16, fn func(off int, run [][3]uint16)) {
	for off := 0; off < len(seq); off += cvtPkBF16CopyRunMax {
		run := seq[off:min(off+cvtPkBF16CopyRunMax, len(seq))]
		var dsts []uint16
		for _, t := range run {
			if slices.Contains(dsts, t[1]) || slices.Contains(dsts, t[2]) {
				run = nil
				break
			}
			dsts = append(dsts, t[0])
		}
		fn(off, run)
	}
}

// cvtPkBF16CopyMember says in is a conversion a copy run may hold: plain,
// without the in-place form.
func cvtPkBF16CopyMember(in *isa.Inst, memo map[string]any, scope func(fn func(*isa.Inst))) ([3]uint16, bool) {
	t, ok := cvtPkBF16Plain(in)
	return t, ok && CvtPkBF16RuleAt(in, memo, scope) == nil
}

// cvtPkBF16CopyRunRuleAt is CvtPkBF16RunRuleAt for conversions without
// the in-place form: the copy-run rule of block[i], or nil.
func cvtPkBF16CopyRunRuleAt(block []*isa.Inst, i int, memo map[string]any, scope func(fn func(*isa.Inst))) *Rule {
	if _, ok := cvtPkBF16CopyMember(block[i], memo, scope); !ok {
		return nil
	}
	st, _ := memo[cvtPkBF16CopyRunsKey].(*cvtPkBF16CopyRuns)
	if st == nil {
		st = &cvtPkBF16CopyRuns{lengths: map[int]int{}, shared: map[int]*Shared{}, triples: map[*isa.Inst][][3]uint16{}, rules: map[*isa.Inst]*Rule{}}
		var seq [][3]uint16
		flush := func() {
			cvtPkBF16CopyChunks(seq, func(_ int, run [][3]uint16) {
				if len(run) >= 2 {
					st.lengths[len(run)]++
				}
			})
			seq = seq[:0]
		}
		scope(func(x *isa.Inst) {
			if t, ok := cvtPkBF16CopyMember(x, memo, scope); ok {
				seq = append(seq, t)
				return
			}
			flush()
		})
		flush()
		memo[cvtPkBF16CopyRunsKey] = st
	}
	start := i
	for start > 0 {
		if _, ok := cvtPkBF16CopyMember(block[start-1], memo, scope); !ok {
			break
		}
		start--
	}
	// Only the chunk holding i matters: the sequence up to its end.
	end := start + ((i-start)/cvtPkBF16CopyRunMax+1)*cvtPkBF16CopyRunMax
	var seq [][3]uint16
	for j := start; j < len(block) && j < end; j++ {
		t, ok := cvtPkBF16CopyMember(block[j], memo, scope)
		if !ok {
			break
		}
		seq = append(seq, t)
	}
	var run [][3]uint16
	first := -1
	cvtPkBF16CopyChunks(seq, func(off int, r [][3]uint16) {
		if i-start >= off && i-start < off+cvtPkBF16CopyRunMax {
			run, first = r, start+off
		}
	})
	if len(run) < 2 || i-first >= len(run) {
		return nil
	}
	st.Lock()
	defer st.Unlock()
	if st.lengths[len(run)] < 2 {
		return nil
	}
	base := For(isa.GFX950, isa.GFX942, "v_cvt_pk_bf16_f32")
	if base == nil {
		return nil
	}
	if i != first {
		return cvtPkBF16Nothing(base)
	}
	if r, ok := st.rules[block[i]]; ok {
		return r
	}
	sh := st.shared[len(run)]
	if sh == nil {
		sh = cvtPkBF16CopyRunShared(st, len(run))
		st.shared[len(run)] = sh
	}
	st.triples[block[i]] = run
	r := *base
	r.Shared = sh
	r.Emit = cvtPkBF16RunEmit(run)
	st.rules[block[i]] = &r
	return &r
}

// cvtPkBF16CopyRunLayout: the 2n fixed sources, the n fixed results, the
// temporary.
func cvtPkBF16CopyRunLayout(n int, regs []uint16) ([]uint16, []uint16, error) {
	r := make([]uint16, 3*n+1)
	p := newRegPool(regs)
	for k := range r {
		if err := p.ones(&r[k]); err != nil {
			return nil, nil, err
		}
	}
	return r, p.used, nil
}

// cvtPkBF16CopyRunShared is the subroutine form of the scope's copy runs
// of n conversions.
func cvtPkBF16CopyRunShared(st *cvtPkBF16CopyRuns, n int) *Shared {
	key := fmt.Sprintf("cvt-pk-bf16-copy-run/%d", n)
	run := func(in *isa.Inst) ([][3]uint16, bool) {
		st.Lock()
		defer st.Unlock()
		t, ok := st.triples[in]
		return t, ok && len(t) == n
	}
	return &Shared{
		Key: func(in *isa.Inst, raw []byte) (string, bool) {
			_, ok := run(in)
			return key, ok
		},
		Site: func(in *isa.Inst, raw []byte, regs SharedRegs) (SharedSite, error) {
			triples, ok := run(in)
			if !ok {
				return SharedSite{}, fieldErr(in, "conversion run", 0)
			}
			r, used, err := cvtPkBF16CopyRunLayout(n, regs.V)
			if err != nil {
				return SharedSite{}, err
			}
			var pre, post []uint32
			for k, t := range triples {
				pre = append(pre, smVOP1(smMovB32, r[2*k], t[1], 0)...)
				pre = append(pre, smVOP1(smMovB32, r[2*k+1], t[2], 0)...)
				post = append(post, smVOP1(smMovB32, t[0]-srcVGPR, srcVGPR+r[2*n+k], 0)...)
			}
			return SharedSite{Pre: appendWords(nil, pre...), Post: appendWords(nil, post...), Used: used}, nil
		},
		Body: func(in *isa.Inst, raw []byte, regs SharedRegs) ([]byte, error) {
			r, _, err := cvtPkBF16CopyRunLayout(n, regs.V)
			if err != nil {
				return nil, err
			}
			fixed := make([][3]uint16, n)
			for k := range fixed {
				fixed[k] = [3]uint16{srcVGPR + r[2*n+k], srcVGPR + r[2*k], srcVGPR + r[2*k+1]}
			}
			code, ok := cvtPkBF16CheckedCode(fixed, r[3*n], regs.SPair)
			if !ok {
				return nil, fieldErr(in, "conversion run fixed registers", uint32(r[0]))
			}
			return code, nil
		},
		Names: func(in *isa.Inst, raw []byte) ([]uint16, bool) {
			triples, ok := run(in)
			return cvtPkBF16RunNames(triples), ok
		},
		SGPRPair: true,
	}
}

// cvtPkBF16RunNames lists the VGPRs of a run's triples.
func cvtPkBF16RunNames(triples [][3]uint16) []uint16 {
	var out []uint16
	for _, t := range triples {
		out = append(out, vgprNames(t[0]-srcVGPR, t[1], t[2])...)
	}
	return out
}

// cvtPkBF16PrecheckedMin is the fewest triples cvtPkBF16RunCode gives
// the prechecked form: for two it saves 3 executed instructions over the
// staged form but takes about 160 more bytes.
const cvtPkBF16PrecheckedMin = 3

// cvtPkBF16RunCode converts the run's triples in order, each in place,
// with the three scratch VGPRs t: in the checked form where it applies,
// else (cvtPkBF16PrecheckedMin or more) in the prechecked form where that
// applies, else in groups of two in the staged checked form (the temporary and two
// staging registers) where that applies, each other group with
// CvtPkBF16Code. The groups convert in program order; one group's sources
// are read after the earlier groups' destinations are written, as the
// separate conversions read them.
func cvtPkBF16RunCode(triples [][3]uint16, t [3]uint16, p uint16) []byte {
	if code, ok := cvtPkBF16CheckedCode(triples, t[0], p); ok {
		return code
	}
	if len(triples) >= cvtPkBF16PrecheckedMin {
		if code, ok := cvtPkBF16PrecheckedCode(triples, t, p); ok {
			return code
		}
	}
	var out []byte
	for k := 0; k < len(triples); k += 2 {
		group := triples[k:min(k+2, len(triples))]
		if code, ok := cvtPkBF16StagedCode(group, t[0], t[1:1+len(group)], p); ok {
			out = append(out, code...)
			continue
		}
		for _, tr := range group {
			out = append(out, CvtPkBF16Code(tr[0]-srcVGPR, tr[1], tr[2], t[0], t[1], t[2], p)...)
		}
	}
	return out
}

// cvtPkBF16RunShared is the subroutine form of one run: the body converts
// the run on its own registers with fixed temporaries.
func cvtPkBF16RunShared(key string, triples [][3]uint16) *Shared {
	check := func(in *isa.Inst) bool {
		t, ok := cvtPkBF16Plain(in)
		return ok && t == triples[0]
	}
	return &Shared{
		Key: func(in *isa.Inst, raw []byte) (string, bool) { return key, check(in) },
		Site: func(in *isa.Inst, raw []byte, regs SharedRegs) (SharedSite, error) {
			if !check(in) {
				return SharedSite{}, fieldErr(in, "conversion run", 0)
			}
			_, used, err := cvtPkBF16InPlaceLayout(regs.V)
			if err != nil {
				return SharedSite{}, err
			}
			return SharedSite{Used: used}, nil
		},
		Body: func(in *isa.Inst, raw []byte, regs SharedRegs) ([]byte, error) {
			r, _, err := cvtPkBF16InPlaceLayout(regs.V)
			if err != nil {
				return nil, err
			}
			return cvtPkBF16RunCode(triples, r, regs.SPair), nil
		},
		Names: func(in *isa.Inst, raw []byte) ([]uint16, bool) {
			return cvtPkBF16RunNames(triples), check(in)
		},
		SGPRPair: true,
	}
}

// The checked form of the subroutine and run bodies (issue 15: in the
// bf16 GEMM and attention kernels no source of a conversion is a NaN, yet
// the NaN selects were 6 of a conversion's 13 instructions). The body
// first converts every triple as if no source were a NaN: 0x7fff once in
// the pair's low SGPR (s_movk_i32), then per triple v_bfe_u32 + v_add3_u32
// for each source (the second straight into the destination, whose upper
// half is then the rounded src1) and a v_mov_b32 SDWA move of the first
// rounded value's upper half into the destination's lower half (5 VALU
// instructions). It then saves EXEC in the pair and narrows EXEC to the
// lanes where some source is a NaN: v_fma_f32 folds the sources two at a
// time (a NaN operand gives a NaN, so does inf * 0: such a false alarm
// only runs the fix-up below for nothing) and v_cmp_u_f32 of the fold and
// the last source writes EXEC. s_cbranch_execz skips the fix-up when no
// lane has one; otherwise, for each source, EXEC is narrowed to the lanes
// where it is a NaN and an SDWA v_or_b32 writes its upper half with the
// quiet bit (hi | 0x40, the inline constant 64) into its half of the
// destination. EXEC is restored
// from the pair, and s_nop 2 gives the 5 wait states gfx9 wants between a
// VALU write of EXEC and a following DPP operation, whatever follows the
// body. Executed when no lane has a NaN: 6n+5 instructions for n triples
// (11 for one, 29 for four) instead of 13n.
//
// It applies when every source and destination is a VGPR, no destination
// is a source of the run or the temporary, and the destinations are
// distinct: the fix-up reads the sources after every destination is
// written. The inline expansion (CvtPkBF16Code) stays as it is: the gfx12
// pair lowers it, and takes SDWA with whole-dword selects only.

// Host encodings of the checked form.
const (
	op3FmaF32          = 0x1cb
	sdwaSrc            = 0xf9 // the VOP1/VOP2 src0 code announcing an SDWA word
	sdwaWord0          = 4
	sdwaWord1          = 5
	sdwaDword          = 6
	sdwaPreserve       = 2
	srcExec            = 126
	soppNop            = 0xbf800000
	soppCbranchExecz   = 0xbf880000
	cvtPkBF16QuietHalf = 0x40
)

// sMovB64 is s_mov_b64 sdst, ssrc (SGPR pairs or EXEC).
func sMovB64(sdst, ssrc uint16) uint32 {
	return 0xbe800000 | uint32(sdst&0x7f)<<16 | sop1MovB64<<8 | uint32(ssrc&0xff)
}

// sdwaMovHi is v_mov_b32_sdwa vdst, src dst_sel:WORD_<half>
// dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 (VGPRs): the upper half of
// src into one half of vdst, the other half kept.
func sdwaMovHi(vdst, src uint16, half uint32) [2]uint32 {
	return [2]uint32{0x7e000000 | uint32(vdst&0xff)<<17 | uint32(op1MovB32)<<9 | sdwaSrc,
		uint32(src&0xff) | (sdwaWord0+half)<<8 | sdwaPreserve<<11 | sdwaWord1<<16}
}

// sdwaOrHiConst is v_or_b32_sdwa vdst, src, k dst_sel:WORD_<half>
// dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:DWORD (VGPRs vdst
// and src, k an inline constant code, which gfx9 SDWA takes with the S1
// bit): the upper half of src ORed with k into one half of vdst.
func sdwaOrHiConst(vdst, src, k uint16, half uint32) [2]uint32 {
	return [2]uint32{uint32(op2OrB32)<<25 | uint32(vdst&0xff)<<17 | uint32(k&0xff)<<9 | sdwaSrc,
		uint32(src&0xff) | (sdwaWord0+half)<<8 | sdwaPreserve<<11 | sdwaWord1<<16 | sdwaDword<<24 | 1<<31}
}

// cvtPkBF16CheckedCode returns the checked form of the triples (9-bit
// operand codes of destination and sources, converted in order) with the
// temporary VGPR t and the SGPR pair p, and false when the form does not
// apply to them (see above).
func cvtPkBF16CheckedCode(triples [][3]uint16, t, p uint16) ([]byte, bool) {
	if len(triples) == 0 {
		return nil, false
	}
	var srcs, dsts []uint16
	for _, tr := range triples {
		for _, x := range tr {
			if x < srcVGPR || x-srcVGPR == t {
				return nil, false
			}
		}
		srcs = append(srcs, tr[1]-srcVGPR, tr[2]-srcVGPR)
		if slices.Contains(dsts, tr[0]-srcVGPR) {
			return nil, false
		}
		dsts = append(dsts, tr[0]-srcVGPR)
	}
	for _, d := range dsts {
		if slices.Contains(srcs, d) {
			return nil, false
		}
	}
	return cvtPkBF16CheckedWords(triples, t, p, nil), true
}

// The staged checked form (issue 15: the in-place runs of the mla and
// fmha_v3_bwd kernels write destinations that are sources of the same or
// an earlier conversion, v34 <- v34,v35; v35 <- v36,v37; ..., so the
// checked form's fix-up would read converted values; cvtPkBF16RunCode
// stages groups of two with its three scratch registers): the checked form
// with each conversion's result in a staging VGPR of its own, moved to its
// destination in program order (v_mov_b32) after EXEC is restored. Every
// source is read before any destination is written, which gives the
// separate conversions' results when no conversion reads a destination an
// earlier one writes; a destination written twice ends with the later
// result. With 3 or more moves they give the wait states after the VALU
// write of EXEC, and the s_nop is left out. Executed when no lane has a
// NaN: 7n+5 instructions for n triples (7n+4 from three on).

// cvtPkBF16StagedCode returns the staged checked form of the triples with
// the temporary t and one staging VGPR per triple, and false when it does
// not apply (a non-VGPR operand, a triple reading an earlier destination,
// a scratch register among the operands).
func cvtPkBF16StagedCode(triples [][3]uint16, t uint16, stage []uint16, p uint16) ([]byte, bool) {
	if len(triples) == 0 || len(stage) != len(triples) {
		return nil, false
	}
	scratch := append([]uint16{t}, stage...)
	var dsts []uint16
	for _, tr := range triples {
		for _, x := range tr {
			if x < srcVGPR || slices.Contains(scratch, x-srcVGPR) {
				return nil, false
			}
		}
		if slices.Contains(dsts, tr[1]-srcVGPR) || slices.Contains(dsts, tr[2]-srcVGPR) {
			return nil, false
		}
		dsts = append(dsts, tr[0]-srcVGPR)
	}
	for i, a := range scratch {
		if slices.Contains(scratch[i+1:], a) {
			return nil, false
		}
	}
	return cvtPkBF16CheckedWords(triples, t, p, stage), true
}

// cvtPkBF16CheckedWords is the checked form of the triples, the results
// in their destinations or, with stage, in the staging registers and then
// moved to their destinations.
func cvtPkBF16CheckedWords(triples [][3]uint16, t, p uint16, stage []uint16) []byte {
	var srcs, dsts []uint16
	for k, tr := range triples {
		srcs = append(srcs, tr[1]-srcVGPR, tr[2]-srcVGPR)
		if stage != nil {
			dsts = append(dsts, stage[k])
		} else {
			dsts = append(dsts, tr[0]-srcVGPR)
		}
	}
	w := []uint32{sopkMovkI32 | uint32(p&0x7f)<<16 | 0x7fff}
	for k, tr := range triples {
		d := dsts[k]
		w = append(w, cvtBF16Round(tr[1], t, p)...)
		w = append(w, cvtBF16Round(tr[2], d, p)...)
		m := sdwaMovHi(d, t, 0)
		w = append(w, m[0], m[1])
	}
	w = append(w, sMovB64(p, srcExec))
	last := srcs[len(srcs)-1]
	if len(srcs) > 2 {
		f := vop3(op3FmaF32, t, srcVGPR+srcs[0], srcVGPR+srcs[1], srcVGPR+srcs[2])
		w = append(w, f[0], f[1])
		for i := 3; i+1 < len(srcs); i += 2 {
			f := vop3(op3FmaF32, t, srcVGPR+srcs[i], srcVGPR+srcs[i+1], srcVGPR+t)
			w = append(w, f[0], f[1])
		}
		// 2n sources: the folds took all but the last.
		c := vop3(op3CmpUF32, srcExec, srcVGPR+t, srcVGPR+last, 0)
		w = append(w, c[0], c[1])
	} else {
		c := vop3(op3CmpUF32, srcExec, srcVGPR+srcs[0], srcVGPR+last, 0)
		w = append(w, c[0], c[1])
	}
	var fix []uint32
	for i, x := range srcs {
		if i > 0 {
			fix = append(fix, sMovB64(srcExec, p))
		}
		c := vop3(op3CmpUF32, srcExec, srcVGPR+x, srcVGPR+x, 0)
		o := sdwaOrHiConst(dsts[i/2], x, inlineInt(cvtPkBF16QuietHalf), uint32(i%2))
		fix = append(fix, c[0], c[1], o[0], o[1])
	}
	w = append(w, soppCbranchExecz|uint32(len(fix)))
	w = append(w, fix...)
	w = append(w, sMovB64(srcExec, p))
	for k, tr := range triples {
		if stage != nil {
			w = append(w, vop1(op1MovB32, tr[0]-srcVGPR, srcVGPR+stage[k]))
		}
	}
	if stage == nil || len(stage) < 3 {
		w = append(w, soppNop|2)
	}
	return appendWords(nil, w...)
}

// The prechecked form (issue 15: the in-place runs of the mla and
// fmha_v3_bwd kernels, v34 <- v34,v35; v35 <- v36,v37; ..., took the
// staged form, 7 executed instructions a conversion plus 5 a group of
// two): the NaN check comes first, while every source still holds its
// value. EXEC is saved in the pair, the v_fma_f32 folds and v_cmp_u_f32
// narrow EXEC to the lanes where some source may be a NaN (as in the
// checked form), and s_cbranch_execz takes the fast path when there is
// none: EXEC restored, 0x7fff in the pair's low SGPR, and per triple in
// program order v_bfe_u32 + v_add3_u32 of the first source into the
// temporary, of the second straight into the destination, and the SDWA
// move of the temporary's upper half into the destination's lower half.
// Otherwise EXEC is restored and the triples are converted in program
// order by CvtPkBF16Code (which handles every NaN), and s_cbranch_execnz
// (EXEC holds the lanes just found, so is not zero) jumps over the fast
// path. Either way the triples convert in program order as the separate
// conversions do; the check reads the sources before any destination is
// written, which is their value at each conversion when no triple reads
// an earlier destination. The fast path writes a destination after its
// triple's first source is rounded, so the destination may be that
// source but not the second one. Executed when no lane has a NaN: 6n+4
// instructions for n triples. Both paths leave at least 5 wait states
// between the VALU write of EXEC and whatever follows.

// cvtPkBF16PrecheckedCode returns the prechecked form of the triples
// (9-bit operand codes of destination and sources, converted in order)
// with the three scratch VGPRs t and the SGPR pair p, and false when it
// does not apply: an operand that is not a VGPR or is a scratch register,
// a triple reading an earlier destination, a destination that is its own
// second source.
func cvtPkBF16PrecheckedCode(triples [][3]uint16, t [3]uint16, p uint16) ([]byte, bool) {
	if len(triples) == 0 || t[0] == t[1] || t[0] == t[2] || t[1] == t[2] {
		return nil, false
	}
	var srcs, dsts []uint16
	for _, tr := range triples {
		for _, x := range tr {
			if x < srcVGPR || slices.Contains(t[:], x-srcVGPR) {
				return nil, false
			}
		}
		if tr[0] == tr[2] || slices.Contains(dsts, tr[1]-srcVGPR) || slices.Contains(dsts, tr[2]-srcVGPR) {
			return nil, false
		}
		srcs = append(srcs, tr[1]-srcVGPR, tr[2]-srcVGPR)
		dsts = append(dsts, tr[0]-srcVGPR)
	}
	w := []uint32{sMovB64(p, srcExec)}
	last := srcs[len(srcs)-1]
	fold := srcVGPR + srcs[0]
	if len(srcs) > 2 {
		f := vop3(op3FmaF32, t[0], srcVGPR+srcs[0], srcVGPR+srcs[1], srcVGPR+srcs[2])
		w = append(w, f[0], f[1])
		for i := 3; i+1 < len(srcs); i += 2 {
			f := vop3(op3FmaF32, t[0], srcVGPR+srcs[i], srcVGPR+srcs[i+1], srcVGPR+t[0])
			w = append(w, f[0], f[1])
		}
		fold = srcVGPR + t[0]
	}
	c := vop3(op3CmpUF32, srcExec, fold, srcVGPR+last, 0)
	w = append(w, c[0], c[1])
	var slow []uint32
	slow = append(slow, sMovB64(srcExec, p))
	for _, tr := range triples {
		slow = append(slow, words(CvtPkBF16Code(tr[0]-srcVGPR, tr[1], tr[2], t[0], t[1], t[2], p))...)
	}
	fast := []uint32{sMovB64(srcExec, p), sopkMovkI32 | uint32(p&0x7f)<<16 | 0x7fff}
	for _, tr := range triples {
		d := tr[0] - srcVGPR
		fast = append(fast, cvtBF16Round(tr[1], t[0], p)...)
		fast = append(fast, cvtBF16Round(tr[2], d, p)...)
		m := sdwaMovHi(d, t[0], 0)
		fast = append(fast, m[0], m[1])
	}
	// Branch offsets count dwords from the word after the branch.
	w = append(w, soppCbranchExecz|uint32(len(slow)+1))
	w = append(w, slow...)
	w = append(w, sopp|soppCbranchExecnz<<16|uint32(len(fast)))
	w = append(w, fast...)
	return appendWords(nil, w...), true
}
