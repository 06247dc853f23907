package kernelref

import "math"

// The gfx950_scalecvt reference: OCP MX scaled conversions with a
// power-of-two f32 scale s (only its exponent field counts on gfx950; the
// inputs have none other).

// fp4Magnitudes are the FP4 E2M1 values of codes 0..7.
var fp4Magnitudes = [8]float64{0, 0.5, 1, 1.5, 2, 3, 4, 6}

// FP4Nearest returns the FP4 E2M1 code nearest x, ties to the even code,
// saturating at +-6 (the OCP MX conversion with saturation).
func FP4Nearest(x float64) uint32 {
	var sign uint32
	if math.Signbit(x) {
		sign = 8
	}
	best, bd := uint32(0), math.Inf(1)
	for c, v := range fp4Magnitudes {
		d := math.Abs(math.Abs(x) - v)
		if d < bd || d == bd && c%2 == 0 {
			best, bd = uint32(c), d
		}
	}
	return sign | best
}

// FP4Value returns the value of an FP4 code (low 4 bits).
func FP4Value(c uint32) float64 {
	v := fp4Magnitudes[c&7]
	if c&8 != 0 {
		v = -v
	}
	return v
}

// E4M3Value returns the value of a finite OCP E4M3 code (bias 7).
func E4M3Value(c uint32) float64 {
	e, m := int(c>>3&15), float64(c&7)
	v := math.Ldexp(m, -9)
	if e != 0 {
		v = math.Ldexp(8+m, e-10)
	}
	if c&0x80 != 0 {
		v = -v
	}
	return v
}

func scaleExp(s float32) int { return int(math.Float32bits(s)>>23&0xff) - 127 }

func gfx950ScaleCvt() Case {
	const n = 320
	b := newCase("gfx950_scalecvt", "gfx950-only v_cvt_scalef32_pk_fp4_f32 (both byte selects), v_cvt_scalef32_pk_f32_fp4, v_cvt_scalef32_pk_bf16_fp8 with power-of-two scales", dim(n, 1, 1), dim(64, 1, 1))
	b.targets(gfx950Only)
	// The FP4 grid, its midpoints (ties), beyond the largest value, and
	// random values, each times the item's scale.
	grid := []float64{0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 5, 6, 7, 9, 100}
	sc := make([]float32, n)
	x, y := make([]float32, n), make([]float32, n)
	codes := make([]uint32, n)
	pick := func() float64 {
		if b.rng.below(3) == 0 {
			return b.rng.f64(-8, 8)
		}
		v := grid[b.rng.below(uint32(len(grid)))]
		if b.rng.below(2) == 0 {
			v = -v
		}
		return v
	}
	for i := range sc {
		e := int(b.rng.below(7)) - 3
		sc[i] = float32(math.Ldexp(1, e))
		x[i] = float32(math.Ldexp(pick(), e))
		y[i] = float32(math.Ldexp(pick(), e))
		c := b.rng.u32()
		for k := 0; k < 2; k++ { // no E4M3 NaN codes in bytes 0 and 1
			if c>>(8*k)&0x7f == 0x7f {
				c ^= 1 << (8 * k)
			}
		}
		codes[i] = c
	}
	b.in("a", F32, x)
	b.in("b", F32, y)
	b.in("sc", F32, sc)
	b.in("codes", U32, codes)
	o := b.out("out", U32, 4*n)
	b.scalar("n", U32, uint32(n))
	want := make([]uint32, 4*n)
	for i := range sc {
		e := scaleExp(sc[i])
		q := func(v float32) uint32 { return FP4Nearest(math.Ldexp(float64(v), -e)) }
		r := math.Float32bits(x[i])
		r = r&^0xff | q(x[i]) | q(y[i])<<4
		r = r&^0xff0000 | (q(y[i])|q(x[i])<<4)<<16
		want[4*i] = r
		want[4*i+1] = math.Float32bits(float32(math.Ldexp(FP4Value(codes[i]), e)))
		want[4*i+2] = math.Float32bits(float32(math.Ldexp(FP4Value(codes[i]>>4), e)))
		lo := BF16(math.Float32bits(float32(math.Ldexp(E4M3Value(codes[i]&0xff), e))))
		hi := BF16(math.Float32bits(float32(math.Ldexp(E4M3Value(codes[i]>>8&0xff), e))))
		want[4*i+3] = uint32(hi)<<16 | uint32(lo)
	}
	b.expect(o, want)
	return b.done()
}

