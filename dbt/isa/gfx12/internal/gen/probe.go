package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12/internal/enc"
)

// probe is one candidate encoding given to llvm-mc.
type probe struct {
	kind  enc.Kind
	op    int
	aux   int
	words []uint32
}

func wordsKey(w []uint32) string {
	var b strings.Builder
	for i, x := range w {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "0x%02x,0x%02x,0x%02x,0x%02x", x&0xff, x>>8&0xff, x>>16&0xff, x>>24)
	}
	return b.String()
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
	// An s_nop after each probe keeps a probe that needs a literal from
	// eating the next one.
	in := strings.Join(lines, ",0x00,0x00,0x80,0xbf\n") + ",0x00,0x00,0x80,0xbf\n"
	args := []string{"--disassemble", "-triple=amdgcn-amd-amdhsa", "-mcpu=" + m.cpu, "-show-encoding"}
	if m.wave64 {
		args = append(args, "-mattr=+wavefrontsize64")
	}
	cmd := exec.Command(m.tool, args...)
	cmd.Stdin = strings.NewReader(in)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = new(bytes.Buffer)
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
		res[k] = strings.Join(strings.Fields(text), " ")
	}
	return nil
}
