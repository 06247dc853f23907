package fuzzbench

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rocjitsu/rocjitsu/dbt"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/dbt/isa/objfile"
	"github.com/rocjitsu/rocjitsu/dbt/vlds"
	"github.com/rocjitsu/rocjitsu/hsa/aql"
	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
	"github.com/rocjitsu/rocjitsu/internal/kernelcorpus"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/loader/metadata"
	"github.com/rocjitsu/rocjitsu/silkrt"
	"github.com/rocjitsu/rocjitsu/sqtt"
	"github.com/rocjitsu/rocjitsu/sqtt/attdir"
	"github.com/rocjitsu/rocjitsu/sqtt/instrument"
)

// budget is the most one input may take in any parser.
const budget = 10 * time.Millisecond

// parser is one fuzz target's parser, called as the target calls it.
type parser struct {
	pkg, target string
	run         func(args []any)
}

// scratch hands out v200.. for vlds.Lower.
type scratch struct{}

func (scratch) TempVGPRs(n int) ([]uint16, error) {
	out := make([]uint16, n)
	for i := range out {
		out[i] = uint16(200 + i)
	}
	return out, nil
}
func (scratch) TempVGPRRange(n, align int) (uint16, error) { return 210, nil }

func bytesArg(args []any) []byte { b, _ := args[0].([]byte); return b }

var parsers = []parser{
	{"loader", "FuzzParse", func(a []any) {
		f, err := loader.Parse(bytesArg(a))
		if err != nil {
			return
		}
		_, _ = f.Write()
		small := true
		for _, g := range f.Segments {
			small = small && g.Vaddr < 1<<20 && g.Memsz < 1<<20
		}
		if small {
			_, _ = f.LoadImage()
		}
		for _, k := range f.Kernels() {
			_ = k.Descriptor.Check(f.Processor)
			_ = k.Descriptor.Directives(f.Processor, f.CodeObjectVersion())
		}
		if f.Metadata != nil {
			_, _ = f.Metadata.Encode()
		}
	}},
	{"loader", "FuzzPatch", func(a []any) {
		f, err := loader.Parse(bytesArg(a))
		if err != nil || f.Section(".text") == nil || len(f.Kernels()) == 0 {
			return
		}
		text := f.Section(".text")
		nt := make([]byte, 4096, 4096+len(text.Data))
		for i := 0; i < 4096; i += 4 {
			binary.LittleEndian.PutUint32(nt[i:], loader.SNop0)
		}
		nt = append(nt, text.Data...)
		_, _ = loader.Patch(f, loader.PatchSpec{Text: nt, TextMap: func(off uint64) (uint64, bool) { return off + 4096, true },
			Sections: []loader.NewSection{{Name: ".rocjitsu.lds", Data: []byte("sidecar")}}})
	}},
	{"loader/metadata", "FuzzDecode", func(a []any) {
		if md, err := metadata.Decode(bytesArg(a)); err == nil {
			if out, err := md.Encode(); err == nil {
				_, _ = metadata.Decode(out)
			}
		}
	}},
	{"dbt/isa/objfile", "FuzzParse", func(a []any) { _, _ = objfile.Parse(bytesArg(a), "fuzz") }},
	{"dbt/vlds", "FuzzParse", func(a []any) { _, _ = vlds.Parse(bytesArg(a)) }},
	{"dbt/vlds", "FuzzLower", func(a []any) {
		_, _ = vlds.Lower(scratch{}, bytesArg(a), 40)
		_, _ = vlds.LowerLDSDMA(scratch{}, bytesArg(a), 40)
	}},
	{"dbt", "FuzzTranslate", func(a []any) { _, _ = dbt.Translate(bytesArg(a), dbt.Options{}) }},
	{"dbt/isa/gfx9", "FuzzDecode", func(a []any) {
		b := bytesArg(a)
		for _, t := range []isa.Target{isa.GFX942, isa.GFX950} {
			for pc := 0; pc+4 <= len(b); pc += 4 {
				_, _ = gfx9.Decode(b[pc:], uint64(pc), t)
			}
		}
	}},
	{"dbt/isa/gfx12", "FuzzDecode", func(a []any) {
		b := bytesArg(a)
		for _, t := range []isa.Target{isa.GFX1200, isa.GFX1201, isa.GFX1201 | isa.Wave64} {
			for pc := 0; pc+4 <= len(b); pc += 4 {
				_, _ = gfx12.Decode(b[pc:], uint64(pc), t)
			}
		}
	}},
	{"hsa/sim", "FuzzLoadCodeObject", func(a []any) {
		// As the fuzz target: images over 1 MiB cost time by their
		// p_memsz (zeroed memory), not by the input.
		if f, err := loader.Parse(bytesArg(a)); err == nil {
			if size, err := f.ImageSize(); err == nil && size > 1<<20 {
				return
			}
		}
		ag, _ := sim.NewAgent("gfx942")
		_, _ = ag.LoadCodeObject(bytesArg(a))
	}},
	{"hsa/aql", "FuzzDecode", func(a []any) {
		b := bytesArg(a)
		_, _ = aql.DecodeKernelDispatchPacket(b)
		_, _ = aql.DecodeBarrierPacket(b)
		_, _ = aql.DecodeAgentDispatchPacket(b)
	}},
	{"silkrt", "FuzzParseBundle", func(a []any) { _, _, _ = silkrt.ParseBundle(bytesArg(a)) }},
	{"sqtt/instrument", "FuzzInstrument", func(a []any) {
		sel, _ := a[1].(byte)
		// The options of sqtt/instrument's fuzzOptions.
		opt := instrument.Options{Barriers: sel&1 != 0, Loops: sel&2 != 0}
		if sel&4 != 0 {
			opt.Memory = instrument.MemGroup{N: int(sel>>5) + 1, M: int(sel >> 6)}
		}
		if sel&8 != 0 {
			opt.Functions = instrument.Threshold{N: 1, Cost: sel&16 != 0}
		}
		if sel&16 != 0 {
			mask := uint32(sel) | 1
			opt.Scope[0] = &mask
		}
		_, _ = instrument.Instrument(bytesArg(a), opt)
	}},
	{"sqtt", "FuzzParseFuncmap", func(a []any) {
		fm := sqtt.ParseFuncmap(bytesArg(a))
		_ = sqtt.ParseFuncmap(fm.Format())
	}},
	{"sqtt", "FuzzCodeTables", func(a []any) {
		var tables sqtt.CodeTables
		if json.Unmarshal(bytesArg(a), &tables) == nil {
			_ = tables.Funcmaps()
			_, _ = json.Marshal(tables)
		}
	}},
	{"sqtt/attdir", "FuzzShaderdata", func(a []any) {
		s := attdir.NewScanner(strings.NewReader(string(bytesArg(a))), "fuzz.json", 0)
		for {
			if _, ok := s.Next(); !ok {
				break
			}
		}
	}},
	{"sqtt/attdir", "FuzzOccupancy", func(a []any) { _, _ = attdir.ParseOccupancy(bytesArg(a)) }},
	{"internal/kernelcorpus", "FuzzRetarget", func(a []any) { _, _ = kernelcorpus.RetargetGFX942ToGFX950(bytesArg(a)) }},
}

