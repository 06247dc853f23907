package dbt

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/vlds"
	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/hsa/sim/wave"
	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader"
)

// TestSidecarsCorpus translates every aiter gfx950 object with sidecars:
// every kernel of a committed object whose static LDS exceeds 64 KiB must
// get a sidecar, and the committed section must parse and point at
// descriptors with no hardware LDS.
func TestSidecarsCorpus(t *testing.T) {
	dir := projectpath.MustShared(t, "corpus", "aiter", "gfx950")
	paths, err := filepath.Glob(filepath.Join(dir, "*.co"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("corpus: %v", err)
	}
	sort.Strings(paths)
	need, made := 0, 0
	for _, p := range paths {
		guest, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := corpusSidecars(p, guest)
		if err != nil {
			continue // rejected by the normal translation
		}
		for _, s := range res.Sidecars {
			need++
			if !s.Made {
				t.Errorf("%s %s: no sidecar: %s", filepath.Base(p), s.Kernel, s.Reason)
				continue
			}
			made++
			sc := s
			checkSidecarBody(t, res.Object, &sc, false)
			t.Logf("%s %s: static LDS %d, %d accesses lowered, %d bytes", filepath.Base(p), s.Kernel, s.StaticLDS, s.Lowered, s.Bytes)
		}
		if res.LDS == nil {
			continue
		}
		f, err := loader.Parse(res.Object)
		if err != nil {
			t.Fatal(err)
		}
		oracleCheck(t, filepath.Base(p), res.Object)
		sec, err := vlds.Parse(f.Section(vlds.SectionName).Data)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(p), err)
		}
		for _, e := range sec.Entries {
			tail := f.Section(".rocjitsu.kd")
			if tail == nil || e.Sidecar < tail.Addr || e.Sidecar >= tail.Addr+tail.Size {
				t.Fatalf("%s: sidecar descriptor %#x outside the descriptor tail", filepath.Base(p), e.Sidecar)
			}
			d := tail.Data[e.Sidecar-tail.Addr:]
			if d[0]|d[1]|d[2]|d[3] != 0 {
				t.Errorf("%s: sidecar descriptor %#x requests hardware LDS", filepath.Base(p), e.Sidecar)
			}
		}
	}
	t.Logf("%d of %d kernels needing virtual LDS (in committed objects) have sidecars", made, need)
	if need == 0 {
		t.Fatal("no corpus kernel needs virtual LDS")
	}
}

// oracleCheck runs llvm-readelf-19 -a (no warnings) and llvm-objdump-19 -d
// --mcpu=gfx942 (no undecodable word) on a translated object.
func oracleCheck(t *testing.T, name string, obj []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "o.co")
	if err := os.WriteFile(path, obj, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(llvmtool.Require(t, llvmtool.Readelf), "-a", path).CombinedOutput()
	if err != nil || strings.Contains(string(out), "warning") {
		t.Errorf("%s: llvm-readelf-19: %v\n%s", name, err, out)
	}
	out, err = exec.Command(llvmtool.Require(t, llvmtool.Objdump), "-d", "--mcpu=gfx942", path).CombinedOutput()
	if err != nil || strings.Contains(string(out), "<unknown>") {
		t.Errorf("%s: llvm-objdump-19: %v (undecodable words: %d)", name, err, strings.Count(string(out), "<unknown>"))
	}
}

// TestCorpusSidecarsOnSimulator runs every aiter kernel that has a sidecar
// with all-zero explicit arguments over two workgroups of 256: the guest on
// the simulated gfx950 agent with hardware LDS, the sidecar on the simulated
// gfx942 agent with a backing store. Real inputs are not available, so the
// check is behavioural: both complete, or both fault in the same wave at the
// same instruction with the same cause (zero arguments are null pointers
// for some kernels).
func TestCorpusSidecarsOnSimulator(t *testing.T) {
	ran, completed := corpusSimCompare(t, 300000, corpusSidecars)
	t.Logf("%d corpus sidecars compared, %d ran to completion, the others fault where the guest does", ran, completed)
	if ran == 0 || completed == 0 {
		t.Fatalf("%d ran, %d completed", ran, completed)
	}
}

// BenchmarkCorpusSidecarsOnSimulator is the same comparison without an
// instruction bound (the f4gemm kernels take ~20 s each on the simulator);
// it reports the objects compared, not a speed.
func BenchmarkCorpusSidecarsOnSimulator(b *testing.B) {
	for i := 0; i < b.N; i++ {
		ran, completed := corpusSimCompare(b, 0, corpusSidecars)
		b.ReportMetric(float64(ran), "objects")
		b.ReportMetric(float64(completed), "completed")
	}
}

