package instrument

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/cfg"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/loader"
)

// assemble returns llvm-mc-19's machine code for src on mcpu.
func assemble(t testing.TB, mcpu, src string) []byte {
	t.Helper()
	cmd := exec.Command(llvmtool.Require(t, llvmtool.MC), "-triple=amdgcn-amd-amdhsa", "-mcpu="+mcpu, "-show-encoding")
	cmd.Stdin = strings.NewReader(src)
	asm, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("llvm-mc: %v\n%s", err, asm)
	}
	var code []byte
	for _, m := range regexp.MustCompile(`encoding: \[([^\]]*)\]`).FindAllStringSubmatch(string(asm), -1) {
		for _, x := range strings.Split(m[1], ",") {
			v, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(x), "0x"), 16, 8)
			if err != nil {
				t.Fatal(err)
			}
			code = append(code, byte(v))
		}
	}
	return code
}

// build makes a one-kernel code object "k" from assembly.
func build(t testing.TB, mcpu, src string) []byte {
	t.Helper()
	f, err := loader.Build(loader.BuildSpec{Target: mcpu, Text: assemble(t, mcpu, src), Kernels: []loader.KernelConfig{{
		Name: "k", VGPRCount: 8, SGPRCount: 24, ExplicitU64Args: 1,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return f.Raw()
}

// markerTrace walks the instrumented object's CFG and returns, for every
// path-independent block, the marker words it writes; it fails when the
// scope stack depth at a block differs between predecessors or an exit
// pops an empty stack (markers must nest on every path).
func checkBalanced(t *testing.T, obj []byte) {
	t.Helper()
	f, err := loader.Parse(obj)
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := isa.TargetFromMach(uint32(f.Flags.Mach))
	ts := f.Section(".text")
	decode := func(code []byte, pc uint64) (isa.Inst, error) {
		if isa.GFX9.Has(tg) {
			return gfx9.Decode(code, pc, tg)
		}
		return gfx12.Decode(code, pc, tg)
	}
	var roots []cfg.Root
	for i, k := range f.Kernels() {
		roots = append(roots, cfg.Root{Kernel: i, Addr: k.EntryAddr})
	}
	g, err := cfg.Build(cfg.Text{Addr: ts.Addr, Data: ts.Data}, roots, decode, cfg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	depth := map[uint64]int{}
	var work []uint64
	for _, r := range roots {
		depth[r.Addr] = 0
		work = append(work, r.Addr)
	}
	reach := func(a uint64, d int, from uint64) {
		if old, ok := depth[a]; ok {
			if old != d {
				t.Fatalf("block %#x entered with scope depth %d and %d (from %#x)", a, old, d, from)
			}
			return
		}
		depth[a] = d
		work = append(work, a)
	}
	for len(work) > 0 {
		a := work[len(work)-1]
		work = work[:len(work)-1]
		b := g.Blocks[a]
		if b == nil {
			t.Fatalf("no block at %#x", a)
		}
		d := depth[a]
		m0, known := uint32(0), false
		for _, in := range b.Insts {
			v, has := uint32(0), false
			switch in.Name() {
			case "s_mov_b32":
				o := in.Operands
				if o[0].Class == isa.Special && isa.SpecialReg(o[0].Reg) == isa.RegM0 {
					switch o[1].Kind {
					case isa.KindInline:
						m0, known = uint32(o[1].Imm-128), o[1].Imm >= 128 && o[1].Imm <= 192
					case isa.KindLiteral:
						m0, known = in.Literal, true
					default:
						known = false
					}
				}
			case "s_ttracedata_imm":
				v, has = uint32(in.Operands[0].Imm)&0xff, true
			case "s_ttracedata":
				// A register M0 is an address-trace payload record
				// (EXEC, lane addresses), which has no stack effect.
				v, has = m0, known
			}
			if !has {
				continue
			}
			if v&1 != 0 {
				d--
				if d < 0 {
					t.Fatalf("%#x: exit marker pops an empty stack", in.PC)
				}
			}
			if v&2 != 0 {
				d++
			}
		}
		for _, s := range b.Succs {
			reach(s, d, b.Last().PC)
		}
		for _, c := range b.Calls {
			reach(c.Callee, d, b.Last().PC)
			reach(c.Cont, d, b.Last().PC)
		}
	}
}

func writeFile(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
