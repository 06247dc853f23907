package dbt

import (
	"github.com/rocjitsu/rocjitsu/dbt/internal/freelist"
	"github.com/rocjitsu/rocjitsu/dbt/place"
)

// Bounds of each emission buffer free list: the memory it keeps and the
// number of buffers.
const (
	maxFreeBytes   = 4 << 20
	maxFreeBuffers = 64
)

// The translation's emission buffer free lists.
var (
	freeCode    = freelist.List[byte]{MaxBytes: maxFreeBytes, MaxBufs: maxFreeBuffers}
	freeOffsets = freelist.List[pcOff]{MaxBytes: maxFreeBytes, MaxBufs: maxFreeBuffers}
	freeFixups  = freelist.List[place.Fixup]{MaxBytes: maxFreeBytes, MaxBufs: maxFreeBuffers}
	freeDecided = freelist.List[decided]{MaxBytes: maxFreeBytes, MaxBufs: maxFreeBuffers}
	freeSlots   = freelist.List[int32]{MaxBytes: maxFreeBytes, MaxBufs: maxFreeBuffers}
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
	freeCode.Give(code, false)
	freeOffsets.Give(at, false)
	freeFixups.Give(fixups, false)
	freeDecided.Give(entries, true)
	freeSlots.Give(slots, false)
}
