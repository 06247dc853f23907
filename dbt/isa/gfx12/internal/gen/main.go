// Command gen derives the gfx12 opcode tables from llvm-mc-19. It
// enumerates every opcode value of every GFX12 encoding (with the encoding's
// variants: DPP16/DPP8 dwords, address forms, atomic return), disassembles
// the probes for gfx1200 and gfx1201 in wave32 and wave64, and reads the
// mnemonic, the operands' fields, widths and register files, the modifiers
// each opcode prints and how its constants print. Run it with go generate in
// dbt/isa/gfx12.
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12/internal/enc"
	"github.com/rocjitsu/rocjitsu/dbt/isa/internal/mctext"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
)

const fLit enc.FieldID = 255 // pseudo field: the literal dword

// gop is one operand of an entry's template.
type gop struct {
	field    enc.FieldID
	class    byte // 'c' source code, 'd' scalar dst code, 'v' VGPR, 'b' sbase, 'r' SGPR, 'i' imm, 'o' off, 'n' implicit, 'k' literal, 'S' SGPR in a VGPR field
	w32, w64 int
	n32, n64 string
	role     string
	style    enc.Style
	ifmt     string
	neg, abs bool
	sext     bool
	t16      bool
	allowed  int
}

// gent is one (kind, op, aux) row.
type gent struct {
	kind         enc.Kind
	op, aux      int
	mnem, mnemY  string
	nx           int
	ops          []gop
	mods         []string
	opselN       int
	opselHiN     int
	opselHiDef   int
	negLoN       int
	byteSel      [4]int
	opselMask    int
	opselIdx     [4]int // 1 + list position printed for each op_sel bit
	strict       [4]uint32
	negHiN       int
	clamp, omod  bool
	wave32, w64  bool
	t1200, t1201 bool
	words        []uint32
	lit          uint32
	hasLit       bool
}

func (e *gent) key() string { return fmt.Sprintf("%d/%d/%d", e.kind, e.op, e.aux) }

func main() {
	out := flag.String("o", "tables.go", "output file")
	flag.Parse()
	tool, err := llvmtool.Find(llvmtool.MC)
	if err != nil {
		fail(err)
	}
	m32 := mc{tool, "gfx1200", false}
	m64 := mc{tool, "gfx1200", true}
	m1201 := mc{tool, "gfx1201", false}

	entries := map[string]*gent{}
	var order []string
	pass := func(ps []probe) {
		keys := make([]string, len(ps))
		for i, p := range ps {
			keys[i] = mctext.WordsKey(p.words)
		}
		r32, err := m32.disassemble(keys)
		if err != nil {
			fail(err)
		}
		r64, err := m64.disassemble(keys)
		if err != nil {
			fail(err)
		}
		r1201, err := m1201.disassemble(keys)
		if err != nil {
			fail(err)
		}
		for _, p := range ps {
			k := mctext.WordsKey(p.words)
			t32, ok32 := r32[k]
			t64, ok64 := r64[k]
			if !ok32 && !ok64 {
				continue
			}
			ek := fmt.Sprintf("%d/%d/%d", p.kind, p.op, p.aux)
			if entries[ek] != nil {
				continue
			}
			nw := baseWords(p.kind)
			if isVALU(p.kind) && (p.aux == enc.AuxDPP16 || p.aux == enc.AuxDPP8) {
				nw++
			}
			var e *gent
			if ok32 {
				e = build(p, nw, t32)
			}
			var e64 *gent
			if ok64 {
				e64 = build(p, nw, t64)
			}
			if e == nil && e64 == nil {
				fmt.Fprintf(os.Stderr, "gen: cannot match %v op %d aux %d: %q / %q\n", p.kind, p.op, p.aux, t32, t64)
				continue
			}
			if e == nil {
				e = e64
				e.wave32 = false
				for i := range e.ops {
					e.ops[i].w32, e.ops[i].n32 = e.ops[i].w64, e.ops[i].n64
				}
			} else {
				e.wave32 = true
			}
			if e64 != nil && len(e64.ops) == len(e.ops) && e64.mnem == e.mnem {
				e.w64 = true
				for i := range e.ops {
					e.ops[i].w64, e.ops[i].n64 = e64.ops[i].w32, e64.ops[i].n32
				}
			}
			// Every probe with more fields set failed: the fields this
			// one leaves zero must be zero.
			for _, f := range p.zero {
				used := false
				for _, o := range e.ops {
					used = used || o.field == f
				}
				if !used {
					b := enc.Layout[f]
					e.strict[b.W] |= b.Mask()
				}
			}
			e.t1200 = true
			_, e.t1201 = r1201[k]
			entries[ek] = e
			order = append(order, ek)
		}
	}
	ss := specs()
	nprobes := 0
	for n := 6; n >= 0; n-- {
		var ps []probe
		for _, s := range ss {
			if len(s.fields) < n || entries[fmt.Sprintf("%d/%d/%d", s.kind, s.op, s.aux)] != nil {
				continue
			}
			ps = append(ps, s.probesAt(n)...)
		}
		nprobes += len(ps)
		pass(ps)
	}
	// DPP variants of the VALU opcodes that decode.
	var dpp []probe
	for _, k := range order {
		e := entries[k]
		switch e.kind {
		case enc.VOP1, enc.VOP2, enc.VOPC, enc.VOP3, enc.VOP3P:
			dpp = append(dpp, dppProbes(e)...)
		}
	}
	pass(dpp)
	fmt.Fprintf(os.Stderr, "gen: %d probes, %d entries\n", nprobes+len(dpp), len(entries))
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
	if err := probeMods(m32, m64, entries, order); err != nil {
		fail(err)
	}
	names, err := probeNames(m32)
	if err != nil {
		fail(err)
	}
	src := emit(entries, order, names)
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}

