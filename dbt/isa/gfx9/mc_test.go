package gfx9

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9/internal/enc"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
)

// randomWords makes n random encodings of entry e: the opcode bits fixed,
// every other bit random, with register fields biased towards valid values.
func randomWords(r *rand.Rand, e *entry, n int) [][]uint32 {
	var out [][]uint32
	base := baseWords(e)
	nw := 2
	switch e.kind {
	case enc.SOP1, enc.SOP2, enc.SOPK, enc.SOPC, enc.SOPP, enc.VOP1, enc.VOP2, enc.VOPC:
		nw = 1
	case enc.VOP3PX2:
		nw = 4
	}
	mask := enc.OpcodeMask(e.kind)
	for i := 0; i < n; i++ {
		w := make([]uint32, nw, nw+1)
		for j := range w {
			w[j] = base[j]
			if j == 0 {
				w[j] |= r.Uint32() &^ mask
			} else {
				w[j] |= r.Uint32()
			}
		}
		if e.kind == enc.FLAT {
			w[0] = w[0]&^(3<<14) | uint32(e.aux&3)<<14
		}
		if e.kind >= enc.SDWA1 && e.kind <= enc.DPPC {
			w[0] = w[0]&^0x1ff | base[0]&0x1ff
		}
		if e.kind >= enc.SDWA1 && e.kind <= enc.SDWAC {
			// llvm-mc-19 crashes on SDWA select value 7.
			put(w, mSDWADstSel, uint32(r.Intn(7)))
			put(w, mSDWAS0Sel, uint32(r.Intn(7)))
			put(w, mSDWAS1Sel, uint32(r.Intn(7)))
		}
		// Sparse modifiers: most real code has none.
		if r.Intn(2) == 0 && nw >= 2 {
			switch e.kind {
			case enc.VOP3, enc.VOP3P, enc.MAI:
				w[0] &^= 0xff00
				w[1] &^= 0xf8000000
			}
		}
		for _, o := range e.ops {
			b, ok := enc.Lookup(e.kind, o.field)
			if !ok || int(b.Word) >= len(w) {
				continue
			}
			switch b.Code {
			case enc.CodeSrc9:
				if e.kind == enc.MAI {
					// llvm-mc-19 crashes on some MAI constants.
					b.Set(w, 256+uint32(r.Intn(200)))
				} else if r.Intn(3) > 0 {
					b.Set(w, 256+uint32(r.Intn(200)))
				} else {
					b.Set(w, uint32(r.Intn(101)))
				}
			case enc.CodeSrc8, enc.CodeSDst7:
				if r.Intn(4) > 0 {
					b.Set(w, uint32(r.Intn(100)))
				}
			}
		}
		// One literal at most, with a value no inline constant can
		// express (llvm-mc prints its own re-encoding).
		lit := false
		for _, o := range e.ops {
			if b, ok := enc.Lookup(e.kind, o.field); ok && int(b.Word) < len(w) && (b.Code == enc.CodeSrc9 || b.Code == enc.CodeSrc8) {
				if nw == 1 && !lit && r.Intn(6) == 0 {
					b.Set(w, 255)
				}
				if b.Get(w) == 255 {
					if nw != 1 || lit {
						b.Set(w, 1)
						continue
					}
					lit = true
				}
			}
		}
		if lit {
			w = append(w, r.Uint32()|0x10000100)
		}
		out = append(out, w)
	}
	return out
}

func wordsHex(w []uint32) string {
	var b strings.Builder
	for i, x := range w {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "0x%02x,0x%02x,0x%02x,0x%02x", x&0xff, x>>8&0xff, x>>16&0xff, x>>24)
	}
	return b.String()
}

