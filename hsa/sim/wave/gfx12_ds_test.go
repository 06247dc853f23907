package wave

import (
	"math"
	"testing"
)

// TestGFX12DSNumAndSub: ds_min_num/ds_max_num (f32 with NaN and signed
// zeros, f64), ds_cond_sub and ds_sub_clamp (returning forms give the old
// value), assembled with llvm-mc-19, in wave64.
func TestGFX12DSNumAndSub(t *testing.T) {
	w, _ := newWave12(t, assemble12(t, `ds_min_num_rtn_f32 v10, v0, v1
ds_max_num_f32 v0, v2 offset:256
ds_max_num_rtn_f64 v[12:13], v6, v[4:5] offset:1024
ds_cond_sub_rtn_u32 v11, v0, v3 offset:2048
ds_sub_clamp_u32 v0, v3 offset:3072`, true), true)
	nan := math.Float32bits(float32(math.NaN()))
	type f32c struct{ mem, v, min, max uint32 }
	cases := []f32c{
		{math.Float32bits(1), math.Float32bits(-2), math.Float32bits(-2), math.Float32bits(1)},
		{nan, math.Float32bits(3), math.Float32bits(3), math.Float32bits(3)},
		{math.Float32bits(4), nan, math.Float32bits(4), math.Float32bits(4)},
		{0x80000000, 0, 0x80000000, 0}, // -0 < +0
	}
	for l := 0; l < 64; l++ {
		c := cases[l%len(cases)]
		w.V[0][l] = uint32(4 * l)
		le.PutUint32(w.group.LDS[4*l:], c.mem)
		le.PutUint32(w.group.LDS[256+4*l:], c.mem)
		w.V[1][l], w.V[2][l] = c.v, c.v
		w.V[0][l] = uint32(4 * l)
		w.V[6][l] = uint32(8 * l)
		le.PutUint64(w.group.LDS[1024+8*l:], math.Float64bits(float64(l)))
		w.V[4][l], w.V[5][l] = uint32(math.Float64bits(32)), uint32(math.Float64bits(32)>>32)
		le.PutUint32(w.group.LDS[2048+4*l:], uint32(l))
		le.PutUint32(w.group.LDS[3072+4*l:], uint32(l))
		w.V[3][l] = 20
	}
	run(t, w)
	for l := 0; l < 64; l++ {
		c := cases[l%len(cases)]
		if got := le.Uint32(w.group.LDS[4*l:]); got != c.min || w.V[10][l] != c.mem {
			t.Errorf("lane %d min_num: %#x (want %#x), returned %#x", l, got, c.min, w.V[10][l])
		}
		if got := le.Uint32(w.group.LDS[256+4*l:]); got != c.max {
			t.Errorf("lane %d max_num: %#x, want %#x", l, got, c.max)
		}
		if got, ret := math.Float64frombits(le.Uint64(w.group.LDS[1024+8*l:])), uint64(w.V[12][l])|uint64(w.V[13][l])<<32; got != math.Max(float64(l), 32) || math.Float64frombits(ret) != float64(l) {
			t.Errorf("lane %d max_num_f64: %v, returned %v", l, got, math.Float64frombits(ret))
		}
		old, sub := uint32(l), uint32(l)
		if old >= 20 {
			sub = old - 20
		}
		if got := le.Uint32(w.group.LDS[2048+4*l:]); got != sub || w.V[11][l] != old {
			t.Errorf("lane %d cond_sub: %d (want %d), returned %d", l, got, sub, w.V[11][l])
		}
		clamp := uint32(0)
		if old >= 20 {
			clamp = old - 20
		}
		if got := le.Uint32(w.group.LDS[3072+4*l:]); got != clamp {
			t.Errorf("lane %d sub_clamp: %d, want %d", l, got, clamp)
		}
	}
}
