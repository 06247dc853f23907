package instrument

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/hsa/sim/att"
	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/sqtt"
	"github.com/rocjitsu/rocjitsu/sqtt/attdir"
	"github.com/rocjitsu/rocjitsu/sqtt/flame"
	"github.com/rocjitsu/rocjitsu/sqtt/pipeline"
	"github.com/rocjitsu/rocjitsu/sqtt/waves"
)

// pcTrace is an io.Writer for sim.Agent.Trace that records, over all
// waves, how often each code-object offset executes and each transition
// between consecutive offsets of one wave (the dynamic control-flow
// graph of the run).
type pcTrace struct {
	execs  map[uint64]int
	edges  map[[2]uint64]int
	starts map[uint64]int
	last   map[int]uint64
	buf    []byte
	err    error
}

func newPCTrace() *pcTrace {
	return &pcTrace{execs: map[uint64]int{}, edges: map[[2]uint64]int{}, starts: map[uint64]int{}, last: map[int]uint64{}}
}

// Write parses "wave ID PC exec MASK INST" lines.
func (p *pcTrace) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		f := strings.Fields(string(p.buf[:i]))
		p.buf = p.buf[i+1:]
		if len(f) < 3 || f[0] != "wave" {
			p.err = fmt.Errorf("trace line %q", f)
			continue
		}
		w, err1 := strconv.Atoi(f[1])
		pc, err2 := strconv.ParseUint(f[2], 0, 64)
		if err1 != nil || err2 != nil {
			p.err = fmt.Errorf("trace line %q", f)
			continue
		}
		p.execs[pc]++
		if prev, ok := p.last[w]; ok {
			p.edges[[2]uint64{prev, pc}]++
		} else {
			p.starts[pc]++
		}
		p.last[w] = pc
	}
}

// entries returns how often the run entered the natural loop headed by h
// of its dynamic control-flow graph: arrivals at h from outside the loop
// (or as a wave's first instruction). The loop is the one of the
// observed back edges into h (sources h dominates), computed here from
// the trace alone: iterative dominators, then the nodes reaching a back
// edge's source without passing h.
func (p *pcTrace) entries(h uint64) int {
	var nodes []uint64
	for pc := range p.execs {
		nodes = append(nodes, pc)
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i] < nodes[j] })
	idx := map[uint64]int{}
	for i, pc := range nodes {
		idx[pc] = i
	}
	preds := make([][]int, len(nodes))
	for e := range p.edges {
		preds[idx[e[1]]] = append(preds[idx[e[1]]], idx[e[0]])
	}
	// dom[n][m]: m dominates n. Starts are roots dominated by themselves.
	dom := make([][]bool, len(nodes))
	for i := range dom {
		dom[i] = make([]bool, len(nodes))
		_, root := p.starts[nodes[i]]
		for j := range dom[i] {
			dom[i][j] = !root || j == i
		}
	}
	for changed := true; changed; {
		changed = false
		for n := range nodes {
			if _, root := p.starts[nodes[n]]; root {
				continue
			}
			for m := range nodes {
				v := m == n
				if !v && len(preds[n]) > 0 {
					v = true
					for _, q := range preds[n] {
						v = v && dom[q][m]
					}
				}
				if v != dom[n][m] {
					dom[n][m], changed = v, true
				}
			}
		}
	}
	hi, ok := idx[h]
	if !ok {
		return 0
	}
	body := map[int]bool{hi: true}
	var work []int
	for _, q := range preds[hi] {
		if dom[q][hi] && !body[q] {
			body[q] = true
			work = append(work, q)
		}
	}
	for len(work) > 0 {
		n := work[len(work)-1]
		work = work[:len(work)-1]
		for _, q := range preds[n] {
			if !body[q] {
				body[q] = true
				work = append(work, q)
			}
		}
	}
	n := p.starts[h]
	for e, c := range p.edges {
		if e[1] == h && !body[idx[e[0]]] {
			n += c
		}
	}
	return n
}

