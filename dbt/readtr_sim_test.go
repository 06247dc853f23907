package dbt

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readTrRef is the reference model of the gfx950 transposed LDS reads
// ds_read_b64_tr_b<bits>: lane l of each 16-lane group g receives column
// l%16 of the matrix whose rows are the 64-bit blocks of R = bits/4
// consecutive lanes: element j comes from lane 16g + R*j + (l%16)/E at
// element position (l%16)%E, E = 64/bits (see dbt/rules/readtr.go).
func readTrRef(bits int, mem []byte, addr func(lane int) int, lane int) uint64 {
	e := 64 / bits
	r := 16 / e
	g, l := lane&^15, lane&15
	var out uint64
	for j := 0; j < e; j++ {
		src := g + r*j + l/e
		pos := l % e // element index inside the source lane's 64 bits
		blk := binary.LittleEndian.Uint64(mem[addr(src):])
		v := blk >> (pos * bits) & (1<<bits - 1)
		out |= v << (j * bits)
	}
	return out
}

// TestReadTrRuleOnSimulator: a kernel fills 4 KiB of LDS with a hashed
// pattern, then runs gfx950 ds_read_b64_tr_b16/_b8/_b4 (raw words) with
// lane-scattered addresses, into VGPRs, into AGPRs, and with the
// destination overlapping the address register (first and second dword).
// Its translation (the four reads calling one per-kernel subroutine placed
// after the code or copies of it before each read, inline with dead
// scratch registers, and inline with every scratch register borrowed and
// saved to private memory) runs on
// the simulated gfx942 agent and every lane's result must equal the
// reference model readTrRef bit for bit; the guest itself, run on the
// simulated gfx950 agent (whose model of these instructions was written
// from the same inferred formula), must agree as well.
func TestReadTrRuleOnSimulator(t *testing.T) {
	ops := map[int]uint32{16: 227, 8: 226, 4: 224}
	perms := [][2]int{{37, 11}, {1, 0}, {91, 200}, {5, 3}}
	for _, bits := range []int{16, 8, 4} {
		for _, pm := range perms {
			t.Run(fmt.Sprintf("b%d_%d_%d", bits, pm[0], pm[1]), func(t *testing.T) {
				testReadTr(t, bits, ops[bits], pm[0], pm[1])
			})
		}
	}
}

func dsWord(op uint32, acc bool, off uint32, vaddr, vdst uint32) string {
	w0 := 0xd8000000 | op<<17 | off
	if acc {
		w0 |= 1 << 25
	}
	return fmt.Sprintf("  .long %#x, %#x\n", w0, vaddr|vdst<<24)
}

func testReadTr(t *testing.T, bits int, op uint32, mul, add int) {
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n")
	s.WriteString("  s_mov_b32 s10, 0x9e3779b1\n  v_lshlrev_b32 v1, 6, v0\n")
	for i := 0; i < 16; i++ {
		fmt.Fprintf(&s, "  v_lshl_add_u32 v3, v0, 4, %d\n  v_mul_lo_u32 v3, v3, s10\n  v_xor_b32 v3, 0x5bd1e995, v3\n  ds_write_b32 v1, v3 offset:%d\n", i, 4*i)
	}
	// v4 = ((lane*mul + add) & 255) * 8
	fmt.Fprintf(&s, "  s_waitcnt lgkmcnt(0)\n  v_mul_u32_u24 v4, %d, v0\n  v_add_u32 v4, %d, v4\n  v_and_b32 v4, 0xff, v4\n  v_lshlrev_b32 v4, 3, v4\n  v_mov_b32 v6, v4\n  v_mov_b32 v9, v4\n", mul, add)
	s.WriteString(dsWord(op, false, 40, 4, 10)) // v[10:11] <- [v4 + 40]
	s.WriteString(dsWord(op, true, 8, 4, 2))    // a[2:3]   <- [v4 + 8]
	s.WriteString(dsWord(op, false, 0, 6, 6))   // v[6:7]   <- [v6]
	s.WriteString(dsWord(op, false, 16, 9, 8))  // v[8:9]   <- [v9 + 16]
	s.WriteString("  s_waitcnt lgkmcnt(0)\n  v_accvgpr_read_b32 v12, a2\n  v_accvgpr_read_b32 v13, a3\n")
	s.WriteString("  v_lshlrev_b32 v20, 5, v0\n  s_waitcnt lgkmcnt(0)\n  global_store_dwordx2 v20, v[10:11], s[8:9]\n  global_store_dwordx2 v20, v[12:13], s[8:9] offset:8\n  global_store_dwordx2 v20, v[6:7], s[8:9] offset:16\n  global_store_dwordx2 v20, v[8:9], s[8:9] offset:24\n  s_endpgm\n")
	s.WriteString(".rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_group_segment_fixed_size 4096\n  .amdhsa_next_free_vgpr 40\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 24\n.end_amdhsa_kernel\n")
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	guest := buildGuestFrom(t, path)
	for _, v := range []struct {
		name string
		opt  Options
		note string
	}{
		{"subroutine", Options{}, "4 long expansions call 1 per-kernel subroutines placed after the code"},
		{"copies", Options{sharedReach: 1}, "4 long expansions call 4 per-kernel subroutines placed in the code"},
		{"inline", Options{noShared: true}, ""},
		{"spill", Options{forceSpill: true}, "borrowed"},
	} {
		v.opt.Name = "readtr-" + v.name
		res, err := Translate(guest, v.opt)
		if err != nil {
			t.Fatalf("%s: %v\n%+v", v.name, err, res.Report)
		}
		notes := fmt.Sprint(res.Report.Kernels[0].Notes)
		if v.note != "" && !strings.Contains(notes, v.note) || v.note == "" && strings.Contains(notes, "subroutine") {
			t.Fatalf("%s: notes %s, want %q", v.name, notes, v.note)
		}
		checkReadTr(t, bits, mul, add, guest, res.Object)
	}
}

// checkReadTr runs the translation obj and the guest and compares both
// with readTrRef.
func checkReadTr(t *testing.T, bits, mul, add int, guest, obj []byte) {
	t.Helper()
	got := runKernelOn(t, obj, "gfx942", 64*32)
	// The simulated gfx950 agent implements the same inferred mapping
	// (written from the formula, not from hardware): it must agree too.
	guestOut := runKernelOn(t, guest, "gfx950", 64*32)
	mem := make([]byte, 4096)
	for i := 0; i < 1024; i++ {
		binary.LittleEndian.PutUint32(mem[4*i:], uint32(i)*0x9e3779b1^0x5bd1e995)
	}
	base := func(lane int) int { return (lane*mul + add) & 255 * 8 }
	for lane := 0; lane < 64; lane++ {
		for k, off := range []int{40, 8, 0, 16} {
			want := readTrRef(bits, mem, func(l int) int { return base(l) + off }, lane)
			g := binary.LittleEndian.Uint64(got[32*lane+8*k:])
			if g != want {
				t.Fatalf("lane %d read %d (offset %d): translated %#016x, reference %#016x", lane, k, off, g, want)
			}
			if gs := binary.LittleEndian.Uint64(guestOut[32*lane+8*k:]); gs != want {
				t.Fatalf("lane %d read %d (offset %d): gfx950 simulator %#016x, reference %#016x", lane, k, off, gs, want)
			}
		}
	}
}
