// Package mem is the simulated device's address space: a sparse 64-bit
// space in which allocations are mapped regions backed by host memory.
// Every access is bounds-checked against the mapped regions; an access
// that touches unmapped space returns a *Fault naming the address.
package mem

import (
	"encoding/binary"
	"fmt"
	"sort"
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

// region is one mapped allocation.
type region struct {
	base uint64
	data []byte
}

// Memory is a sparse device address space. It is not safe for concurrent
// use.
type Memory struct {
	regions []*region // sorted by base
	next    uint64
	last    *region
}

// New returns an empty address space.
func New() *Memory { return &Memory{next: Base} }

// Alloc maps a zeroed region of size bytes aligned to align (a power of
// two, at least 256) and returns its address. Regions are separated by an
// unmapped guard gap so that overruns fault.
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
	addr := (m.next + align - 1) &^ (align - 1)
	alloc := size
	if alloc == 0 {
		alloc = 1
	}
	r := &region{base: addr, data: make([]byte, alloc)}
	m.regions = append(m.regions, r)
	m.next = addr + alloc + 4096 // guard gap
	return addr, nil
}

// Free unmaps the region that starts at addr.
func (m *Memory) Free(addr uint64) error {
	for i, r := range m.regions {
		if r.base == addr {
			m.regions = append(m.regions[:i], m.regions[i+1:]...)
			if m.last == r {
				m.last = nil
			}
			return nil
		}
	}
	return fmt.Errorf("mem: free of %#x, which is not the start of an allocation", addr)
}

func (m *Memory) find(addr uint64, size int) *region {
	if r := m.last; r != nil && addr >= r.base && addr-r.base+uint64(size) <= uint64(len(r.data)) {
		return r
	}
	i := sort.Search(len(m.regions), func(i int) bool { return m.regions[i].base > addr }) - 1
	if i < 0 {
		return nil
	}
	r := m.regions[i]
	if addr-r.base+uint64(size) > uint64(len(r.data)) || addr-r.base >= uint64(len(r.data)) {
		return nil
	}
	m.last = r
	return r
}

// Region returns the base and size of the allocation containing addr.
func (m *Memory) Region(addr uint64) (base, size uint64, ok bool) {
	r := m.find(addr, 1)
	if r == nil {
		return 0, 0, false
	}
	return r.base, uint64(len(r.data)), true
}

// RegionBytes returns the allocation containing addr: its base and its
// bytes, for callers that cache a region across many accesses.
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
		return nil, &Fault{Addr: addr, Size: size, Write: write}
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
