package kernelref

import (
	"math"
	"math/bits"
)

func mulhi64(x, y uint64) uint64 {
	hi, _ := bits.Mul64(x, y)
	return hi
}

func int64Arith() Case {
	const n = 300
	b := newCase("int64_arith", "u64/i64 multiply, high multiply, shifts and compares", dim(320, 1, 1), dim(64, 1, 1))
	x := make([]uint64, n)
	y := make([]uint64, n)
	for i := range x {
		x[i], y[i] = b.rng.u64(), b.rng.u64()
		if i%7 == 0 {
			y[i] = x[i] // equal pairs
		}
	}
	b.in("a", U64, x)
	b.in("b", U64, y)
	o := b.out("out", U64, 4*n)
	b.scalar("n", U32, uint32(n))
	want := make([]uint64, 4*n)
	for i := range x {
		a, c := x[i], y[i]
		sx := int64(a)
		want[4*i] = a*c + a>>7 - c<<3
		want[4*i+1] = mulhi64(a, c)
		d := c - a
		if a > c {
			d = a - c
		}
		want[4*i+2] = uint64(sx>>(c&63)) ^ d
		var lt uint64
		if sx < int64(c) {
			lt = 1
		}
		want[4*i+3] = uint64(int64(a)*int64(c|1)) + lt
	}
	b.expect(o, want)
	return b.done()
}

func fp64Arith() Case {
	const n = 300
	b := newCase("fp64_arith", "f64 add, sub, mul, fma, min/max, compare", dim(320, 1, 1), dim(64, 1, 1))
	x := make([]float64, n)
	y := make([]float64, n)
	for i := range x {
		x[i], y[i] = b.rng.f64(-1e3, 1e3), b.rng.f64(-1e3, 1e3)
	}
	b.in("a", F64, x)
	b.in("b", F64, y)
	o := b.out("out", F64, 3*n)
	b.scalar("n", U32, uint32(n))
	want := make([]float64, 3*n)
	for i := range x {
		a, c := x[i], y[i]
		want[3*i] = float64(a+c) * float64(a-c)
		want[3*i+1] = math.FMA(a, c, float64(0.5*a))
		var t float64
		if a < c {
			t = float64(math.Min(a, c) * 3.0)
		} else {
			t = math.Max(a, c) - 1.25
		}
		want[3*i+2] = t + float64(i)
	}
	b.expect(o, want)
	return b.done()
}

func intDivmod() Case {
	const n = 500
	b := newCase("int_divmod", "i32 and u32 division and remainder", dim(512, 1, 1), dim(64, 1, 1))
	x := make([]int32, n)
	y := make([]int32, n)
	for i := range x {
		x[i] = int32(b.rng.u32())
		switch i % 4 {
		case 0:
			y[i] = int32(b.rng.below(100)) - 50 // small divisors, both signs
		case 1:
			y[i] = int32(b.rng.u32())
		case 2:
			y[i] = int32(b.rng.below(1<<16)) + 1
		default:
			y[i] = -int32(b.rng.below(1<<20)) - 1
		}
		if y[i] == 0 {
			y[i] = 3
		}
		if x[i] == math.MinInt32 && y[i] == -1 {
			y[i] = 7
		}
	}
	x[1] = math.MinInt32
	b.in("a", I32, x)
	b.in("b", I32, y)
	q := b.out("q", I32, n)
	r := b.out("r", I32, n)
	uq := b.out("uq", U32, n)
	ur := b.out("ur", U32, n)
	b.scalar("n", U32, uint32(n))
	wq, wr := make([]int32, n), make([]int32, n)
	wuq, wur := make([]uint32, n), make([]uint32, n)
	for i := range x {
		wq[i], wr[i] = x[i]/y[i], x[i]%y[i]
		wuq[i], wur[i] = uint32(x[i])/uint32(y[i]), uint32(x[i])%uint32(y[i])
	}
	b.expect(q, wq)
	b.expect(r, wr)
	b.expect(uq, wuq)
	b.expect(ur, wur)
	return b.done()
}

