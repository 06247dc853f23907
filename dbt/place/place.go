// Package place lays translated kernel bodies out in the host .text and
// repairs their control flow: it keeps each descriptor-visible entry at its
// source entry's residue modulo 256, adds entry stubs (and the second,
// kernarg-preload entry 256 bytes later) when needed, and resolves every
// recorded fixup into its final form: an in-range SOPP branch, a long
// s_getpc/s_add/s_addc/s_setpc window through a free SGPR pair, an inverted
// conditional over such a window, a branch routed through a chain of
// skipped branch-island pools (island.go), a direct s_call_b64, or a
// re-biased s_getpc-relative address literal. Unused window words are NOPs.
package place

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
)

// FixupKind is the form a control-flow window takes.
type FixupKind uint8

// Window kinds.
const (
	// Branch is an s_branch or s_cbranch_* (Op); Long selects the long
	// window.
	Branch FixupKind = iota
	// Call is s_call_b64 s[Pair:Pair+1] to Target (4-byte window).
	Call
	// PCRel re-biases a s_getpc_b64-relative 64-bit offset: the window at
	// Off is the s_getpc_b64, LoLit and HiLit are the body offsets of the
	// literal dwords of the s_add_u32 / s_addc_u32 that follow, and
	// Target is the source address the guest computed (source PC after the
	// s_getpc_b64 plus the original offset). After placement the literals
	// hold Target' - hostPC, where Target' is Target itself for data (not
	// code) and hostPC is the s_getpc_b64's host PC + 4.
	PCRel
)

// Fixup is one control-flow or address window in a body. (The fields are
// ordered for a compact layout: a large scope has tens of thousands.)
type Fixup struct {
	// Off is the window's body offset; Size its reserved bytes.
	Off, Size int
	// LoLit, HiLit locate PCRel literals.
	LoLit, HiLit int
	// Target is the source address of the destination (resolved through
	// the body's map), or, with Local, a body offset.
	Target uint64
	// Src is the source address of the instruction, for errors.
	Src  uint64
	Kind FixupKind
	// Op is the SOPP opcode of a branch.
	Op    uint8
	Local bool
	// Long asks for a long window (24 bytes, 28 when conditional).
	Long bool
	// Pair is the SGPR pair: the long window's scratch pair or the
	// call's return-address pair.
	Pair uint16
	// Via is a long call's scratch pair for the target address.
	Via uint16
	// Island routes an out-of-range branch (4-byte window) through the
	// body's island pools instead of a long window; calls never take it.
	Island bool
	// SaveSCC makes a long window preserve SCC through SCCReg (the
	// window's s_add_u32/s_addc_u32 write SCC): s_cselect_b32 saves it,
	// s_cmp_lg_u32 restores it before the s_setpc_b64.
	SaveSCC bool
	SCCReg  uint16
	// Data marks a PCRel whose target is data, whose address does not
	// move.
	Data bool
}

// LongSize is the long window size for op (unconditional 24, conditional
// 28 bytes; 8 more when SCC is saved).
func LongSize(op uint8, saveSCC bool) int {
	n := 24
	if op != OpBranch {
		n += 4
	}
	if saveSCC {
		n += 8
	}
	return n
}

// Body is one translated kernel scope.
type Body struct {
	// Name identifies the body in errors.
	Name string
	Code []byte
	// Map gives the body offset of every source block leader (and of any
	// other source instruction a fixup may target).
	Map map[uint64]int
	// Offsets, used when Map is nil, gives them as a list: source
	// addresses strictly ascending (a translator that emits in source
	// order has it without building a map).
	Offsets []SourceOffset
	// Fixups are resolved after placement.
	Fixups []Fixup
	// Entry is the source entry address and Preload the source preload
	// entry (0 when none).
	Entry, Preload uint64
	// Prologue, when true, makes body offset 0 (an entry prologue the
	// translator put before the translated entry block) the
	// descriptor-visible entry instead of Map[Entry].
	Prologue bool
	// Words are the host's control-flow encodings (nil: GFX9).
	Words *Words
	// Islands are the skipped island pools the translator inserted, in
	// increasing body offset order.
	Islands []Island
}

// SourceOffset is a source address and the body offset of its code.
type SourceOffset struct {
	Src uint64
	Off int
}

// Offset returns the body offset of source address src (Map, or Offsets
// when Map is nil).
func (b *Body) Offset(src uint64) (int, bool) {
	if b.Map != nil {
		o, ok := b.Map[src]
		return o, ok
	}
	i, ok := slices.BinarySearchFunc(b.Offsets, src, func(x SourceOffset, src uint64) int { return cmp.Compare(x.Src, src) })
	if !ok {
		return 0, false
	}
	return b.Offsets[i].Off, true
}

// Mapped returns the number of source addresses with a body offset.
func (b *Body) Mapped() int {
	if b.Map != nil {
		return len(b.Map)
	}
	return len(b.Offsets)
}

func (b *Body) words() *Words {
	if b.Words == nil {
		return GFX9
	}
	return b.Words
}

