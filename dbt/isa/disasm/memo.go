package disasm

import "github.com/rocjitsu/rocjitsu/dbt/isa"

// memo remembers GFX9 instructions whose decoding depends on their own
// bytes only (gfx9.DecodeWindow is their size) and whose text has no
// PC-relative operand: their encoding row and, when listing, their whole
// listing line, address digits included (appendLine overwrites them).
// 4-byte instructions are keyed by their word, 8-byte ones by their
// doubleword: a word that decodes as a 4-byte instruction does so whatever
// follows it, so the two tables never disagree.
//
// Entries are kept in the order they were made, and each records the entry
// that followed it the last time it was seen: code that repeats (the same
// sequence in another kernel or object) is found by comparing the bytes
// with that successor, in memory order, before any hash lookup.
//
// A memo is for one target and one mode (listing or counting); use starts
// it over when either changes, and it starts over when it holds
// memoMaxLines bytes of lines or memoMaxEntries instructions, so its memory
// stays bounded across objects.
type memo struct {
	target  isa.Target
	listing bool
	used    bool
	w4, w8  memoTable
	entries []memoEntry
	// lines holds the lines in chunks of memoChunk bytes, filled in
	// turn (a chunk never moves, so storing a line copies only it).
	lines [][]byte
	// chunk is the index in lines of the chunk being filled.
	chunk int
	// last is the index of the previous instruction's entry, or -1 when
	// the previous instruction has none.
	last int
}

const (
	memoChunk      = 1 << 18
	memoMaxLines   = 64 * memoChunk
	memoMaxEntries = 1 << 18
)

// memoEntry is one remembered instruction.
type memoEntry struct {
	key  uint64 // the instruction's word (size 4) or doubleword (size 8)
	val  memoVal
	next uint32 // 1 + the index of the entry seen after this one, or 0
	size uint32 // 4 or 8
}

// memoVal locates an entry's line: its chunk in memo.lines (bits 18-31)
// and its offset in the chunk (0-17),
// the offset of the address digits in the line (32-39), the length of the
// line after them (40-47, at least 1: the newline); and holds the encoding
// row (48-63).
type memoVal uint64

func (v memoVal) enc() uint16 { return uint16(v >> 48) }

// use prepares the memo for listing (or counting, listing false) code of
// target t.
func (m *memo) use(t isa.Target, listing bool) {
	if m.used && m.target == t && m.listing == listing {
		return
	}
	m.reset()
	m.target, m.listing, m.used = t, listing, true
}

func (m *memo) reset() {
	m.w4.clear()
	m.w8.clear()
	m.entries = m.entries[:0]
	for i := range m.lines {
		m.lines[i] = m.lines[i][:0]
	}
	m.chunk = 0
	m.last = -1
}

// matches reports whether the instruction at the start of b is e's.
func (e *memoEntry) matches(b []byte) bool {
	if e.size == 4 {
		return uint64(le32(b)) == e.key
	}
	return len(b) >= 8 && le64(b) == e.key
}

// get returns the entry of the instruction at the start of b and its size,
// or size 0 when there is none. The successor of the previous entry is
// tried first. Then the top bits of the first word tell the 32-bit
// encodings (VOP1, VOP2, VOPC, SOP*, VINTRP: 4 bytes, or 8 with a literal)
// from the 64-bit ones, so that most instructions take one lookup; a wrong
// guess would only cost a decode, since an entry found in either table is
// the instruction's.
func (m *memo) get(b []byte) (memoVal, int) {
	if m.last >= 0 {
		if n := m.entries[m.last].next; n != 0 {
			if e := &m.entries[n-1]; e.matches(b) {
				m.last = int(n - 1)
				return e.val, int(e.size)
			}
		}
	}
	i := -1
	w := le32(b)
	if w>>31 == 0 || w>>30 == 2 || w>>26 == 0x35 {
		i = m.w4.get(uint64(w))
	}
	if i < 0 && len(b) >= 8 {
		i = m.w8.get(le64(b))
	}
	if i < 0 {
		return 0, 0
	}
	if m.last >= 0 {
		m.entries[m.last].next = uint32(i + 1)
	}
	m.last = i
	e := &m.entries[i]
	return e.val, int(e.size)
}

// skip records that the instruction after the last one has no entry.
func (m *memo) skip() { m.last = -1 }

