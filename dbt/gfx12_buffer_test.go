package dbt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/hsa/sim/wave"
	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
)

// TestGFX12BufferVSharp translates testdata/gfx12_buffer.s for gfx1201:
// the word3 constant 0x20000 is rewritten to the gfx12 layout (FORMAT 4,
// OOB_SELECT 3: 0x30004000) at its definition, its copy is kept, and the
// MUBUF load and store become VBUFFER with soffset null, and the load to
// LDS becomes a load, the lane address and ds_store_b32; llvm-objdump-19
// prints exactly those instructions. The guest runs on the simulated
// gfx950; the translation runs on the simulated gfx1201 when the
// simulator implements VBUFFER, and must store the same bytes.
func TestGFX12BufferVSharp(t *testing.T) {
	guest, res, dis := translate12(t, "gfx12_buffer")
	for _, want := range []string{"s_mov_b32 s7, 0x30004000", "s_mov_b32 s15, s7", "buffer_load_b32 v2, v1, s[4:7], null offen",
		"buffer_store_b32 v2, v1, s[12:15], null offen offset:4", "s[4:7], null offen offset:4 ", "v_mbcnt_hi_u32_b32",
		"v_lshl_add_u32", "ds_store_b32", "s_wait_dscnt 0x0"} {
		if !bytes.Contains(dis, []byte(want)) {
			t.Errorf("the translation lacks %q:\n%s", want, dis)
		}
	}
	if bytes.Contains(dis, []byte("0x20000")) {
		t.Errorf("a gfx9 word3 constant survives:\n%s", dis)
	}
	src := make([]byte, 256)
	for i := range 64 {
		binary.LittleEndian.PutUint32(src[4*i:], uint32(1000+i))
	}
	run := func(image []byte, target, kernel string) []byte {
		return runBuffers(t, image, target, kernel, src, make([]byte, 260))[1]
	}
	want := run(guest, "gfx950", "kbuf")
	for i := range 64 {
		exp := uint32(1006 + i)
		if i == 0 {
			exp = 0
		}
		if got := binary.LittleEndian.Uint32(want[4*i:]); got != exp {
			t.Fatalf("kbuf guest on the simulated gfx950: out[%d] = %d, want %d", i, got, exp)
		}
	}
	wantLDS := run(guest, "gfx950", "klds")
	for i := range 64 {
		exp := uint32(1001 + i)
		if i == 63 {
			exp = 0
		}
		if got := binary.LittleEndian.Uint32(wantLDS[4*i:]); got != exp {
			t.Fatalf("klds guest on the simulated gfx950: out[%d] = %d, want %d", i, got, exp)
		}
	}
	if !wave.Supported12("buffer_load_b32") || !wave.Supported12("buffer_store_b32") {
		t.Fatal("the simulated gfx1201 lacks VBUFFER: the buffer rules have no differential check")
	}
	if got := run(res.Object, "gfx1201", "kbuf"); !bytes.Equal(want, got) {
		t.Errorf("kbuf on the simulated gfx1201 differs from the guest:\n% x\n% x", got, want)
	}
	if got := run(res.Object, "gfx1201", "klds"); !bytes.Equal(wantLDS, got) {
		t.Errorf("klds on the simulated gfx1201 differs from the guest:\n% x\n% x", got, wantLDS)
	}
}

