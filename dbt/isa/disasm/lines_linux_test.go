package disasm

import (
	"testing"
	"unsafe"
)

// TestMapRegion: a large memo's region is mapped, zeroed, writable, of the
// size asked for and aligned to a huge page; a small memo's, or a region
// under a huge page, is left to the Go heap (nil).
func TestMapRegion(t *testing.T) {
	var owner struct{ x int }
	n := 3*hugePage + 4096
	r := mapRegion(&owner, n, memoHugeEntries)
	if len(r) != n || cap(r) != n {
		t.Fatalf("region of %d bytes, cap %d; want %d", len(r), cap(r), n)
	}
	if a := uintptr(unsafe.Pointer(unsafe.SliceData(r))); a%hugePage != 0 {
		t.Fatalf("region at %#x is not aligned to %d", a, hugePage)
	}
	for i := 0; i < n; i += 4096 {
		if r[i] != 0 || r[n-1] != 0 {
			t.Fatalf("region byte %d is %d", i, r[i])
		}
		r[i] = 1
	}
	r[n-1] = 1
	if mapRegion(&owner, n, memoHugeEntries-1) != nil {
		t.Fatal("a memo under memoHugeEntries got a mapped region")
	}
	if mapRegion(&owner, hugePage-1, memoMaxEntries) != nil {
		t.Fatal("a region under a huge page was mapped")
	}
}
