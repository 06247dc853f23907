package cfg

import (
	"encoding/binary"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// DecodeWindowFunc returns how many bytes at the start of the code an
// instruction decoded by the graph's DecodeIntoFunc depends on (for GFX9
// gfx9.DecodeWindow with the target bound): code whose first that many
// bytes are equal decodes to the same instruction but for its PC.
type DecodeWindowFunc func(in *isa.Inst) int

// decodeMemo remembers, for one graph, the instructions decoded from each
// 4- or 8-byte window of code, so that the same bytes found again (code
// repeats within an object: unrolled loops, kernels that share a body;
// on the aiter corpus two decodes in three) are copied from the earlier
// instruction instead of decoded. It is an open-addressing table of more
// slots than the text has words, so that it never fills (a window is
// remembered once, at the first instruction decoded from it); its slots
// name the instruction by its word in the graph's byWord.
type decodeMemo struct {
	slots []memoSlot
	shift uint // 64 - log2(len(slots))
}

// memoSlot is one remembered window: its bytes (the first word, or the
// doubleword), its size (0: empty slot) and the .text word index of the
// instruction decoded from it.
type memoSlot struct {
	key  uint64
	word uint32
	size uint8
}

// newDecodeMemo returns the memo for a text of words 4-byte words.
func newDecodeMemo(words int) decodeMemo {
	n := 64
	for n <= words {
		n *= 2
	}
	m := decodeMemo{slots: memoSlots(n), shift: 64}
	for s := n; s > 1; s >>= 1 {
		m.shift--
	}
	return m
}

// home returns the first slot of the probe for key of a window of size
// bytes.
func (m *decodeMemo) home(key uint64, size uint8) int {
	return int((key ^ uint64(size)<<59) * 0x9E3779B97F4A7C15 >> m.shift)
}

// find returns the word index of the instruction remembered for the
// window of size bytes that holds key, or false.
func (m *decodeMemo) find(key uint64, size uint8) (uint32, bool) {
	mask := len(m.slots) - 1
	for i := m.home(key, size); ; i = (i + 1) & mask {
		s := &m.slots[i]
		if s.size == 0 {
			return 0, false
		}
		if s.key == key && s.size == size {
			return s.word, true
		}
	}
}

// lookup returns the instruction of byWord decoded earlier from the same
// window as the code at the start of b, or nil: a 4-byte window is tried
// first (the first word alone decides such an instruction, whatever
// follows).
func (m *decodeMemo) lookup(b []byte, byWord []*isa.Inst) *isa.Inst {
	if len(m.slots) == 0 || len(b) < 4 {
		return nil
	}
	w, ok := m.find(uint64(binary.LittleEndian.Uint32(b)), 4)
	if !ok && len(b) >= 8 {
		w, ok = m.find(binary.LittleEndian.Uint64(b), 8)
	}
	if !ok {
		return nil
	}
	return byWord[w]
}

// remember records that the instruction at .text word index word was
// decoded from the start of b with a window of size bytes, unless the
// window is not 4 or 8 bytes long, passes the end of b, or has an
// instruction already.
func (m *decodeMemo) remember(b []byte, size int, word uint32) {
	if len(m.slots) == 0 || (size != 4 && size != 8) || size > len(b) {
		return
	}
	key := uint64(binary.LittleEndian.Uint32(b))
	if size == 8 {
		key = binary.LittleEndian.Uint64(b)
	}
	mask := len(m.slots) - 1
	for i := m.home(key, uint8(size)); ; i = (i + 1) & mask {
		s := &m.slots[i]
		if s.size == 0 {
			*s = memoSlot{key: key, word: word, size: uint8(size)}
			return
		}
		if s.key == key && s.size == uint8(size) {
			return
		}
	}
}
