package dbt

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/loader"
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
		for _, host := range []isa.Target{isa.GFX942, isa.GFX1201} {
			checked += checkPCMap(t, file, guest, host)
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

// checkPCMap translates guest for host and checks that the host code of
// every changed instruction, at its address in the committed object (the
// commit may move .text), maps back to the guest instruction.
func checkPCMap(t *testing.T, file string, guest []byte, host isa.Target) int {
	t.Helper()
	checked := 0
	{
		res, err := Translate(guest, Options{Diff: true, Host: host})
		if errors.Is(err, ErrRejected) {
			return 0 // rejected for this host (other tests say which are expected)
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		gf, err := loader.Parse(guest)
		if err != nil {
			t.Fatal(err)
		}
		hf, err := loader.Parse(res.Object)
		if err != nil {
			t.Fatal(err)
		}
		moved := hf.Section(".text").Addr - gf.Section(".text").Addr
		if res.PCMap.Len() == 0 {
			t.Fatalf("%s: empty PC map", file)
		}
		for _, c := range res.Changes {
			h := c.Host + moved
			g, ok := res.PCMap.Guest(h)
			if !ok || g != c.Src {
				t.Fatalf("%s -> %s: host %#x maps to %#x %v, want %#x (%s)", file, host, h, g, ok, c.Src, c.Guest)
			}
			checked++
		}
		if _, ok := res.PCMap.Guest(0); ok {
			t.Fatalf("%s: address 0 maps", file)
		}
	}
	return checked
}
