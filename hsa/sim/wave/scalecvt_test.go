package wave

import (
	"math"
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
)

// mxRef is an element format described only by the OCP MX specification's
// numbers (independent of hsa/sim/fp).
type mxRef struct {
	name           string
	bits, e, m     int
	bias           int
	nanAllOnesMag  bool // E4M3: S.1111.111 is NaN
	ieeeTopExp     bool // E5M2: exponent all ones is Inf/NaN
	maxFinite      float64
	widenOp, narOp uint32 // VOP3 opcodes of the f32 forms (pk_f32_x / pk_x_f32)
}

var mxRefs = []mxRef{
	{name: "fp8", bits: 8, e: 4, m: 3, bias: 7, nanAllOnesMag: true, maxFinite: 448, widenOp: 0x239, narOp: 0x235},
	{name: "bf8", bits: 8, e: 5, m: 2, bias: 15, ieeeTopExp: true, maxFinite: 57344, widenOp: 0x23a, narOp: 0x236},
	{name: "fp4", bits: 4, e: 2, m: 1, bias: 1, maxFinite: 6, widenOp: 0x23f, narOp: 0x23d},
}

// value returns code's value; nan for NaN codes.
func (r mxRef) value(code int) (v float64, nan bool) {
	sign := code >> (r.bits - 1) & 1
	mag := code & (1<<(r.bits-1) - 1)
	ex, man := mag>>r.m, mag&(1<<r.m-1)
	switch {
	case r.nanAllOnesMag && mag == 1<<(r.bits-1)-1:
		return 0, true
	case r.ieeeTopExp && ex == 1<<r.e-1:
		if man != 0 {
			return 0, true
		}
		v = math.Inf(1)
	case ex == 0:
		v = float64(man) / float64(int(1)<<r.m) * math.Pow(2, float64(1-r.bias))
	default:
		v = (1 + float64(man)/float64(int(1)<<r.m)) * math.Pow(2, float64(ex-r.bias))
	}
	if sign != 0 {
		v = -v
	}
	return v, false
}

// nearest rounds y (scaled already) to the closest code, ties to the even
// code. The grid is extended by one virtual code past the largest finite
// value (its successor on the format's exponent grid, with that code's
// parity); choosing it is an overflow: FP4 saturates, BF8 gives infinity
// and FP8 the NaN code, each with y's sign.
func (r mxRef) nearest(y float64) int {
	sign := 0
	if math.Signbit(y) {
		sign = 1 << (r.bits - 1)
	}
	a := math.Abs(y)
	maxCode := 0
	for c := 0; c < 1<<(r.bits-1); c++ {
		if v, nan := r.value(c); !nan && !math.IsInf(v, 0) {
			maxCode = c
		}
	}
	prev, _ := r.value(maxCode - 1)
	virtual := r.maxFinite + (r.maxFinite - prev)
	if r.m == 1 || r.m == 2 {
		// Top mantissa: the successor is the next power of two.
		virtual = math.Pow(2, math.Ceil(math.Log2(r.maxFinite)))
	}
	best, bestD := -1, math.Inf(1)
	for c := 0; c <= maxCode+1; c++ {
		v := virtual
		if c <= maxCode {
			v, _ = r.value(c)
		}
		d := math.Abs(a - v)
		if d < bestD || d == bestD && c&1 == 0 {
			best, bestD = c, d
		}
	}
	if best <= maxCode && !math.IsInf(a, 0) {
		return sign | best
	}
	switch {
	case r.bits == 4:
		return sign | maxCode
	case r.ieeeTopExp:
		return sign | 0x7c
	}
	return sign | 0x7f
}

