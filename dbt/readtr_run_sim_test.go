package dbt

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/bitop3"
	"github.com/rocjitsu/rocjitsu/internal/kernelref"
)

// TestReadTrRunOnSimulator: eight adjacent gfx950 ds_read_b64_tr_b16
// through one lane-scattered address VGPR at different offsets (rising
// and falling, up to 12000), into
// VGPRs and AGPRs, then a ninth through the same address into a
// destination pair that overlaps the address (no member of the run). The
// translation with the reads inline (subroutines off, and every scratch
// register borrowed and saved to private memory) emits the run at its
// first read: its code must hold four ds_bpermute_b32 for the run and four
// more for the ninth read (the eight reads on their own would take 32),
// and every lane's results must equal the reference model readTrRef. The
// subroutine translation (calls, no run) must agree too.
func TestReadTrRunOnSimulator(t *testing.T) {
	guest, check := readTrRunGuest(t, false)
	check("gfx950 guest", runKernelOn(t, guest, "gfx950", 64*72))
	for _, v := range []struct {
		name     string
		opt      Options
		permutes int
	}{
		{"inline", Options{noShared: true}, 8},
		{"spill", Options{forceSpill: true}, 8},
		{"subroutine", Options{}, 4},
	} {
		v.opt.Name = "readtr-run-" + v.name
		res, err := Translate(guest, v.opt)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		verifyObject(t, v.opt.Name, guest, res.Object)
		n := countHostOps(t, v.name, res.Object, "ds_bpermute_b32")
		if n != v.permutes {
			t.Fatalf("%s: %d ds_bpermute_b32 in the translation, want %d", v.name, n, v.permutes)
		}
		check(v.name, runKernelOn(t, res.Object, "gfx942", 64*72))
	}
	// The virtual-LDS sidecar (where the aiter kernels with these runs
	// execute on gfx942) lowers the run's LDS reads with scratch
	// registers of its own: they must not take a later read's
	// destination, which the run's code writes before the later reads
	// are reached.
	checkReadTrSidecars(t, guest, "readtr-run-sidecar", check)
}

