package wave

import (
	"strings"
	"testing"
)

// TestGFX12Movrel: v_movreld_b32 writes v[vdst + M0] in the active lanes
// only, v_movrels_b32 reads v[src0 + M0], v_movrelsd_b32 both; an address
// past v255 faults.
func TestGFX12Movrel(t *testing.T) {
	w, _ := newWave12(t, assemble12(t, "s_mov_b32 m0, 3\nv_movreld_b32 v10, s5\ns_mov_b32 m0, 2\nv_movrels_b32 v1, v20\ns_mov_b32 m0, 1\nv_movrelsd_b32 v30, v40", true), true)
	w.SetExec(0xf0f0f0f0f0f0f0f0)
	w.S[5] = 77
	for l := 0; l < 64; l++ {
		w.V[13][l], w.V[22][l], w.V[41][l], w.V[31][l] = 1, uint32(100+l), uint32(200+l), 9
	}
	run(t, w)
	for l := 0; l < 64; l++ {
		on := uint64(0xf0f0f0f0f0f0f0f0)>>l&1 != 0
		want13, want1, want31 := uint32(1), uint32(0), uint32(9)
		if on {
			want13, want1, want31 = 77, uint32(100+l), uint32(200+l)
		}
		if w.V[13][l] != want13 || w.V[10][l] != 0 || w.V[1][l] != want1 || w.V[31][l] != want31 || w.V[30][l] != 0 {
			t.Fatalf("lane %d: v13 %d v10 %d v1 %d v31 %d v30 %d; want %d 0 %d %d 0", l, w.V[13][l], w.V[10][l], w.V[1][l], w.V[31][l], w.V[30][l], want13, want1, want31)
		}
	}
	w, _ = newWave12(t, assemble12(t, "s_mov_b32 m0, 6\nv_movreld_b32 v250, 0", true), true)
	if err := w.Run(1000); err == nil || !strings.Contains(err.Error(), "past v255") {
		t.Fatalf("v_movreld_b32 past v255: %v", err)
	}
}
