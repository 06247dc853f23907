package bitop3

import (
	"math/rand/v2"
	"testing"
)

// bitwise is the definition, one bit at a time.
func bitwise(lut uint8, a, b, c uint32) uint32 {
	var r uint32
	for i := 0; i < 32; i++ {
		idx := (a>>i&1)<<2 | (b>>i&1)<<1 | c>>i&1
		r |= uint32(lut>>idx&1) << i
	}
	return r
}

// inputs covers every (a, b, c) bit combination in each byte plus random
// words.
func inputs() [][3]uint32 {
	in := [][3]uint32{{0xf0f0f0f0, 0xcccccccc, 0xaaaaaaaa}, {0, 0, 0}, {^uint32(0), ^uint32(0), ^uint32(0)}}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 64; i++ {
		in = append(in, [3]uint32{r.Uint32(), r.Uint32(), r.Uint32()})
	}
	return in
}

func TestEvalMatchesBitwiseAll256(t *testing.T) {
	for lut := 0; lut < 256; lut++ {
		for _, v := range inputs() {
			if got, want := Eval(uint8(lut), v[0], v[1], v[2]), bitwise(uint8(lut), v[0], v[1], v[2]); got != want {
				t.Fatalf("Eval(%#x, %#x, %#x, %#x) = %#x, want %#x", lut, v[0], v[1], v[2], got, want)
			}
		}
		// The canonical inputs reproduce the table itself.
		if got := Eval(uint8(lut), 0xf0, 0xcc, 0xaa) & 0xff; got != uint32(lut) {
			t.Fatalf("Eval(%#x) on canonical inputs = %#x", lut, got)
		}
	}
}

func TestLowerAll256(t *testing.T) {
	maxLen, maxTemps := 0, 0
	for lut := 0; lut < 256; lut++ {
		p := Lower(uint8(lut))
		if len(p) == 0 {
			t.Fatalf("lut %#x: empty program", lut)
		}
		for i, in := range p {
			if in.Dst == D && i != len(p)-1 {
				t.Fatalf("lut %#x: D written before the last instruction: %v", lut, p)
			}
			if in.Dst != D && in.Dst != T0 && in.Dst != T1 {
				t.Fatalf("lut %#x: writes %v", lut, in.Dst)
			}
		}
		if p[len(p)-1].Dst != D {
			t.Fatalf("lut %#x: last instruction does not write D: %v", lut, p)
		}
		for _, v := range inputs() {
			if got, want := p.Run(v[0], v[1], v[2]), bitwise(uint8(lut), v[0], v[1], v[2]); got != want {
				t.Fatalf("lut %#x program %v on %#x: got %#x want %#x", lut, p, v, got, want)
			}
		}
		if len(p) > maxLen {
			maxLen = len(p)
		}
		if p.Temps() > maxTemps {
			maxTemps = p.Temps()
		}
	}
	if maxLen > 5 || maxTemps > 2 {
		t.Fatalf("worst program %d instructions, %d temps; documented bound is 5 and 2", maxLen, maxTemps)
	}
	t.Logf("worst case: %d instructions, %d temporaries", maxLen, maxTemps)
}

func TestSimpleTablesAreShort(t *testing.T) {
	cases := map[uint8]int{
		0xf0: 1, // a
		0x88: 1, // b & c
		0x80: 2, // a & b & c
		0x96: 2, // a ^ b ^ c
		0xca: 1, // a ? b : c (bfi)
		0x00: 1,
		0xff: 1,
	}
	for lut, n := range cases {
		if p := Lower(lut); len(p) != n {
			t.Errorf("Lower(%#x) = %v (%d instructions), want %d", lut, p, len(p), n)
		}
	}
}

func TestFieldsRoundTrip(t *testing.T) {
	for lut := 0; lut < 256; lut++ {
		n, a, o := Fields(uint8(lut))
		if LUT(n, a, o) != uint8(lut) {
			t.Fatalf("fields of %#x do not round-trip", lut)
		}
	}
	// LLVM MC example: v_bitop3_b32 v5, v1, v2, s3 bitop3:0xa1 has ABS=4
	// (word 0 bits 10:8), NEG=1 (word 1 bits 31:29), OMOD=2 (bits 28:27).
	w0, w1 := uint32(0xd2340405), uint32(0x300e0501)
	neg, abs, omod := uint8(w1>>29), uint8(w0>>8&7), uint8(w1>>27&3)
	if got := LUT(neg, abs, omod); got != 0xa1 {
		t.Fatalf("LUT from MC example = %#x, want 0xa1", got)
	}
}
