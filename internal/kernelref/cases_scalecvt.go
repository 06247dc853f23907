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
