package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12/internal/enc"
	"github.com/rocjitsu/rocjitsu/dbt/isa/internal/mctext"
)

// variant is a modified copy of an entry's probe.
type variant struct {
	e    *gent
	tag  string
	code uint32 // for style probes
	lit  uint32
	fi   int
	w    []uint32
}

func (v variant) full() []uint32 {
	w := append([]uint32(nil), v.w...)
	if v.e.hasLit {
		w = append(w, v.e.lit)
	} else if v.code == 255 {
		w = append(w, v.lit)
	}
	return w
}

// probeMods finds each entry's modifiers, source-modifier permissions,
// constant styles and immediate formats.
func probeMods(m32, m64 mc, entries map[string]*gent, order []string) error {
	var vs []variant
	mk := func(e *gent, tag string, f func(w []uint32)) {
		w := append([]uint32(nil), e.words...)
		f(w)
		vs = append(vs, variant{e: e, tag: tag, w: w})
	}
	for _, k := range order {
		e := entries[k]
		hasSDst := false
		for _, o := range e.ops {
			if o.field == enc.F3SDst {
				hasSDst = true
			}
		}
		switch e.kind {
		case enc.SMEM:
			for i := uint32(0); i < 2; i++ {
				mk(e, "smemcpol", func(w []uint32) { set(w, enc.FSMTH, 1<<i) })
				mk(e, "smemcpol", func(w []uint32) { set(w, enc.FSMScope, 1<<i) })
			}
		case enc.DS:
			mk(e, "dsoff", func(w []uint32) { set(w, enc.FDSOff0, 1) })
			mk(e, "dsoff", func(w []uint32) { set(w, enc.FDSOff1, 1) })
		}
		if e.kind == enc.VINTERP {
			for i := uint32(0); i < 4; i++ {
				mk(e, "iopsel", func(w []uint32) { set(w, enc.F3OpSel, 1<<i) })
			}
		}
		switch e.kind {
		case enc.VOP3, enc.VOP3P, enc.VINTERP:
			mk(e, "clamp", func(w []uint32) { set(w, enc.F3Clamp, 1) })
			if e.kind == enc.VOP3 {
				mk(e, "omod", func(w []uint32) { set(w, enc.F3OMod, 1) })
			}
			for i := uint32(0); i < 3; i++ {
				mk(e, "neg", func(w []uint32) { set(w, enc.F3Neg, 1<<i) })
			}
			if e.kind == enc.VOP3P {
				for i := uint32(0); i < 3; i++ {
					mk(e, "popsel", func(w []uint32) { set(w, enc.FPOpSel, 1<<i) })
					mk(e, "neghi", func(w []uint32) { set(w, enc.FPNegHi, 1<<i) })
				}
				mk(e, "opselhi", func(w []uint32) { set(w, enc.FPOpSelH, 0); set(w, enc.FPOpSelL, 0) })
			} else if !hasSDst {
				for i := uint32(0); i < 4; i++ {
					mk(e, fmt.Sprintf("opsel%d", i), func(w []uint32) { set(w, enc.F3OpSel, 1<<i) })
				}
				if e.kind == enc.VOP3 {
					for i := uint32(0); i < 3; i++ {
						mk(e, "abs", func(w []uint32) { set(w, enc.F3Abs, 1<<i) })
					}
				}
			}
		case enc.VOP1, enc.VOP2, enc.VOPC:
			if e.aux == enc.AuxDPP16 {
				for i := 0; i < 4; i++ {
					mk(e, "dppmods", func(w []uint32) { w[len(w)-1] |= 1 << (20 + i) })
				}
			}
		}
		// Constant styles.
		for i, o := range e.ops {
			if o.class != 'c' {
				continue
			}
			for _, c := range []uint32{240, 248} {
				w := append([]uint32(nil), e.words...)
				set(w, o.field, c)
				vs = append(vs, variant{e: e, tag: "style", code: c, fi: i, w: w})
			}
			if e.hasLit || e.aux != 0 {
				continue
			}
			for _, l := range []uint32{0x3f000000, 0x3fe00000, 0x3800, 0x3f00, 0xfffffff0, 0x12345} {
				w := append([]uint32(nil), e.words...)
				set(w, o.field, 255)
				vs = append(vs, variant{e: e, tag: "style", code: 255, lit: l, fi: i, w: w})
			}
		}
		for i, o := range e.ops {
			var cats []uint32
			switch {
			case o.class == 'c' && enc.Layout[o.field].Code == enc.CodeSrc9:
				cats = []uint32{pS0, 256 + pV0, 256 + 200, 129, 106, 124}
			case o.class == 'c':
				cats = []uint32{pS0, 129, 106, 124}
			case o.class == 'v' && o.field != enc.FDPPSrc0:
				cats = []uint32{pV0, 200}
			case o.class == 'v':
				cats = []uint32{200}
			}
			for _, c := range cats {
				w := append([]uint32(nil), e.words...)
				if o.class == 'v' && o.field == enc.FDPPSrc0 {
					w[len(w)-1] = w[len(w)-1]&^0xff | c
				} else {
					set(w, o.field, c)
				}
				vs = append(vs, variant{e: e, tag: "cat", code: c, fi: i, w: w})
			}
		}
		for i, o := range e.ops {
			if o.class == 'i' && o.field == enc.FSimm16 && o.ifmt == "" {
				for _, v := range []uint32{3, 0xfff0, 0x8000, 0x40, 0, 0x41} {
					w := append([]uint32(nil), e.words...)
					set(w, enc.FSimm16, v)
					vs = append(vs, variant{e: e, tag: "imm", code: v, fi: i, w: w})
				}
			}
		}
	}
	var k32, k64 []string
	for _, v := range vs {
		if v.e.wave32 {
			k32 = append(k32, mctext.WordsKey(v.full()))
		} else {
			k64 = append(k64, mctext.WordsKey(v.full()))
		}
	}
	r32, err := m32.disassemble(k32)
	if err != nil {
		return err
	}
	r64, err := m64.disassemble(k64)
	if err != nil {
		return err
	}
	styleTexts := map[*gent]map[int]map[[2]uint32]string{}
	immTexts := map[*gent]map[int]map[uint32]string{}
	for _, v := range vs {
		r := r32
		if !v.e.wave32 {
			r = r64
		}
		text, ok := r[mctext.WordsKey(v.full())]
		if !ok && v.tag == "style" && v.code == 255 {
			text, ok = r["-"+mctext.WordsKey(v.full())]
		}
		if !ok && v.tag == "style" && v.code != 255 {
			text, ok = r["+"+mctext.WordsKey(v.full())]
		}
		if !ok || !strings.HasPrefix(text, v.e.mnem+" ") && text != v.e.mnem {
			// LLVM rejects the bits this variant sets: they must be zero.
			switch v.tag {
			case "style", "imm", "cat", "opsel", "opsel0", "opsel1", "opsel2", "opsel3", "opselhi":
				// op_sel is accepted or not depending on the operands.
			default:
				for i := range v.w {
					d := v.w[i] ^ v.e.words[i]
					if v.tag == "omod" && d != 0 {
						d = enc.Layout[enc.F3OMod].Mask()
					}
					v.e.strict[i] |= d
				}
			}
			continue
		}
		e := v.e
		switch v.tag {
		case "cat":
			e.ops[v.fi].allowed |= int(enc.Category(v.code, e.ops[v.fi].class))
			continue
		case "style":
			if v.code == 255 {
				e.ops[v.fi].allowed |= enc.CatLit
			} else {
				e.ops[v.fi].allowed |= enc.CatFloat
			}
		}
		mnem, ops, mods := splitText(text)
		if mnem != e.mnem && e.kind != enc.VOPD {
			continue
		}
		switch v.tag {
		case "style":
			if len(ops) != len(e.ops) {
				continue
			}
			if styleTexts[e] == nil {
				styleTexts[e] = map[int]map[[2]uint32]string{}
			}
			if styleTexts[e][v.fi] == nil {
				styleTexts[e][v.fi] = map[[2]uint32]string{}
			}
			styleTexts[e][v.fi][[2]uint32{v.code, v.lit}] = ops[v.fi]
			continue
		case "imm":
			m, rest, _ := strings.Cut(text, " ")
			if m != e.mnem {
				continue
			}
			parts := splitTop(rest, ", ")
			if v.fi >= len(parts) {
				continue
			}
			if immTexts[e] == nil {
				immTexts[e] = map[int]map[uint32]string{}
			}
			if immTexts[e][v.fi] == nil {
				immTexts[e][v.fi] = map[uint32]string{}
			}
			immTexts[e][v.fi][v.code] = parts[v.fi]
			continue
		}
		hasMod := func(name string) (int, bool) {
			for _, m := range mods {
				if m == name {
					return 0, true
				}
				if strings.HasPrefix(m, name+":[") {
					return strings.Count(m, ",") + 1, true
				}
			}
			return 0, false
		}
		srcMods := func(neg bool) {
			if len(ops) != len(e.ops) {
				return
			}
			for i := range e.ops {
				t := parseToken(ops[i])
				if neg && t.neg {
					e.ops[i].neg = true
				}
				if neg && t.sext {
					e.ops[i].sext = true
				}
				if !neg && t.abs {
					e.ops[i].abs = true
				}
			}
		}
		switch v.tag {
		case "clamp":
			_, e.clamp = hasMod("clamp")
		case "omod":
			_, e.omod = hasMod("mul")
			if !e.omod {
				for _, m := range mods {
					if m == "mul:2" {
						e.omod = true
					}
				}
			}
		case "neg":
			if n, ok := hasMod("neg_lo"); ok {
				e.negLoN = max(e.negLoN, n)
			} else {
				srcMods(true)
			}
		case "abs":
			srcMods(false)
		case "neghi":
			n, ok := hasMod("neg_hi")
			e.negHiN = max(e.negHiN, n)
			if !ok {
				srcMods(false)
			}
		case "opsel", "popsel":
			n, _ := hasMod("op_sel")
			e.opselN = max(e.opselN, n)
		case "opsel0", "opsel1", "opsel2", "opsel3":
			if n, ok := hasMod("op_sel"); ok {
				e.opselN = n
				bit := int(v.tag[5] - '0')
				for _, m := range mods {
					if strings.HasPrefix(m, "op_sel:[") {
						for idx, x := range strings.Split(strings.TrimSuffix(m[8:], "]"), ",") {
							if x == "1" {
								e.opselMask |= 1 << bit
								e.opselIdx[bit] = idx + 1
							}
						}
					}
				}
			}
			for _, m := range mods {
				if strings.HasPrefix(m, "byte_sel:") {
					n, _ := strconv.Atoi(m[9:])
					e.byteSel[v.tag[5]-'0'] = n
				}
			}
		case "opselhi":
			if n, ok := hasMod("op_sel_hi"); ok {
				e.opselHiN, e.opselHiDef = n, 7
			}
		case "dppmods":
			if len(ops) == len(e.ops) {
				for i := range e.ops {
					t := parseToken(ops[i])
					e.ops[i].neg = e.ops[i].neg || t.neg
					e.ops[i].abs = e.ops[i].abs || t.abs
					e.ops[i].sext = e.ops[i].sext || t.sext
				}
			}
		}
	}
	for _, k := range order {
		e := entries[k]
		if e.kind == enc.VOP3P && e.opselHiN == 0 {
			for _, m := range e.mods {
				if strings.HasPrefix(m, "op_sel_hi:[") {
					e.opselHiN, e.opselHiDef = strings.Count(m, ",")+1, 0
				}
			}
		}
		for i := range e.ops {
			if st, ok := styleTexts[e][i]; ok {
				e.ops[i].style = pickStyle(e, st)
			}
			if it, ok := immTexts[e][i]; ok {
				it[0x1234] = "?"
				e.ops[i].ifmt = pickImm(e, it)
			}
		}
	}
	return nil
}