// predictCounts returns the marker words the instrumented object must
// write on a run whose uninstrumented execution is tr, from the
// placement (res.Sites) and the loop scopes of its funcmap:
//   - a point word (flags 0) is written once per execution of the
//     instruction its site precedes or follows;
//   - a loop's enter (flags 2, or 3 when fused with an exit) once per
//     entry into the natural loop at its header (pcTrace.entries);
//   - exits (0x1, or fused) once per enter, every scope being left before
//     the wave ends.
//
// Enters and exits are returned as enter:ID and "exits"; points by word.
func predictCounts(t *testing.T, res *Result, fm *sqtt.Funcmap, tr *pcTrace) map[string]int {
	t.Helper()
	want := map[string]int{}
	for _, s := range res.Sites {
		for _, v := range s.Values {
			if v&3 == 0 {
				want[fmt.Sprintf("point:%#x", v)] += tr.execs[s.PC]
			}
		}
	}
	enters := 0
	for _, e := range fm.Entries {
		if e.Kind != sqtt.KindUser {
			continue
		}
		h, ok := strings.CutPrefix(e.Name, "loop_")
		if !ok {
			t.Fatalf("user scope %q is not a loop", e.Name)
		}
		pc, err := strconv.ParseUint(h, 0, 64)
		if err != nil {
			t.Fatalf("loop scope %q: %v", e.Name, err)
		}
		n := tr.entries(pc)
		want[fmt.Sprintf("enter:%d", e.ID)] = n
		enters += n
	}
	want["exits"] = enters
	return want
}

