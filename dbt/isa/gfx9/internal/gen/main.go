// Command gen derives the gfx9 opcode tables from the LLVM oracles and writes
// them as Go source. For gfx942 it enumerates every opcode value of every
// encoding, with operand variants, and reads llvm-mc-19's disassembly of each
// probe: the mnemonic, the operands' fields, widths and register files, and
// (with extra probes) which modifiers and constant forms each opcode prints.
// For gfx950-only opcodes, which LLVM 19 does not know, it reads the LLVM MC
// test data in ../shared/isa-oracle/gfx950. Run it with go generate in
// dbt/isa/gfx9.
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9/internal/enc"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// opnd is one operand of an entry's template.
type opnd struct {
	field enc.FieldID
	width int
	class byte   // 'v','s','a','t' register file as printed; 'n' implicit named; 'i' immediate; 'o' off
	text  string // implicit text, or immediate style
	role  string // "isa.Use", "isa.Def", "isa.UseDef"
	typ   byte   // 'f' 32-bit-like constants, 'h' 16-bit integer, 'd' 64-bit float, 0 unknown
	lit   byte   // 'F': a literal is the high half of a double
	acc   string // kinds llvm-mc accepts: s SGPR, v VGPR, i inline constant, l literal ("-" none probed ok)
}

// entry is one (encoding, opcode, aux) row.
type entry struct {
	kind    enc.Kind
	op      int
	aux     int
	mnem    string
	name    string
	ops     []opnd
	mods    string // modifiers printed by the base probe
	flags   []string
	words   []uint32
	targets string
	opselN  int
}

func main() {
	out := flag.String("o", "tables.go", "output file")
	flag.Parse()
	mc := mustMC()
	probes := makeProbes()
	res, err := disassemble(mc, probes)
	if err != nil {
		fail(err)
	}
	entries := map[string]*entry{}
	var order []string
	keyOf := func(k enc.Kind, op, aux int) string { return fmt.Sprintf("%d/%d/%d", k, op, aux) }
	e32 := map[[2]int]bool{}
	pick := func(ps []probe, res map[string]string) {
		for _, p := range ps {
			key := keyOf(p.kind, p.op, p.aux)
			if entries[key] != nil {
				continue
			}
			text, ok := res[p.key()]
			if !ok {
				continue
			}
			e := parseEntry(p.kind, p.op, p.aux, p.words, text)
			if e == nil {
				continue
			}
			if e.kind != p.kind {
				key = keyOf(e.kind, p.op, p.aux)
				if entries[key] != nil {
					continue
				}
			}
			e.targets = "isa.GFX9"
			if strings.Contains(e.mnem, "xf32") {
				e.targets = "isa.GFX942"
			}
			entries[key] = e
			order = append(order, key)
			if e.kind == enc.VOP1 || e.kind == enc.VOP2 || e.kind == enc.VOPC {
				e32[[2]int{int(p.kind), p.op}] = true
			}
		}
	}
	pick(probes, res)
	sp := sdwaDPPProbes(e32)
	sort.Slice(sp, func(i, j int) bool { return sp[i].key() < sp[j].key() })
	res2, err := disassemble(mc, sp)
	if err != nil {
		fail(err)
	}
	pick(sp, res2)
	// Modifier and constant probes.
	if err := probeMods(mc, entries); err != nil {
		fail(err)
	}
	// gfx950-only opcodes from the MC test data.
	dir, err := projectpath.Shared("isa-oracle", "gfx950")
	if err != nil {
		fail(err)
	}
	n950, err := addGFX950(dir, entries, &order, keyOf)
	if err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "gen: %d gfx942 probes, %d entries (%d from gfx950 MC data)\n", len(probes)+len(sp), len(entries), n950)
	sort.Slice(order, func(i, j int) bool {
		a, b := entries[order[i]], entries[order[j]]
		if a.kind != b.kind {
			return a.kind < b.kind
		}
		if a.op != b.op {
			return a.op < b.op
		}
		return a.aux < b.aux
	})
	hw, err := probeHwreg(mc)
	if err != nil {
		fail(err)
	}
	src := emit(entries, order, hw)
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}

var specialCode = map[string]int{
	"flat_scratch_lo": 102, "flat_scratch_hi": 103, "flat_scratch": 102, "xnack_mask_lo": 104, "xnack_mask_hi": 105,
	"xnack_mask": 104, "vcc_lo": 106, "vcc_hi": 107, "vcc": 106, "m0": 124, "exec_lo": 126, "exec_hi": 127, "exec": 126,
	"src_shared_base": 235, "src_shared_limit": 236, "src_private_base": 237, "src_private_limit": 238,
	"src_pops_exiting_wave_id": 239, "src_vccz": 251, "src_execz": 252, "src_scc": 253, "src_lds_direct": 254,
}

