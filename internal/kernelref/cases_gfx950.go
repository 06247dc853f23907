package kernelref

import "math"

// gfx950Only is the target list of the gfx950-only guest kernels (raw
// gfx950 instruction words; see testdata/kernels/src/gfx950.h).
var gfx950Only = []string{"gfx950"}

// BF16 rounds the f32 bits x to bfloat16 bits, to nearest even; a NaN stays
// a NaN with its payload's top bits and the quiet bit set.
func BF16(x uint32) uint16 {
	if x&0x7fffffff > 0x7f800000 {
		return uint16(x>>16) | 0x40
	}
	return uint16((x + 0x7fff + (x >> 16 & 1)) >> 16)
}

// bf16Inputs returns n f32 values: random magnitudes, exact ties of the
// bf16 rounding (both parities), infinities and values that round up to
// infinity. No NaN, no denormals.
func (r *rng) bf16Inputs(n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		var bits uint32
		switch i % 6 {
		case 0, 1, 2:
			bits = r.u32()&0x807fffff | (1+r.below(253))<<23
		case 3:
			bits = r.u32()&0x807f0000 | (100+r.below(60))<<23 | 0x8000 // tie
		case 4:
			bits = r.u32()&0x807e0000 | (100+r.below(60))<<23 | 0x18000 // tie, odd
		default:
			bits = []uint32{0x7f800000, 0xff800000, 0x7f7fffff, 0xff7fffff, 0x3f808000, 0x3f818000}[r.below(6)]
		}
		s[i] = math.Float32frombits(bits)
	}
	return s
}

func gfx950CvtPkBF16F32() Case {
	const n = 300
	b := newCase("gfx950_cvt_pk_bf16_f32", "gfx950-only v_cvt_pk_bf16_f32: two f32 to packed bf16 (RNE)", dim(320, 1, 1), dim(64, 1, 1))
	b.targets(gfx950Only)
	x := b.rng.bf16Inputs(n)
	y := b.rng.bf16Inputs(n)
	b.in("a", F32, x)
	b.in("b", F32, y)
	o := b.out("out", U32, n)
	b.scalar("n", U32, uint32(n))
	want := make([]uint32, n)
	for i := range want {
		want[i] = uint32(BF16(math.Float32bits(y[i])))<<16 | uint32(BF16(math.Float32bits(x[i])))
	}
	b.expect(o, want)
	return b.done()
}

func gfx950CvtF32BF16() Case {
	const n = 300
	b := newCase("gfx950_cvt_f32_bf16", "gfx950-only v_cvt_f32_bf16: low-half bf16 to f32", dim(320, 1, 1), dim(64, 1, 1))
	b.targets(gfx950Only)
	in := make([]uint32, n)
	for i := range in {
		// Garbage in the high half; a finite, normal bf16 (or zero) below.
		bf := uint32(b.rng.below(2))<<15 | (1+b.rng.below(254))<<7 | b.rng.below(128)
		if i%37 == 0 {
			bf &= 0x8000
		}
		in[i] = b.rng.u32()&0xffff0000 | bf
	}
	b.in("in", U32, in)
	o := b.out("out", F32, n)
	b.scalar("n", U32, uint32(n))
	want := make([]float32, n)
	for i := range want {
		want[i] = math.Float32frombits(in[i] << 16)
	}
	b.expect(o, want)
	return b.done()
}

func permlaneSwapCase(name, doc string, rows int) Case {
	const n = 256
	b := newCase(name, doc, dim(n, 1, 1), dim(128, 1, 1))
	b.targets(gfx950Only)
	x := b.rng.u32s(n)
	y := b.rng.u32s(n)
	b.in("a", U32, x)
	b.in("b", U32, y)
	xo := b.out("xo", U32, n)
	yo := b.out("yo", U32, n)
	wx, wy := append([]uint32(nil), x...), append([]uint32(nil), y...)
	for w := 0; w < n; w += 64 {
		for l := 0; l < 64; l++ {
			if l%(2*rows) < rows { // lane l of an even row (16) or of the lower half (32)
				wx[w+l+rows], wy[w+l] = y[w+l], x[w+l+rows]
			}
		}
	}
	b.expect(xo, wx)
	b.expect(yo, wy)
	return b.done()
}

func gfx950Permlane16Swap() Case {
	return permlaneSwapCase("gfx950_permlane16_swap", "gfx950-only v_permlane16_swap_b32: odd rows of x <-> even rows of y", 16)
}

