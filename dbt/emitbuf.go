package dbt

import (
	"sync"
	"unsafe"
)

// emitBufferList is the free list of the code and offset buffers of
// kernels whose translation is over (releaseEmitBuffers), so that the next
// object's emission appends into memory the last one used instead of
// fresh zeroed memory the collector must then reclaim. Emission only
// appends to them (from length 0), so they need no clearing.
type emitBufferList struct {
	sync.Mutex
	code [][]byte
	at   [][]pcOff
	// codeBytes and atBytes are what the lists hold, bounded by
	// maxFreeEmitBytes each.
	codeBytes, atBytes int
}

// maxFreeEmitBytes bounds the memory each of the free lists keeps, and
// maxFreeEmitBuffers the number of buffers each holds.
const (
	maxFreeEmitBytes   = 16 << 20
	maxFreeEmitBuffers = 64
)

// pcOffBytes is the size of a pcOff, for the bound.
const pcOffBytes = int(unsafe.Sizeof(pcOff{}))

// freeEmit is the translation's emission buffer free list.
var freeEmit emitBufferList

// takeCode returns an empty code buffer of capacity at least n.
func (l *emitBufferList) takeCode(n int) []byte {
	l.Lock()
	for i, b := range l.code {
		if cap(b) >= n {
			last := len(l.code) - 1
			l.code[i] = l.code[last]
			l.code[last] = nil
			l.code = l.code[:last]
			l.codeBytes -= cap(b)
			l.Unlock()
			return b[:0]
		}
	}
	l.Unlock()
	return make([]byte, 0, n)
}

// takeOffsets returns an empty offset list of capacity at least n.
func (l *emitBufferList) takeOffsets(n int) []pcOff {
	l.Lock()
	for i, b := range l.at {
		if cap(b) >= n {
			last := len(l.at) - 1
			l.at[i] = l.at[last]
			l.at[last] = nil
			l.at = l.at[:last]
			l.atBytes -= cap(b) * pcOffBytes
			l.Unlock()
			return b[:0]
		}
	}
	l.Unlock()
	return make([]pcOff, 0, n)
}

// releaseEmitBuffers hands the code and offset buffers of kts' last two
// emissions back for later emissions. Nothing may use the kernels' bodies,
// offsets or memos afterwards.
func releaseEmitBuffers(kts []*kernelT) {
	var code [][]byte
	var at [][]pcOff
	for _, kt := range kts {
		if kt == nil {
			continue
		}
		if kt.body != nil {
			code = appendDistinctBytes(code, kt.body.Code)
		}
		code = appendDistinctBytes(code, kt.memoCode)
		at = appendDistinctOffsets(at, kt.emitted)
		at = appendDistinctOffsets(at, kt.memoAt)
		kt.body, kt.memoCode, kt.emitted, kt.memoAt, kt.emittedFor = nil, nil, nil, nil, nil
	}
	l := &freeEmit
	l.Lock()
	defer l.Unlock()
	for _, b := range code {
		if len(l.code) >= maxFreeEmitBuffers || l.codeBytes+cap(b) > maxFreeEmitBytes {
			break
		}
		l.code = append(l.code, b[:0])
		l.codeBytes += cap(b)
	}
	for _, b := range at {
		if len(l.at) >= maxFreeEmitBuffers || l.atBytes+cap(b)*pcOffBytes > maxFreeEmitBytes {
			break
		}
		l.at = append(l.at, b[:0])
		l.atBytes += cap(b) * pcOffBytes
	}
}

// appendDistinctBytes appends b to list unless it has no capacity or
// shares its backing array with an entry already there.
func appendDistinctBytes(list [][]byte, b []byte) [][]byte {
	if cap(b) == 0 {
		return list
	}
	p := &b[:1][0]
	for _, x := range list {
		if &x[:1][0] == p {
			return list
		}
	}
	return append(list, b)
}

// appendDistinctOffsets is appendDistinctBytes for offset lists.
func appendDistinctOffsets(list [][]pcOff, b []pcOff) [][]pcOff {
	if cap(b) == 0 {
		return list
	}
	p := &b[:1][0]
	for _, x := range list {
		if &x[:1][0] == p {
			return list
		}
	}
	return append(list, b)
}
