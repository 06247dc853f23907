package main

import (
	"fmt"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9/internal/enc"
	"github.com/rocjitsu/rocjitsu/dbt/isa/internal/mctext"
)

// modProbe is a variant of an entry's base probe that sets one modifier or
// puts a constant into one source.
type modProbe struct {
	e     *entry
	what  string
	idx   int // operand index for constant probes
	words []uint32
}

func cloneWords(w []uint32) []uint32 { return append([]uint32(nil), w...) }

// probeMods asks llvm-mc which modifiers and constant spellings each entry
// has, and records them as flags and operand types.
func probeMods(mc string, entries map[string]*entry) error {
	var mps []modProbe
	for _, e := range entries {
		w := e.words
		mod := func(what string, f func(w []uint32)) {
			c := cloneWords(w)
			f(c)
			mps = append(mps, modProbe{e: e, what: what, words: c})
		}
		switch e.kind {
		case enc.VOP3:
			for _, m := range []uint32{7, 3, 1, 2, 4} {
				mod("neg", func(w []uint32) { w[1] |= m << 29 })
				mod("abs", func(w []uint32) { w[0] |= m << 8 })
			}
			mod("clamp", func(w []uint32) { w[0] |= 1 << 15 })
			mod("omod", func(w []uint32) { w[1] |= 1 << 27 })
			mod("opsel", func(w []uint32) { w[0] |= 0xf << 11 })
			mod("opsel", func(w []uint32) { w[0] |= 0xb << 11 })
			mod("opsel", func(w []uint32) { w[0] |= 0x9 << 11 })
			mod("opsel", func(w []uint32) { w[0] |= 0x8 << 11 })
		case enc.VOP3P:
			for _, m := range []uint32{7, 3, 1} {
				mod("neg_lo", func(w []uint32) { w[1] |= m << 29 })
				mod("neg_hi", func(w []uint32) { w[0] |= m << 8 })
			}
			mod("clamp", func(w []uint32) { w[0] |= 1 << 15 })
			mod("opsel", func(w []uint32) { w[0] |= 7 << 11 })
		case enc.MAI:
			mod("cbsz", func(w []uint32) { w[0] |= 1 << 8 })
			mod("abid", func(w []uint32) { w[0] |= 1 << 11 })
			mod("blgp", func(w []uint32) { w[1] |= 1 << 29 })
			mod("neg", func(w []uint32) { w[1] |= 7 << 29 })
		case enc.SDWA1, enc.SDWA2, enc.SDWAC:
			for _, sh := range []uint32{0, 8} {
				mod("sneg", func(w []uint32) { w[1] |= 1 << (20 + sh) })
				mod("sabs", func(w []uint32) { w[1] |= 1 << (21 + sh) })
				mod("ssext", func(w []uint32) { w[1] |= 1 << (19 + sh) })
			}
			if e.kind != enc.SDWAC {
				mod("clamp", func(w []uint32) { w[1] |= 1 << 13 })
				mod("omod", func(w []uint32) { w[1] |= 1 << 14 })
			}
		case enc.DPP1, enc.DPP2, enc.DPPC:
			for _, sh := range []uint32{0, 2} {
				mod("dneg", func(w []uint32) { w[1] |= 1 << (20 + sh) })
				mod("dabs", func(w []uint32) { w[1] |= 1 << (21 + sh) })
			}
		}
		// Operand kinds each source accepts.
		for i, o := range e.ops {
			b, ok := enc.Lookup(e.kind, o.field)
			if !ok || (b.Code != enc.CodeSrc9 && b.Code != enc.CodeSrc8) || o.role != "isa.Use" || (o.class == 'i' && o.text != "") {
				continue
			}
			if e.kind >= enc.SDWA1 && e.kind <= enc.DPPC || e.kind == enc.MAI || e.kind == enc.VOP3PX2 {
				continue
			}
			kinds := []struct {
				what string
				v    uint32
			}{{"acc:s", 20}, {"acc:i", 133}}
			if b.Code == enc.CodeSrc9 {
				kinds = append(kinds, struct {
					what string
					v    uint32
				}{"acc:v", 256 + 20})
			}
			for _, kv := range kinds {
				c := cloneWords(w)
				b.Set(c, kv.v)
				mps = append(mps, modProbe{e: e, what: kv.what, idx: i, words: c})
			}
			if len(w) == 1 {
				c := cloneWords(w)
				b.Set(c, 255)
				c = append(c, 0x11223344)
				mps = append(mps, modProbe{e: e, what: "acc:l", idx: i, words: c})
			}
			e.ops[i].acc = "-"
		}
		// Constant spellings per source operand.
		for i, o := range e.ops {
			b, ok := enc.Lookup(e.kind, o.field)
			if !ok || (b.Code != enc.CodeSrc9 && b.Code != enc.CodeSrc8) {
				continue
			}
			if e.kind >= enc.SDWA1 && e.kind <= enc.DPPC || e.kind == enc.MAI {
				// llvm-mc-19 crashes on MAI constants; MFMA C constants
				// are integers and 32-bit floats.
				if e.kind == enc.MAI {
					e.ops[i].typ = 'f'
				}
				continue
			}
			c := cloneWords(w)
			b.Set(c, 248)
			mps = append(mps, modProbe{e: e, what: "const", idx: i, words: c})
			if o.width == 1 && len(w) == 1 {
				c := cloneWords(w)
				b.Set(c, 255)
				c = append(c, 0x12345678)
				mps = append(mps, modProbe{e: e, what: "lit16", idx: i, words: c})
			}
			if o.width == 2 && len(w) == 1 {
				// A literal in a 64-bit source: the high half of a double,
				// or a zero-extended integer?
				c := cloneWords(w)
				b.Set(c, 255)
				c = append(c, 0x3ff00000)
				mps = append(mps, modProbe{e: e, what: "lit64", idx: i, words: c})
			}
		}
	}
	ps := make([]probe, len(mps))
	for i, m := range mps {
		ps[i] = probe{words: m.words}
	}
	res, err := disassemble(mc, ps)
	if err != nil {
		return err
	}
	for _, m := range mps {
		if m.what == "lit64" {
			// llvm-mc shows its own re-encoding: a literal that is the
			// high half of 1.0 comes back as the inline constant 1.0.
			b, _ := enc.Lookup(m.e.kind, m.e.ops[m.idx].field)
			c := cloneWords(m.words[:1])
			b.Set(c, 242)
			if t, ok := res[mctext.WordsKey(c)]; ok && strings.Contains(t, "1.0") {
				m.e.ops[m.idx].lit = 'F'
			}
			continue
		}
		text, ok := res[mctext.WordsKey(m.words)]
		if !ok {
			continue
		}
		e := m.e
		mnem, rest, _ := strings.Cut(text, " ")
		if mnem != e.mnem {
			continue
		}
		toks, mods := splitOperands(mnem, rest)
		if strings.HasPrefix(m.what, "acc:") {
			if !strings.Contains(text, "/*") && !strings.Contains(e.ops[m.idx].acc, m.what[4:]) {
				e.ops[m.idx].acc += m.what[4:]
			}
			continue
		}
		if m.what == "lit16" {
			if m.idx < len(toks) && toks[m.idx] == "0x5678" {
				e.ops[m.idx].lit = 'H'
			}
			continue
		}
		if m.what == "const" {
			if m.idx < len(toks) {
				switch toks[m.idx] {
				case "0.15915494":
					e.ops[m.idx].typ = 'f'
				case "0x3118":
					e.ops[m.idx].typ = 'h'
				case "0.15915494309189532":
					e.ops[m.idx].typ = 'd'
				default:
					e.ops[m.idx].typ = 'x'
					fmt.Printf("const spelling %s: %q\n", e.mnem, toks[m.idx])
				}
			}
			continue
		}
		switch m.what {
		case "neg", "abs":
			for i, ts := range toks {
				if i >= len(e.ops) {
					break
				}
				t := parseToken(ts)
				if (m.what == "neg" && t.neg) || (m.what == "abs" && t.abs) {
					if f := e.ops[i].field; f == enc.FSrc0 || f == enc.FSrc1 || f == enc.FSrc2 {
						e.flags = append(e.flags, fmt.Sprintf("%s%d", m.what, f-enc.FSrc0))
					}
				}
				if m.what == "neg" && strings.HasPrefix(ts, "sext(") {
					if f := e.ops[i].field; f == enc.FSrc0 || f == enc.FSrc1 || f == enc.FSrc2 {
						e.flags = append(e.flags, fmt.Sprintf("sext%d", f-enc.FSrc0))
					}
				}
			}
			if m.what == "neg" && strings.Contains(mods, "neg:[") {
				e.flags = append(e.flags, "maineg")
			}
		case "sneg", "sabs", "ssext", "dneg", "dabs":
			for i, ts := range toks {
				if i >= len(e.ops) {
					break
				}
				t := parseToken(ts)
				hit := (m.what[1:] == "neg" && t.neg) || (m.what[1:] == "abs" && t.abs) || (m.what == "ssext" && strings.HasPrefix(ts, "sext("))
				idx := srcIndex(e.ops[i].field)
				if m.what == "dneg" && strings.HasPrefix(ts, "sext(") && idx >= 0 {
					e.flags = append(e.flags, fmt.Sprintf("sext%d", idx))
				}
				if hit && idx >= 0 {
					e.flags = append(e.flags, fmt.Sprintf("%s%d", m.what[1:], idx))
				}
			}
		case "clamp":
			if strings.Contains(mods, "clamp") {
				e.flags = append(e.flags, "clamp")
			}
		case "omod":
			if strings.Contains(mods, "mul:2") {
				e.flags = append(e.flags, "omod")
			}
		case "opsel":
			if i := strings.Index(mods, "op_sel:["); i >= 0 {
				j := strings.IndexByte(mods[i:], ']')
				if n := strings.Count(mods[i:i+j], ",") + 1; n > e.opselN {
					e.opselN = n
				}
			}
		case "neg_lo", "neg_hi", "cbsz", "abid", "blgp":
			if strings.Contains(mods, m.what+":") {
				e.flags = append(e.flags, m.what)
			}
			// Mix ops print neg_lo as -x and neg_hi as |x|.
			for i, ts := range toks {
				if i >= len(e.ops) {
					break
				}
				t := parseToken(ts)
				idx := srcIndex(e.ops[i].field)
				if idx >= 0 && m.what == "neg_lo" && t.neg {
					e.flags = append(e.flags, fmt.Sprintf("neg%d", idx))
				}
				if idx >= 0 && m.what == "neg_hi" && t.abs {
					e.flags = append(e.flags, fmt.Sprintf("abs%d", idx))
				}
			}
		}
	}
	for _, e := range entries {
		if e.kind == enc.VOP3P && strings.Contains(e.mods, "op_sel_hi:") {
			e.flags = append(e.flags, "opselhi0")
		}
	}
	return nil
}

// srcIndex returns the source number of a field, or -1.
func srcIndex(f enc.FieldID) int {
	switch f {
	case enc.FSrc0:
		return 0
	case enc.FSrc1, enc.FVSrc1:
		return 1
	case enc.FSrc2:
		return 2
	}
	return -1
}
