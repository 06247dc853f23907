package gfx950gfx12

import (
	"math/bits"

	"github.com/rocjitsu/rocjitsu/dbt/cfg"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// The range check of a V# depends on its STRIDE (word1 [29:16]) on both
// ISAs: gfx9 checks a non-swizzled access against NUM_RECORDS bytes when
// STRIDE is 0 (raw) and, when it is not, the index against NUM_RECORDS
// and offset + size against STRIDE (the gfx9 simulator, hsa/sim/wave
// bufferOp); gfx12 selects the check in word3 (OOB_SELECT 3 raw, 0
// structured). The word3 conversion therefore needs STRIDE: a forward
// known-bits analysis follows each SGPR's bits through constants, copies,
// s_and_b32, s_or_b32, s_cselect_b32 and s_mul_hi_u32 by a constant, and
// bits [31:16] through s_add_u32/s_addc_u32 on the premise that the
// guest's base-address arithmetic does not carry into them (anything else,
// memory included, makes the register unknown); a buffer instruction whose
// word1 STRIDE bits are not all known is not proven.

// kbits are the known bits of a 32-bit value: mask has a 1 for each known
// bit, val its value (zero outside mask).
type kbits struct{ mask, val uint32 }

// kstate maps an SGPR to its known bits; a register not in the map is
// entirely unknown.
type kstate map[uint16]kbits

func (s kstate) clone() kstate {
	out := make(kstate, len(s))
	for k, v := range s {
		out[k] = v
	}
	return out
}

// meet keeps the bits known with the same value in both; it reports
// whether s changed.
func (s kstate) meet(t kstate) bool {
	changed := false
	for k, v := range s {
		w, ok := t[k]
		m := v.mask & w.mask &^ (v.val ^ w.val)
		if !ok || m == 0 {
			delete(s, k)
			changed = true
			continue
		}
		if m != v.mask {
			s[k] = kbits{m, v.val & m}
			changed = true
		}
	}
	return changed
}

// operand returns the known bits of a 32-bit source operand.
func (s kstate) operand(in *isa.Inst, o isa.Operand) kbits {
	if c, ok := constant(in, o); ok {
		return kbits{^uint32(0), c}
	}
	if sgprOp(o) {
		return s[o.Reg]
	}
	return kbits{}
}

// ktransfer applies in to s.
func ktransfer(in *isa.Inst, s kstate) {
	ops := in.Operands
	set := func(d uint16, k kbits) {
		if k.mask == 0 {
			delete(s, d)
		} else {
			s[d] = kbits{k.mask, k.val & k.mask}
		}
	}
	if len(ops) > 0 && sgprOp(ops[0]) && ops[0].Width <= 1 {
		d := ops[0].Reg
		switch in.Name() {
		case "s_mov_b32":
			if len(ops) == 2 {
				set(d, s.operand(in, ops[1]))
				return
			}
		case "s_add_u32", "s_addc_u32":
			// Base-address arithmetic: bits [31:16] are the sum of the
			// operands' when both are known, else those of the one
			// known (the other is an address offset); premise: the guest's
			// 64-bit base arithmetic never carries into bits [63:48], the
			// V#'s STRIDE and swizzle bits.
			if len(ops) == 3 {
				a, b := s.operand(in, ops[1]), s.operand(in, ops[2])
				ka, kb := a.mask>>16 == 0xffff, b.mask>>16 == 0xffff
				switch {
				case ka && kb:
					set(d, kbits{0xffff0000, (a.val>>16 + b.val>>16) << 16})
				case ka:
					set(d, kbits{0xffff0000, a.val})
				case kb:
					set(d, kbits{0xffff0000, b.val})
				default:
					delete(s, d)
				}
				return
			}
		case "s_mul_hi_u32":
			// (a * c) >> 32 < c for a 32-bit a and a constant c.
			if len(ops) == 3 {
				c, ok := constant(in, ops[1])
				if !ok {
					c, ok = constant(in, ops[2])
				}
				if ok && c != 0 {
					set(d, kbits{^uint32(0) << bits.Len32(c-1), 0})
				} else {
					delete(s, d)
				}
				return
			}
		case "s_and_b32", "s_or_b32", "s_cselect_b32":
			if len(ops) == 3 {
				a, b := s.operand(in, ops[1]), s.operand(in, ops[2])
				zero := func(k kbits) uint32 { return k.mask &^ k.val }
				var k kbits
				switch in.Name() {
				case "s_and_b32":
					z := zero(a) | zero(b)
					o := a.val & b.val
					k = kbits{z | o, o}
				case "s_or_b32":
					o := a.val | b.val
					z := zero(a) & zero(b)
					k = kbits{z | o, o}
				default:
					m := a.mask & b.mask &^ (a.val ^ b.val)
					k = kbits{m, a.val & m}
				}
				set(d, k)
				return
			}
		}
	}
	if in.Name() == "s_mov_b64" && len(ops) == 2 && sgprOp(ops[0]) && sgprOp(ops[1]) {
		lo, hi := s.operand(in, ops[1]), s[ops[1].Reg+1]
		set(ops[0].Reg, lo)
		set(ops[0].Reg+1, hi)
		return
	}
	for _, o := range ops {
		if sgprOp(o) && o.Role.Defines() {
			for r := o.Reg; r < o.Reg+uint16(max(o.Width, 1)); r++ {
				delete(s, r)
			}
		}
	}
}

// strideClass is what the known bits of a V#'s word1 say about STRIDE.
type strideClass uint8

const (
	strideUnknown strideClass = iota
	strideZero                // raw: STRIDE bits known 0
	strideSet                 // STRIDE known, not 0
)

// strideMask is word1's STRIDE field [29:16].
const strideMask = 0x3fff << 16

// analyzeStrides returns the stride class of every buffer instruction of
// the scope (sc, g as in analyzeVSharps; succs gives a block's successors
// in the scope's control flow).
func analyzeStrides(g *cfg.Graph, sc *cfg.Scope, inScope map[uint64]bool, succs func(*cfg.Block) []uint64) map[uint64]strideClass {
	in := map[uint64]kstate{}
	var work []uint64
	queued := map[uint64]bool{}
	for _, r := range sc.Roots {
		if inScope[r] {
			in[r] = kstate{}
			work = append(work, r)
			queued[r] = true
		}
	}
	for len(work) > 0 {
		l := work[0]
		work = work[1:]
		queued[l] = false
		b := g.Blocks[l]
		s := in[l].clone()
		for _, x := range b.Insts {
			ktransfer(x, s)
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
	out := map[uint64]strideClass{}
	for _, l := range sc.Blocks {
		s0, ok := in[l]
		if !ok {
			continue
		}
		s := s0.clone()
		for _, x := range g.Blocks[l].Insts {
			if rs, ok := bufferRsrc(x); ok {
				k := s[rs+1]
				switch {
				case k.mask&strideMask != strideMask:
					out[x.PC] = strideUnknown
				case k.val&strideMask == 0:
					out[x.PC] = strideZero
				default:
					out[x.PC] = strideSet
				}
			}
			ktransfer(x, s)
		}
	}
	return out
}