// putCount remembers the encoding row of the instruction raw (4 or 8
// bytes), for counting.
func (m *memo) putCount(raw []byte, enc uint16) {
	if len(m.entries) >= memoMaxEntries {
		m.reset()
	}
	m.put(raw, memoVal(enc)<<48|1<<40)
}

// putLine remembers the encoding row and the listing line of the
// instruction raw (4 or 8 bytes): a tab, the text, the padding, "// ",
// the 12 address digits, ':', the words and a newline.
func (m *memo) putLine(raw []byte, enc uint16, line []byte) {
	pcAt := len(line) - 1 - 9*(len(raw)/4) - 1 - 12
	tail := len(line) - pcAt - 12
	if pcAt < 0 || pcAt > 0xff || tail > 0xff {
		m.skip()
		return
	}
	if len(m.entries) >= memoMaxEntries {
		m.reset()
	}
	if m.chunk < len(m.lines) && len(m.lines[m.chunk])+len(line) > memoChunk {
		m.chunk++
	}
	if m.chunk == memoMaxLines/memoChunk {
		m.reset()
	}
	if m.chunk == len(m.lines) {
		m.lines = append(m.lines, make([]byte, 0, memoChunk))
	}
	c := m.lines[m.chunk]
	v := memoVal(enc)<<48 | memoVal(tail)<<40 | memoVal(pcAt)<<32 | memoVal(m.chunk)<<18 | memoVal(len(c))
	m.lines[m.chunk] = append(c, line...)
	m.put(raw, v)
}

// put adds the entry of raw, after the last one.
func (m *memo) put(raw []byte, v memoVal) {
	i := len(m.entries)
	e := memoEntry{val: v, size: uint32(len(raw))}
	if len(raw) == 4 {
		e.key = uint64(le32(raw))
		m.w4.put(e.key, i)
	} else {
		e.key = le64(raw)
		m.w8.put(e.key, i)
	}
	m.entries = append(m.entries, e)
	if m.last >= 0 {
		m.entries[m.last].next = uint32(i + 1)
	}
	m.last = i
}

// appendLine appends the line of v with the address pc.
func (m *memo) appendLine(out []byte, v memoVal, pc uint64) []byte {
	off := int(v & (memoChunk - 1))
	pcAt := int(v >> 32 & 0xff)
	n := pcAt + 12 + int(v>>40&0xff)
	i := len(out)
	out = append(out, m.lines[v>>18&0x3fff][off:off+n]...)
	putDigits(out[i+pcAt:i+pcAt+12], pc, &hexPairsUpper)
	return out
}

// memoTable is an open-addressing hash table from uint64 keys to entry
// indexes.
type memoTable struct {
	slots []memoSlot
	shift uint // 64 - log2(len(slots))
	n     int
}

// memoSlot is a table slot: a key and 1 + its entry index, or 0 when the
// slot is empty.
type memoSlot struct {
	key uint64
	idx uint32
}

// clear empties the table, keeping its storage.
func (t *memoTable) clear() {
	clear(t.slots)
	t.n = 0
}

// slot returns the index of key, or of the empty slot where it goes.
func (t *memoTable) slot(key uint64) int {
	mask := len(t.slots) - 1
	i := int((key*0x9E3779B97F4A7C15)>>t.shift) & mask
	for t.slots[i].idx != 0 && t.slots[i].key != key {
		i = (i + 1) & mask
	}
	return i
}

// get returns the entry index of key, or -1.
func (t *memoTable) get(key uint64) int {
	if t.n == 0 {
		return -1
	}
	return int(t.slots[t.slot(key)].idx) - 1
}

// put sets the entry index of key to idx.
func (t *memoTable) put(key uint64, idx int) {
	if 2*(t.n+1) > len(t.slots) {
		old := t.slots
		size := max(4096, 2*len(old))
		t.slots, t.n = make([]memoSlot, size), 0
		t.shift = 64
		for s := size; s > 1; s >>= 1 {
			t.shift--
		}
		for _, s := range old {
			if s.idx != 0 {
				t.put(s.key, int(s.idx)-1)
			}
		}
	}
	i := t.slot(key)
	if t.slots[i].idx == 0 {
		t.n++
	}
	t.slots[i] = memoSlot{key, uint32(idx + 1)}
}
