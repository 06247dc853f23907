package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9/internal/enc"
)

// mcSample is one (text, bytes) pair from the LLVM MC test data.
type mcSample struct {
	text  string
	bytes []byte
}

// readMCSamples returns every "GFX950: text ; encoding: [..]" line of the
// files in dir (disassembler .txt and assembler .s tests).
func readMCSamples(dir string) ([]mcSample, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []mcSample
	for _, f := range files {
		if !strings.HasSuffix(f, ".txt") && !strings.HasSuffix(f, ".s") {
			continue
		}
		fh, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			s, ok := ParseMCLine(sc.Text())
			if ok {
				out = append(out, s)
			}
		}
		fh.Close()
	}
	return out, nil
}

// ParseMCLine extracts text and bytes from a "GFX950: text ; encoding: [..]"
// check line.
func ParseMCLine(line string) (mcSample, bool) {
	i := strings.Index(line, "GFX950:")
	if i < 0 {
		return mcSample{}, false
	}
	rest := line[i+len("GFX950:"):]
	j := strings.Index(rest, "; encoding: [")
	if j < 0 {
		j = strings.Index(rest, "encoding: [")
		if j < 0 {
			return mcSample{}, false
		}
		rest = rest[:j] + "; " + rest[j:]
	}
	text := strings.TrimSpace(rest[:j])
	encs := rest[j+len("; encoding: ["):]
	encs = strings.TrimSuffix(strings.TrimSpace(encs), "]")
	var b []byte
	for _, p := range strings.Split(encs, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(p), 0, 8)
		if err != nil {
			return mcSample{}, false
		}
		b = append(b, byte(v))
	}
	if text == "" || len(b)%4 != 0 || len(b) == 0 {
		return mcSample{}, false
	}
	return mcSample{text: text, bytes: b}, true
}

// classifyWords returns the encoding, opcode and aux key of words.
func classifyWords(words []uint32) (enc.Kind, int, int) {
	k, _ := enc.Classify(words[0])
	if r, n := enc.Refine(k, words[0]); n != 0 {
		k = r
	}
	if k == enc.VOP3P && len(words) == 4 {
		k = enc.VOP3PX2
		return k, int(words[2]>>16) & 0x7f, 0
	}
	return k, enc.Opcode(k, words[0]), enc.Aux(k, words[0])
}

