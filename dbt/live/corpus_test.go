package live

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/cfg"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/loader/kd"
)

// referenceAfter is an independent, instruction-level formulation of the
// analysis: after(x) is the union, over every instruction y that can run
// next, of y's reads and after(y); iterated to a fixpoint.
func referenceAfter(g *cfg.Graph, sc *cfg.Scope, extra ExtraUses) map[uint64]Regs {
	inScope := map[uint64]bool{}
	for _, l := range sc.Blocks {
		inScope[l] = true
	}
	var conts []uint64
	for _, l := range sc.Blocks {
		for _, c := range g.Blocks[l].Calls {
			conts = append(conts, c.Cont)
		}
	}
	type node struct {
		in   *isa.Inst
		next []*isa.Inst
		uses Regs
	}
	var nodes []*node
	for _, l := range sc.Blocks {
		b := g.Blocks[l]
		for j, x := range b.Insts {
			n := &node{in: x}
			n.uses.touch(x, false)
			if extra != nil {
				for _, o := range extra(x) {
					n.uses.add(o)
				}
			}
			if j+1 < len(b.Insts) {
				n.next = []*isa.Inst{b.Insts[j+1]}
			} else {
				targets := append([]uint64(nil), b.Succs...)
				for _, c := range b.Calls {
					targets = append(targets, c.Callee)
				}
				if ind, ok := g.Indirect[x.PC]; ok && ind.Kind == cfg.Return {
					targets = append(targets, conts...)
				}
				for _, t := range targets {
					if inScope[t] {
						n.next = append(n.next, g.Blocks[t].Insts[0])
					}
				}
			}
			nodes = append(nodes, n)
		}
	}
	byPC := map[uint64]*node{}
	for _, n := range nodes {
		byPC[n.in.PC] = n
	}
	after := map[uint64]Regs{}
	for changed := true; changed; {
		changed = false
		for i := len(nodes) - 1; i >= 0; i-- {
			n := nodes[i]
			r := after[n.in.PC]
			for _, y := range n.next {
				yn := byPC[y.PC]
				a := after[y.PC]
				if r.or(&yn.uses) {
					changed = true
				}
				if r.or(&a) {
					changed = true
				}
			}
			after[n.in.PC] = r
		}
	}
	return after
}

// inst is the decoded instruction at pc (nil when there is none).
func inst(g *cfg.Graph, pc uint64) *isa.Inst {
	in, _ := g.Inst(pc)
	return in
}

// naiveFree is FreeVGPRs register by register.
func naiveFree(in *isa.Inst, after *Regs, limit, n int) []uint16 {
	var self Regs
	self.touch(in, true)
	var out []uint16
	for r := 0; r < limit && len(out) < n; r++ {
		if !after.V.Has(r) && !self.V.Has(r) {
			out = append(out, uint16(r))
		}
	}
	return out
}

