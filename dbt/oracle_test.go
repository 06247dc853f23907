package dbt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/loader"
)

// lineRE matches an llvm-objdump instruction line's address and words.
var lineRE = regexp.MustCompile(`^\s+(\S+).*// ([0-9A-F]+): ([0-9A-F]{8})((?: [0-9A-F]{8})*)(?:\s+<[^>]*>)?\s*$`)

// verifyObject checks a translated object with the LLVM oracles: readelf
// without warnings, every .text word decodes for gfx942, every branch
// lands on an instruction start, every descriptor's entry is an
// instruction start with the source entry's residue modulo 256.
func verifyObject(t *testing.T, name string, src, out []byte) {
	t.Helper()
	readelf := llvmtool.Require(t, llvmtool.Readelf)
	objdump := llvmtool.Require(t, llvmtool.Objdump)
	dir := t.TempDir()
	path := filepath.Join(dir, "out.co")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(readelf, "-a", path)
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil || stderr.Len() > 0 || bytes.Contains(bytes.ToLower(stdout), []byte("warning")) {
		t.Fatalf("%s: llvm-readelf-19 -a: %v\n%s", name, err, stderr.String())
	}
	stderr.Reset()
	cmd = exec.Command(objdump, "-d", "--mcpu=gfx942", path)
	cmd.Stderr = &stderr
	dis, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("%s: llvm-objdump-19: %v\n%s", name, err, stderr.String())
	}
	starts := map[uint64]bool{}
	type line struct {
		at    uint64
		mn    string
		words []uint32
	}
	var lines []line
	type branch struct {
		at   uint64
		word uint32
		mn   string
	}
	var branches []branch
	for _, l := range strings.Split(string(dis), "\n") {
		m := lineRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if m[1] == ".long" || strings.Contains(l, "<unknown>") {
			t.Fatalf("%s: undecodable word for gfx942: %s", name, strings.TrimSpace(l))
		}
		a, _ := strconv.ParseUint(m[2], 16, 64)
		w, _ := strconv.ParseUint(m[3], 16, 32)
		starts[a] = true
		ln := line{at: a, mn: m[1], words: []uint32{uint32(w)}}
		for _, x := range strings.Fields(m[4]) {
			v, _ := strconv.ParseUint(x, 16, 32)
			ln.words = append(ln.words, uint32(v))
		}
		lines = append(lines, ln)
		if strings.HasPrefix(m[1], "s_branch") || strings.HasPrefix(m[1], "s_cbranch") || strings.HasPrefix(m[1], "s_call_b64") {
			branches = append(branches, branch{a, uint32(w), m[1]})
		}
	}
	if len(starts) == 0 {
		t.Fatalf("%s: no instructions disassembled", name)
	}
	for _, b := range branches {
		tgt := uint64(int64(b.at) + 4 + 4*int64(int16(b.word)))
		if !starts[tgt] {
			t.Fatalf("%s: %s at %#x targets %#x, not an instruction start", name, b.mn, b.at, tgt)
		}
	}
	// Long windows: s_getpc_b64; s_add_u32 lit; s_addc_u32 lit;
	// [s_cmp_lg_u32;] s_setpc_b64 must land on an instruction start.
	for i := 0; i+3 < len(lines); i++ {
		if lines[i].mn != "s_getpc_b64" || lines[i+1].mn != "s_add_u32" || lines[i+2].mn != "s_addc_u32" || len(lines[i+1].words) != 2 || len(lines[i+2].words) != 2 {
			continue
		}
		j := i + 3
		if lines[j].mn == "s_cmp_lg_u32" && j+1 < len(lines) {
			j++
		}
		if lines[j].mn != "s_setpc_b64" && lines[j].mn != "s_swappc_b64" {
			continue
		}
		tgt := lines[i].at + 4 + (uint64(lines[i+2].words[1])<<32 | uint64(lines[i+1].words[1]))
		if !starts[tgt] {
			t.Fatalf("%s: long window at %#x targets %#x, not an instruction start", name, lines[i].at, tgt)
		}
	}
	sf, err := loader.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	of, err := loader.Parse(out)
	if err != nil {
		t.Fatalf("%s: output does not parse: %v", name, err)
	}
	srcK := map[string]uint64{}
	for _, k := range sf.Kernels() {
		srcK[k.Symbol] = k.EntryAddr
	}
	ks := of.Kernels()
	if len(ks) != len(srcK) {
		t.Fatalf("%s: %d kernels out, %d in", name, len(ks), len(srcK))
	}
	for _, k := range ks {
		if !starts[k.EntryAddr] {
			t.Fatalf("%s: kernel %s entry %#x is not an instruction start", name, k.Name, k.EntryAddr)
		}
		if k.EntryAddr%256 != srcK[k.Symbol]%256 {
			t.Fatalf("%s: kernel %s entry %#x lost the source residue of %#x", name, k.Name, k.EntryAddr, srcK[k.Symbol])
		}
	}
	if of.Processor.Name != "gfx942" {
		t.Fatalf("%s: output processor %q", name, of.Processor.Name)
	}
	// Every VGPR and AGPR the host code names is allocated by the
	// descriptors (resource feedback). The unified register file is
	// allocated as a whole, so arch VGPRs may reach past ACCUM_OFFSET in
	// code that names no AGPRs there; the AGPRs must fit above it.
	allocV, allocA, minAcc := 0, 0, 512
	for _, k := range ks {
		total := k.Descriptor.NextFreeVGPR(of.Processor)
		acc := k.Descriptor.AccumOffset()
		if acc > total {
			acc = total
		}
		allocV = max(allocV, min(total, 256))
		allocA = max(allocA, total-acc)
		minAcc = min(minAcc, acc)
	}
	namedV, namedA := 0, 0
	tx := of.Section(".text")
	for off := 0; off < len(tx.Data); {
		in, err := gfx9.Decode(tx.Data[off:], tx.Addr+uint64(off), isa.GFX942)
		if err != nil {
			t.Fatalf("%s: host code at %#x does not decode: %v", name, tx.Addr+uint64(off), err)
		}
		for _, o := range in.Operands {
			if o.Kind != isa.KindReg {
				continue
			}
			end := int(o.Reg) + int(o.Width)
			if o.Class == isa.VGPR && end > allocV || o.Class == isa.AGPR && end > allocA {
				t.Fatalf("%s: %s at %#x names %s%d..%d beyond the allocation (%d VGPRs, %d AGPRs)", name, gfx9.Print(&in), in.PC, o.Class, o.Reg, end-1, allocV, allocA)
			}
			switch o.Class {
			case isa.VGPR:
				namedV = max(namedV, end)
			case isa.AGPR:
				namedA = max(namedA, end)
			}
		}
		off += int(in.Size)
	}
	if namedA > 0 && len(ks) == 1 && namedV > minAcc {
		t.Fatalf("%s: host code names arch VGPRs up to v%d over the AGPR range that starts at ACCUM_OFFSET %d, and AGPRs too", name, namedV-1, minAcc)
	}
}

func readFile(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func textOf(t testing.TB, obj []byte) []byte {
	t.Helper()
	f, err := loader.Parse(obj)
	if err != nil {
		t.Fatal(err)
	}
	return f.Section(".text").Data
}

var _ = binary.LittleEndian
var _ = fmt.Sprint

func readFileErr(p string) ([]byte, error) { return os.ReadFile(p) }

func gfx9DecodeForTest(b []byte, pc uint64) (isa.Inst, error) { return gfx9.Decode(b, pc, isa.GFX942) }
