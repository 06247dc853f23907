package mem

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestAllocReadWriteFault(t *testing.T) {
	m := New()
	a, err := m.Alloc(100, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Alloc(8, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if b%4096 != 0 || b <= a+100 {
		t.Fatalf("bad placement a=%#x b=%#x", a, b)
	}
	if err := m.Store32(a+96, 0xdeadbeef); err != nil {
		t.Fatal(err)
	}
	if v, err := m.Load32(a + 96); err != nil || v != 0xdeadbeef {
		t.Fatalf("Load32 = %#x, %v", v, err)
	}
	var f *Fault
	if _, err := m.Load32(a + 97); !errors.As(err, &f) || f.Addr != a+97 {
		t.Fatalf("straddling read: %v", err)
	}
	if err := m.Store64(b, 1); err != nil {
		t.Fatal(err)
	}
	if err := m.Store64(b+4, 1); err == nil {
		t.Fatal("write past the end must fault")
	}
	if _, err := m.Load32(0); err == nil {
		t.Fatal("null must fault")
	}
	if err := m.Free(a); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Load32(a); err == nil {
		t.Fatal("freed memory must fault")
	}
	if err := m.Free(a); err == nil {
		t.Fatal("double free must fail")
	}
}

// TestMapUnmap maps caller-owned bytes: accesses through Memory and the
// caller's own see the same bytes, Unmap makes them fault (also right after
// a lookup that cached the region), and a new mapping at the same address
// is what later accesses reach.
func TestMapUnmap(t *testing.T) {
	m := New()
	const at = 0x5555_0000_1000
	data := make([]byte, 64)
	if err := m.Map(at, data); err != nil {
		t.Fatal(err)
	}
	if err := m.Store32(at+8, 0x01020304); err != nil {
		t.Fatal(err)
	}
	if data[8] != 4 || data[11] != 1 {
		t.Fatalf("Store32 did not write the mapped bytes: % x", data[8:12])
	}
	data[60] = 0xaa
	if v, err := m.Load32(at + 60); err != nil || v != 0xaa {
		t.Fatalf("Load32 of the caller's write = %#x, %v", v, err)
	}
	if base, b, ok := m.RegionBytes(at + 5); !ok || base != at || &b[0] != &data[0] || len(b) != len(data) {
		t.Fatalf("RegionBytes = %#x, %d bytes, %v: not the mapped slice", base, len(b), ok)
	}
	if _, err := m.Load32(at + 62); err == nil {
		t.Fatal("a read straddling the mapped end must fault")
	}
	if err := m.Unmap(at + 4); err == nil {
		t.Fatal("Unmap of an address inside a region must fail")
	}
	if err := m.Unmap(at); err != nil {
		t.Fatal(err)
	}
	var f *Fault
	if _, err := m.Load32(at + 60); !errors.As(err, &f) || f.Addr != at+60 {
		t.Fatalf("load after Unmap = %v, want a fault at %#x", err, at+60)
	}
	if err := m.Unmap(at); err == nil {
		t.Fatal("a second Unmap must fail")
	}
	other := []byte{9, 0, 0, 0}
	if err := m.Map(at, other); err != nil {
		t.Fatal(err)
	}
	if v, err := m.Load32(at); err != nil || v != 9 {
		t.Fatalf("Load32 after remapping = %d, %v; want 9 from the new bytes", v, err)
	}
	if _, err := m.Load32(at + 60); err == nil {
		t.Fatal("the new, shorter mapping must end where its bytes do")
	}
	// Free removes Map'ped regions too, and Unmap Alloc'ed ones.
	if err := m.Free(at); err != nil {
		t.Fatal(err)
	}
	a, err := m.Alloc(16, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Unmap(a); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Load32(a); err == nil {
		t.Fatal("Unmap'ped allocation must fault")
	}
	if err := m.Map(at, nil); err == nil {
		t.Fatal("Map of no bytes must fail")
	}
	if err := m.Map(^uint64(0)-2, make([]byte, 8)); err == nil {
		t.Fatal("Map wrapping around the address space must fail")
	}
}

// TestMapOverlap rejects mappings that overlap a region, naming both
// ranges, and accepts adjacent ones.
func TestMapOverlap(t *testing.T) {
	m := New()
	const at = 0x5555_0000_0000
	if err := m.Map(at, make([]byte, 0x1000)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ base, size uint64 }{
		{at, 0x1000}, {at - 0x10, 0x11}, {at + 0xfff, 1}, {at + 0x100, 0x10}, {at - 0x1000, 0x3000},
	} {
		err := m.Map(c.base, make([]byte, c.size))
		if err == nil {
			t.Fatalf("Map(%#x, %#x bytes) overlapping [%#x, %#x) succeeded", c.base, c.size, uint64(at), uint64(at+0x1000))
		}
		for _, want := range []string{fmt.Sprintf("%#x", c.base), fmt.Sprintf("%#x", c.base+c.size), fmt.Sprintf("%#x", uint64(at))} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %s", err, want)
			}
		}
	}
	if err := m.Map(at-0x10, make([]byte, 0x10)); err != nil {
		t.Fatalf("adjacent below: %v", err)
	}
	if err := m.Map(at+0x1000, make([]byte, 0x10)); err != nil {
		t.Fatalf("adjacent above: %v", err)
	}
	a, err := m.Alloc(0x100, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Map(a+0x80, make([]byte, 4)); err == nil {
		t.Fatal("Map over an allocation succeeded")
	}
	for _, addr := range []uint64{at - 0x10, at, at + 0x1000} {
		if _, err := m.Load32(addr); err != nil {
			t.Fatalf("load at %#x: %v", addr, err)
		}
	}
}

// TestAllocSkipsMapped maps ranges where Alloc would place its next
// allocations: Alloc must go around them, keeping a guard gap.
func TestAllocSkipsMapped(t *testing.T) {
	m := New()
	// Where the first allocations would go, and a little further.
	mapped := [][2]uint64{{Base, 0x10000}, {Base + 0x11000, 0x100}, {Base + 0x20000, 0x4000}}
	for _, r := range mapped {
		if err := m.Map(r[0], make([]byte, r[1])); err != nil {
			t.Fatal(err)
		}
	}
	var prev uint64
	for i := 0; i < 200; i++ {
		size := uint64(64 + 512*(i%9))
		a, err := m.Alloc(size, 256<<(i%4))
		if err != nil {
			t.Fatal(err)
		}
		if a < prev {
			t.Fatalf("allocation %d at %#x is below the previous one %#x", i, a, prev)
		}
		prev = a
		for _, r := range mapped {
			if a < r[0]+r[1]+4096 && r[0] < a+size+4096 {
				t.Fatalf("allocation %d [%#x, %#x) is within a guard gap of the mapped [%#x, %#x)", i, a, a+size, r[0], r[0]+r[1])
			}
		}
		if base, n, ok := m.Region(a); !ok || base != a || n != size {
			t.Fatalf("Region(%#x) = %#x, %d, %v", a, base, n, ok)
		}
		if i == 20 { // map right after the latest allocation's guard gap
			r := [2]uint64{a + size + 4096, 0x800}
			if err := m.Map(r[0], make([]byte, r[1])); err != nil {
				t.Fatal(err)
			}
			mapped = append(mapped, r)
		}
	}
}

// TestGenerationAndRegionID checks that every change of the address space
// changes Generation and that a region mapped again, even over the same
// bytes at the same address, has a new identity.
func TestGenerationAndRegionID(t *testing.T) {
	m := New()
	const at = 0x5555_0000_0000
	data := make([]byte, 32)
	g := m.Generation()
	step := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if n := m.Generation(); n == g {
			t.Fatalf("%s did not change the generation", what)
		} else {
			g = n
		}
	}
	step("Map", m.Map(at, data))
	_, _, id1, ok := m.RegionID(at + 4)
	if !ok || id1 == 0 {
		t.Fatalf("RegionID = %d, %v", id1, ok)
	}
	if _, err := m.Load32(at); err != nil || m.Generation() != g {
		t.Fatalf("a load changed the generation (%v)", err)
	}
	step("Unmap", m.Unmap(at))
	if _, _, _, ok := m.RegionID(at); ok {
		t.Fatal("RegionID found an unmapped region")
	}
	step("Map again", m.Map(at, data))
	if base, size, id2, ok := m.RegionID(at); !ok || base != at || size != 32 || id2 == id1 {
		t.Fatalf("RegionID after remapping the same bytes = %#x, %d, id %d (was %d), %v", base, size, id2, id1, ok)
	}
	a, err := m.Alloc(8, 0)
	step("Alloc", err)
	step("Free", m.Free(a))
}

// TestConcurrentAccessAndMapping reads and writes one region on one
// goroutine while another maps, unmaps, allocates and frees others (run
// with -race): accesses must always reach the right bytes and unrelated
// changes must never fault them.
func TestConcurrentAccessAndMapping(t *testing.T) {
	m := New()
	const at = 0x5555_0000_0000
	data := make([]byte, 1<<12)
	if err := m.Map(at, data); err != nil {
		t.Fatal(err)
	}
	other, err := m.Alloc(1<<12, 0)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		for i := 0; i < 5000; i++ {
			addr := uint64(at + 0x10_0000 + (i%97)*0x2000)
			if err := m.Map(addr, make([]byte, 0x1000)); err != nil {
				done <- err
				return
			}
			a, err := m.Alloc(uint64(i%5000), 0)
			if err != nil {
				done <- err
				return
			}
			if err := m.Unmap(addr); err != nil {
				done <- err
				return
			}
			if err := m.Free(a); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for i := 0; ; i++ {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			if i < 100 {
				t.Logf("only %d access rounds overlapped the mapping goroutine", i)
			}
			return
		default:
		}
		off := uint64(i%1000) * 4
		if err := m.Store32(at+off, uint32(i)); err != nil {
			t.Fatal(err)
		}
		if err := m.Store32(other+off, ^uint32(i)); err != nil {
			t.Fatal(err)
		}
		v, err := m.Load32(at + off)
		if err != nil || v != uint32(i) {
			t.Fatalf("Load32 = %#x, %v; want %#x", v, err, i)
		}
		if w, err := m.Load32(other + off); err != nil || w != ^uint32(i) {
			t.Fatalf("Load32 of the allocation = %#x, %v", w, err)
		}
	}
}
