// Package mem is the simulated device's address space: a sparse 64-bit
// space of mapped regions backed by host memory, either allocated by the
// package (Alloc) or owned by the caller and mapped at a fixed address
// (Map), as when device addresses are the host process's own addresses.
// Every access is bounds-checked against the mapped regions; an access
// that touches unmapped space returns a *Fault naming the address.
package mem

import (
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
)

// Base is the first address handed out by Alloc. Address 0 and the low
// 4 GiB stay unmapped so that null and small-integer pointers fault.
const Base = 0x0000_7f00_0000_0000

// Fault is the error of an access to unmapped or out-of-bounds memory.
type Fault struct {
	// Addr is the first address of the access.
	Addr uint64
	// Size is the access size in bytes.
	Size int
	// Write is true for stores and atomics.
	Write bool
}

func (f *Fault) Error() string {
	kind := "read"
	if f.Write {
		kind = "write"
	}
	return fmt.Sprintf("memory fault: %s of %d bytes at %#x is outside every allocation", kind, f.Size, f.Addr)
}

// region is one mapped range: an allocation (Alloc) or caller-owned bytes
// (Map). A region is never modified after it is published; its id is
// unique among the regions a Memory has ever had.
type region struct {
	base uint64
	data []byte
	id   uint64
	// paged marks a page a Pager materialized.
	paged bool
}

// end returns the first address after the region.
func (r *region) end() uint64 { return r.base + uint64(len(r.data)) }

// regionSet is one immutable state of the address space. Writers publish
// a new set instead of modifying the current one, so readers need no lock.
type regionSet struct {
	regions []*region // sorted by base, non-overlapping
	// last caches the regions of recent lookups in this set (replaced
	// round-robin, so that kernels alternating between a few buffers do
	// not store on every access). The cache dies with the set: a region
	// removed from the address space is never in a later set's cache.
	last   [4]atomic.Pointer[region]
	victim atomic.Uint32
}

// Memory is a sparse device address space.
//
// Concurrency: Map, Unmap, Alloc and Free may be called from any goroutine
// at any time, concurrently with each other and with lookups and accesses
// (Slice, Read, Write, Load*, Store*, Region, RegionBytes, RegionID,
// Generation) from any number of goroutines. Writers are serialized by a
// mutex and publish a new copy of the region table (copy-on-write); lookups
// take no lock (atomic loads of the table and of a small lookup cache), so a
// goroutine executing a kernel never blocks a Map or Unmap, nor the
// reverse. A lookup sees the table either before or after a concurrent
// change, never a mixture; once Map, Unmap, Alloc or Free has returned,
// every later lookup on any goroutine sees the change.
//
// Memory does not synchronize the bytes themselves: concurrent accesses to
// the same bytes follow the Go memory model as for any shared []byte.
// Bytes returned by Slice or RegionBytes before an Unmap or Free of their
// region remain readable and writable Go memory (for Alloc'ed regions the
// garbage collector keeps them; for Map'ped ones the caller must keep the
// backing memory valid) and may still be used by the goroutine that
// obtained them until it next calls into Memory; nothing written to them
// after the Unmap is visible through Memory. Generation tells callers that
// cache lookups whether the table changed.
type Memory struct {
	mu   sync.Mutex // serializes Map, Unmap, Alloc and Free
	set  atomic.Pointer[regionSet]
	gen  atomic.Uint64 // bumped after each new set is stored
	next uint64        // Alloc's next candidate address; under mu
	ids  uint64        // last region id handed out; under mu

	pager atomic.Pointer[Pager]                       // demand paging (SetPager)
	hook  atomic.Pointer[func(addr uint64, size int)] // write hook (SetWriteHook)
}

// New returns an empty address space.
func New() *Memory {
	m := &Memory{next: Base}
	m.set.Store(&regionSet{})
	return m
}

// Generation returns a number that changes whenever regions are mapped or
// unmapped (Map, Unmap, Alloc, Free); callers that cache what a lookup
// returned compare it to detect that the address space changed.
func (m *Memory) Generation() uint64 { return m.gen.Load() }

