package instrument

import (
	"encoding/binary"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/sqtt"
)

// insts returns the source instructions of obj's .text in order.
func insts(t *testing.T, obj []byte) []isa.Inst {
	t.Helper()
	f, err := loader.Parse(obj)
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := isa.TargetFromMach(uint32(f.Flags.Mach))
	ts := f.Section(".text")
	var out []isa.Inst
	for off := 0; off < len(ts.Data); {
		var in isa.Inst
		if isa.GFX9.Has(tg) {
			in, err = gfx9.Decode(ts.Data[off:], ts.Addr+uint64(off), tg)
		} else {
			in, err = gfx12.Decode(ts.Data[off:], ts.Addr+uint64(off), tg)
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, in)
		off += int(in.Size)
		if in.Info.Branch == isa.BranchEnd {
			break
		}
	}
	return out
}

// pcOf returns the address of the n-th (0-based) instruction named name.
func pcOf(t *testing.T, is []isa.Inst, name string, n int) uint64 {
	t.Helper()
	for _, in := range is {
		if in.Name() == name {
			if n == 0 {
				return in.PC
			}
			n--
		}
	}
	t.Fatalf("no instruction %s", name)
	return 0
}

// got renders sites as "before|after PC: name,name" with names from the
// funcmap ("exit" for a bare exit, "exit+NAME" for a fused one).
func got(t *testing.T, res *Result) []string {
	t.Helper()
	fm := sqtt.ParseFuncmap(res.Funcmap)
	if len(fm.Diagnostics) > 0 {
		t.Fatalf("funcmap: %v", fm.Diagnostics)
	}
	var out []string
	for _, s := range res.Sites {
		where := "before"
		if s.After {
			where = "after"
		}
		var names []string
		for _, v := range s.Values {
			m := fm.Decode(v)
			n := ""
			if m.ID != 0 {
				e, ok := fm.Lookup(m.ID)
				if !ok {
					t.Fatalf("marker %#x: id %d not in the funcmap", v, m.ID)
				}
				n = e.Name
			}
			switch {
			case m.ExitPrev && m.Enter:
				n = "exit+" + n
			case m.ExitPrev:
				n = "exit"
			case m.Enter:
				n = "enter " + n
			}
			names = append(names, n)
		}
		out = append(out, fmt.Sprintf("%s %#x: %s", where, s.PC, strings.Join(names, ",")))
	}
	return out
}

func expect(t *testing.T, res *Result, want ...string) {
	t.Helper()
	g := got(t, res)
	if strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Fatalf("sites:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
}

// TestBarrierPatterns checks the seed's four barrier rules.
func TestBarrierPatterns(t *testing.T) {
	obj := build(t, "gfx1201", `
s_barrier_signal -1
s_barrier_wait -1
v_mov_b32 v0, 0
s_barrier_signal -1
v_mov_b32 v1, 0
s_barrier_wait -1
s_endpgm
`)
	is := insts(t, obj)
	res, err := Instrument(obj, Options{Barriers: true})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, res,
		fmt.Sprintf("after %#x: barrier", pcOf(t, is, "s_barrier_signal", 0)),
		fmt.Sprintf("after %#x: barrier_signal", pcOf(t, is, "s_barrier_signal", 1)),
		fmt.Sprintf("before %#x: barrier_wait", pcOf(t, is, "s_barrier_wait", 1)))
	obj = build(t, "gfx942", "v_mov_b32 v0, 0\ns_barrier\ns_endpgm\n")
	is = insts(t, obj)
	if res, err = Instrument(obj, Options{Barriers: true}); err != nil {
		t.Fatal(err)
	}
	expect(t, res, fmt.Sprintf("before %#x: barrier", pcOf(t, is, "s_barrier", 0)))
}

