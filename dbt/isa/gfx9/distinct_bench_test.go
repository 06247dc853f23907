package gfx9

import (
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/objfile"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// distinctWindows returns the 16-byte windows (zero-padded) at which the
// gfx942 corpus and test kernels hold an instruction not seen before in
// its first 8 bytes: what `rocjitsu disasm` decodes and prints on the
// distinct listing of BenchmarkDisasmListing (the rest comes from its
// memo).
func distinctWindows(b *testing.B) [][16]byte {
	b.Helper()
	files, _ := filepath.Glob(filepath.Join(projectpath.MustShared(b, "corpus", "aiter", "gfx942"), "*.co"))
	tk, _ := filepath.Glob(filepath.Join(projectpath.MustRoot(b), "testdata", "kernels", "gfx942", "*.co"))
	files = append(files, tk...)
	seen := map[[8]byte]bool{}
	var out [][16]byte
	var in isa.Inst
	for _, p := range files {
		f, err := objfile.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range f.Sections {
			for off := 0; off+4 <= len(s.Data); {
				var win [16]byte
				copy(win[:], s.Data[off:])
				size := 4
				if DecodeInto(&in, s.Data[off:], s.Addr+uint64(off), isa.GFX942) == nil {
					size = int(in.Size)
				}
				var key [8]byte
				copy(key[:], win[:min(size, 8)])
				if !seen[key] {
					seen[key] = true
					out = append(out, win)
				}
				off += size
			}
		}
	}
	return out
}

// BenchmarkDecodePrintDistinct decodes and prints, for gfx942, each
// distinct instruction of the gfx942 corpus once per iteration and
// reports the time per instruction (the per-instruction cost that the
// disassembler's memo cannot save on a listing of objects seen once).
func BenchmarkDecodePrintDistinct(b *testing.B) {
	wins := distinctWindows(b)
	var in isa.Inst
	buf := make([]byte, 0, 256)
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for i := range wins {
			w := wins[i][:]
			if DecodeInto(&in, w, 0x1000, isa.GFX942) != nil {
				continue
			}
			buf = AppendInst(buf[:0], &in, nil)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(wins)), "ns/inst")
}

// BenchmarkDecodeDistinct is BenchmarkDecodePrintDistinct without the
// printing: the decoder's share of the per-instruction cost.
func BenchmarkDecodeDistinct(b *testing.B) {
	wins := distinctWindows(b)
	var in isa.Inst
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for i := range wins {
			_ = DecodeInto(&in, wins[i][:], 0x1000, isa.GFX942)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(wins)), "ns/inst")
}