// input is one corpus file of a target.
type input struct {
	p    *parser
	path string
	args []any
}

// inputs returns the slowest-* seeds of every parser's fuzz target, or with
// ROCJITSU_FUZZ_SLOW set every input recorded there.
func inputs(t testing.TB) []input {
	root := projectpath.MustRoot(t)
	slow := os.Getenv("ROCJITSU_FUZZ_SLOW")
	var in []input
	for i := range parsers {
		p := &parsers[i]
		pat := filepath.Join(root, p.pkg, "testdata", "fuzz", p.target, "slowest-*")
		if slow != "" {
			pat = filepath.Join(slow, p.pkg, p.target, "*")
		}
		files, _ := filepath.Glob(pat)
		if len(files) == 0 && slow == "" {
			t.Errorf("%s %s: no input matches %s", p.pkg, p.target, pat)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			args, err := fuzzguard.ReadCorpusFile(data)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			in = append(in, input{p, f, args})
		}
	}
	return in
}

// fastest returns the shortest of n runs: the input's own cost, with as
// little of the load of a shared machine as can be had.
func fastest(in input, n int) time.Duration {
	best := time.Duration(1<<63 - 1)
	for i := 0; i < n; i++ {
		start := time.Now()
		in.p.run(in.args)
		best = min(best, time.Since(start))
	}
	return best
}

// TestSlowestInput checks that the slowest input found for each parser
// takes under 10 ms (the fastest of 5 runs), and lists the slowest input per
// target.
func TestSlowestInput(t *testing.T) {
	type timed struct {
		in input
		d  time.Duration
	}
	worst := map[string]timed{}
	for _, in := range inputs(t) {
		d := fastest(in, 5)
		key := in.p.pkg + " " + in.p.target
		if w, ok := worst[key]; !ok || d > w.d {
			worst[key] = timed{in, d}
		}
		if d > budget {
			t.Errorf("%s %s: %s takes %v (budget %v)", in.p.pkg, in.p.target, in.path, d, budget)
		}
	}
	var keys []string
	for k := range worst {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		w := worst[k]
		t.Logf("%-40s %9v  %s (%d bytes)", k, w.d, w.in.path, len(bytesArg(w.in.args)))
	}
}

// BenchmarkSlowestInput times the slowest input of each parser.
func BenchmarkSlowestInput(b *testing.B) {
	for _, in := range inputs(b) {
		name := strings.ReplaceAll(in.p.pkg, "/", "_") + "." + in.p.target + "." + filepath.Base(in.path)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				in.p.run(in.args)
			}
		})
	}
}
