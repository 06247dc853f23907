package rules

import (
	"sync"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// v_permlane16_swap_b32 vdst, vsrc exchanges the odd 16-lane rows of vdst
// with the even rows of vsrc (lane l+16 of vdst <-> lane l of vsrc for l in
// rows 0 and 2); v_permlane32_swap_b32 exchanges the upper 32 lanes of vdst
// with the lower 32 lanes of vsrc. Both operands are read and written.
//
// The expansion reads each operand's partner lanes with ds_swizzle_b32
// (xor 16) or ds_bpermute_b32 (xor 32), then writes them into the rows
// that take them with v_mov_b32_dpp: an identity quad_perm under a
// row_mask leaves the other rows' lanes as they were (8 bytes each, no
// constant mask in SGPRs).

// PermlaneBound documents the partial-EXEC difference.
const PermlaneBound = "exact when both lanes of every swapped pair are active (full EXEC); a lane whose partner is inactive reads the partner's register value instead of the hardware's inactive-lane behaviour"

// Permlane16RuleName is the v_permlane16_swap_b32 rule's name.
const Permlane16RuleName = "permlane16-swap"

func init() {
	p := Pair{isa.GFX950, isa.GFX942}
	register(p, &Rule{Name: Permlane16RuleName, Ops: []string{"v_permlane16_swap_b32"}, Fidelity: report.Approximate, Bound: PermlaneBound, Emit: emitPermlaneSwap})
	register(p, &Rule{Name: "permlane32-swap", Ops: []string{"v_permlane32_swap_b32"}, Fidelity: report.Approximate, Bound: PermlaneBound, Emit: emitPermlaneSwap})
}

// permlaneExecWaits is the wait states a DPP operation needs after a VALU
// write of EXEC on gfx9; permlane16Own is those the 16-row expansion's
// two swizzles and wait give before its first DPP move.
const (
	permlaneExecWaits = 5
	permlane16Own     = 3
)

var (
	permlane16NoNopOnce sync.Once
	permlane16NoNop     *Rule
)

// Permlane16RuleAt returns the permlane16-swap rule without the s_nop
// before the DPP moves when the instructions of block before block[i]
// give the wait states themselves: nothing among the last of them (at
// least permlaneExecWaits-permlane16Own wait states, counting each
// instruction as one and s_nop N as N+1; every host expansion of a guest
// instruction is at least that long) writes EXEC. It returns nil (the
// rule as registered, with the s_nop) when it cannot tell, for example
// near the start of the block.
func Permlane16RuleAt(block []*isa.Inst, i int) *Rule {
	if i < 0 || i >= len(block) || block[i].Name() != "v_permlane16_swap_b32" {
		return nil
	}
	need, got := permlaneExecWaits-permlane16Own, 0
	for j := i - 1; j >= 0 && got < need; j-- {
		x := block[j]
		if x.Info == nil || writesEXEC(x) {
			return nil
		}
		if x.Name() == "s_nop" && len(x.Operands) == 1 && x.Operands[0].Kind == isa.KindImm {
			got += int(x.Operands[0].Imm&0xf) + 1
		} else {
			got++
		}
	}
	if got < need {
		return nil
	}
	permlane16NoNopOnce.Do(func() {
		if base := For(isa.GFX950, isa.GFX942, "v_permlane16_swap_b32"); base != nil {
			r := *base
			r.Emit = func(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
				return emitPermlaneSwapNop(ctx, in, raw, false)
			}
			permlane16NoNop = &r
		}
	})
	return permlane16NoNop
}

// writesEXEC says x writes EXEC, named or implicitly.
func writesEXEC(x *isa.Inst) bool {
	if x.Info.ImplicitWrites&isa.ImpEXEC != 0 {
		return true
	}
	for _, o := range x.Operands {
		if o.Kind == isa.KindReg && o.Role.Defines() && o.Class == isa.Special && (isa.SpecialReg(o.Reg) == isa.RegEXECLo || isa.SpecialReg(o.Reg) == isa.RegEXECHi) {
			return true
		}
	}
	return false
}

const (
	dsOpSwizzle   = 0x3d
	dsOpBpermute  = 0x3f
	sop1MovB32    = 0x00
	op2XorB32     = 0x15
	op2LshlrevB32 = 0x12
)

func dsRead(op uint32, vdst, addr, data uint16, off uint32) [2]uint32 {
	return [2]uint32{0xd8000000 | op<<17 | off&0xffff, uint32(addr) | uint32(data)<<8 | uint32(vdst)<<24}
}

// sMovLit is s_mov_b32 sdst, value (a literal, or an inline constant when
// it has one).
func sMovLit(sdst uint16, v uint32) []uint32 {
	w := 0xbe800000 | uint32(sdst&0x7f)<<16 | sop1MovB32<<8
	switch {
	case v <= 64:
		return []uint32{w | (128 + v)}
	case v == 0xffffffff:
		return []uint32{w | srcOnes}
	}
	return []uint32{w | srcLit, v}
}

// PermlaneSwapCode returns host code swapping VGPRs d and s as
// v_permlane<rows>_swap_b32 (rows 16 or 32) does, with temporaries x, y
// and a (a only for 32).
func PermlaneSwapCode(rows int, d, s, x, y, a uint16) []byte {
	return permlaneSwapCode(rows, d, s, x, y, a, true)
}

// permlaneSwapCode is PermlaneSwapCode; nop says the 16-row form waits
// with s_nop 1 for a VALU write of EXEC just before it.
func permlaneSwapCode(rows int, d, s, x, y, a uint16, nop bool) []byte {
	var w []uint32
	// Rows of d that take s's partner lanes, and rows of s that take d's.
	var rowsD, rowsS uint32
	if rows == 16 {
		sx := dsRead(dsOpSwizzle, x, s, 0, 0x401f) // swizzle(SWAP,16): lane l reads l^16
		sy := dsRead(dsOpSwizzle, y, d, 0, 0x401f)
		w = append(w, sx[0], sx[1], sy[0], sy[1])
		rowsD, rowsS = 0xa, 0x5
	} else {
		w = append(w, laneBytes(a)...)
		bx := dsRead(dsOpBpermute, x, a, s, partnerOffset32)
		by := dsRead(dsOpBpermute, y, a, d, partnerOffset32)
		w = append(w, bx[0], bx[1], by[0], by[1])
		rowsD, rowsS = 0xc, 0x3
	}
	w = append(w, waitLGKMCnt0)
	if rows == 16 && nop {
		// A DPP operation needs 5 wait states after a VALU write of
		// EXEC (a guest v_cmpx just before): the two swizzles and the
		// wait give 3 (the 32-row form's address VALU makes 6).
		w = append(w, sNop(1))
	}
	w = append(w, movRows(d, x, rowsD)...) // upper lanes take vsrc's lower lanes
	w = append(w, movRows(s, y, rowsS)...) // lower lanes of vsrc take vdst's upper lanes
	return appendWords(nil, w...)
}

// partnerOffset32 is the ds_bpermute_b32 offset that makes lane l read
// lane l^32: the instruction offset is added to the byte address 4l and
// only address bits 7:2 select the lane, so 4l+128 selects (l+32) mod 64
// (no v_xor_b32 of the lane id).
const partnerOffset32 = 128

// laneBytes returns code setting VGPR a to 4 * the lane id.
func laneBytes(a uint16) []uint32 {
	lo := vop3(op3MbcntLo, a, srcOnes, srcZero, 0)
	hi := vop3(op3MbcntHi, a, srcOnes, srcVGPR+a, 0)
	w := []uint32{lo[0], lo[1], hi[0], hi[1]}
	return append(w, vop2(op2LshlrevB32, a, inlineInt(2), a, 0)...)
}

// dppSrc is the VOP1/VOP2 src0 code that selects the DPP word.
const dppSrc = 0xfa

// movRows encodes v_mov_b32_dpp vdst, vsrc quad_perm:[0,1,2,3]
// row_mask:rows bank_mask:0xf: the active lanes of the 16-lane rows set in
// rows take vsrc, the other lanes keep vdst.
func movRows(vdst, vsrc uint16, rows uint32) []uint32 {
	return []uint32{vop1(op1MovB32, vdst, dppSrc), uint32(vsrc&0xff) | 0xe4<<8 | 0xf<<24 | (rows&0xf)<<28}
}

// PermlaneSelfSwapCode returns host code for v_permlane<rows>_swap_b32 with
// vdst == vsrc == d: lane l takes lane l^rows (temporaries x and, for 32,
// the address a).
func PermlaneSelfSwapCode(rows int, d, x, a uint16) []byte {
	var w []uint32
	if rows == 16 {
		sx := dsRead(dsOpSwizzle, x, d, 0, 0x401f)
		w = append(w, sx[0], sx[1])
	} else {
		w = append(w, laneBytes(a)...)
		bx := dsRead(dsOpBpermute, x, a, d, partnerOffset32)
		w = append(w, bx[0], bx[1])
	}
	w = append(w, waitLGKMCnt0, vop1(op1MovB32, d, srcVGPR+x))
	return appendWords(nil, w...)
}

func emitPermlaneSwap(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
	return emitPermlaneSwapNop(ctx, in, raw, true)
}

// emitPermlaneSwapNop emits the swap; nop as in permlaneSwapCode.
func emitPermlaneSwapNop(ctx Context, in *isa.Inst, raw []byte, nop bool) ([]byte, error) {
	rows := 16
	if in.Name() == "v_permlane32_swap_b32" {
		rows = 32
	}
	w := words(raw)
	var d, s uint16
	switch len(raw) {
	case 4: // VOP1
		d, s = uint16(w[0]>>17&0xff), uint16(w[0]&0x1ff)
	case 8: // VOP3 form: bound_ctrl (bit 12) and fi (bit 11) change inactive-lane behaviour
		if w[0]>>11&3 != 0 {
			return nil, fieldErr(in, "bound_ctrl/fi", w[0]>>11&3)
		}
		if err := noMods(in, w[0]&^(3<<11), w[1]); err != nil {
			return nil, err
		}
		d, s = uint16(w[0]&0xff), uint16(w[1]&0x1ff)
	default:
		return nil, fieldErr(in, "size", uint32(len(raw)))
	}
	if s < srcVGPR {
		return nil, fieldErr(in, "non-VGPR source", uint32(s))
	}
	s -= srcVGPR
	if s == d {
		// One register: every swapped pair exchanges its two lanes, so
		// each lane takes its partner's value.
		n := 1
		if rows == 32 {
			n = 2
		}
		t, err := ctx.TempVGPRs(n)
		if err != nil {
			return nil, err
		}
		a := uint16(0)
		if rows == 32 {
			a = t[1]
		}
		return PermlaneSelfSwapCode(rows, d, t[0], a), nil
	}
	n := 2
	if rows == 32 {
		n = 3
	}
	t, err := ctx.TempVGPRs(n)
	if err != nil {
		return nil, err
	}
	a := uint16(0)
	if rows == 32 {
		a = t[2]
	}
	return permlaneSwapCode(rows, d, s, t[0], t[1], a, nop), nil
}

// Pairs of 16-row swaps (issue 15: the aiter bf16 GEMMs swap two register
// pairs back to back, v16/v18 then v17/v19). Two adjacent
// v_permlane16_swap_b32 of a block on four distinct registers, with at
// most s_nop between them (gfx950 code separates them with s_nop 1), are
// emitted at the first: its two swizzles, the second's two, one wait and
// the four DPP moves, instead of a wait (and s_nop) each. The second swap
// then emits nothing, and the s_nop between them stays after the pair's
// code: the second reads and writes only its own two registers, which the
// first neither reads nor writes, and the first's temporaries are dead
// after the first, so none is one of the second's registers (both are
// read by it, hence live). The four swizzles and the wait give the
// DPP moves the wait states after a VALU write of EXEC without an s_nop.

// permlane16PairKey is the pair.Site.Memo entry holding, per second swap
// of a pair, whether the first's code of the current emission covers it.
const permlane16PairKey = "rules/permlane16-pair"

// permlane16Regs returns the registers of a VOP1 v_permlane16_swap_b32
// with vdst != vsrc, from its decoded operands.
func permlane16Regs(in *isa.Inst) (d, s uint16, ok bool) {
	if in == nil || in.Name() != "v_permlane16_swap_b32" || in.Format != isa.VOP1 || in.Size != 4 || len(in.Operands) != 2 {
		return 0, 0, false
	}
	a, b := in.Operands[0], in.Operands[1]
	if a.Kind != isa.KindReg || b.Kind != isa.KindReg || a.Class != isa.VGPR || b.Class != isa.VGPR || a.Width != 1 || b.Width != 1 || a.Reg == b.Reg {
		return 0, 0, false
	}
	return a.Reg, b.Reg, true
}

// permlane16PairAt reports where block[i] stands in the pairs of its run
// of two-register 16-row swaps (adjacent, or with only s_nop between them;
// paired from the run's start, a pair only when its four registers are
// distinct): first says block[i] opens a pair, and next is the index of
// the swap that closes it; second says block[i] closes one.
func permlane16PairAt(block []*isa.Inst, i int) (first, second bool, next int) {
	ok := func(j int) bool {
		_, _, ok := permlane16Regs(block[j])
		return ok
	}
	if i < 0 || i >= len(block) || !ok(i) {
		return false, false, 0
	}
	// step returns the swap after (dir 1) or before (-1) block[j] across
	// s_nop only, or -1.
	step := func(j, dir int) int {
		for j += dir; j >= 0 && j < len(block); j += dir {
			if block[j].Name() != "s_nop" {
				if ok(j) {
					return j
				}
				return -1
			}
		}
		return -1
	}
	pos := 0
	for j := step(i, -1); j >= 0; j = step(j, -1) {
		pos++
	}
	distinct := func(j, k int) bool {
		d1, s1, _ := permlane16Regs(block[j])
		d2, s2, _ := permlane16Regs(block[k])
		return d1 != d2 && d1 != s2 && s1 != d2 && s1 != s2
	}
	if pos%2 == 0 {
		k := step(i, 1)
		return k >= 0 && distinct(i, k), false, k
	}
	return false, distinct(step(i, -1), i), 0
}

// Permlane16PairRuleAt returns the form of the 16-row swap rule for
// block[i] when it opens or closes a pair (see above), nil otherwise; memo
// is the pair's per-scope cache (pair.Site.Memo).
func Permlane16PairRuleAt(block []*isa.Inst, i int, memo map[string]any) *Rule {
	if memo == nil || i < 0 || i >= len(block) {
		return nil
	}
	first, second, k := permlane16PairAt(block, i)
	if !first && !second {
		return nil
	}
	covered, _ := memo[permlane16PairKey].(map[uint64]bool)
	if covered == nil {
		covered = map[uint64]bool{}
		memo[permlane16PairKey] = covered
	}
	base := For(isa.GFX950, isa.GFX942, "v_permlane16_swap_b32")
	if base == nil {
		return nil
	}
	r := *base
	if second {
		r.Emit = func(ctx Context, in *isa.Inst, b []byte) ([]byte, error) {
			if covered[in.PC] {
				// The first swap of the pair emitted this one.
				return []byte{}, nil
			}
			return emitPermlaneSwap(ctx, in, b)
		}
		return &r
	}
	next := block[k]
	r.Emit = func(ctx Context, in *isa.Inst, b []byte) ([]byte, error) {
		// A mark of an earlier emission of the scope is cleared first:
		// the second swap emits itself unless this code covers it.
		covered[next.PC] = false
		d1, s1, ok1 := permlane16Regs(in)
		d2, s2, ok2 := permlane16Regs(next)
		if !ok1 || !ok2 || len(b) != 4 || words(b)[0] != 0x7e000000|uint32(d1)<<17|0x59<<9|uint32(srcVGPR+s1) {
			return nil, fieldErr(in, "permlane16 pair", 0)
		}
		t, err := ctx.TempVGPRs(4)
		if err != nil {
			return nil, err
		}
		for _, x := range t {
			if x == d2 || x == s2 {
				return nil, fieldErr(in, "pair scratch", uint32(x))
			}
		}
		covered[next.PC] = true
		return Permlane16PairCode(d1, s1, d2, s2, t[0], t[1], t[2], t[3]), nil
	}
	return &r
}

// Permlane16PairCode returns host code for v_permlane16_swap_b32 d1, s1
// then v_permlane16_swap_b32 d2, s2 (four distinct VGPRs), with
// temporaries x1, y1, x2, y2.
func Permlane16PairCode(d1, s1, d2, s2, x1, y1, x2, y2 uint16) []byte {
	var w []uint32
	for _, p := range [][2]uint16{{x1, s1}, {y1, d1}, {x2, s2}, {y2, d2}} {
		sw := dsRead(dsOpSwizzle, p[0], p[1], 0, 0x401f) // lane l reads l^16
		w = append(w, sw[0], sw[1])
	}
	w = append(w, waitLGKMCnt0)
	w = append(w, movRows(d1, x1, 0xa)...)
	w = append(w, movRows(s1, y1, 0x5)...)
	w = append(w, movRows(d2, x2, 0xa)...)
	w = append(w, movRows(s2, y2, 0x5)...)
	return appendWords(nil, w...)
}

// Permlane16PairNopRuleName is the rule of an s_nop between the two swaps
// of a pair.
const Permlane16PairNopRuleName = "permlane16-pair-nop"

var permlane16PairNop = &Rule{Name: Permlane16PairNopRuleName, Ops: []string{"s_nop"}, Fidelity: report.Exact,
	Emit: func(Context, *isa.Inst, []byte) ([]byte, error) { return []byte{}, nil }}

// Permlane16PairNopAt returns the rule that drops block[j], an s_nop
// between the two swaps of a pair (see Permlane16PairRuleAt), and nil
// for any other instruction. The s_nop separated the guest's swaps; the
// pair's code needs no wait states inside it, and after it the code that
// follows the second swap sees what it saw after the second swap's own
// code (DPP moves last), so the s_nop after the second swap, which is
// kept, is all it waits for.
func Permlane16PairNopAt(block []*isa.Inst, j int) *Rule {
	if j < 0 || j >= len(block) || block[j].Name() != "s_nop" {
		return nil
	}
	i := j - 1
	for i >= 0 && block[i].Name() == "s_nop" {
		i--
	}
	if first, _, k := permlane16PairAt(block, i); first && k > j {
		return permlane16PairNop
	}
	return nil
}
