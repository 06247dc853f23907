package kernelref

import "math"

// FP8 formats decoded by v_cvt_f32_fp8 / v_cvt_f32_bf8.
type fp8Format struct {
	expBits, manBits, bias int
	nanFNUZ                bool // 0x80 is the only NaN; no infinity, no -0 (gfx942)
	ieeeInf                bool // all-ones exponent is infinity / NaN (OCP E5M2)
}

var (
	fp8FNUZ = fp8Format{expBits: 4, manBits: 3, bias: 8, nanFNUZ: true}
	bf8FNUZ = fp8Format{expBits: 5, manBits: 2, bias: 16, nanFNUZ: true}
	fp8OCP  = fp8Format{expBits: 4, manBits: 3, bias: 7}                 // E4M3FN: S.1111.111 is NaN, no infinity
	bf8OCP  = fp8Format{expBits: 5, manBits: 2, bias: 15, ieeeInf: true} // E5M2
)

// decode returns the f32 value of byte v (exact), NaN as 0x7fc00000 (the
// corpus kernels canonicalize NaNs).
func (f fp8Format) decode(v uint8) float32 {
	nan := math.Float32frombits(0x7fc00000)
	sign := v >> 7
	e := int(v>>f.manBits) & (1<<f.expBits - 1)
	m := int(v) & (1<<f.manBits - 1)
	switch {
	case f.nanFNUZ && v == 0x80:
		return nan
	case f.ieeeInf && e == 1<<f.expBits-1:
		if m != 0 {
			return nan
		}
		return float32(math.Inf(1 - 2*int(sign)))
	case !f.nanFNUZ && !f.ieeeInf && e == 1<<f.expBits-1 && m == 1<<f.manBits-1:
		return nan
	}
	var mag float64
	if e == 0 {
		mag = math.Ldexp(float64(m), 1-f.bias-f.manBits)
	} else {
		mag = math.Ldexp(float64(1<<f.manBits+m), e-f.bias-f.manBits)
	}
	if sign != 0 {
		mag = -mag
	}
	return float32(mag)
}

func fp8Case(name, doc string, targets []string, fp8, bf8 fp8Format) Case {
	b := newCase(name, doc, dim(256, 1, 1), dim(64, 1, 1))
	b.targets(targets)
	in := make([]uint32, 64)
	for i := range in {
		in[i] = uint32(4*i) | uint32(4*i+1)<<8 | uint32(4*i+2)<<16 | uint32(4*i+3)<<24
	}
	b.in("in", U32, in)
	o8 := b.out("fp8", F32, 256)
	o5 := b.out("bf8", F32, 256)
	w8, w5 := make([]float32, 256), make([]float32, 256)
	for v := range 256 {
		w8[v], w5[v] = fp8.decode(uint8(v)), bf8.decode(uint8(v))
	}
	b.expect(o8, w8)
	b.expect(o5, w5)
	return b.done()
}

func fp8FNUZToF32() Case {
	return fp8Case("fp8_fnuz_to_f32", "all 256 FP8/BF8 bytes through v_cvt_f32_fp8/bf8 on gfx942 (FNUZ)",
		[]string{"gfx942"}, fp8FNUZ, bf8FNUZ)
}

func fp8OCPToF32() Case {
	return fp8Case("fp8_ocp_to_f32", "all 256 FP8/BF8 bytes through v_cvt_f32_fp8/bf8 on gfx950 and gfx12 (OCP)",
		[]string{"gfx950", "gfx1200", "gfx1201"}, fp8OCP, bf8OCP)
}
