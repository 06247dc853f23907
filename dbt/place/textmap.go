package place

import (
	"slices"
	"sort"
)

// TextMap maps offsets into the old .text (at textAddr) to offsets into
// the new one of newLen bytes, given hostAt, the new address of every
// emitted instruction by its old address: exact for those, relative to the
// closest mapped address below otherwise, and clamped to newLen.
func TextMap(textAddr uint64, hostAt map[uint64]uint64, newLen uint64) func(uint64) (uint64, bool) {
	srcs := make([]uint64, 0, len(hostAt))
	for a := range hostAt {
		srcs = append(srcs, a)
	}
	slices.Sort(srcs)
	return func(off uint64) (uint64, bool) {
		a := textAddr + off
		if h, ok := hostAt[a]; ok {
			return h - textAddr, true
		}
		i := sort.Search(len(srcs), func(i int) bool { return srcs[i] > a }) - 1
		if i < 0 {
			return off, off <= newLen
		}
		return min(hostAt[srcs[i]]+(a-srcs[i])-textAddr, newLen), true
	}
}
