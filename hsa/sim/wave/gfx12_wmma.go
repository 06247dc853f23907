package wave

import (
	"fmt"
	"math"
	"sync"

	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
)

// gfx12 WMMA and SWMMAC: every shape and type of gfx1200/gfx1201 (f16, bf16,
// OCP fp8/bf8, iu8, iu4; 16x16x16, 16x16x32, sparse 16x16x32 and 16x16x64),
// in wave32 and wave64.
//
// Operand layouts are AMD's matrix instruction calculator's for RDNA4 (its
// formulas, checked entry by entry with testdata/wmma_layout_check.py):
// an element (row-or-column r, reduction index k) of A or B sits in one of
// seven arrangements, chosen by the element width and the K the operand
// stores (elemPos). An SWMMAC A operand holds the 4:2-compressed matrix (two
// of every four k) in the dense arrangement of half its K; its index
// operand holds, per row and group of four k, a nibble whose bit pairs
// [1:0] and [3:2] give the positions of the two stored elements in the
// group, in the lane of the group's A data, nibbles in group order, and
// index_key (op_sel[1:0]) picks the window of the VGPR
// (window = 4 bits x groups per lane). C/D are 32-bit (VGPR i%8 in wave32,
// i%4 in wave64) or two 16-bit rows per VGPR.
//
// Modifiers: for 16-bit inputs neg_lo[0]/[1] negate the elements of A/B in
// the low halves and neg_hi[0]/[1] those in the high halves; neg_lo[2]
// negates C and neg_hi[2] takes its absolute value (float C only). For
// iu8/iu4, neg_lo[0]/[1] make A/B signed and clamp saturates the int32
// result (it wraps otherwise). fp8/bf8 take no input negation. Float
// products are summed in float64 with C and rounded once, as the
// simulator's MFMAs are (hardware rounding order is not modelled); all
// lanes take part whatever EXEC is.

// mtype is a WMMA input or output element type.
type mtype uint8

const (
	mF16 mtype = iota
	mBF16
	mFP8
	mBF8
	mIU8
	mIU4
	mF32
	mI32
)

func (t mtype) bits() int {
	switch t {
	case mF16, mBF16:
		return 16
	case mFP8, mBF8, mIU8:
		return 8
	case mIU4:
		return 4
	}
	return 32
}

// wmmaOp describes one gfx12 matrix instruction.
type wmmaOp struct {
	a, b, out mtype
	k         int  // reduction length of the (dense) product
	sparse    bool // SWMMAC: A is 4:2-compressed, src2 is the index VGPR
}

// elemPos returns where element (r, k) of an A or B operand of element width
// bits and stored reduction length kn lives: lane, VGPR of the operand and
// bit offset in it.
func elemPos(bits, kn int, wave64 bool, r, k int) (lane, gpr, bit int) {
	switch {
	case bits == 16 && kn == 16:
		if wave64 {
			return 32*((k/8)%2) + 16*((k/4)%2) + r, (k / 2) % 2, 16 * (k % 2)
		}
		return 16*((k/4)%2) + r, 2*(k/8) + (k/2)%2, 16 * (k % 2)
	case bits == 16 && kn == 32:
		if wave64 {
			return 16*(k/8) + r, (k / 2) % 4, 16 * (k % 2)
		}
		return 16*((k/8)%2) + r, 4*(k/16) + (k/2)%4, 16 * (k % 2)
	case bits == 8 && kn == 16:
		if wave64 {
			return 32*((k/4)%2) + 16*((k/8)%2) + r, 0, 8 * (k % 4)
		}
		return 16*(k/8) + r, (k / 4) % 2, 8 * (k % 4)
	case bits == 8 && kn == 32:
		if wave64 {
			return 32*((k/8)%2) + 16*(k/16) + r, (k / 4) % 2, 8 * (k % 4)
		}
		return 16*(k/16) + r, (k / 4) % 4, 8 * (k % 4)
	case bits == 4 && kn == 16:
		return 16*(k/8) + r, 0, 4 * (k % 8)
	case bits == 4 && kn == 32:
		if wave64 {
			return 32*((k/8)%2) + 16*((k/16)%2) + r, 0, 4 * (k % 8)
		}
		return 16*(k/16) + r, (k / 8) % 2, 4 * (k % 8)
	case bits == 4 && kn == 64:
		if wave64 {
			return 32*((k/16)%2) + 16*(k/32) + r, (k / 8) % 2, 4 * (k % 8)
		}
		return 16*(k/32) + r, (k / 8) % 4, 4 * (k % 8)
	}
	panic(fmt.Sprintf("wave: no WMMA layout for %d-bit elements, K=%d", bits, kn))
}

// outPos returns where element (i, j) of C/D lives: lane, VGPR, bit offset.
func outPos(bits int, wave64 bool, i, j int) (lane, gpr, bit int) {
	if wave64 {
		lane = 32*((i/4)%2) + 16*(i/8) + j
		if bits == 16 {
			return lane, (i / 2) % 2, 16 * (i % 2)
		}
		return lane, i % 4, 0
	}
	lane = 16*(i/8) + j
	if bits == 16 {
		return lane, (i / 2) % 4, 16 * (i % 2)
	}
	return lane, i % 8, 0
}

