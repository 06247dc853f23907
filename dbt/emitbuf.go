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
	freeUses    = freelist.List[sharedUse]{MaxBytes: maxFreeBytes, MaxBufs: maxFreeBuffers}
	freeCalls   = freelist.List[sharedCall]{MaxBytes: maxFreeBytes, MaxBufs: maxFreeBuffers}
	freeAddrs   = freelist.List[uint64]{MaxBytes: maxFreeBytes, MaxBufs: maxFreeBuffers}
)

// releaseEmitBuffers hands the code, offset, fixup and decision buffers
// of kts' last two emissions, and their subroutine use and call lists,
// back for later emissions. Nothing may use the kernels' bodies, offsets,
// memos, decisions or subroutine state afterwards.
func releaseEmitBuffers(kts []*kernelT) {
	var code [][]byte
	var at [][]pcOff
	var fixups [][]place.Fixup
	var entries [][]decided
	var slots [][]int32
	var uses [][]sharedUse
	var calls [][]sharedCall
	for _, kt := range kts {
		if kt == nil {
			continue
		}
		if st := kt.shared; st != nil {
			uses = append(uses, st.scan)
			calls = append(calls, st.calls, st.order)
			kt.shared = nil
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
	freeUses.Give(uses, true)
	freeCalls.Give(calls, true)
}