// TestMemoryGroupingSeedExample is the seed's N=2, M=5 example (load load
// store load load load: four markers), plus a gap that breaks a group and
// the ops that are never instrumented (LDS, scratch, scalar).
func TestMemoryGroupingSeedExample(t *testing.T) {
	obj := build(t, "gfx942", `
global_load_dword v1, v[2:3], off
global_load_dword v4, v[2:3], off
global_store_dword v[2:3], v1, off
global_load_dword v5, v[2:3], off
global_load_dword v6, v[2:3], off
global_load_dword v7, v[2:3], off
s_endpgm
`)
	is := insts(t, obj)
	res, err := Instrument(obj, Options{Memory: MemGroup{2, 5}})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, res,
		fmt.Sprintf("before %#x: vmem_load", is[0].PC),
		fmt.Sprintf("before %#x: vmem_store", is[2].PC),
		fmt.Sprintf("before %#x: vmem_load", is[3].PC),
		fmt.Sprintf("before %#x: vmem_load", is[5].PC))
	obj = build(t, "gfx942", `
global_load_dword v1, v[2:3], off
v_mov_b32 v4, 0
v_mov_b32 v5, 0
global_load_dword v6, v[2:3], off
ds_read_b32 v7, v4
scratch_load_dword v7, off, s0
s_load_dword s8, s[4:5], 0x0
global_atomic_add v[2:3], v1, off
buffer_load_dword v1, off, s[8:11], 0
s_endpgm
`)
	is = insts(t, obj)
	if res, err = Instrument(obj, Options{Memory: MemGroup{4, 1}}); err != nil {
		t.Fatal(err)
	}
	expect(t, res,
		fmt.Sprintf("before %#x: vmem_load", is[0].PC),
		fmt.Sprintf("before %#x: vmem_load", is[3].PC),
		fmt.Sprintf("before %#x: vmem_store", is[7].PC),
		fmt.Sprintf("before %#x: vmem_load", is[8].PC))
}

// TestFusion: an exit directly followed by an enter is one marker
// (id << 2) | 3; a lone exit is 0x1.
func TestFusion(t *testing.T) {
	obj := build(t, "gfx1201", "v_mov_b32 v0, 0\nv_mov_b32 v1, 0\nv_mov_b32 v2, 0\ns_endpgm\n")
	is := insts(t, obj)
	res, err := Instrument(obj, Options{Regions: []Region{{"a", is[0].PC, is[1].PC}, {"b", is[1].PC, is[2].PC}}})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, res,
		fmt.Sprintf("before %#x: enter a", is[0].PC),
		fmt.Sprintf("before %#x: exit+b", is[1].PC),
		fmt.Sprintf("before %#x: exit", is[2].PC))
	fm := sqtt.ParseFuncmap(res.Funcmap)
	b := uint32(0)
	for id, e := range fm.ByID {
		if e.Name == "b" {
			b = id
		}
	}
	if v := res.Sites[1].Values; len(v) != 1 || v[0] != b<<2|3 {
		t.Fatalf("fused marker %#x, want %#x", v, b<<2|3)
	}
	if v := res.Sites[2].Values; len(v) != 1 || v[0] != 1 {
		t.Fatalf("exit marker %#x, want 0x1", v)
	}
}

// markerWords counts s_ttracedata_imm and s_ttracedata words in .text.
func markerWords(t *testing.T, obj []byte) (imm, m0 int) {
	t.Helper()
	for _, in := range insts(t, obj) {
		switch in.Name() {
		case "s_ttracedata_imm":
			imm++
		case "s_ttracedata":
			m0++
		}
	}
	return imm, m0
}

