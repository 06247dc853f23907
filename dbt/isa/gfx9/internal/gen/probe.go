package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9/internal/enc"
	"github.com/rocjitsu/rocjitsu/dbt/isa/internal/mctext"
)

// probe is one candidate encoding given to llvm-mc.
type probe struct {
	kind  enc.Kind
	op    int
	aux   int // FLAT segment / atomic-return / lds variant key
	tag   string
	words []uint32
}

func (p probe) key() string { return mctext.WordsKey(p.words) }

// disassemble runs llvm-mc on every probe and returns the printed text of
// those that decode to exactly their bytes without an "Invalid" note.
// llvm-mc-19 crashes on a few encodings; the input is then bisected and the
// crashing lines are left out (they count as not decoding).
func disassemble(mc string, probes []probe) (map[string]string, error) {
	var lines []string
	seen := map[string]bool{}
	for _, p := range probes {
		k := p.key()
		if seen[k] {
			continue
		}
		seen[k] = true
		lines = append(lines, k)
	}
	res := map[string]string{}
	if err := runMC(mc, lines, res); err != nil {
		return nil, err
	}
	return res, nil
}

func runMC(mc string, lines []string, res map[string]string) error {
	if len(lines) == 0 {
		return nil
	}
	// llvm-mc reads the input as one byte stream: an s_nop after each
	// probe keeps a probe that needs a literal from eating the next one.
	in := strings.Join(lines, ",0x00,0x00,0x80,0xbf\n") + ",0x00,0x00,0x80,0xbf\n"
	cmd := exec.Command(mc, "--disassemble", "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-show-encoding")
	cmd.Stdin = strings.NewReader(in)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = new(bytes.Buffer)
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			return fmt.Errorf("%s: %w", mc, err)
		}
		if len(lines) == 1 {
			fmt.Fprintf(os.Stderr, "gen: llvm-mc fails on %s; left out\n", lines[0])
			return nil
		}
		h := len(lines) / 2
		if err := runMC(mc, lines[:h], res); err != nil {
			return err
		}
		return runMC(mc, lines[h:], res)
	}
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndex(line, "; encoding: [")
		if i < 0 {
			continue
		}
		text := strings.TrimSpace(line[:i])
		if strings.Contains(text, "/*") {
			continue
		}
		k := strings.TrimSuffix(line[i+len("; encoding: ["):], "]")
		res[k] = text
	}
	return nil
}

// Probe register numbers. They are distinct and aligned for 4-dword tuples.
const (
	pVDst = 10
	pV0   = 20
	pV1   = 30
	pV2   = 40
	pSDst = 8
	pS0   = 20
	pS1   = 32
	pS2   = 44
	pLit  = 0x11223344
)

func bits(v uint32, lo uint) uint32 { return v << lo }