// runScaleCvt runs one VOP3 scaled conversion over 64 lanes: v0..v2 hold
// the sources, v4 (and v5) the old destination.
func runScaleCvt(t *testing.T, w0, w1 uint32, srcs [3][64]uint32, old uint32) *Wave {
	t.Helper()
	code := []byte{}
	for _, x := range []uint32{w0, w1, 0xbf810000} {
		code = append(code, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
	}
	w, _ := newWave(t, code, GFX950)
	for i := range srcs {
		w.V[i] = srcs[i]
	}
	for l := 0; l < 64; l++ {
		w.V[4][l], w.V[5][l] = old, old
	}
	run(t, w)
	return w
}

// TestScaleCvtWiden checks v_cvt_scalef32_pk_f32_{fp8,bf8,fp4} for every
// code, both element positions, every op_sel and a spread of scales.
func TestScaleCvtWiden(t *testing.T) {
	for _, r := range mxRefs {
		n := 1 << r.bits
		for _, e := range []int{0, 1, 100, 120, 127, 128, 133, 200, 254, 255} {
			scale := uint32(e) << 23
			for opsel := uint32(0); opsel < 4; opsel++ {
				if r.bits == 8 && opsel > 1 {
					continue
				}
				for base := 0; base < n*n; base += 64 {
					var srcs [3][64]uint32
					for l := 0; l < 64; l++ {
						p := uint32(base + l) // two codes: low, high
						c0, c1 := p%uint32(n), p/uint32(n)%uint32(n)
						pair := c0 | c1<<r.bits
						if r.bits == 4 {
							srcs[0][l] = 0x55555555&^(0xff<<(8*opsel)) | pair<<(8*opsel)
						} else {
							srcs[0][l] = 0x5a5a5a5a&^(0xffff<<(16*opsel)) | pair<<(16*opsel)
						}
						srcs[1][l] = scale | uint32(l)*0x1234&0x807fffff // only the exponent counts
					}
					w0 := 0xd2000000 | r.widenOp<<16 | opsel<<11 | 4
					w1 := uint32(256) | 257<<9
					wv := runScaleCvt(t, w0, w1, srcs, 0)
					for l := 0; l < 64; l++ {
						p := base + l
						for k, c := range []int{p % n, p / n % n} {
							got := math.Float32frombits(wv.V[4+k][l])
							v, nan := r.value(c)
							want := float32(math.Ldexp(v, e-127))
							if nan {
								if got == got {
									t.Fatalf("%s code %#x scale 2^%d: %v, want NaN", r.name, c, e-127, got)
								}
								continue
							}
							if math.Float32bits(got) != math.Float32bits(want) {
								t.Fatalf("pk_f32_%s code %#x scale 2^%d op_sel %d: %v, want %v", r.name, c, e-127, opsel, got, want)
							}
						}
					}
				}
			}
		}
	}
}

// scaleCvtInputs are f32 values around every element value of r (the
// values, the midpoints between neighbours and one ulp either side), and
// specials.
func scaleCvtInputs(r mxRef) []float32 {
	var vals []float64
	for c := 0; c < 1<<(r.bits-1); c++ {
		if v, nan := r.value(c); !nan && !math.IsInf(v, 0) {
			vals = append(vals, v)
		}
	}
	var out []float32
	add := func(v float64) {
		f := float32(v)
		out = append(out, f, -f, math.Nextafter32(f, 0), math.Nextafter32(f, float32(math.Inf(1))))
	}
	for i, v := range vals {
		add(v)
		if i+1 < len(vals) {
			add((v + vals[i+1]) / 2)
		}
	}
	mx := vals[len(vals)-1]
	add(mx + (mx-vals[len(vals)-2])/2)
	add(mx * 4)
	out = append(out, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		math.Float32frombits(0xffc00001), math.Float32frombits(1), math.Float32frombits(0x807fffff))
	return out
}

// TestScaleCvtNarrow checks v_cvt_scalef32_pk_{fp8,bf8,fp4}_f32 against
// round-to-nearest-even over the element grid, for both destination
// positions and source modifiers.
func TestScaleCvtNarrow(t *testing.T) {
	for _, r := range mxRefs {
		in := scaleCvtInputs(r)
		for _, e := range []int{0, 20, 126, 127, 128, 140, 254} {
			sh := float64(e - 127)
			scale := uint32(e)<<23 | 0x2345
			for sel := uint32(0); sel < 4; sel++ {
				if r.bits == 8 && sel&1 != 0 {
					continue
				}
				for neg := uint32(0); neg < 2; neg++ {
					for base := 0; base < len(in); base += 64 {
						var srcs [3][64]uint32
						var xs [64][2]float32
						for l := 0; l < 64; l++ {
							x0 := float32(math.Ldexp(float64(in[(base+l)%len(in)]), int(sh)))
							x1 := float32(math.Ldexp(float64(in[(base+l*7+3)%len(in)]), int(sh)))
							if x := in[(base+l)%len(in)]; x != x {
								x0 = x
							}
							xs[l] = [2]float32{x0, x1}
							srcs[0][l], srcs[1][l], srcs[2][l] = math.Float32bits(x0), math.Float32bits(x1), scale
						}
						w0 := 0xd2000000 | r.narOp<<16 | sel<<13 | 4
						w1 := uint32(256) | 257<<9 | 258<<18 | neg<<30 // neg on src1
						wv := runScaleCvt(t, w0, w1, srcs, 0xa5a5a5a5)
						for l := 0; l < 64; l++ {
							x0, x1 := xs[l][0], xs[l][1]
							if neg != 0 {
								x1 = math.Float32frombits(math.Float32bits(x1) ^ 1<<31)
							}
							c0 := r.nearest(math.Ldexp(float64(x0), -(e - 127)))
							c1 := r.nearest(math.Ldexp(float64(x1), -(e - 127)))
							if x0 != x0 && r.bits == 4 {
								c0 = int(math.Float32bits(x0)>>31)<<3 | 7
							}
							if x1 != x1 && r.bits == 4 {
								c1 = int(math.Float32bits(x1)>>31)<<3 | 7
							}
							var want uint32
							if r.bits == 4 {
								s := 8 * (sel & 3)
								want = 0xa5a5a5a5&^(0xff<<s) | uint32(c0|c1<<4)<<s
							} else {
								s := 16 * (sel >> 1)
								want = 0xa5a5a5a5&^(0xffff<<s) | uint32(c0|c1<<8)<<s
							}
							if got := wv.V[4][l]; got != want {
								// E5M2 and E4M3 NaN payload and sign are not specified by OCP.
								if r.bits == 8 && (x0 != x0 || x1 != x1) {
									continue
								}
								t.Fatalf("pk_%s_f32(%g, %g) scale 2^%d sel %d: %#x, want %#x", r.name, x0, x1, e-127, sel, got, want)
							}
						}
					}
				}
			}
		}
	}
}

// TestScaleCvtWiden16 checks v_cvt_scalef32_pk_{f16,bf16}_{fp8,bf8,fp4}
// for every code pair of the first element and scales that put results in
// and out of the f16 range: the exact scaled value (from the OCP MX
// reference) rounded once (fp.F32ToF16/F32ToBF16, tested in hsa/sim/fp).
func TestScaleCvtWiden16(t *testing.T) {
	ops := map[string][2]uint32{"fp8": {0x248, 0x269}, "bf8": {0x249, 0x26a}, "fp4": {0x250, 0x251}}
	for _, r := range mxRefs {
		n := 1 << r.bits
		for k, op := range ops[r.name] {
			for _, e := range []int{90, 105, 127, 140, 160} {
				for base := 0; base < n*n; base += 64 {
					var srcs [3][64]uint32
					for l := 0; l < 64; l++ {
						p := uint32(base+l) % uint32(n*n)
						srcs[0][l] = p%uint32(n) | p/uint32(n)<<r.bits
						srcs[1][l] = uint32(e) << 23
					}
					wv := runScaleCvt(t, 0xd2000000|op<<16|4, 256|257<<9, srcs, 0)
					for l := 0; l < 64; l++ {
						p := (base + l) % (n * n)
						for h, c := range []int{p % n, p / n} {
							v, nan := r.value(c)
							got := wv.V[4][l] >> (16 * h) & 0xffff
							x := float32(math.Ldexp(v, e-127))
							var want uint32
							if k == 0 {
								want = uint32(fp.F32ToF16(x))
							} else {
								want = uint32(fp.F32ToBF16(x))
							}
							if nan {
								if k == 0 && got&0x7c00 == 0x7c00 && got&0x3ff != 0 || k == 1 && got&0x7f80 == 0x7f80 && got&0x7f != 0 {
									continue
								}
								t.Fatalf("%s code %#x: %#x is not a NaN", r.name, c, got)
							}
							if got != want {
								t.Fatalf("op %#x code %#x scale 2^%d: %#x, want %#x", op, c, e-127, got, want)
							}
						}
					}
				}
			}
		}
	}
}
