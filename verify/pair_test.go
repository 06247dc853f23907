package verify_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/hsa/sim/mem"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/sqtt/instrument"
	"github.com/rocjitsu/rocjitsu/verify"
)

// seedOptions are the options: --barriers --memory 4:8 --loops.
var seedOptions = instrument.Options{Barriers: true, Memory: instrument.MemGroup{N: 4, M: 8}, Loops: true}

// pairTally counts the outcomes of instrumented-versus-plain runs.
type pairTally struct {
	objects, notInstrumented int
	// wrote counts the identical kernels that wrote memory.
	wrote    int
	outcomes map[verify.Outcome]int
}

// comparePlainInstrumented instruments every object of files with io,
// runs each kernel plain and
// instrumented on the object's own simulated target (one workgroup,
// opt's budget and fill) and fails unless the instrumented run ends the
// same way and writes the same bytes. Both runs timing out is not a
// comparison: it is counted. Kernels the simulator cannot run are counted
// too.
func comparePlainInstrumented(t *testing.T, files []string, io instrument.Options, opt verify.Options) pairTally {
	t.Helper()
	tally := pairTally{outcomes: map[verify.Outcome]int{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for _, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			plain, err := os.ReadFile(f)
			if err != nil {
				t.Error(err)
				return
			}
			name := filepath.Base(f)
			res, err := instrument.Instrument(plain, io)
			mu.Lock()
			tally.objects++
			mu.Unlock()
			if err != nil {
				t.Logf("%s: not instrumented: %v", name, err)
				mu.Lock()
				tally.notInstrumented++
				mu.Unlock()
				return
			}
			rs, err := verify.Compare(name, plain, res.Object, opt)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, r := range rs {
				tally.outcomes[r.Outcome]++
				if r.Outcome == verify.Identical && r.WrittenWords > 0 {
					tally.wrote++
				}
				switch r.Outcome {
				case verify.Identical, verify.FaultAlike, verify.NotRun:
				case verify.Timeout:
					if r.GuestInstructions < opt.MaxInstructions || r.HostInstructions < opt.MaxInstructions*opt.BudgetFactor {
						t.Errorf("%s %s: only one run timed out: %s", name, r.Name, r.Reason)
					}
				default:
					t.Errorf("%s %s: instrumented run %s: %s (first %+v, guest fault %q, host fault %q)", name, r.Name, r.Outcome, r.Reason, r.First, r.GuestFault, r.HostFault)
				}
			}
		}()
	}
	wg.Wait()
	return tally
}

func globs(t *testing.T, patterns ...string) []string {
	t.Helper()
	root := projectpath.MustRoot(t)
	var out []string
	for _, p := range patterns {
		m, _ := filepath.Glob(filepath.Join(root, p))
		out = append(out, m...)
	}
	return out
}

// TestInstrumentedTestKernels: every gfx942 and gfx950 test kernel,
// instrumented, writes the same memory and ends the same way as the plain
// kernel on its own simulated target.
func TestInstrumentedTestKernels(t *testing.T) {
	files := globs(t, "testdata/kernels/gfx942/*.co", "testdata/kernels/gfx950/*.co")
	if len(files) == 0 {
		t.Fatal("no test kernels under testdata/kernels")
	}
	start := time.Now()
	c := comparePlainInstrumented(t, files, seedOptions, verify.Options{Workgroups: 1, MaxInstructions: 200_000, BudgetFactor: verify.HostBudgetFactor})
	t.Logf("test kernels: %d objects, %d not instrumented, outcomes %v (%d wrote memory) (%s)", c.objects, c.notInstrumented, c.outcomes, c.wrote, time.Since(start).Round(time.Millisecond))
	if c.outcomes[verify.Identical] == 0 {
		t.Error("no kernel compared identical")
	}
}

