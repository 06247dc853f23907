package wave

// gfx12 16-bit integer VALU (clang-19 emits v_lshlrev_b16 and friends for
// byte and short arithmetic): gfx9's meanings on the low 16 bits, written
// as gfx12 16-bit results (the other half of the destination kept, op_sel
// choosing halves; see v32x).
func registerGfx12Int16() {
	for _, c := range []struct {
		name string
		n    int
		fn   func(a, b, c uint32) uint32
	}{
		{"v_lshlrev_b16", 2, func(a, b, c uint32) uint32 { return b << (a & 15) }},
		{"v_lshrrev_b16", 2, func(a, b, c uint32) uint32 { return (b & 0xffff) >> (a & 15) }},
		{"v_ashrrev_i16", 2, func(a, b, c uint32) uint32 { return uint32(int16(b) >> (a & 15)) }},
		{"v_max_u16", 2, func(a, b, c uint32) uint32 { return max(a&0xffff, b&0xffff) }},
		{"v_min_u16", 2, func(a, b, c uint32) uint32 { return min(a&0xffff, b&0xffff) }},
		{"v_max_i16", 2, func(a, b, c uint32) uint32 { return uint32(max(int16(a), int16(b))) }},
		{"v_min_i16", 2, func(a, b, c uint32) uint32 { return uint32(min(int16(a), int16(b))) }},
		{"v_and_b16", 2, func(a, b, c uint32) uint32 { return a & b }},
		{"v_or_b16", 2, func(a, b, c uint32) uint32 { return a | b }},
		{"v_xor_b16", 2, func(a, b, c uint32) uint32 { return a ^ b }},
		{"v_not_b16", 1, func(a, b, c uint32) uint32 { return ^a }},
		{"v_mad_u16", 3, func(a, b, c uint32) uint32 { return a*b + c }},
		{"v_mad_i16", 3, func(a, b, c uint32) uint32 { return uint32(int32(int16(a))*int32(int16(b)) + int32(int16(c))) }},
	} {
		def12(c.name, v32(kB16, c.n, c.fn))
	}
}
