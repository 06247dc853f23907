package dbt

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPCMap: every changed instruction's host code maps back to its guest
// address, and host addresses outside every translated range do not map.
func TestPCMap(t *testing.T) {
	checked := 0
	for _, file := range testKernels(t, "gfx950") {
		if _, bad := expectedRejections[filepath.Base(file)]; bad {
			continue
		}
		guest, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Translate(guest, Options{Diff: true})
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if res.PCMap.Len() == 0 {
			t.Fatalf("%s: empty PC map", file)
		}
		for _, c := range res.Changes {
			for _, h := range []uint64{c.Host} {
				g, ok := res.PCMap.Guest(h)
				if !ok || g != c.Src {
					t.Fatalf("%s: host %#x maps to %#x %v, want %#x (%s)", file, h, g, ok, c.Src, c.Guest)
				}
			}
			checked++
		}
		if _, ok := res.PCMap.Guest(0); ok {
			t.Fatalf("%s: address 0 maps", file)
		}
	}
	if checked == 0 {
		t.Fatal("no changed instruction checked")
	}
	var nilMap *PCMap
	if _, ok := nilMap.Guest(4); ok || nilMap.Len() != 0 {
		t.Fatal("nil map maps")
	}
}