// TestGFX12BufferVSharpFromMemory: a V# whose word3 is loaded from memory
// cannot be converted at a definition, and neither can one in a scope that
// writes SGPRs through M0 (s_movreld): the buffer load is rejected with
// that reason.
func TestGFX12BufferVSharpFromMemory(t *testing.T) {
	guest := buildGuestFrom(t, filepath.Join("testdata", "gfx12_buffer_mem.s"))
	res, err := Translate(guest, Options{Name: "gfx12_buffer_mem", Host: isa.GFX1201})
	if err == nil {
		t.Fatal("a V# with word3 from memory translated")
	}
	if !rejectedFor(res, "V# word3 in s7 is not a constant") {
		t.Fatalf("rejected for another reason: %v", err)
	}
	// s_movreld_b32 s6, s12 with M0 = 1 overwrites the word3 SGPR s7 at
	// run time: the analysis must give up on the scope.
	guest = buildGuestFrom(t, filepath.Join("testdata", "gfx12_buffer_movrel.s"))
	res, err = Translate(guest, Options{Name: "gfx12_buffer_movrel", Host: isa.GFX1201})
	if err == nil {
		t.Fatal("a V# in a scope with s_movreld translated")
	}
	if !rejectedFor(res, "indexes SGPRs through M0") {
		t.Fatalf("rejected for another reason: %v", err)
	}
}

// FuzzTranslateGFX12 is FuzzTranslate for the gfx1201 host. Its seeds are
// small: the ELF header, two 4 KB gfx950 test kernels, and the committed
// corpus files gfx12-* in testdata/fuzz/FuzzTranslateGFX12 (2 KB objects
// built from gfx12_buffer.s, fuzz_gfx12_bcast.s, gfx12_globallds.s and
// gfx12_gpridx.s: buffer instructions with V# analysis and loads to LDS,
// DPP row_bcast, global loads to LDS, VGPR-indexing regions;
// TestFuzzGFX12Seeds rebuilds them). A 10 KB aiter
// object as a seed took 5 ms per input and its mutations most of the run.
func FuzzTranslateGFX12(f *testing.F) {
	f.Add([]byte("\x7fELF\x02\x01\x01\x40"))
	files, _ := filepath.Glob("../testdata/kernels/gfx950/*.co")
	if len(files) > 2 {
		files = files[:2]
	}
	for _, p := range files {
		if b, err := readFileErr(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzguard.Run(t, b, func() {
			res, err := Translate(b, Options{Host: isa.GFX1201})
			if err == nil && res.Object == nil {
				t.Fatal("success without an object")
			}
		})
	})
}

// fuzzGFX12Seeds are the committed seeds of FuzzTranslateGFX12 and the
// assembly each is built from.
var fuzzGFX12Seeds = map[string]string{
	"gfx12-buffer":    "gfx12_buffer.s",
	"gfx12-bcast":     "fuzz_gfx12_bcast.s",
	"gfx12-globallds": "gfx12_globallds.s",
	"gfx12-gpridx":    "gfx12_gpridx.s",
}

