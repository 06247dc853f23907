package cfg

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/loader/kd"
)

// corpusInputs returns the .text and kernel roots of every aiter object
// for target dir (gfx942 or gfx950).
func corpusInputs(t testing.TB, dir string) (names []string, texts []Text, roots [][]Root) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(projectpath.MustShared(t, "corpus", "aiter", dir), "*.co"))
	if len(paths) == 0 {
		t.Fatalf("no aiter %s objects", dir)
	}
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := loader.Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		ts := f.Section(".text")
		var rs []Root
		for i, k := range f.Kernels() {
			rs = append(rs, Root{Kernel: i, Addr: k.EntryAddr})
			if k.Descriptor.Get(kd.KERNARG_PRELOAD_SPEC_LENGTH) != 0 {
				rs = append(rs, Root{Kernel: i, Addr: k.EntryAddr + 256, Preload: true})
			}
		}
		names, texts, roots = append(names, filepath.Base(p)), append(texts, Text{Addr: ts.Addr, Data: ts.Data}), append(roots, rs)
	}
	return names, texts, roots
}

// TestDecodeMemoSameInstructions builds the graph of every aiter gfx942
// and gfx950 object with and without the decode memo (DecodeWindow) and
// checks that the two hold the same instructions, field by field and
// operand by operand, the same blocks and errors, and that the memo
// spared decodes.
func TestDecodeMemoSameInstructions(t *testing.T) {
	for _, tc := range []struct {
		dir    string
		target isa.Target
	}{{"gfx942", isa.GFX942}, {"gfx950", isa.GFX950}} {
		names, texts, roots := corpusInputs(t, tc.dir)
		decodes := 0
		into := func(dst *isa.Inst, code []byte, pc uint64) error {
			decodes++
			return gfx9.DecodeInto(dst, code, pc, tc.target)
		}
		window := func(in *isa.Inst) int { return gfx9.DecodeWindow(in, tc.target) }
		plainDecodes, memoDecodes := 0, 0
		for i := range texts {
			decodes = 0
			plain, err := Build(texts[i], roots[i], decode, Options{DecodeInto: into})
			if err != nil {
				t.Fatalf("%s: %v", names[i], err)
			}
			plainDecodes += decodes
			decodes = 0
			memo, err := Build(texts[i], roots[i], decode, Options{DecodeInto: into, DecodeWindow: window})
			if err != nil {
				t.Fatalf("%s: %v", names[i], err)
			}
			memoDecodes += decodes
			a, b := plain.Instructions(), memo.Instructions()
			if len(a) != len(b) {
				t.Fatalf("%s: %d instructions with the memo, %d without", names[i], len(b), len(a))
			}
			for j := range a {
				if !reflect.DeepEqual(*a[j], *b[j]) {
					t.Fatalf("%s: at %#x the memo gives\n%+v\ndecoding gives\n%+v", names[i], a[j].PC, *b[j], *a[j])
				}
			}
			if !reflect.DeepEqual(plain.Order, memo.Order) || !reflect.DeepEqual(plain.Errors, memo.Errors) || len(plain.Blocks) != len(memo.Blocks) {
				t.Fatalf("%s: blocks or errors differ with the memo", names[i])
			}
			plain.Release()
			memo.Release()
		}
		if memoDecodes >= plainDecodes {
			t.Fatalf("%s: the memo spared no decode (%d with, %d without)", tc.dir, memoDecodes, plainDecodes)
		}
		t.Logf("%s: %d decodes with the memo, %d without", tc.dir, memoDecodes, plainDecodes)
	}
}