// publish installs regions (a fresh slice, sorted) as the new table. The
// caller holds mu.
func (m *Memory) publish(regions []*region) {
	m.set.Store(&regionSet{regions: regions})
	// After the store: a reader that sees the new generation also sees the
	// new set (one that sees the old generation may see either).
	m.gen.Add(1)
}

// insertLocked adds r to a copy of the table and publishes it. The caller
// holds mu and has checked that r overlaps nothing.
func (m *Memory) insertLocked(r *region) {
	old := m.set.Load().regions
	i := searchRegions(old, r.base)
	regions := make([]*region, 0, len(old)+1)
	regions = append(regions, old[:i]...)
	regions = append(regions, r)
	regions = append(regions, old[i:]...)
	m.ids++
	r.id = m.ids
	m.publish(regions)
}

// overlap returns the first region of regions that intersects [lo, hi), or
// nil.
func overlap(regions []*region, lo, hi uint64) *region {
	i := searchRegions(regions, lo) - 1 // last region starting at or below lo
	if i < 0 {
		i = 0
	}
	for ; i < len(regions) && regions[i].base < hi; i++ {
		if regions[i].end() > lo {
			return regions[i]
		}
	}
	return nil
}

// searchRegions returns the number of regions whose base is at most addr.
func searchRegions(regions []*region, addr uint64) int {
	lo, hi := 0, len(regions)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if regions[h].base <= addr {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}

// guardGap is the unmapped space Alloc leaves after every region, so that
// overruns fault.
const guardGap = 4096

// Alloc maps a zeroed region of size bytes aligned to align (a power of
// two, at least 256) and returns its address. Regions are separated by an
// unmapped guard gap so that overruns fault. Addresses start at Base and
// grow; ranges taken by Map (and a guard gap around them) are skipped.
func (m *Memory) Alloc(size uint64, align uint64) (uint64, error) {
	if align < 256 {
		align = 256
	}
	if align&(align-1) != 0 {
		return 0, fmt.Errorf("mem: alignment %d is not a power of two", align)
	}
	if size > 1<<36 {
		return 0, fmt.Errorf("mem: allocation of %d bytes is too large", size)
	}
	alloc := size
	if alloc == 0 {
		alloc = 1
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	regions := m.set.Load().regions
	addr := (m.next + align - 1) &^ (align - 1)
	for {
		if addr < m.next || addr+alloc+guardGap < addr {
			return 0, fmt.Errorf("mem: allocation of %d bytes: address space exhausted", size)
		}
		r := overlap(regions, addr-guardGap, addr+alloc+guardGap)
		if r == nil {
			break
		}
		addr = (r.end() + guardGap + align - 1) &^ (align - 1)
	}
	m.insertLocked(&region{base: addr, data: make([]byte, alloc)})
	m.next = addr + alloc + guardGap
	return addr, nil
}

// Map maps data, which the caller owns, at base: the region's bytes are
// data itself (no copy), so accesses through Memory and the caller's own
// accesses see the same bytes. The caller must keep data valid until the
// region is unmapped and no goroutine can still use bytes handed out
// for it (see Memory). Map fails if data is empty or the range overlaps a
// mapped region.
func (m *Memory) Map(base uint64, data []byte) error {
	n := uint64(len(data))
	if n == 0 {
		return fmt.Errorf("mem: map of 0 bytes at %#x", base)
	}
	if base+n < base {
		return fmt.Errorf("mem: map of %d bytes at %#x wraps around the address space", n, base)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := overlap(m.set.Load().regions, base, base+n); r != nil {
		return fmt.Errorf("mem: map of [%#x, %#x) overlaps the mapped region [%#x, %#x)", base, base+n, r.base, r.end())
	}
	m.insertLocked(&region{base: base, data: data})
	return nil
}

// Unmap removes the region (Alloc'ed or Map'ped) that starts at base.
func (m *Memory) Unmap(base uint64) error {
	if !m.remove(base) {
		return fmt.Errorf("mem: unmap of %#x, which is not the start of a mapped region", base)
	}
	return nil
}

// Free unmaps the region that starts at addr.
func (m *Memory) Free(addr uint64) error {
	if !m.remove(addr) {
		return fmt.Errorf("mem: free of %#x, which is not the start of an allocation", addr)
	}
	return nil
}

// remove unmaps the region starting at base; false if there is none.
func (m *Memory) remove(base uint64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.set.Load().regions
	i := searchRegions(old, base) - 1
	if i < 0 || old[i].base != base {
		return false
	}
	regions := make([]*region, 0, len(old)-1)
	regions = append(regions, old[:i]...)
	regions = append(regions, old[i+1:]...)
	m.publish(regions)
	return true
}

// find returns the region holding [addr, addr+size), or nil.
func (m *Memory) find(addr uint64, size int) *region {
	s := m.set.Load()
	for i := range s.last {
		r := s.last[i].Load()
		if r == nil {
			break
		}
		if o := addr - r.base; o < uint64(len(r.data)) && uint64(size) <= uint64(len(r.data))-o {
			return r
		}
	}
	i := searchRegions(s.regions, addr) - 1
	if i < 0 {
		return nil
	}
	r := s.regions[i]
	if o := addr - r.base; o >= uint64(len(r.data)) || uint64(size) > uint64(len(r.data))-o {
		return nil
	}
	s.last[s.victim.Add(1)&3].Store(r)
	return r
}

// Region returns the base and size of the region containing addr.
func (m *Memory) Region(addr uint64) (base, size uint64, ok bool) {
	r := m.find(addr, 1)
	if r == nil {
		return 0, 0, false
	}
	return r.base, uint64(len(r.data)), true
}

// RegionID is Region with the region's identity: a nonzero number unique
// to this mapping among all regions m has had. A region unmapped and
// mapped again, even at the same address over the same bytes, has a new
// id, so callers that cache what they derived from a region's contents
// (decoded code) can tell a replaced region from the one they saw.
func (m *Memory) RegionID(addr uint64) (base, size, id uint64, ok bool) {
	r := m.find(addr, 1)
	if r == nil {
		return 0, 0, 0, false
	}
	return r.base, uint64(len(r.data)), r.id, true
}

// RegionBytes returns the region containing addr: its base and its
// bytes, for callers that cache a region across many accesses (see Memory
// for how long the bytes may be used).
func (m *Memory) RegionBytes(addr uint64) (base uint64, data []byte, ok bool) {
	r := m.find(addr, 1)
	if r == nil {
		return 0, nil, false
	}
	return r.base, r.data, true
}

// Slice returns the mapped bytes [addr, addr+size) for direct access, or a
// fault.
func (m *Memory) Slice(addr uint64, size int, write bool) ([]byte, error) {
	r := m.find(addr, size)
	if r == nil {
		if r = m.demand(addr, size); r == nil {
			return nil, &Fault{Addr: addr, Size: size, Write: write}
		}
	}
	if write {
		if h := m.hook.Load(); h != nil {
			(*h)(addr, size)
		}
	}
	o := addr - r.base
	return r.data[o : o+uint64(size) : o+uint64(size)], nil
}

// Read copies len(p) bytes at addr into p.
func (m *Memory) Read(addr uint64, p []byte) error {
	b, err := m.Slice(addr, len(p), false)
	if err != nil {
		return err
	}
	copy(p, b)
	return nil
}

// Write copies p to addr.
func (m *Memory) Write(addr uint64, p []byte) error {
	b, err := m.Slice(addr, len(p), true)
	if err != nil {
		return err
	}
	copy(b, p)
	return nil
}

// Load32 reads a little-endian 32-bit word.
func (m *Memory) Load32(addr uint64) (uint32, error) {
	b, err := m.Slice(addr, 4, false)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

// Store32 writes a little-endian 32-bit word.
func (m *Memory) Store32(addr uint64, v uint32) error {
	b, err := m.Slice(addr, 4, true)
	if err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(b, v)
	return nil
}

// Load64 reads a little-endian 64-bit word.
func (m *Memory) Load64(addr uint64) (uint64, error) {
	b, err := m.Slice(addr, 8, false)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// Store64 writes a little-endian 64-bit word.
func (m *Memory) Store64(addr uint64, v uint64) error {
	b, err := m.Slice(addr, 8, true)
	if err != nil {
		return err
	}
	binary.LittleEndian.PutUint64(b, v)
	return nil
}