// TestReadTrDestSharedOnSimulator: twelve gfx950 ds_read_b64_tr_b16 into
// one AGPR pair (the reads apart, each result copied out and stored),
// through lane-scattered addresses with offsets 0 to 88: translated with
// the subroutine form keyed by the destination (the body writes the
// AGPRs: the translation's only two v_accvgpr_write_b32 are in it), inline
// and with every scratch register borrowed, every lane's results must
// equal readTrRef and the guest's on the simulated gfx950.
func TestReadTrDestSharedOnSimulator(t *testing.T) {
	const op, n = 227, 12 // ds_read_b64_tr_b16
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n")
	s.WriteString("  s_mov_b32 s10, 0x9e3779b1\n  v_lshlrev_b32 v1, 6, v0\n")
	for i := 0; i < 16; i++ {
		fmt.Fprintf(&s, "  v_lshl_add_u32 v3, v0, 4, %d\n  v_mul_lo_u32 v3, v3, s10\n  v_xor_b32 v3, 0x5bd1e995, v3\n  ds_write_b32 v1, v3 offset:%d\n", i, 4*i)
	}
	s.WriteString("  s_waitcnt lgkmcnt(0)\n  v_mul_u32_u24 v4, 91, v0\n  v_add_u32 v4, 200, v4\n  v_and_b32 v4, 0xff, v4\n  v_lshlrev_b32 v4, 3, v4\n  v_mul_u32_u24 v30, 8*12, v0\n")
	for k := 0; k < n; k++ {
		s.WriteString(dsWord(op, true, uint32(8*k), 4, 2)) // a[2:3] <- [v4 + 8k]
		fmt.Fprintf(&s, "  s_waitcnt lgkmcnt(0)\n  v_accvgpr_read_b32 v12, a2\n  v_accvgpr_read_b32 v13, a3\n  global_store_dwordx2 v30, v[12:13], s[8:9] offset:%d\n", 8*k)
	}
	guest, mem := readTrRunKernel(t, &s, 4096)
	base := func(lane int) int { return (lane*91 + 200) & 255 * 8 }
	check := func(name string, out []byte) {
		t.Helper()
		for lane := 0; lane < 64; lane++ {
			for k := 0; k < n; k++ {
				want := readTrRef(16, mem, func(l int) int { return base(l) + 8*k }, lane)
				if got := binary.LittleEndian.Uint64(out[8*n*lane+8*k:]); got != want {
					t.Fatalf("%s: lane %d read %d: %#016x, reference %#016x", name, lane, k, got, want)
				}
			}
		}
	}
	check("gfx950 guest", runKernelOn(t, guest, "gfx950", 64*8*n))
	for _, v := range []struct {
		name   string
		opt    Options
		writes int // v_accvgpr_write_b32 in the translation
	}{
		{"subroutine", Options{noAGPRRename: true}, 2},
		{"inline", Options{noShared: true, noAGPRRename: true}, 2 * n},
		{"spill", Options{forceSpill: true, noAGPRRename: true}, 2 * n},
		{"renamed", Options{}, 0}, // the AGPR destinations renamed to VGPRs
	} {
		v.opt.Name = "readtr-dest-" + v.name
		res, err := Translate(guest, v.opt)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		verifyObject(t, v.opt.Name, guest, res.Object)
		text := textOf(t, res.Object)
		w := 0
		for off := 0; off < len(text); {
			in, err := gfx9DecodeForTest(text[off:], uint64(off))
			if err != nil {
				t.Fatalf("%s: host code at %#x: %v", v.name, off, err)
			}
			if in.Name() == "v_accvgpr_write_b32" {
				w++
			}
			off += int(in.Size)
		}
		if w != v.writes {
			t.Fatalf("%s: %d v_accvgpr_write_b32 in the translation, want %d", v.name, w, v.writes)
		}
		check(v.name, runKernelOn(t, res.Object, "gfx942", 64*8*n))
	}
}

