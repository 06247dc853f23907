package wave

import (
	"encoding/binary"
	"testing"
)

// TestBufferRangeByIdxen: gfx9 range-checks a buffer access by IDXEN, not
// by STRIDE. An offen-only load from a V# with STRIDE 4 and NUM_RECORDS 16
// checks its byte offset (lanes 0-3 read, the rest 0); an idxen load from
// the same V# checks its index (lanes 0-15 read).
func TestBufferRangeByIdxen(t *testing.T) {
	code := assemble(t, "buffer_load_dword v1, v2, s[4:7], 0 offen\nbuffer_load_dword v3, v4, s[4:7], 0 idxen\ns_waitcnt vmcnt(0)")
	w, m := newWave(t, code, GFX942)
	buf, err := m.Alloc(256, 256)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 256)
	for i := range 64 {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(0x100+i))
	}
	if err := m.Write(buf, data); err != nil {
		t.Fatal(err)
	}
	w.S[4], w.S[5], w.S[6], w.S[7] = uint32(buf), uint32(buf>>32)&0xffff|4<<16, 16, 0x20000
	for l := 0; l < 64; l++ {
		w.V[2][l], w.V[4][l] = uint32(4*l), uint32(l)
	}
	run(t, w)
	for l := 0; l < 64; l++ {
		raw, idx := uint32(0), uint32(0)
		if l < 4 {
			raw = uint32(0x100 + l)
		}
		if l < 16 {
			idx = uint32(0x100 + l)
		}
		if w.V[1][l] != raw || w.V[3][l] != idx {
			t.Fatalf("lane %d: offen %#x (want %#x), idxen %#x (want %#x)", l, w.V[1][l], raw, w.V[3][l], idx)
		}
	}
}
