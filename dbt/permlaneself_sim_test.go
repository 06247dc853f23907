package dbt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPermlaneSelfSwapAgainstGFX950Simulator is the differential test of
// v_permlane16_swap_b32 / v_permlane32_swap_b32 with vdst == vsrc (VOP1
// and VOP3 forms): each lane takes its partner's value on simulated gfx950,
// and the translation must give the same registers on simulated gfx942.
func TestPermlaneSelfSwapAgainstGFX950Simulator(t *testing.T) {
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n")
	for r := 2; r <= 5; r++ {
		fmt.Fprintf(&s, "  v_mul_u32_u24_e32 v%d, 0x%x, v0\n  v_add_u32_e32 v%d, 0x%x, v%d\n", r, 0x10001*r+7, r, 0x1000*r, r)
	}
	vop1 := func(op, r uint32) uint32 { return 0x7e000000 | r<<17 | op<<9 | (256 + r) }
	for _, w := range [][]uint32{
		{vop1(0x59, 2)},           // v_permlane16_swap_b32 v2, v2
		{vop1(0x5a, 3)},           // v_permlane32_swap_b32 v3, v3
		{0xd1990000 | 4, 256 + 4}, // v_permlane16_swap_b32_e64 v4, v4
		{0xd19a0000 | 5, 256 + 5}, // v_permlane32_swap_b32_e64 v5, v5
		{vop1(0x5a, 2)},           // v_permlane32_swap_b32 v2, v2
	} {
		fmt.Fprintf(&s, "  .long %s\n", strings.Trim(strings.Join(strings.Fields(fmt.Sprintf("%#x", w)), ", "), "[]"))
	}
	s.WriteString("  v_lshlrev_b32_e32 v20, 4, v0\n  s_waitcnt lgkmcnt(0)\n  global_store_dwordx4 v20, v[2:5], s[8:9]\n  s_endpgm\n")
	s.WriteString(".rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 32\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 32\n.end_amdhsa_kernel\n")
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	guest := buildGuestFrom(t, path)
	res, err := Translate(guest, Options{Name: "permself"})
	if err != nil {
		t.Fatalf("%v\n%+v", err, res.Report)
	}
	want := runKernelOn(t, guest, "gfx950", 64*16)
	got := runKernelOn(t, res.Object, "gfx942", 64*16)
	if !bytes.Equal(got, want) {
		for i := 0; i < len(got); i += 4 {
			if g, w := binary.LittleEndian.Uint32(got[i:]), binary.LittleEndian.Uint32(want[i:]); g != w {
				t.Fatalf("lane %d v%d: translated %#x, gfx950 %#x", i/16, 2+i%16/4, g, w)
			}
		}
	}
	// The swap happened: lane 0 of v3 holds lane 32's initial value.
	if v := binary.LittleEndian.Uint32(want[4:]); v != 32*(0x10001*3+7)+0x3000 {
		t.Fatalf("gfx950 lane 0 v3 = %#x, want lane 32's value", v)
	}
}