// aStoredK is the reduction length the A operand stores.
func (op *wmmaOp) aStoredK() int {
	if op.sparse {
		return op.k / 2
	}
	return op.k
}

// indexPos returns, for group g (k = 4g..4g+3) of row i of an SWMMAC, the
// lane and bit offset of its index nibble in window 0, and the window size
// in bits.
func (op *wmmaOp) indexPos(wave64 bool, i, g int) (lane, bit, window int) {
	bits, kn := op.a.bits(), op.aStoredK()
	off := func(g int) int { l, _, _ := elemPos(bits, kn, wave64, 0, 2*g); return l }
	mine := off(g)
	rank, n := 0, 0
	for h := 0; h < op.k/4; h++ {
		if off(h) == mine {
			if h < g {
				rank++
			}
			n++
		}
	}
	return mine + i, 4 * rank, 4 * n
}

// wmmaVal returns the float value of an input element code.
func wmmaVal(t mtype, v uint32) float64 {
	switch t {
	case mF16:
		return float64(fp.F16ToF32(uint16(v)))
	case mBF16:
		return float64(fp.BF16ToF32(uint16(v)))
	case mFP8:
		return float64(fp.E4M3FN.Decode(uint8(v)))
	case mBF8:
		return float64(fp.E5M2.Decode(uint8(v)))
	}
	return 0
}

// wmmaInt returns the integer value of an iu8/iu4 element code.
func wmmaInt(t mtype, v uint32, signed bool) int64 {
	if t == mIU8 {
		if signed {
			return int64(int8(v))
		}
		return int64(v & 0xff)
	}
	if signed {
		return int64(int8(v<<4) >> 4)
	}
	return int64(v & 0xf)
}

func (op *wmmaOp) exec(w *Wave, in *Inst) error {
	wave64 := !w.wave32
	integer := op.out == mI32
	abits, bbits := op.a.bits(), op.b.bits()
	akn := op.aStoredK()
	if in.Src[0] < opVGPR || in.Src[1] < opVGPR {
		return fmt.Errorf("WMMA A and B must be VGPRs")
	}
	read := func(code uint16, lane, gpr, bit, bits int) uint32 {
		return w.V[(code-opVGPR+uint16(gpr))&511][lane] >> uint(bit) & (1<<uint(bits) - 1)
	}
	// The dense A (16 x K) and B (K x 16), as floats or integers.
	var af, bf [16][64]float64
	var ai, bi [16][64]int64
	fetch := func(t mtype, code uint16, kn, bits int, signBit uint8, r, k int) (float64, int64) {
		l, g, b := elemPos(bits, kn, wave64, r, k)
		v := read(code, l, g, b, bits)
		if integer {
			return 0, wmmaInt(t, v, in.Neg&signBit != 0)
		}
		f := wmmaVal(t, v)
		if bits == 16 && (b == 0 && in.Neg&signBit != 0 || b == 16 && in.NegHi&signBit != 0) {
			f = -f
		}
		return f, 0
	}
	for r := 0; r < 16; r++ {
		for k := 0; k < op.k; k++ {
			bf[r][k], bi[r][k] = fetch(op.b, in.Src[1], op.k, bbits, 2, r, k)
		}
		if !op.sparse {
			for k := 0; k < op.k; k++ {
				af[r][k], ai[r][k] = fetch(op.a, in.Src[0], akn, abits, 1, r, k)
			}
			continue
		}
		if in.Src[2] < opVGPR {
			return fmt.Errorf("SWMMAC index operand must be a VGPR")
		}
		key := int(in.Opsel & 3)
		for g := 0; g < op.k/4; g++ {
			l, bit, win := op.indexPos(wave64, r, g)
			bit += key * win
			if bit+4 > 32 {
				return fmt.Errorf("index_key %d out of range", key)
			}
			nib := w.V[(in.Src[2]-opVGPR)&511][l] >> uint(bit) & 0xf
			for s := 0; s < 2; s++ {
				f, n := fetch(op.a, in.Src[0], akn, abits, 1, r, 2*g+s)
				k := 4*g + int(nib>>(2*uint(s))&3)
				af[r][k] += f
				ai[r][k] += n
			}
		}
	}
	obits := op.out.bits()
	cCode := in.Src[2]
	if op.sparse {
		cCode = in.Dst
	}
	// C, read before D is written (D may overlap A, B or C).
	var cf [16][16]float64
	var ci [16][16]int64
	for i := 0; i < 16; i++ {
		for j := 0; j < 16; j++ {
			var v uint32
			if cCode >= opVGPR {
				l, g, b := outPos(obits, wave64, i, j)
				v = read(cCode, l, g, b, obits)
			} else {
				switch op.out {
				case mF32:
					v = uint32(w.scalar64(cCode, in, kF32))
				case mI32:
					v = uint32(w.scalar64(cCode, in, kB32))
				default:
					v = uint32(w.scalar64(cCode, in, kF16))
					if op.out == mBF16 && cCode != opLiteral && cCode >= 128 {
						v = uint32(fp.F32ToBF16(fp.F16ToF32(uint16(v))))
					}
				}
			}
			switch op.out {
			case mI32:
				ci[i][j] = int64(int32(v))
				continue
			case mF32:
				cf[i][j] = float64(f32(v))
			case mF16:
				cf[i][j] = float64(fp.F16ToF32(uint16(v)))
			case mBF16:
				cf[i][j] = float64(fp.BF16ToF32(uint16(v)))
			}
			if in.NegHi&4 != 0 {
				cf[i][j] = math.Abs(cf[i][j])
			}
			if in.Neg&4 != 0 {
				cf[i][j] = -cf[i][j]
			}
		}
	}
	for i := 0; i < 16; i++ {
		for j := 0; j < 16; j++ {
			var v uint32
			if integer {
				s := ci[i][j]
				for k := 0; k < op.k; k++ {
					s += ai[i][k] * bi[j][k]
				}
				if in.Clamp {
					s = max(math.MinInt32, min(math.MaxInt32, s))
				}
				v = uint32(int32(s))
			} else {
				s := cf[i][j]
				for k := 0; k < op.k; k++ {
					s += af[i][k] * bf[j][k]
				}
				switch op.out {
				case mF32:
					v = u32(float32(s))
				case mF16:
					v = uint32(fp.F32ToF16(float32(s)))
				case mBF16:
					v = uint32(fp.F32ToBF16(float32(s)))
				}
			}
			l, g, b := outPos(obits, wave64, i, j)
			r := &w.V[(in.Dst-opVGPR+uint16(g))&511][l]
			if obits == 16 {
				*r = *r&^(0xffff<<uint(b)) | v<<uint(b)
			} else {
				*r = v
			}
		}
	}
	w.Lanes += uint64(w.laneCount())
	return nil
}

