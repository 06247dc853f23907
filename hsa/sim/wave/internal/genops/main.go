// Command genops builds the gfx9 opcode-to-mnemonic tables of package wave
// by asking LLVM's disassembler (llvm-mc-19) to print one probe encoding per
// (format, opcode) pair for gfx942, and by adding the gfx950-only opcodes
// listed in the shared ISA oracle. It is run by go generate.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// probe describes how to build probe instructions for one format. Some
// opcodes reject operand fields they do not use, so each format has several
// variants with fewer operands; the first variant that decodes wins.
type probe struct {
	name     string
	count    int
	variants int
	words    func(op, v int) []uint32
}

// pick returns the v-th entry of xs, or its last one.
func pick(xs []uint32, v int) uint32 {
	if v < len(xs) {
		return xs[v]
	}
	return xs[len(xs)-1]
}

var probes = []probe{
	{"SOP2", 0x60, 1, func(op, v int) []uint32 { return []uint32{0x80000000 | uint32(op)<<23 | 4<<16 | 2<<8 | 6} }},
	{"SOPK", 0x1d, 1, func(op, v int) []uint32 { return []uint32{0xb0000000 | uint32(op)<<23 | 4<<16 | 4} }},
	{"SOP1", 0x100, 2, func(op, v int) []uint32 {
		return []uint32{0xbe800000 | pick([]uint32{4, 0}, v)<<16 | uint32(op)<<8 | pick([]uint32{2, 0}, v)}
	}},
	{"SOPC", 0x80, 1, func(op, v int) []uint32 { return []uint32{0xbf000000 | uint32(op)<<16 | 2<<8 | 4} }},
	{"SOPP", 0x80, 1, func(op, v int) []uint32 { return []uint32{0xbf800000 | uint32(op)<<16} }},
	{"SMEM", 0x100, 3, func(op, v int) []uint32 {
		if v == 2 { // no operand fields: s_memtime, s_memrealtime, s_dcache_*
			return []uint32{0xc0000000 | uint32(op)<<18, 0}
		}
		return []uint32{0xc0020000 | uint32(op)<<18 | pick([]uint32{4, 0}, v)<<6 | 2, 0x10}
	}},
	{"VOP2", 0x3e, 1, func(op, v int) []uint32 { return []uint32{uint32(op)<<25 | 8<<17 | 4<<9 | 0x102} }},
	{"VOP1", 0x100, 2, func(op, v int) []uint32 {
		return []uint32{0x7e000000 | uint32(op)<<9 | pick([]uint32{8, 0}, v)<<17 | pick([]uint32{0x102, 0}, v)}
	}},
	{"VOPC", 0x100, 1, func(op, v int) []uint32 { return []uint32{0x7c000000 | uint32(op)<<17 | 4<<9 | 0x102} }},
	{"VOP3", 0x400, 4, func(op, v int) []uint32 {
		return []uint32{0xd0000000 | uint32(op)<<16 | pick([]uint32{8, 8, 8, 0}, v),
			pick([]uint32{0x102, 0x102, 0x102, 0}, v) | pick([]uint32{0x104, 0x104, 0, 0}, v)<<9 | pick([]uint32{0x106, 0, 0, 0}, v)<<18}
	}},
	{"VOP3P", 0x80, 3, func(op, v int) []uint32 {
		return []uint32{0xd3800000 | uint32(op)<<16 | 8,
			pick([]uint32{0x102, 0x102, 0x102}, v) | pick([]uint32{0x104, 0x104, 0}, v)<<9 | pick([]uint32{0x110, 0, 0}, v)<<18}
	}},
	{"DS", 0x100, 8, func(op, v int) []uint32 {
		vd := pick([]uint32{8, 8, 8, 8, 0, 0, 0, 0}, v)
		d0 := pick([]uint32{4, 4, 0, 0, 4, 4, 0, 0}, v)
		d1 := pick([]uint32{6, 0, 6, 0, 6, 0, 6, 0}, v)
		return []uint32{0xd8000000 | uint32(op)<<17, vd<<24 | d1<<16 | d0<<8 | 2}
	}},
	{"FLAT", 0x80, 2, func(op, v int) []uint32 {
		return []uint32{0xdc000000 | uint32(op)<<18, pick([]uint32{8, 0}, v)<<24 | pick([]uint32{0, 4}, v)<<8 | 2}
	}},
	{"SCRATCH", 0x80, 2, func(op, v int) []uint32 {
		return []uint32{0xdc004000 | uint32(op)<<18, pick([]uint32{8, 0}, v)<<24 | 0x7f<<16 | pick([]uint32{0, 4}, v)<<8 | 2}
	}},
	{"GLOBAL", 0x80, 2, func(op, v int) []uint32 {
		return []uint32{0xdc008000 | uint32(op)<<18, pick([]uint32{8, 0}, v)<<24 | 0x7f<<16 | pick([]uint32{0, 4}, v)<<8 | 2}
	}},
	{"MUBUF", 0x80, 1, func(op, v int) []uint32 { return []uint32{0xe0001000 | uint32(op)<<18, 0x80<<24 | 1<<16 | 8<<8 | 2} }},
}

var lineRe = regexp.MustCompile(`^\s*(\S.*?)\s*// ([0-9A-F]{12}):`)