// addGFX950 adds entries for opcodes that only the gfx950 MC data has.
func addGFX950(dir string, entries map[string]*entry, order *[]string, keyOf func(enc.Kind, int, int) string) (int, error) {
	samples, err := readMCSamples(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, s := range samples {
		words := make([]uint32, len(s.bytes)/4)
		for i := range words {
			words[i] = binary.LittleEndian.Uint32(s.bytes[4*i:])
		}
		k, op, aux := classifyWords(words)
		if k == enc.Invalid {
			continue
		}
		if k == enc.VOP3P && (strings.HasPrefix(s.text, "v_mfma_") || strings.HasPrefix(s.text, "v_smfmac_")) && !strings.HasPrefix(s.text, "v_mfma_ld_scale") {
			k = enc.MAI
		}
		// Trailing literal dwords are not part of the base encoding.
		key := keyOf(k, op, aux)
		if e := entries[key]; e != nil {
			continue
		}
		e := parseEntry(k, op, aux, words, s.text)
		if e == nil {
			continue
		}
		e.targets = "isa.GFX950"
		for _, m := range strings.Fields(e.mods) {
			if strings.HasPrefix(m, "op_sel:[") {
				e.opselN = strings.Count(m, ",") + 1
			}
		}
		entries[key] = e
		*order = append(*order, key)
		n++
		// The MC data covers a few opcodes per form; derive the sibling
		// aux keys that print the same (FLAT sc0, MUBUF sc0).
		if k == enc.FLAT || k == enc.MUBUF {
			for a := 0; a < 8; a++ {
				k2 := keyOf(k, op, a)
				if entries[k2] == nil && sameShape(k, aux, a) {
					c := *e
					c.aux = a
					entries[k2] = &c
					*order = append(*order, k2)
				}
			}
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("no gfx950 samples in %s", dir)
	}
	// Learn per-opcode modifiers and constant spellings from all samples.
	for _, s := range samples {
		words := make([]uint32, len(s.bytes)/4)
		for i := range words {
			words[i] = binary.LittleEndian.Uint32(s.bytes[4*i:])
		}
		k, op, aux := classifyWords(words)
		if k == enc.VOP3P && (strings.HasPrefix(s.text, "v_mfma_") || strings.HasPrefix(s.text, "v_smfmac_")) && !strings.HasPrefix(s.text, "v_mfma_ld_scale") {
			k = enc.MAI
		}
		e := entries[keyOf(k, op, aux)]
		if e == nil || e.targets != "isa.GFX950" {
			continue
		}
		learn(e, k, words, s.text)
	}
	return n, nil
}

// learn adds what one MC sample shows about an opcode to its entry.
func learn(e *entry, k enc.Kind, words []uint32, text string) {
	mnem, rest, _ := strings.Cut(text, " ")
	if mnem != e.mnem {
		return
	}
	toks, mods := splitOperands(mnem, rest)
	// A template with fewer implicit operands is the better one.
	if cand := parseEntry(k, e.op, e.aux, words, text); cand != nil && len(cand.ops) == len(e.ops) && implicitCount(cand) < implicitCount(e) {
		for i := range cand.ops {
			cand.ops[i].typ = e.ops[i].typ
		}
		e.ops = cand.ops
	}
	for _, m := range strings.Fields(mods) {
		switch {
		case strings.HasPrefix(m, "op_sel:["):
			if n := strings.Count(m, ",") + 1; n > e.opselN {
				e.opselN = n
			}
		case m == "clamp":
			e.flags = append(e.flags, "clamp")
		case strings.HasPrefix(m, "mul:") || strings.HasPrefix(m, "div:"):
			e.flags = append(e.flags, "omod")
		case strings.HasPrefix(m, "bound_ctrl:") || strings.HasPrefix(m, "fi:"):
			e.flags = append(e.flags, "vop3dpp")
		case strings.HasPrefix(m, "bitop3:"):
			e.flags = append(e.flags, "bitop3")
		case strings.HasPrefix(m, "neg_lo:"):
			e.flags = append(e.flags, "neg_lo")
		case strings.HasPrefix(m, "neg_hi:"):
			e.flags = append(e.flags, "neg_hi")
		case strings.HasPrefix(m, "op_sel_hi:"):
			e.flags = append(e.flags, "opselhi_seen")
		}
	}
	for i, ts := range toks {
		if i >= len(e.ops) {
			break
		}
		t := parseToken(ts)
		f := e.ops[i].field
		idx := -1
		switch f {
		case enc.FSrc0, enc.FSrc1, enc.FSrc2:
			idx = int(f - enc.FSrc0)
		case enc.FVSrc1:
			idx = 1
		}
		if idx >= 0 {
			if t.neg {
				e.flags = append(e.flags, fmt.Sprintf("neg%d", idx))
			}
			if t.abs {
				e.flags = append(e.flags, fmt.Sprintf("abs%d", idx))
			}
		}
		if t.width > e.ops[i].width && (t.class == 'v' || t.class == 'a' || t.class == 's') && e.ops[i].field != enc.FImplicit {
			e.ops[i].width = t.width
		}
		if b, ok := enc.Lookup(k, f); ok && (b.Code == enc.CodeSrc9 || b.Code == enc.CodeSrc8) && b.Get(words) >= 240 && b.Get(words) <= 248 {
			s := strings.Trim(strings.TrimPrefix(ts, "-"), "|")
			switch {
			case strings.HasPrefix(s, "0x"):
				e.ops[i].typ = 'h'
			case len(s) > 12:
				e.ops[i].typ = 'd'
			default:
				if e.ops[i].typ == 0 {
					e.ops[i].typ = 'f'
				}
			}
		}
	}
	if k == enc.MAI && (strings.HasPrefix(mnem, "v_mfma") || strings.HasPrefix(mnem, "v_smfmac")) {
		e.flags = append(e.flags, "cbsz", "abid", "blgp")
	}
}

func implicitCount(e *entry) int {
	n := 0
	for _, o := range e.ops {
		if o.field == enc.FImplicit {
			n++
		}
	}
	return n
}

func sameShape(k enc.Kind, a, b int) bool {
	if k == enc.FLAT {
		return a&3 == b&3 && b < 8
	}
	return a&2 == b&2 && b < 4
}