// TestAfterMatchesReference compares After for every instruction of every
// kernel scope of the gfx950 test kernels and a few aiter objects with the
// instruction-level reference (extra uses included: every VOP3P-class
// instruction also reads v255, so the extra path is exercised).
func TestAfterMatchesReference(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "gfx950", "*.co"))
	aiter, _ := filepath.Glob(filepath.Join(projectpath.MustShared(t, "corpus", "aiter", "gfx950"), "*.co"))
	if len(paths) == 0 || len(aiter) < 8 {
		t.Fatal("no inputs")
	}
	// Every object is checked for registers beyond the sets; the first
	// nref (the test kernels and 8 aiter objects) against the reference.
	nref := len(paths) + 8
	paths = append(paths, aiter...)
	extra := func(x *isa.Inst) []isa.Operand {
		if x.Format == isa.VOP3P {
			return []isa.Operand{{Kind: isa.KindReg, Class: isa.VGPR, Reg: 255, Width: 1}}
		}
		return nil
	}
	// Extra uses that differ from instruction to instruction: every
	// seventh instruction reads a VGPR and an SGPR pair named by its
	// address, so a use attributed to the wrong instruction shows.
	varied := func(x *isa.Inst) []isa.Operand {
		if w := x.PC / 4; w%7 == 0 {
			return []isa.Operand{{Kind: isa.KindReg, Class: isa.VGPR, Reg: uint16(w % 256), Width: 1}, {Kind: isa.KindReg, Class: isa.SGPR, Reg: uint16(w % 100), Width: 2}}
		}
		return nil
	}
	checked := 0
	for pi, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := loader.Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		ts := f.Section(".text")
		var roots []cfg.Root
		for i, k := range f.Kernels() {
			roots = append(roots, cfg.Root{Kernel: i, Addr: k.EntryAddr})
			if k.Descriptor.Get(kd.KERNARG_PRELOAD_SPEC_LENGTH) != 0 {
				roots = append(roots, cfg.Root{Kernel: i, Addr: k.EntryAddr + 256, Preload: true})
			}
		}
		g, err := cfg.Build(cfg.Text{Addr: ts.Addr, Data: ts.Data}, roots, func(c []byte, pc uint64) (isa.Inst, error) {
			return gfx9.Decode(c, pc, isa.GFX950)
		}, cfg.Options{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		// The sets hold 256 registers per file: every register a guest
		// names must fit, or a read beyond them would go unrecorded.
		for _, x := range g.Instructions() {
			pc := x.PC
			for _, o := range x.Operands {
				if o.Kind == isa.KindReg && (o.Class == isa.VGPR || o.Class == isa.AGPR || o.Class == isa.SGPR) && int(o.Reg)+int(o.Width) > 64*len(Set{}) {
					t.Fatalf("%s: %#x names %v register %d..%d, beyond the %d-register sets", filepath.Base(p), pc, o.Class, o.Reg, int(o.Reg)+int(o.Width)-1, 64*len(Set{}))
				}
			}
		}
		if pi >= nref {
			continue
		}
		for i := range f.Kernels() {
			sc := g.Scope(i)
			if len(sc.Errors) > 0 || len(sc.Blocks) == 0 {
				continue
			}
			for _, ex := range []ExtraUses{nil, extra, varied} {
				info := Analyze(g, sc, ex)
				ref := referenceAfter(g, sc, ex)
				for pc, want := range ref {
					got := info.After(pc)
					if got == nil || *got != want {
						t.Fatalf("%s kernel %d: After(%#x) differs from the reference", filepath.Base(p), i, pc)
					}
					for _, lim := range [][2]int{{0, 4}, {37, 3}, {64, 64}, {128, 8}, {256, 300}, {520, 600}} {
						if got, exp := info.FreeVGPRs(inst(g, pc), lim[0], lim[1]), naiveFree(inst(g, pc), &want, lim[0], lim[1]); !slices.Equal(got, exp) {
							t.Fatalf("%s: FreeVGPRs(%#x, %d, %d) = %v, want %v", filepath.Base(p), pc, lim[0], lim[1], got, exp)
						}
					}
					checked++
				}
				// In address order (the translator's order of questions),
				// a second Info answers the same.
				pcs := slices.Sorted(maps.Keys(ref))
				inOrder := Analyze(g, sc, ex)
				for _, pc := range pcs {
					if got, want := inOrder.After(pc), ref[pc]; got == nil || *got != want {
						t.Fatalf("%s kernel %d: After(%#x) in address order differs from the reference", filepath.Base(p), i, pc)
					}
				}
				if info.After(ts.Addr+uint64(len(ts.Data))) != nil {
					t.Fatalf("%s: After past .text is not nil", filepath.Base(p))
				}
			}
		}
	}
	if checked < 10000 {
		t.Fatalf("only %d instructions checked", checked)
	}
	t.Logf("%d instructions checked", checked)
}
