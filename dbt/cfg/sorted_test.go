package cfg

import (
	"slices"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// TestOrderedInsts checks Inst, NumInsts and Instructions for
// instructions in the word index and at addresses it cannot hold
// (unaligned, outside .text).
func TestOrderedInsts(t *testing.T) {
	g := &Graph{Text: Text{Addr: 0x1000, Data: make([]byte, 0x400)}, byWord: make([]*isa.Inst, 0x100)}
	add := func(addrs ...uint64) {
		for _, a := range addrs {
			g.add(&isa.Inst{PC: a})
		}
	}
	pcs := func() []uint64 {
		var out []uint64
		for _, in := range g.Instructions() {
			out = append(out, in.PC)
		}
		return out
	}
	add(0x13fc, 0x1000, 0x1100, 0x1004, 0x10fc, 0x1200)
	want := []uint64{0x1000, 0x1004, 0x10fc, 0x1100, 0x1200, 0x13fc}
	if got := pcs(); !slices.Equal(got, want) || g.other != nil {
		t.Fatalf("word index: %#x, want %#x", got, want)
	}
	// Addresses the word index cannot hold go to the map and are merged
	// in order.
	add(0x1002, 0x800, 0x1400)
	want = []uint64{0x800, 0x1000, 0x1002, 0x1004, 0x10fc, 0x1100, 0x1200, 0x13fc, 0x1400}
	if got := pcs(); !slices.Equal(got, want) {
		t.Fatalf("merged: %#x, want %#x", got, want)
	}
	if g.NumInsts() != len(want) {
		t.Fatalf("NumInsts %d, want %d", g.NumInsts(), len(want))
	}
	for _, a := range want {
		if in, ok := g.Inst(a); !ok || in.PC != a {
			t.Fatalf("Inst(%#x) = %v, %v", a, in, ok)
		}
	}
	for _, a := range []uint64{0x0, 0x1008, 0x1001, 0x13fe, 0x1404, 0xfff} {
		if in, ok := g.Inst(a); ok || in != nil {
			t.Fatalf("Inst(%#x) found %v", a, in)
		}
	}
}
