package dbt

import (
	"cmp"
	"slices"
	"sort"

	"github.com/rocjitsu/rocjitsu/dbt/place"
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

// pcOff is a guest instruction's address and the offset of its host code
// in a body.
type pcOff = place.SourceOffset

// byOffGuest orders pairs by offset, then guest address.
func byOffGuest(a, b pcOff) int {
	if c := cmp.Compare(a.Off, b.Off); c != 0 {
		return c
	}
	return cmp.Compare(a.Src, b.Src)
}

// mapPairs returns the pairs of a body map in byOffGuest order.
func mapPairs(bodyMap map[uint64]int) []pcOff {
	xs := make([]pcOff, 0, len(bodyMap))
	for g, off := range bodyMap {
		xs = append(xs, pcOff{Src: g, Off: off})
	}
	slices.SortFunc(xs, byOffGuest)
	return xs
}

// add maps the body placed at base, given its pairs in byOffGuest order:
// each guest instruction's host code runs to the next mapped
// instruction's (or the body's end). Guest addresses at or above
// sidecarEntry (prologue markers) are skipped.
func (m *PCMap) add(xs []pcOff, codeLen int, base uint64) {
	for i, x := range xs {
		end := codeLen
		if i+1 < len(xs) {
			end = xs[i+1].Off
		}
		if x.Src >= sidecarEntry || end <= x.Off {
			continue
		}
		m.ranges = append(m.ranges, pcRange{Host: base + uint64(x.Off), End: base + uint64(end), Guest: x.Src})
	}
}

// sort orders the ranges after every add.
func (m *PCMap) sort() {
	byHost := func(a, b pcRange) int { return cmp.Compare(a.Host, b.Host) }
	if !slices.IsSortedFunc(m.ranges, byHost) {
		slices.SortFunc(m.ranges, byHost)
	}
}

// shift moves every host range by d bytes (the committed .text moved).
func (m *PCMap) shift(d uint64) {
	for i := range m.ranges {
		m.ranges[i].Host += d
		m.ranges[i].End += d
	}
}

// bodyPairs returns the (guest, offset) pairs of kt.body in byOffGuest
// order: the order emit recorded them in when that is the order (blocks
// are emitted by address), otherwise the sorted map.
func (kt *kernelT) bodyPairs() []pcOff {
	if kt.emittedFor == kt.body && len(kt.emitted) == kt.body.Mapped() && slices.IsSortedFunc(kt.emitted, byOffGuest) {
		return kt.emitted
	}
	if kt.body.Map == nil {
		xs := slices.Clone(kt.body.Offsets)
		slices.SortFunc(xs, byOffGuest)
		return xs
	}
	return mapPairs(kt.body.Map)
}