// TestInstrumentedAiterCorpus: the aiter gfx950 objects, instrumented
// with --barriers --memory 4:8 --loops (every one must instrument), on
// one workgroup over float-filled memory with a budget of 100,000 guest
// instructions so the test stays short: with synthesized arguments most
// kernels finish early (some without writing), two fault alike and one
// loops until both budgets run out (counted, not compared).
func TestInstrumentedAiterCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus run")
	}
	files := globs(t, "../shared/corpus/aiter/gfx950/*.co")
	if len(files) == 0 {
		t.Skip("no aiter corpus under ../shared/corpus/aiter/gfx950")
	}
	for _, set := range []struct {
		name string
		io   instrument.Options
		opt  verify.Options
	}{
		{"--barriers --memory 4:8 --loops", seedOptions, verify.Options{Workgroups: 1, Fill: mem.FillFloat, MaxInstructions: 100_000, BudgetFactor: verify.HostBudgetFactor}},
		// Address tracing runs a lane loop per traced op: some 80 times
		// the plain instruction count.
		{"--barriers --loops --addresses memory,lds", instrument.Options{Barriers: true, Loops: true, Addresses: instrument.AddrMemory | instrument.AddrLDS},
			verify.Options{Workgroups: 1, Fill: mem.FillFloat, MaxInstructions: 50_000, BudgetFactor: 100}},
	} {
		start := time.Now()
		c := comparePlainInstrumented(t, files, set.io, set.opt)
		t.Logf("aiter gfx950, %s: %d objects, %d not instrumented, outcomes %v (%d wrote memory) (%s)", set.name, c.objects, c.notInstrumented, c.outcomes, c.wrote, time.Since(start).Round(time.Millisecond))
		if c.notInstrumented > 0 {
			t.Errorf("%d aiter objects not instrumented", c.notInstrumented)
		}
		if c.wrote == 0 {
			t.Error("no aiter kernel wrote memory")
		}
	}
}

// TestCompareDetects: Compare finds what differs. An object against
// itself is identical; with its first global store turned into two
// s_nop the memory differs; objects of two targets are an error.
func TestCompareDetects(t *testing.T) {
	root := projectpath.MustRoot(t)
	plain, err := os.ReadFile(filepath.Join(root, "testdata/kernels/gfx942/vector_add.co"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := verify.Compare("vector_add", plain, plain, verify.Options{})
	if err != nil || len(rs) == 0 || rs[0].Outcome != verify.Identical || rs[0].WrittenWords == 0 {
		t.Fatalf("self-compare: %+v %v", rs, err)
	}
	f, err := loader.Parse(plain)
	if err != nil {
		t.Fatal(err)
	}
	text := f.Section(".text")
	patched := append([]byte(nil), plain...)
	found := false
	for pc := text.Addr; pc < text.Addr+text.Size; {
		off := pc - text.Addr
		in, err := gfx9.Decode(text.Data[off:], pc, isa.GFX942)
		if err != nil || in.Size == 0 {
			t.Fatalf("decode at %#x: %v", pc, err)
		}
		if strings.HasPrefix(in.Name(), "global_store") {
			at := text.Offset + off
			for i := uint64(0); i < 8; i += 4 {
				binary.LittleEndian.PutUint32(patched[at+i:], 0xbf800000) // s_nop 0
			}
			found = true
			break
		}
		pc += uint64(in.Size)
	}
	if !found {
		t.Fatal("vector_add has no global store")
	}
	rs, err = verify.Compare("vector_add", plain, patched, verify.Options{})
	if err != nil || len(rs) == 0 || rs[0].Outcome != verify.Different || rs[0].First == nil {
		t.Fatalf("patched compare: %+v %v", rs, err)
	}
	other, err := os.ReadFile(filepath.Join(root, "testdata/kernels/gfx950/vector_add.co"))
	if err != nil {
		t.Skip(err)
	}
	if _, err := verify.Compare("vector_add", plain, other, verify.Options{}); err == nil || !strings.Contains(err.Error(), "targets differ") {
		t.Errorf("two targets: %v", err)
	}
}
