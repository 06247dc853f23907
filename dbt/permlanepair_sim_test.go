package dbt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa/objfile"
)

// TestPermlane16PairAgainstGFX950Simulator is the differential test of
// back-to-back v_permlane16_swap_b32 on distinct registers (gfx950 code
// separates them with s_nop 1): a run of three (a pair, then one alone)
// and two swaps sharing a register (no pair) on simulated gfx950, and the
// translation on simulated gfx942 must give the same registers. The pair
// waits once for its four swizzles, and the s_nop between its two swaps
// is dropped: .text holds one s_waitcnt
// lgkmcnt(0) for the pair, one for each of the three single swaps and the guest's own.
func TestPermlane16PairAgainstGFX950Simulator(t *testing.T) {
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n")
	for r := 2; r <= 9; r++ {
		fmt.Fprintf(&s, "  v_mul_u32_u24_e32 v%d, 0x%x, v0\n  v_add_u32_e32 v%d, 0x%x, v%d\n", r, 0x10001*r+7, r, 0x1000*r, r)
	}
	swap := func(d, src uint32) string {
		return fmt.Sprintf("  .long %#x\n", 0x7e000000|d<<17|0x59<<9|(256+src)) // v_permlane16_swap_b32 vd, vsrc
	}
	s.WriteString("  s_nop 1\n" + swap(2, 3) + "  s_nop 1\n" + swap(4, 5) + "  s_nop 1\n" + swap(6, 7) + "  s_nop 1\n")
	s.WriteString("  v_add_u32_e32 v8, 1, v8\n  s_nop 1\n" + swap(8, 9) + "  s_nop 1\n" + swap(9, 2) + "  s_nop 1\n")
	s.WriteString("  v_lshlrev_b32_e32 v20, 5, v0\n  s_waitcnt lgkmcnt(0)\n  global_store_dwordx4 v20, v[2:5], s[8:9]\n  global_store_dwordx4 v20, v[6:9], s[8:9] offset:16\n  s_endpgm\n")
	s.WriteString(".rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 32\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 32\n.end_amdhsa_kernel\n")
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	guest := buildGuestFrom(t, path)
	res, err := Translate(guest, Options{Name: "permpair"})
	if err != nil {
		t.Fatalf("%v\n%+v", err, res.Report)
	}
	f, err := objfile.Parse(res.Object, "permpair")
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range f.Sections {
		if sec.Name == ".text" {
			// The guest's seven s_nop 1 but the one inside the pair.
			if n := bytes.Count(sec.Data, binary.LittleEndian.AppendUint32(nil, 0xbf800001)); n != 6 {
				t.Errorf(".text holds %d s_nop 1, want 6", n)
			}
			if n := bytes.Count(sec.Data, binary.LittleEndian.AppendUint32(nil, 0xbf8cc07f)); n != 5 {
				t.Errorf(".text holds %d s_waitcnt lgkmcnt(0), want 5 (the pair's, three single swaps', the guest's)", n)
			}
		}
	}
	want := runKernelOn(t, guest, "gfx950", 64*32)
	got := runKernelOn(t, res.Object, "gfx942", 64*32)
	if !bytes.Equal(got, want) {
		for i := 0; i < len(got); i += 4 {
			if g, w := binary.LittleEndian.Uint32(got[i:]), binary.LittleEndian.Uint32(want[i:]); g != w {
				t.Fatalf("lane %d v%d: translated %#x, gfx950 %#x", i/32, 2+i%32/4, g, w)
			}
		}
	}
	// The swaps happened: lane 16 of v2 holds lane 0's initial v3.
	if v := binary.LittleEndian.Uint32(want[16*32:]); v != 0x3000 {
		t.Fatalf("gfx950 lane 16 v2 = %#x, want lane 0's v3 (0x3000)", v)
	}
}
