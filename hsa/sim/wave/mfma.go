package wave

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
)

// mfmaShape describes a matrix instruction parsed from its mnemonic.
type mfmaShape struct {
	m, n, k, blocks int
	intOut          bool
	aType, bType    string // f32, f16, bf16, i8, fp8, bf8
}

func elemBits(t string) int {
	switch t {
	case "f32", "xf32":
		return 32
	case "f16", "bf16":
		return 16
	}
	return 8
}

func parseMFMA(name string) (mfmaShape, bool) {
	f := strings.Split(strings.TrimPrefix(name, "v_mfma_"), "_")
	if len(f) < 3 {
		return mfmaShape{}, false
	}
	var s mfmaShape
	switch f[0] {
	case "f32":
	case "i32":
		s.intOut = true
	default:
		return s, false
	}
	dims := strings.Split(f[1], "x")
	if len(dims) != 3 {
		return s, false
	}
	var err error
	if s.m, err = strconv.Atoi(dims[0]); err != nil {
		return s, false
	}
	if s.n, err = strconv.Atoi(dims[1]); err != nil {
		return s, false
	}
	if s.k, err = strconv.Atoi(dims[2]); err != nil {
		return s, false
	}
	rest := f[2:]
	s.blocks = 1
	if strings.HasSuffix(rest[0], "b") {
		if s.blocks, err = strconv.Atoi(strings.TrimSuffix(rest[0], "b")); err != nil {
			return s, false
		}
		rest = rest[1:]
	}
	switch len(rest) {
	case 1:
		s.aType, s.bType = rest[0], rest[0]
	case 2:
		s.aType, s.bType = rest[0], rest[1]
	default:
		return s, false
	}
	for _, t := range []string{s.aType, s.bType} {
		switch t {
		case "f32", "f16", "bf16", "i8", "fp8", "bf8", "xf32":
		default:
			return s, false
		}
	}
	return s, true
}

// element reads element e of a lane's A or B operand.
func (w *Wave) mfmaElem(base uint16, lane, e int, typ string) float64 {
	bitsN := elemBits(typ)
	per := 32 / bitsN
	r := (base - opVGPR + uint16(e/per)) & 511
	v := w.V[r][lane] >> (uint(e%per) * uint(bitsN))
	switch typ {
	case "f32":
		return float64(f32(v))
	case "xf32":
		// XF32 (1-8-10): the f32 mantissa rounded to 10 bits, to nearest even.
		if v&0x7f800000 != 0x7f800000 {
			v += 0xfff + (v>>13)&1
			v &^= 0x1fff
		}
		return float64(f32(v))
	case "f16":
		return float64(fp.F16ToF32(uint16(v)))
	case "bf16":
		return float64(fp.BF16ToF32(uint16(v)))
	case "i8":
		return float64(int8(v))
	case "fp8":
		if w.target == GFX950 {
			return float64(fp.E4M3FN.Decode(uint8(v)))
		}
		return float64(fp.E4M3FNUZ.Decode(uint8(v)))
	case "bf8":
		if w.target == GFX950 {
			return float64(fp.E5M2.Decode(uint8(v)))
		}
		return float64(fp.E5M2FNUZ.Decode(uint8(v)))
	}
	return 0
}

// blgpLane is the lane whose B operand lane l reads under the B lane group
// pattern: 0 none, 1 lanes 0-31 broadcast to 32-63, 2 lanes 32-63
// broadcast to 0-31, 3 rotate down by 16 lanes, 4-7 lanes 16*(blgp-4) to
// 16*(blgp-4)+15 broadcast to every group of 16.
func blgpLane(blgp uint8, l int) int {
	switch blgp {
	case 1:
		return l % 32
	case 2:
		return 32 + l%32
	case 3:
		return (l + 16) % 64
	case 4, 5, 6, 7:
		return 16*int(blgp-4) + l%16
	}
	return l
}