// makeProbes builds the gfx942 probe set: every opcode of every encoding,
// with operand variants from most to fewest operands.
func makeProbes() []probe {
	var ps []probe
	add := func(k enc.Kind, op, aux int, tag string, w ...uint32) {
		ps = append(ps, probe{k, op, aux, tag, w})
	}
	// SOP1
	for op := 0; op < 256; op++ {
		base := uint32(0xBE800000) | bits(uint32(op), 8)
		for _, v := range [][2]uint32{{pSDst, pS0}, {pSDst, 0}, {0, pS0}, {0, 0}, {pSDst, 255}} {
			w := base | bits(v[0], 16) | v[1]
			if v[1] == 255 {
				add(enc.SOP1, op, 0, "", w, pLit)
			} else {
				add(enc.SOP1, op, 0, "", w)
			}
		}
	}
	// SOP2
	for op := 0; op < 128; op++ {
		base := uint32(0x80000000) | bits(uint32(op), 23)
		if k, _ := enc.Classify(base); k != enc.SOP2 {
			continue
		}
		for _, v := range [][3]uint32{{pSDst, pS0, pS1}, {pSDst, pS0, 0}, {0, pS0, pS1}} {
			add(enc.SOP2, op, 0, "", base|bits(v[0], 16)|bits(v[2], 8)|v[1])
		}
	}
	// SOPK
	for op := 0; op < 32; op++ {
		base := uint32(0xB0000000) | bits(uint32(op), 23)
		if k, _ := enc.Classify(base); k != enc.SOPK {
			continue
		}
		for _, v := range [][2]uint32{{pSDst, 0x1234}, {0, 0x1234}, {pSDst, 0x1801}, {pSDst, 0}} {
			add(enc.SOPK, op, 0, "", base|bits(v[0], 16)|v[1])
			add(enc.SOPK, op, 0, "", base|bits(v[0], 16)|v[1], pLit)
		}
	}
	// SOPC
	for op := 0; op < 128; op++ {
		base := uint32(0xBF000000) | bits(uint32(op), 16)
		for _, v := range [][2]uint32{{pS0, pS1}, {pS0, 0x80}, {pS0, 0}} {
			add(enc.SOPC, op, 0, "", base|bits(v[1], 8)|v[0])
		}
	}
	// SOPP
	for op := 0; op < 128; op++ {
		base := uint32(0xBF800000) | bits(uint32(op), 16)
		add(enc.SOPP, op, 0, "", base|0x1234)
		add(enc.SOPP, op, 0, "", base|0x3)
		add(enc.SOPP, op, 0, "", base)
	}
	// SMEM
	for op := 0; op < 256; op++ {
		base := uint32(0xC0000000) | bits(uint32(op), 18)
		for _, v := range [][3]uint32{{pSDst, pS0 / 2, 1}, {0, pS0 / 2, 1}, {pSDst, 0, 0}, {0, 0, 0}} {
			w := base | bits(v[0], 6) | v[1] | bits(v[2], 17)
			off := uint32(0x34)
			if v[2] == 0 && v[1] != 0 {
				off = pS1
			}
			if v[1] == 0 {
				off = 0
			}
			add(enc.SMEM, op, 0, "", w, off)
		}
	}
	// VOP2 / VOP1 / VOPC (e32)
	for op := 0; op < 0x3e; op++ {
		base := bits(uint32(op), 25)
		for _, v := range [][3]uint32{{pVDst, 256 + pV0, pV1}, {pVDst, pS0, pV1}} {
			add(enc.VOP2, op, 0, "", base|bits(v[0], 17)|bits(v[2], 9)|v[1])
			add(enc.VOP2, op, 0, "", base|bits(v[0], 17)|bits(v[2], 9)|v[1], pLit)
		}
	}
	for op := 0; op < 256; op++ {
		base := uint32(0x7E000000) | bits(uint32(op), 9)
		for _, v := range [][2]uint32{{pVDst, 256 + pV0}, {pVDst, pS0}, {pVDst, 0}, {0, 0}} {
			add(enc.VOP1, op, 0, "", base|bits(v[0], 17)|v[1])
		}
	}
	for op := 0; op < 256; op++ {
		base := uint32(0x7C000000) | bits(uint32(op), 17)
		for _, v := range [][2]uint32{{256 + pV0, pV1}, {pS0, pV1}} {
			add(enc.VOPC, op, 0, "", base|bits(v[1], 9)|v[0])
		}
	}
	// VOP3
	srcVariants := func() [][3]uint32 {
		var out [][3]uint32
		vals := [3][2]uint32{{256 + pV0, pS0}, {256 + pV1, pS1}, {256 + pV2, pS2}}
		for n := 3; n >= 0; n-- {
			for m := 0; m < 1<<n; m++ {
				var v [3]uint32
				for i := 0; i < n; i++ {
					v[i] = vals[i][(m>>i)&1]
				}
				out = append(out, v)
			}
		}
		return out
	}()
	for op := 0; op < 1024; op++ {
		base := uint32(0xD0000000) | bits(uint32(op), 16)
		if k, _ := enc.Classify(base); k != enc.VOP3 {
			continue
		}
		for _, dst := range []uint32{pVDst, 0} {
			for _, v := range srcVariants {
				add(enc.VOP3, op, 0, "", base|dst, v[0]|v[1]<<9|v[2]<<18)
			}
		}
	}
	// VOP3P and MAI
	for op := 0; op < 128; op++ {
		base := uint32(0xD3800000) | bits(uint32(op), 16)
		k := enc.VOP3P
		if op >= 0x40 {
			k = enc.MAI
		}
		for _, dst := range []uint32{pVDst, 0} {
			for _, v := range srcVariants {
				hi := uint32(0)
				if k == enc.VOP3P {
					hi = 3 << 27
				}
				w0 := base | dst
				if k == enc.VOP3P {
					w0 |= 1 << 14
				}
				add(k, op, 0, "", w0, v[0]|v[1]<<9|v[2]<<18|hi)
			}
		}
		if k == enc.MAI {
			for _, dst := range []uint32{pVDst, 0} {
				for _, v := range srcVariants {
					add(k, op, 0, "", base|dst|1<<14, v[0]|v[1]<<9|v[2]<<18|3<<27)
				}
			}
		}
	}
	// DS
	for op := 0; op < 256; op++ {
		base := uint32(0xD8000000) | bits(uint32(op), 17)
		for _, v := range [][4]uint32{{pVDst, pV0, pV1, pV2}, {pVDst, pV0, pV1, 0}, {pVDst, pV0, 0, 0}, {0, pV0, pV1, pV2}, {0, pV0, pV1, 0}, {0, pV0, 0, 0}, {pVDst, 0, 0, 0}, {0, 0, pV1, 0}, {0, 0, 0, 0}} {
			for _, gds := range []uint32{0, 1} {
				add(enc.DS, op, 0, "", base|gds<<16, v[1]|v[2]<<8|v[3]<<16|v[0]<<24)
			}
		}
	}
	// FLAT / SCRATCH / GLOBAL
	for seg := uint32(0); seg < 3; seg++ {
		for op := 0; op < 128; op++ {
			for _, sc0 := range []uint32{0, 1} {
				base := uint32(0xDC000000) | seg<<14 | bits(uint32(op), 18) | sc0<<16
				aux := int(seg) | int(sc0)<<2
				vs := [][4]uint32{{pVDst, pV0, pV1, 0x7f}, {pVDst, pV0, 0, 0x7f}, {0, pV0, pV1, 0x7f}, {pVDst, pV0, pV1, pS2}, {pVDst, pV0, 0, pS2}, {0, pV0, pV1, pS2}, {0, pV0, 0, 0x7f}, {0, pV0, 0, pS2}, {0, 0, 0, 0x7f}}
				if seg == 0 {
					vs = [][4]uint32{{pVDst, pV0, pV1, 0}, {pVDst, pV0, 0, 0}, {0, pV0, pV1, 0}, {0, pV0, 0, 0}, {0, 0, 0, 0}}
				}
				for _, v := range vs {
					for _, sve := range []uint32{0, 1} {
						if sve == 1 && seg != 1 {
							continue
						}
						add(enc.FLAT, op, aux, "", base|sve<<13, v[1]|v[2]<<8|v[3]<<16|v[0]<<24)
					}
				}
			}
		}
	}
	// MUBUF
	for op := 0; op < 128; op++ {
		for _, sc0 := range []uint32{0, 1} {
			for _, lds := range []uint32{0, 1} {
				base := uint32(0xE0000000) | bits(uint32(op), 18) | sc0<<14 | lds<<16
				aux := int(sc0) | int(lds)<<1
				for _, offen := range []uint32{1, 0} {
					for _, vd := range []uint32{pVDst, 0} {
						add(enc.MUBUF, op, aux, "", base|offen<<12, pV0|vd<<8|2<<16|0x80<<24)
					}
				}
			}
		}
	}
	// MTBUF
	for op := 0; op < 16; op++ {
		base := uint32(0xE8000000) | bits(uint32(op), 15) | 1<<19
		for _, offen := range []uint32{1, 0} {
			add(enc.MTBUF, op, 0, "", base|offen<<12, pV0|pVDst<<8|2<<16|0x80<<24)
		}
	}
	return ps
}