func pickStyle(e *gent, st map[[2]uint32]string) enc.Style {
	best, bestN := enc.S32, -1
	order := []enc.Style{enc.S32, enc.F16, enc.BF16, enc.I16H, enc.I16, enc.F64, enc.I64, enc.V2F16, enc.V2BF16, enc.V2I16}
	switch {
	case strings.Contains(e.mnem, "bf16"):
		order = append([]enc.Style{enc.BF16}, order...)
	case strings.Contains(e.mnem, "_f16"):
		order = append([]enc.Style{enc.F16}, order...) // ties (inline probes only)
	}
	for _, s := range order {
		n := 0
		for k, t := range st {
			if enc.FormatConst(s, k[0], k[1]) == t {
				n++
			}
		}
		if n > bestN {
			best, bestN = s, n
		}
	}
	if bestN != len(st) {
		fmt.Fprintf(os.Stderr, "gen: %s: no constant style fits %v (using %s)\n", e.mnem, st, enc.StyleNames[best])
	}
	return best
}

// Immediate formats of 16-bit SOPP/SOPK fields.
var immFormats = []string{"int16", "hex", "udec", "sdec", "u64hex"}

// FormatImm16 prints a 16-bit immediate in format f.
func formatImm16(f string, v uint32) string {
	switch f {
	case "hex":
		return "0x" + strconv.FormatUint(uint64(v&0xffff), 16)
	case "udec":
		return strconv.Itoa(int(v & 0xffff))
	case "sdec":
		return strconv.Itoa(int(int16(v)))
	case "u64hex":
		if v&0xffff <= 64 {
			return strconv.Itoa(int(v & 0xffff))
		}
		return "0x" + strconv.FormatUint(uint64(v&0xffff), 16)
	case "int16":
		if s := int16(v); s >= -16 && s <= 64 {
			return strconv.Itoa(int(s))
		}
		return "0x" + strconv.FormatUint(uint64(v&0xffff), 16)
	}
	return "?"
}