// mfmaOp implements a dense matrix fused multiply-add. Products are summed
// in float64 and rounded once to float32 (integer shapes wrap in int32).
func mfmaOp(s mfmaShape) func(*Wave, *Inst) error {
	g := 64 / s.m // lane groups
	kPer := s.k
	if s.blocks == 1 {
		kPer = s.k / g
	}
	dRegs := s.m * s.n * s.blocks / 64
	return func(w *Wave, in *Inst) error {
		if s.blocks == 1 && (in.Cbsz != 0 || in.Abid != 0) {
			return fmt.Errorf("cbsz/abid on a single-block MFMA")
		}
		if in.Src[0] < opVGPR || in.Src[1] < opVGPR {
			return fmt.Errorf("MFMA with scalar or constant A/B operands is not supported")
		}
		// Gather A[b][i][k] and B[b][k][j]. With CBSZ/ABID, block b takes
		// its A from block (b with the low cbsz bits replaced by abid);
		// BLGP makes lane l read its B values from lane blgpLane(blgp, l).
		cmask := 1<<in.Cbsz - 1
		aLane := func(l int) int {
			if s.blocks == 1 || in.Cbsz == 0 {
				return l
			}
			b := l / s.m
			return (b&^cmask|int(in.Abid)&cmask)*s.m + l%s.m
		}
		A := make([]float64, s.blocks*s.m*s.k)
		B := make([]float64, s.blocks*s.k*s.n)
		for l := 0; l < 64; l++ {
			i, b := l%s.m, 0
			k0 := 0
			if s.blocks == 1 {
				k0 = (l / s.m) * kPer
			} else {
				b = l / s.m
			}
			if b >= s.blocks {
				continue
			}
			la, lb := aLane(l), blgpLane(in.Blgp, l)
			if la >= 64 {
				return fmt.Errorf("abid %d selects a block past the wave", in.Abid)
			}
			for e := 0; e < kPer; e++ {
				A[(b*s.m+i)*s.k+k0+e] = w.mfmaElem(in.Src[0], la, e, s.aType)
				B[(b*s.k+k0+e)*s.n+i] = w.mfmaElem(in.Src[1], lb, e, s.bType)
			}
		}
		// C/D positions: (block, i, j) of lane l, register r.
		pos := func(l, r int) (b, i, j int) {
			if s.m*s.n < 64 { // 4x4 shapes: blocks across lanes
				return l / s.n, r, l % s.n
			}
			rpb := s.m * s.n / 64
			b = r / rpb
			r %= rpb
			return b, (r/4)*(4*g) + (l/s.n)*4 + r%4, l % s.n
		}
		var cval func(l, r int) uint32
		if in.Src[2] >= opVGPR {
			cbase := (in.Src[2] - opVGPR) & 511
			cval = func(l, r int) uint32 { return w.V[(cbase+uint16(r))&511][l] }
		} else {
			c := uint32(w.scalar64(in.Src[2], in, kF32))
			if s.intOut {
				c = uint32(w.scalar64(in.Src[2], in, kB32))
			}
			cval = func(l, r int) uint32 { return c }
		}
		out := make([]uint32, 64*dRegs)
		for l := 0; l < 64; l++ {
			for r := 0; r < dRegs; r++ {
				b, i, j := pos(l, r)
				c := cval(l, r)
				if s.intOut {
					acc := int32(c)
					for k := 0; k < s.k; k++ {
						acc += int32(A[(b*s.m+i)*s.k+k]) * int32(B[(b*s.k+k)*s.n+j])
					}
					out[l*dRegs+r] = uint32(acc)
					continue
				}
				acc := 0.0
				for k := 0; k < s.k; k++ {
					acc += A[(b*s.m+i)*s.k+k] * B[(b*s.k+k)*s.n+j]
				}
				out[l*dRegs+r] = math.Float32bits(float32(acc + float64(f32(c))))
			}
		}
		d := (in.Dst - opVGPR) & 511
		for l := 0; l < 64; l++ {
			for r := 0; r < dRegs; r++ {
				w.V[(d+uint16(r))&511][l] = out[l*dRegs+r]
			}
		}
		w.Lanes += 64
		return nil
	}
}

func registerMfma() {
	for _, n := range namesVOP3P {
		if !strings.HasPrefix(n, "v_mfma_") {
			continue
		}
		if s, ok := parseMFMA(n); ok {
			def(n, mfmaOp(s))
		}
	}
	for _, n := range namesVOP3P {
		if !strings.HasPrefix(n, "v_smfmac_") {
			continue
		}
		if sh, ok := parseMFMA("v_mfma_" + strings.TrimPrefix(n, "v_smfmac_")); ok && sh.blocks == 1 {
			def(n, smfmacOp(sh))
		}
	}
	def("v_mfma_f64_16x16x4_f64", mfmaF64(16))
	def("v_mfma_f64_4x4x4_4b_f64", mfmaF64(4))
	def("v_mfma_f32_16x16x128_f8f6f4", mfmaF8F6F4(16))
	def("v_mfma_f32_32x32x64_f8f6f4", mfmaF8F6F4(32))
	// v_mfma_ld_scale_b32 loads the E8M0 scales of the next f8f6f4 MFMA
	// (the two together are v_mfma_scale_*): byte op_sel|op_sel_hi<<1 of
	// src0 scales A, of src1 scales B, per lane.
	def("v_mfma_ld_scale_b32", func(w *Wave, in *Inst) error {
		a := w.vsrc(in.Src[0], in, kB32, 0)
		b := w.vsrc(in.Src[1], in, kB32, 1)
		sa := uint(in.Opsel&1 | in.OpselHi&1<<1)
		sb := uint(in.Opsel>>1&1 | in.OpselHi>>1&1<<1)
		for l := 0; l < 64; l++ {
			w.scale[0][l] = uint8(a[l] >> (8 * sa))
			w.scale[1][l] = uint8(b[l] >> (8 * sb))
		}
		w.scalePC = w.PC // valid for the instruction that follows
		w.Lanes++
		return nil
	})
}

