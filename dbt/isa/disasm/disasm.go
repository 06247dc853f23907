// Package disasm prints the code of AMDGPU code objects the way
// llvm-objdump -d does (symbol headers, addresses, encodings), and counts
// instructions per mnemonic. It is the engine of `rocjitsu disasm`.
//
// It dispatches on the target family: gfx942 and gfx950 objects are
// decoded by dbt/isa/gfx9, gfx1200 and gfx1201 objects by dbt/isa/gfx12.
package disasm

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/dbt/isa/objfile"
)

// Stats counts decoded instructions.
type Stats struct {
	Instructions int
	Unknown      int            // dwords that did not decode
	ByMnemonic   map[string]int // encoding-specific mnemonic -> count
}

// Add merges o into s.
func (s *Stats) Add(o *Stats) {
	s.Instructions += o.Instructions
	s.Unknown += o.Unknown
	if s.ByMnemonic == nil {
		s.ByMnemonic = map[string]int{}
	}
	for k, v := range o.ByMnemonic {
		s.ByMnemonic[k] += v
	}
}

// WriteHistogram prints the counts, most frequent first.
func (s *Stats) WriteHistogram(w io.Writer) error {
	type kv struct {
		k string
		v int
	}
	var list []kv
	for k, v := range s.ByMnemonic {
		list = append(list, kv{k, v})
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].v != list[j].v {
			return list[i].v > list[j].v
		}
		return list[i].k < list[j].k
	})
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "instructions: %d, distinct mnemonics: %d, unknown words: %d\n", s.Instructions, len(list), s.Unknown)
	for _, e := range list {
		fmt.Fprintf(bw, "%9d  %s\n", e.v, e.k)
	}
	return bw.Flush()
}

// Options control the listing.
type Options struct {
	// Target overrides the object's own target (from e_flags).
	Target isa.Target
	// NoListing only counts (for --stats).
	NoListing bool
	// Wave64 decodes GFX12 code as wave64 (lane masks vcc, s[0:1]; no
	// VOPD), like llvm-objdump --mattr=+wavefrontsize64. The default is
	// wave32 whatever the kernels' .wavefront_size says, which is what
	// llvm-objdump-19 -d does. GFX9 targets ignore it.
	Wave64 bool
	// noMemo turns the GFX9 instruction memo off (tests compare both).
	noMemo bool
}

// family is the decoder family of a target.
type family int

const (
	familyGFX9 family = iota
	familyGFX12
)

func familyOf(t isa.Target) (family, bool) {
	switch t {
	case isa.GFX942, isa.GFX950:
		return familyGFX9, true
	case isa.GFX1200, isa.GFX1201:
		return familyGFX12, true
	}
	return 0, false
}

// BranchSymbols returns the symbolizer llvm-objdump uses for branch
// targets: an untyped (label) symbol at the address, the smallest name
// first.
func BranchSymbols(f *objfile.File) gfx9.Symbolizer {
	m := map[uint64]string{}
	for _, s := range f.Symbols {
		if s.Func {
			continue
		}
		if old, ok := m[s.Addr]; !ok || s.Name < old {
			m[s.Addr] = s.Name
		}
	}
	return func(a uint64) (string, bool) { s, ok := m[a]; return s, ok }
}

// addrName is a symbol's address and name.
type addrName struct {
	addr uint64
	name string
}

// fileSymbols holds the symbols of the file being listed by address,
// ascending, one name per address; a Lister keeps it (and its storage)
// from one file to the next.
type fileSymbols struct {
	// heads are the symbols printed above their address: the largest
	// name of each address.
	heads []addrName
	// labels are the branch targets' names (BranchSymbols): the smallest
	// name of each address among the symbols that are not functions.
	labels []addrName
	// label is labels' Symbolizer (made once).
	label gfx9.Symbolizer
}

