package dbt

import (
	"github.com/rocjitsu/rocjitsu/dbt/cfg"
	"github.com/rocjitsu/rocjitsu/dbt/legalize"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
)

// decisions caches, for one scope, the pair's Decide answer and the
// subroutine form (sharedAt) of each instruction, by its position in
// the scope (blocks in scope order, instructions in block order). The
// subroutine planning asks for the decision of every instruction of the
// scope and emission asks again for each one: both share one answer.
// Most instructions pass through unchanged; they share one entry.
type decisions struct {
	// scope, flat, agprBase and inlineLDS are what the answers were
	// computed for.
	scope     *cfg.Scope
	flat      bool
	agprBase  int
	inlineLDS bool
	// base maps a block's leader to the position of its first
	// instruction; last and lastBase cache the latest lookup.
	base     map[uint64]int
	last     *cfg.Block
	lastBase int
	// slot is, per position, slotUnknown, slotNoForm (no subroutine
	// form, decision not asked yet), slotIdentity or the index of its
	// entry plus slotEntry.
	slot    []int32
	entries []decided
}

// decided is the cached answer for one instruction.
type decided struct {
	d legalize.Decision
	// form is the subroutine form, known when formDone.
	form     *rules.Shared
	formDone bool
}

const (
	slotUnknown int32 = iota
	slotNoForm
	slotIdentity
	slotEntry
)

// identity is the decision shared by slotIdentity positions.
var identity = legalize.Decision{Action: report.Identity, Fidelity: report.Exact}

// isIdentity reports whether *d == identity, the cheap fields first (the
// generated comparison compares every string).
func isIdentity(d *legalize.Decision) bool {
	return d.Rule == nil && d.Bound == "" && d.Reason == "" && d.Action == report.Identity && d.Fidelity == report.Exact
}

// position returns the scope position of b.Insts[i], or -1 when b is
// not a block of the scope or the cache is off (resetting the cache when
// the scope or the facts the pair is told changed).
func (kt *kernelT) position(b *cfg.Block, i int) int {
	if kt.noDecisionCache {
		return -1
	}
	c := &kt.decided
	if c.scope != kt.scope || c.flat != kt.flat || c.agprBase != kt.agprBase() || c.inlineLDS != kt.inlineLDS() {
		// The buffers of the answers dropped are reused (the answers
		// are returned by value).
		entries, slot := c.entries, c.slot
		clear(entries)
		*c = decisions{scope: kt.scope, flat: kt.flat, agprBase: kt.agprBase(), inlineLDS: kt.inlineLDS(), base: make(map[uint64]int, len(kt.scope.Blocks))}
		n := 0
		for _, l := range kt.scope.Blocks {
			if blk := kt.g.Blocks[l]; blk != nil {
				c.base[l] = n
				n += len(blk.Insts)
			}
		}
		if entries == nil {
			entries = freeDecided.Take(16)
		}
		if cap(slot) < n {
			slot = freeSlots.Take(n)
		}
		c.entries, c.slot = entries[:0], slot[:n]
		clear(c.slot) // slotUnknown
	}
	if b != c.last {
		at, ok := c.base[b.Start]
		if !ok || kt.g.Blocks[b.Start] != b {
			return -1
		}
		c.last, c.lastBase = b, at
	}
	if i < 0 || i >= len(b.Insts) {
		return -1
	}
	return c.lastBase + i
}

// decide returns the pair's decision for b.Insts[i], computed once per
// scope.
func (kt *kernelT) decide(b *cfg.Block, i int) legalize.Decision {
	c := &kt.decided
	n := kt.position(b, i)
	if n >= 0 {
		switch s := c.slot[n]; {
		case s == slotIdentity:
			return identity
		case s >= slotEntry:
			return c.entries[s-slotEntry].d
		}
	}
	in := b.Insts[i]
	d := kt.pair.Decide(in, kt.raw(in), kt.guest, pair.Site{Kernel: kt.k, Block: b.Insts, Index: i, Flat: kt.flat, AGPRBase: kt.agprBase(), Graph: kt.g, Scope: kt.scope, Memo: kt.pairMemo(), InlineLDS: kt.inlineLDS(), Legalize: kt.legal})
	if n >= 0 {
		noForm := c.slot[n] == slotNoForm
		if isIdentity(&d) {
			c.slot[n] = slotIdentity
		} else {
			c.slot[n] = slotEntry + int32(len(c.entries))
			c.entries = appendDoubling(c.entries, decided{d: d, formDone: noForm})
		}
	}
	return d
}

// sharedFormAt is sharedAt for pairs without their own forms: the Shared
// of the rule Decide picks, asked only when the registry rule has a
// form, computed once per scope.
func (kt *kernelT) sharedFormAt(b *cfg.Block, i int) *rules.Shared {
	c := &kt.decided
	n := kt.position(b, i)
	if n >= 0 {
		switch s := c.slot[n]; {
		case s == slotNoForm || s == slotIdentity:
			// An identity decision has no rule, hence no form.
			return nil
		case s >= slotEntry && c.entries[s-slotEntry].formDone:
			return c.entries[s-slotEntry].form
		}
	}
	r := rules.ForInst(kt.guest, kt.host, b.Insts[i])
	if r == nil || r.Shared == nil {
		if n >= 0 {
			switch s := c.slot[n]; {
			case s == slotUnknown:
				c.slot[n] = slotNoForm
			case s >= slotEntry:
				c.entries[s-slotEntry].formDone = true
			}
		}
		return nil
	}
	var f *rules.Shared
	if d := kt.decide(b, i); d.Rule != nil && d.Action != report.Reject {
		f = d.Rule.Shared
		if f != nil && f.Inline && !kt.forceShared {
			f = nil // kept inline (Shared.Inline)
		}
	}
	if n >= 0 {
		if s := c.slot[n]; s >= slotEntry {
			c.entries[s-slotEntry].form, c.entries[s-slotEntry].formDone = f, true
		}
	}
	return f
}