// Probe register numbers: distinct, and aligned for 4-dword tuples.
const (
	pVDst = 10
	pV0   = 20
	pV1   = 30
	pV2   = 40
	pV3   = 50
	pSDst = 8
	pS0   = 20
	pS1   = 32
	pS2   = 44
	pLit  = 0x11223344
)

// baseWords is the number of dwords of a kind without literal or DPP.
func baseWords(k enc.Kind) int {
	switch k {
	case enc.FLAT, enc.GLOBAL, enc.SCRATCH, enc.VBUFFER, enc.VIMAGE, enc.VSAMPLE:
		return 3
	case enc.SMEM, enc.VOP3, enc.VOP3P, enc.VOPD, enc.VINTERP, enc.DS, enc.EXP:
		return 2
	}
	return 1
}

func set(w []uint32, f enc.FieldID, v uint32) { enc.Layout[f].Set(w, v) }

// spec is how to probe one (kind, opcode, aux): fixed dwords and the
// operand fields with their probe values.
type spec struct {
	kind   enc.Kind
	op     int
	aux    int
	words  []uint32
	fields []fv
	lit    bool // also try with a literal dword
}

type fv struct {
	f enc.FieldID
	v uint32
}

// specs enumerates every opcode of every encoding.
func specs() []spec {
	var ss []spec
	add := func(k enc.Kind, op, aux int, w []uint32, lit bool, f ...fv) {
		ss = append(ss, spec{k, op, aux, w, f, lit})
	}
	for op := 0; op < 256; op++ {
		add(enc.SOP1, op, 0, []uint32{enc.SetOpcode(enc.SOP1, 0xBE800000, op)}, true, fv{enc.FSDst, pSDst}, fv{enc.FSSrc0, pS0})
	}
	for op := 0; op < 128; op++ {
		w := enc.SetOpcode(enc.SOP2, 0x80000000, op)
		if k, _ := enc.Classify(w); k == enc.SOP2 {
			add(enc.SOP2, op, 0, []uint32{w}, true, fv{enc.FSDst, pSDst}, fv{enc.FSSrc0, pS0}, fv{enc.FSSrc1, pS1})
		}
	}
	for op := 0; op < 32; op++ {
		w := enc.SetOpcode(enc.SOPK, 0xB0000000, op)
		if k, _ := enc.Classify(w); k == enc.SOPK {
			add(enc.SOPK, op, 0, []uint32{w}, true, fv{enc.FSDst, pSDst}, fv{enc.FSimm16, 0x1234})
		}
	}
	for op := 0; op < 128; op++ {
		add(enc.SOPC, op, 0, []uint32{enc.SetOpcode(enc.SOPC, 0xBF000000, op)}, true, fv{enc.FSSrc0, pS0}, fv{enc.FSSrc1, pS1})
		add(enc.SOPP, op, 0, []uint32{enc.SetOpcode(enc.SOPP, 0xBF800000, op)}, true, fv{enc.FSimm16, 0x1234})
	}
	for op := 0; op < 256; op++ {
		for aux := 0; aux < 2; aux++ {
			w := []uint32{enc.SetOpcode(enc.SMEM, 0xF4000000, op), 0}
			so := uint32(pS2)
			if aux == 1 {
				so = 124
			}
			set(w, enc.FSMSOff, so)
			add(enc.SMEM, op, aux, w, false, fv{enc.FSMData, pSDst}, fv{enc.FSMBase, pS0 / 2}, fv{enc.FSMOff, 0x34})
		}
	}
	for op := 0; op < 256; op++ {
		add(enc.VOP1, op, 0, []uint32{enc.SetOpcode(enc.VOP1, 0x7E000000, op)}, true, fv{enc.FVDst, pVDst}, fv{enc.FSrc0, 256 + pV0})
		add(enc.VOPC, op, 0, []uint32{enc.SetOpcode(enc.VOPC, 0x7C000000, op)}, true, fv{enc.FSrc0, 256 + pV0}, fv{enc.FVSrc1, pV1})
	}
	for op := 0; op < 0x3e; op++ {
		add(enc.VOP2, op, 0, []uint32{enc.SetOpcode(enc.VOP2, 0, op)}, true, fv{enc.FVDst, pVDst}, fv{enc.FSrc0, 256 + pV0}, fv{enc.FVSrc1, pV1})
	}
	for op := 0; op < 1024; op++ {
		add(enc.VOP3, op, 0, []uint32{enc.SetOpcode(enc.VOP3, 0xD4000000, op), 0}, false,
			fv{enc.F3VDst, pVDst}, fv{enc.F3SDst, pSDst}, fv{enc.F3Src0, 256 + pV0}, fv{enc.F3Src1, 256 + pV1}, fv{enc.F3Src2, 256 + pV2})
	}
	for op := 0; op < 128; op++ {
		w := []uint32{enc.SetOpcode(enc.VOP3P, 0xCC000000, op), 0}
		set(w, enc.FPOpSelH, 1)
		set(w, enc.FPOpSelL, 3)
		add(enc.VOP3P, op, 0, w, false, fv{enc.F3VDst, pVDst}, fv{enc.F3Src0, 256 + pV0}, fv{enc.F3Src1, 256 + pV1}, fv{enc.F3Src2, 256 + pV2})
		add(enc.VOP3P, op, 0, []uint32{enc.SetOpcode(enc.VOP3P, 0xCC000000, op), 0}, false, fv{enc.F3VDst, pVDst}, fv{enc.F3Src0, 256 + pV0}, fv{enc.F3Src1, 256 + pV1}, fv{enc.F3Src2, 256 + pV2})
		add(enc.VINTERP, op, 0, []uint32{enc.SetOpcode(enc.VINTERP, 0xCD000000, op), 0}, false, fv{enc.F3VDst, pVDst}, fv{enc.F3Src0, 256 + pV0}, fv{enc.F3Src1, 256 + pV1}, fv{enc.F3Src2, 256 + pV2})
	}
	for op := 0; op < 512; op++ {
		add(enc.VOPD, op, 0, []uint32{enc.SetOpcode(enc.VOPD, 0xC8000000, op), 0}, true,
			fv{enc.FDVDstX, pVDst}, fv{enc.FDSrc0X, 256 + pV0}, fv{enc.FDVSrc1X, pV1}, fv{enc.FDVDstY, 7}, fv{enc.FDSrc0Y, 256 + pV2}, fv{enc.FDVSrc1Y, pV3})
	}
	for op := 0; op < 256; op++ {
		add(enc.DS, op, 0, []uint32{enc.SetOpcode(enc.DS, 0xD8000000, op), 0}, false, fv{enc.FDSVDst, pVDst}, fv{enc.FDSAddr, pV0}, fv{enc.FDSData0, pV1}, fv{enc.FDSData1, pV2})
	}
	for _, k := range []enc.Kind{enc.FLAT, enc.GLOBAL, enc.SCRATCH} {
		seg := map[enc.Kind]uint32{enc.FLAT: 0, enc.SCRATCH: 1, enc.GLOBAL: 2}[k]
		for op := 0; op < 256; op++ {
			for aux := 0; aux < 8; aux++ {
				if k == enc.FLAT && aux&3 != 1 || k == enc.GLOBAL && aux&2 != 0 {
					continue
				}
				w := []uint32{enc.SetOpcode(k, 0xEC000000|seg<<24, op), 0, 0}
				fs := []fv{{enc.FFVDst, pVDst}, {enc.FFVAddr, pV0}, {enc.FFData, pV1}}
				if aux&1 != 0 {
					set(w, enc.FFSAddr, 124)
				} else {
					fs = append(fs, fv{enc.FFSAddr, pS2})
				}
				if aux&2 != 0 {
					set(w, enc.FFSVE, 1)
				}
				if aux&4 != 0 {
					set(w, enc.FFTH, 1)
				}
				a := aux
				if k == enc.FLAT {
					a = aux &^ 1
				}
				add(k, op, a, w, false, fs...)
			}
		}
	}
	for op := 0; op < 256; op++ {
		for aux := 0; aux < 8; aux++ {
			w := []uint32{enc.SetOpcode(enc.VBUFFER, 0xC4000000, op), 0, 0}
			set(w, enc.FBFormat, 1)
			w[1] |= uint32(aux&3) << 30
			if aux&4 != 0 {
				set(w, enc.FFTH, 1)
			}
			add(enc.VBUFFER, op, aux, w, false, fv{enc.FBVData, pVDst}, fv{enc.FBVAddr, pV0}, fv{enc.FBRsrc, pS1}, fv{enc.FBSOff, pS2})
		}
	}
	return ss
}

