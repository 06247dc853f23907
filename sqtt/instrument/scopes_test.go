package instrument

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/sqtt"
)

// TestFunctions: call_noinline's callees (mix, reached by s_swappc_b64,
// and the helper mix calls) get an enter at their entry and an exit before
// each s_setpc_b64 return; a threshold above their size leaves them out
// with a note, and the cost model weighs memory and matrix ops.
func TestFunctions(t *testing.T) {
	obj, err := os.ReadFile(filepath.Join(projectpath.MustRoot(t), "testdata/kernels/gfx942/call_noinline.co"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Instrument(obj, Options{Functions: Threshold{N: 1}})
	if err != nil {
		t.Fatal(err)
	}
	g := strings.Join(got(t, res), "\n")
	if !regexp.MustCompile(`^before 0x[0-9a-f]+: enter mix\nbefore 0x[0-9a-f]+: exit\nbefore 0x[0-9a-f]+: enter \S+\nbefore 0x[0-9a-f]+: exit$`).MatchString(g) {
		t.Fatalf("sites:\n%s", g)
	}
	fm := sqtt.ParseFuncmap(res.Funcmap)
	nf := 0
	for _, e := range fm.Entries {
		if e.Kind == sqtt.KindFunction {
			nf++
		}
	}
	if nf != 2 {
		t.Fatalf("%d F: rows in\n%s", nf, res.Funcmap)
	}
	checkBalanced(t, res.Object)
	big, err := Instrument(obj, Options{Functions: Threshold{N: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if len(big.Sites) != 0 || len(big.Notes) != 2 {
		t.Fatalf("threshold 1000: sites %v notes %v", big.Sites, big.Notes)
	}
}

// TestCostModel: the weighted model of the seed (matrix 16, global/flat/
// buffer memory 10, LDS 4, waits and nops 0, the rest 1); the plain count
// is 1 for all but waits and nops.
func TestCostModel(t *testing.T) {
	obj := build(t, "gfx942", `
v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[4:5], v[0:3]
global_load_dword v1, v[2:3], off
buffer_load_dword v1, off, s[8:11], 0
ds_read_b32 v1, v2
s_waitcnt vmcnt(0)
s_nop 0
v_add_u32 v1, v2, v3
s_endpgm
`)
	is := insts(t, obj)
	want := []int{16, 10, 10, 4, 0, 0, 1, 1}
	for i, in := range is {
		if c := cost(&in, true); c != want[i] {
			t.Errorf("%s: cost %d, want %d", in.Name(), c, want[i])
		}
		plain := 1
		if want[i] == 0 {
			plain = 0
		}
		if c := cost(&in, false); c != plain {
			t.Errorf("%s: plain %d, want %d", in.Name(), c, plain)
		}
	}
}

// TestNestedLoops: a two-deep loop nest gets enter/exit pairs that nest
// on every path (the inner exit precedes the outer back edge), runs to
// the same result on the simulator, and the inner loop is entered on each
// outer iteration.
func TestNestedLoops(t *testing.T) {
	src := `
s_load_dwordx2 s[10:11], s[4:5], 0x0
s_mov_b32 s12, 0
s_mov_b32 s14, 0
s_mov_b32 s13, 0
s_add_u32 s14, s14, 1
s_add_u32 s13, s13, 1
s_cmp_lt_u32 s13, 3
s_cbranch_scc1 -4
s_add_u32 s12, s12, 1
s_cmp_lt_u32 s12, 4
s_cbranch_scc1 -8
s_waitcnt lgkmcnt(0)
v_mov_b32 v0, 0
v_mov_b32 v1, s14
global_store_dword v0, v1, s[10:11]
s_endpgm
`
	obj := build(t, "gfx942", src)
	is := insts(t, obj)
	res, err := Instrument(obj, Options{Loops: true})
	if err != nil {
		t.Fatal(err)
	}
	outer, inner := is[3].PC, is[4].PC
	exitInner, exitOuter := is[8].PC, is[11].PC
	expect(t, res,
		fmt.Sprintf("before %#x: enter loop_%#x", outer, outer),
		fmt.Sprintf("before %#x: enter loop_%#x", inner, inner),
		fmt.Sprintf("before %#x: exit", exitInner),
		fmt.Sprintf("before %#x: exit", exitOuter))
	checkBalanced(t, res.Object)
	want := runCrafted(t, obj, "gfx942", 64)
	if w := want[0]; w != 12 {
		t.Fatalf("plain run stored %d", w)
	}
	if g := runCrafted(t, res.Object, "gfx942", 64); string(g) != string(want) {
		t.Fatalf("instrumented run stored %x, want %x", g, want)
	}
}

// TestSharedExitEdges: a loop whose exit block is also reached by the
// guard that skips the loop takes its exit on the edge (a trampoline for
// the taken branch), not at the shared block.
func TestSharedExitEdges(t *testing.T) {
	src := `
s_load_dwordx2 s[10:11], s[4:5], 0x0
s_mov_b32 s12, 0
s_cmp_eq_u32 s8, 0
s_cbranch_scc0 4
s_add_u32 s12, s12, 1
s_cmp_ge_u32 s12, 5
s_cbranch_scc1 1
s_branch -4
s_waitcnt lgkmcnt(0)
v_mov_b32 v0, 0
v_mov_b32 v1, s12
global_store_dword v0, v1, s[10:11]
s_endpgm
`
	obj := build(t, "gfx942", src)
	res, err := Instrument(obj, Options{Loops: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) != 0 {
		t.Fatalf("notes: %v", res.Notes)
	}
	is := insts(t, obj)
	expect(t, res,
		fmt.Sprintf("before %#x: enter loop_%#x", is[4].PC, is[4].PC),
		fmt.Sprintf("after %#x: exit", is[6].PC))
	checkBalanced(t, res.Object)
	want := runCrafted(t, obj, "gfx942", 64)
	if g := runCrafted(t, res.Object, "gfx942", 64); string(g) != string(want) || want[0] != 5 {
		t.Fatalf("instrumented run stored %x, plain %x", g, want)
	}
}

// TestFuncmapRows: the section is NUL-terminated rows of the seed's
// grammar, K: for every kernel, one row per id, and every marker a site
// writes resolves to a row of the right kind.
func TestFuncmapRows(t *testing.T) {
	obj, err := os.ReadFile(filepath.Join(projectpath.MustRoot(t), "testdata/kernels/gfx942/call_noinline.co"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Instrument(obj, Options{Barriers: true, Memory: MemGroup{2, 3}, Loops: true, Functions: Threshold{N: 1}})
	if err != nil {
		t.Fatal(err)
	}
	fm := res.Funcmap
	if len(fm) == 0 || fm[len(fm)-1] != 0 {
		t.Fatal("funcmap not NUL-terminated")
	}
	row := regexp.MustCompile(`^(K:[^:@\n]+|[FUP]:[1-9][0-9]*:[^@\n]+|M:shader_clock_bits=[0-9]+;shader_clock_shift=[0-9]+)$`)
	for _, l := range strings.Split(strings.TrimSuffix(string(fm[:len(fm)-1]), "\n"), "\n") {
		if !row.MatchString(l) {
			t.Errorf("row %q", l)
		}
	}
	p := sqtt.ParseFuncmap(fm)
	if len(p.Diagnostics) > 0 || len(p.Kernels()) != 1 || p.Kernels()[0].Name != "call_noinline" {
		t.Fatalf("parsed %+v", p)
	}
	for _, s := range res.Sites {
		for _, v := range s.Values {
			m := p.Decode(v)
			if m.IsBareExit() {
				continue
			}
			e, ok := p.Lookup(m.ID)
			if !ok || (m.Enter != e.Kind.IsScope()) {
				t.Errorf("marker %#x: entry %+v", v, e)
			}
		}
	}
	// The parser's view through the ELF reader is the same.
	co, err := sqtt.ParseCodeObject(res.Object)
	if err != nil || co.Funcmap == nil || len(co.Funcmap.Entries) != len(p.Entries) {
		t.Fatalf("code object funcmap %v %v", err, co)
	}
}
