package wave

import (
	"strings"
	"testing"
)

// TestGFX12Buffer: VBUFFER loads, stores and an atomic through gfx12 V#s
// (assembled with llvm-mc-19, wave32): raw (OOB_SELECT 3) with offen and an
// instruction offset, structured (OOB_SELECT 1, stride 16, idxen), the
// STRIDE-0 OOB_SELECT 0 case that reads zero, and a swizzled resource that
// faults.
func TestGFX12Buffer(t *testing.T) {
	code := assemble12(t, `buffer_load_b32 v1, v0, s[4:7], null offen offset:4
buffer_load_b32 v2, v0, s[8:11], null idxen offset:8
buffer_load_b32 v3, v0, s[12:15], null offen
buffer_store_b32 v4, v0, s[4:7], null offen offset:512
buffer_atomic_add_u32 v5, v0, s[4:7], null offen offset:768 th:TH_ATOMIC_RETURN`, false)
	w, m := newWave12(t, code, false)
	buf, err := m.Alloc(4096, 256)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 4096)
	for i := 0; i < 1024; i++ {
		le.PutUint32(data[4*i:], uint32(1000+i))
	}
	if err := m.Write(buf, data); err != nil {
		t.Fatal(err)
	}
	vsharp := func(s int, stride, num, w3 uint32) {
		w.S[s], w.S[s+1], w.S[s+2], w.S[s+3] = uint32(buf), uint32(buf>>32)&0xffff|stride<<16, num, w3
	}
	vsharp(4, 0, 4*200, 0x31004000) // raw, 800 bytes (CK's gfx12 word 3)
	vsharp(8, 16, 20, 0x10000000)   // structured, 20 records of 16 bytes
	vsharp(12, 0, 4096, 0x00020000) // gfx9-style word 3 on gfx12: OOB_SELECT 0
	for l := 0; l < 32; l++ {
		w.V[0][l] = uint32(8 * l) // offen: byte offset 8l; idxen: index 8l
		w.V[4][l] = 7000 + uint32(l)
		w.V[5][l] = 10
	}
	run(t, w)
	out := make([]byte, 4096)
	if err := m.Read(buf, out); err != nil {
		t.Fatal(err)
	}
	for l := 0; l < 32; l++ {
		if want := uint32(1000 + 2*l + 1); w.V[1][l] != want {
			t.Errorf("lane %d raw load = %d, want %d", l, w.V[1][l], want)
		}
		want := uint32(0) // index 8l >= 20 records for l >= 3
		if 8*l < 20 {
			want = uint32(1000 + (16*8*l+8)/4)
		}
		if w.V[2][l] != want {
			t.Errorf("lane %d structured load = %d, want %d", l, w.V[2][l], want)
		}
		if w.V[3][l] != 0 {
			t.Errorf("lane %d OOB_SELECT 0 with STRIDE 0 read %d, want 0", l, w.V[3][l])
		}
		st := 512 + 8*l
		wantSt := uint32(1000 + st/4)
		if st+4 <= 800 {
			wantSt = 7000 + uint32(l)
		}
		if got := le.Uint32(out[st:]); got != wantSt {
			t.Errorf("lane %d store at %d: %d, want %d", l, st, got, wantSt)
		}
		at := 768 + 8*l
		if at+4 <= 800 {
			if got := le.Uint32(out[at:]); got != uint32(1000+at/4+10) || w.V[5][l] != uint32(1000+at/4) {
				t.Errorf("lane %d atomic: memory %d, returned %d", l, got, w.V[5][l])
			}
		} else if got := le.Uint32(out[at:]); got != uint32(1000+at/4) {
			t.Errorf("lane %d out-of-range atomic wrote %d", l, got)
		}
	}
	w, _ = newWave12(t, assemble12(t, "buffer_load_b32 v1, v0, s[4:7], null offen", false), false)
	w.S[5] = 3 << 30
	if err := w.Run(10); err == nil || !strings.Contains(err.Error(), "swizzle") {
		t.Errorf("swizzled V#: %v", err)
	}
}
