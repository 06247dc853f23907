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

// TextMapSorted is TextMap for addresses given as parallel slices: srcs
// ascending, with hosts[i] the new address of srcs[i]; when an address
// occurs more than once the first pair counts. It builds no map.
func TextMapSorted(textAddr uint64, srcs, hosts []uint64, newLen uint64) func(uint64) (uint64, bool) {
	n := 0
	for i := range srcs {
		if n > 0 && srcs[n-1] == srcs[i] {
			continue
		}
		srcs[n], hosts[n] = srcs[i], hosts[i]
		n++
	}
	srcs, hosts = srcs[:n], hosts[:n]
	return func(off uint64) (uint64, bool) {
		a := textAddr + off
		i := sort.Search(len(srcs), func(i int) bool { return srcs[i] > a }) - 1
		switch {
		case i < 0:
			return off, off <= newLen
		case srcs[i] == a:
			return hosts[i] - textAddr, true
		}
		return min(hosts[i]+(a-srcs[i])-textAddr, newLen), true
	}
}