// probesAt returns the probes of a spec with exactly n of its fields set.
func (s spec) probesAt(n int) []probe {
	var ps []probe
	nf := len(s.fields)
	for m := 0; m < 1<<nf; m++ {
		if popcount(m) != n {
			continue
		}
		w := append([]uint32(nil), s.words...)
		var zero []enc.FieldID
		for i, f := range s.fields {
			if m>>i&1 != 0 {
				set(w, f.f, f.v)
			} else {
				zero = append(zero, f.f)
			}
		}
		ps = append(ps, probe{s.kind, s.op, s.aux, w, zero})
		if s.lit {
			ps = append(ps, probe{s.kind, s.op, s.aux, append(append([]uint32(nil), w...), pLit), zero})
		}
	}
	return ps
}

func popcount(m int) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// dppProbes builds the DPP16 and DPP8 forms of a VALU entry.
func dppProbes(e *gent) []probe {
	w := append([]uint32(nil), e.words...)
	var ps []probe
	d16 := uint32(pV0) | 0xe4<<8 | 0xff<<24
	d8 := uint32(pV0) | 0xfac688<<8
	switch e.kind {
	case enc.VOP1, enc.VOP2, enc.VOPC:
		a := append([]uint32(nil), w[:1]...)
		set(a, enc.FSrc0, 250)
		ps = append(ps, probe{kind: e.kind, op: e.op, aux: enc.AuxDPP16, words: append(a, d16)})
		b := append([]uint32(nil), w[:1]...)
		set(b, enc.FSrc0, 233)
		ps = append(ps, probe{kind: e.kind, op: e.op, aux: enc.AuxDPP8, words: append(b, d8)})
	case enc.VOP3, enc.VOP3P:
		a := append([]uint32(nil), w[:2]...)
		set(a, enc.F3Src0, 250)
		ps = append(ps, probe{kind: e.kind, op: e.op, aux: enc.AuxDPP16, words: append(a, d16)})
		b := append([]uint32(nil), w[:2]...)
		set(b, enc.F3Src0, 233)
		ps = append(ps, probe{kind: e.kind, op: e.op, aux: enc.AuxDPP8, words: append(b, d8)})
	}
	return ps
}