// load sets s to the symbols of f.
func (s *fileSymbols) load(f *objfile.File) {
	s.heads, s.labels = s.heads[:0], s.labels[:0]
	for _, sym := range f.Symbols {
		s.heads = append(s.heads, addrName{sym.Addr, sym.Name})
		if !sym.Func {
			s.labels = append(s.labels, addrName{sym.Addr, sym.Name})
		}
	}
	sameAddr := func(a, b addrName) bool { return a.addr == b.addr }
	// Largest name first for headers, smallest first for labels; Compact
	// keeps the first of each address.
	slices.SortFunc(s.heads, func(a, b addrName) int {
		return cmp.Or(cmp.Compare(a.addr, b.addr), strings.Compare(b.name, a.name))
	})
	s.heads = slices.CompactFunc(s.heads, sameAddr)
	slices.SortFunc(s.labels, func(a, b addrName) int {
		return cmp.Or(cmp.Compare(a.addr, b.addr), strings.Compare(a.name, b.name))
	})
	s.labels = slices.CompactFunc(s.labels, sameAddr)
	if s.label == nil {
		s.label = func(a uint64) (string, bool) {
			i, ok := slices.BinarySearchFunc(s.labels, a, func(e addrName, a uint64) int { return cmp.Compare(e.addr, a) })
			if !ok {
				return "", false
			}
			return s.labels[i].name, true
		}
	}
}

// head returns the index of the first header at or after address a.
func (s *fileSymbols) head(a uint64) int {
	i, _ := slices.BinarySearchFunc(s.heads, a, func(e addrName, a uint64) int { return cmp.Compare(e.addr, a) })
	return i
}

// nearest returns the closest header symbol at or below address a and its
// address.
func (s *fileSymbols) nearest(a uint64) (string, uint64, bool) {
	i := s.head(a + 1)
	if a == ^uint64(0) {
		i = len(s.heads)
	}
	if i == 0 {
		return "", 0, false
	}
	return s.heads[i-1].name, s.heads[i-1].addr, true
}

// Write disassembles every executable section of f to w. name is the file
// name printed in the header.
func Write(w io.Writer, f *objfile.File, name string, opt Options) (*Stats, error) {
	l := Lister{set: newMemoSet(memoSize(f), false)}
	buf := make([]byte, 0, flushAt+1024)
	out, err := l.appendListing(buf, w, f, name, opt)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(out); err != nil {
		return l.Stats(), err
	}
	return l.Stats(), nil
}

// AppendListing is Write appending the listing to dst: the whole listing
// is in the returned slice (nothing is written elsewhere). Callers that
// keep a listing in memory reuse dst's storage.
func AppendListing(dst []byte, f *objfile.File, name string, opt Options) (*Stats, []byte, error) {
	l := Lister{set: newMemoSet(memoSize(f), false)}
	out, err := l.appendListing(dst, nil, f, name, opt)
	if err != nil {
		return nil, out, err
	}
	return l.Stats(), out, nil
}

// Lister lists code objects one after another, keeping from one object to
// the next what does not depend on the object: the GFX9 instruction memo
// (the line printed for instruction bytes seen before). It counts the
// instructions of every object it lists. The zero Lister is ready to use;
// a Lister is not safe for concurrent use, but the Listers of NewListers
// share one memo and run concurrently.
type Lister struct {
	set   *memoSet
	users map[memoKey]*memoUser
	in    isa.Inst
	buf   []byte // WriteListing's
	// syms are the symbols of the file being listed.
	syms fileSymbols
	// counts holds, per family, the instructions listed by encoding row
	// (Inst.Enc); instructions and unknown are the totals.
	counts                [2][]int
	instructions, unknown int
}

// NewListers returns n Listers that share their memo, for listing objects
// on n goroutines: an instruction decoded by one is reused by all. words
// bounds the code they will list, in 4-byte words (the memo is sized for
// it, within its limit of memoMaxEntries instructions).
func NewListers(n, words int) []*Lister {
	set := newMemoSet(memoSizeFor(words), n > 1)
	ls := make([]*Lister, n)
	for i := range ls {
		ls[i] = &Lister{set: set}
	}
	return ls
}

// memoUser returns the Lister's use of its memo for k.
func (l *Lister) memoUser(k memoKey) *memoUser {
	if u := l.users[k]; u != nil {
		return u
	}
	if l.set == nil {
		l.set = newMemoSet(memoMaxEntries, false)
	}
	if l.users == nil {
		l.users = map[memoKey]*memoUser{}
	}
	u := newMemoUser(l.set.memo(k))
	l.users[k] = u
	return u
}

// count adds one to counts[enc], growing counts as needed.
func count(counts []int, enc uint16) []int {
	if int(enc) >= len(counts) {
		counts = append(counts, make([]int, max(int(enc)+1, 2*len(counts))-len(counts))...)
	}
	counts[enc]++
	return counts
}

