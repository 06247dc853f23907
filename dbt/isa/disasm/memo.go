package disasm

import (
	"encoding/binary"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// memo remembers GFX9 instructions whose decoding depends on their own
// bytes only (gfx9.DecodeWindow is their size) and whose text has no
// PC-relative operand: their encoding row and, when listing, their listing
// line without its padding and address: the tab and the instruction's
// text, then the words and the newline (run adds the padding to column
// 60, "// ", the address and ':'; whole lines took twice the memory,
// whose first touch costs a page fault every 4 KB).
// 4-byte instructions are keyed by their word, 8-byte ones by their
// doubleword, in one table: a word that decodes as a 4-byte instruction
// does so whatever follows it, so a key names one instruction size, and an
// entry found for the doubleword at an address is the instruction there
// whatever its size (a 4-byte entry only matches when the next word is
// zero); an entry found for the word must be a 4-byte one (an 8-byte one
// is an instruction whose second word is zero, a zero literal).
//
// Entries are kept in the order they were made, and each user records,
// for each entry, the entries that followed it the last two times the
// user saw it (each its own, so that Listers listing different code do
// not overwrite each other's and share no written memory): code that
// repeats (the same sequence in another kernel or object) is found by
// comparing the bytes with those successors before any hash lookup (on the
// 300-object listing of BenchmarkDisasmListing, 80% of the instructions
// that have an entry; 67% with one successor).
//
// A memo is for one target and one mode (listing or counting) and is
// shared by the Listers of one memoSet, which read and add entries
// concurrently: an entry is written before its index is published (a
// compare-and-swap into a table slot) and never changes after. Its
// entries are allocated once, and a shared memo's table too (a memo with
// one user doubles its table as it fills); when it is full (maxEntries
// entries, memoMaxChunks chunks of lines) it stops growing, so its memory
// stays bounded across objects.
type memo struct {
	table   memoTable
	entries []memoEntry
	n       atomic.Int64 // entries claimed (may pass len(entries))
	// chunks holds the lines in chunks of chunkSize bytes; each is
	// claimed (nchunks) and filled by one user, and its slice is set once.
	chunks  [memoMaxChunks][]byte
	nchunks atomic.Int32
	// chunkSize is the size of a chunk: memoChunk, or less for a memo of
	// few entries.
	chunkSize int
	// growable says the memo has one user, which doubles the table when
	// it is three quarters full (a table shared by concurrent users has
	// a fixed size, twice the entries it can hold).
	growable bool
}

const (
	memoChunk      = 1 << 18
	memoMaxChunks  = 64
	memoMaxEntries = 1 << 17
)

// memoEntry is one remembered instruction, set before it is published
// (16 bytes: the entries of the distinct instructions of a listing are
// read in no order).
type memoEntry struct {
	key uint64 // the instruction's word (size 4) or doubleword (size 8)
	val memoVal
}

// memoVal locates an entry's line in memo.chunks: its chunk (bits 18-30),
// its offset in the chunk (0-17) and its text's length (32-39; the words
// and newline follow); it holds the
// encoding row (48-63) and says whether the instruction has 8 bytes (bit
// 31; else 4).
type memoVal uint64

// memoSize8 is the memoVal bit of 8-byte instructions.
const memoSize8 memoVal = 1 << 31

func (v memoVal) enc() uint16 { return uint16(v >> 48) }

// size returns the instruction's size in bytes.
func (v memoVal) size() int { return 4 + int(v>>31&1)*4 }

// newMemo returns a memo of up to maxEntries entries (a power of two), for
// concurrent users when shared. The table of a memo with one user starts
// at half as many slots as entries (on the distinct listing of
// BenchmarkDisasmListing, whose 42k distinct instructions fill a quarter
// of the entries, a table a quarter the size of the fixed one spent 37%
// less CPU time in lookups; its slots are read in no order, and a smaller
// table stays in the cache) and grows.
func newMemo(maxEntries int, shared bool) *memo {
	m := &memo{entries: make([]memoEntry, maxEntries), chunkSize: min(memoChunk, max(1<<12, maxEntries<<7)), growable: !shared}
	if shared {
		m.table.init(2 * maxEntries)
	} else {
		m.table.init(max(64, maxEntries/2))
	}
	return m
}

// memoKey names a memo of a memoSet.
type memoKey struct {
	target  isa.Target
	listing bool
}

// memoSet holds the memos shared by a group of Listers, one per target and
// mode.
type memoSet struct {
	mu         sync.Mutex
	memos      map[memoKey]*memo
	maxEntries int
	// shared says the Listers of the set run concurrently.
	shared bool
}

func newMemoSet(maxEntries int, shared bool) *memoSet {
	return &memoSet{memos: map[memoKey]*memo{}, maxEntries: maxEntries, shared: shared}
}

func (s *memoSet) memo(k memoKey) *memo {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.memos[k]
	if m == nil {
		m = newMemo(s.maxEntries, s.shared)
		s.memos[k] = m
	}
	return m
}

// memoUser is one Lister's use of a memo: the previous instruction's entry
// and the chunk it fills with lines.
type memoUser struct {
	m *memo
	// last is the index of the previous instruction's entry, or -1 when
	// the previous instruction has none.
	last int
	// links holds, by entry index, 1 + the index of the entry this user
	// saw after that one the last time (next) and the time before (prev),
	// or 0; both in one cache line, so that trying prev after next costs
	// no second miss.
	links []memoLinks
	// chunk is the index of the chunk this user fills, or -1; fill is
	// the length of its lines.
	chunk, fill int
}

func newMemoUser(m *memo) *memoUser {
	return &memoUser{m: m, last: -1, chunk: -1, links: make([]memoLinks, len(m.entries))}
}

// memoLinks are the successors a user saw after an entry: 1 + the index
// of the entry that followed it the last time (next) and the time before
// (prev), or 0.
type memoLinks struct{ next, prev uint32 }

// get returns the entry of the instruction at the start of b and its size,
// or size 0 when there is none. The successor of the previous entry is
// tried first (the last two). Then the top bits of the first word tell the 32-bit
// encodings (VOP1, VOP2, VOPC, SOP*, VINTRP: 4 bytes, or 8 with a literal)
// from the 64-bit ones, so that most instructions take one lookup; a VOP1,
// VOP2 or VOPC word whose src0 is 255 (a literal), 249 (SDWA) or 250
// (DPP), or a SOP2 word with a source 255, takes only the 8-byte lookup. A wrong guess would only
// cost a decode, since an entry found in either table is the
// instruction's.
func (u *memoUser) get(b []byte) (memoVal, int) {
	if len(b) < 8 {
		return u.getWord(b)
	}
	if i := u.successor(le64(b)); i >= 0 {
		v := u.m.entries[i].val
		return v, v.size()
	}
	i := u.find(b)
	if i < 0 {
		return 0, 0
	}
	v := u.m.entries[i].val
	return v, v.size()
}

// successor returns the index of the entry of the instruction whose
// doubleword is k when it is one of the two that followed the previous
// entry (which it then becomes), or -1.
func (u *memoUser) successor(k uint64) int {
	if u.last < 0 {
		return -1
	}
	entries := u.m.entries
	l := u.links[u.last]
	if n := l.next; n != 0 {
		if e := &entries[n-1]; e.key == k&e.val.keyMask() {
			u.last = int(n - 1)
			return u.last
		}
	}
	if n := l.prev; n != 0 {
		if e := &entries[n-1]; e.key == k&e.val.keyMask() {
			u.last = int(n - 1)
			return u.last
		}
	}
	return -1
}

// find returns the index of the entry of the instruction at the start of
// b from the table (and records it as the previous entry's successor), or
// -1.
func (u *memoUser) find(b []byte) int {
	if len(b) < 8 {
		return u.findWord(b)
	}
	m := u.m
	k := le64(b)
	i := -1
	if w := uint32(k); mayBeWord(w) {
		i = m.table.get(uint64(w), m.entries)
		if i >= 0 && m.entries[i].val&memoSize8 != 0 {
			i = -1
		}
	}
	if i < 0 {
		i = m.table.get(k, m.entries)
		if i < 0 {
			return -1
		}
	}
	u.follow(i)
	return i
}

// run appends the lines of the instructions at data[off:], whose first
// byte is at address base, that the memo holds, one after another, until
// one it does not hold, the offset end (where the next instruction may
// not start: a header, or the last word of the section), or out having
// limit bytes or more when less than memoLineMax bytes of its capacity
// are left (so out only grows past its capacity below limit). It returns
// out, the offset after the last instruction listed, how many it listed,
// whether it stopped at an instruction the memo does not hold (miss), and
// counts with each counted.
func (u *memoUser) run(out, data []byte, off, end int, base uint64, limit int, counts []int) ([]byte, int, int, bool, []int) {
	if !u.m.growable {
		// Shared by concurrent users: the bytes past a line, which the
		// loop below copies too, may be another user's, being written.
		return u.runShared(out, data, off, end, base, limit, counts)
	}
	// One loop without calls on its common path (the successor links,
	// the line written in place): a call would spill every value live
	// in the loop.
	entries, links, chunks := u.m.entries, u.links, &u.m.chunks
	last, n := u.last, 0
	// hi holds the digits of the address bits 32-47 (those of hiOf), which
	// change at most once per 4 GB.
	hiOf, hi := ^uint64(0), uint32(0)
	if len(out) >= limit {
		return out, off, 0, false, counts
	}
	for off < end {
		if cap(out)-len(out) < memoLineMax {
			// limit is looked at only here: out stops at limit, or
			// less than memoLineMax bytes short of its capacity.
			if len(out) >= limit {
				break
			}
			out = slices.Grow(out, memoLineMax)
		}
		i := -1
		if last >= 0 && off+8 <= len(data) {
			k := le64(data[off:])
			l := links[last]
			if x := int(l.next) - 1; x >= 0 && entries[x].key == k&entries[x].val.keyMask() {
				i = x
			} else if x := int(l.prev) - 1; x >= 0 && entries[x].key == k&entries[x].val.keyMask() {
				i = x
			}
		}
		if i < 0 {
			u.last = last
			if i = u.find(data[off:]); i < 0 {
				return out, off, n, true, counts
			}
		}
		last = i
		v := entries[i].val
		size := v.size()
		counts = count(counts, v.enc())
		pc := base + uint64(off)
		if pc>>32 != hiOf {
			hiOf = pc >> 32
			hi = uint32(hex8(uint32(hiOf)) >> 32)
		}
		// The line: the stored text, the padding to column 60, "// ",
		// the address, ':' and the words.
		o := len(out)
		d := (*[memoLineMax]byte)(out[o : o+memoLineMax])
		at, tl := int(v&(memoChunk-1)), int(v>>32&0xff)
		chunk := chunks[v>>18&(memoMaxChunks-1)]
		if tl <= 64 {
			// Chunks have 64 bytes of slack; the bytes copied past
			// the text's are overwritten below. Four 16-byte moves: a
			// 64-byte array copy between slices is a call to memmove
			// (they might overlap).
			src := (*[64]byte)(chunk[at : at+64])
			a, b := *(*[16]byte)(src[0:]), *(*[16]byte)(src[16:])
			c, e := *(*[16]byte)(src[32:]), *(*[16]byte)(src[48:])
			*(*[16]byte)(d[0:]), *(*[16]byte)(d[16:]) = a, b
			*(*[16]byte)(d[32:]), *(*[16]byte)(d[48:]) = c, e
		} else {
			copy(d[:], chunk[at:at+tl])
		}
		// 64 spaces after the text: the padding to column 60 (the tail
		// overwrites the rest).
		*(*[64]byte)(d[tl : tl+64]) = spaces64
		j := max(tl, 60)
		d[j], d[j+1], d[j+2] = '/', '/', ' '
		binary.LittleEndian.PutUint32(d[j+3:], hi)
		binary.LittleEndian.PutUint64(d[j+7:], hex8(uint32(pc)))
		d[j+15] = ':'
		// The words and the newline, stored after the text (24 bytes
		// copied; those past the line's end are dropped).
		ws := (*[24]byte)(chunk[at+tl : at+tl+24])
		le := binary.LittleEndian
		le.PutUint64(d[j+16:], le.Uint64(ws[0:]))
		le.PutUint64(d[j+24:], le.Uint64(ws[8:]))
		le.PutUint64(d[j+32:], le.Uint64(ws[16:]))
		out = out[:o+j+16+1+9*(size/4)]
		off += size
		n++
	}
	u.last = last
	return out, off, n, false, counts
}

// runShared is run for a memo shared by concurrent users: each line's
// bytes are copied exactly (its text), and its tail is written as the
// listing writes it.
func (u *memoUser) runShared(out, data []byte, off, end int, base uint64, limit int, counts []int) ([]byte, int, int, bool, []int) {
	n := 0
	for off < end && len(out) < limit {
		v, size := u.get(data[off:])
		if size == 0 {
			return out, off, n, true, counts
		}
		counts = count(counts, v.enc())
		at := int(v & (memoChunk - 1))
		start := len(out)
		out = append(out, u.m.chunks[v>>18&(memoMaxChunks-1)][at:at+int(v>>32&0xff)]...)
		out = append(appendTail(out, start, base+uint64(off), data[off:off+size]), '\n')
		off += size
		n++
	}
	return out, off, n, false, counts
}

// memoPopulate is how many entries (and successor links) put faults in at
// once, ahead of their use.
const memoPopulate = 4096

// populateFrom faults in the pages of s[i:i+memoPopulate] (see populate).
func populateFrom[T any](s []T, i int) {
	if i >= len(s) {
		return
	}
	n := min(len(s)-i, memoPopulate)
	populate(unsafe.Slice((*byte)(unsafe.Pointer(&s[i])), n*int(unsafe.Sizeof(s[i]))))
}

// mayBeWord reports whether the GFX9 instruction word w may be a whole
// 4-byte instruction: a 32-bit encoding (VOP1, VOP2, VOPC, SOP*, VINTRP)
// without a literal that its word alone shows.
func mayBeWord(w uint32) bool {
	switch {
	case w>>31 == 0: // VOP2, VOP1, VOPC: src0 255 is a literal, 249 SDWA, 250 DPP
		src0 := w & 0x1ff
		return src0 != 0xff && src0 != 0xf9 && src0 != 0xfa
	case w>>30 == 2: // SOP*
		if w>>28 != 0xb && w>>23&0x7f < 0x7d { // SOP2
			return w&0xff != 0xff && w>>8&0xff != 0xff
		}
		return true
	}
	return w>>26 == 0x35 // VINTRP
}

// getWord is get for the last word of a section.
func (u *memoUser) getWord(b []byte) (memoVal, int) {
	i := u.findWord(b)
	if i < 0 {
		return 0, 0
	}
	v := u.m.entries[i].val
	return v, v.size()
}

// findWord is find for the last word of a section.
func (u *memoUser) findWord(b []byte) int {
	if len(b) < 4 {
		return -1
	}
	w := le32(b)
	if !mayBeWord(w) {
		return -1
	}
	i := u.m.table.get(uint64(w), u.m.entries)
	if i < 0 || u.m.entries[i].val&memoSize8 != 0 {
		return -1
	}
	u.follow(i)
	return i
}

// keyMask returns the bits of an instruction's doubleword that are the
// key of an entry of value v: the first word for a 4-byte instruction.
func (v memoVal) keyMask() uint64 { return ^uint64(0) >> (32 - 32*(v>>31&1)) }

// follow records entry i as the successor of the last one.
func (u *memoUser) follow(i int) {
	if u.last >= 0 {
		if l := &u.links[u.last]; l.next != uint32(i+1) {
			l.prev = l.next
			l.next = uint32(i + 1)
		}
	}
	u.last = i
}

// prefetch starts loading the table slots where find will look first for
// the instruction at the start of b, so that their cache misses (the table
// is read in no order) overlap the work done before that lookup: decoding
// and printing the instruction before it.
func (u *memoUser) prefetch(b []byte) {
	if len(b) < 8 {
		return
	}
	t := &u.m.table
	k := le64(b)
	if w := uint32(k); mayBeWord(w) {
		i, _ := t.home(uint64(w))
		prefetch(unsafe.Pointer(&t.slots[i]))
	}
	i, _ := t.home(k)
	prefetch(unsafe.Pointer(&t.slots[i]))
}

// skip records that the instruction after the last one has no entry.
func (u *memoUser) skip() { u.last = -1 }

// putCount remembers the encoding row of the instruction raw (4 or 8
// bytes), for counting.
func (u *memoUser) putCount(raw []byte, enc uint16) {
	u.put(raw, memoVal(enc)<<48|1<<40)
}

// putLine remembers the encoding row and the listing line of the
// instruction raw (4 or 8 bytes): its text (a tab and the instruction's)
// and its end (the words as listed, " XXXXXXXX" each, and the newline);
// run adds the padding to column 60, "// ", the address and ':' between
// them.
func (u *memoUser) putLine(raw []byte, enc uint16, line, end []byte) {
	m := u.m
	if len(line) > 0xff || len(end) == 0 || end[len(end)-1] != '\n' || m.n.Load() >= int64(len(m.entries)) {
		u.skip()
		return
	}
	need := len(line) + len(end)
	if u.chunk < 0 || u.fill+need > m.chunkSize {
		c := int(m.nchunks.Add(1)) - 1
		if c >= memoMaxChunks {
			u.chunk = -1
			u.skip()
			return
		}
		// 64 bytes of slack: run copies 64 bytes from a text's start.
		// The chunk fills from start to end: its pages are faulted in
		// at once.
		m.chunks[c] = make([]byte, m.chunkSize+64)
		populate(m.chunks[c])
		u.chunk, u.fill = c, 0
	}
	v := memoVal(enc)<<48 | memoVal(len(line))<<32 | memoVal(u.chunk)<<18 | memoVal(u.fill)
	c := m.chunks[u.chunk][u.fill : u.fill+need]
	copy(c[copy(c, line):], end)
	u.fill += need
	u.put(raw, v)
}

// put adds the entry of raw, after the last one, unless the memo is full.
func (u *memoUser) put(raw []byte, v memoVal) {
	m := u.m
	i := int(m.n.Add(1)) - 1
	if i >= len(m.entries) {
		u.skip()
		return
	}
	if i%memoPopulate == 0 {
		// Entries and links fill in index order: their next pages
		// are faulted in at once.
		populateFrom(m.entries, i)
		populateFrom(u.links, i)
	}
	e := &m.entries[i]
	if len(raw) == 8 {
		v |= memoSize8
	}
	e.val = v
	if m.growable && 4*(i+1) > 3*len(m.table.slots) {
		m.table.grow(m.entries[:i])
	}
	if len(raw) == 4 {
		e.key = uint64(le32(raw))
		m.table.put(e.key, i, m.entries)
	} else {
		e.key = le64(raw)
		m.table.put(e.key, i, m.entries)
	}
	u.follow(i)
}

// memoLineMax bounds what run writes of a line: a text of at most 255
// bytes, the 64 spaces after it, and the tail of an 8-byte instruction.
const memoLineMax = 255 + 64 + len("// ") + 12 + len(":") + 2*9 + len("\n")

// spaces64 is the padding run writes after a text.
var spaces64 = [64]byte([]byte(lineSpaces + "    "))

// memoTable is an open-addressing hash table of entry indexes, keyed by
// the entries' keys, of fixed size (twice the entries it can hold, so it
// never fills) or grown by its one user. Its slots hold 1 + an entry index
// (bits 0-17: memoMaxEntries is 1<<17) and a tag of the key's hash (bits
// 18-31), or 0 when empty; they are set once, by compare-and-swap. A
// lookup reads the entry of a slot only when the tags match, so the slots
// of other keys on its probe cost no load of their entries (on the
// distinct listing, where most lookups miss the cache, those loads were
// as many cycles as the slots').
type memoTable struct {
	slots []atomic.Uint32
	shift uint // 64 - log2(len(slots))
}

// init makes a table of size slots (a power of two). It writes a zero in
// every page of the slots: the first access to a slot is a read, and a
// page first read then written costs a second fault (copy on write of
// the shared zero page, with a TLB flush on every CPU of the process).
func (t *memoTable) init(size int) {
	t.slots = make([]atomic.Uint32, size)
	populateFrom(t.slots, 0)
	for i := 0; i < size; i += 1024 {
		t.slots[i].Store(0)
	}
	t.shift = 64
	for s := size; s > 1; s >>= 1 {
		t.shift--
	}
}

// grow doubles the table of entries (those put so far), which no other
// goroutine may be reading: each key's first entry is put again.
func (t *memoTable) grow(entries []memoEntry) {
	t.init(2 * len(t.slots))
	for i := range entries {
		t.put(entries[i].key, i, entries)
	}
}

// memoSlotIndex masks the 1 + entry index of a slot; the bits above it
// are the tag.
const memoSlotIndex = 1<<18 - 1

// home returns the first slot of key's probe and key's tag (bits 18-31
// of a slot): bits 32-45 of the hash, below the at most 18 top bits that
// pick the slot.
func (t *memoTable) home(key uint64) (int, uint32) {
	h := key * 0x9E3779B97F4A7C15
	return int(h >> t.shift), uint32(h>>14) &^ memoSlotIndex
}

// get returns the index of the entry of key, or -1.
func (t *memoTable) get(key uint64, entries []memoEntry) int {
	mask := len(t.slots) - 1
	i, tag := t.home(key)
	for ; ; i = (i + 1) & mask {
		s := t.slots[i].Load()
		if s == 0 {
			return -1
		}
		if s&^memoSlotIndex == tag && entries[s&memoSlotIndex-1].key == key {
			return int(s&memoSlotIndex - 1)
		}
	}
}

// put publishes entry idx under key, unless key has an entry already.
func (t *memoTable) put(key uint64, idx int, entries []memoEntry) {
	mask := len(t.slots) - 1
	i, tag := t.home(key)
	for ; ; i = (i + 1) & mask {
		s := t.slots[i].Load()
		if s == 0 {
			if t.slots[i].CompareAndSwap(0, tag|uint32(idx+1)) {
				return
			}
			s = t.slots[i].Load()
		}
		if s&^memoSlotIndex == tag && entries[s&memoSlotIndex-1].key == key {
			return
		}
	}
}