// f8f6f4Formats are the element formats cbsz (A) and blgp (B) select.
var f8f6f4Formats = [5]fp.Format{fp.E4M3FN, fp.E5M2, fp.E2M3, fp.E3M2, fp.E2M1}

// mfmaF8F6F4 implements v_mfma_f32_{16x16x128,32x32x64}_f8f6f4: A and B
// elements in the formats cbsz and blgp select, 32 per lane packed
// contiguously, optionally scaled per lane (one E8M0 scale per 32-element
// block) by a preceding v_mfma_ld_scale_b32.
func mfmaF8F6F4(m int) func(*Wave, *Inst) error {
	k := 128
	if m == 32 {
		k = 64
	}
	g := 64 / m
	dRegs := m * m / 64
	return func(w *Wave, in *Inst) error {
		if in.Cbsz > 4 || in.Blgp > 4 {
			return fmt.Errorf("f8f6f4 MFMA: cbsz %d / blgp %d select no format", in.Cbsz, in.Blgp)
		}
		if in.Src[0] < opVGPR || in.Src[1] < opVGPR {
			return fmt.Errorf("MFMA with scalar or constant A/B operands is not supported")
		}
		fa, fb := f8f6f4Formats[in.Cbsz], f8f6f4Formats[in.Blgp]
		scaled := w.scalePC == in.PC
		elem := func(base uint16, lane, e int, f fp.Format) float64 {
			bits := f.Bits
			if bits == 0 {
				bits = 8
			}
			bit := e * bits
			r := (base - opVGPR + uint16(bit/32)) & 511
			v := uint64(w.V[r][lane]) | uint64(w.V[(r+1)&511][lane])<<32
			return float64(f.Decode(uint8(v >> (bit % 32) & (1<<bits - 1))))
		}
		A := make([]float64, m*k)
		B := make([]float64, k*m)
		for l := 0; l < 64; l++ {
			i, k0 := l%m, 32*(l/m)
			sa, sb := 1.0, 1.0
			if scaled {
				sa, sb = fp.E8M0(w.scale[0][l]), fp.E8M0(w.scale[1][l])
			}
			for e := 0; e < 32; e++ {
				A[i*k+k0+e] = elem(in.Src[0], l, e, fa) * sa
				B[(k0+e)*m+i] = elem(in.Src[1], l, e, fb) * sb
			}
		}
		var cval func(l, r int) float32
		if in.Src[2] >= opVGPR {
			cb := (in.Src[2] - opVGPR) & 511
			cval = func(l, r int) float32 { return f32(w.V[(cb+uint16(r))&511][l]) }
		} else {
			c := f32(uint32(w.scalar64(in.Src[2], in, kF32)))
			cval = func(l, r int) float32 { return c }
		}
		out := make([]uint32, 64*dRegs)
		for l := 0; l < 64; l++ {
			for r := 0; r < dRegs; r++ {
				i, j := (r/4)*(4*g)+(l/m)*4+r%4, l%m
				acc := 0.0
				for kk := 0; kk < k; kk++ {
					acc += A[i*k+kk] * B[kk*m+j]
				}
				out[l*dRegs+r] = u32(float32(acc + float64(cval(l, r))))
			}
		}
		d := (in.Dst - opVGPR) & 511
		for l := 0; l < 64; l++ {
			for r := 0; r < dRegs; r++ {
				w.V[(d+uint16(r))&511][l] = out[l*dRegs+r]
			}
		}
		w.Lanes += 64
		return nil
	}
}