// fieldVal reads field f of a probe's words (nw dwords of instruction).
func fieldVal(words []uint32, nw int, f enc.FieldID) int {
	return int(enc.Layout[f].Get(words[:nw]))
}

// build matches a probe's printed text to its fields.
func build(p probe, nw int, text string) *gent {
	e := &gent{kind: p.kind, op: p.op, aux: p.aux, words: p.words[:nw]}
	if len(p.words) > nw {
		e.hasLit, e.lit = true, p.words[nw]
	}
	if p.kind == enc.VOPD {
		x, y, ok := strings.Cut(text, " :: ")
		if !ok {
			return nil
		}
		ex := matchOps(e, x, []enc.FieldID{enc.FDVDstX, enc.FDSrc0X, enc.FDVSrc1X})
		if ex == nil {
			return nil
		}
		mx := e.mnem
		e.nx = len(e.ops)
		if matchOps(e, y, []enc.FieldID{enc.FDVDstY, enc.FDSrc0Y, enc.FDVSrc1Y}) == nil {
			return nil
		}
		e.mnemY, e.mnem = e.mnem, mx
		return e
	}
	return matchOps(e, text, enc.Fields[p.kind])
}

func codeClass(f enc.FieldID) byte {
	switch enc.Layout[f].Code {
	case enc.CodeSrc9, enc.CodeSrc8:
		return 'c'
	case enc.CodeSDst7:
		return 'd'
	case enc.CodeVGPR8:
		return 'v'
	case enc.CodeSGPRx2:
		return 'b'
	case enc.CodeSGPR:
		return 'r'
	}
	return 'i'
}

