package disasm

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestAppendHex compares the pairwise hex writers with fmt for every
// width the listing uses and a few others.
func TestAppendHex(t *testing.T) {
	vs := []uint64{0, 1, 0xf, 0x10, 0xab, 0x1234, 0xdeadbeef, 0x0123456789abcdef, ^uint64(0)}
	for n := 1; n <= 16; n++ {
		for _, v := range vs {
			mask := ^uint64(0)
			if n < 16 {
				mask = 1<<(4*uint(n)) - 1
			}
			if got, want := string(appendHex([]byte("x"), v, n)), fmt.Sprintf("x%0*X", n, v&mask); got != want {
				t.Errorf("appendHex(%#x, %d) = %q, want %q", v, n, got, want)
			}
			if got, want := string(appendLowerHex(nil, v, n)), fmt.Sprintf("%0*x", n, v&mask); got != want {
				t.Errorf("appendLowerHex(%#x, %d) = %q, want %q", v, n, got, want)
			}
		}
	}
}

// TestHex8 compares hex8 and putAddr with fmt on every nibble value in
// every position and on random values.
func TestHex8(t *testing.T) {
	vs := []uint64{0, ^uint64(0), 0x0123456789abcdef, 0xfedcba9876543210}
	for i := 0; i < 16; i++ {
		for n := uint64(0); n < 16; n++ {
			vs = append(vs, n<<(4*i), ^(n << (4 * i)))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 10000; i++ {
		vs = append(vs, r.Uint64())
	}
	for _, v := range vs {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], hex8(uint32(v)))
		if got, want := string(b[:]), fmt.Sprintf("%08X", uint32(v)); got != want {
			t.Fatalf("hex8(%#x) = %q, want %q", uint32(v), got, want)
		}
		d := []byte("x............y")
		putAddr(d[1:], v)
		if got, want := string(d), fmt.Sprintf("x%012Xy", v&(1<<48-1)); got != want {
			t.Fatalf("putAddr(%#x) = %q, want %q", v, got, want)
		}
	}
}
