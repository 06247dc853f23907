package cfg

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/loader/kd"
)

// BenchmarkBuild builds the source CFG of every aiter gfx950 object as
// the translator does (decoding in place with gfx9.DecodeInto, each
// window of bytes once) and
// reports guest .text MB per second.
func BenchmarkBuild(b *testing.B) {
	paths, _ := filepath.Glob(filepath.Join(projectpath.MustShared(b, "corpus", "aiter", "gfx950"), "*.co"))
	if len(paths) == 0 {
		b.Fatal("no aiter gfx950 objects")
	}
	type input struct {
		text  Text
		roots []Root
	}
	var ins []input
	size := 0
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		f, err := loader.Parse(raw)
		if err != nil {
			b.Fatalf("%s: %v", p, err)
		}
		ts := f.Section(".text")
		in := input{text: Text{Addr: ts.Addr, Data: ts.Data}}
		for i, k := range f.Kernels() {
			in.roots = append(in.roots, Root{Kernel: i, Addr: k.EntryAddr})
			if k.Descriptor.Get(kd.KERNARG_PRELOAD_SPEC_LENGTH) != 0 {
				in.roots = append(in.roots, Root{Kernel: i, Addr: k.EntryAddr + 256, Preload: true})
			}
		}
		ins = append(ins, in)
		size += len(ts.Data)
	}
	opt := Options{DecodeInto: func(dst *isa.Inst, code []byte, pc uint64) error {
		return gfx9.DecodeInto(dst, code, pc, isa.GFX950)
	}, DecodeWindow: func(in *isa.Inst) int { return gfx9.DecodeWindow(in, isa.GFX950) }}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, in := range ins {
			g, err := Build(in.text, in.roots, decode, opt)
			if err != nil {
				b.Fatal(err)
			}
			for k := range in.roots {
				g.Scope(in.roots[k].Kernel)
			}
		}
	}
}
