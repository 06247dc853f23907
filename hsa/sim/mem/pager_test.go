package mem

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
)

const pagerLo = 0x1000_0000_0000

func newPaged(seed uint64, f Fill) (*Memory, *Pager) {
	m := New()
	p := &Pager{Lo: pagerLo, Hi: pagerLo + 1<<40, Seed: seed, Fill: f, MaxPages: 64}
	m.SetPager(p)
	return m, p
}

// TestPagerDeterministic: two memories with equal pagers read the same
// bytes whatever order they touch pages in; another seed differs.
func TestPagerDeterministic(t *testing.T) {
	a, _ := newPaged(7, FillFloat)
	b, _ := newPaged(7, FillFloat)
	c, _ := newPaged(8, FillFloat)
	addrs := []uint64{pagerLo + 0x12345, pagerLo + 5*PageSize + 8, pagerLo + 3}
	got := map[uint64][]byte{}
	for _, x := range addrs {
		buf := make([]byte, 16)
		if err := a.Read(x, buf); err != nil {
			t.Fatal(err)
		}
		got[x] = buf
	}
	for i := len(addrs) - 1; i >= 0; i-- {
		x := addrs[i]
		buf := make([]byte, 16)
		if err := b.Read(x, buf); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf, got[x]) {
			t.Fatalf("%#x: %x vs %x", x, buf, got[x])
		}
		if err := c.Read(x, buf); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(buf, got[x]) {
			t.Fatalf("%#x: seed does not change content", x)
		}
	}
	if n := len(a.PagedRegions()); n != 3 {
		t.Fatalf("%d pages materialized, want 3", n)
	}
}

// TestPagerBoundsAndLimit: addresses outside [Lo, Hi) and accesses beyond
// MaxPages fault; writes persist; the write hook sees writes only.
func TestPagerBoundsAndLimit(t *testing.T) {
	m, p := newPaged(1, FillInt)
	var f *Fault
	if _, err := m.Load32(pagerLo - 4); !errors.As(err, &f) {
		t.Fatalf("below Lo: %v", err)
	}
	var writes []uint64
	m.SetWriteHook(func(addr uint64, size int) { writes = append(writes, addr) })
	if err := m.Store32(pagerLo+8, 0xabcd); err != nil {
		t.Fatal(err)
	}
	if v, err := m.Load32(pagerLo + 8); err != nil || v != 0xabcd {
		t.Fatalf("store did not persist: %#x %v", v, err)
	}
	if len(writes) != 1 || writes[0] != pagerLo+8 {
		t.Fatalf("hook saw %#x", writes)
	}
	m.SetWriteHook(nil)
	if m.WriteHooked() {
		t.Fatal("hook not removed")
	}
	for i := 1; i < p.MaxPages; i++ {
		if _, err := m.Load32(pagerLo + uint64(i)*PageSize); err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
	}
	if _, err := m.Load32(pagerLo + 1000*PageSize); !errors.As(err, &f) {
		t.Fatalf("beyond MaxPages: %v", err)
	}
	if p.Pages() != p.MaxPages {
		t.Fatalf("%d pages", p.Pages())
	}
	// An Alloc'ed region keeps working next to paged ones.
	a, err := m.Alloc(64, 0)
	if err != nil || m.Store32(a, 1) != nil {
		t.Fatal(err)
	}
}