// readTrRunGuest builds TestReadTrRunOnSimulator's gfx950 guest (with far,
// a long branch before the reads) and returns it with the check of a run's
// output against the reference model.
func readTrRunGuest(t *testing.T, far bool) ([]byte, func(name string, out []byte)) {
	const op = 227 // ds_read_b64_tr_b16
	type read struct {
		acc       bool
		off, vdst uint32
	}
	reads := []read{{false, 0, 10}, {false, 512, 12}, {true, 64, 2}, {false, 4100, 14}, {false, 9000, 16}, {true, 8, 4}, {false, 12000, 18}, {false, 11000, 20}}
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n")
	s.WriteString("  s_mov_b32 s10, 0x9e3779b1\n  v_lshlrev_b32 v1, 6, v0\n")
	// 16 KiB of LDS: dword i holds i*0x9e3779b1 ^ 0x5bd1e995.
	for i := 0; i < 64; i++ {
		fmt.Fprintf(&s, "  s_mov_b32 s11, %d\n  v_lshl_add_u32 v3, v0, 4, s11\n  v_mul_lo_u32 v3, v3, s10\n  v_xor_b32 v3, 0x5bd1e995, v3\n  ds_write_b32 v1, v3 offset:%d\n", i%16+i/16*1024, 4*(i%16)+i/16*4096)
	}
	// v4 = ((lane*37 + 11) & 127) * 8: addresses up to 1016, offsets up
	// to 12000 (the run's code moves its element addresses past 4095).
	s.WriteString("  s_waitcnt lgkmcnt(0)\n  v_mul_u32_u24 v4, 37, v0\n  v_add_u32 v4, 11, v4\n  v_and_b32 v4, 0x7f, v4\n  v_lshlrev_b32 v4, 3, v4\n")
	if far {
		// A taken branch over 8000 expanded v_bitop3_b32 (dead code):
		// the normal body and the sidecar need a long window, so both
		// are emitted twice.
		s.WriteString("  s_cmp_eq_u32 0, 0\n  s_cbranch_scc1 .Lfar\n")
		for i := 0; i < 8000; i++ {
			neg, abs, omod := bitop3.Fields(uint8(i))
			w0 := 0xd2340000 | uint32(abs)<<8 | 3
			w1 := uint32(neg)<<29 | uint32(omod)<<27 | (256+3)<<18 | (256+2)<<9 | (256 + 1)
			fmt.Fprintf(&s, "  .long %#x, %#x\n", w0, w1) // v_bitop3_b32 v3, v1, v2, v3
		}
		s.WriteString(".Lfar:\n")
	}
	for _, r := range reads {
		s.WriteString(dsWord(op, r.acc, r.off, 4, r.vdst))
	}
	s.WriteString(dsWord(op, false, 24, 4, 3)) // v[3:4] <- [v4 + 24]: writes the address
	s.WriteString("  s_waitcnt lgkmcnt(0)\n  v_accvgpr_read_b32 v22, a2\n  v_accvgpr_read_b32 v23, a3\n  v_accvgpr_read_b32 v24, a4\n  v_accvgpr_read_b32 v25, a5\n  v_mov_b32 v26, v3\n  v_mov_b32 v27, v4\n  v_mul_u32_u24 v30, 72, v0\n")
	for i, r := range []uint32{10, 12, 22, 14, 16, 24, 18, 20, 26} {
		fmt.Fprintf(&s, "  global_store_dwordx2 v30, v[%d:%d], s[8:9] offset:%d\n", r, r+1, 8*i)
	}
	guest, mem := readTrRunKernel(t, &s, 16384)
	base := func(lane int) int { return (lane*37 + 11) & 127 * 8 }
	offs := []int{0, 512, 64, 4100, 9000, 8, 12000, 11000, 24}
	check := func(name string, out []byte) {
		t.Helper()
		for lane := 0; lane < 64; lane++ {
			for k, off := range offs {
				want := readTrRef(16, mem, func(l int) int { return base(l) + off }, lane)
				if got := binary.LittleEndian.Uint64(out[72*lane+8*k:]); got != want {
					t.Fatalf("%s: lane %d read %d (offset %d): %#016x, reference %#016x", name, lane, k, off, got, want)
				}
			}
		}
	}
	return guest, check
}

// TestReadTrRunSidecarReEmission: a sidecar whose first layout needs a
// long branch is emitted again (its body passes the 128 KiB branch range),
// and the second emission must still run the transposed-read run right on
// the simulated gfx942. A sidecar re-emission recomputes every
// instruction (kernelT.one): the LDS lowering after it must keep off the
// scratch registers and private slots the expansion took, which a reuse of
// the first emission's host code would not record. (This run's lowering
// needs no scratch register of its own, so it checks the re-emitted
// sidecar end to end rather than that collision.)
func TestReadTrRunSidecarReEmission(t *testing.T) {
	guest, check := readTrRunGuest(t, true)
	c := &kernelref.Case{Name: "k", Grid: [3]uint32{64, 1, 1}, Block: [3]uint32{64, 1, 1}, KernargSize: 8,
		Args: []kernelref.Arg{{Name: "out", Kind: kernelref.BufferOut, Elem: kernelref.U32, Count: 64 * 72 / 4, Size: 8, Init: make([]byte, 64*72)}}}
	for _, spill := range []bool{false, true} {
		res, err := TranslateWithSidecars(guest, Options{Name: "readtr-run-sidecar-far"}, SidecarOptions{AllLDS: true, forceSpill: spill})
		if err != nil {
			t.Fatalf("sidecar (spill %v): %v", spill, err)
		}
		if len(res.Sidecars) != 1 || !res.Sidecars[0].Made || res.Sidecars[0].Bytes < 1<<17 {
			t.Fatalf("sidecar (spill %v): %+v: want one made with a body past the 128 KiB branch range", spill, res.Sidecars)
		}
		out, _, err := runSidecarOnSim(t, c, res.Object, "gfx942")
		if err != nil {
			t.Fatalf("sidecar (spill %v): %v", spill, err)
		}
		check(fmt.Sprintf("far sidecar (spill %v)", spill), out[0])
	}
}

