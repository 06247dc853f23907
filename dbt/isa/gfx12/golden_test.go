package gfx12

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// encLine is one "text ; encoding: [bytes]" line of an llvm-mc listing.
type encLine struct {
	text  string
	bytes []byte
}

func readEnc(t *testing.T, path string) []encLine {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []encLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		l := sc.Text()
		i := strings.Index(l, "; encoding: [")
		if i < 0 {
			continue
		}
		var bs []byte
		for _, f := range strings.Split(strings.TrimSuffix(l[i+len("; encoding: ["):], "]"), ",") {
			v, err := strconv.ParseUint(strings.TrimSpace(f), 0, 8)
			if err != nil {
				t.Fatalf("%s: bad byte %q", path, f)
			}
			bs = append(bs, byte(v))
		}
		out = append(out, encLine{normalize(l[:i]), bs})
	}
	return out
}

// TestGoldenEncodings decodes LLVM 19's gfx1200 wave64 golden encodings
// (isa-oracle/llvm19/g1200*.enc), prints them as llvm-mc did and encodes
// them back byte for byte.
func TestGoldenEncodings(t *testing.T) {
	for _, name := range []string{"g1200.enc", "g1200-extra.enc"} {
		lines := readEnc(t, projectpath.MustShared(t, "isa-oracle", "llvm19", name))
		if len(lines) == 0 {
			t.Fatalf("%s: no encodings", name)
		}
		match := 0
		for _, l := range lines {
			in, err := Decode(l.bytes, 0, isa.GFX1200|isa.Wave64)
			if err != nil {
				t.Errorf("%s: %q: %v", name, l.text, err)
				continue
			}
			if int(in.Size) != len(l.bytes) {
				t.Errorf("%s: %q: size %d, want %d", name, l.text, in.Size, len(l.bytes))
			}
			if got := Print(&in); got != l.text {
				// The assembler's listing keeps the immediate as written
				// ("s_barrier_wait -1"); the disassembler, which Print
				// follows, prints the encoded field (0xffff). Such lines
				// are checked against llvm-mc-19 --disassemble instead.
				if want := mcDisassemble(t, l.bytes, true); got != want {
					t.Errorf("%s: got %q want %q (disassembler: %q)", name, got, l.text, want)
				} else {
					t.Logf("%s: %q prints as the disassembler does: %q", name, l.text, got)
					match++
				}
			} else {
				match++
			}
			b, err := Encode(&in)
			if err != nil || !bytes.Equal(b, l.bytes) {
				t.Errorf("%s: %q re-encodes as %x (%v), want %x", name, l.text, b, err, l.bytes)
			}
		}
		t.Logf("%s: %d/%d encodings print as llvm-mc-19 and re-encode", name, match, len(lines))
	}
}

// mcDisassemble returns llvm-mc-19's disassembly of one instruction.
func mcDisassemble(t *testing.T, b []byte, wave64 bool) string {
	t.Helper()
	tool := llvmtool.Require(t, llvmtool.MC)
	var in strings.Builder
	for i, x := range b {
		if i > 0 {
			in.WriteByte(',')
		}
		fmt.Fprintf(&in, "0x%02x", x)
	}
	args := []string{"--disassemble", "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx1200"}
	if wave64 {
		args = append(args, "-mattr=+wavefrontsize64")
	}
	cmd := exec.Command(tool, args...)
	cmd.Stdin = strings.NewReader(in.String() + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, ".") {
			return normalize(l)
		}
	}
	return ""
}