// memoSize is the memo size for listing f alone: room for a quarter of
// its instructions (about one in six instructions of the aiter corpus
// differs from every one before it), within memoMaxEntries.
func memoSize(f *objfile.File) int {
	words := 0
	for _, s := range f.Sections {
		words += len(s.Data) / 4
	}
	return memoSizeFor(words / 4)
}

// memoSizeFor is the memo size for words of code: a power of two from 256
// to memoMaxEntries.
func memoSizeFor(words int) int {
	n := 256
	for n < words && n < memoMaxEntries {
		n *= 2
	}
	return n
}

// AppendListing appends the listing of f to dst, as the package function
// does, and adds the object's instructions to the Lister's counts.
func (l *Lister) AppendListing(dst []byte, f *objfile.File, name string, opt Options) ([]byte, error) {
	return l.appendListing(dst, nil, f, name, opt)
}

// Stats returns the counts of every object listed so far.
func (l *Lister) Stats() *Stats {
	st := &Stats{Instructions: l.instructions, Unknown: l.unknown, ByMnemonic: map[string]int{}}
	var probe isa.Inst
	for fam, counts := range l.counts {
		for id, n := range counts {
			if n == 0 {
				continue
			}
			probe.Enc = uint16(id)
			if family(fam) == familyGFX12 {
				st.ByMnemonic[gfx12.Mnemonic(&probe)] += n
			} else {
				st.ByMnemonic[gfx9.Mnemonic(&probe)] += n
			}
		}
	}
	return st
}

// flushAt is the size at which Write and WriteListing hand their buffer
// to the writer: small enough to stay in a core's cache, large enough for
// few writes.
const flushAt = 1 << 18

// WriteListing writes the listing of f to w, through one buffer the
// Lister keeps (flushAt bytes at a time), and adds the object's
// instructions to the Lister's counts. The end of the listing may stay in
// the buffer, to be written with the next listing's start: Flush writes
// it. It returns w's error or the listing's, as Write does.
func (l *Lister) WriteListing(w io.Writer, f *objfile.File, name string, opt Options) error {
	if l.buf == nil {
		l.buf = make([]byte, 0, flushAt+1024)
	}
	out, err := l.appendListing(l.buf, w, f, name, opt)
	l.buf = out
	if err != nil {
		return err
	}
	if len(out) >= flushAt {
		return l.Flush(w)
	}
	return nil
}

// Flush writes what WriteListing left in the Lister's buffer.
func (l *Lister) Flush(w io.Writer) error {
	if len(l.buf) == 0 {
		return nil
	}
	_, err := w.Write(l.buf)
	l.buf = l.buf[:0]
	return err
}

