package dbt

import (
	"cmp"
	"slices"
	"sort"
)

// PCMap maps host code addresses of a translated object back to the guest
// instructions they translate, so that a fault or a write of the host code
// can be named by the guest instruction it stands for.
type PCMap struct {
	ranges []pcRange // sorted by host address, non-overlapping
}

// pcRange is the host code [Host, End) of the guest instruction at Guest.
type pcRange struct {
	Host, End, Guest uint64
}

// Guest returns the guest address (ELF virtual address) of the instruction
// whose host code contains the host address host (ELF virtual address of
// the translated object); false for host code that translates no guest
// instruction (stubs, islands, padding) or for a nil map.
func (m *PCMap) Guest(host uint64) (uint64, bool) {
	if m == nil {
		return 0, false
	}
	i := sort.Search(len(m.ranges), func(i int) bool { return m.ranges[i].End > host })
	if i < len(m.ranges) && m.ranges[i].Host <= host {
		return m.ranges[i].Guest, true
	}
	return 0, false
}

// Len returns the number of mapped guest instructions.
func (m *PCMap) Len() int {
	if m == nil {
		return 0
	}
	return len(m.ranges)
}

// add maps the body placed at base: each guest instruction's host code
// runs to the next mapped instruction's (or the body's end). Guest
// addresses at or above sidecarEntry (prologue markers) are skipped.
func (m *PCMap) add(bodyMap map[uint64]int, codeLen int, base uint64) {
	type at struct {
		guest uint64
		off   int
	}
	xs := make([]at, 0, len(bodyMap))
	for g, off := range bodyMap {
		xs = append(xs, at{g, off})
	}
	slices.SortFunc(xs, func(a, b at) int {
		if c := cmp.Compare(a.off, b.off); c != 0 {
			return c
		}
		return cmp.Compare(a.guest, b.guest)
	})
	for i, x := range xs {
		end := codeLen
		if i+1 < len(xs) {
			end = xs[i+1].off
		}
		if x.guest >= sidecarEntry || end <= x.off {
			continue
		}
		m.ranges = append(m.ranges, pcRange{Host: base + uint64(x.off), End: base + uint64(end), Guest: x.guest})
	}
}

// sort orders the ranges after every add.
func (m *PCMap) sort() {
	slices.SortFunc(m.ranges, func(a, b pcRange) int { return cmp.Compare(a.Host, b.Host) })
}

// shift moves every host range by d bytes (the committed .text moved).
func (m *PCMap) shift(d uint64) {
	for i := range m.ranges {
		m.ranges[i].Host += d
		m.ranges[i].End += d
	}
}