func matchOps(e *gent, text string, fields []enc.FieldID) *gent {
	w := e.words
	var opsS, mods []string
	var mnem string
	if e.kind == enc.SOPP || e.kind == enc.SOPK && strings.Contains(text, "(") {
		m, rest, _ := strings.Cut(text, " ")
		mnem = m
		if rest != "" {
			opsS = splitTop(rest, ", ")
		}
	} else {
		mnem, opsS, mods = splitText(text)
	}
	e.mnem = mnem
	e.mods = mods
	used := map[enc.FieldID]bool{}
	for idx, s := range opsS {
		t := parseToken(s)
		g := gop{w32: t.width, neg: t.neg, abs: t.abs, t16: t.t16}
		found := false
		switch t.class {
		case 'v', 's', 't', 'n':
			for _, f := range fields {
				if used[f] {
					continue
				}
				if f == enc.FDVDstY && t.class == 'v' && t.num == fieldVal(w, len(w), f)<<1|(fieldVal(w, len(w), enc.FDVDstX)&1^1) || regMatches(f, fieldVal(w, len(w), f), t) {
					g.field = f
					g.class = codeClass(f)
					if f == enc.FDVDstY {
						g.class = 'Y'
					}
					if g.class == 'v' && t.class != 'v' {
						g.class = 'S'
					}
					found = true
					break
				}
			}
			if !found && t.class == 'n' {
				g.class, g.n32, found = 'n', t.text, true
			}
			if !found && t.class == 'v' && (e.kind == enc.VOP1 || e.kind == enc.VOP2 || e.kind == enc.VOPC) && e.aux != 0 && t.num == pV0 {
				g.field, g.class, found = enc.FDPPSrc0, 'v', true
			}
			if !found && t.class == 'v' && (e.kind == enc.VOP3 || e.kind == enc.VOP3P) && e.aux != 0 && t.num == pV0 {
				g.field, g.class, found = enc.FDPPSrc0, 'v', true
			}
		case 'o':
			var cands []enc.FieldID
			switch e.kind {
			case enc.SCRATCH:
				if e.aux&2 == 0 {
					cands = append(cands, enc.FFVAddr)
				}
				if e.aux&1 != 0 {
					cands = append(cands, enc.FFSAddr)
				}
			case enc.GLOBAL, enc.FLAT:
				cands = append(cands, enc.FFSAddr)
			case enc.VBUFFER:
				cands = append(cands, enc.FBVAddr)
			}
			for _, f := range cands {
				if !used[f] {
					g.field, g.class, found = f, 'o', true
					break
				}
			}
		case 'i':
			for _, f := range append(append([]enc.FieldID{}, fields...), enc.FSimm16, enc.FSMOff) {
				if used[f] || !hasField(e.kind, f) {
					continue
				}
				b := enc.Layout[f]
				v := int64(b.Get(w))
				if b.Code == enc.CodeSImm && v>>(b.N-1) != 0 {
					v -= 1 << b.N
				}
				if v == t.ival || (b.N == 16 && int64(int16(v)) == t.ival) {
					g.field, g.class, found = f, 'i', true
					break
				}
			}
			if !found && e.hasLit && (t.ival == int64(e.lit) || t.ival == int64(int32(e.lit))) {
				g.field, g.class, found = fLit, 'k', true
			}
		case 'x':
			if e.kind == enc.SOP1 && strings.HasPrefix(s, "sendmsg(") {
				g.field, g.class, g.ifmt, found = enc.FSSrc0, 'i', "sendmsg", true
			} else if hasField(e.kind, enc.FSimm16) && !used[enc.FSimm16] {
				g.field, g.class, found = enc.FSimm16, 'i', true
				switch {
				case strings.HasPrefix(s, "hwreg("):
					g.ifmt = "hwreg"
				case strings.HasPrefix(s, "sendmsg("):
					g.ifmt = "sendmsg"
				case strings.HasPrefix(s, "instid") || strings.HasPrefix(s, "instskip"):
					g.ifmt = "delay"
				case strings.HasPrefix(s, "depctr_"):
					g.ifmt = "depctr"
				case strings.HasPrefix(s, "vmcnt(") || strings.HasPrefix(s, "expcnt(") || strings.HasPrefix(s, "lgkmcnt("):
					g.ifmt = "waitcnt"
				default:
					found = false
				}
			}
		}
		if !found {
			return nil
		}
		if g.field != enc.FNone && g.field != fLit {
			used[g.field] = true
		}
		g.role = role(e, g, idx)
		e.ops = append(e.ops, g)
	}
	return e
}