// TestFillKinds checks the value ranges each fill promises.
func TestFillKinds(t *testing.T) {
	b := make([]byte, PageSize)
	p := &Pager{Seed: 3, Fill: FillInt}
	p.FillPage(pagerLo, b)
	for i := 0; i < len(b); i += 4 {
		if v := binary.LittleEndian.Uint32(b[i:]); v > 63 {
			t.Fatalf("int fill word %#x", v)
		}
	}
	p.Fill = FillFloat
	p.FillPage(pagerLo, b)
	for i := 0; i < len(b); i += 4 {
		w := binary.LittleEndian.Uint32(b[i:])
		f := math.Float32frombits(w)
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			t.Fatalf("float fill word %#x not finite", w)
		}
		for _, h := range []uint32{w & 0xffff, w >> 16} {
			if e := h >> 10 & 0x1f; e != 14 && e != 15 {
				t.Fatalf("half %#x is not in ±[0.5, 2) as f16", h)
			}
		}
	}
	p.Fill = FillFP8
	p.FillPage(pagerLo, b)
	for _, by := range b {
		mag := by & 0x7f
		if mag < 0x08 || mag > 0x57 {
			t.Fatalf("fp8 fill byte %#x", by)
		}
	}
	for _, s := range []string{"int", "float", "fp8"} {
		if f, err := ParseFill(s); err != nil || f.String() != s {
			t.Fatalf("ParseFill(%q) = %v, %v", s, f, err)
		}
	}
	if _, err := ParseFill("bogus"); err == nil {
		t.Fatal("ParseFill accepted bogus")
	}
}

// FuzzPager makes arbitrary accesses to a paged memory: each returns bytes
// of the requested size or a *Fault, never panics, and a read of an
// untouched byte equals the fill.
func FuzzPager(f *testing.F) {
	f.Add(uint64(0), uint16(4), byte(0), false)
	f.Add(uint64(PageSize-2), uint16(8), byte(1), true)
	f.Add(uint64(1<<40-1), uint16(16), byte(2), false)
	f.Add(^uint64(0), uint16(65535), byte(0), true)
	f.Fuzz(func(t *testing.T, off uint64, size uint16, fill byte, write bool) {
		fuzzguard.RunArgs(t, []any{off, size, fill, write}, func() { fuzzPager(t, off, size, fill, write) })
	})
}

func fuzzPager(t *testing.T, off uint64, size uint16, fill byte, write bool) {
	{
		m, p := newPaged(uint64(size), Fill(fill%3))
		addr := pagerLo + off
		b, err := m.Slice(addr, int(size), write)
		if err != nil {
			var flt *Fault
			if !errors.As(err, &flt) || flt.Addr != addr {
				t.Fatalf("error %v", err)
			}
			return
		}
		if len(b) != int(size) {
			t.Fatalf("%d bytes for %d", len(b), size)
		}
		if size >= 8 && addr%8 == 0 {
			want := make([]byte, 8)
			p.FillPage(addr, want)
			if !bytes.Equal(b[:8], want) {
				t.Fatalf("content %x, fill %x", b[:8], want)
			}
		}
	}
}

// TestPagerSpanning: an access across a page boundary succeeds, keeps the
// bytes already written to a materialized page and reads the fill beyond.
func TestPagerSpanning(t *testing.T) {
	m, p := newPaged(9, FillInt)
	if err := m.Store32(pagerLo+PageSize-8, 0x11223344); err != nil {
		t.Fatal(err)
	}
	b, err := m.Slice(pagerLo+PageSize-4, 16, false)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 16)
	p.FillPage(pagerLo+PageSize, want[:8])
	p.FillPage(pagerLo+PageSize+8, want[8:])
	if !bytes.Equal(b[4:], want[:12]) {
		t.Fatalf("beyond the boundary %x, fill %x", b[4:], want[:12])
	}
	if v, err := m.Load32(pagerLo + PageSize - 8); err != nil || v != 0x11223344 {
		t.Fatalf("merged page lost a write: %#x %v", v, err)
	}
	if n := len(m.PagedRegions()); n != 2 || p.Pages() != 2 {
		t.Fatalf("%d pages listed, %d counted", n, p.Pages())
	}
	// A span that meets an allocation the pager did not make faults.
	m2 := New()
	if err := m2.Map(pagerLo+PageSize, make([]byte, 64)); err != nil {
		t.Fatal(err)
	}
	m2.SetPager(&Pager{Lo: pagerLo, Hi: pagerLo + 1<<40})
	if _, err := m2.Slice(pagerLo+PageSize-4, 16, false); err == nil {
		t.Fatal("span into a mapped region accepted")
	}
}
