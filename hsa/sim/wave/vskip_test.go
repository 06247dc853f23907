package wave

import "testing"

// TestVSKIP: between s_setvskip on and off, vector instructions are not
// issued; scalar ones still run.
func TestVSKIP(t *testing.T) {
	code := assemble(t, `
s_mov_b32 s20, 1
v_mov_b32 v1, 7
s_setvskip s20, 0
v_mov_b32 v1, 9
s_mov_b32 s3, 5
s_mov_b32 s20, 0
s_setvskip s20, 0
v_add_u32 v2, v1, 1`)
	w, _ := newWave(t, code, GFX942)
	run(t, w)
	if w.V[1][0] != 7 || w.V[2][5] != 8 || w.S[3] != 5 {
		t.Fatalf("v1 %d v2 %d s3 %d", w.V[1][0], w.V[2][5], w.S[3])
	}
}
