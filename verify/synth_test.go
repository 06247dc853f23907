package verify

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader"

	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
)

func TestSynthesize(t *testing.T) {
	args := []sim.Arg{
		{Name: "out", Offset: 0, Size: 8, ValueKind: "global_buffer"},
		{Name: "pad", Offset: 8, Size: 8, ValueKind: "by_value"},
		{Name: "in", Offset: 16, Size: 8, ValueKind: "global_buffer"},
		{Name: "n", Offset: 24, Size: 4, ValueKind: "by_value"},
		{Offset: 32, Size: 8, ValueKind: "hidden_block_count_x"},
	}
	a, err := Synthesize(args, 40, 1)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	p0, p1 := le.Uint64(a.Kernarg), le.Uint64(a.Kernarg[16:])
	if len(a.Pointers) != 2 || p0 != a.Pointers[0] || p1 != a.Pointers[1] || p0 == p1 || p0 < PagerLo || p1 >= PagerHi {
		t.Fatalf("pointers %#x %#x %#x", p0, p1, a.Pointers)
	}
	if le.Uint64(a.Kernarg[8:]) != 0 {
		t.Fatal("pad not zero")
	}
	if n := le.Uint32(a.Kernarg[24:]); n < 1 || n > 4 {
		t.Fatalf("n = %d", n)
	}
	if le.Uint64(a.Kernarg[32:]) != 0 {
		t.Fatal("hidden argument written")
	}
	if _, err := Synthesize([]sim.Arg{{Name: "x", Offset: 36, Size: 8, ValueKind: "by_value"}}, 40, 0); err == nil {
		t.Fatal("argument past the segment accepted")
	}
	if _, err := Synthesize(nil, -1, 0); err == nil {
		t.Fatal("negative size accepted")
	}
}

// FuzzSynthesize: arbitrary metadata never panics; accepted arguments
// stay inside the segment and pointers inside the pager window.
func FuzzSynthesize(f *testing.F) {
	f.Add(0, 8, "global_buffer", 16, uint64(1))
	f.Add(12, 4, "by_value", 16, uint64(2))
	f.Add(-4, 8, "global_buffer", 8, uint64(3))
	f.Add(8, 3, "global_buffer", 16, uint64(4))
	f.Add(1<<30, 1<<30, "by_value", 1<<16, uint64(5))
	f.Fuzz(func(t *testing.T, off, size int, kind string, seg int, seed uint64) {
		fuzzguard.RunArgs(t, []any{off, size, kind, seg, seed}, func() { fuzzSynthesize(t, off, size, kind, seg, seed) })
	})
}

func fuzzSynthesize(t *testing.T, off, size int, kind string, seg int, seed uint64) {
	{
		args := []sim.Arg{{Name: "a", Offset: off, Size: size, ValueKind: kind}, {Name: "b", Offset: 0, Size: 8, ValueKind: "global_buffer"}}
		a, err := Synthesize(args, seg, seed)
		if err != nil {
			return
		}
		if len(a.Kernarg) != seg {
			t.Fatalf("kernarg of %d bytes for %d", len(a.Kernarg), seg)
		}
		for _, p := range a.Pointers {
			if p < PagerLo || p >= PagerHi {
				t.Fatalf("pointer %#x outside the pager window", p)
			}
		}
	}
}

func TestRelError(t *testing.T) {
	for _, c := range []struct {
		a, b uint32
		max  float64
	}{
		{0x3f800000, 0x3f800000, 0},
		{0x7fc07fc0, 0xffc0ffc0, 0},        // bf16 NaNs of either sign
		{0x3f800000, 0x3f800001, 1e-6},     // one f32 ulp
		{0x3f803f80, 0x3f813f80, 1.0 / 64}, // bf16 pair, one bf16 ulp in one half
		{42, 41, 1e-6},                     // f32 subnormals one ulp apart
	} {
		if e := relError(c.a, c.b); e > c.max {
			t.Errorf("relError(%#x, %#x) = %g > %g", c.a, c.b, e, c.max)
		}
	}
	if e := relError(0x3f800000, 0x40800000); e <= Bound {
		t.Errorf("1 vs 4: %g", e)
	}
}

// TestStructPointers: a struct argument gets pointers in the slots the
// kernel loads as 64-bit values and small integers elsewhere; the slots of
// aiter's fmha_v4 kernel (one 656-byte struct) are found from its code.
func TestStructPointers(t *testing.T) {
	args := []sim.Arg{{Name: "_kernarg_raw", Offset: 0, Size: 32, ValueKind: "by_value"}}
	a, err := SynthesizeWith(args, 32, 0, map[int]bool{0: true, 16: true, 4: true})
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	if len(a.Pointers) != 2 || le.Uint64(a.Kernarg) != a.Pointers[0] || le.Uint64(a.Kernarg[16:]) != a.Pointers[1] {
		t.Fatalf("pointers %#x in %x", a.Pointers, a.Kernarg)
	}
	if v := le.Uint32(a.Kernarg[8:]); v < 1 || v > 4 {
		t.Fatalf("integer slot %d", v)
	}
	path := filepath.Join(projectpath.MustShared(t, "corpus", "aiter", "gfx950"), "fmha_v4_fwd_fwd_hd128_f4f4.co")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skip(err)
	}
	f, err := loader.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	k := &f.Kernels()[0]
	slots := pointerSlots(f, k, isa.GFX950, k.Descriptor.KernelCodeProperties)
	for _, o := range []int{0, 0x10, 0x20, 0x30} {
		if !slots[o] {
			t.Errorf("slot %#x not found (%v)", o, slots)
		}
	}
	if slots[0x50] {
		t.Errorf("32-bit slot 0x50 taken for a pointer")
	}
}