// Built on first use; every call returns the same map.
// wmmaOps lists the 22 gfx12 matrix instructions.
var wmmaOps = sync.OnceValue(func() map[string]wmmaOp {
	return map[string]wmmaOp{
		"v_wmma_f32_16x16x16_f16":       {a: mF16, b: mF16, out: mF32, k: 16},
		"v_wmma_f32_16x16x16_bf16":      {a: mBF16, b: mBF16, out: mF32, k: 16},
		"v_wmma_f16_16x16x16_f16":       {a: mF16, b: mF16, out: mF16, k: 16},
		"v_wmma_bf16_16x16x16_bf16":     {a: mBF16, b: mBF16, out: mBF16, k: 16},
		"v_wmma_i32_16x16x16_iu8":       {a: mIU8, b: mIU8, out: mI32, k: 16},
		"v_wmma_i32_16x16x16_iu4":       {a: mIU4, b: mIU4, out: mI32, k: 16},
		"v_wmma_i32_16x16x32_iu4":       {a: mIU4, b: mIU4, out: mI32, k: 32},
		"v_wmma_f32_16x16x16_fp8_fp8":   {a: mFP8, b: mFP8, out: mF32, k: 16},
		"v_wmma_f32_16x16x16_fp8_bf8":   {a: mFP8, b: mBF8, out: mF32, k: 16},
		"v_wmma_f32_16x16x16_bf8_fp8":   {a: mBF8, b: mFP8, out: mF32, k: 16},
		"v_wmma_f32_16x16x16_bf8_bf8":   {a: mBF8, b: mBF8, out: mF32, k: 16},
		"v_swmmac_f32_16x16x32_f16":     {a: mF16, b: mF16, out: mF32, k: 32, sparse: true},
		"v_swmmac_f32_16x16x32_bf16":    {a: mBF16, b: mBF16, out: mF32, k: 32, sparse: true},
		"v_swmmac_f16_16x16x32_f16":     {a: mF16, b: mF16, out: mF16, k: 32, sparse: true},
		"v_swmmac_bf16_16x16x32_bf16":   {a: mBF16, b: mBF16, out: mBF16, k: 32, sparse: true},
		"v_swmmac_i32_16x16x32_iu8":     {a: mIU8, b: mIU8, out: mI32, k: 32, sparse: true},
		"v_swmmac_i32_16x16x32_iu4":     {a: mIU4, b: mIU4, out: mI32, k: 32, sparse: true},
		"v_swmmac_i32_16x16x64_iu4":     {a: mIU4, b: mIU4, out: mI32, k: 64, sparse: true},
		"v_swmmac_f32_16x16x32_fp8_fp8": {a: mFP8, b: mFP8, out: mF32, k: 32, sparse: true},
		"v_swmmac_f32_16x16x32_fp8_bf8": {a: mFP8, b: mBF8, out: mF32, k: 32, sparse: true},
		"v_swmmac_f32_16x16x32_bf8_fp8": {a: mBF8, b: mFP8, out: mF32, k: 32, sparse: true},
		"v_swmmac_f32_16x16x32_bf8_bf8": {a: mBF8, b: mBF8, out: mF32, k: 32, sparse: true},
	}
})

func registerGfx12Wmma() {
	for name, op := range wmmaOps() {
		op := op
		def12(name, op.exec)
	}
}
