package dbt

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// d16In is the input buffer of testdata/gfx12_d16.s: bytes with the sign
// bit set and clear, so sign and zero extension differ.
func d16In() []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i*37 + 0x91)
	}
	return b
}

// d16Want is what testdata/gfx12_d16.s writes, computed from the ISA
// meaning of the d16 loads and stores (a MUBUF raw range check against
// NUM_RECORDS 0xfd bytes; an out-of-range load writes 0 into its half).
func d16Want(in []byte) []byte {
	const numRecords, preset = 0xfd, 0xa5a55a5a
	out := make([]byte, 2048)
	for l := range 64 {
		off := 4 * l
		read := func(o, n int, sign bool) uint32 {
			if o+n > numRecords {
				return 0
			}
			if n == 1 {
				if sign {
					return uint32(int32(int8(in[o])))
				}
				return uint32(in[o])
			}
			return uint32(binary.LittleEndian.Uint16(in[o:]))
		}
		lo := func(v uint32) uint32 { return preset&0xffff0000 | v&0xffff }
		hi := func(v uint32) uint32 { return preset&0xffff | v<<16 }
		res := []uint32{lo(read(off, 2, false)), hi(read(off+2, 2, false)), lo(read(off+1, 1, false)),
			hi(read(off+3, 1, false)), lo(read(off, 1, true)), hi(read(off+2, 1, true))}
		for k, v := range res {
			binary.LittleEndian.PutUint32(out[k*256+off:], v)
		}
		var d uint32
		if off+4 <= numRecords {
			d = binary.LittleEndian.Uint32(in[off:])
		}
		binary.LittleEndian.PutUint16(out[1536+off:], uint16(d>>16))
		out[1536+off+2] = byte(d >> 16)
	}
	return out
}

// TestGFX12D16Buffer translates testdata/gfx12_d16.s (the six MUBUF d16
// loads and the two d16_hi stores) for gfx1201: llvm-objdump-19 prints the
// gfx12 VBUFFER names, the guest on the simulated gfx950 writes what the
// ISA meaning computed here says (the preserved halves included), and the
// translation on the simulated gfx1201 writes the same bytes.
func TestGFX12D16Buffer(t *testing.T) {
	guest, res, dis := translate12(t, "gfx12_d16")
	for _, want := range []string{"buffer_load_d16_b16 v2, v1, s[4:7], null offen", "buffer_load_d16_hi_b16 v3, v1, s[4:7], null offen offset:2",
		"buffer_load_d16_u8 v4, v1, s[4:7], null offen offset:1", "buffer_load_d16_hi_u8 v5, v1, s[4:7], null offen offset:3",
		"buffer_load_d16_i8 v6, v1, s[4:7], null offen", "buffer_load_d16_hi_i8 v7, v1, s[4:7], null offen offset:2",
		"buffer_store_d16_hi_b16 v8, v1, s[12:15], null offen offset:1536", "buffer_store_d16_hi_b8 v8, v1, s[12:15], null offen offset:1538"} {
		if !bytes.Contains(dis, []byte(want)) {
			t.Errorf("the translation lacks %q:\n%s", want, dis)
		}
	}
	in := d16In()
	run := func(image []byte, target string) []byte {
		return runBuffers(t, image, target, "kd16", in, make([]byte, 2048))[1]
	}
	want := d16Want(in)
	if got := run(guest, "gfx950"); !bytes.Equal(got, want) {
		t.Fatalf("the guest on the simulated gfx950 differs from the ISA meaning at byte %d", firstDiff(got, want))
	}
	if got := run(res.Object, "gfx1201"); !bytes.Equal(got, want) {
		t.Errorf("the translation on the simulated gfx1201 differs from the guest at byte %d", firstDiff(got, want))
	}
}

// firstDiff is the first index where a and b differ (len(a) when a is a
// prefix of b).
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
