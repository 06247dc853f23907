package disasm

import "github.com/rocjitsu/rocjitsu/dbt/isa"

// memo remembers GFX9 instructions whose decoding depends on their own
// bytes only (gfx9.DecodeWindow is their size) and whose text has no
// PC-relative operand: their encoding row and, when listing, their whole
// listing line, address digits included (appendLine overwrites them).
// 4-byte instructions are keyed by their word, 8-byte ones by their
// doubleword: a word that decodes as a 4-byte instruction does so whatever
// follows it, so the two tables never disagree. A memo is for one target
// and one mode (listing or counting); use starts it over when either
// changes, and it starts over when it holds memoMaxLines bytes of lines or
// memoMaxEntries instructions, so its memory stays bounded across objects.
type memo struct {
	target  isa.Target
	listing bool
	used    bool
	w4, w8  memoTable
	lines   []byte
}

const (
	memoMaxLines   = 16 << 20
	memoMaxEntries = 1 << 18
)

// memoVal is a memo entry: the offset of its line in memo.lines (bits
// 0-31), the offset of the address digits in the line (32-39), the length
// of the line after them (40-47, at least 1: the newline) and the encoding
// row (48-63). A zero memoVal is no entry.
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
	m.lines = m.lines[:0]
}

// get returns the entry of the instruction at the start of b and its size,
// or size 0 when there is none.
func (m *memo) get(b []byte) (memoVal, int) {
	if v := m.w4.get(uint64(le32(b))); v != 0 {
		return v, 4
	}
	if len(b) >= 8 {
		if v := m.w8.get(le64(b)); v != 0 {
			return v, 8
		}
	}
	return 0, 0
}

// table returns the table of instructions of raw's size.
func (m *memo) table(raw []byte) *memoTable {
	if len(raw) == 4 {
		return &m.w4
	}
	return &m.w8
}

func key(raw []byte) uint64 {
	if len(raw) == 4 {
		return uint64(le32(raw))
	}
	return le64(raw)
}

// putCount remembers the encoding row of the instruction raw (4 or 8
// bytes), for counting.
func (m *memo) putCount(raw []byte, enc uint16) {
	if m.w4.n+m.w8.n >= memoMaxEntries {
		m.reset()
	}
	m.table(raw).put(key(raw), memoVal(enc)<<48|1<<40)
}

// putLine remembers the encoding row and the listing line of the
// instruction raw (4 or 8 bytes): a tab, the text, the padding, "// ",
// the 12 address digits, ':', the words and a newline.
func (m *memo) putLine(raw []byte, enc uint16, line []byte) {
	pcAt := len(line) - 1 - 9*(len(raw)/4) - 1 - 12
	tail := len(line) - pcAt - 12
	if pcAt < 0 || pcAt > 0xff || tail > 0xff {
		return
	}
	if len(m.lines)+len(line) > memoMaxLines || m.w4.n+m.w8.n >= memoMaxEntries {
		m.reset()
	}
	v := memoVal(enc)<<48 | memoVal(tail)<<40 | memoVal(pcAt)<<32 | memoVal(len(m.lines))
	m.lines = append(m.lines, line...)
	m.table(raw).put(key(raw), v)
}

// appendLine appends the line of v with the address pc.
func (m *memo) appendLine(out []byte, v memoVal, pc uint64) []byte {
	off := int(uint32(v))
	pcAt := int(v >> 32 & 0xff)
	n := pcAt + 12 + int(v>>40&0xff)
	i := len(out)
	out = append(out, m.lines[off:off+n]...)
	putDigits(out[i+pcAt:i+pcAt+12], pc, &hexPairsUpper)
	return out
}

// memoTable is an open-addressing hash table from uint64 keys to nonzero
// memoVals.
type memoTable struct {
	slots []memoSlot
	shift uint // 64 - log2(len(slots))
	n     int
}

type memoSlot struct {
	key uint64
	val memoVal
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
	for t.slots[i].val != 0 && t.slots[i].key != key {
		i = (i + 1) & mask
	}
	return i
}

func (t *memoTable) get(key uint64) memoVal {
	if t.n == 0 {
		return 0
	}
	return t.slots[t.slot(key)].val
}

func (t *memoTable) put(key uint64, val memoVal) {
	if 2*(t.n+1) > len(t.slots) {
		old := t.slots
		size := max(1024, 2*len(old))
		t.slots, t.n = make([]memoSlot, size), 0
		t.shift = 64
		for s := size; s > 1; s >>= 1 {
			t.shift--
		}
		for _, s := range old {
			if s.val != 0 {
				t.put(s.key, s.val)
			}
		}
	}
	i := t.slot(key)
	if t.slots[i].val == 0 {
		t.n++
	}
	t.slots[i] = memoSlot{key, val}
}