// corpusSimCompare runs the comparison; maxInstructions bounds the guest's
// run per wave (0: none) and sidecars makes the translation. It returns the
// objects compared and those that ran to completion.
func corpusSimCompare(t testing.TB, maxInstructions uint64, sidecars func(path string, guest []byte) (*SidecarResult, error)) (ran, completed int) {
	dir := projectpath.MustShared(t, "corpus", "aiter", "gfx950")
	paths, _ := filepath.Glob(filepath.Join(dir, "*.co"))
	for _, p := range paths {
		guest, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sidecars(p, guest)
		if err != nil || res.LDS == nil {
			continue
		}
		f, err := loader.Parse(guest)
		if err != nil {
			t.Fatal(err)
		}
		k := f.Kernels()[0]
		ka := int(k.Descriptor.KernargSize)
		if k.Metadata != nil {
			ka = max(ka, int(k.Metadata.KernargSegmentSize))
		}
		c := &kernelref.Case{Name: k.Name, Grid: [3]uint32{512, 1, 1}, Block: [3]uint32{256, 1, 1}, KernargSize: ka}
		a, err := sim.NewAgent("gfx950")
		if err != nil {
			t.Fatal(err)
		}
		ex, err := a.LoadCodeObject(guest)
		if err != nil {
			t.Fatal(err)
		}
		gk, err := ex.Kernel(k.Name)
		if err != nil {
			t.Fatal(err)
		}
		// Bound the guest's run; kernels that loop longer on zero
		// arguments (the f4gemm pair: ~20 s each) are left to
		// BenchmarkCorpusSidecarsOnSimulator.
		if maxInstructions != 0 {
			a.MaxInstructions = maxInstructions
		}
		gerr := a.DispatchExt(gk, c.Grid, c.Block, make([]byte, ka), 0, 0)
		if gerr != nil && strings.Contains(gerr.Error(), "instruction limit") && maxInstructions != 0 {
			t.Logf("%s: the guest runs longer than %d instructions per wave; not compared here", filepath.Base(p), maxInstructions)
			continue
		}
		_, _, serr := runSidecarOnSim(t, c, res.Object, "gfx942")
		var gf, sf *wave.Fault
		if errors.As(gerr, &gf) && strings.Contains(gf.Err.Error(), "not supported by the simulator") {
			t.Logf("%s: the guest cannot run on the simulator (%v); not compared", filepath.Base(p), gerr)
			continue
		}
		ran++
		switch {
		case gerr == nil && serr == nil:
			completed++
		case errors.As(gerr, &gf) && errors.As(serr, &sf):
			if gf.Wave != sf.Wave || !sameOp(gf.Inst, sf.Inst) || gf.Err.Error() != sf.Err.Error() {
				t.Errorf("%s: guest %v, sidecar %v", filepath.Base(p), gerr, serr)
			}
		default:
			t.Errorf("%s: guest %v, sidecar %v", filepath.Base(p), gerr, serr)
		}
	}
	return ran, completed
}

// sameOp reports whether the sidecar's faulting instruction is the guest's,
// or the plain load its LDS DMA form is lowered to (global_load_lds_dword
// -> global_load_dword, buffer_load_dword ... lds -> buffer_load_dword).
func sameOp(guest, side string) bool {
	g, s := strings.Fields(guest), strings.Fields(side)
	if len(g) == 0 || len(s) == 0 {
		return guest == side
	}
	if g[0] == s[0] {
		return guest == side || strings.HasPrefix(g[0], "buffer_load_")
	}
	return strings.Replace(g[0], "_lds_", "_", 1) == s[0]
}

var (
	corpusMu  sync.Mutex
	corpusRes = map[string]*SidecarResult{}
	corpusErr = map[string]error{}
)

// corpusSidecars translates a corpus object with sidecars once per test
// binary (two tests use the results).
func corpusSidecars(path string, guest []byte) (*SidecarResult, error) {
	corpusMu.Lock()
	defer corpusMu.Unlock()
	if r, ok := corpusRes[path]; ok {
		return r, corpusErr[path]
	}
	r, err := TranslateWithSidecars(guest, Options{Name: filepath.Base(path)}, SidecarOptions{})
	corpusRes[path], corpusErr[path] = r, err
	return r, err
}
