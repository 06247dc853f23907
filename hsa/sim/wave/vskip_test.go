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

// TestBufferLDSOutOfRange: an LDS-direct buffer load of an out-of-range
// lane writes zero to the lane's LDS slot and leaves the VGPRs alone.
func TestBufferLDSOutOfRange(t *testing.T) {
	code := assemble(t, `
s_mov_b32 s4, 0
s_mov_b32 s5, 0x7f00
s_mov_b32 s6, 0
s_mov_b32 s7, 0x27000
s_mov_b32 m0, 0
v_mov_b32 v0, 0
v_mov_b32 v7, 0x1234
buffer_load_dword v0, s[4:7], 0 offen lds
s_waitcnt vmcnt(0)`)
	w, _ := newWave(t, code, GFX942)
	for i := range w.group.LDS {
		w.group.LDS[i] = 0xff
	}
	run(t, w)
	for l := 0; l < 64; l++ {
		if v := le.Uint32(w.group.LDS[4*l:]); v != 0 {
			t.Fatalf("lane %d LDS slot %#x, want 0", l, v)
		}
	}
	if w.V[7][0] != 0x1234 || w.group.LDS[256] != 0xff {
		t.Fatalf("v7 %#x, LDS[256] %#x", w.V[7][0], w.group.LDS[256])
	}
}
