package disasm

import (
	"fmt"
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