func bitmanip() Case {
	const n = 256
	b := newCase("bitmanip", "popcount, clz, ctz, bitreverse, rotate, bswap, bit-field extract", dim(n, 1, 1), dim(64, 1, 1))
	x := b.rng.u32s(n)
	y := make([]uint64, n)
	for i := range y {
		y[i] = b.rng.u64()
		switch i % 16 {
		case 0:
			x[i] = 0
		case 1:
			x[i] = 1 << b.rng.below(32)
		case 2:
			x[i] = 0xffffffff
		case 3:
			x[i] >>= b.rng.below(32)
		}
	}
	b.in("a", U32, x)
	b.in("b", U64, y)
	o := b.out("out", U32, 8*n)
	b.scalar("n", U32, uint32(n))
	want := make([]uint32, 8*n)
	for i := range x {
		v, w, r := x[i], y[i], uint32(i)&31
		want[8*i] = uint32(bits.OnesCount32(v))
		want[8*i+1] = uint32(bits.LeadingZeros32(v))
		want[8*i+2] = uint32(bits.TrailingZeros32(v))
		want[8*i+3] = bits.Reverse32(v)
		want[8*i+4] = bits.RotateLeft32(v, int(r))
		want[8*i+5] = uint32(bits.OnesCount64(w))
		want[8*i+6] = bits.ReverseBytes32(v)
		want[8*i+7] = (v >> (uint32(i) % 24)) & (1<<((w&7)+1) - 1)
	}
	b.expect(o, want)
	return b.done()
}

// randHalf returns a binary16 value with magnitude in [1/16, 8) and a
// random sign.
func (r *rng) randHalf() uint16 {
	m := r.f64(1.0/16, 8)
	if r.u32()&1 != 0 {
		m = -m
	}
	return F16FromFloat64(m)
}

func halfArith() Case {
	const n = 256
	b := newCase("half_arith", "binary16 add, mul, sub, fma (each rounded to half)", dim(n, 1, 1), dim(64, 1, 1))
	x := make([]uint16, n)
	y := make([]uint16, n)
	for i := range x {
		x[i], y[i] = b.rng.randHalf(), b.rng.randHalf()
	}
	b.in("a", F16, x)
	b.in("b", F16, y)
	o := b.out("out", F16, 3*n)
	b.scalar("n", U32, uint32(n))
	want := make([]uint16, 3*n)
	for i := range x {
		// Sums and products of these halves are exact in float64, so each
		// result below is rounded once, as the hardware does.
		a, c := F16ToFloat64(x[i]), F16ToFloat64(y[i])
		s := F16FromFloat64(a + c)
		p := F16FromFloat64(a * c)
		want[3*i] = s
		want[3*i+1] = F16FromFloat64(F16ToFloat64(p) - F16ToFloat64(s))
		want[3*i+2] = F16FromFloat64(a*c + 0.5)
	}
	b.expect(o, want)
	return b.done()
}

func conversions() Case {
	const n = 256
	b := newCase("conversions", "f32/f64/f16/i32/u32/i64/u8 conversions", dim(n, 1, 1), dim(64, 1, 1))
	x := b.rng.f32s(n, -300, 300)
	k := make([]int32, n)
	d := make([]float64, n)
	for i := range k {
		k[i] = int32(b.rng.u32())
		d[i] = b.rng.f64(-1e6, 1e6)
		if i%5 == 0 {
			// Exactly halfway between two halves: a tie for the f16
			// rounding (float32 holds the midpoint exactly).
			h := F16FromFloat64(float64(x[i]))
			x[i] = float32((F16ToFloat64(h) + F16ToFloat64(h+1)) / 2)
		}
	}
	b.in("a", F32, x)
	b.in("b", I32, k)
	b.in("c", F64, d)
	oi := b.out("oi", I32, 2*n)
	of := b.out("of", F32, 4*n)
	oh := b.out("oh", F16, n)
	od := b.out("od", F64, 2*n)
	ob := b.out("ob", U8, n)
	b.scalar("n", U32, uint32(n))
	wi, wf, wh, wd, wb := make([]int32, 2*n), make([]float32, 4*n), make([]uint16, n), make([]float64, 2*n), make([]uint8, n)
	for i := range x {
		wi[2*i] = int32(x[i])
		wi[2*i+1] = int32(d[i])
		wf[4*i] = float32(k[i])
		wf[4*i+1] = float32(uint32(k[i]))
		wf[4*i+2] = float32(d[i])
		h := F16FromFloat64(float64(x[i]))
		wf[4*i+3] = float32(F16ToFloat64(h))
		wh[i] = h
		wd[2*i] = float64(x[i])
		wd[2*i+1] = float64(int64(k[i])) * 1.5
		c := x[i]
		if c < 0 {
			c = 0
		} else if c > 255 {
			c = 255
		}
		wb[i] = uint8(c)
	}
	b.expect(oi, wi)
	b.expect(of, wf)
	b.expect(oh, wh)
	b.expect(od, wd)
	b.expect(ob, wb)
	return b.done()
}