// smfmacOp implements the sparse MFMAs (2:4 structured sparsity in A):
// D = D + A * B, where each lane holds the non-zero half of its A row
// segment (two values per group of four K positions) and the 2-bit
// positions come from an index set in the src2 VGPR: 2 bits per stored
// value, lowest first; the sets are the 8- or 16-bit fields of the VGPR,
// chosen by abid when cbsz is 0 (the first otherwise). The layout follows
// the documentation of MLIR's amdgpu.sparse_mfma; it is not checked
// against hardware.
func smfmacOp(s mfmaShape) func(*Wave, *Inst) error {
	g := 64 / s.m
	kPer := s.k / g // dense K positions per lane
	nA := kPer / 2  // stored A values per lane
	idxBits := 2 * nA
	sets := 32 / idxBits
	dRegs := s.m * s.n / 64
	return func(w *Wave, in *Inst) error {
		if in.Src[0] < opVGPR || in.Src[1] < opVGPR || in.Src[2] < opVGPR {
			return fmt.Errorf("sparse MFMA with scalar or constant operands is not supported")
		}
		set := 0
		if in.Cbsz == 0 {
			set = int(in.Abid) & (sets - 1)
		}
		idxReg := w.vreg(in.Src[2])
		A := make([]float64, s.m*s.k)
		B := make([]float64, s.k*s.n)
		for l := 0; l < 64; l++ {
			i, k0 := l%s.m, (l/s.m)*kPer
			idx := idxReg[l] >> (uint(set) * uint(idxBits))
			for e := 0; e < nA; e++ {
				pos := int(idx>>(2*e)) & 3
				k := k0 + 4*(e/2) + pos
				A[i*s.k+k] = w.mfmaElem(in.Src[0], l, e, s.aType)
			}
			for e := 0; e < kPer; e++ {
				B[(k0+e)*s.n+i] = w.mfmaElem(in.Src[1], l, e, s.bType)
			}
		}
		d := (in.Dst - opVGPR) & 511
		out := make([]uint32, 64*dRegs)
		for l := 0; l < 64; l++ {
			for r := 0; r < dRegs; r++ {
				i, j := (r/4)*(4*g)+(l/s.n)*4+r%4, l%s.n
				c := w.V[(d+uint16(r))&511][l]
				if s.intOut {
					acc := int32(c)
					for k := 0; k < s.k; k++ {
						acc += int32(A[i*s.k+k]) * int32(B[k*s.n+j])
					}
					out[l*dRegs+r] = uint32(acc)
					continue
				}
				acc := 0.0
				for k := 0; k < s.k; k++ {
					acc += A[i*s.k+k] * B[k*s.n+j]
				}
				out[l*dRegs+r] = u32(float32(acc + float64(f32(c))))
			}
		}
		for l := 0; l < 64; l++ {
			for r := 0; r < dRegs; r++ {
				w.V[(d+uint16(r))&511][l] = out[l*dRegs+r]
			}
		}
		w.Lanes += 64
		return nil
	}
}

// mfmaF64 implements the double-precision MFMAs. 16x16x4: A[i][k] in lane
// i + 16k, B[k][j] in lane j + 16k, D[i][j] in lane j + 16*(i/4), register
// pair i%4. 4x4x4 with 4 blocks: A[b][i][k] in lane i + 4k + 16b, B[b][k][j]
// in lane j + 4k + 16b, D[b][i][j] in lane j + 4i + 16b. Products are
// accumulated with fused multiply-adds in k order.
func mfmaF64(m int) func(*Wave, *Inst) error {
	return func(w *Wave, in *Inst) error {
		if in.Cbsz != 0 || in.Abid != 0 || in.Blgp != 0 {
			return fmt.Errorf("MFMA broadcast controls (cbsz/abid/blgp) are not supported")
		}
		if in.Src[0] < opVGPR || in.Src[1] < opVGPR {
			return fmt.Errorf("MFMA with scalar or constant A/B operands is not supported")
		}
		get := func(base uint16, l, r int) float64 {
			q := (base - opVGPR + uint16(2*r)) & 511
			return f64(uint64(w.V[q][l]) | uint64(w.V[(q+1)&511][l])<<32)
		}
		cget := func(l, r int) float64 {
			if in.Src[2] >= opVGPR {
				return get(in.Src[2], l, r)
			}
			return f64(w.scalar64(in.Src[2], in, kF64))
		}
		var out [64][4]float64
		nr := 4
		if m == 4 {
			nr = 1
		}
		for l := 0; l < 64; l++ {
			for r := 0; r < nr; r++ {
				var i, j, b, kN int
				if m == 16 {
					i, j, kN = 4*(l/16)+r, l%16, 4
				} else {
					i, j, b, kN = (l/4)%4, l%4, l/16, 4
				}
				acc := cget(l, r)
				for k := 0; k < kN; k++ {
					var la, lb int
					if m == 16 {
						la, lb = i+16*k, j+16*k
					} else {
						la, lb = i+4*k+16*b, j+4*k+16*b
					}
					acc = math.FMA(get(in.Src[0], la, 0), get(in.Src[1], lb, 0), acc)
				}
				out[l][r] = acc
			}
		}
		d := (in.Dst - opVGPR) & 511
		for l := 0; l < 64; l++ {
			for r := 0; r < nr; r++ {
				u := u64f(out[l][r])
				w.V[(d+uint16(2*r))&511][l] = uint32(u)
				w.V[(d+uint16(2*r+1))&511][l] = uint32(u >> 32)
			}
		}
		w.Lanes += 64
		return nil
	}
}
