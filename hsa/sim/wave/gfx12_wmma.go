package wave

import (
	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
)

// gfx12 WMMA with 16-bit inputs (f16, bf16), 16x16x16, in wave32 and wave64.
// Operand layouts (research notes §3.8, from AMD's matrix instruction
// calculator), i = row, j = column, k = reduction index:
//
//	A[i][k], wave32: lane 16*((k/4)%2) + i, VGPR 2*(k/8) + (k/2)%2, half k%2
//	A[i][k], wave64: lane 32*((k/8)%2) + 16*((k/4)%2) + i, VGPR (k/2)%2, half k%2
//	B[k][j]: as A with j for i
//	C/D[i][j] f32, wave32: VGPR i%8, lane 16*(i/8) + j
//	C/D[i][j] f32, wave64: VGPR i%4, lane 32*((i/4)%2) + 16*(i/8) + j
//
// f16/bf16 results pack two rows per VGPR (element e = i%8 or i%4 of the
// lane in VGPR e/2, half e%2): inferred from the f32 layout, not checked
// against hardware. neg_lo[0] and neg_lo[1] negate A and B, neg_lo[2] and
// neg_hi[2] negate and take the absolute value of C. The products are
// summed in float64 and rounded once, as the simulator's MFMAs are; all
// lanes take part whatever EXEC is.

// abPos returns where element (row-or-column r, k) of A or B lives.
func abPos(r, k int, wave64 bool) (lane, gpr, half int) {
	if wave64 {
		return 32*((k/8)%2) + 16*((k/4)%2) + r, (k / 2) % 2, k % 2
	}
	return 16*((k/4)%2) + r, 2*(k/8) + (k/2)%2, k % 2
}

// cPos returns where element (i, j) of C/D lives: lane and element index
// (the VGPR for f32, the packed half index for 16-bit results).
func cPos(i, j int, wave64 bool) (lane, e int) {
	if wave64 {
		return 32*((i/4)%2) + 16*(i/8) + j, i % 4
	}
	return 16*(i/8) + j, i % 8
}

func wmma16(bf, out16 bool) func(*Wave, *Inst) error {
	dec := func(h uint32) float64 {
		if bf {
			return float64(fp.BF16ToF32(uint16(h)))
		}
		return float64(fp.F16ToF32(uint16(h)))
	}
	enc := func(f float64) uint32 {
		if bf {
			return uint32(fp.F32ToBF16(float32(f)))
		}
		return uint32(fp.F32ToF16(float32(f)))
	}
	return func(w *Wave, in *Inst) error {
		wave64 := !w.wave32
		half := func(code uint16, lane, gpr, h int, neg bool) float64 {
			v := w.V[(code-opVGPR+uint16(gpr))&511][lane] >> (16 * h) & 0xffff
			f := dec(v)
			if neg {
				f = -f
			}
			return f
		}
		var a, b [16][16]float64 // a[i][k], b[k][j]
		for r := 0; r < 16; r++ {
			for k := 0; k < 16; k++ {
				l, g, h := abPos(r, k, wave64)
				a[r][k] = half(in.Src[0], l, g, h, in.Neg&1 != 0)
				b[k][r] = half(in.Src[1], l, g, h, in.Neg&2 != 0)
			}
		}
		var d [16][16]float64
		for i := 0; i < 16; i++ {
			for j := 0; j < 16; j++ {
				l, e := cPos(i, j, wave64)
				var c float64
				if out16 {
					var v uint32
					if in.Src[2] >= opVGPR {
						v = w.V[(in.Src[2]-opVGPR+uint16(e/2))&511][l] >> (16 * (e % 2)) & 0xffff
					} else {
						v = uint32(w.scalar64(in.Src[2], in, kF16))
						if bf && in.Src[2] != opLiteral && in.Src[2] >= 128 {
							v = uint32(fp.F32ToBF16(fp.F16ToF32(uint16(v))))
						}
					}
					c = dec(v)
				} else {
					var v uint32
					if in.Src[2] >= opVGPR {
						v = w.V[(in.Src[2]-opVGPR+uint16(e))&511][l]
					} else {
						v = uint32(w.scalar64(in.Src[2], in, kF32))
					}
					c = float64(f32(v))
				}
				if in.NegHi&4 != 0 && c < 0 {
					c = -c
				}
				if in.Neg&4 != 0 {
					c = -c
				}
				s := c
				for k := 0; k < 16; k++ {
					s += a[i][k] * b[k][j]
				}
				d[i][j] = s
			}
		}
		for i := 0; i < 16; i++ {
			for j := 0; j < 16; j++ {
				l, e := cPos(i, j, wave64)
				if out16 {
					r := &w.V[(in.Dst-opVGPR+uint16(e/2))&511][l]
					sh := 16 * uint(e%2)
					*r = *r&^(0xffff<<sh) | enc(d[i][j])<<sh
				} else {
					w.V[(in.Dst-opVGPR+uint16(e))&511][l] = u32(float32(d[i][j]))
				}
			}
		}
		w.Lanes += uint64(w.laneCount())
		return nil
	}
}

func init() {
	def12("v_wmma_f32_16x16x16_f16", wmma16(false, false))
	def12("v_wmma_f32_16x16x16_bf16", wmma16(true, false))
	def12("v_wmma_f16_16x16x16_f16", wmma16(false, true))
	def12("v_wmma_bf16_16x16x16_bf16", wmma16(true, true))
}
