package dbt

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mmF32Special and mmF16Special: signed zeros, infinities, quiet and
// signalling NaNs of both signs, denormals, ±1 and ±max.
var (
	mmF32Special = []uint32{0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0xffa00000, 0x00000001, 0x807fffff, 0x3f800000, 0xbf800000, 0x7f7fffff, 0xff7fffff}
	mmF16Special = []uint16{0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7c01, 0xfd00, 0x0001, 0x83ff, 0x3c00, 0xbc00, 0x7bff, 0xfbff}
)

// mmVOP3 encodes a gfx950 v_minimum3_f32 (0x2a8) / v_maximum3_f32 (0x2a9).
func mmVOP3(op, vdst uint32, s [3]uint32, abs, neg uint32) [2]uint32 {
	return [2]uint32{0xd0000000 | op<<16 | abs<<8 | vdst, s[0] | s[1]<<9 | s[2]<<18 | neg<<29}
}

// mmVOP3P encodes a gfx950 v_pk_minimum3_f16 (0x1b) / v_pk_maximum3_f16 (0x1c).
func mmVOP3P(op, vdst uint32, s [3]uint32, opsel, opselHi, neg, negHi uint32) [2]uint32 {
	return [2]uint32{0xd3800000 | op<<16 | (opselHi>>2&1)<<14 | opsel<<11 | negHi<<8 | vdst,
		s[0] | s[1]<<9 | s[2]<<18 | (opselHi&3)<<27 | neg<<29}
}