// canonical strips the encoding suffix of a mnemonic.
func canonical(m string) string {
	for _, s := range []string{"_e32", "_e64", "_sdwa", "_dpp"} {
		if strings.HasSuffix(m, s) {
			return strings.TrimSuffix(m, s)
		}
	}
	return m
}

// fieldMatches reports whether field f of words holds the register token t.
func fieldMatches(k enc.Kind, f enc.FieldID, words []uint32, t token) bool {
	b, ok := enc.Lookup(k, f)
	if !ok {
		return false
	}
	v := int(b.Get(words))
	align := func(n int) int {
		switch {
		case t.width >= 4:
			return n &^ 3
		case t.width == 2:
			return n &^ 1
		}
		return n
	}
	switch b.Code {
	case enc.CodeSrc9:
		switch t.class {
		case 'v', 'a':
			return v == 256+t.num
		case 's':
			return v < 102 && align(v) == t.num
		case 't':
			return v >= 108 && v < 124 && align(v-108) == t.num
		}
	case enc.CodeSrc8, enc.CodeSDst7:
		switch t.class {
		case 's':
			return v < 102 && align(v) == t.num
		case 't':
			return v >= 108 && v < 124 && align(v-108) == t.num
		}
	case enc.CodeVGPR8, enc.CodeImm:
		if t.class == 's' && f != enc.FVDst && f != enc.FSrc0 && f != enc.FVSrc1 && f != enc.FSMOff {
			return false
		}
		return (t.class == 'v' || t.class == 'a' || t.class == 's') && v == t.num
	case enc.CodeSBase6:
		return t.class == 's' && 2*v == t.num
	case enc.CodeSRsrc5:
		return t.class == 's' && 4*v == t.num
	}
	return false
}

// parseEntry derives a template from one decoded probe.
func parseEntry(k enc.Kind, op, aux int, words []uint32, text string) *entry {
	text = strings.TrimSpace(text)
	mnem, rest, _ := strings.Cut(text, " ")
	if k == enc.VOP3P && (strings.HasPrefix(mnem, "v_mfma") || strings.HasPrefix(mnem, "v_smfmac")) && !strings.HasPrefix(mnem, "v_mfma_ld_scale") {
		k = enc.MAI
	}
	toks, mods := splitOperands(mnem, rest)
	e := &entry{kind: k, op: op, aux: aux, mnem: mnem, name: canonical(mnem), mods: mods, words: words}
	mfma := strings.HasPrefix(mnem, "v_mfma") || strings.HasPrefix(mnem, "v_smfmac")
	used := map[enc.FieldID]bool{}
	sawSrc := false
	for _, ts := range toks {
		t := parseToken(ts)
		o := opnd{class: t.class, width: t.width}
		switch t.class {
		case 's', 'v', 'a', 't':
			for _, f := range enc.Fields(k) {
				if !used[f] && fieldMatches(k, f, words, t) {
					o.field = f
					break
				}
			}
			if o.field == enc.FNone {
				// A register not in a field (e.g. a fixed operand).
				o.field = enc.FImplicit
				o.text = t.text
			}
		case 'o':
			o.field = offField(k, words, used)
		case 'n':
			o.field = enc.FImplicit
			o.text = t.text
			if c, ok := specialCode[t.text]; ok {
				for _, f := range enc.Fields(k) {
					b, _ := enc.Lookup(k, f)
					if !used[f] && (b.Code == enc.CodeSrc9 || b.Code == enc.CodeSrc8 || b.Code == enc.CodeSDst7) && int(b.Get(words)) == c {
						o.field, o.text = f, ""
						break
					}
				}
			}
		default:
			if mnem == "s_set_gpr_idx_on" {
				o.field, o.text = enc.FSSrc1, "gpr_idx"
				break
			}
			o.field, o.text = immField(k, words, used, t.text)
		}
		if o.field != enc.FImplicit {
			used[o.field] = true
		}
		if mfma && o.class == 'a' {
			// MFMA register files follow the acc bits, not the opcode.
			o.class = 'v'
		}
		o.role = roleOf(e, o, sawSrc)
		if o.role == "isa.Use" {
			sawSrc = true
		}
		e.ops = append(e.ops, o)
	}
	return e
}

func offField(k enc.Kind, words []uint32, used map[enc.FieldID]bool) enc.FieldID {
	switch k {
	case enc.FLAT:
		if !used[enc.FAddr] && (words[0]>>14)&3 == 1 && (words[0]>>13)&1 == 0 {
			return enc.FAddr
		}
		return enc.FSAddr
	case enc.MUBUF, enc.MTBUF:
		return enc.FVAddr
	}
	return enc.FImplicit
}