// sdwaDPPProbes builds SDWA and DPP probes for the VOP1/VOP2/VOPC opcodes
// that decode in their 32-bit form.
func sdwaDPPProbes(e32 map[[2]int]bool) []probe {
	var ps []probe
	for key := range e32 {
		k, op := enc.Kind(key[0]), key[1]
		var w0 uint32
		switch k {
		case enc.VOP1:
			w0 = 0x7E000000 | bits(uint32(op), 9) | bits(pVDst, 17)
		case enc.VOP2:
			w0 = bits(uint32(op), 25) | bits(pVDst, 17) | bits(pV1, 9)
		case enc.VOPC:
			w0 = 0x7C000000 | bits(uint32(op), 17) | bits(pV1, 9)
		default:
			continue
		}
		sk := k - enc.VOP1 + enc.SDWA1
		dk := k - enc.VOP1 + enc.DPP1
		// SDWA: dst_sel DWORD, dst_unused PRESERVE, src sels DWORD.
		sdw := uint32(pV0) | 6<<8 | 2<<11 | 6<<16 | 6<<24
		if k == enc.VOP1 {
			sdw = uint32(pV0) | 6<<8 | 2<<11 | 6<<16
		}
		if k == enc.VOPC {
			sdw = uint32(pV0) | 6<<16 | 6<<24
		}
		ps = append(ps, probe{sk, op, 0, "", []uint32{w0 | 249, sdw}})
		ps = append(ps, probe{sk, op, 0, "", []uint32{w0 | 249, sdw &^ (3 << 11)}})
		if k == enc.VOPC {
			ps = append(ps, probe{sk, op, 0, "", []uint32{w0 | 249, sdw | pSDst<<8 | 1<<15}})
		}
		ps = append(ps, probe{dk, op, 0, "", []uint32{w0 | 250, pV0 | 0xe4<<8 | 0xff<<24}})
	}
	return ps
}

