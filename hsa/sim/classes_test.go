package sim

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/cost"
	"github.com/rocjitsu/rocjitsu/hsa/sim/wave"
	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// traceCounts counts the executed instructions of an agent's text trace
// ("wave N OFFSET exec MASK MNEMONIC ...") by class, and their weight in
// the issue-cycle model on target: the independent count the agent's
// counters must agree with.
func traceCounts(t *testing.T, trace []byte, target string) (cost.Counts, uint64) {
	t.Helper()
	var c cost.Counts
	var passes uint64
	for _, l := range strings.Split(strings.TrimSuffix(string(trace), "\n"), "\n") {
		f := strings.Fields(l)
		if len(f) < 6 || f[0] != "wave" || f[3] != "exec" {
			t.Fatalf("trace line %q", l)
		}
		name := f[5]
		cl := cost.Of(name)
		c.Add(cl, 1)
		passes += uint64(cost.IssuePasses(target, name, cl, traceF8(t, l)))
	}
	return c, passes
}

// tracePCs counts the executions of each code-object offset of an
// agent's text trace.
func tracePCs(t *testing.T, trace []byte) map[uint64]uint64 {
	t.Helper()
	out := map[uint64]uint64{}
	for _, l := range strings.Split(strings.TrimSuffix(string(trace), "\n"), "\n") {
		f := strings.Fields(l)
		if len(f) < 3 {
			t.Fatalf("trace line %q", l)
		}
		pc, err := strconv.ParseUint(f[2], 0, 64)
		if err != nil {
			t.Fatalf("trace line %q: %v", l, err)
		}
		out[pc]++
	}
	return out
}

// traceF8 reports whether the traced f8f6f4 MFMA of line l (its raw
// words in brackets) has an FP8 or BF8 operand: its CBSZ (word 0 bits
// 8-10) or BLGP (word 1 bits 29-31) is 0 or 1. Other lines give false.
func traceF8(t *testing.T, l string) bool {
	if !strings.Contains(l, "_f8f6f4") {
		return false
	}
	i := strings.LastIndexByte(l, '[')
	var w0, w1 uint32
	if i < 0 {
		t.Fatalf("trace line %q has no words", l)
	}
	if _, err := fmt.Sscanf(l[i:], "[%x %x", &w0, &w1); err != nil {
		t.Fatalf("trace line %q: %v", l, err)
	}
	return w0>>8&7 <= 1 || w1>>29&7 <= 1
}

// TestStatsClassesMatchTrace runs test kernels with MFMAs, VALU, memory
// and scalar code on gfx942 and gfx950 and checks that the agent's
// per-class counters and its issue-cycle weight equal what the text trace
// counts, and that the classes add up to Stats.Instructions.
func TestStatsClassesMatchTrace(t *testing.T) {
	root := projectpath.MustRoot(t)
	for _, r := range []struct{ name, target string }{
		{"vector_add", "gfx942"},
		{"mfma_f32_32x32x8f16", "gfx942"},
		{"mfma_f32_16x16x16f16", "gfx950"},
		{"mfma_i32_16x16x32i8", "gfx942"},
		{"gfx950_mfma_f32_16x16x32_f16", "gfx950"},
		{"gfx950_mfma_scale_agpr", "gfx950"},
		{"reduce_sum_f32", "gfx942"},
	} {
		c, ok := kernelref.Lookup(r.name)
		if !ok {
			t.Fatalf("no case %s", r.name)
		}
		image, err := os.ReadFile(filepath.Join(root, c.Object(r.target)))
		if err != nil {
			t.Fatal(err)
		}
		var trace bytes.Buffer
		a, err := NewAgent(r.target)
		if err != nil {
			t.Fatal(err)
		}
		a.Trace = &trace
		perPC := map[uint64]uint64{}
		a.Executed = func(_ int, pc uint64, in *wave.Inst) {
			if in == nil {
				t.Fatal("Executed without an instruction")
			}
			perPC[pc]++
		}
		ex, err := a.LoadCodeObject(image)
		if err != nil {
			t.Fatal(err)
		}
		k, err := ex.Kernel(c.Name)
		if err != nil {
			t.Fatal(err)
		}
		addrs := map[int]uint64{}
		for _, i := range c.Buffers() {
			addr, err := a.Alloc(uint64(len(c.Args[i].Init)))
			if err != nil || a.CopyIn(addr, c.Args[i].Init) != nil {
				t.Fatal(err)
			}
			addrs[i] = addr
		}
		ka, err := c.Kernarg(addrs)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.DispatchExt(k, c.Grid, c.Block, ka, c.DynamicLDS(), 0); err != nil {
			t.Fatalf("%s on %s: %v", r.name, r.target, err)
		}
		want, wantPasses := traceCounts(t, trace.Bytes(), r.target)
		if got := tracePCs(t, trace.Bytes()); !maps.Equal(got, perPC) {
			t.Errorf("%s on %s: Executed counted %d PCs, the trace %d, not alike", r.name, r.target, len(perPC), len(got))
		}
		st := a.Stats
		if st.Classes != want || st.Passes != wantPasses {
			t.Errorf("%s on %s: counters %v, %d passes; the trace counts %v, %d passes", r.name, r.target, st.Classes, st.Passes, want, wantPasses)
		}
		if st.Classes.Total() != st.Instructions {
			t.Errorf("%s on %s: classes add up to %d, %d instructions", r.name, r.target, st.Classes.Total(), st.Instructions)
		}
		if strings.Contains(r.name, "mfma") && (st.Classes[cost.MFMA] == 0 || st.Passes <= st.Instructions) {
			t.Errorf("%s on %s: %d MFMAs, %d passes over %d instructions", r.name, r.target, st.Classes[cost.MFMA], st.Passes, st.Instructions)
		}
		t.Logf("%s on %s: %v, %d passes", r.name, r.target, st.Classes, st.Passes)
	}
}