// TestReadTrRunAddrsOnSimulator: adjacent gfx950 ds_read_b64_tr_b16
// through three lane-scattered address VGPRs (v4, v5 alternating, into
// VGPRs and AGPRs at offsets up to 9000, then two through v6, which a run
// of two address VGPRs cannot take, the first at offset 8200, past the
// DS offset span the run's code keeps to, and one through v5 after them). Inline
// (subroutines off, and with every scratch register borrowed) the first
// read emits a run through v4 and v5 (eight ds_bpermute_b32) and the first
// read through v6 a run through v6 and v5 (eight more; borrowed scratch
// registers may cut runs short). Inline, borrowed and through the
// virtual-LDS sidecar, every lane's results must equal the reference
// model readTrRef and the guest's.
func TestReadTrRunAddrsOnSimulator(t *testing.T) {
	const op = 227 // ds_read_b64_tr_b16
	type read struct {
		acc             bool
		off, addr, vdst uint32
	}
	reads := []read{{false, 0, 4, 10}, {false, 256, 4, 12}, {true, 0, 5, 2}, {false, 4352, 5, 14}, {false, 9000, 4, 16}, {true, 64, 5, 6}, {false, 8200, 6, 18}, {false, 4104, 6, 20}, {false, 24, 5, 22}}
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n")
	s.WriteString("  s_mov_b32 s10, 0x9e3779b1\n  v_lshlrev_b32 v1, 6, v0\n")
	for i := 0; i < 64; i++ {
		fmt.Fprintf(&s, "  s_mov_b32 s11, %d\n  v_lshl_add_u32 v3, v0, 4, s11\n  v_mul_lo_u32 v3, v3, s10\n  v_xor_b32 v3, 0x5bd1e995, v3\n  ds_write_b32 v1, v3 offset:%d\n", i%16+i/16*1024, 4*(i%16)+i/16*4096)
	}
	// v4, v5, v6 = ((lane*m + c) & 127) * 8 for three (m, c).
	mc := [3][2]int{{37, 11}, {53, 90}, {29, 7}}
	s.WriteString("  s_waitcnt lgkmcnt(0)\n")
	for k, x := range mc {
		fmt.Fprintf(&s, "  v_mul_u32_u24 v%d, %d, v0\n  v_add_u32 v%d, %d, v%d\n  v_and_b32 v%d, 0x7f, v%d\n  v_lshlrev_b32 v%d, 3, v%d\n", 4+k, x[0], 4+k, x[1], 4+k, 4+k, 4+k, 4+k, 4+k)
	}
	for _, r := range reads {
		s.WriteString(dsWord(op, r.acc, r.off, r.addr, r.vdst))
	}
	s.WriteString("  s_waitcnt lgkmcnt(0)\n  v_accvgpr_read_b32 v24, a2\n  v_accvgpr_read_b32 v25, a3\n  v_accvgpr_read_b32 v26, a6\n  v_accvgpr_read_b32 v27, a7\n  v_mul_u32_u24 v30, 72, v0\n")
	for i, r := range []uint32{10, 12, 24, 14, 16, 26, 18, 20, 22} {
		fmt.Fprintf(&s, "  global_store_dwordx2 v30, v[%d:%d], s[8:9] offset:%d\n", r, r+1, 8*i)
	}
	guest, mem := readTrRunKernel(t, &s, 16384)
	check := func(name string, out []byte) {
		t.Helper()
		for lane := 0; lane < 64; lane++ {
			for k, r := range reads {
				x := mc[r.addr-4]
				want := readTrRef(16, mem, func(l int) int { return (l*x[0]+x[1])&127*8 + int(r.off) }, lane)
				if got := binary.LittleEndian.Uint64(out[72*lane+8*k:]); got != want {
					t.Fatalf("%s: lane %d read %d (v%d offset %d): %#016x, reference %#016x", name, lane, k, r.addr, r.off, got, want)
				}
			}
		}
	}
	check("gfx950 guest", runKernelOn(t, guest, "gfx950", 64*72))
	for _, v := range []struct {
		name string
		opt  Options
	}{
		{"inline", Options{noShared: true}},
		{"spill", Options{forceSpill: true}},
	} {
		v.opt.Name = "readtr-run-addrs-" + v.name
		res, err := Translate(guest, v.opt)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		verifyObject(t, v.opt.Name, guest, res.Object)
		n := countHostOps(t, v.name, res.Object, "ds_bpermute_b32")
		if v.name == "inline" && n != 16 {
			t.Fatalf("%s: %d ds_bpermute_b32 in the translation, want 16", v.name, n)
		}
		check(v.name, runKernelOn(t, res.Object, "gfx942", 64*72))
	}
	checkReadTrSidecars(t, guest, "readtr-run-addrs-sidecar", check)
}

