package wave

import (
	"debug/elf"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
	"github.com/rocjitsu/rocjitsu/hsa/sim/mem"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
)

// assemble12 assembles gfx1201 code with llvm-mc-19 (wave32 or wave64) and
// appends s_endpgm.
func assemble12(t *testing.T, src string, wave64 bool) []byte {
	t.Helper()
	mc := llvmtool.Require(t, "llvm-mc-19")
	dir := t.TempDir()
	s, o := filepath.Join(dir, "t.s"), filepath.Join(dir, "t.o")
	if err := os.WriteFile(s, []byte(src+"\ns_endpgm\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	attr := "-mattr=+wavefrontsize32"
	if wave64 {
		attr = "-mattr=+wavefrontsize64"
	}
	if out, err := exec.Command(mc, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx1201", attr, "-filetype=obj", s, "-o", o).CombinedOutput(); err != nil {
		t.Fatalf("llvm-mc-19: %v\n%s", err, out)
	}
	f, err := elf.Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := f.Section(".text").Data()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// newWave12 returns a gfx1201 wave (wave32 or wave64) with every lane on.
func newWave12(t *testing.T, code []byte, wave64 bool) (*Wave, *mem.Memory) {
	t.Helper()
	target := GFX1201
	if wave64 {
		target |= Wave64
	}
	w, m := newWave(t, code, target)
	if wave64 {
		w.SetExec(^uint64(0))
	} else {
		w.SetExec(0xffffffff)
	}
	return w, m
}

// TestGFX12LaneMasks: wave32 compares write one SGPR (the next stays), wave64
// compares a pair; v_cmpx writes EXEC only (gfx9 also wrote VCC).
func TestGFX12LaneMasks(t *testing.T) {
	for _, wave64 := range []bool{false, true} {
		src := "v_cmp_gt_u32_e64 s0, v0, 15\nv_cmpx_lt_u32_e32 5, v0"
		if wave64 {
			src = "v_cmp_gt_u32_e64 s[0:1], v0, 15\nv_cmpx_lt_u32_e32 5, v0"
		}
		w, _ := newWave12(t, assemble12(t, src, wave64), wave64)
		for l := 0; l < 64; l++ {
			w.V[0][l] = uint32(l)
		}
		w.S[1] = 0xdeadbeef
		w.S[RegVCCLo], w.S[RegVCCHi] = 0x1234, 0x5678
		run(t, w)
		want := uint64(0xffffffff) &^ 0xffff
		if wave64 {
			want = ^uint64(0xffff)
		}
		got := uint64(w.S[0])
		if wave64 {
			got |= uint64(w.S[1]) << 32
		} else if w.S[1] != 0xdeadbeef {
			t.Errorf("wave32 v_cmp_e64 s0 clobbered s1: %#x", w.S[1])
		}
		if got != want {
			t.Errorf("wave64=%v: v_cmp_gt mask %#x, want %#x", wave64, got, want)
		}
		wantExec := uint64(0xffffffff) &^ 0x3f
		if wave64 {
			wantExec = ^uint64(0x3f)
		}
		if w.Exec() != wantExec {
			t.Errorf("wave64=%v: v_cmpx exec %#x, want %#x", wave64, w.Exec(), wantExec)
		}
		if w.S[RegVCCLo] != 0x1234 || w.S[RegVCCHi] != 0x5678 {
			t.Errorf("wave64=%v: v_cmpx wrote VCC: %#x:%#x", wave64, w.S[RegVCCHi], w.S[RegVCCLo])
		}
	}
}

// TestGFX12ScalarOps covers the 32-bit exec updates, null, m0 and the
// gfx12 hardware-register ids.
func TestGFX12ScalarOps(t *testing.T) {
	w, _ := newWave12(t, assemble12(t, `s_mov_b32 s2, 0xff00ff00
s_and_saveexec_b32 s3, s2
s_mov_b32 m0, 7
s_mov_b32 s4, m0
s_mov_b32 null, 5
s_add_co_u32 s5, null, 3
s_getreg_b32 s6, hwreg(HW_REG_SHADER_CYCLES_LO)
s_add_nc_u64 s[8:9], s[10:11], 1
s_cvt_f32_u32 s12, s13`, false), false)
	w.S[10], w.S[11] = 0xffffffff, 1
	w.S[13] = 3
	run(t, w)
	if w.S[3] != 0xffffffff || w.Exec() != 0xff00ff00 {
		t.Errorf("s_and_saveexec_b32: s3 %#x exec %#x", w.S[3], w.Exec())
	}
	if w.S[4] != 7 || w.S[5] != 3 {
		t.Errorf("m0/null: s4 %d (want 7), s5 %d (want 3)", w.S[4], w.S[5])
	}
	if w.S[6] == 0 || w.S[6] > 10 {
		t.Errorf("SHADER_CYCLES_LO = %d, want the instructions so far", w.S[6])
	}
	if w.S[8] != 0 || w.S[9] != 2 {
		t.Errorf("s_add_nc_u64 = %#x:%#x", w.S[9], w.S[8])
	}
	if f32(w.S[12]) != 3 {
		t.Errorf("s_cvt_f32_u32 = %v", f32(w.S[12]))
	}
}

// TestGFX12True16: 16-bit .h/.l operands (VOP3 op_sel) read and write
// register halves, and the other half of the destination is kept.
// (dbt/isa/gfx12's tables come from llvm-mc without +real-true16, so it
// rejects the VOP2 encodings with VGPR field bit 7 set that true16 code
// uses; the simulator's conversion of those to op_sel is untested.)
func TestGFX12True16(t *testing.T) {
	// v_add_f16_e64 v0, v1, v2 with op_sel src1 and dst (word0 bits 12, 14:
	// llvm-mc-19's fake16 syntax has no op_sel for it), then without.
	code := []byte{0x00, 0x50, 0x32, 0xd5, 0x01, 0x05, 0x02, 0x00}
	code = append(code, assemble12(t, "v_add_f16_e64 v3, v1, v2", false)...)
	w, _ := newWave12(t, code, false)
	for l := 0; l < 32; l++ {
		w.V[0][l] = 0x0000abcd
		w.V[1][l] = 0x00003c00          // 1.0 in .l
		w.V[2][l] = 0x4000<<16 | 0x4200 // 2.0 in .h, 3.0 in .l
		w.V[3][l] = 0x12340000
	}
	run(t, w)
	if w.V[0][0] != 0x4200abcd { // 1 + 2 = 3.0 in .h, .l kept
		t.Errorf("v_add_f16 v0.h = %#08x, want 0x4200abcd", w.V[0][0])
	}
	if w.V[3][0] != 0x12344400 { // 1 + 3 = 4.0 in .l, .h kept
		t.Errorf("v_add_f16 v3.l = %#08x, want 0x12344400", w.V[3][0])
	}
}

// TestGFX12DPP: DPP8 lane selects and DPP16 row_share.
func TestGFX12DPP(t *testing.T) {
	w, _ := newWave12(t, assemble12(t, `v_mov_b32_dpp v0, v1 dpp8:[7,6,5,4,3,2,1,0]
v_mov_b32_dpp v2, v1 row_share:3 row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v3, v1 row_xmask:1 row_mask:0xf bank_mask:0xf`, false), false)
	for l := 0; l < 32; l++ {
		w.V[1][l] = uint32(100 + l)
	}
	run(t, w)
	for l := 0; l < 32; l++ {
		if want := uint32(100 + l&^7 + 7 - l&7); w.V[0][l] != want {
			t.Errorf("dpp8 lane %d = %d, want %d", l, w.V[0][l], want)
		}
		if want := uint32(100 + l&^15 + 3); w.V[2][l] != want {
			t.Errorf("row_share lane %d = %d, want %d", l, w.V[2][l], want)
		}
		if want := uint32(100 + l ^ 1); w.V[3][l] != want {
			t.Errorf("row_xmask lane %d = %d, want %d", l, w.V[3][l], want)
		}
	}
}

// TestGFX12VOPD: both halves read their sources before either writes (a
// dual move swaps two registers).
func TestGFX12VOPD(t *testing.T) {
	w, _ := newWave12(t, assemble12(t, "v_dual_mov_b32 v0, v1 :: v_dual_mov_b32 v1, v0\nv_dual_add_f32 v2, v4, v5 :: v_dual_mul_f32 v3, v5, v4", false), false)
	for l := 0; l < 32; l++ {
		w.V[0][l], w.V[1][l] = 1, 2
		w.V[4][l], w.V[5][l] = u32(3), u32(4)
	}
	run(t, w)
	if w.V[0][5] != 2 || w.V[1][5] != 1 {
		t.Errorf("dual mov swap: v0 %d v1 %d, want 2 1", w.V[0][5], w.V[1][5])
	}
	if f32(w.V[2][0]) != 7 || f32(w.V[3][0]) != 12 {
		t.Errorf("dual add/mul = %v %v", f32(w.V[2][0]), f32(w.V[3][0]))
	}
}

// TestGFX12DSCmpstore: gfx12 ds_cmpstore takes the new value in data0 and
// the compare value in data1 (the reverse of gfx9 ds_cmpst).
func TestGFX12DSCmpstore(t *testing.T) {
	w, _ := newWave12(t, assemble12(t, "ds_cmpstore_rtn_b32 v3, v0, v1, v2", false), false)
	for l := 0; l < 32; l++ {
		w.V[0][l] = uint32(4 * l)
		le.PutUint32(w.group.LDS[4*l:], uint32(l))
		w.V[1][l] = 1000 + uint32(l) // new
		w.V[2][l] = uint32(l &^ 1)   // compare: equal on even lanes
	}
	run(t, w)
	for l := 0; l < 32; l++ {
		want := uint32(l)
		if l%2 == 0 {
			want = 1000 + uint32(l)
		}
		if got := le.Uint32(w.group.LDS[4*l:]); got != want || w.V[3][l] != uint32(l) {
			t.Errorf("lane %d: LDS %d (want %d), returned %d (want %d)", l, got, want, w.V[3][l], l)
		}
	}
}

// TestGFX12CrossLane: v_permlane64 swaps the halves of a wave64;
// v_permlane16 selects within rows; ds_bpermute wraps at the wave size.
func TestGFX12CrossLane(t *testing.T) {
	w, _ := newWave12(t, assemble12(t, "v_permlane64_b32 v0, v1\nds_bpermute_b32 v2, v3, v1", true), true)
	for l := 0; l < 64; l++ {
		w.V[1][l] = uint32(l)
		w.V[3][l] = uint32(4 * (l + 1))
	}
	run(t, w)
	for l := 0; l < 64; l++ {
		if w.V[0][l] != uint32(l^32) || w.V[2][l] != uint32((l+1)&63) {
			t.Fatalf("wave64 lane %d: permlane64 %d, bpermute %d", l, w.V[0][l], w.V[2][l])
		}
	}
	w, _ = newWave12(t, assemble12(t, "v_permlane16_b32 v0, v1, s0, s1\nds_bpermute_b32 v2, v3, v1", false), false)
	w.S[0], w.S[1] = 0x89abcdef, 0x01234567 // lane r reads row lane 15-r
	for l := 0; l < 32; l++ {
		w.V[1][l] = uint32(l)
		w.V[3][l] = uint32(4 * (l + 1))
	}
	run(t, w)
	for l := 0; l < 32; l++ {
		if w.V[0][l] != uint32(l&^15+15-l&15) || w.V[2][l] != uint32((l+1)&31) {
			t.Fatalf("wave32 lane %d: permlane16 %d, bpermute %d", l, w.V[0][l], w.V[2][l])
		}
	}
}

// TestGFX12WMMA runs v_wmma_f32_16x16x16_f16 and v_wmma_f16_16x16x16_f16 in
// both wave sizes on random small-integer matrices placed by the layouts
// of the research notes and compares D with a Go matrix product (exact for
// these inputs), with neg_lo on A.
func TestGFX12WMMA(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	for _, wave64 := range []bool{false, true} {
		n := 4
		src := "v_wmma_f32_16x16x16_f16 v[8:15], v[0:3], v[4:7], v[16:23]\nv_wmma_f32_16x16x16_f16 v[24:31], v[0:3], v[4:7], 1.0 neg_lo:[1,0,0] neg_hi:[1,0,0]"
		if wave64 {
			n = 2
			src = "v_wmma_f32_16x16x16_f16 v[8:11], v[0:1], v[4:5], v[16:19]\nv_wmma_f32_16x16x16_f16 v[24:27], v[0:1], v[4:5], 1.0 neg_lo:[1,0,0] neg_hi:[1,0,0]"
		}
		w, _ := newWave12(t, assemble12(t, src, wave64), wave64)
		var A, B, C [16][16]float32
		for i := 0; i < 16; i++ {
			for k := 0; k < 16; k++ {
				A[i][k] = float32(rng.Intn(9) - 4)
				B[i][k] = float32(rng.Intn(9) - 4) // B[k][j] stored as B[k][j]
				C[i][k] = float32(rng.Intn(17) - 8)
			}
		}
		put := func(base, lane, gpr, half int, v float32) {
			r := &w.V[base+gpr][lane]
			*r = *r&^(0xffff<<(16*half)) | uint32(fp.F32ToF16(v))<<(16*half)
		}
		for r := 0; r < 16; r++ {
			for k := 0; k < 16; k++ {
				var lane, gpr int
				if wave64 {
					lane, gpr = 32*((k/8)%2)+16*((k/4)%2)+r, (k/2)%2
				} else {
					lane, gpr = 16*((k/4)%2)+r, 2*(k/8)+(k/2)%2
				}
				put(0, lane, gpr, k%2, A[r][k])
				put(4, lane, gpr, k%2, B[k][r])
			}
		}
		cAt := func(i, j int) (lane, gpr int) {
			if wave64 {
				return 32*((i/4)%2) + 16*(i/8) + j, i % 4
			}
			return 16*(i/8) + j, i % 8
		}
		for i := 0; i < 16; i++ {
			for j := 0; j < 16; j++ {
				l, g := cAt(i, j)
				w.V[16+g][l] = u32(C[i][j])
			}
		}
		run(t, w)
		_ = n
		for i := 0; i < 16; i++ {
			for j := 0; j < 16; j++ {
				var s, sn float32
				for k := 0; k < 16; k++ {
					s += A[i][k] * B[k][j]
				}
				sn = 1 - s
				s += C[i][j]
				l, g := cAt(i, j)
				if got := f32(w.V[8+g][l]); got != s {
					t.Fatalf("wave64=%v D[%d][%d] = %v, want %v", wave64, i, j, got, s)
				}
				if got := f32(w.V[24+g][l]); got != sn {
					t.Fatalf("wave64=%v neg_lo D[%d][%d] = %v, want %v", wave64, i, j, got, sn)
				}
			}
		}
	}
}

// TestGFX12Unsupported: an undefined encoding and an unimplemented gfx12
// instruction fault with their words.
func TestGFX12Unsupported(t *testing.T) {
	w, _ := newWave12(t, assemble12(t, "image_load v0, v1, s[0:7] dmask:0x1 dim:SQ_RSRC_IMG_1D", false), false)
	if err := w.Run(100); err == nil {
		t.Fatal("unimplemented image_load ran")
	} else if f, ok := err.(*Fault); !ok || f.Inst == "" {
		t.Fatalf("got %v", err)
	}
	in, err := Decode([]uint32{0xffffffff, 0, 0, 0}, GFX1201)
	if err != nil {
		t.Fatal(err)
	}
	if in.exec(nil, in) == nil {
		t.Error("undefined word executed")
	}
}

// TestGFX12Minimum3: v_minimum3_f32 / v_maximum3_f32 (gfx950 and gfx12,
// IEEE 754-2019 minimum/maximum: NaN propagates, -0 < +0) in wave64.
func TestGFX12Minimum3(t *testing.T) {
	w, _ := newWave12(t, assemble12(t, `v_minimum3_f32 v3, v0, v1, v2
v_maximum3_f32 v4, v0, v1, v2`, true), true)
	nan := u32(float32(math.NaN()))
	type c struct{ a, b, cc, min, max uint32 }
	cases := []c{
		{u32(1), u32(-2), u32(3), u32(-2), u32(3)},
		{0x80000000, 0, u32(1), 0x80000000, u32(1)}, // -0 < +0
		{u32(1), nan, u32(2), nan, nan},
	}
	for l, k := range cases {
		w.V[0][l], w.V[1][l], w.V[2][l] = k.a, k.b, k.cc
	}
	run(t, w)
	for l, k := range cases {
		mn, mx := w.V[3][l], w.V[4][l]
		isNaN := func(v uint32) bool { return v&0x7f800000 == 0x7f800000 && v&0x7fffff != 0 }
		if k.min == nan {
			if !isNaN(mn) || !isNaN(mx) {
				t.Errorf("lane %d: NaN input: min %#x max %#x", l, mn, mx)
			}
			continue
		}
		if mn != k.min || mx != k.max {
			t.Errorf("lane %d: min %#x max %#x, want %#x %#x", l, mn, mx, k.min, k.max)
		}
	}
}
