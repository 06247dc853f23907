package gfx9

import (
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/objfile"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// TestPlainPathSameDecode decodes every instruction of the gfx942 and
// gfx950 corpus and test kernels, and random words, for both targets with
// decodeFields' short path for plain operands and without it, and
// requires the same instruction (operands, modifiers, padding) and error.
func TestPlainPathSameDecode(t *testing.T) {
	var wins [][]byte
	for _, dir := range []string{
		projectpath.MustShared(t, "corpus", "aiter", "gfx942"),
		projectpath.MustShared(t, "corpus", "aiter", "gfx950"),
		filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "gfx942"),
		filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "gfx950"),
	} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.co"))
		for _, p := range files {
			f, err := objfile.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range f.Sections {
				for off := 0; off+4 <= len(s.Data); off += 4 {
					w := make([]byte, 16)
					copy(w, s.Data[off:])
					wins = append(wins, w)
				}
			}
		}
	}
	if len(wins) < 100000 {
		t.Fatalf("only %d words from the corpus", len(wins))
	}
	r := rand.New(rand.NewPCG(7, 9))
	for i := 0; i < 200000; i++ {
		w := make([]byte, 16)
		for j := range w {
			w[j] = byte(r.Uint32())
		}
		wins = append(wins, w)
	}
	defer func() { noPlainPath = false }()
	var a, b isa.Inst
	n := 0
	for _, tgt := range []isa.Target{isa.GFX942, isa.GFX950} {
		for _, w := range wins {
			noPlainPath = false
			errA := DecodeInto(&a, w, 0x1000, tgt)
			noPlainPath = true
			errB := DecodeInto(&b, w, 0x1000, tgt)
			if (errA == nil) != (errB == nil) || errA != nil && errA.Error() != errB.Error() {
				t.Fatalf("%v % x: errors %v and %v", tgt, w, errA, errB)
			}
			if errA != nil {
				continue
			}
			n++
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%v % x: decoded\n%+v\nwith the short path, and\n%+v\nwithout", tgt, w, a, b)
			}
		}
	}
	t.Logf("%d words decoded alike both ways", n)
}
