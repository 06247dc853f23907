package freelist

import "testing"

// TestListBounds checks that Take reuses a kept buffer of enough capacity,
// that Give keeps one copy of buffers sharing a backing array, cleans when
// asked and stops at MaxBytes and MaxBufs.
func TestListBounds(t *testing.T) {
	l := List[uint32]{MaxBytes: 64, MaxBufs: 2}
	a := make([]uint32, 3, 8) // 32 bytes
	a[0] = 7
	l.Give([][]uint32{a, a[:1], make([]uint32, 0, 4), make([]uint32, 0, 4)}, true)
	if len(l.bufs) != 2 || l.bytes != 48 {
		t.Fatalf("kept %d buffers, %d bytes; want 2, 48", len(l.bufs), l.bytes)
	}
	if a[0] != 0 {
		t.Fatalf("a[0] = %d after a clean Give, want 0", a[0])
	}
	if b := l.Take(6); cap(b) != 8 || len(b) != 0 || &b[:1][0] != &a[0] {
		t.Fatalf("Take(6) = len %d cap %d, want a's buffer", len(b), cap(b))
	}
	if b := l.Take(6); cap(b) != 6 {
		t.Fatalf("Take(6) with only a 4-element buffer kept: cap %d, want a new 6", cap(b))
	}
	if b := l.TakeMin(1, 100); cap(b) != 4 {
		t.Fatalf("TakeMin(1, 100): cap %d, want the kept 4", cap(b))
	}
	if len(l.bufs) != 0 || l.bytes != 0 {
		t.Fatalf("after taking all: %d buffers, %d bytes", len(l.bufs), l.bytes)
	}
	l.Give([][]uint32{make([]uint32, 0, 32)}, false) // 128 bytes > MaxBytes
	if len(l.bufs) != 0 {
		t.Fatal("kept a buffer above MaxBytes")
	}
}