// TestImmVersusM0: gfx12 writes words <= 0xff with s_ttracedata_imm and
// larger ones through M0; gfx9 always uses M0; packing disables _imm.
func TestImmVersusM0(t *testing.T) {
	var src strings.Builder
	for range 70 {
		src.WriteString("v_mov_b32 v0, 0\n")
	}
	src.WriteString("s_endpgm\n")
	for _, tc := range []struct {
		mcpu      string
		imm, m0   int
		clockBits uint32
	}{
		// 70 regions: enters of ids 1..63 fit ((63<<2)|2 = 0xfe), 64..70
		// do not; the 70 exits (0x1) all fit.
		{"gfx1201", 63 + 70, 7, 0},
		{"gfx942", 0, 140, 0},
		{"gfx1201", 0, 140, 12},
	} {
		obj := build(t, tc.mcpu, src.String())
		is := insts(t, obj)
		// 70 nested regions over the same range: 70 enters, then 70 exits.
		opt := Options{ShaderClockBits: tc.clockBits, ShaderClockShift: 4}
		for i := range 70 {
			opt.Regions = append(opt.Regions, Region{fmt.Sprintf("r%d", i), is[0].PC, is[70].PC})
		}
		res, err := Instrument(obj, opt)
		if err != nil {
			t.Fatal(err)
		}
		imm, m0 := markerWords(t, res.Object)
		if imm != tc.imm || m0 != tc.m0 || res.Stats.Imm != tc.imm || res.Stats.Markers != tc.imm+tc.m0 {
			t.Errorf("%s clock %d: %d _imm and %d m0 markers (stats %+v), want %d and %d", tc.mcpu, tc.clockBits, imm, m0, res.Stats, tc.imm, tc.m0)
		}
	}
}

// TestIDCompaction: scope ids are ordered by emission count (ties by first
// use), then barriers, then memory.
func TestIDCompaction(t *testing.T) {
	r := newRegistry()
	mem := r.get("vmem_load", sqtt.KindPoint, "vmem_load", groupMemory)
	bar := r.get("barrier", sqtt.KindPoint, "barrier", groupBarrier)
	a := r.get("a", sqtt.KindUser, "a", groupScope)
	b := r.get("b", sqtt.KindUser, "b", groupScope)
	c := r.get("c", sqtt.KindFunction, "c", groupScope)
	a.count, b.count, c.count = 1, 5, 1
	r.assign()
	for e, want := range map[*entry]uint32{b: 1, a: 2, c: 3, bar: 4, mem: 5} {
		if e.id != want {
			t.Errorf("%s: id %d, want %d", e.name, e.id, want)
		}
	}
}

// disasm returns llvm-objdump-19's disassembly of obj's .text.
func disasm(t *testing.T, obj []byte, mcpu string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "o.co")
	writeFile(t, p, obj)
	out, err := exec.Command(llvmtool.Require(t, llvmtool.Objdump), "-d", "--mcpu="+mcpu, "--no-show-raw-insn", "--no-leading-addr", p).CombinedOutput()
	if err != nil {
		t.Fatalf("llvm-objdump: %v\n%s", err, out)
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		if i := strings.Index(l, "//"); i >= 0 {
			l = strings.TrimSpace(l[:i])
		}
		if i := strings.Index(l, " <"); i >= 0 && strings.HasPrefix(l, "s_") {
			l = l[:i]
		}
		if l != "" && !strings.HasSuffix(l, ":") && !strings.Contains(l, "file format") {
			lines = append(lines, strings.Join(strings.Fields(l), " "))
		}
	}
	return strings.Join(lines, "\n")
}

