// Package mctext writes the input and reads the operand text of
// llvm-mc --disassemble, for the GFX9 and GFX12 table generators: the byte
// line that stands for an instruction's dwords, and the register operands
// ("v7", "s[4:7]", "ttmp[10:11]") and neg/abs modifiers that llvm-mc prints.
package mctext

import (
	"fmt"
	"strconv"
	"strings"
)

// WordsKey returns the llvm-mc --disassemble input line for the dwords w:
// their bytes, little-endian, as comma-separated "0x%02x" values. The
// generators also use it as the key of a probe's result.
func WordsKey(w []uint32) string {
	var b strings.Builder
	for i, x := range w {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "0x%02x,0x%02x,0x%02x,0x%02x", x&0xff, x>>8&0xff, x>>16&0xff, x>>24)
	}
	return b.String()
}

// NegAbs strips the source modifiers llvm-mc prints around an operand: a
// leading '-' (neg) when the next byte is one of negBefore (so "-1" stays a
// number), then enclosing '|' bars (abs). It returns the operand without
// them.
func NegAbs(s, negBefore string) (rest string, neg, abs bool) {
	if strings.HasPrefix(s, "-") && len(s) > 1 && strings.IndexByte(negBefore, s[1]) >= 0 {
		neg = true
		s = s[1:]
	}
	if strings.HasPrefix(s, "|") && strings.HasSuffix(s, "|") && len(s) > 2 {
		abs = true
		s = s[1 : len(s)-1]
	}
	return s, neg, abs
}

// Reg parses a register operand printed by llvm-mc: one of prefixes
// followed by a number ("v7") or an inclusive range ("s[4:7]"). The
// prefixes are tried in order; one that matches but is not followed by a
// number or a range lets the next one try ("src_scc" is no "s" register). It returns the register class (the prefix's
// first letter, 't' for "ttmp"), the first register and the count.
func Reg(s string, prefixes ...string) (class byte, num, width int, ok bool) {
	for _, pre := range prefixes {
		if !strings.HasPrefix(s, pre) {
			continue
		}
		rest := s[len(pre):]
		c := pre[0]
		if pre == "ttmp" {
			c = 't'
		}
		if n, err := strconv.Atoi(rest); err == nil {
			return c, n, 1, true
		}
		if strings.HasPrefix(rest, "[") && strings.HasSuffix(rest, "]") {
			parts := strings.Split(rest[1:len(rest)-1], ":")
			if len(parts) == 2 {
				a, e1 := strconv.Atoi(parts[0])
				b, e2 := strconv.Atoi(parts[1])
				if e1 == nil && e2 == nil {
					return c, a, b - a + 1, true
				}
			}
		}
	}
	return 0, 0, 0, false
}
