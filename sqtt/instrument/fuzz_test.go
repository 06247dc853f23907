package instrument

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/sqtt"
)

// fuzzOptions derives pass options from one byte (internal/fuzzbench
// repeats this mapping to re-time the slowest seed).
func fuzzOptions(sel byte) Options {
	opt := Options{Barriers: sel&1 != 0, Loops: sel&2 != 0}
	if sel&4 != 0 {
		opt.Memory = MemGroup{N: int(sel>>5) + 1, M: int(sel >> 6)}
	}
	if sel&8 != 0 {
		opt.Functions = Threshold{N: 1, Cost: sel&16 != 0}
	}
	if sel&16 != 0 {
		opt.Scope[dimWave] = u32(uint32(sel) | 1)
	}
	return opt
}

// FuzzInstrument feeds arbitrary objects and option sets to the pass: it
// must return an error or an object the loader parses again whose funcmap
// the parser reads without a diagnostic, and never panic.
func FuzzInstrument(f *testing.F) {
	root := projectpath.MustRoot(f)
	for _, p := range []string{"gfx942/vector_add.co", "gfx942/matmul_tiled.co", "gfx942/call_noinline.co", "gfx1201/stencil_lds.co", "gfx1201/early_exit_loop.co", "gfx950/vector_add.co"} {
		b, err := os.ReadFile(filepath.Join(root, "testdata/kernels", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, byte(0xff))
		f.Add(b, byte(0x07))
	}
	f.Add([]byte("\x7fELF"), byte(1))
	f.Fuzz(func(t *testing.T, obj []byte, sel byte) {
		var res *Result
		var err error
		fuzzguard.RunArgs(t, []any{obj, sel}, func() { res, err = Instrument(obj, fuzzOptions(sel)) })
		if err != nil {
			return
		}
		if _, err := loader.Parse(res.Object); err != nil {
			t.Fatalf("output does not parse: %v", err)
		}
		if fm := sqtt.ParseFuncmap(res.Funcmap); len(fm.Diagnostics) > 0 {
			t.Fatalf("funcmap diagnostics: %v", fm.Diagnostics)
		}
	})
}

// BenchmarkCorpusOverhead instruments the aiter corpus with --barriers
// --memory 4:8 --loops and reports the static overhead: instructions
// added per marker and the growth of the kernels' code.
func BenchmarkCorpusOverhead(b *testing.B) {
	objs := corpusObjects(b)
	var bodies [][]byte
	for _, p := range objs {
		obj, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		bodies = append(bodies, obj)
	}
	var markers, added, src, grown int
	b.ResetTimer()
	for range b.N {
		markers, added, src, grown = 0, 0, 0, 0
		for _, obj := range bodies {
			res, err := Instrument(obj, Options{Barriers: true, Memory: MemGroup{4, 8}, Loops: true})
			if err != nil {
				b.Fatal(err)
			}
			markers += res.Stats.Markers
			added += res.Stats.AddedInsts
			src += res.Stats.SourceBytes
			grown += res.Stats.BodyBytes
		}
	}
	b.ReportMetric(float64(added)/float64(markers), "insts/marker")
	b.ReportMetric(100*float64(grown-src)/float64(src), "%growth")
	b.ReportMetric(float64(markers), "markers")
	b.ReportMetric(float64(len(bodies)), "objects")
}

// TestRejectsUnwritableNames: a kernel name the funcmap grammar cannot
// hold (found by FuzzInstrument: a newline split the K: row) rejects the
// object instead of writing a section the parser warns about.
func TestRejectsUnwritableNames(t *testing.T) {
	for _, name := range []string{"k", "k\nl_lds", "k@loc", "k "} {
		f, err := loader.Build(loader.BuildSpec{Target: "gfx942", Text: []byte{0x00, 0x00, 0x81, 0xbf}, Kernels: []loader.KernelConfig{{
			Name: name, VGPRCount: 8, SGPRCount: 24, ExplicitU64Args: 1,
		}}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Instrument(f.Raw(), Options{Barriers: true})
		if name == "k" && err != nil {
			t.Errorf("kernel %q: %v", name, err)
		}
		if name != "k" && (!errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), ".sqtt_funcmap row")) {
			t.Errorf("kernel %q: err %v, want a rejection of the name", name, err)
		}
	}
	if _, err := rowNameOK("addr_trace_global@0x1c"); err != nil {
		t.Errorf("scope row with a location: %v", err)
	}
}

func rowNameOK(s string) (string, error) { return s, rowName("scope", s, true) }