// TestRandomVsLLVMMC decodes random encodings of every gfx942 opcode with
// llvm-mc-19 and with Decode: every word LLVM decodes must decode to the
// same text and re-encode to the same bytes.
func TestRandomVsLLVMMC(t *testing.T) {
	mc := llvmtool.Require(t, llvmtool.MC)
	seed := int64(1)
	if v := os.Getenv("ISA_RANDOM_SEED"); v != "" {
		fmt.Sscan(v, &seed)
	}
	r := rand.New(rand.NewSource(seed))
	var cases [][]uint32
	for i := range entries {
		e := &entries[i]
		if !opInfos[e.info].Targets.Has(isa.GFX942) || e.kind == enc.VOP3PX2 {
			continue
		}
		if e.ops != nil {
			for _, o := range e.ops {
				if o.field == enc.FLiteral {
					goto skip
				}
			}
		}
		cases = append(cases, randomWords(r, e, 6)...)
	skip:
	}
	var lines []string
	for _, w := range cases {
		lines = append(lines, wordsHex(w))
	}
	llvm := map[string]string{}
	if err := mcDisassemble(mc, lines, llvm); err != nil {
		t.Fatal(err)
	}
	checked, ok, extra, extraStrict := 0, 0, 0, 0
	var bad []string
	for _, w := range cases {
		b := make([]byte, 0, 16)
		for _, x := range w {
			b = binary.LittleEndian.AppendUint32(b, x)
		}
		want, decoded := llvm[wordsHex(w)]
		got, err := Decode(b, 0, isa.GFX942)
		if !decoded {
			if err == nil && int(got.Size) == len(b) {
				extra++
				if _, err := DecodeStrict(b, 0, isa.GFX942); err == nil {
					extraStrict++
					if os.Getenv("ISA_STRICT_LOG") != "" {
						fmt.Fprintf(os.Stderr, "strict-extra %08x %s\n", w, Print(&got))
					}
				}
			}
			continue
		}
		if _, err := DecodeStrict(b, 0, isa.GFX942); err != nil {
			bad = append(bad, fmt.Sprintf("%08x: DecodeStrict rejects what llvm-mc decodes (%q): %v", w, want, err))
		}
		checked++
		if err != nil {
			bad = append(bad, fmt.Sprintf("%08x: %v; llvm %q", w, err, want))
			continue
		}
		txt := normalize(Print(&got))
		enc2, _ := Encode(&got)
		if txt == want && bytes.Equal(enc2, b) {
			ok++
		} else {
			bad = append(bad, fmt.Sprintf("%08x: want %q got %q (re-encode %x)", w, want, txt, enc2))
		}
	}
	t.Logf("random gfx942 encodings: %d generated, %d decoded by llvm-mc, %d match; llvm-mc rejects %d that Decode accepts (%d with DecodeStrict)", len(cases), checked, ok, extra, extraStrict)
	if d := os.Getenv("ISA_MISMATCH_FILE"); d != "" {
		os.WriteFile(d, []byte(strings.Join(bad, "\n")), 0o644)
	}
	if checked < len(cases)/4 {
		t.Errorf("llvm-mc decoded only %d of %d", checked, len(cases))
	}
	for i, m := range bad {
		if i >= 30 {
			t.Errorf("... and %d more", len(bad)-i)
			break
		}
		t.Error(m)
	}
}

// mcDisassemble runs llvm-mc-19 on lines (hex byte lists) and records the
// text of each decoded encoding. It bisects around inputs that crash
// llvm-mc-19 and leaves those out.
func mcDisassemble(mc string, lines []string, res map[string]string) error {
	if len(lines) == 0 {
		return nil
	}
	var in bytes.Buffer
	for _, l := range lines {
		in.WriteString(l)
		in.WriteString(",0x00,0x00,0x80,0xbf\n") // s_nop keeps the stream in step
	}
	cmd := exec.Command(mc, "--disassemble", "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-show-encoding")
	cmd.Stdin = &in
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = new(bytes.Buffer)
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			return err
		}
		if len(lines) == 1 {
			if os.Getenv("ISA_MC_CRASH_LOG") != "" {
				fmt.Fprintln(os.Stderr, "llvm-mc crash:", lines[0])
			}
			return nil
		}
		h := len(lines) / 2
		if err := mcDisassemble(mc, lines[:h], res); err != nil {
			return err
		}
		return mcDisassemble(mc, lines[h:], res)
	}
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		i := strings.LastIndex(l, "; encoding: [")
		if i < 0 {
			continue
		}
		text := normalize(l[:i])
		if strings.Contains(text, "/*") {
			continue // LLVM flags an operand as invalid
		}
		res[strings.TrimSuffix(l[i+len("; encoding: ["):], "]")] = text
	}
	return nil
}