// capturedCounts reads a capture with the SQTT pipeline and counts its
// marker words in the classes of predictCounts.
func capturedCounts(t *testing.T, base string) map[string]int {
	t.Helper()
	c, err := pipeline.Open(base, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Traces) != 1 {
		t.Fatalf("traces %v, want one", c.Traces)
	}
	got := map[string]int{}
	_, err = c.Records(c.Traces[0], func() func(attdir.Record) error {
		clear(got)
		return func(r attdir.Record) error {
			v := uint32(r.Value)
			switch {
			case v == 1:
				got["exits"]++
			case v&3 == 0:
				got[fmt.Sprintf("point:%#x", v)]++
			case v&3 == 2:
				got[fmt.Sprintf("enter:%d", v>>2)]++
			case v&3 == 3:
				got["exits"]++
				got[fmt.Sprintf("enter:%d", v>>2)]++
			default:
				t.Errorf("record %#x: unknown flags", v)
			}
			return nil
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// foldedStacks runs the flamegraph stages over the capture under base.
func foldedStacks(t *testing.T, base string) []flame.Stack {
	t.Helper()
	c, err := pipeline.Open(base, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var stacks []flame.Stack
	for _, dir := range c.Traces {
		var trie *waves.Trie
		st, err := c.Run(dir, func() (waves.Sink, *waves.Trie) { trie = waves.NewTrie(); return &flame.Collector{}, trie })
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Warnings) > 0 {
			t.Errorf("%s: warnings %v", dir, st.Warnings)
		}
		stacks = append(stacks, flame.Stacks(trie, false)...)
	}
	return flame.Merge(stacks)
}

// caseNamed returns the kernelref case called name.
func caseNamed(t *testing.T, name string) *kernelref.Case {
	t.Helper()
	cases := kernelref.AllCases()
	for i := range cases {
		if cases[i].Name == name {
			return &cases[i]
		}
	}
	t.Fatalf("no kernelref case %s", name)
	return nil
}

// loopFrames returns the loop_ frames of s, outermost first.
func loopFrames(s flame.Stack) []string {
	var l []string
	for _, f := range s.Frames {
		if strings.HasPrefix(f, "loop_") {
			l = append(l, f)
		}
	}
	return l
}

// TestInstrumentedCaptureLoop is the loop of issue 17 on the simulator:
// test kernels (divergence has a loop nest, matmul_tiled one loop with
// barriers and global loads and stores, bitonic_sort_local 37 barriers:
// clang unrolls its for k / for j nest completely) are instrumented with
// --barriers --memory 4:8 --loops, run with their kernelref inputs on a
// capturing agent, and checked: outputs equal the reference, every marker
// class's count in the written trace equals the count predicted from the
// placement and an instruction trace of the uninstrumented kernel
// (predictCounts), and the flamegraph has the kernel's loop stacks, nested
// for the loop nest.
func TestInstrumentedCaptureLoop(t *testing.T) {
	root := projectpath.MustRoot(t)
	opt := Options{Barriers: true, Memory: MemGroup{4, 8}, Loops: true}
	for _, target := range []string{"gfx942", "gfx950", "gfx1201"} {
		for _, tc := range []struct {
			kernel string
			depth  int // loop nesting the flamegraph must show
		}{{"divergence", 2}, {"matmul_tiled", 1}, {"bitonic_sort_local", 0}} {
			t.Run(target+"/"+tc.kernel, func(t *testing.T) {
				c := caseNamed(t, tc.kernel)
				obj, err := os.ReadFile(filepath.Join(root, c.Object(target)))
				if err != nil {
					t.Fatal(err)
				}
				plain, err := sim.NewAgent(target)
				if err != nil {
					t.Fatal(err)
				}
				tr := newPCTrace()
				plain.Trace = tr
				if _, err := runOnAgent(t, plain, c, obj); err != nil {
					t.Fatalf("uninstrumented run: %v", err)
				}
				if tr.err != nil {
					t.Fatal(tr.err)
				}

				res, err := Instrument(obj, opt)
				if err != nil {
					t.Fatal(err)
				}
				co, err := sqtt.ParseCodeObject(res.Object)
				if err != nil || co.Funcmap == nil {
					t.Fatalf("funcmap: %v", err)
				}
				base := t.TempDir()
				w, err := att.NewWriter(base)
				if err != nil {
					t.Fatal(err)
				}
				a, err := sim.NewAgent(target)
				if err != nil {
					t.Fatal(err)
				}
				a.Capture = sim.NewCapture(w)
				out, err := runOnAgent(t, a, c, res.Object)
				if err != nil {
					t.Fatalf("instrumented run: %v", err)
				}
				if err := c.Check(out); err != nil {
					t.Fatalf("instrumented %s: %v", c.Name, err)
				}

				want := predictCounts(t, res, co.Funcmap, tr)
				got := capturedCounts(t, base)
				keys := map[string]bool{}
				for k := range want {
					keys[k] = true
				}
				for k := range got {
					keys[k] = true
				}
				var summary []string
				for k := range keys {
					if got[k] != want[k] {
						t.Errorf("%s: %d in the trace, predicted %d", k, got[k], want[k])
					}
					summary = append(summary, fmt.Sprintf("%s=%d", k, got[k]))
				}
				sort.Strings(summary)
				t.Logf("%s %s: %s", target, tc.kernel, strings.Join(summary, " "))
				if (want["exits"] == 0) != (tc.depth == 0) {
					t.Errorf("%d loop entries predicted, loop depth %d", want["exits"], tc.depth)
				}
				if tc.depth == 0 {
					return
				}

				stacks := foldedStacks(t, base)
				deepest := 0
				for _, s := range stacks {
					l := loopFrames(s)
					deepest = max(deepest, len(l))
					if len(l) >= 2 {
						t.Logf("nested stack %s (%d cycles)", strings.Join(s.Frames, ";"), s.Cycles)
					}
					if len(s.Frames) < 2 || s.Frames[len(s.Frames)-len(l)-1] != c.Name {
						t.Errorf("stack %v not under kernel %s", s.Frames, c.Name)
					}
				}
				if deepest != tc.depth {
					t.Errorf("deepest loop nesting in the flamegraph %d, want %d", deepest, tc.depth)
				}
			})
		}
	}
}