// appendListing appends the listing of f to out; when w is not nil, it
// writes out to w (and starts over) whenever out passes flushAt.
func (l *Lister) appendListing(out []byte, w io.Writer, f *objfile.File, name string, opt Options) ([]byte, error) {
	target := opt.Target
	if target == 0 {
		target = f.Target
	}
	fam, ok := familyOf(target)
	if !ok {
		return out, fmt.Errorf("disasm: %s: e_flags mach: target %v is not one this disassembler knows (use --mcpu gfx942, gfx950, gfx1200 or gfx1201)", name, target)
	}
	dtarget := target
	if fam == familyGFX12 && opt.Wave64 {
		dtarget |= isa.Wave64
	}
	listing := !opt.NoListing
	if listing {
		out = append(out, '\n')
		out = append(out, name...)
		out = append(out, ":\tfile format elf64-amdgpu\n"...)
	}
	syms := &l.syms
	syms.load(f)
	sym, heads := syms.label, syms.heads
	in := &l.in
	var text strings.Builder
	counts := l.counts[fam]
	// memo holds the lines of the GFX9 instructions seen before, for this
	// target and mode.
	var memo *memoUser
	if fam == familyGFX9 && !opt.noMemo {
		memo = l.memoUser(memoKey{target, listing})
	}
	for _, sec := range f.Sections {
		// missAt is the offset of an instruction the memo was found not
		// to hold, which is decoded without asking it again.
		missAt := -1
		if listing {
			out = append(out, "\nDisassembly of section "...)
			out = append(out, sec.Name...)
			out = append(out, ":\n"...)
		}
		data := sec.Data
		// next is the first header address not yet passed (pc only grows
		// within a section).
		next := syms.head(sec.Addr)
		if listing && len(data) > 0 && (next == len(heads) || heads[next].addr != sec.Addr) {
			out = appendHeader(out, sec.Addr, sec.Name)
		}
		for off := 0; off+4 <= len(data); {
			pc := sec.Addr + uint64(off)
			for next < len(heads) && heads[next].addr < pc {
				next++
			}
			if listing && next < len(heads) && heads[next].addr == pc {
				out = appendHeader(out, pc, heads[next].name)
			}
			// GFX9: an instruction decoded before from the same bytes
			// (and printed without a PC-relative operand) is reused, and
			// so are those after it, up to the next header.
			if memo != nil && listing && off != missAt {
				end, h := len(data)-3, next
				if h < len(heads) && heads[h].addr == pc {
					h++ // printed above
				}
				if h < len(heads) && heads[h].addr-sec.Addr < uint64(end) {
					end = int(heads[h].addr - sec.Addr)
				}
				limit := math.MaxInt
				if w != nil {
					limit = flushAt
				}
				var n int
				var miss bool
				if out, off, n, miss, counts = memo.run(out, data, off, end, sec.Addr, limit, counts); n != 0 {
					if miss {
						missAt = off
					}
					l.instructions += n
					if w != nil && len(out) >= flushAt {
						if _, err := w.Write(out); err != nil {
							return out[:0], err
						}
						out = out[:0]
					}
					continue
				}
			}
			if memo != nil && !listing {
				if v, size := memo.get(data[off:]); size != 0 {
					l.instructions++
					counts = count(counts, v.enc())
					off += size
					continue
				}
			}
			var err error
			if fam == familyGFX12 {
				err = gfx12.DecodeInto(in, data[off:], pc, dtarget)
			} else {
				err = gfx9.DecodeInto(in, data[off:], pc, target)
			}
			size := 4
			if err != nil {
				l.unknown++
			} else {
				size = int(in.Size)
				l.instructions++
				counts = count(counts, in.Enc)
			}
			if memo != nil && listing {
				memo.prefetch(data[off+size:])
			}
			tgt, branch := in.BranchTarget()
			remember := memo != nil && err == nil && !branch && gfx9.DecodeWindow(in, target) == size && size <= 8
			switch {
			case memo != nil && !remember:
				memo.skip()
			case !listing && remember:
				memo.putCount(data[off:off+size], in.Enc)
			}
			if listing {
				start := len(out)
				out = append(out, '\t')
				switch {
				case err != nil && fam == familyGFX12:
					// llvm-objdump prints a word it cannot decode as data.
					out = append(out, ".long 0x"...)
					out = appendLowerHex(out, uint64(le32(data[off:])), 8)
				case err != nil:
					out = append(out, "<unknown>"...)
				case fam == familyGFX12:
					text.Reset()
					gfx12.AppendText(&text, in)
					out = append(out, text.String()...)
				default:
					out = gfx9.AppendInst(out, in, sym)
				}
				textEnd := len(out)
				out = appendTail(out, start, pc, data[off:off+size])
				if err == nil && fam == familyGFX12 {
					out = appendAlignWarnings(out, in, data[off:off+size])
				}
				if err == nil {
					// A branch whose target has no label gets objdump's
					// <symbol+offset> note (GFX9 prints a label as the
					// operand; GFX12 prints the offset and names the
					// label in the note).
					if branch {
						if l, named := sym(tgt); named && fam == familyGFX12 {
							out = append(out, " <"...)
							out = append(out, l...)
							out = append(out, '>')
						} else if !named {
							if n, base, ok := syms.nearest(tgt); ok {
								out = append(out, " <"...)
								out = append(out, n...)
								if tgt != base {
									out = append(out, "+0x"...)
									out = strconv.AppendUint(out, tgt-base, 16)
								}
								out = append(out, '>')
							}
						}
					}
				}
				out = append(out, '\n')
				if remember {
					memo.putLine(data[off:off+size], in.Enc, out[start:textEnd], out[len(out)-9*(size/4)-1:])
				}
				if w != nil && len(out) >= flushAt {
					if _, err := w.Write(out); err != nil {
						return out[:0], err
					}
					out = out[:0]
				}
			}
			off += size
		}
	}
	l.counts[fam] = counts
	return out, nil
}