// Placed is the result of laying out one body.
type Placed struct {
	// Base is the body's first byte in the host .text (after any stub).
	Base uint64
	// Entry is the host descriptor-visible entry.
	Entry uint64
	// Stub is true when an entry stub was emitted.
	Stub bool
	// Long counts long and inverted windows; Calls direct calls.
	Long int
	// IslandHops counts the island stubs on the routes of island
	// branches (a branch whose target is in range counts none).
	IslandHops int
}

// Layout places bodies into a text section starting at textAddr whose
// source size was srcSize. It returns the text and each body's placement.
func Layout(textAddr uint64, srcSize int, bodies []*Body) ([]byte, []Placed, error) {
	var text []byte
	cursor := textAddr
	placed := make([]Placed, len(bodies))
	grow := func(to uint64) {
		for cursor < to {
			text = binary.LittleEndian.AppendUint32(text, NopWord)
			cursor += 4
		}
	}
	for i, b := range bodies {
		eoff, ok := b.Offset(b.Entry)
		if !ok {
			return nil, nil, fmt.Errorf("place: %s: entry %#x has no body offset", b.Name, b.Entry)
		}
		if b.Prologue {
			eoff = 0
		}
		needStub := false
		poff := -1
		if b.Preload != 0 {
			p, ok := b.Offset(b.Preload)
			if !ok {
				return nil, nil, fmt.Errorf("place: %s: preload entry %#x has no body offset", b.Name, b.Preload)
			}
			poff = p
			needStub = poff-eoff != 256
		}
		res := b.Entry % 256
		if needStub {
			// [entry: s_branch E][nops][entry+256: s_branch P] then the body.
			start := alignTo(cursor, res)
			grow(start)
			stub := make([]byte, 260)
			for j := 0; j < 260; j += 4 {
				put(stub[j:], NopWord)
			}
			text = append(text, stub...)
			stubAt := len(text) - 260
			cursor += 260
			base := cursor
			grow(base) // no-op, base is 4-aligned
			for _, s := range []struct {
				at, to int
			}{{stubAt, eoff}, {stubAt + 256, poff}} {
				from := textAddr + uint64(s.at)
				simm, ok := simm16(from, base+uint64(s.to))
				if !ok {
					return nil, nil, fmt.Errorf("place: %s: entry stub branch out of range", b.Name)
				}
				put(text[s.at:], b.words().SOPP(OpBranch, simm))
			}
			placed[i] = Placed{Base: base, Entry: start, Stub: true}
		} else {
			want := int64(b.Entry) - int64(eoff)
			var base uint64
			if want >= int64(cursor) && want%4 == 0 {
				base = uint64(want)
			} else {
				base = alignTo(cursor+uint64(eoff), res) - uint64(eoff)
			}
			grow(base)
			placed[i] = Placed{Base: base, Entry: base + uint64(eoff)}
		}
		text = append(text, b.Code...)
		cursor += uint64(len(b.Code))
	}
	for len(text) < srcSize {
		text = binary.LittleEndian.AppendUint32(text, NopWord)
	}
	for i, b := range bodies {
		n, err := resolve(text, textAddr, b, &placed[i])
		if err != nil {
			return nil, nil, err
		}
		placed[i].Long = n
		if err := writeIslands(text, textAddr, b, &placed[i]); err != nil {
			return nil, nil, err
		}
	}
	return text, placed, nil
}

// alignTo returns the smallest address >= a that is congruent to res
// modulo 256.
func alignTo(a, res uint64) uint64 {
	r := a % 256
	if r <= res {
		return a - r + res
	}
	return a - r + 256 + res
}

// simm16 computes the SOPP offset from a branch at from to target.
func simm16(from, to uint64) (int16, bool) {
	d := int64(to) - int64(from) - 4
	if d%4 != 0 {
		return 0, false
	}
	d /= 4
	if d < -32768 || d > 32767 {
		return 0, false
	}
	return int16(d), true
}

// OutOfRange is returned when short windows cannot reach their targets;
// the caller re-emits the body with long windows for every Srcs address.
type OutOfRange struct {
	Body string
	Src  uint64   // the first one
	Srcs []uint64 // all of them, in body order
}

// Error implements error.
func (e *OutOfRange) Error() string {
	return fmt.Sprintf("place: %s: %d branches (first at source %#x) are out of SOPP range", e.Body, len(e.Srcs), e.Src)
}

