package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12/internal/enc"
)

// probe is one candidate encoding given to llvm-mc.
type probe struct {
	kind  enc.Kind
	op    int
	aux   int
	words []uint32
	// zero lists the operand fields the probe leaves zero.
	zero []enc.FieldID
}

// mc runs llvm-mc-19 --disassemble for one CPU and wave size.
type mc struct {
	tool   string
	cpu    string
	wave64 bool
}

// disassemble returns, for every probe that llvm-mc decodes into exactly its
// bytes, the printed text keyed by the probe's bytes.
func (m mc) disassemble(keys []string) (map[string]string, error) {
	res := map[string]string{}
	seen := map[string]bool{}
	var lines []string
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			lines = append(lines, k)
		}
	}
	const chunk = 20000
	for i := 0; i < len(lines); i += chunk {
		j := min(i+chunk, len(lines))
		if err := m.run(lines[i:j], res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func (m mc) run(lines []string, res map[string]string) error {
	if len(lines) == 0 {
		return nil
	}
	// Two "s_nop k" markers after probe k delimit its output, even when
	// the probe takes the first marker as a literal or does not decode.
	var in strings.Builder
	for i, l := range lines {
		k := i + 1
		nop := fmt.Sprintf("0x%02x,0x%02x,0x80,0xbf", k&0xff, k>>8)
		in.WriteString(l + "," + nop + "," + nop + "\n")
	}
	args := []string{"--disassemble", "-triple=amdgcn-amd-amdhsa", "-mcpu=" + m.cpu, "-show-encoding"}
	if m.wave64 {
		args = append(args, "-mattr=+wavefrontsize64")
	}
	cmd := exec.Command(m.tool, args...)
	cmd.Stdin = strings.NewReader(in.String())
	var out bytes.Buffer
	cmd.Stdout = &out
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			return fmt.Errorf("%s: %w", m.tool, err)
		}
		if len(lines) == 1 {
			fmt.Fprintf(os.Stderr, "gen: llvm-mc fails on %s; left out\n", lines[0])
			return nil
		}
		h := len(lines) / 2
		if err := m.run(lines[:h], res); err != nil {
			return err
		}
		return m.run(lines[h:], res)
	}
	type dec struct {
		text string
		n    int
	}
	var cur []dec
	next := 0
	done := invalidLines(errb.String())
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndex(line, "; encoding: [")
		if i < 0 {
			continue
		}
		text := strings.Join(strings.Fields(line[:i]), " ")
		n := strings.Count(line[i:], "0x")
		if strings.HasPrefix(text, "s_nop ") {
			// Markers come in order: s_nop next+1 ends line next; its
			// second copy (unless a literal ate the first) follows.
			if v, err := strconv.ParseInt(text[6:], 0, 64); err == nil && (int(v) > next && int(v) <= next+4 || int(v) == next && next > 0 && len(cur) == 0) {
				if int(v) > next {
					k := int(v) - 1
					next = k + 1
					if !done[k] && len(cur) == 1 && !strings.Contains(cur[0].text, "/*") {
						probeLen := strings.Count(lines[k], "0x")
						switch cur[0].n {
						case probeLen:
							res[lines[k]] = cur[0].text
						case probeLen + 4:
							// An inline constant LLVM prints as a literal.
							res["+"+lines[k]] = cur[0].text
						case probeLen - 4:
							// A literal that LLVM prints as an inline constant.
							res["-"+lines[k]] = cur[0].text
						}
					}
				}
				cur = cur[:0]
				continue
			}
		}
		cur = append(cur, dec{text, n})
	}
	return nil
}

// invalidLines returns the 0-based input lines llvm-mc warned about.
func invalidLines(stderr string) map[int]bool {
	bad := map[int]bool{}
	for _, l := range strings.Split(stderr, "\n") {
		if !strings.HasPrefix(l, "<stdin>:") || !strings.Contains(l, "warning") {
			continue
		}
		f := strings.SplitN(l, ":", 3)
		if n, err := strconv.Atoi(f[1]); err == nil {
			bad[n-1] = true
		}
	}
	return bad
}