// TestScopeCheckCode: the entry computes the flag from HW_ID (gfx9) or
// HW_ID1/HW_ID2 (gfx12) once; every marker is skipped by
// s_cmp_lg_u32 flag, 0 / s_cbranch_scc0 over exactly its words.
func TestScopeCheckCode(t *testing.T) {
	for _, tc := range []struct {
		mcpu, src string
		want      []string
	}{
		{"gfx942", "v_mov_b32 v0, 0\ns_barrier\ns_endpgm\n", []string{
			"s_getreg_b32 T, hwreg(HW_REG_HW_ID, 0, 4)", "s_lshr_b32 T, 5, T", "s_and_b32 F, T, 1",
			"s_getreg_b32 T, hwreg(HW_REG_HW_ID, 8, 4)", "s_lshr_b32 T, 3, T", "s_and_b32 F, F, T",
			"v_mov_b32_e32 v0, 0", "s_cmp_lg_u32 F, 0", "s_cbranch_scc0 3", "s_mov_b32 m0, 4", "s_nop 0", "s_ttracedata", "s_barrier", "s_endpgm"}},
		{"gfx1201", "v_mov_b32 v0, 0\ns_barrier_signal -1\ns_barrier_wait -1\ns_endpgm\n", []string{
			"s_getreg_b32 T, hwreg(HW_REG_HW_ID1, 0, 5)", "s_lshr_b32 T, 5, T", "s_and_b32 F, T, 1",
			"s_getreg_b32 T, hwreg(HW_REG_HW_ID2, 16, 5)", "s_lshr_b32 T, 3, T", "s_and_b32 F, F, T",
			"v_mov_b32_e32 v0, 0", "s_barrier_signal -1", "s_cmp_lg_u32 F, 0", "s_cbranch_scc0 1", "s_ttracedata_imm 0x4", "s_barrier_wait 0xffff", "s_endpgm"}},
	} {
		obj := build(t, tc.mcpu, tc.src)
		opt := Options{Barriers: true, Scope: [4]*uint32{u32(5), nil, u32(3), nil}}
		if tc.mcpu == "gfx1201" {
			opt.Scope = [4]*uint32{u32(5), u32(0xf), nil, u32(3)} // SIMD 0xf: all SIMDs, not filtered
		}
		res, err := Instrument(obj, opt)
		if err != nil {
			t.Fatal(err)
		}
		d := disasm(t, res.Object, tc.mcpu)
		d = d[:strings.Index(d, "s_endpgm")+len("s_endpgm")]
		m := regexp.MustCompile(`s_and_b32 (s\d+), (s\d+), 1`).FindStringSubmatch(d)
		if m == nil {
			t.Fatalf("%s: no flag computation in\n%s", tc.mcpu, d)
		}
		want := strings.NewReplacer("F", m[1], "T", m[2]).Replace(strings.Join(tc.want, "\n"))
		if d != want {
			t.Errorf("%s:\n%s\nwant:\n%s", tc.mcpu, d, want)
		}
	}
}

// TestClockPacking: gfx12 headers carry the shader-clock window: s_getreg
// of SHADER_CYCLES_LO at the shift, shifted into the top bits and or-ed
// with the legacy value; the funcmap has the M: row.
func TestClockPacking(t *testing.T) {
	obj := build(t, "gfx1201", "v_mov_b32 v0, 0\ns_barrier_signal -1\ns_barrier_wait -1\ns_endpgm\n")
	res, err := Instrument(obj, Options{Barriers: true, ShaderClockBits: 12, ShaderClockShift: 4})
	if err != nil {
		t.Fatal(err)
	}
	d := disasm(t, res.Object, "gfx1201")
	m := regexp.MustCompile(`s_getreg_b32 (s\d+), hwreg\(HW_REG_SHADER_CYCLES_LO, 4, 12\)`).FindStringSubmatch(d)
	if m == nil || !strings.Contains(d, strings.ReplaceAll("s_getreg_b32 T, hwreg(HW_REG_SHADER_CYCLES_LO, 4, 12)\ns_lshl_b32 T, T, 20\ns_or_b32 m0, T, 4\ns_nop 0\ns_ttracedata\n", "T", m[1])) {
		t.Errorf("packed header:\n%s", d)
	}
	fm := sqtt.ParseFuncmap(res.Funcmap)
	if fm.Encoding != (sqtt.MarkerEncoding{ShaderClockBits: 12, ShaderClockShift: 4}) {
		t.Errorf("funcmap layout %+v", fm.Encoding)
	}
	if _, err := Instrument(build(t, "gfx942", "s_barrier\ns_endpgm\n"), Options{Barriers: true, ShaderClockBits: 12, ShaderClockShift: 4}); err == nil {
		t.Error("gfx942 accepted shader-clock packing")
	}
	if _, err := Instrument(obj, Options{ShaderClockBits: 30, ShaderClockShift: 4}); err == nil {
		t.Error("30 clock bits accepted")
	}
}