// TestFuzzGFX12Seeds rebuilds FuzzTranslateGFX12's committed seeds from
// their assembly and checks they are the files in testdata/fuzz, that the
// gfx1201 translation accepts each, and that each stays small (2-3 KB;
// their speed is measured by the fuzz benchmarks, not here). With
// ROCJITSU_UPDATE_SEEDS=1 it writes them.
func TestFuzzGFX12Seeds(t *testing.T) {
	for name, src := range fuzzGFX12Seeds {
		guest := buildGuestFrom(t, filepath.Join("testdata", src))
		path := filepath.Join("testdata", "fuzz", "FuzzTranslateGFX12", name)
		want := fuzzguard.CorpusFile(guest)
		if os.Getenv("ROCJITSU_UPDATE_SEEDS") == "1" {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (ROCJITSU_UPDATE_SEEDS=1 writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not the object built from %s (ROCJITSU_UPDATE_SEEDS=1 rewrites it)", path, src)
		}
		if len(guest) > 4096 {
			t.Errorf("%s: %d bytes, a seed should stay under 4 KB", name, len(guest))
		}
		if _, err := Translate(guest, Options{Host: isa.GFX1201}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestGFX12Timers translates s_memtime (SHADER_CYCLES HI/LO/HI) and
// s_memrealtime (s_sendmsg_rtn_b64 GET_REALTIME) for gfx1201 and runs the
// translation on the simulated gfx1201 (and the guest on the simulated
// gfx950 where it has the opcodes): each second reading is larger than the
// first, and SCC (set before the timers, read after them) survives the
// expansion.
func TestGFX12Timers(t *testing.T) {
	guest := buildGuestFrom(t, filepath.Join("testdata", "gfx12_timers.s"))
	res, err := Translate(guest, Options{Name: "gfx12_timers", Host: isa.GFX1201})
	if err != nil {
		var b strings.Builder
		res.Report.WriteText(&b)
		t.Fatalf("%v\n%s", err, b.String())
	}
	verifyObject12(t, "gfx12_timers", isa.GFX1201, guest, res.Object)
	for _, c := range []struct {
		image  []byte
		target string
	}{{guest, "gfx950"}, {res.Object, "gfx1201"}} {
		a, err := sim.NewAgent(c.target)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := a.LoadCodeObject(c.image)
		if err != nil {
			t.Fatal(err)
		}
		k, err := ex.Kernel("ktime")
		if err != nil {
			t.Fatal(err)
		}
		out, err := a.Alloc(64)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.CopyIn(out, make([]byte, 64)); err != nil {
			t.Fatal(err)
		}
		if err := a.Dispatch(k, [3]uint32{64, 1, 1}, [3]uint32{64, 1, 1}, binary.LittleEndian.AppendUint64(nil, uint64(out))); err != nil {
			if c.target == "gfx950" && strings.Contains(err.Error(), "unknown") {
				t.Logf("the simulated gfx950 does not run the guest's timers: %v", err)
				continue
			}
			t.Fatalf("ktime on %s: %v", c.target, err)
		}
		b := make([]byte, 64)
		if err := a.CopyOut(out, b); err != nil {
			t.Fatal(err)
		}
		u := func(i int) uint64 { return binary.LittleEndian.Uint64(b[8*i:]) }
		if u(2) <= u(0) || u(3) <= u(1) {
			t.Errorf("%s: timers not increasing: memtime %d then %d, memrealtime %d then %d", c.target, u(0), u(2), u(1), u(3))
		}
		if scc := binary.LittleEndian.Uint32(b[32:]); scc != 2 {
			t.Errorf("%s: SCC (0) after the timers selects %d, want 2", c.target, scc)
		}
	}
}

// TestGFX12FP8MFMA translates v_mfma_f32_16x16x32_fp8_fp8 for gfx1201 as
// two chained wave64 fp8 WMMAs (llvm-objdump-19 decodes them); the guest
// runs on the simulated gfx950, and the translation on the simulated
// gfx1201 once it implements the fp8 WMMA, where its output must equal
// the guest's bit for bit (the inputs make every sum exact).
func TestGFX12FP8MFMA(t *testing.T) {
	guest, res, dis := translate12(t, "gfx12_fp8mfma")
	if n := bytes.Count(dis, []byte("v_wmma_f32_16x16x16_fp8_fp8")); n != 2 {
		t.Fatalf("%d fp8 WMMAs in the translation, want 2:\n%s", n, dis)
	}
	run := func(image []byte, target string) []byte {
		return runBuffers(t, image, target, "kfp8", make([]byte, 1024))[0]
	}
	want := run(guest, "gfx950")
	if bytes.Equal(want, make([]byte, len(want))) {
		t.Fatal("the guest wrote nothing")
	}
	if !wave.Supported12("v_wmma_f32_16x16x16_fp8_fp8") {
		t.Fatal("the simulated gfx1201 lacks fp8 WMMA: the fp8 MFMA rule has no differential check")
	}
	if got := run(res.Object, "gfx1201"); !bytes.Equal(want, got) {
		t.Errorf("translation on the simulated gfx1201 differs from the guest")
	}
}

// TestGFX12RowNewbcast translates DPP row_newbcast as gfx12 row_share,
// compares the translation with the guest on the simulators
// (verifyObject12), and checks it on the simulated gfx1201 against the
// gfx90a ISA meaning computed here: every lane reads lane n of its row,
// row_mask selects the rows written.
func TestGFX12RowNewbcast(t *testing.T) {
	guest := buildGuestFrom(t, filepath.Join("testdata", "gfx12_newbcast.s"))
	res, err := Translate(guest, Options{Name: "gfx12_newbcast", Host: isa.GFX1201})
	if err != nil {
		var b strings.Builder
		res.Report.WriteText(&b)
		t.Fatalf("%v\n%s", err, b.String())
	}
	verifyObject12(t, "gfx12_newbcast", isa.GFX1201, guest, res.Object)
	a, err := sim.NewAgent("gfx1201")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := a.LoadCodeObject(res.Object)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ex.Kernel("knb")
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.Alloc(1024)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.CopyIn(out, make([]byte, 1024)); err != nil {
		t.Fatal(err)
	}
	if err := a.Dispatch(k, [3]uint32{64, 1, 1}, [3]uint32{64, 1, 1}, binary.LittleEndian.AppendUint64(nil, uint64(out))); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1024)
	if err := a.CopyOut(out, b); err != nil {
		t.Fatal(err)
	}
	for l := range 64 {
		row := l &^ 15
		v := func(i int) uint32 { return binary.LittleEndian.Uint32(b[16*l+4*i:]) }
		want3 := uint32(7)
		if (l>>4)&1 == 0 {
			want3 = uint32(100+row+15) + uint32(100+l)
		}
		want4 := math.Float32bits(float32(100+row) + float32(100+l))
		if v(0) != uint32(100+row+5) || v(1) != want3 || v(2) != want4 {
			t.Fatalf("lane %d: got %d %d %#x, want %d %d %#x", l, v(0), v(1), v(2), 100+row+5, want3, want4)
		}
	}
}

// TestGFX12GlobalLoadLDS translates global_load_lds_dword (saddr with a
// positive offset, 64-bit vaddr with a negative one) for gfx1201 and
// checks the translation on the simulated gfx1201 against the ISA meaning
// (LDS at M0 + offset + lane_id * 4) computed here: the gfx9 simulator does
// not run LDS-direct global loads, so there is no guest run to compare.
func TestGFX12GlobalLoadLDS(t *testing.T) {
	guest := buildGuestFrom(t, filepath.Join("testdata", "gfx12_globallds.s"))
	res, err := Translate(guest, Options{Name: "gfx12_globallds", Host: isa.GFX1201})
	if err != nil {
		var b strings.Builder
		res.Report.WriteText(&b)
		t.Fatalf("%v\n%s", err, b.String())
	}
	verifyObject12(t, "gfx12_globallds", isa.GFX1201, guest, res.Object)
	a, err := sim.NewAgent("gfx1201")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := a.LoadCodeObject(res.Object)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ex.Kernel("kglds")
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.Alloc(4096)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.CopyIn(out, make([]byte, 4096)); err != nil {
		t.Fatal(err)
	}
	if err := a.Dispatch(k, [3]uint32{64, 1, 1}, [3]uint32{64, 1, 1}, binary.LittleEndian.AppendUint64(nil, uint64(out))); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4096)
	if err := a.CopyOut(out, b); err != nil {
		t.Fatal(err)
	}
	mem := func(i int) uint32 {
		if i < 64 {
			return uint32(1000 + i)
		}
		return 0
	}
	for l := range 64 {
		g0, g1 := binary.LittleEndian.Uint32(b[0x400+8*l:]), binary.LittleEndian.Uint32(b[0x404+8*l:])
		if g0 != mem(l+1) || g1 != mem(l+2) {
			t.Fatalf("lane %d: LDS slots hold %d, %d; want %d, %d", l, g0, g1, mem(l+1), mem(l+2))
		}
	}
}

// TestGFX12ReadTr runs the gfx950 transposed LDS reads
// ds_read_b64_tr_b16/_b8/_b4 (the gfx942 rule, re-targeted) with
// lane-scattered addresses, with the destination overlapping the address
// register, and into AGPRs: the translation on the simulated gfx1201 must
// equal the guest on the simulated gfx950 and the reference model
// readTrRef bit for bit.
func TestGFX12ReadTr(t *testing.T) {
	ops := map[int]uint32{16: 227, 8: 226, 4: 224}
	for _, bits := range []int{16, 8, 4} {
		mul, add := 37, 11
		var s strings.Builder
		s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n")
		s.WriteString("  s_mov_b32 s10, 0x9e3779b1\n  v_lshlrev_b32 v1, 6, v0\n")
		for i := 0; i < 16; i++ {
			fmt.Fprintf(&s, "  v_lshl_add_u32 v3, v0, 4, %d\n  v_mul_lo_u32 v3, v3, s10\n  v_xor_b32 v3, 0x5bd1e995, v3\n  ds_write_b32 v1, v3 offset:%d\n", i, 4*i)
		}
		fmt.Fprintf(&s, "  s_waitcnt lgkmcnt(0)\n  v_mul_u32_u24 v4, %d, v0\n  v_add_u32 v4, %d, v4\n  v_and_b32 v4, 0xff, v4\n  v_lshlrev_b32 v4, 3, v4\n  v_mov_b32 v6, v4\n  v_mov_b32 v9, v4\n", mul, add)
		s.WriteString(dsWord(ops[bits], false, 40, 4, 10))
		s.WriteString(dsWord(ops[bits], true, 8, 4, 2))
		s.WriteString(dsWord(ops[bits], false, 0, 6, 6))
		s.WriteString(dsWord(ops[bits], false, 16, 9, 8))
		s.WriteString("  s_waitcnt lgkmcnt(0)\n  v_accvgpr_read_b32 v12, a2\n  v_accvgpr_read_b32 v13, a3\n")
		s.WriteString("  v_lshlrev_b32 v20, 5, v0\n  s_waitcnt lgkmcnt(0)\n  global_store_dwordx2 v20, v[10:11], s[8:9]\n  global_store_dwordx2 v20, v[12:13], s[8:9] offset:8\n  global_store_dwordx2 v20, v[6:7], s[8:9] offset:16\n  global_store_dwordx2 v20, v[8:9], s[8:9] offset:24\n  s_endpgm\n")
		s.WriteString(".rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_group_segment_fixed_size 4096\n  .amdhsa_next_free_vgpr 40\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 24\n.end_amdhsa_kernel\n")
		path := filepath.Join(t.TempDir(), "k.s")
		if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		guest := buildGuestFrom(t, path)
		res, err := Translate(guest, Options{Name: "readtr", Host: isa.GFX1201})
		if err != nil {
			var b strings.Builder
			res.Report.WriteText(&b)
			t.Fatalf("b%d: %v\n%s", bits, err, b.String())
		}
		verifyObject12(t, "readtr", isa.GFX1201, guest, res.Object)
		got := runKernelOn(t, res.Object, "gfx1201", 64*32)
		want := runKernelOn(t, guest, "gfx950", 64*32)
		if !bytes.Equal(got, want) {
			t.Fatalf("b%d: the translation on the simulated gfx1201 differs from the guest on the simulated gfx950", bits)
		}
		mem := make([]byte, 4096)
		for i := 0; i < 1024; i++ {
			binary.LittleEndian.PutUint32(mem[4*i:], uint32(i)*0x9e3779b1^0x5bd1e995)
		}
		base := func(lane int) int { return (lane*mul + add) & 255 * 8 }
		for lane := 0; lane < 64; lane++ {
			for k, off := range []int{40, 8, 0, 16} {
				if g, w := binary.LittleEndian.Uint64(got[32*lane+8*k:]), readTrRef(bits, mem, func(l int) int { return base(l) + off }, lane); g != w {
					t.Fatalf("b%d lane %d read %d: %#016x, reference %#016x", bits, lane, k, g, w)
				}
			}
		}
	}
}