func selectMinmax() Case {
	const n = 256
	b := newCase("select_minmax", "f32 and i32 min, max, select, clamp, abs", dim(n, 1, 1), dim(64, 1, 1))
	fa := b.rng.f32s(n, -4, 4)
	fb := b.rng.f32s(n, -4, 4)
	ia := make([]int32, n)
	ib := make([]int32, n)
	for i := range ia {
		ia[i], ib[i] = int32(b.rng.u32()), int32(b.rng.u32())
		if i%9 == 0 {
			ib[i] = ia[i]
			fb[i] = fa[i]
		}
	}
	ia[3] = math.MinInt32
	b.in("fa", F32, fa)
	b.in("fb", F32, fb)
	b.in("ia", I32, ia)
	b.in("ib", I32, ib)
	fo := b.out("fo", F32, 4*n)
	io := b.out("io", I32, 4*n)
	b.scalar("n", U32, uint32(n))
	wf, wi := make([]float32, 4*n), make([]int32, 4*n)
	for i := range fa {
		x, y, p, q := fa[i], fb[i], ia[i], ib[i]
		wf[4*i] = float32(math.Min(float64(x), float64(y)))
		wf[4*i+1] = float32(math.Max(float64(x), float64(y)))
		wf[4*i+2] = y
		if p > q {
			wf[4*i+2] = x
		}
		wf[4*i+3] = float32(math.Max(math.Min(float64(x), 1), -1))
		wi[4*i] = min(p, q)
		wi[4*i+1] = q
		if uint32(p) > uint32(q) {
			wi[4*i+1] = p
		}
		wi[4*i+2] = q
		if x < y {
			wi[4*i+2] = p
		}
		wi[4*i+3] = p
		if p < 0 {
			wi[4*i+3] = -p
		}
	}
	b.expect(fo, wf)
	b.expect(io, wi)
	return b.done()
}

func transcendental() Case {
	const n = 256
	b := newCase("transcendental", "sqrt, exp2, log2, rsq, rcp, sin, cos (revolutions), divide; with tolerances", dim(n, 1, 1), dim(64, 1, 1))
	x := b.rng.f32s(n, 0.5, 4)
	y := b.rng.f32s(n, 1, 2)
	b.in("x", F32, x)
	b.in("y", F32, y)
	names := []string{"o_sqrt", "o_exp2", "o_log2", "o_rsq", "o_rcp", "o_sin", "o_cos", "o_div"}
	fns := []func(a, c float64) float64{
		func(a, _ float64) float64 { return math.Sqrt(a) },
		func(a, _ float64) float64 { return math.Exp2(a) },
		func(a, _ float64) float64 { return math.Log2(a) },
		func(a, _ float64) float64 { return 1 / math.Sqrt(a) },
		func(a, _ float64) float64 { return 1 / a },
		func(a, _ float64) float64 { return math.Sin(2 * math.Pi * float64(float32(a)-2)) },
		func(a, _ float64) float64 { return math.Cos(2 * math.Pi * float64(float32(a)-2)) },
		func(a, c float64) float64 { return a / c },
	}
	// Tolerances: the hardware's v_sqrt/v_exp/v_log/v_rsq/v_rcp are about
	// 1 ulp; v_sin/v_cos have an absolute error near 2^-20; OpenCL allows
	// 2.5 ulp for f32 division.
	tols := []Tolerance{
		{ULP: 2}, {ULP: 2}, {ULP: 2, Abs: 1e-6}, {ULP: 2}, {ULP: 2},
		{ULP: 4, Abs: 1e-5}, {ULP: 4, Abs: 1e-5}, {ULP: 3},
	}
	outs := make([]int, len(names))
	for j, nm := range names {
		outs[j] = b.out(nm, F32, n)
	}
	b.scalar("n", U32, uint32(n))
	for j, f := range fns {
		w := make([]float32, n)
		for i := range w {
			w[i] = float32(f(float64(x[i]), float64(y[i])))
		}
		b.expect(outs[j], w)
		b.tol(outs[j], tols[j])
	}
	return b.done()
}