// countHostOps returns how many instructions named name the gfx942 .text
// of obj has (what names the translation in failures).
func countHostOps(t *testing.T, what string, obj []byte, name string) int {
	t.Helper()
	text := textOf(t, obj)
	n := 0
	for off := 0; off < len(text); {
		in, err := gfx9DecodeForTest(text[off:], uint64(off))
		if err != nil {
			t.Fatalf("%s: host code at %#x: %v", what, off, err)
		}
		if in.Name() == name {
			n++
		}
		off += int(in.Size)
	}
	return n
}

// checkReadTrSidecars translates guest with all-LDS virtual-LDS sidecars
// (named name), without and with spills, runs each on the simulated
// gfx942 and hands its 64*72 output bytes to check.
func checkReadTrSidecars(t *testing.T, guest []byte, name string, check func(what string, out []byte)) {
	t.Helper()
	c := &kernelref.Case{Name: "k", Grid: [3]uint32{64, 1, 1}, Block: [3]uint32{64, 1, 1}, KernargSize: 8,
		Args: []kernelref.Arg{{Name: "out", Kind: kernelref.BufferOut, Elem: kernelref.U32, Count: 64 * 72 / 4, Size: 8, Init: make([]byte, 64*72)}}}
	for _, spill := range []bool{false, true} {
		res, err := TranslateWithSidecars(guest, Options{Name: name}, SidecarOptions{AllLDS: true, forceSpill: spill})
		if err != nil {
			t.Fatalf("sidecar (spill %v): %v", spill, err)
		}
		out, _, err := runSidecarOnSim(t, c, res.Object, "gfx942")
		if err != nil {
			t.Fatalf("sidecar (spill %v): %v", spill, err)
		}
		check(fmt.Sprintf("sidecar (spill %v)", spill), out[0])
	}
}

// readTrRunKernel ends the kernel source in s (s_endpgm and a descriptor
// with lds bytes of LDS), builds it, and returns it with the LDS content
// the tests load: word i is i*0x9e3779b1 ^ 0x5bd1e995.
func readTrRunKernel(t *testing.T, s *strings.Builder, lds int) (guest, mem []byte) {
	t.Helper()
	fmt.Fprintf(s, "  s_endpgm\n.rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_group_segment_fixed_size %d\n  .amdhsa_next_free_vgpr 40\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 32\n.end_amdhsa_kernel\n", lds)
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	guest = buildGuestFrom(t, path)
	mem = make([]byte, lds)
	for i := 0; i < lds/4; i++ {
		binary.LittleEndian.PutUint32(mem[4*i:], uint32(i)*0x9e3779b1^0x5bd1e995)
	}
	return guest, mem
}