// token is one printed operand.
type token struct {
	text  string
	neg   bool
	abs   bool
	class byte // 's', 'v', 'a', 't' (ttmp), 'n' (named special), 'i' (immediate), 'o' (off)
	num   int
	width int
}

func parseToken(t string) token {
	tk := token{text: t}
	s := t
	s, tk.neg, tk.abs = mctext.NegAbs(s, "|vsa")
	if s == "off" {
		tk.class = 'o'
		return tk
	}
	if c, n, w, ok := mctext.Reg(s, "ttmp", "s", "v", "a"); ok {
		tk.class, tk.num, tk.width = c, n, w
		return tk
	}
	if n, ok := specialWidth[s]; ok {
		tk.class, tk.width = 'n', n
		return tk
	}
	tk.class = 'i'
	return tk
}

var specialWidth = map[string]int{
	"vcc": 2, "exec": 2, "flat_scratch": 2, "xnack_mask": 2, "vcc_lo": 1, "vcc_hi": 1,
	"exec_lo": 1, "exec_hi": 1, "m0": 1, "scc": 1, "src_scc": 1, "src_vccz": 1, "src_execz": 1,
	"flat_scratch_lo": 1, "flat_scratch_hi": 1, "xnack_mask_lo": 1, "xnack_mask_hi": 1,
	"src_lds_direct": 1, "lds_direct": 1, "src_shared_base": 1, "src_shared_limit": 1,
	"src_private_base": 1, "src_private_limit": 1, "src_pops_exiting_wave_id": 1,
}

// splitOperands splits the text after the mnemonic into operands and the
// modifier string. Operands are separated by ", " outside parentheses and
// brackets; the first space after the last operand starts the modifiers.
func splitOperands(mnem, rest string) ([]string, string) {
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return nil, ""
	}
	if mnem == "s_waitcnt" {
		return []string{rest}, ""
	}
	var ops []string
	depth := 0
	start := 0
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ',':
			if depth == 0 && i+1 < len(rest) && rest[i+1] == ' ' {
				ops = append(ops, rest[start:i])
				start = i + 2
				i++
			}
		}
	}
	last := rest[start:]
	// The last operand ends at the first space outside parentheses.
	depth = 0
	for i := 0; i < len(last); i++ {
		switch last[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ' ':
			if depth == 0 {
				ops = append(ops, last[:i])
				return ops, strings.TrimSpace(last[i+1:])
			}
		}
	}
	// A lone modifier-looking last token (key:value or a flag) is a modifier.
	if isModifier(last) {
		return ops, last
	}
	return append(ops, last), ""
}

func isModifier(s string) bool {
	if strings.Contains(s, ":") && !strings.Contains(s, "[") && !strings.HasPrefix(s, "s[") {
		return true
	}
	switch s {
	case "glc", "slc", "sc0", "sc1", "nt", "offen", "idxen", "lds", "gds", "clamp", "tfe", "nv", "dlc", "addr64":
		return true
	}
	return false
}

func mustMC() string {
	for _, p := range []string{"llvm-mc-19", "/usr/lib/llvm-19/bin/llvm-mc"} {
		if q, err := exec.LookPath(p); err == nil {
			return q
		}
	}
	fmt.Fprintln(os.Stderr, "gen: llvm-mc-19 not found (install the Debian package llvm-19)")
	os.Exit(1)
	return ""
}
