package dbt

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa/objfile"
)

// TestFP8MFMASharedHeadOnSimulator runs a guest with eight distinct
// zero-C FP8 MFMAs (16x16x128 f8f6f4, AGPR operands with -0 bytes in
// some lanes), in two halves of a block that reload their registers, in
// a loop and again after it, on simulated gfx950, and its translation on
// simulated gfx942. Each MFMA gets a subroutine body; the two that first
// read a[16:23] after its reload (one per half, with different B) begin
// with the same in-place -0 clearing of a[16:23]: the translation must
// store what the guest stores and hold that clearing once (a head both
// call, each then running the rest of its body inline).
func TestFP8MFMASharedHeadOnSimulator(t *testing.T) {
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n  v_mov_b32 v52, 0x80\n")
	// v64..v95: two sets of A/B bytes, one -0 byte in lane 3 of 16.
	for i := 0; i < 32; i++ {
		writeLaneOperand(&s, i, 13*i+5, fp8Fill, fmt.Sprintf("v_mov_b32 v%d", 64+i))
	}
	for r := 0; r < 8; r++ {
		fmt.Fprintf(&s, "  v_mov_b32 v%d, 0\n", 40+r)
	}
	// load writes a[a:a+7] from v[v:v+7].
	load := func(a, v int) {
		for i := 0; i < 8; i++ {
			fmt.Fprintf(&s, "  v_accvgpr_write_b32 a%d, v%d\n", a+i, v+i)
		}
		s.WriteString("  s_nop 2\n")
	}
	// mf is v_mfma_f32_16x16x128_f8f6f4 v[d:d+3], a[a:a+7], a[b:b+7], 0,
	// then v[acc:acc+3] += v[d:d+3].
	mf := func(a, b, d, acc int) {
		w0 := uint32(0xd3800000 | 0x2d<<16 | uint32(d))
		w1 := uint32(256+a) | uint32(256+b)<<9 | 128<<18 | 1<<27 | 1<<28
		fmt.Fprintf(&s, "  .long %#x, %#x\n  s_nop 7\n  s_nop 7\n  s_nop 7\n", w0, w1)
		for r := 0; r < 4; r++ {
			fmt.Fprintf(&s, "  v_add_f32_e32 v%d, v%d, v%d\n", acc+r, d+r, acc+r)
		}
	}
	// Each half loads A into a[0:7] and B, reads them twice, loads a
	// second A into a[16:23] and reads it twice with the same B: the
	// MFMAs right after that load clear a[16:23] alone, with the same
	// bytes in both halves (their keys differ by B).
	half := func(b, va, vb, va2 int) {
		load(0, va)
		load(b, vb)
		mf(0, b, 30, 40)
		mf(0, b, 34, 44)
		load(16, va2)
		mf(16, b, 30, 40)
		mf(16, b, 34, 44)
	}
	body := func() {
		half(8, 64, 72, 80)
		half(24, 72, 88, 64)
	}
	s.WriteString("  s_mov_b32 s20, 3\nloop:\n")
	body()
	s.WriteString("  s_sub_u32 s20, s20, 1\n  s_cmp_lg_u32 s20, 0\n  s_cbranch_scc1 loop\n")
	body()
	s.WriteString("  v_lshlrev_b32_e32 v60, 5, v0\n  s_waitcnt lgkmcnt(0)\n  global_store_dwordx4 v60, v[40:43], s[8:9]\n  global_store_dwordx4 v60, v[44:47], s[8:9] offset:16\n  s_endpgm\n")
	s.WriteString(".rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 128\n  .amdhsa_next_free_sgpr 24\n  .amdhsa_accum_offset 96\n.end_amdhsa_kernel\n")
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	guest := buildGuestFrom(t, path)
	size := 64 * 32
	want := runKernelOn(t, guest, "gfx950", size)
	if nonzero := nonzeroDwords(want); nonzero < size/8 {
		t.Fatalf("only %d nonzero dwords in the gfx950 result", nonzero)
	}
	for _, tc := range []struct {
		name  string
		opts  Options
		note  string
		reads int // how often .text reads a20 (the clearing of it)
	}{
		{"after", Options{Name: "fp8head", noAGPRRename: true}, "16 long expansions call 7 per-kernel subroutines placed after the code", 1},
		// Copies in the code, one per use (each head call gets its own).
		{"copies", Options{Name: "fp8head", sharedReach: 1, noAGPRRename: true}, "placed in the code", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Translate(guest, tc.opts)
			if err != nil {
				t.Fatalf("%v\n%+v", err, res.Report)
			}
			notes := fmt.Sprint(res.Report.Kernels[0].Notes)
			if !strings.Contains(notes, tc.note) {
				t.Fatalf("subroutine notes %q, want %q (six bodies and one shared head: the two MFMAs that share it run the rest of theirs inline)", notes, tc.note)
			}
			f, err := objfile.Parse(res.Object, "fp8head")
			if err != nil {
				t.Fatal(err)
			}
			var text []byte
			for _, sec := range f.Sections {
				if sec.Name == ".text" {
					text = sec.Data
				}
			}
			// v_accvgpr_read_b32 vN, a20 (any N): the clearing of a20.
			n := 0
			for i := 0; i+8 <= len(text); i += 4 {
				w0, w1 := binary.LittleEndian.Uint32(text[i:]), binary.LittleEndian.Uint32(text[i+4:])
				if w0&0xffffff00 == 0xd3d84000 && w1 == 0x18000000|(256+20) {
					n++
				}
			}
			if n != tc.reads {
				t.Errorf("a20 is read %d times in .text, want %d", n, tc.reads)
			}
			equalDwords(t, "fp8head", runKernelOn(t, res.Object, "gfx942", size), want, 32)
		})
	}
}