// immField finds the field an immediate token came from.
func immField(k enc.Kind, words []uint32, used map[enc.FieldID]bool, text string) (enc.FieldID, string) {
	for _, f := range enc.Fields(k) {
		if used[f] {
			continue
		}
		b, _ := enc.Lookup(k, f)
		v := b.Get(words)
		if (b.Code == enc.CodeSrc9 || b.Code == enc.CodeSrc8) && (v >= 128 && v <= 208 || v >= 240 && v <= 248 || v == 255) {
			return f, ""
		}
	}
	for _, f := range []enc.FieldID{enc.FSImm16, enc.FSMOff} {
		if _, ok := enc.Lookup(k, f); ok && !used[f] {
			return f, immStyle(text)
		}
	}
	if len(words) > 1 && (k == enc.VOP2 || k == enc.SOPK || k == enc.VOP1 || k == enc.SOP1 || k == enc.SOP2 || k == enc.SOPC) {
		return enc.FLiteral, ""
	}
	return enc.FImplicit, text
}

func immStyle(t string) string {
	switch {
	case strings.HasPrefix(t, "hwreg("):
		return "hwreg"
	case strings.HasPrefix(t, "sendmsg("):
		return "sendmsg"
	case strings.HasPrefix(t, "gpr_idx("):
		return "gpr_idx"
	case strings.Contains(t, "cnt("):
		return "waitcnt"
	case strings.HasPrefix(t, "0x"):
		return "hex"
	}
	return "dec"
}

func has(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// roleOf decides whether an operand is read, written or both.
func roleOf(e *entry, o opnd, sawSrc bool) string {
	n := e.name
	switch o.field {
	case enc.FVDst, enc.FSDstV:
		if (e.kind == enc.DS || e.kind == enc.FLAT) && strings.Contains(n, "_d16") {
			return "isa.UseDef" // d16 loads keep the other half
		}
		if e.kind == enc.DS || e.kind == enc.FLAT {
			return "isa.Def"
		}
		if partialWrite.MatchString(n) || has(n, "v_swap_b32", "_swap_b32") {
			return "isa.UseDef"
		}
		if has(n, "v_mac_", "v_fmac_", "v_writelane", "v_dot2c_", "v_dot4c_", "v_dot8c_", "v_pk_fmac_") {
			return "isa.UseDef"
		}
		return "isa.Def"
	case enc.FSDst:
		switch {
		case strings.HasPrefix(n, "s_cmpk_"), n == "s_setreg_b32", strings.HasPrefix(n, "s_cbranch"), n == "s_setpc_b64":
			return "isa.Use"
		case n == "s_addk_i32", n == "s_mulk_i32", strings.HasPrefix(n, "s_cmovk"), strings.HasPrefix(n, "s_cmov_"), strings.HasPrefix(n, "s_bitset"):
			return "isa.UseDef"
		}
		return "isa.Def"
	case enc.FSData:
		if has(n, "store", "s_atomic", "s_buffer_atomic") {
			if has(n, "atomic") {
				return "isa.UseDef"
			}
			return "isa.Use"
		}
		return "isa.Def"
	case enc.FVData:
		if has(n, "store") {
			return "isa.Use"
		}
		if strings.Contains(n, "_d16") {
			return "isa.UseDef"
		}
		if has(n, "atomic") {
			if e.aux&1 != 0 {
				return "isa.UseDef"
			}
			return "isa.Use"
		}
		return "isa.Def"
	case enc.FImplicit:
		if o.class == 'n' && !sawSrc {
			return "isa.Def"
		}
	case enc.FSrc0:
		if has(n, "v_swap_b32", "_swap_b32") {
			return "isa.UseDef" // swaps write both operands
		}
	}
	return "isa.Use"
}

// partialWrite matches conversions that write part of the destination and
// keep the rest.
var partialWrite = regexp.MustCompile(`^v_cvt_(pk|sr)_(fp8|bf8)_f32$|^v_cvt_scalef32_(pk|sr)_(fp8|bf8|fp4)_|^v_cvt_scalef32_sr_pk_fp4_|^v_(fma|mad)_mix(lo|hi)_`)

// probeHwreg asks llvm-mc for the symbolic name of every hardware register
// id (s_getreg_b32 with a full-width field).
func probeHwreg(mc string) (map[int]string, error) {
	var ps []probe
	for id := 0; id < 64; id++ {
		ps = append(ps, probe{words: []uint32{0xB8880000 | uint32(id) | 31<<11}})
	}
	res, err := disassemble(mc, ps)
	if err != nil {
		return nil, err
	}
	out := map[int]string{}
	for id, p := range ps {
		t := res[p.key()]
		i := strings.Index(t, "hwreg(")
		if i < 0 {
			continue
		}
		name := strings.TrimSuffix(t[i+len("hwreg("):], ")")
		if strings.HasPrefix(name, "HW_REG_") {
			out[id] = name
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("llvm-mc printed no hwreg names")
	}
	return out, nil
}
