package dbt

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/bitop3"
	"github.com/rocjitsu/rocjitsu/hsa/sim"
)

// TestBitop3AllTablesOnSimulator assembles one gfx950 kernel holding all
// 256 v_bitop3_b32 truth tables (each result stored to its own dword),
// translates it and runs it on the simulated gfx942 agent: every stored
// value must equal the table applied bit by bit.
func TestBitop3AllTablesOnSimulator(t *testing.T) {
	const a, b, c = 0xf0f0f0f0, 0xcccccccc, 0xaaaaaaaa // every (a,b,c) combination in each byte
	var src strings.Builder
	src.WriteString(`.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl k
.p2align 8
.type k,@function
k:
  s_load_dwordx2 s[8:9], s[0:1], 0x0
  v_mov_b32 v0, 0
`)
	fmt.Fprintf(&src, "  v_mov_b32 v1, %#x\n  v_mov_b32 v2, %#x\n  v_mov_b32 v3, %#x\n  s_waitcnt lgkmcnt(0)\n", a, b, c)
	for lut := 0; lut < 256; lut++ {
		neg, abs, omod := bitop3.Fields(uint8(lut))
		w0 := 0xd2340000 | uint32(abs)<<8 | 5
		w1 := uint32(neg)<<29 | uint32(omod)<<27 | (256+3)<<18 | (256+2)<<9 | (256 + 1)
		fmt.Fprintf(&src, "  .long %#x, %#x\n  global_store_dword v0, v5, s[8:9] offset:%d\n", w0, w1, 4*lut)
	}
	src.WriteString(`  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
`)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bitop3_all.s"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	guest := buildGuestFrom(t, filepath.Join(dir, "bitop3_all.s"))
	res, err := Translate(guest, Options{Name: "bitop3_all"})
	if err != nil {
		t.Fatalf("%v\n%+v", err, res.Report)
	}
	verifyObject(t, "bitop3_all", guest, res.Object)
	ag, err := sim.NewAgent("gfx942")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := ag.LoadCodeObject(res.Object)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ex.Kernel("k")
	if err != nil {
		t.Fatal(err)
	}
	buf, err := ag.Alloc(4 * 256)
	if err != nil {
		t.Fatal(err)
	}
	if err := ag.Dispatch(k, [3]uint32{64, 1, 1}, [3]uint32{64, 1, 1}, binary.LittleEndian.AppendUint64(nil, buf)); err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 4*256)
	if err := ag.CopyOut(buf, out); err != nil {
		t.Fatal(err)
	}
	for lut := 0; lut < 256; lut++ {
		got := binary.LittleEndian.Uint32(out[4*lut:])
		if want := bitop3.Eval(uint8(lut), a, b, c); got != want || got&0xff != uint32(lut) {
			t.Fatalf("table %#x: simulator stored %#x, want %#x", lut, got, want)
		}
	}
}