// gfx950PermlaneSelfSwap is v_permlane16/32_swap_b32 with vdst == vsrc:
// every lane of a full wave takes lane l^16 (l^32).
func gfx950PermlaneSelfSwap() Case {
	const n = 256
	b := newCase("gfx950_permlane_self_swap", "gfx950-only v_permlane16/32_swap_b32 with vdst == vsrc: lane l takes lane l^16 / l^32", dim(n, 1, 1), dim(128, 1, 1))
	b.targets(gfx950Only)
	x, y, z := b.rng.u32s(n), b.rng.u32s(n), b.rng.u32s(n)
	b.in("a", U32, x)
	b.in("b", U32, y)
	b.in("c", U32, z)
	xo, yo, zo := b.out("xo", U32, n), b.out("yo", U32, n), b.out("zo", U32, n)
	wx, wy, wz := make([]uint32, n), make([]uint32, n), make([]uint32, n)
	for i := range wx {
		wx[i], wy[i], wz[i] = x[i^16], y[i^32], z[i^48]
	}
	b.expect(xo, wx)
	b.expect(yo, wy)
	b.expect(zo, wz)
	return b.done()
}

// gfx950MfmaScaleAGPR is v_mfma_scale_f32_16x16x128_f8f6f4 (E4M3 x E4M3)
// with A and B in AGPRs. Elements have exponent fields 7..8 (|x| in
// [1, 3.75]) or are zero, scales are 2^0 or 2^1 and C holds small
// integers, so every product and sum is exact in f32 whatever the order.
func gfx950MfmaScaleAGPR() Case {
	b := newCase("gfx950_mfma_scale_agpr", "gfx950-only v_mfma_scale_f32_16x16x128_f8f6f4 (E4M3, per-lane E8M0 scales) with A and B in AGPRs, one wave64", dim(64, 1, 1), dim(64, 1, 1))
	b.targets(gfx950Only)
	elems := func() []uint32 {
		w := make([]uint32, 64*8)
		for i := range w {
			for k := 0; k < 4; k++ {
				var c uint32
				if b.rng.below(8) != 0 {
					c = b.rng.below(2)<<7 | (7+b.rng.below(2))<<3 | b.rng.below(8)
				}
				w[i] |= c << (8 * k)
			}
		}
		return w
	}
	scales := func() []uint32 {
		s := make([]uint32, 64)
		for i := range s {
			s[i] = b.rng.u32()&0xffffff00 | (127 + b.rng.below(2)) // only byte 0 counts
		}
		return s
	}
	a, bb := elems(), elems()
	c := make([]float32, 64*4)
	for i := range c {
		c[i] = float32(int(b.rng.below(17)) - 8)
	}
	sa, sb := scales(), scales()
	b.in("a", U32, a)
	b.in("b", U32, bb)
	b.in("c", F32, c)
	b.in("sa", U32, sa)
	b.in("sb", U32, sb)
	o := b.out("d", F32, 64*4)
	elem := func(w []uint32, lane, e int) float64 { return E4M3Value(w[8*lane+e/4] >> (8 * (e % 4)) & 0xff) }
	want := make([]float32, 64*4)
	for l := 0; l < 64; l++ {
		for v := 0; v < 4; v++ {
			row, col := 4*(l/16)+v, l%16
			s := float64(c[4*l+v])
			for k := 0; k < 128; k++ {
				la, lb := row+16*(k/32), col+16*(k/32)
				s += math.Ldexp(elem(a, la, k%32), int(sa[la]&0xff)-127) * math.Ldexp(elem(bb, lb, k%32), int(sb[lb]&0xff)-127)
			}
			want[4*l+v] = float32(s)
		}
	}
	b.expect(o, want)
	return b.done()
}