// TestMinMax3RulesAgainstGFX950Simulator is a differential test of the
// minimum3/maximum3 rules: every triple of 14 special f32 values (and of
// 14 special f16 values in each half) goes through the gfx950
// instructions (raw words, with abs/neg, SGPR, inline-constant and
// op_sel forms) on the simulated gfx950 agent and through the translation
// on the simulated gfx942 agent. Results must be bit-identical, except
// that a NaN result may differ in payload; it must be a quiet NaN.
func TestMinMax3RulesAgainstGFX950Simulator(t *testing.T) {
	const (
		stride = 16 // dwords per element: 6 inputs, 2 spare, 8 results
		iters  = 43 // 43 * 64 >= 14^3
	)
	n := len(mmF32Special)
	elems := iters * 64
	v := func(r uint32) uint32 { return 256 + r }
	insts := [][2]uint32{
		mmVOP3(0x2a8, 10, [3]uint32{v(2), v(3), v(4)}, 0, 0),
		mmVOP3(0x2a9, 11, [3]uint32{v(2), v(3), v(4)}, 0, 0),
		mmVOP3(0x2a8, 12, [3]uint32{v(2), 242, v(4)}, 1, 5), // -|v2|, 1.0, -v4
		mmVOP3(0x2a9, 13, [3]uint32{14, v(3), v(2)}, 4, 2),  // s14, -v3, |v2|
		mmVOP3P(0x1b, 14, [3]uint32{v(5), v(6), v(7)}, 0, 7, 0, 0),
		mmVOP3P(0x1c, 15, [3]uint32{v(5), v(6), v(7)}, 0, 7, 0, 0),
		mmVOP3P(0x1b, 16, [3]uint32{v(5), v(6), v(7)}, 5, 2, 5, 5),
		mmVOP3P(0x1c, 17, [3]uint32{v(5), 14, v(7)}, 2, 5, 2, 2), // s14 packed
	}
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n")
	s.WriteString("  s_load_dwordx2 s[8:9], s[0:1], 0x0\n  v_lshlrev_b32_e32 v20, 6, v0\n  s_mov_b32 s10, 0\n  s_mov_b32 s14, 0x80000000\n  s_waitcnt lgkmcnt(0)\nloop:\n")
	s.WriteString("  global_load_dwordx4 v[2:5], v20, s[8:9]\n  global_load_dwordx2 v[6:7], v20, s[8:9] offset:16\n  s_waitcnt vmcnt(0)\n")
	for _, w := range insts {
		fmt.Fprintf(&s, "  .long %#x, %#x\n", w[0], w[1])
	}
	s.WriteString("  global_store_dwordx4 v20, v[10:13], s[8:9] offset:32\n  global_store_dwordx4 v20, v[14:17], s[8:9] offset:48\n")
	fmt.Fprintf(&s, "  v_add_u32_e32 v20, 0x1000, v20\n  s_add_u32 s10, s10, 1\n  s_cmp_lt_u32 s10, %d\n  s_cbranch_scc1 loop\n  s_endpgm\n", iters)
	s.WriteString(".rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 24\n  .amdhsa_next_free_sgpr 32\n  .amdhsa_accum_offset 24\n.end_amdhsa_kernel\n")
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	guest := buildGuestFrom(t, path)
	res, err := Translate(guest, Options{Name: "minmax3"})
	if err != nil {
		t.Fatalf("%v\n%+v", err, res.Report)
	}
	// Element e = iteration*64 + lane holds triple e (the padding past
	// 14^3 repeats the start).
	init := make([]byte, 4*stride*elems)
	for e := 0; e < elems; e++ {
		i := e % (n * n * n)
		idx := [3]int{i % n, i / n % n, i / (n * n)}
		o := 4 * stride * e
		for k := 0; k < 3; k++ {
			binary.LittleEndian.PutUint32(init[o+4*k:], mmF32Special[idx[k]])
			pk := uint32(mmF16Special[idx[k]]) | uint32(mmF16Special[(idx[k]+3*k+5)%n])<<16
			binary.LittleEndian.PutUint32(init[o+12+4*k:], pk)
		}
	}
	want := runKernelInit(t, guest, "gfx950", init)
	got := runKernelInit(t, res.Object, "gfx942", init)
	quiet32 := func(x uint32) bool { return x&0x7fc00000 == 0x7fc00000 }
	nan32 := func(x uint32) bool { return x&0x7fffffff > 0x7f800000 }
	nan16 := func(x uint16) bool { return x&0x7fff > 0x7c00 }
	bad, nans := 0, 0
	for e := 0; e < elems; e++ {
		for d := 8; d < 16; d++ {
			o := 4 * (stride*e + d)
			g, w := binary.LittleEndian.Uint32(got[o:]), binary.LittleEndian.Uint32(want[o:])
			ok := g == w
			if d < 12 {
				if nan32(w) {
					nans++
					ok = nan32(g) && quiet32(g)
				}
			} else {
				ok = true
				for h := 0; h < 2; h++ {
					gh, wh := uint16(g>>(16*h)), uint16(w>>(16*h))
					if nan16(wh) {
						nans++
						ok = ok && nan16(gh) && gh&0x0200 != 0
					} else {
						ok = ok && gh == wh
					}
				}
			}
			if !ok {
				if bad++; bad <= 10 {
					t.Errorf("element %d result %d (inputs %#x): translated %#x, gfx950 %#x", e, d-8, init[4*stride*e:4*stride*e+24], g, w)
				}
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d mismatches", bad)
	}
	if nans == 0 {
		t.Fatal("no NaN results: the special values are not exercised")
	}
	t.Logf("%d elements x 8 results identical (%d NaN results quiet on the host)", elems, nans)
	// The gfx950 side itself follows IEEE 754-2019 on the plain form.
	for e := 0; e < n*n*n; e++ {
		var x [3]float64
		for k := 0; k < 3; k++ {
			x[k] = float64(math.Float32frombits(binary.LittleEndian.Uint32(init[4*stride*e+4*k:])))
		}
		lo := binary.LittleEndian.Uint32(want[4*(stride*e+8):])
		wantLo := math.Float32bits(float32(mmMin(mmMin(x[0], x[1]), x[2])))
		if x[0] != x[0] || x[1] != x[1] || x[2] != x[2] {
			if !nan32(lo) {
				t.Fatalf("element %d: gfx950 minimum3 %#x, want NaN", e, lo)
			}
		} else if lo != wantLo {
			t.Fatalf("element %d: gfx950 minimum3 %#x, want %#x", e, lo, wantLo)
		}
	}
}

// mmMin is IEEE 754-2019 minimum on non-NaN operands (-0 < +0).
func mmMin(a, b float64) float64 {
	if a == b {
		if math.Signbit(a) {
			return a
		}
		return b
	}
	return math.Min(a, b)
}
