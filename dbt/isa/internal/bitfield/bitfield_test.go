package bitfield

import "testing"

func TestFields(t *testing.T) {
	tests := []struct {
		w      uint32
		lo, n  uint8
		v      uint32
		mask   uint32
		get    uint32
		setTo  uint32 // w after Set(w, lo, n, v)
		reason string
	}{
		{0xbe8000ff, 0, 8, 0x12, 0x000000ff, 0xff, 0xbe800012, "low byte"},
		{0xbe8000ff, 16, 7, 0x7f, 0x007f0000, 0x00, 0xbeff00ff, "sdst field"},
		{0xffffffff, 31, 1, 0, 0x80000000, 1, 0x7fffffff, "top bit"},
		{0, 9, 8, 0x1ff, 0x0001fe00, 0, 0x0001fe00, "v wider than the field is cut"},
		{0x12345678, 0, 31, 0, 0x7fffffff, 0x12345678, 0, "31-bit field"},
	}
	for _, tc := range tests {
		if got := Mask(tc.lo, tc.n); got != tc.mask {
			t.Errorf("%s: Mask(%d, %d) = %#x, want %#x", tc.reason, tc.lo, tc.n, got, tc.mask)
		}
		if got := Get(tc.w, tc.lo, tc.n); got != tc.get {
			t.Errorf("%s: Get(%#x, %d, %d) = %#x, want %#x", tc.reason, tc.w, tc.lo, tc.n, got, tc.get)
		}
		if got := Set(tc.w, tc.lo, tc.n, tc.v); got != tc.setTo {
			t.Errorf("%s: Set(%#x, %d, %d, %#x) = %#x, want %#x", tc.reason, tc.w, tc.lo, tc.n, tc.v, got, tc.setTo)
		}
	}
}
