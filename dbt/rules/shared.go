package rules

import (
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// Shared is the subroutine form of a rule whose expansion is long: the
// translator emits one body per kernel and key after the kernel's code and,
// at each use, the rule's call-site code around an s_call_b64 into that
// body (which the translator ends with s_setpc_b64 through the return
// pair). The body works on fixed registers: VGPRs that are free at every
// use of the rule in the kernel, handed to Site and Body in the same
// ascending order so that both lay them out alike, and, when SGPRPair is
// set, an SGPR pair dead at every use. The body runs under the caller's
// EXEC, writes no other SGPR and no SCC, and has the same fidelity as the
// inline expansion.
type Shared struct {
	// Key names the body in calls (uses with equal keys share a body);
	// false keeps in inline.
	Key func(in *isa.Inst, raw []byte) (string, bool)
	// Site returns the call-site code for in given the fixed registers
	// (the rule takes registers in the order of SharedRegs.V).
	Site func(in *isa.Inst, raw []byte, regs SharedRegs) (SharedSite, error)
	// Body returns the body of in's key (without the return) for regs.
	Body func(in *isa.Inst, raw []byte, regs SharedRegs) ([]byte, error)
	// Names returns the registers the use (its call-site code) reads or
	// writes, VGPRs as v and AGPRs as 256+a; false when they cannot be
	// told (in then stays inline).
	Names func(in *isa.Inst, raw []byte) ([]uint16, bool)
	// Tail, when set, returns how many bytes at the end of the body of
	// in's key (for regs) are a tail that bodies may share: straight-line
	// code without branches or PC-relative operands, entered at its
	// first byte. The translator emits equal tails (same bytes, same
	// return pair, whichever rule made them) once and ends the other bodies with an s_branch to it
	// instead; 0 shares nothing.
	Tail func(in *isa.Inst, raw []byte, regs SharedRegs) int
	// Head, when set, returns how many bytes at the start of the body of
	// in's key (for regs) are a head that bodies of other keys may share:
	// straight-line code without branches or PC-relative operands whose
	// effect does not depend on running right before the rest of the
	// body (the rest may follow it after a return and a call). When
	// another key of the kernel has a head of the same bytes, the
	// translator emits each such head once as a subroutine of its own,
	// which the uses call, each followed by the rest of its body inline
	// (the rest must then be position-independent too); 0 shares
	// nothing.
	Head func(in *isa.Inst, raw []byte, regs SharedRegs) int
	// LDS says the body accesses LDS storage: virtual-LDS sidecars, which
	// lower the LDS accesses of each instruction's code, keep such uses
	// inline.
	LDS bool
	// SGPRPair says the body clobbers the SGPR pair of SharedRegs.
	SGPRPair bool
	// MemorySaves is the most fixed registers a use may save to private
	// memory (a store and a load each, per use) when no VGPRs are free
	// and AGPRs cannot take them; 0 keeps such uses inline (short
	// expansions, which the saves would outweigh).
	MemorySaves int
	// LeadWaits, when set, says SharedSite.Lead only waits for MFMA (XDL)
	// writes of the operands, this many wait states: the translator drops
	// it when the use's block has no MFMA that close before it other
	// than uses of the same rule (whose code ends with those waits).
	LeadWaits int
	// Inline keeps every use inline unless the translator is told to
	// share (tests): for a short body the call's moves, s_call_b64 and
	// return run more instructions than sharing saves in bytes is worth.
	Inline bool
}

// SharedRegs are the fixed registers of a kernel's uses of a Shared rule.
type SharedRegs struct {
	// V are VGPRs, in the order the rule should prefer them.
	V []uint16
	// SPair is an even SGPR pair (with Shared.SGPRPair).
	SPair uint16
	// A are AGPRs free at every use (allocated, ascending).
	A []uint16
}

// SharedSite is one use of a Shared body: Lead, Pre, the call, Post,
// Tail. A translator that saves live fixed registers around the use does
// so after Lead and before Tail.
type SharedSite struct {
	// Lead waits for earlier writes of the operands; Pre copies them into
	// the fixed registers, Post copies the results out; Tail waits for
	// the result writes before the code after the use reads them.
	Lead, Pre, Post, Tail []byte
	// Used are the fixed VGPRs the site and the body use (the
	// descriptor's VGPR count must cover them).
	Used []uint16
}

// regPool hands out registers from a free list, in list order (the
// translator lists the registers it prefers first).
type regPool struct {
	free []uint16
	used []uint16
	// in holds the free registers below 256 when inOK: run builds it and,
	// when free repeats no register, keeps it up to date.
	in   [4]uint64
	inOK bool
}

// newRegPool returns the pool of regs (copied, in order) with room for
// regPoolUsed registers handed out in the same allocation.
func newRegPool(regs []uint16) *regPool {
	buf := make([]uint16, len(regs), len(regs)+regPoolUsed)
	copy(buf, regs)
	return &regPool{free: buf[:len(regs):len(regs)], used: buf[len(regs):len(regs)]}
}

// regPoolUsed is the room newRegPool makes for the used registers (most
// layouts take fewer; more grow the list).
const regPoolUsed = 8

// run takes n consecutive free registers starting at a multiple of align,
// the first such start in list order.
func (p *regPool) run(n, align int) (uint16, error) {
	if !p.inOK {
		p.in = [4]uint64{}
		unique := true
		for _, r := range p.free {
			if r < 256 {
				unique = unique && p.in[r>>6]>>(r&63)&1 == 0
				p.in[r>>6] |= 1 << (r & 63)
			}
		}
		p.inOK = unique
	}
	in := &p.in
	for _, r := range p.free {
		if int(r)%align != 0 || int(r)+n > 256 {
			continue
		}
		ok := true
		for i := 1; i < n && ok; i++ {
			x := int(r) + i
			ok = in[x>>6]>>(x&63)&1 != 0
		}
		if !ok {
			continue
		}
		for i := 0; i < n; i++ {
			p.used = append(p.used, r+uint16(i))
		}
		// Drop the run from the list, keeping the order of the rest
		// (without repeats, the rest moves down at once after the run's
		// n registers were met).
		k, met := 0, 0
		for i := 0; i < len(p.free); i++ {
			x := p.free[i]
			if x >= r && x < r+uint16(n) {
				if met++; met == n && p.inOK {
					k += copy(p.free[k:], p.free[i+1:])
					break
				}
				continue
			}
			p.free[k] = x
			k++
		}
		clear(p.free[k:])
		p.free = p.free[:k]
		if p.inOK {
			for x := int(r); x < int(r)+n; x++ {
				in[x>>6] &^= 1 << (x & 63)
			}
		}
		return r, nil
	}
	return 0, fmt.Errorf("no %d consecutive fixed VGPRs aligned to %d among %d free at every use", n, align, len(p.free))
}

// one takes the first free register.
func (p *regPool) one() (uint16, error) {
	if len(p.free) == 0 {
		return 0, fmt.Errorf("fixed VGPRs exhausted")
	}
	r := p.free[0]
	p.free = p.free[1:]
	p.used = append(p.used, r)
	if p.inOK && r < 256 {
		p.in[r>>6] &^= 1 << (r & 63)
	}
	return r, nil
}

// ones takes n single registers.
func (p *regPool) ones(dst ...*uint16) error {
	for _, d := range dst {
		r, err := p.one()
		if err != nil {
			return err
		}
		*d = r
	}
	return nil
}

// AllLanes returns code run with every lane enabled: EXEC is kept in the
// SGPR pair execPair meanwhile (gfx9 s_mov_b64).
func AllLanes(code []byte, execPair uint16) []byte {
	const execLo = 126
	out := appendWords(nil, smMovB64(execPair, execLo), smMovB64(execLo, srcOnes))
	out = append(out, code...)
	return appendWords(out, smMovB64(execLo, execPair))
}

// AGPRSave returns gfx9 code that copies VGPRs regs into AGPRs a0.. (save)
// and back (restore), for fixed registers that are live at some use. Both
// run with every lane enabled (EXEC kept in the SGPR pair execPair
// meanwhile), so that lanes the caller's EXEC disables keep their values
// even where a body's MFMA writes all lanes; the save ends with s_nop 1 so
// that the copies read the VGPRs before a later VALU write of them.
func AGPRSave(regs []uint16, execPair uint16) (save, restore []byte) {
	const execLo = 126
	enter := []uint32{smMovB64(execPair, execLo), smMovB64(execLo, srcOnes)}
	sw, rw := append([]uint32(nil), enter...), append([]uint32(nil), enter...)
	for i, r := range regs {
		a := accWrite(uint16(i), r)
		sw = append(sw, a[0], a[1])
		a = accRead(r, uint16(i))
		rw = append(rw, a[0], a[1])
	}
	leave := smMovB64(execLo, execPair)
	sw = append(sw, leave, sNop(1))
	rw = append(rw, leave)
	return appendWords(nil, sw...), appendWords(nil, rw...)
}

// smMovB64 encodes s_mov_b64 sdst, ssrc (SOP1, 8-bit operand codes).
func smMovB64(sdst, ssrc uint16) uint32 {
	return 0xbe800100 | uint32(sdst&0x7f)<<16 | uint32(ssrc&0xff)
}