// runCrafted dispatches kernel k of obj with one 64-lane (gfx9) or 32-lane
// workgroup and a 16-byte buffer as its only argument; it returns the
// buffer.
func runCrafted(t *testing.T, obj []byte, target string, lanes uint32) []byte {
	t.Helper()
	a, err := sim.NewAgent(target)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := a.LoadCodeObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ex.Kernel("k")
	if err != nil {
		t.Fatal(err)
	}
	buf, err := a.Alloc(16)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.CopyIn(buf, make([]byte, 16)); err != nil {
		t.Fatal(err)
	}
	ka := make([]byte, 8+loader.HiddenArgsSize)
	binary.LittleEndian.PutUint64(ka, buf)
	if err := a.Dispatch(k, [3]uint32{lanes, 1, 1}, [3]uint32{lanes, 1, 1}, ka); err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 16)
	if err := a.CopyOut(buf, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestStatePreserved: M0 and SCC are live across a marker (M0 set before
// and read after, SCC cleared by a compare and read by s_cselect after): with
// scope checks and (gfx12) clock packing, which clobber both, the kernel
// still stores the values of the uninstrumented run.
func TestStatePreserved(t *testing.T) {
	for _, tc := range []struct {
		mcpu  string
		lanes uint32
		src   string
		opt   Options
	}{
		{"gfx942", 64, `
s_load_dwordx2 s[10:11], s[4:5], 0x0
s_mov_b32 m0, 0x1234
s_cmp_lg_u32 s8, s8
s_waitcnt lgkmcnt(0)
v_mov_b32 v0, 0
global_load_dword v1, v0, s[10:11]
s_cselect_b32 s12, 7, 3
s_mov_b32 s13, m0
s_waitcnt vmcnt(0)
v_mov_b32 v2, s12
v_mov_b32 v3, s13
global_store_dword v0, v2, s[10:11] offset:4
global_store_dword v0, v3, s[10:11] offset:8
s_endpgm
`, Options{Memory: MemGroup{1, 0}, Scope: [4]*uint32{u32(0xffff), nil, nil, u32(1)}}},
		{"gfx1201", 32, `
s_load_b64 s[10:11], s[4:5], 0x0
s_mov_b32 m0, 0x1234
s_cmp_lg_u32 s8, s8
s_wait_kmcnt 0
v_mov_b32 v0, 0
global_load_b32 v1, v0, s[10:11]
s_cselect_b32 s12, 7, 3
s_mov_b32 s13, m0
s_wait_loadcnt 0
v_mov_b32 v2, s12
v_mov_b32 v3, s13
global_store_b32 v0, v2, s[10:11] offset:4
global_store_b32 v0, v3, s[10:11] offset:8
s_endpgm
`, Options{Memory: MemGroup{1, 0}, Scope: [4]*uint32{u32(0xffff), nil, nil, u32(1)}, ShaderClockBits: 12, ShaderClockShift: 4}},
	} {
		obj := build(t, tc.mcpu, tc.src)
		plain := runCrafted(t, obj, tc.mcpu, tc.lanes)
		if binary.LittleEndian.Uint32(plain[4:]) != 3 || binary.LittleEndian.Uint32(plain[8:]) != 0x1234 {
			t.Fatalf("%s: plain run stored %x", tc.mcpu, plain)
		}
		res, err := Instrument(obj, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Sites) != 3 {
			t.Fatalf("%s: %d sites", tc.mcpu, len(res.Sites))
		}
		d := disasm(t, res.Object, tc.mcpu)
		if !strings.Contains(d, "s_cselect_b32") || strings.Count(d, "m0") < 4 {
			t.Errorf("%s: no SCC/M0 save in\n%s", tc.mcpu, d)
		}
		if got := runCrafted(t, res.Object, tc.mcpu, tc.lanes); string(got) != string(plain) {
			t.Errorf("%s: instrumented run stored %x, plain %x", tc.mcpu, got, plain)
		}
	}
}
