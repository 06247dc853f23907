package gfx9

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// mcCase is one encoding line of LLVM's gfx950 MC tests.
type mcCase struct {
	file    string
	line    int
	text    string
	bytes   []byte
	invalid bool // "warning: invalid instruction encoding"
}

func parseMCFile(t *testing.T, path string) []mcCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []mcCase
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	pendingInvalid := false
	for sc.Scan() {
		n++
		l := sc.Text()
		if strings.Contains(l, "GFX950: warning: invalid instruction encoding") {
			pendingInvalid = true
			continue
		}
		if pendingInvalid && strings.HasPrefix(l, "0x") {
			out = append(out, mcCase{file: filepath.Base(path), line: n, bytes: parseHexList(l), invalid: true})
			pendingInvalid = false
			continue
		}
		i := strings.Index(l, "GFX950:")
		if i < 0 {
			continue
		}
		rest := l[i+len("GFX950:"):]
		j := strings.Index(rest, "encoding: [")
		if j < 0 {
			continue
		}
		text := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest[:j]), ";"))
		enc := strings.TrimSpace(rest[j+len("encoding: ["):])
		enc = strings.TrimSuffix(enc, "]")
		b := parseHexList(enc)
		if len(b) == 0 {
			continue
		}
		out = append(out, mcCase{file: filepath.Base(path), line: n, text: normalize(text), bytes: b})
	}
	return out
}

func parseHexList(s string) []byte {
	var b []byte
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(p), 0, 8)
		if err != nil {
			return nil
		}
		b = append(b, byte(v))
	}
	return b
}

// TestGFX950MCData decodes every encoding line of LLVM's gfx950 MC tests,
// compares the text with LLVM's and re-encodes it. Disassembler tests are
// the reference text; an assembler test line whose bytes a disassembler
// test also has uses the disassembler's spelling (the two differ in a few
// documented lines, see the data's README).
func TestGFX950MCData(t *testing.T) {
	dir := projectpath.MustShared(t, "isa-oracle", "gfx950")
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	sort.Strings(files)
	var cases []mcCase
	dasm := map[string]string{}
	for _, f := range files {
		if !strings.HasSuffix(f, ".txt") && !strings.HasSuffix(f, ".s") {
			continue
		}
		cs := parseMCFile(t, f)
		for _, c := range cs {
			if strings.HasSuffix(f, ".txt") && !c.invalid {
				dasm[string(c.bytes)] = c.text
			}
		}
		cases = append(cases, cs...)
	}
	if len(cases) < 1000 {
		t.Fatalf("only %d gfx950 MC cases found", len(cases))
	}
	textOK, encOK, total := 0, 0, 0
	var bad []string
	for _, c := range cases {
		total++
		in, err := Decode(c.bytes, 0, isa.GFX950)
		if c.invalid {
			if err == nil && int(in.Size) == len(c.bytes) {
				bad = append(bad, c.file+":"+strconv.Itoa(c.line)+": decoded an invalid encoding as "+Print(&in))
			} else {
				textOK++
				encOK++
			}
			continue
		}
		want := c.text
		if d, ok := dasm[string(c.bytes)]; ok {
			want = d
		}
		if err != nil {
			bad = append(bad, c.file+":"+strconv.Itoa(c.line)+": "+err.Error()+" want "+want)
			continue
		}
		if _, err := DecodeStrict(c.bytes, 0, isa.GFX950); err != nil {
			bad = append(bad, c.file+":"+strconv.Itoa(c.line)+": DecodeStrict: "+err.Error())
		}
		if int(in.Size) != len(c.bytes) {
			bad = append(bad, c.file+":"+strconv.Itoa(c.line)+": size "+strconv.Itoa(int(in.Size))+" want "+strconv.Itoa(len(c.bytes))+" ("+want+")")
			continue
		}
		got := normalize(Print(&in))
		if want == "" {
			// An assembler check with bytes only (read_tr tests).
			textOK++
		} else if got == want {
			textOK++
		} else {
			bad = append(bad, c.file+":"+strconv.Itoa(c.line)+": want "+strconv.Quote(want)+" got "+strconv.Quote(got))
		}
		b, err := Encode(&in)
		if err == nil && bytes.Equal(b, c.bytes) {
			encOK++
		} else {
			bad = append(bad, c.file+":"+strconv.Itoa(c.line)+": re-encode "+strconv.Quote(string(b))+" ("+want+")")
		}
	}
	t.Logf("gfx950 MC data: %d encoding lines, text %d, re-encode %d", total, textOK, encOK)
	if d := os.Getenv("ISA_MISMATCH_FILE"); d != "" {
		os.WriteFile(d, []byte(strings.Join(bad, "\n")), 0o644)
	}
	for i, m := range bad {
		if i >= 30 {
			t.Errorf("... and %d more", len(bad)-i)
			break
		}
		t.Error(m)
	}
}

// TestGFX950OnlyTSV checks the list of gfx950-only instructions: every
// listed operation decodes for gfx950 only, and every example encoding in
// the list decodes to the listed mnemonic and re-encodes byte-exact.
func TestGFX950OnlyTSV(t *testing.T) {
	path := filepath.Join(projectpath.MustShared(t, "isa-oracle"), "gfx950-only-instructions.tsv")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]*isa.OpInfo{}
	for i := range opInfos {
		if opInfos[i].Targets.Has(isa.GFX950) {
			names[opInfos[i].Name] = &opInfos[i]
		}
	}
	rows, examples := 0, 0
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) < 5 {
			continue
		}
		rows++
		mnem := strings.Fields(cols[4])[0]
		info := names[mnem]
		if info == nil {
			t.Errorf("%s: not in the gfx950 tables", mnem)
			continue
		}
		// The lds forms of buffer loads are gfx950-only while the loads
		// themselves are not.
		if info.Targets.Has(isa.GFX942) && !strings.Contains(cols[4], "lds") {
			t.Errorf("%s: listed as gfx950-only but the tables give %v", mnem, info.Targets)
		}
		if len(cols) < 7 {
			continue
		}
		for _, ex := range strings.Split(cols[6], ";") {
			i := strings.Index(ex, "= [")
			if i < 0 {
				continue
			}
			j := strings.Index(ex[i:], "]")
			b := parseHexList(strings.ReplaceAll(ex[i+3:i+j], " ", ""))
			if len(b) == 0 {
				continue
			}
			examples++
			in, err := Decode(b, 0, isa.GFX950)
			if err != nil {
				t.Errorf("%s: %x: %v", mnem, b, err)
				continue
			}
			if int(in.Size) != len(b) || !strings.Contains(cols[4], in.Info.Name) {
				t.Errorf("%s: %x decodes as %q (%d bytes)", mnem, b, Print(&in), in.Size)
			}
			if out, err := Encode(&in); err != nil || !bytes.Equal(out, b) {
				t.Errorf("%s: %x re-encodes as %x (%v)", mnem, b, out, err)
			}
		}
	}
	t.Logf("gfx950-only list: %d operations, %d example encodings", rows, examples)
	if rows < 90 || examples < 20 {
		t.Errorf("list too short: %d rows, %d examples", rows, examples)
	}
}
