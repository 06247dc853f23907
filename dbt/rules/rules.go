// Package rules holds the translator's hand-written semantic rules: the
// EXPAND entries of the legalization table, one per guest operation that
// has no identical host form. Each rule states its fidelity (exact, or
// approximate with a bound) and emits host machine code for one guest
// instruction, asking the translation context for scratch registers.
//
// Rules read the guest instruction's fields from its raw encoding (the
// layouts are fixed by the GFX9 ISA) and write host words with the
// encoders in this package, which the tests check against llvm-mc-19.
package rules

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sort"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// Context is what a rule may ask of the translator while it emits one
// instruction.
type Context interface {
	// TempVGPRs returns n VGPRs that no instruction reads after the one
	// being translated and that it does not name itself, growing the
	// descriptor's VGPR allocation if needed. It fails when none can be
	// found.
	TempVGPRs(n int) ([]uint16, error)
	// TempVGPRRange returns the first of n consecutive scratch VGPRs
	// starting at a multiple of align (register tuples of memory
	// instructions must be even-aligned on gfx90a-class targets).
	TempVGPRRange(n, align int) (uint16, error)
	// TempSGPRPair returns an even SGPR pair that no instruction reads
	// after the one being translated and that it does not name.
	TempSGPRPair() (uint16, error)
}

// Rule is one hand-written expansion.
type Rule struct {
	// Name identifies the rule in reports.
	Name string
	// Ops are the guest mnemonics the rule handles.
	Ops []string
	// Match, when set, narrows the rule to some forms of its operations
	// (for example only the LDS form of a load).
	Match func(in *isa.Inst) bool
	// Fidelity is Exact or Approximate; Bound describes an approximation.
	Fidelity report.Fidelity
	Bound    string
	// Emit returns host code for in (raw are its guest bytes).
	Emit func(ctx Context, in *isa.Inst, raw []byte) ([]byte, error)
	// Shared, when set, is the rule's subroutine form: the translator may
	// call one per-kernel body from every use instead of inlining Emit's
	// code at each (Emit stays the fallback).
	Shared *Shared
}

// Pair is a directed guest -> host translation.
type Pair struct{ Guest, Host isa.Target }

var registry = map[Pair]map[string]*Rule{}

// pairRules is one pair's rules by guest mnemonic.
type pairRules struct {
	pair  Pair
	rules map[string]*Rule
}

// byPair holds registry's entries as a slice: ForInst runs for every guest
// instruction, and scanning the few pairs costs less than hashing a Pair
// key as the registry map does.
var byPair []pairRules

func register(p Pair, r *Rule) {
	m := registry[p]
	if m == nil {
		m = map[string]*Rule{}
		registry[p] = m
		byPair = append(byPair, pairRules{pair: p, rules: m})
	}
	for _, op := range r.Ops {
		if _, dup := m[op]; dup {
			panic("rules: two rules for " + op)
		}
		m[op] = r
	}
}

// For returns the rule for a guest mnemonic, or nil.
func For(guest, host isa.Target, name string) *Rule {
	return registry[Pair{guest, host}][name]
}

// ForInst returns the rule that applies to in, or nil.
func ForInst(guest, host isa.Target, in *isa.Inst) *Rule {
	var r *Rule
	for i := range byPair {
		if byPair[i].pair.Guest == guest && byPair[i].pair.Host == host {
			r = byPair[i].rules[in.Name()]
			break
		}
	}
	if r != nil && r.Match != nil && !r.Match(in) {
		return nil
	}
	return r
}

// All returns the rules of a pair, sorted by name.
func All(guest, host isa.Target) []*Rule {
	seen := map[*Rule]bool{}
	var out []*Rule
	for _, r := range registry[Pair{guest, host}] {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// words splits raw into little-endian dwords.
func words(raw []byte) []uint32 {
	w := make([]uint32, len(raw)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(raw[4*i:])
	}
	return w
}

// appendWords appends ws to b as little-endian dwords, growing b once
// (one allocation for a new sequence instead of one per doubling).
func appendWords(b []byte, ws ...uint32) []byte {
	b = slices.Grow(b, 4*len(ws))
	for _, w := range ws {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	return b
}

// VOP3 opcodes (GFX9 VOP3 opcode space) of the host operations rules use.
const (
	opMovB32 = 0x141
	opNotB32 = 0x16b
	opAndB32 = 0x113
	opOrB32  = 0x114
	opXorB32 = 0x115
	opBfiB32 = 0x1ca
)

// Source operand codes of GFX9 (9 bits).
const (
	srcZero = 128
	srcOnes = 193 // -1
	srcVGPR = 256
	srcLit  = 255
)

// vop3 encodes a VOP3a instruction without modifiers: vdst (a VGPR
// number) and up to three 9-bit source codes.
func vop3(op uint16, vdst uint16, src0, src1, src2 uint16) [2]uint32 {
	w0 := 0xd0000000 | uint32(op&0x3ff)<<16 | uint32(vdst&0xff)
	w1 := uint32(src0&0x1ff) | uint32(src1&0x1ff)<<9 | uint32(src2&0x1ff)<<18
	return [2]uint32{w0, w1}
}

// VOP2 opcodes (GFX9) and other host opcodes.
const (
	op2LshrrevB32 = 0x10
	op2AndB32     = 0x13
	op2OrB32      = 0x14
	op2AddU32     = 0x34
	op3BfeU32     = 0x1c8
	op3CndmaskB32 = 0x100
	op3CmpUF32    = 0x48
)

// vop2 encodes a VOP2 instruction; a literal follows when src0 is srcLit.
func vop2(op uint16, vdst uint16, src0 uint16, vsrc1 uint16, lit uint32) []uint32 {
	w := uint32(op&0x3f)<<25 | uint32(vdst&0xff)<<17 | uint32(vsrc1&0xff)<<9 | uint32(src0&0x1ff)
	if src0 == srcLit {
		return []uint32{w, lit}
	}
	return []uint32{w}
}

// Inline integer constant code for 0..64.
func inlineInt(v int) uint16 { return uint16(128 + v) }

// noMods reports an error when a VOP3 instruction (w0, w1) has clamp,
// op_sel, abs, neg or omod set.
func noMods(in *isa.Inst, w0, w1 uint32) error {
	if m := w0 >> 8 & 0xff; m != 0 {
		return fieldErr(in, "clamp/op_sel/abs", m)
	}
	if m := w1 >> 27; m != 0 {
		return fieldErr(in, "neg/omod", m)
	}
	return nil
}

// fieldErr reports an unsupported field value.
func fieldErr(in *isa.Inst, field string, v uint32) error {
	return fmt.Errorf("%s at %#x: unsupported %s %#x", in.Name(), in.PC, field, v)
}
