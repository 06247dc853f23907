package wave

import "math"

// gfx12-only LDS read-modify-writes: ds_min_num/ds_max_num (IEEE 754-2019
// minimumNumber/maximumNumber: a NaN operand loses to a number, two NaNs
// give a quiet NaN, -0 < +0), ds_cond_sub (subtract only when the result
// does not wrap) and ds_sub_clamp (subtract, saturating at 0).

// numMinMax returns minimumNumber (isMax false) or maximumNumber of old and v
// as 32-bit (wide false) or 64-bit floats.
func numMinMax(old, v uint64, wide, isMax bool) uint64 {
	var a, b float64
	quiet := uint64(1) << 22
	if wide {
		a, b, quiet = math.Float64frombits(old), math.Float64frombits(v), 1<<51
	} else {
		a, b = float64(math.Float32frombits(uint32(old))), float64(math.Float32frombits(uint32(v)))
	}
	switch {
	case math.IsNaN(a) && math.IsNaN(b):
		return old | quiet
	case math.IsNaN(a):
		return v
	case math.IsNaN(b):
		return old
	case a == b: // equal numbers, or zeros of either sign
		if isMax {
			return old & v
		}
		return old | v
	case (a < b) != isMax:
		return old
	}
	return v
}

func registerGfx12Ds() {
	for _, rtn := range []bool{false, true} {
		sfx := ""
		if rtn {
			sfx = "_rtn"
		}
		for _, wide := range []bool{false, true} {
			t := "_f32"
			if wide {
				t = "_f64"
			}
			def12("ds_min_num"+sfx+t, dsAtomic(func(o, v uint64, wd bool) uint64 { return numMinMax(o, v, wd, false) }, wide, rtn))
			def12("ds_max_num"+sfx+t, dsAtomic(func(o, v uint64, wd bool) uint64 { return numMinMax(o, v, wd, true) }, wide, rtn))
		}
		def12("ds_cond_sub"+sfx+"_u32", dsAtomic(func(o, v uint64, _ bool) uint64 {
			if uint32(o) >= uint32(v) {
				return uint64(uint32(o) - uint32(v))
			}
			return o
		}, false, rtn))
		def12("ds_sub_clamp"+sfx+"_u32", dsAtomic(func(o, v uint64, _ bool) uint64 {
			if uint32(o) >= uint32(v) {
				return uint64(uint32(o) - uint32(v))
			}
			return 0
		}, false, rtn))
	}
}
