package mem

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"sync/atomic"
)

// PageSize is the size of the pages a Pager materializes.
const PageSize = 64 << 10

// Fill selects what a Pager's pages contain.
type Fill int

// Fills.
const (
	// FillInt gives every 32-bit word a small non-negative integer
	// (0..63), so that loaded counts, indices and sizes stay small.
	FillInt Fill = iota
	// FillFloat gives every 16-bit half a finite value that is a normal
	// f16 in ±[0.5, 2) and a finite bf16; every 32-bit word is then also a
	// finite f32 (its high half is the bf16).
	FillFloat
	// FillFP8 gives every byte a value that is finite and non-zero in all
	// four 8-bit float formats (OCP and FNUZ E4M3 and E5M2): magnitude
	// bits 0x08..0x57 and a random sign.
	FillFP8
)

// String returns the fill's name as the command line spells it.
func (f Fill) String() string {
	switch f {
	case FillInt:
		return "int"
	case FillFloat:
		return "float"
	case FillFP8:
		return "fp8"
	}
	return fmt.Sprintf("fill(%d)", int(f))
}

// ParseFill returns the fill named s ("int", "float" or "fp8").
func ParseFill(s string) (Fill, error) {
	for _, f := range []Fill{FillInt, FillFloat, FillFP8} {
		if f.String() == s {
			return f, nil
		}
	}
	return 0, fmt.Errorf("mem: unknown fill %q (want int, float or fp8)", s)
}

// Pager is a demand-paged, deterministic backing for a Memory: an access
// to an unmapped address in [Lo, Hi) maps the PageSize-aligned page that
// holds it, with content derived only from the page's address, the seed
// and the fill. Two memories with equal pagers therefore see the same
// bytes at every address they touch, in whatever order they touch them.
type Pager struct {
	// Lo and Hi bound the addresses the pager serves.
	Lo, Hi uint64
	// Seed varies the content.
	Seed uint64
	// Fill selects the kind of content.
	Fill Fill
	// MaxPages bounds the pages materialized (0: 4096); an access beyond
	// it faults.
	MaxPages int

	pages atomic.Int64
}

// Pages returns the number of pages the pager has materialized.
func (p *Pager) Pages() int { return int(p.pages.Load()) }

// mix is a 64-bit finalizer (splitmix64's).
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// FillPage writes into b the content of the bytes at addr (addr and len(b)
// multiples of 8).
func (p *Pager) FillPage(addr uint64, b []byte) {
	le := binary.LittleEndian
	for i := 0; i+8 <= len(b); i += 8 {
		r := mix(addr + uint64(i) ^ bits.RotateLeft64(p.Seed, 17) ^ uint64(p.Fill)<<60)
		var v uint64
		switch p.Fill {
		case FillInt:
			v = r & 0x0000003f_0000003f
		case FillFloat:
			for h := 0; h < 4; h++ {
				x := r >> (16 * h)
				half := uint64(0x3800) + x&0x7ff | (x>>11&1)<<15
				v |= half << (16 * h)
			}
		case FillFP8:
			for k := 0; k < 8; k++ {
				x := r >> (8 * k)
				by := 0x08 + (x&0x7f)%0x50 | (x>>7&1)<<7
				v |= (by & 0xff) << (8 * k)
			}
		}
		le.PutUint64(b[i:], v)
	}
}

// serves reports whether the pager materializes addr.
func (p *Pager) serves(addr uint64) bool { return addr >= p.Lo && addr < p.Hi }

// SetPager installs p as the backing of the unmapped addresses it serves
// (nil removes it). Pages it maps are ordinary regions: Unmap removes them
// and a later access maps them again with their initial content.
func (m *Memory) SetPager(p *Pager) { m.pager.Store(p) }

// Pager returns the installed pager, or nil.
func (m *Memory) Pager() *Pager { return m.pager.Load() }

