package kernelref

import "math"

// minimum754 and maximum754 are IEEE 754-2019 minimum and maximum: a NaN
// operand gives NaN (here the canonical 0x7fc00000), and -0 < +0.
func minimum754(a, b float32) float32 {
	switch {
	case a != a || b != b:
		return math.Float32frombits(0x7fc00000)
	case a == b:
		if math.Signbit(float64(a)) {
			return a
		}
		return b
	case a < b:
		return a
	}
	return b
}

func maximum754(a, b float32) float32 {
	switch {
	case a != a || b != b:
		return math.Float32frombits(0x7fc00000)
	case a == b:
		if math.Signbit(float64(a)) {
			return b
		}
		return a
	case a > b:
		return a
	}
	return b
}

func gfx950Minmax3() Case {
	const n = 256
	b := newCase("gfx950_minmax3", "gfx950-only v_minimum3_f32 / v_maximum3_f32 (IEEE 754-2019, NaN and signed zeros)", dim(n, 1, 1), dim(64, 1, 1))
	b.targets(gfx950Only)
	special := []uint32{0x00000000, 0x80000000, 0x7fc00000, 0x7f800001, 0xffc00000, 0x7f800000, 0xff800000, 0x3f800000}
	gen := func() []float32 {
		s := make([]float32, n)
		for i := range s {
			if b.rng.below(4) == 0 {
				s[i] = math.Float32frombits(special[b.rng.below(uint32(len(special)))])
			} else {
				s[i] = b.rng.f32(-8, 8)
			}
		}
		return s
	}
	x, y, z := gen(), gen(), gen()
	b.in("a", F32, x)
	b.in("b", F32, y)
	b.in("c", F32, z)
	o := b.out("out", F32, 2*n)
	b.scalar("n", U32, uint32(n))
	want := make([]float32, 2*n)
	for i := range x {
		want[2*i] = minimum754(minimum754(x[i], y[i]), z[i])
		want[2*i+1] = maximum754(maximum754(x[i], y[i]), z[i])
	}
	b.expect(o, want)
	return b.done()
}
