package dbt

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// TestGFX12BufferStride translates testdata/gfx12_stride.s (a raw V# with
// STRIDE 4, offen loads) for gfx1201: word3 becomes the raw gfx12 constant
// 0x30004000 (OOB_SELECT 3) as for STRIDE 0, since gfx9 range-checks an
// offen-only access by its byte offset; the guest on the simulated gfx950
// loads what that check says (lanes 0-3 in range), and the translation on
// the simulated gfx1201 stores the same bytes.
func TestGFX12BufferStride(t *testing.T) {
	guest, res, dis := translate12(t, "gfx12_stride")
	if !bytes.Contains(dis, []byte("s_mov_b32 s7, 0x30004000")) {
		t.Errorf("the STRIDE-4 raw V# does not get word3 0x30004000:\n%s", dis)
	}
	in := make([]byte, 64)
	for i := range 16 {
		binary.LittleEndian.PutUint32(in[4*i:], uint32(0x100+i))
	}
	want := make([]byte, 256)
	for l := range 4 {
		binary.LittleEndian.PutUint32(want[4*l:], uint32(0x102+l))
	}
	run := func(image []byte, target string) []byte {
		return runBuffers(t, image, target, "kstride", in, make([]byte, 256))[1]
	}
	if got := run(guest, "gfx950"); !bytes.Equal(got, want) {
		t.Fatalf("the guest on the simulated gfx950 differs from the gfx9 range check at byte %d", firstDiff(got, want))
	}
	if got := run(res.Object, "gfx1201"); !bytes.Equal(got, want) {
		t.Errorf("the translation on the simulated gfx1201 differs from the guest at byte %d", firstDiff(got, want))
	}
}