// demand maps the pages of [addr, addr+size) that the pager serves and
// returns the region that then holds the whole access, or nil (no pager,
// an address it does not serve, a range that meets a region the pager did
// not make, or the page limit). An access that spans pages gets one region
// covering them all: pages already materialized in the range are merged
// into it with their current bytes (bytes handed out for them before
// remain valid Go memory but are no longer the memory's).
func (m *Memory) demand(addr uint64, size int) *region {
	p := m.pager.Load()
	if p == nil || size <= 0 || !p.serves(addr) {
		return nil
	}
	end := addr + uint64(size)
	if end < addr || end > p.Hi {
		return nil
	}
	limit := p.MaxPages
	if limit == 0 {
		limit = 4096
	}
	lo := addr &^ (PageSize - 1)
	hi := (end + PageSize - 1) &^ (PageSize - 1)
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.set.Load().regions
	var merged []*region
	for changed := true; changed; {
		changed = false
		merged = merged[:0]
		i := searchRegions(old, lo) - 1
		if i < 0 {
			i = 0
		}
		for ; i < len(old) && old[i].base < hi; i++ {
			r := old[i]
			if r.end() <= lo {
				continue
			}
			if !r.paged {
				return nil
			}
			merged = append(merged, r)
			if r.base < lo {
				lo, changed = r.base, true
			}
			if r.end() > hi {
				hi, changed = r.end(), true
			}
		}
	}
	if len(merged) == 1 && merged[0].base == lo && merged[0].end() == hi {
		return merged[0] // mapped by a concurrent demand
	}
	have := uint64(0)
	for _, r := range merged {
		have += uint64(len(r.data))
	}
	fresh := int((hi - lo - have) / PageSize)
	if int(p.pages.Load())+fresh > limit {
		return nil
	}
	data := make([]byte, hi-lo)
	for pg := lo; pg < hi; pg += PageSize {
		p.FillPage(pg, data[pg-lo:pg-lo+PageSize])
	}
	for _, r := range merged {
		copy(data[r.base-lo:], r.data)
	}
	regions := make([]*region, 0, len(old)+1-len(merged))
	for _, r := range old {
		if len(merged) > 0 && r.base >= merged[0].base && r.base <= merged[len(merged)-1].base {
			continue
		}
		regions = append(regions, r)
	}
	nr := &region{base: lo, data: data, paged: true}
	i := searchRegions(regions, lo)
	regions = append(regions[:i], append([]*region{nr}, regions[i:]...)...)
	m.ids++
	nr.id = m.ids
	m.publish(regions)
	p.pages.Add(int64(fresh))
	if o := addr - nr.base; o < uint64(len(nr.data)) && uint64(size) <= uint64(len(nr.data))-o {
		return nr
	}
	return nil
}

// Page is one page a pager materialized.
type Page struct {
	// Addr is the page's address (a multiple of PageSize).
	Addr uint64
	// Data is the page's current content (the Memory's bytes, not a copy).
	Data []byte
}

// PagedRegions returns the pages a pager materialized, by address (a
// region merged from several pages is returned page by page).
func (m *Memory) PagedRegions() []Page {
	var out []Page
	for _, r := range m.set.Load().regions {
		if r.paged {
			for off := 0; off+PageSize <= len(r.data); off += PageSize {
				out = append(out, Page{Addr: r.base + uint64(off), Data: r.data[off : off+PageSize]})
			}
		}
	}
	return out
}

// SetWriteHook installs f, which Slice (and so Write, Store32, Store64)
// calls with the address and size of every access made for writing before
// it returns the bytes (nil removes it). Callers that write through bytes
// obtained from RegionBytes must call it themselves, or check WriteHooked
// and take a path that uses Slice.
func (m *Memory) SetWriteHook(f func(addr uint64, size int)) {
	if f == nil {
		m.hook.Store(nil)
		return
	}
	m.hook.Store(&f)
}

// WriteHooked reports whether a write hook is installed.
func (m *Memory) WriteHooked() bool { return m.hook.Load() != nil }