func pickImm(e *gent, it map[uint32]string) string {
	delete(it, 0x1234)
	for _, f := range immFormats {
		ok := true
		for v, t := range it {
			if formatImm16(f, v) != t {
				ok = false
			}
		}
		if ok {
			return f
		}
	}
	fmt.Fprintf(os.Stderr, "gen: %s: no immediate format fits %v\n", e.mnem, it)
	return "hex"
}

// names are symbolic operand names read from LLVM.
type names struct {
	hwreg   [64]string
	sendmsg map[int]string
	format  [128]string
	th      map[string]string // "cat/th/scope" -> printed cache policy
}

func probeNames(m mc) (*names, error) {
	n := &names{sendmsg: map[int]string{}, th: map[string]string{}}
	var keys []string
	var getreg, sendmsg, tbuf, gload, gstore, gatomic, smem []uint32
	// s_getreg_b32 is SOPK opcode 17; s_sendmsg SOPP 54; found by name below.
	for op := 0; op < 32; op++ {
		w := enc.SetOpcode(enc.SOPK, 0xB0000000, op) | 1<<16
		keys = append(keys, mctext.WordsKey([]uint32{w | 0xf800}))
	}
	for op := 0; op < 128; op++ {
		keys = append(keys, mctext.WordsKey([]uint32{enc.SetOpcode(enc.SOPP, 0xBF800000, op) | 1}))
	}
	r, err := m.disassemble(keys)
	if err != nil {
		return nil, err
	}
	for op := 0; op < 32; op++ {
		w := enc.SetOpcode(enc.SOPK, 0xB0000000, op) | 1<<16
		if strings.HasPrefix(r[mctext.WordsKey([]uint32{w | 0xf800})], "s_getreg_b32 ") {
			getreg = []uint32{w}
		}
	}
	for op := 0; op < 128; op++ {
		w := enc.SetOpcode(enc.SOPP, 0xBF800000, op)
		if strings.HasPrefix(r[mctext.WordsKey([]uint32{w | 1})], "s_sendmsg ") {
			sendmsg = []uint32{w}
		}
	}
	if getreg == nil || sendmsg == nil {
		return nil, fmt.Errorf("s_getreg_b32 or s_sendmsg not found")
	}
	for op := 0; op < 256; op++ {
		w := enc.SetOpcode(enc.VBUFFER, 0xC4000000, op)
		keys = append(keys, mctext.WordsKey([]uint32{w, 0x40800000 | pVDst | pS1<<9, pV0}))
	}
	for op := 0; op < 256; op++ {
		w := enc.SetOpcode(enc.GLOBAL, 0xEE00007c, op)
		keys = append(keys, mctext.WordsKey([]uint32{w, pVDst | pV1<<23, pV0}))
	}
	r, err = m.disassemble(keys)
	if err != nil {
		return nil, err
	}
	for op := 0; op < 256 && tbuf == nil; op++ {
		w := enc.SetOpcode(enc.VBUFFER, 0xC4000000, op)
		if strings.HasPrefix(r[mctext.WordsKey([]uint32{w, 0x40800000 | pVDst | pS1<<9, pV0})], "tbuffer_load_format_x ") {
			tbuf = []uint32{w, 0x40000000 | pVDst | pS1<<9, pV0}
		}
	}
	for op := 0; op < 256; op++ {
		w := []uint32{enc.SetOpcode(enc.GLOBAL, 0xEE00007c, op), pVDst | pV1<<23, pV0}
		t := r[mctext.WordsKey(w)]
		switch {
		case strings.HasPrefix(t, "global_load_b32 "):
			gload = w
		case strings.HasPrefix(t, "global_store_b32 "):
			gstore = w
		case strings.HasPrefix(t, "global_atomic_add_u32 "):
			gatomic = w
		}
	}
	smem = []uint32{0xF4000000 | pSDst<<6 | pS0/2, 124 << 25}
	if tbuf == nil || gload == nil || gstore == nil || gatomic == nil {
		return nil, fmt.Errorf("tbuffer/global probes not found")
	}
	keys = nil
	for id := 0; id < 64; id++ {
		keys = append(keys, mctext.WordsKey([]uint32{getreg[0] | 0xf800 | uint32(id)}))
	}
	for v := 0; v < 1024; v++ {
		keys = append(keys, mctext.WordsKey([]uint32{sendmsg[0] | uint32(v)}))
	}
	for f := 0; f < 128; f++ {
		w := append([]uint32(nil), tbuf...)
		w[1] |= uint32(f) << 23
		keys = append(keys, mctext.WordsKey(w))
	}
	thw := func(base []uint32, th, scope uint32) []uint32 {
		w := append([]uint32(nil), base...)
		w[1] |= th<<20 | scope<<18
		return w
	}
	smw := func(th, scope uint32) []uint32 {
		w := append([]uint32(nil), smem...)
		w[0] |= th<<23 | scope<<21
		return w
	}
	for th := uint32(0); th < 8; th++ {
		for sc := uint32(0); sc < 4; sc++ {
			keys = append(keys, mctext.WordsKey(thw(gload, th, sc)), mctext.WordsKey(thw(gstore, th, sc)), mctext.WordsKey(thw(gatomic, th, sc)))
			if th < 4 {
				keys = append(keys, mctext.WordsKey(smw(th, sc)))
			}
		}
	}
	r, err = m.disassemble(keys)
	if err != nil {
		return nil, err
	}
	for id := 0; id < 64; id++ {
		t := r[mctext.WordsKey([]uint32{getreg[0] | 0xf800 | uint32(id)})]
		if i := strings.Index(t, "hwreg("); i >= 0 {
			name := strings.TrimSuffix(t[i+6:], ")")
			if !strings.Contains(name, ",") && strings.HasPrefix(name, "HW_REG_") {
				n.hwreg[id] = name
			}
		}
	}
	for v := 0; v < 1024; v++ {
		t := r[mctext.WordsKey([]uint32{sendmsg[0] | uint32(v)})]
		if i := strings.Index(t, "sendmsg("); i >= 0 {
			n.sendmsg[v] = t[i:]
		}
	}
	for f := 0; f < 128; f++ {
		w := append([]uint32(nil), tbuf...)
		w[1] |= uint32(f) << 23
		t := r[mctext.WordsKey(w)]
		if i := strings.Index(t, "format:"); i >= 0 {
			n.format[f] = strings.Fields(t[i:])[0]
		} else if t != "" {
			n.format[f] = ""
		} else {
			n.format[f] = "?"
		}
	}
	tail := func(t string) string {
		var out []string
		for _, f := range strings.Fields(t) {
			if strings.HasPrefix(f, "th:") || strings.HasPrefix(f, "scope:") || f == "nv" {
				out = append(out, f)
			}
		}
		return strings.Join(out, " ")
	}
	for th := uint32(0); th < 8; th++ {
		for sc := uint32(0); sc < 4; sc++ {
			for cat, base := range [][]uint32{gload, gstore, gatomic} {
				if t, ok := r[mctext.WordsKey(thw(base, th, sc))]; ok {
					n.th[fmt.Sprintf("%d/%d/%d", cat, th, sc)] = tail(t)
				}
			}
			if th < 4 {
				if t, ok := r[mctext.WordsKey(smw(th, sc))]; ok {
					n.th[fmt.Sprintf("3/%d/%d", th, sc)] = tail(t)
				}
			}
		}
	}
	return n, nil
}