// appendTail appends, to the line that starts at start, the padding to
// column 60, the address and the instruction words (one growth of out,
// then the digits written in place).
func appendTail(out []byte, start int, pc uint64, words []byte) []byte {
	pad := max(0, 60-(len(out)-start))
	nw := len(words) / 4
	i := len(out)
	n := pad + len("// ") + 12 + len(":") + 9*nw
	// 64 spaces (pad is below 60; the tail overwrites the rest), one
	// store of a constant block rather than a call copying pad bytes.
	out = slices.Grow(out, n+64)
	*(*[64]byte)(out[i : i+64]) = spaces64
	out = out[:i+n]
	j := i + pad
	out[j], out[j+1], out[j+2] = '/', '/', ' '
	putAddr(out[j+3:j+15], pc)
	out[j+15] = ':'
	j += 16
	for k := 0; k < nw; k++ {
		out[j] = ' '
		binary.LittleEndian.PutUint64(out[j+1:j+9], hex8(le32(words[4*k:])))
		j += 9
	}
	return out
}

// hex8 returns the 8 upper-case hex digits of v, most significant first,
// as the bytes of a little-endian doubleword (the first digit in its low
// byte): four lookups of a byte's two digits.
func hex8(v uint32) uint64 {
	p := &hexPairs16
	return uint64(p[v>>24]) | uint64(p[v>>16&0xff])<<16 | uint64(p[v>>8&0xff])<<32 | uint64(p[v&0xff])<<48
}

// hexPairs16 holds the two upper-case hex digits of every byte as a
// little-endian halfword (the first digit in its low byte).
var hexPairs16 = func() (t [256]uint16) {
	for b := range t {
		t[b] = uint16(hexPairsUpper[2*b]) | uint16(hexPairsUpper[2*b+1])<<8
	}
	return t
}()

// putAddr writes the low 12 upper-case hex digits of pc into d[:12].
func putAddr(d []byte, pc uint64) {
	_ = d[11]
	binary.LittleEndian.PutUint32(d, uint32(hex8(uint32(pc>>32))>>32))
	binary.LittleEndian.PutUint64(d[4:], hex8(uint32(pc)))
}

// lineSpaces is the longest padding appendTail writes (to column 60 from
// the tab that starts a line).
const lineSpaces = "                                                            "

// appendHeader appends objdump's symbol header line: a blank line, the
// address in 16 hex digits and the name in angle brackets.
func appendHeader(b []byte, addr uint64, name string) []byte {
	b = append(b, '\n')
	b = appendLowerHex(b, addr, 16)
	b = append(b, " <"...)
	b = append(b, name...)
	return append(b, ">:\n"...)
}

// appendHex appends v as n upper-case hex digits.
func appendHex(b []byte, v uint64, n int) []byte {
	return appendDigits(b, v, n, &hexPairsUpper)
}

// appendLowerHex appends v as n lower-case hex digits.
func appendLowerHex(b []byte, v uint64, n int) []byte {
	return appendDigits(b, v, n, &hexPairsLower)
}

// hexPairsUpper and hexPairsLower hold the two hex digits of every byte.
var (
	hexPairsUpper = [512]byte([]byte("000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF"))
	hexPairsLower = [512]byte([]byte("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"))
)

// appendDigits appends the low n hex digits of v, most significant first.
func appendDigits(b []byte, v uint64, n int, pairs *[512]byte) []byte {
	l := len(b)
	b = slices.Grow(b, n)[:l+n]
	putDigits(b[l:l+n], v, pairs)
	return b
}

// putDigits writes the low len(d) hex digits of v into d, most significant
// first, two digits (one byte of v) at a time.
func putDigits(d []byte, v uint64, pairs *[512]byte) {
	i := len(d)
	for ; i >= 2; i -= 2 {
		p := pairs[2*(v&0xff):]
		d[i-1], d[i-2] = p[1], p[0]
		v >>= 8
	}
	if i == 1 {
		d[0] = pairs[2*(v&0xf)+1]
	}
}

// le64 reads a little-endian doubleword.
func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// le32 reads a little-endian word.
func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }
