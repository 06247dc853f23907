package cfg

import (
	"slices"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

func TestSortedInsts(t *testing.T) {
	g := &Graph{Text: Text{Addr: 0x1000, Data: make([]byte, 0x400)}, Insts: map[uint64]*isa.Inst{}}
	for _, a := range []uint64{0x13fc, 0x1000, 0x1100, 0x1004, 0x10fc, 0x1200} {
		g.Insts[a] = &isa.Inst{}
	}
	want := []uint64{0x1000, 0x1004, 0x10fc, 0x1100, 0x1200, 0x13fc}
	if got := g.sortedInsts(); !slices.Equal(got, want) {
		t.Fatalf("bitmap path: %#x, want %#x", got, want)
	}
	// An address the bitmap cannot hold falls back to sorting.
	g.Insts[0x1002] = &isa.Inst{}
	g.Insts[0x800] = &isa.Inst{}
	want = []uint64{0x800, 0x1000, 0x1002, 0x1004, 0x10fc, 0x1100, 0x1200, 0x13fc}
	if got := g.sortedInsts(); !slices.Equal(got, want) {
		t.Fatalf("sort path: %#x, want %#x", got, want)
	}
}
