package rules

import (
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// buffer_atomic_pk_add_bf16 (gfx950; MUBUF op 0x52) atomically adds the two
// bf16 halves of vdata to the two bf16 halves of the addressed dword; with
// sc0 (glc) vdata receives the dword's previous value. Each half is added
// as f32 and rounded to bf16 with round-to-nearest-even (the sum of two
// bf16 values rounded once to f32 and then to bf16 equals the sum rounded
// once to bf16: a sum needing more than 24 bits has operands at least 2^16
// apart, far below half a bf16 ulp, so no double-rounding tie can arise).
//
// The expansion is a compare-and-swap loop with the host's
// buffer_atomic_cmpswap on the same address (same vaddr, srsrc, soffset,
// offset, offen/idxen and sc1/nt bits):
//
//	s_mov_b64 P, exec
//	buffer_load_dword O, ...            ; first guess of the old value
//	s_waitcnt vmcnt(0)
//	L: D0 = pk_add_bf16(O, vdata); D1 = O
//	buffer_atomic_cmpswap D0:D1, ... sc0
//	s_waitcnt vmcnt(0)
//	v_cmp_ne_u32_e64 exec, D0, O        ; lanes whose swap failed retry
//	v_mov_b32 O, D0
//	s_cbranch_execnz L
//	s_mov_b64 exec, P
//	(sc0: v_mov_b32 vdata, O)
//
// No instruction of the loop writes SCC or VCC. The f32 -> bf16 rounding
// uses only VGPR arithmetic: with m = |x|, r = m + 0x7fff + bit16(x), the
// bf16 magnitude is min(r, max(m, 0x7fbfffff)) >> 16 (r for every finite
// or infinite x, m for a NaN, whose quiet bit v_add_f32 has set).

// AtomicBF16Bound documents where the expansion may differ from gfx950.
const AtomicBF16Bound = "bit-exact sums (f32 add then round-to-nearest-even, equal to one bf16 rounding) when the kernel's MODE keeps f32 denormals (the adds are v_add_f32; with a flushing MODE, denormal bf16 operands and sums become signed zeros); a NaN result is the quiet NaN v_add_f32 produces (payload may differ); the update is atomic per dword through a compare-and-swap loop that retries under contention; an out-of-range address relies on the cmpswap returning the out-of-range load's 0 (otherwise the loop repeats until the add no longer changes the value)"

func init() {
	register(Pair{isa.GFX950, isa.GFX942}, &Rule{
		Name:     "buffer-atomic-pk-add-bf16",
		Ops:      []string{"buffer_atomic_pk_add_bf16"},
		Fidelity: report.Approximate,
		Bound:    AtomicBF16Bound,
		Emit:     emitAtomicPkAddBF16,
	})
}

// Host opcodes of the expansion.
const (
	mubufOpLoadDword   = 0x14
	mubufOpCmpswap     = 0x41
	mubufSC0           = 1 << 14
	op2MinU32          = 0x0e
	op2MaxU32          = 0x0f
	op3CmpNeU32        = 0xcd
	srcExecLo          = 126
	sopp               = 0xbf800000
	soppCbranchExecnz  = 0x09
	sop1MovB64         = 0x01
	atomicBF16VTemps   = 4
	atomicBF16DataPair = 2
)

// roundBF16Code rounds the f32 in VGPR x to bf16 (result in x's upper
// half; the lower half is garbage) with temporaries y and z.
func roundBF16Code(x, y, z uint16) []uint32 {
	var w []uint32
	b := vop3(op3BfeU32, y, srcVGPR+x, inlineInt(16), inlineInt(1))
	w = append(w, b[0], b[1])
	w = append(w, vop2(op2AddU32, y, srcLit, y, 0x7fff)...)
	w = append(w, vop2(op2AndB32, z, srcLit, x, 0x7fffffff)...)
	w = append(w, vop2(op2AddU32, y, srcVGPR+z, y, 0)...)
	w = append(w, vop2(op2MaxU32, z, srcLit, z, 0x7fbfffff)...)
	w = append(w, vop2(op2MinU32, y, srcVGPR+z, y, 0)...)
	w = append(w, vop2(op2AndB32, x, srcLit, x, 0x80000000)...)
	w = append(w, vop2(op2OrB32, x, srcVGPR+y, x, 0)...)
	return w
}

// PkAddBF16Code returns host code computing d = pk_add_bf16(o, v) (two
// bf16 halves each) with temporaries x, y, z; d may not be o or v.
func PkAddBF16Code(d, o, v, x, y, z uint16) []byte {
	var w []uint32
	// Low halves.
	w = append(w, vop2(op2LshlrevB32, x, inlineInt(16), o, 0)...)
	w = append(w, vop2(op2LshlrevB32, y, inlineInt(16), v, 0)...)
	w = append(w, vop2(op2AddF32, x, srcVGPR+x, y, 0)...)
	w = append(w, roundBF16Code(x, y, z)...)
	// High halves.
	w = append(w, vop2(op2AndB32, d, srcLit, o, 0xffff0000)...)
	w = append(w, vop2(op2AndB32, y, srcLit, v, 0xffff0000)...)
	w = append(w, vop2(op2AddF32, d, srcVGPR+d, y, 0)...)
	w = append(w, roundBF16Code(d, y, z)...)
	// Pack.
	w = append(w, vop2(op2AndB32, d, srcLit, d, 0xffff0000)...)
	w = append(w, vop2(op2LshrrevB32, x, inlineInt(16), x, 0)...)
	w = append(w, vop2(op2OrB32, d, srcVGPR+x, d, 0)...)
	return appendWords(nil, w...)
}

// AtomicPkAddBF16Code returns the compare-and-swap expansion of the
// buffer_atomic_pk_add_bf16 encoded as (w0, w1). pair is the first of two
// consecutive scratch VGPRs (even), t holds four more scratch VGPRs and p
// a scratch SGPR pair.
func AtomicPkAddBF16Code(w0, w1 uint32, pair uint16, t []uint16, p uint16) ([]byte, error) {
	if len(t) < atomicBF16VTemps {
		return nil, fmt.Errorf("buffer_atomic_pk_add_bf16: %d scratch VGPRs, need %d", len(t), atomicBF16VTemps)
	}
	vdata := uint16(w1 >> 8 & 0xff)
	o, x, y, z := t[0], t[1], t[2], t[3]
	d0, d1 := pair, pair+1
	withOp := func(op uint32, data uint16) (uint32, uint32) {
		return w0&^(0x7f<<18) | op<<18 | mubufSC0, w1&^(0xff<<8) | uint32(data)<<8
	}
	var w []uint32
	w = append(w, 0xbe800000|uint32(p)<<16|sop1MovB64<<8|srcExecLo) // s_mov_b64 p, exec
	l0, l1 := withOp(mubufOpLoadDword, o)
	w = append(w, l0, l1, waitVMCnt0)
	loop := len(w)
	w = append(w, words(PkAddBF16Code(d0, o, vdata, x, y, z))...)
	w = append(w, 0x7e000000|uint32(d1)<<17|op1MovB32VOP1<<9|uint32(srcVGPR+o))
	c0, c1 := withOp(mubufOpCmpswap, d0)
	w = append(w, c0, c1, waitVMCnt0)
	cmp := vop3(op3CmpNeU32, srcExecLo, srcVGPR+d0, srcVGPR+o, 0)
	w = append(w, cmp[0], cmp[1])
	w = append(w, 0x7e000000|uint32(o)<<17|op1MovB32VOP1<<9|uint32(srcVGPR+d0))
	rel := loop - (len(w) + 1)
	w = append(w, sopp|soppCbranchExecnz<<16|uint32(uint16(int16(rel))))
	w = append(w, 0xbe800000|uint32(srcExecLo)<<16|sop1MovB64<<8|uint32(p)) // s_mov_b64 exec, p
	if w0&mubufSC0 != 0 {
		w = append(w, 0x7e000000|uint32(vdata)<<17|op1MovB32VOP1<<9|uint32(srcVGPR+o))
	}
	return appendWords(nil, w...), nil
}

func emitAtomicPkAddBF16(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
	if len(raw) != 8 {
		return nil, fieldErr(in, "size", uint32(len(raw)))
	}
	w := words(raw)
	if w[0]>>16&1 != 0 {
		return nil, fieldErr(in, "lds", 1)
	}
	if w[1]>>23&1 != 0 {
		return nil, fieldErr(in, "acc (AGPR data)", 1)
	}
	pair, err := ctx.TempVGPRRange(atomicBF16DataPair, 2)
	if err != nil {
		return nil, err
	}
	t, err := ctx.TempVGPRs(atomicBF16VTemps)
	if err != nil {
		return nil, err
	}
	for _, r := range t {
		if r == pair || r == pair+1 {
			return nil, fieldErr(in, "scratch overlap", uint32(r))
		}
	}
	p, err := ctx.TempSGPRPair()
	if err != nil {
		return nil, err
	}
	return AtomicPkAddBF16Code(w[0], w[1], pair, t, p)
}
