// Package objdumptext reads the instruction lines of llvm-objdump -d output
// for AMDGPU code ("\ts_nop 0 // 000000001000: BF800000"), which the GFX9
// and GFX12 corpus tests compare their disassembly against.
package objdumptext

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
)

// Line is one instruction as llvm-objdump printed it.
type Line struct {
	Addr  uint64   // the address after "//"
	Text  string   // the instruction text, white space collapsed
	Words []uint32 // the instruction's dwords as printed after the address
}

// Parse returns the instruction lines of out: those that start with a tab
// and carry a "// address: words" comment. Other lines (labels, headers, a
// comment without a hex address) are skipped; the dword list stops at the
// first field that is not hex.
func Parse(out []byte) []Line {
	var lines []Line
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if !strings.HasPrefix(l, "\t") {
			continue
		}
		i := strings.LastIndex(l, "//")
		if i < 0 {
			continue
		}
		text := Normalize(l[:i])
		rest := strings.TrimSpace(l[i+2:])
		a, ws, ok := strings.Cut(rest, ":")
		if !ok {
			continue
		}
		addr, err := strconv.ParseUint(strings.TrimSpace(a), 16, 64)
		if err != nil {
			continue
		}
		var words []uint32
		for _, f := range strings.Fields(ws) {
			v, err := strconv.ParseUint(f, 16, 32)
			if err != nil {
				break
			}
			words = append(words, uint32(v))
		}
		lines = append(lines, Line{addr, text, words})
	}
	return lines
}

// Normalize collapses white space runs to one space and trims the ends.
func Normalize(s string) string { return strings.Join(strings.Fields(s), " ") }