func gfx950Permlane32Swap() Case {
	return permlaneSwapCase("gfx950_permlane32_swap", "gfx950-only v_permlane32_swap_b32: upper half of x <-> lower half of y", 32)
}

// Bitop3 is v_bitop3_b32: per bit, bit (a<<2 | b<<1 | c) of lut.
func Bitop3(lut uint8, a, b, c uint32) uint32 {
	var r uint32
	for i := 0; i < 32; i++ {
		idx := (a>>i&1)<<2 | (b>>i&1)<<1 | c>>i&1
		r |= uint32(lut>>idx&1) << i
	}
	return r
}

func gfx950Bitop3() Case {
	const n = 256
	b := newCase("gfx950_bitop3", "gfx950-only v_bitop3_b32 with tables 0x96, 0xe8, 0xca, 0xa1", dim(n, 1, 1), dim(64, 1, 1))
	b.targets(gfx950Only)
	x, y, z := b.rng.u32s(n), b.rng.u32s(n), b.rng.u32s(n)
	b.in("a", U32, x)
	b.in("b", U32, y)
	b.in("c", U32, z)
	o := b.out("out", U32, 4*n)
	b.scalar("n", U32, uint32(n))
	want := make([]uint32, 4*n)
	for i := range x {
		for k, lut := range []uint8{0x96, 0xe8, 0xca, 0xa1} {
			want[4*i+k] = Bitop3(lut, x[i], y[i], z[i])
		}
	}
	b.expect(o, want)
	return b.done()
}

func gfx950MfmaF32x16x16x32f16() Case {
	c := mmaHalfCase("gfx950_mfma_f32_16x16x32_f16", "gfx950-only v_mfma_f32_16x16x32_f16: D = A(16x32) * B(32x16) + C, one wave64",
		dim(64, 1, 1), dim(64, 1, 1), gfx950Only, 16, 16, 32, 1)
	return c
}

func gfx950MfmaF32x32x32x16f16() Case {
	return mmaHalfCase("gfx950_mfma_f32_32x32x16_f16", "gfx950-only v_mfma_f32_32x32x16_f16: D = A(32x16) * B(16x32) + C, one wave64",
		dim(64, 1, 1), dim(64, 1, 1), gfx950Only, 32, 32, 16, 1)
}

func gfx950CvtPkF16F32() Case {
	const n = 300
	b := newCase("gfx950_cvt_pk_f16_f32", "gfx950-only v_cvt_pk_f16_f32: two f32 to packed f16 (RNE)", dim(320, 1, 1), dim(64, 1, 1))
	b.targets(gfx950Only)
	gen := func() []float32 {
		s := make([]float32, n)
		for i := range s {
			switch i % 5 {
			case 0:
				s[i] = b.rng.f32(-70000, 70000) // some overflow to infinity
			case 1:
				s[i] = b.rng.f32(-1e-4, 1e-4) // f16 denormals
			case 2: // exactly between two halves
				h := F16FromFloat64(b.rng.f64(-1000, 1000))
				s[i] = float32((F16ToFloat64(h) + F16ToFloat64(h+1)) / 2)
			case 3:
				s[i] = b.rng.f32(-4, 4)
			default:
				s[i] = []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), 65519.99, 65520}[b.rng.below(6)]
			}
		}
		return s
	}
	x, y := gen(), gen()
	b.in("a", F32, x)
	b.in("b", F32, y)
	o := b.out("out", U32, n)
	b.scalar("n", U32, uint32(n))
	want := make([]uint32, n)
	for i := range want {
		want[i] = uint32(F16FromFloat64(float64(y[i])))<<16 | uint32(F16FromFloat64(float64(x[i])))
	}
	b.expect(o, want)
	return b.done()
}

func gfx950GlobalLoadLDS() Case {
	const groups, wg = 4, 128
	b := newCase("gfx950_global_load_lds", "gfx950-only global_load_lds_dwordx4: 16 bytes per lane straight into LDS", dim(groups*wg, 1, 1), dim(wg, 1, 1))
	b.targets(gfx950Only)
	in := b.rng.u32s(4 * groups * wg)
	b.in("in", U32, in)
	o := b.out("out", U32, 4*groups*wg)
	want := make([]uint32, 4*groups*wg)
	for g := 0; g < groups; g++ {
		for t := 0; t < wg; t++ {
			copy(want[4*(g*wg+t):4*(g*wg+t)+4], in[4*(g*wg+wg-1-t):])
		}
	}
	b.expect(o, want)
	return b.done()
}
