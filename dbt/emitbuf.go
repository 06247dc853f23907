package dbt

import (
	"sync"
	"unsafe"

	"github.com/rocjitsu/rocjitsu/dbt/place"
)

// freeList is a free list of the buffers of one element type that kernels
// whose translation is over gave back (releaseEmitBuffers), so that the
// next object's emission appends into memory the last one used instead
// of fresh zeroed memory the collector must then reclaim. Buffers are
// handed out empty (length 0); what a user reads past its length it must
// write first.
type freeList[T any] struct {
	sync.Mutex
	bufs [][]T
	// bytes is what the list holds, bounded by maxFreeBytes.
	bytes int
}

// maxFreeBytes bounds the memory each free list keeps, and maxFreeBuffers
// the number of buffers it holds.
const (
	maxFreeBytes   = 4 << 20
	maxFreeBuffers = 64
)

// take returns an empty buffer of capacity at least n: a free one or a
// new one.
func (l *freeList[T]) take(n int) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	l.Lock()
	for i, b := range l.bufs {
		if cap(b) >= n {
			last := len(l.bufs) - 1
			l.bufs[i] = l.bufs[last]
			l.bufs[last] = nil
			l.bufs = l.bufs[:last]
			l.bytes -= cap(b) * size
			l.Unlock()
			return b[:0]
		}
	}
	l.Unlock()
	return make([]T, 0, n)
}

// give adds the distinct buffers of bs (by backing array) to the list while
// it has room; with clean, their elements up to their length are zeroed
// first (so that the list keeps nothing they point to alive).
func (l *freeList[T]) give(bs [][]T, clean bool) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	l.Lock()
	defer l.Unlock()
next:
	for n, b := range bs {
		if cap(b) == 0 {
			continue
		}
		p := &b[:1][0]
		for _, x := range bs[:n] {
			if cap(x) > 0 && &x[:1][0] == p {
				continue next
			}
		}
		if len(l.bufs) >= maxFreeBuffers || l.bytes+cap(b)*size > maxFreeBytes {
			return
		}
		if clean {
			clear(b)
		}
		l.bufs = append(l.bufs, b[:0])
		l.bytes += cap(b) * size
	}
}

// The translation's emission buffer free lists.
var (
	freeCode    freeList[byte]
	freeOffsets freeList[pcOff]
	freeFixups  freeList[place.Fixup]
	freeDecided freeList[decided]
	freeSlots   freeList[int32]
)

// releaseEmitBuffers hands the code, offset, fixup and decision buffers
// of kts' last two emissions back for later emissions. Nothing may use
// the kernels' bodies, offsets, memos or decisions afterwards.
func releaseEmitBuffers(kts []*kernelT) {
	var code [][]byte
	var at [][]pcOff
	var fixups [][]place.Fixup
	var entries [][]decided
	var slots [][]int32
	for _, kt := range kts {
		if kt == nil {
			continue
		}
		if kt.body != nil {
			code = append(code, kt.body.Code)
			fixups = append(fixups, kt.body.Fixups)
		}
		code = append(code, kt.memoCode)
		at = append(at, kt.emitted, kt.memoAt)
		entries = append(entries, kt.decided.entries)
		slots = append(slots, kt.decided.slot)
		kt.body, kt.memoCode, kt.emitted, kt.memoAt, kt.emittedFor = nil, nil, nil, nil, nil
		kt.decided = decisions{}
	}
	freeCode.give(code, false)
	freeOffsets.give(at, false)
	freeFixups.give(fixups, false)
	freeDecided.give(entries, true)
	freeSlots.give(slots, false)
}
