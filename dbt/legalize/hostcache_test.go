package legalize

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/loader"
)

// gfx950Inputs are the aiter gfx950 objects and the gfx950 test kernels.
func gfx950Inputs(t *testing.T) []string {
	var paths []string
	for _, pat := range []string{"../../../shared/corpus/aiter/gfx950/*.co", "../../testdata/kernels/gfx950/*.co"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	if len(paths) == 0 {
		t.Fatal("no gfx950 inputs")
	}
	return paths
}

// TestDecideIntoMatchesDecide checks that DecideInto, which reuses host
// re-decodes of identical bytes, and DecideCached with one cache held for
// the whole sweep decide every instruction of every gfx950 input as Decide
// does with a fresh host decode each time (a linear sweep of .text, twice,
// so the second pass finds the first one's entries).
func TestDecideIntoMatchesDecide(t *testing.T) {
	into := func(dst *isa.Inst, code []byte, pc uint64) error { return gfx9.DecodeInto(dst, code, pc, isa.GFX942) }
	fresh := func(code []byte, pc uint64) (isa.Inst, error) { return gfx9.Decode(code, pc, isa.GFX942) }
	scratch := new(isa.Inst)
	held := AcquireCache()
	defer held.Release()
	n := 0
	for _, p := range gfx950Inputs(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := loader.Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		text := f.Section(".text")
		if text == nil {
			continue
		}
		for pass := 0; pass < 2; pass++ {
			for off := 0; off+4 <= len(text.Data); {
				pc := text.Addr + uint64(off)
				in, err := gfx9.Decode(text.Data[off:], pc, isa.GFX950)
				if err != nil {
					off += 4
					continue
				}
				raw := text.Data[off : off+int(in.Size)]
				want := Decide(&in, raw, isa.GFX950, isa.GFX942, fresh)
				got := DecideInto(&in, raw, isa.GFX950, isa.GFX942, into, scratch)
				if got != want {
					t.Fatalf("%s +0x%x %s: DecideInto %+v, Decide %+v", filepath.Base(p), off, in.Name(), got, want)
				}
				if got := DecideCached(&in, raw, isa.GFX950, isa.GFX942, into, scratch, held); got != want {
					t.Fatalf("%s +0x%x %s: DecideCached %+v, Decide %+v", filepath.Base(p), off, in.Name(), got, want)
				}
				n++
				off += int(in.Size)
			}
		}
	}
	t.Logf("%d decisions agree", n)
}

// TestHostCacheKeys checks that a remembered match is found only for the
// same bytes, length, host and guest operation.
func TestHostCacheKeys(t *testing.T) {
	var c hostCache
	raw := []byte{0x02, 0x07, 0x02, 0x68, 0xff, 0, 0, 0}
	in, err := gfx9.Decode(raw[:4], 0, isa.GFX950)
	if err != nil {
		t.Fatal(err)
	}
	if c.identical(isa.GFX950, isa.GFX942, &in, raw[:4]) {
		t.Fatal("empty cache found an entry")
	}
	c.remember(isa.GFX950, isa.GFX942, &in, raw[:4])
	if !c.identical(isa.GFX950, isa.GFX942, &in, raw[:4]) {
		t.Fatal("remembered bytes not found")
	}
	if c.identical(isa.GFX950, isa.GFX950, &in, raw[:4]) {
		t.Fatal("entry found for another host")
	}
	if c.identical(isa.GFX942, isa.GFX942, &in, raw[:4]) {
		t.Fatal("entry found for another guest")
	}
	other := in
	other.Opcode++
	if c.identical(isa.GFX950, isa.GFX942, &other, raw[:4]) {
		t.Fatal("entry found for another guest opcode")
	}
	for _, r := range [][]byte{raw[:8], {0x02, 0x07, 0x02, 0x6a}} {
		if c.identical(isa.GFX950, isa.GFX942, &in, r) {
			t.Fatalf("bytes % x found an entry they were never stored with", r)
		}
	}
}
