package main

import (
	"strconv"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12/internal/enc"
	"github.com/rocjitsu/rocjitsu/dbt/isa/internal/mctext"
)

// token is one printed operand.
type token struct {
	text  string
	neg   bool
	abs   bool
	sext  bool
	t16   bool // a .l/.h register half
	hi    bool
	class byte // 's', 'v', 't' (ttmp), 'n' (named special), 'i' (number), 'o' (off), 'x' (other)
	num   int
	width int
	ival  int64
}

// splitTop splits s at sep outside brackets and parentheses.
func splitTop(s string, sep string) []string {
	var out []string
	depth := 0
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		}
		if depth == 0 && strings.HasPrefix(s[i:], sep) {
			out = append(out, s[start:i])
			start = i + len(sep)
			i += len(sep) - 1
		}
	}
	return append(out, s[start:])
}

// splitText returns the mnemonic, the operand strings and the modifier
// strings of a printed instruction.
func splitText(text string) (string, []string, []string) {
	mnem, rest, _ := strings.Cut(text, " ")
	if rest == "" {
		return mnem, nil, nil
	}
	ops := splitTop(rest, ", ")
	last := splitTop(ops[len(ops)-1], " ")
	ops[len(ops)-1] = last[0]
	mods := last[1:]
	// A bare modifier first ("s_endpgm" has none; "buffer_gl0_inv" none).
	return mnem, ops, mods
}

var named = map[string]int{
	"vcc_lo": 106, "vcc_hi": 107, "vcc": 106, "null": 124, "m0": 125, "exec_lo": 126, "exec_hi": 127, "exec": 126,
	"src_shared_base": 235, "src_shared_limit": 236, "src_private_base": 237, "src_private_limit": 238,
	"src_pops_exiting_wave_id": 239, "src_vccz": 251, "src_execz": 252, "src_scc": 253, "src_lds_direct": 254,
	"scc": 253,
}

func parseToken(t string) token {
	tk := token{text: t, class: 'x'}
	s := t
	if strings.HasPrefix(s, "sext(") && strings.HasSuffix(s, ")") {
		tk.sext = true
		s = s[5 : len(s)-1]
	}
	s, tk.neg, tk.abs = mctext.NegAbs(s, "|vst")
	if s == "off" {
		tk.class = 'o'
		return tk
	}
	if strings.HasPrefix(s, "v") && (strings.HasSuffix(s, ".l") || strings.HasSuffix(s, ".h")) {
		// GFX12 true16 register half: bit 7 of the VGPR field.
		tk.t16 = true
		tk.hi = strings.HasSuffix(s, ".h")
		s = s[:len(s)-2]
	}
	if _, ok := named[s]; ok {
		tk.class = 'n'
		tk.text = s
		return tk
	}
	if c, n, w, ok := mctext.Reg(s, "ttmp", "s", "v"); ok {
		tk.class, tk.num, tk.width = c, n, w
		return tk
	}
	if v, err := strconv.ParseInt(s, 0, 64); err == nil {
		tk.class, tk.ival = 'i', v
		return tk
	}
	if v, err := strconv.ParseUint(s, 0, 64); err == nil {
		tk.class, tk.ival = 'i', int64(v)
		return tk
	}
	return tk
}

// regMatches reports whether field f (value v) names the register token t.
func regMatches(f enc.FieldID, v int, t token) bool {
	b := enc.Layout[f]
	switch b.Code {
	case enc.CodeSrc9:
		switch t.class {
		case 'v':
			if t.t16 {
				return v == 256+t.num|b2i(t.hi)<<7
			}
			return v == 256+t.num
		case 's':
			return v == t.num
		case 't':
			return v == 108+t.num
		case 'n':
			return v == named[t.text]
		}
	case enc.CodeSrc8, enc.CodeSDst7:
		switch t.class {
		case 's':
			return v == t.num
		case 't':
			return v == 108+t.num
		case 'n':
			return v == named[t.text]
		}
	case enc.CodeVGPR8:
		if t.class == 'v' {
			if t.t16 {
				return v == t.num|b2i(t.hi)<<7
			}
			return v == t.num
		}
		// VOP3 vdst holds an SGPR destination for v_cmp, v_readlane, ...
		if f == enc.F3VDst || f == enc.FVDst {
			switch t.class {
			case 's':
				return v == t.num
			case 'n':
				return v == named[t.text]
			}
		}
	case enc.CodeSGPRx2:
		return t.class == 's' && 2*v == t.num
	case enc.CodeSGPR:
		return t.class == 's' && v == t.num
	}
	return false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