func resolve(text []byte, textAddr uint64, b *Body, p *Placed) (int, error) {
	long := 0
	ws := b.words()
	var oor *OutOfRange
	fx := b.Fixups
	byOff := func(a, b Fixup) int { return cmp.Compare(a.Off, b.Off) }
	if !slices.IsSortedFunc(fx, byOff) {
		// A sorted copy (emission order is body order, except where a
		// translator patched a window in afterwards).
		fx = slices.Clone(fx)
		slices.SortStableFunc(fx, byOff)
	}
	for _, f := range fx {
		at := int(p.Base-textAddr) + f.Off
		win := text[at : at+f.Size]
		from := p.Base + uint64(f.Off)
		var to uint64
		if f.Kind != PCRel {
			if f.Local {
				to = p.Base + f.Target
			} else {
				o, ok := b.Offset(f.Target)
				if !ok {
					return 0, fmt.Errorf("place: %s: fixup at source %#x targets %#x, which is not in the scope", b.Name, f.Src, f.Target)
				}
				to = p.Base + uint64(o)
			}
		}
		for j := 0; j+4 <= len(win); j += 4 {
			put(win[j:], NopWord)
		}
		switch f.Kind {
		case Branch:
			if f.Island {
				if f.Long || f.Size != 4 {
					return 0, fmt.Errorf("place: %s: island branch at source %#x has a %d-byte window, want 4", b.Name, f.Src, f.Size)
				}
				hop, n, err := islandHop(b, p, from, to, f.Target)
				if err != nil {
					return 0, fmt.Errorf("place: %s: branch at source %#x: %w", b.Name, f.Src, err)
				}
				simm, _ := simm16(from, hop)
				put(win, ws.SOPP(f.Op, simm))
				p.IslandHops += n
				continue
			}
			if !f.Long {
				simm, ok := simm16(from, to)
				if !ok {
					if oor == nil {
						oor = &OutOfRange{Body: b.Name, Src: f.Src}
					}
					oor.Srcs = append(oor.Srcs, f.Src)
					continue
				}
				put(win, ws.SOPP(f.Op, simm))
				continue
			}
			long++
			w := win
			if f.Op != OpBranch {
				inv, ok := Invert(f.Op)
				if !ok {
					return 0, fmt.Errorf("place: %s: conditional branch op %#x at source %#x cannot be inverted for a long window", b.Name, f.Op, f.Src)
				}
				skip := int16(6) // the 24-byte long jump
				if f.SaveSCC {
					skip = 8
				}
				put(w, ws.SOPP(inv, skip))
				w = w[4:]
				from += 4
			}
			if len(w) < LongSize(OpBranch, f.SaveSCC) {
				return 0, fmt.Errorf("place: %s: long window at source %#x is %d bytes, need %d", b.Name, f.Src, f.Size, LongSize(f.Op, f.SaveSCC))
			}
			if f.SaveSCC {
				put(w, ws.Cselect(f.SCCReg))
				w = w[4:]
				from += 4
			}
			delta := int64(to) - int64(from+4)
			lo := ws.AddLit(f.Pair, false, uint32(uint64(delta)))
			hi := ws.AddLit(f.Pair+1, true, uint32(uint64(delta)>>32))
			put(w, ws.Getpc(f.Pair), lo[0], lo[1], hi[0], hi[1])
			w = w[20:]
			if f.SaveSCC {
				put(w, ws.CmpLg(f.SCCReg))
				w = w[4:]
			}
			put(w, ws.Setpc(f.Pair))
		case Call:
			if f.Island {
				return 0, fmt.Errorf("place: %s: call at source %#x asks for branch islands: a direct call needs an encodable direct form or a reserved long window", b.Name, f.Src)
			}
			if !f.Long {
				simm, ok := simm16(from, to)
				if !ok {
					if oor == nil {
						oor = &OutOfRange{Body: b.Name, Src: f.Src}
					}
					oor.Srcs = append(oor.Srcs, f.Src)
					continue
				}
				put(win, ws.Call(f.Pair, simm))
				continue
			}
			// Long call: [s_cselect] s_getpc_b64 via; s_add_u32; s_addc_u32;
			// [s_cmp_lg_u32] s_swappc_b64 ret, via.
			long++
			if len(win) < LongSize(OpBranch, f.SaveSCC) {
				return 0, fmt.Errorf("place: %s: long call window at source %#x is %d bytes", b.Name, f.Src, f.Size)
			}
			w := win
			if f.SaveSCC {
				put(w, ws.Cselect(f.SCCReg))
				w = w[4:]
				from += 4
			}
			delta := int64(to) - int64(from+4)
			lo := ws.AddLit(f.Via, false, uint32(uint64(delta)))
			hi := ws.AddLit(f.Via+1, true, uint32(uint64(delta)>>32))
			put(w, ws.Getpc(f.Via), lo[0], lo[1], hi[0], hi[1])
			w = w[20:]
			if f.SaveSCC {
				put(w, ws.CmpLg(f.SCCReg))
				w = w[4:]
			}
			put(w, ws.Swappc(f.Pair, f.Via))
		case PCRel:
			hostPC := from + 4
			target := f.Target
			if !f.Data {
				o, ok := b.Offset(f.Target)
				if !ok {
					return 0, fmt.Errorf("place: %s: s_getpc_b64 at source %#x computes code address %#x outside the scope", b.Name, f.Src, f.Target)
				}
				target = p.Base + uint64(o)
			}
			d := target - hostPC
			put(win, ws.Getpc(f.Pair))
			put(text[int(p.Base-textAddr)+f.LoLit:], uint32(d))
			put(text[int(p.Base-textAddr)+f.HiLit:], uint32(d>>32))
		}
	}
	if oor != nil {
		return 0, oor
	}
	return long, nil
}