// disasm assembles the probes into 16-byte slots (probe, a literal dword,
// s_nop padding) and disassembles them with llvm-objdump-19; the
// instruction printed at a slot's start address is the probe's decoding.
func disasm(probes [][]uint32) (map[int]string, error) {
	dir, err := os.MkdirTemp("", "genops")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var src bytes.Buffer
	src.WriteString(".text\n")
	for _, ws := range probes {
		slot := append(append([]uint32{}, ws...), 5)
		for len(slot) < 4 {
			slot = append(slot, 0xbf800000)
		}
		var parts []string
		for _, w := range slot {
			for i := 0; i < 4; i++ {
				parts = append(parts, fmt.Sprintf("0x%02x", byte(w>>(8*i))))
			}
		}
		fmt.Fprintf(&src, ".byte %s\n", strings.Join(parts, ","))
	}
	sfile := filepath.Join(dir, "p.s")
	ofile := filepath.Join(dir, "p.o")
	if err := os.WriteFile(sfile, src.Bytes(), 0o644); err != nil {
		return nil, err
	}
	if out, err := exec.Command("llvm-mc-19", "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-filetype=obj", sfile, "-o", ofile).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("llvm-mc-19: %v: %s", err, out)
	}
	out, err := exec.Command("llvm-objdump-19", "-d", "--mcpu=gfx942", ofile).Output()
	if err != nil {
		return nil, fmt.Errorf("llvm-objdump-19: %v", err)
	}
	res := map[int]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := lineRe.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		addr, _ := strconv.ParseUint(m[2], 16, 64)
		if addr%16 != 0 || strings.HasPrefix(m[1], ".long") || strings.Contains(m[1], "<unknown>") {
			continue
		}
		res[int(addr/16)] = m[1]
	}
	return res, nil
}

func mnemonic(s string) string {
	f := strings.Fields(s)
	m := f[0]
	for _, suf := range []string{"_e32", "_e64", "_sdwa", "_dpp"} {
		m = strings.TrimSuffix(m, suf)
	}
	return m
}

func main() {
	out := flag.String("o", "opcodes_gen.go", "output file")
	oracle := flag.String("gfx950", "", "path of gfx950-only-instructions.tsv")
	flag.Parse()
	var b bytes.Buffer
	b.WriteString("// Code generated by genops (llvm-mc-19 -mcpu=gfx942 and the gfx950 oracle list); DO NOT EDIT.\n\n")
	b.WriteString("package wave\n\n")
	extra := map[string]map[int]string{}
	if *oracle != "" {
		data, err := os.ReadFile(*oracle)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, ln := range strings.Split(string(data), "\n") {
			if ln == "" || ln[0] == '#' {
				continue
			}
			f := strings.Split(ln, "\t")
			if len(f) < 5 {
				continue
			}
			op, err := strconv.Atoi(f[1])
			if err != nil {
				continue
			}
			fm := f[0]
			switch fm {
			case "VOP3P_MFMA":
				fm = "VOP3P"
			case "VOP1", "VOP2", "VOP3", "VOP3P", "DS", "MUBUF":
			default:
				if strings.HasPrefix(fm, "FLAT") || strings.HasPrefix(fm, "GLOBAL") {
					fm = "GLOBAL"
				} else {
					continue
				}
			}
			name := strings.Fields(f[4])[0]
			if extra[fm] == nil {
				extra[fm] = map[int]string{}
			}
			extra[fm][op] = name
			if fm == "VOP1" {
				if extra["VOP3"] == nil {
					extra["VOP3"] = map[int]string{}
				}
				extra["VOP3"][0x140+op] = name
			}
			if fm == "VOP2" {
				if extra["VOP3"] == nil {
					extra["VOP3"] = map[int]string{}
				}
				extra["VOP3"][0x100+op] = name
			}
		}
	}
	for _, p := range probes {
		res := map[int]string{}
		for v := 0; v < p.variants; v++ {
			ps := make([][]uint32, p.count)
			for op := range ps {
				ps[op] = p.words(op, v)
			}
			r, err := disasm(ps)
			if err != nil {
				fmt.Fprintf(os.Stderr, "genops: %s: %v\n", p.name, err)
				os.Exit(1)
			}
			for op, s := range r {
				if _, ok := res[op]; !ok {
					res[op] = s
				}
			}
		}
		fmt.Fprintf(&b, "// gfx950Only%s lists the %s opcodes that only gfx950 decodes.\n", p.name, p.name)
		fmt.Fprintf(&b, "var gfx950Only%s = map[int]bool{", p.name)
		var xs []int
		for op := range extra[p.name] {
			if _, ok := res[op]; !ok {
				xs = append(xs, op)
			}
		}
		sort.Ints(xs)
		for _, op := range xs {
			fmt.Fprintf(&b, "%d: true,", op)
		}
		b.WriteString("}\n\n")
		fmt.Fprintf(&b, "// names%s maps %s opcodes to LLVM mnemonics (without encoding suffixes).\n", p.name, p.name)
		fmt.Fprintf(&b, "var names%s = [%d]string{\n", p.name, p.count)
		for op := 0; op < p.count; op++ {
			name := ""
			if s, ok := res[op]; ok {
				name = mnemonic(s)
			} else if s, ok := extra[p.name][op]; ok {
				name = s
			}
			if name != "" {
				fmt.Fprintf(&b, "%d: %q,\n", op, name)
			}
		}
		b.WriteString("}\n\n")
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(filepath.Clean(*out), src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