func hasField(k enc.Kind, f enc.FieldID) bool {
	switch f {
	case enc.FSimm16:
		return k == enc.SOPK || k == enc.SOPP
	case enc.FSMOff:
		return k == enc.SMEM
	}
	for _, g := range enc.Fields[k] {
		if g == f {
			return true
		}
	}
	return false
}

// role says whether the operand is read or written.
func role(e *gent, g gop, idx int) string {
	m := e.mnem
	def := false
	switch g.field {
	case enc.FSDst, enc.FSMData, enc.FVDst, enc.F3VDst, enc.F3SDst, enc.FDVDstX, enc.FDVDstY, enc.FDSVDst, enc.FFVDst:
		def = g.class != 'i'
	case enc.FBVData, enc.FIVData:
		def = strings.Contains(m, "load") || e.aux&4 != 0 && strings.Contains(m, "atomic")
	}
	if g.class == 'n' {
		def = idx == 0 || idx == 1 && strings.Contains(m, "_co_")
	}
	if g.field == enc.FSDst && (strings.Contains(m, "setreg") || strings.HasPrefix(m, "s_cmpk")) {
		return "isa.Use"
	}
	if g.field == enc.FSDst && e.kind == enc.SOPK && (strings.Contains(m, "k_co_i32") || strings.Contains(m, "mulk") || strings.Contains(m, "cmovk")) {
		return "isa.UseDef"
	}
	if def && (strings.Contains(m, "fmac") || strings.Contains(m, "_mac_") || strings.Contains(m, "writelane") || strings.Contains(m, "bitset") || strings.Contains(m, "swap") || e.kind == enc.VBUFFER && strings.Contains(m, "atomic")) {
		return "isa.UseDef"
	}
	if strings.Contains(m, "swap") && (g.field == enc.FSrc0 || g.field == enc.F3Src0) {
		return "isa.UseDef"
	}
	if def {
		return "isa.Def"
	}
	return "isa.Use"
}

func isVALU(k enc.Kind) bool {
	switch k {
	case enc.VOP1, enc.VOP2, enc.VOPC, enc.VOP3, enc.VOP3P:
		return true
	}
	return false
}