func manyKernargs() Case {
	const n = 64
	b := newCase("many_kernargs", "arguments of mixed sizes and alignments (char .. float4)", dim(n, 1, 1), dim(64, 1, 1))
	c := int8(-77)
	uc := uint8(201)
	s := int16(-12345)
	us := uint16(54321)
	k := int32(-1234567890)
	u := uint32(3000000000)
	l := int64(-0x123456789abcdef)
	ul := uint64(0xfedcba9876543210)
	f := float32(3.140625)
	d := -2.718281828459045
	h := F16FromFloat64(-1.5)
	v := [4]float32{0.25, -8.5, 1e-3, 3e7}
	in := b.rng.u32s(n)

	b.scalar("c", I8, c)
	b.scalar("uc", U8, uc)
	b.scalar("s", I16, s)
	o := b.out("out", U64, 16*n)
	b.scalar("us", U16, us)
	b.scalar("k", I32, k)
	b.scalar("u", U32, u)
	b.scalar("l", I64, l)
	b.scalar("ul", U64, ul)
	b.scalar("f", F32, f)
	b.scalar("d", F64, d)
	b.scalar("h", F16, h)
	b.scalar("v", F32x4, v)
	b.in("in", U32, in)
	b.scalar("n", U32, uint32(n))
	want := make([]uint64, 16*n)
	for i := 0; i < n; i++ {
		w := want[16*i : 16*i+16]
		m := uint64(i + 1)
		w[0] = uint64(int64(c)) * m
		w[1] = uint64(uc) * m
		w[2] = uint64(int64(s)) * m
		w[3] = uint64(us) * m
		w[4] = uint64(int64(k)) * m
		w[5] = uint64(u) * m
		w[6] = uint64(l) * m
		w[7] = ul * m
		w[8] = math.Float64bits(float64(f) * float64(m))
		w[9] = math.Float64bits(d * float64(m))
		w[10] = math.Float64bits(F16ToFloat64(h))
		w[11] = math.Float64bits(float64(v[0]))
		w[12] = math.Float64bits(float64(v[1]))
		w[13] = math.Float64bits(float64(v[2] + v[3]))
		w[14] = uint64(in[i]) * m
		w[15] = n
	}
	b.expect(o, want)
	return b.done()
}

func vectorFloat4() Case {
	const n = 200
	const s = float32(-1.75)
	b := newCase("vector_float4", "float4 loads/stores with a .wzyx swizzle", dim(256, 1, 1), dim(64, 1, 1))
	in := b.rng.f32s(4*n, -50, 50)
	b.in("in", F32, in)
	o := b.out("out", F32, 4*n)
	b.scalar("s", F32, s)
	b.scalar("n", U32, uint32(n))
	want := make([]float32, 4*n)
	for i := 0; i < n; i++ {
		fi := float32(i)
		v := in[4*i : 4*i+4]
		want[4*i] = float32(v[3]*s) + fi
		want[4*i+1] = float32(v[2]*s) + 2*fi
		want[4*i+2] = float32(v[1]*s) + 3*fi
		want[4*i+3] = float32(v[0]*s) + 4*fi
	}
	b.expect(o, want)
	return b.done()
}

func byteShortMemory() Case {
	const n = 300
	b := newCase("byte_short_memory", "8/16-bit loads (sign/zero extend) and stores", dim(320, 1, 1), dim(64, 1, 1))
	c := make([]int8, n)
	uc := make([]uint8, n)
	s := make([]int16, n)
	us := make([]uint16, n)
	for i := range c {
		r := b.rng.u64()
		c[i], uc[i], s[i], us[i] = int8(r), uint8(r>>8), int16(r>>16), uint16(r>>32)
	}
	b.in("c", I8, c)
	b.in("uc", U8, uc)
	b.in("s", I16, s)
	b.in("us", U16, us)
	o := b.out("out", I32, n)
	ob := b.out("ob", U8, n)
	os := b.out("os", I16, n)
	b.scalar("n", U32, uint32(n))
	wo, wb, ws := make([]int32, n), make([]uint8, n), make([]int16, n)
	for i := range c {
		wo[i] = int32(c[i]) + 3*int32(s[i]) + int32(uc[i]) + int32(us[i])
		wb[i] = uint8(c[i] ^ int8(i))
		ws[i] = int16(int32(s[i])*5 - int32(i))
	}
	b.expect(o, wo)
	b.expect(ob, wb)
	b.expect(os, ws)
	return b.done()
}
