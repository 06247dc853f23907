package dbt

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/bitop3"
)

// Rows of the multi-use kernel's buffer: smInputs' rows, then one group
// of 16 output rows per stored D and a checksum row.
const (
	smsOut  = 34
	smsSum  = smsOut + 4*16
	smsRows = smsSum + 1
)

// smsUse is one scaled MFMA of the multi-use kernel: C/D mode (acc: C/D
// in AGPRs a0..; else D at vdst and C at the VGPR c, or c = 0 for the
// inline constant 0), A and B first VGPRs, the scale VGPRs and bytes.
type smsUse struct {
	acc        bool
	vdst, c    int
	a, b       int
	scA, scB   int
	selA, selB int
}

// smsKernel writes kernel name: A and B loaded to v10.. and v20.., copies
// with their dword halves swapped (other elements, same formats) in v64..
// and v72.., C to v40.. and a0.., then five scaled MFMAs with different
// operand registers, two keys (C a register, C the constant 0), the last
// accumulating onto the first, and the four D stored. With pressure, the
// first D is v128.. instead of a0.. (the kernel names no AGPR) and
// every VGPR the kernel does not use otherwise holds a value set before the MFMAs and summed after them, so
// that few VGPRs are free at the uses. With partial, the MFMAs run with
// the upper 32 lanes disabled (EXEC is full again before the checksum).
// With agpr, the kernel also keeps a value in a0 (summed too), so that
// saves cannot go to AGPRs.
func smsKernel(s *strings.Builder, name string, c smCase, pressure, partial, agpr bool) {
	fmt.Fprintf(s, ".globl %s\n.p2align 8\n.type %s,@function\n%s:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n  v_lshlrev_b32_e32 v1, 2, v0\n  s_waitcnt lgkmcnt(0)\n", name, name, name)
	load := func(row, vreg int) {
		fmt.Fprintf(s, "  v_add_u32_e32 v2, %d, v1\n  global_load_dword v%d, v2, s[8:9]\n", row*256, vreg)
	}
	for r := 0; r < 8; r++ {
		load(smRegA+r, 10+r)
		load(smRegB+r, 20+r)
	}
	for r := 0; r < c.cd(); r++ {
		load(smRegC+r, 40+r)
	}
	load(smRegS, 30)
	load(smRegS+1, 31)
	s.WriteString("  s_waitcnt vmcnt(0)\n")
	nA, nB := smFormats[c.cbsz].Bits, smFormats[c.blgp].Bits
	if nA == 0 {
		nA = 8
	}
	if nB == 0 {
		nB = 8
	}
	for i := 0; i < nA; i++ {
		fmt.Fprintf(s, "  v_mov_b32_e32 v%d, v%d\n", 64+i, 10+(i+nA/2)%nA)
	}
	for i := 0; i < nB; i++ {
		fmt.Fprintf(s, "  v_mov_b32_e32 v%d, v%d\n", 72+i, 20+(i+nB/2)%nB)
	}
	// busy are the registers the kernel uses otherwise; with pressure
	// every other VGPR from v4 up holds a value summed at the end.
	var busy [256]bool
	mark := func(first, n int) {
		for i := first; i < first+n; i++ {
			busy[i] = true
		}
	}
	mark(0, 4)
	mark(10, 8)
	mark(20, 8)
	mark(30, 2)
	mark(40, 16)
	mark(64, nA)
	mark(72, nB)
	for _, d := range []int{80, 96, 112, 128} {
		mark(d, c.cd())
	}
	var press []int
	for v := range busy {
		if !busy[v] {
			press = append(press, v)
		}
	}
	if pressure {
		for _, v := range press {
			fmt.Fprintf(s, "  v_add_u32_e32 v%d, %#x, v0\n", v, uint32(v)*0x9e3779b1)
		}
		for r := 0; r < c.cd(); r++ {
			fmt.Fprintf(s, "  v_mov_b32_e32 v%d, v%d\n", 128+r, 40+r)
		}
	} else {
		for r := 0; r < c.cd(); r++ {
			fmt.Fprintf(s, "  v_accvgpr_write_b32 a%d, v%d\n", r, 40+r)
		}
	}
	if agpr {
		s.WriteString("  v_accvgpr_write_b32 a0, v1\n")
	}
	s.WriteString("  s_nop 2\n")
	if partial {
		s.WriteString("  s_mov_b32 exec_hi, 0\n")
	}
	uses := []smsUse{
		{acc: true, a: 10, b: 20, scA: 30, scB: 31, selA: 0, selB: 1},
		{vdst: 80, c: 40, a: 64, b: 72, scA: 31, scB: 30, selA: 2, selB: 3},
		{vdst: 96, a: 10, b: 72, scA: 30, scB: 31, selA: 3, selB: 0},
		{vdst: 112, a: 64, b: 20, scA: 30, scB: 30, selA: 1, selB: 2},
		{acc: true, a: 64, b: 72, scA: 31, scB: 31, selA: 1, selB: 1},
	}
	op := uint32(0x2d)
	if c.m == 32 {
		op = 0x2e
	}
	for i := range uses {
		if pressure && uses[i].acc {
			uses[i].acc, uses[i].vdst, uses[i].c = false, 128, 128
		}
	}
	for _, u := range uses {
		l0 := uint32(0xd3ac0000) | uint32(u.selA&1)<<11 | uint32(u.selB&1)<<12
		l1 := uint32(256+u.scA) | uint32(256+u.scB)<<9 | uint32(u.selA>>1)<<27 | uint32(u.selB>>1)<<28
		var acc, vdst, src2 uint32 = 0, uint32(u.vdst), 128
		if u.acc {
			acc, vdst, src2 = 1, 0, 256
		} else if u.c != 0 {
			src2 = uint32(256 + u.c)
		}
		w0 := 0xd3800000 | op<<16 | acc<<15 | uint32(c.cbsz)<<8 | vdst
		w1 := uint32(256+u.a) | uint32(256+u.b)<<9 | src2<<18 | uint32(c.blgp)<<29
		fmt.Fprintf(s, "  .long %#x, %#x, %#x, %#x\n", l0, l1, w0, w1)
	}
	s.WriteString("  s_nop 7\n  s_nop 7\n  s_nop 7\n")
	if partial {
		s.WriteString("  s_mov_b64 exec, -1\n")
	}
	first := -1
	if pressure {
		first = 128
		s.WriteString("  v_mov_b32_e32 v3, 0\n")
		for _, v := range press {
			fmt.Fprintf(s, "  v_mul_lo_u32 v3, v3, 31\n  v_add_u32_e32 v3, v3, v%d\n", v)
		}
		if agpr {
			s.WriteString("  v_accvgpr_read_b32 v2, a0\n  v_add_u32_e32 v3, v3, v2\n")
		}
		fmt.Fprintf(s, "  v_add_u32_e32 v2, %d, v1\n  global_store_dword v2, v3, s[8:9]\n", smsSum*256)
	}
	for g, base := range []int{first, 80, 96, 112} {
		for r := 0; r < c.cd(); r++ {
			src := base + r
			if base < 0 {
				fmt.Fprintf(s, "  v_accvgpr_read_b32 v%d, a%d\n", 40+r, r)
				src = 40 + r
			}
			fmt.Fprintf(s, "  v_add_u32_e32 v2, %d, v1\n  global_store_dword v2, v%d, s[8:9]\n", (smsOut+16*g+r)*256, src)
		}
	}
	s.WriteString("  s_endpgm\n")
}

// TestScaleMFMASharedAgainstGFX950Simulator: kernels with five scaled
// MFMAs each (two keys, different A/B/C/D and scale registers and bytes,
// C/D in AGPRs and VGPRs, one accumulating onto another) translate with
// the uses calling two per-kernel subroutines (16x16x128) or one, keyed by
// D and C too, shared by the two uses with the same C/D (32x32x64); the
// translation on the
// simulated gfx942 agrees bit for bit with the gfx950 guest for inputs
// whose sums are exact, and bit for bit with the inline translation for
// general inputs. The same holds with the bodies placed in the code
// (small call reach: a copy per use, or copies shared by nearby uses) and,
// for kernels whose VGPRs are mostly live at the uses, with the fixed
// registers saved to AGPRs around each use (the checksum of the live
// registers matches, also when the uses run under partial EXEC and the
// saves must keep the disabled lanes), and, for such kernels that also
// keep a value in an AGPR, with the saves in private memory.
func TestScaleMFMASharedAgainstGFX950Simulator(t *testing.T) {
	var cases []smCase
	for _, m := range []int{16, 32} {
		for _, f := range [][2]int{{4, 4}, {0, 4}, {2, 3}, {1, 0}} {
			cases = append(cases, smCase{m: m, cbsz: f[0], blgp: f[1]})
		}
	}
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n")
	for i, c := range cases {
		smsKernel(&s, fmt.Sprintf("k%d", i), c, false, false, false)
		smsKernel(&s, fmt.Sprintf("p%d", i), c, true, false, false)
		smsKernel(&s, fmt.Sprintf("e%d", i), c, true, true, false)
		smsKernel(&s, fmt.Sprintf("m%d", i), c, true, false, true)
		smsKernel(&s, fmt.Sprintf("n%d", i), c, true, true, true)
	}
	s.WriteString(".rodata\n")
	for i := range cases {
		fmt.Fprintf(&s, ".p2align 6\n.amdhsa_kernel k%d\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 224\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 192\n.end_amdhsa_kernel\n", i)
		for _, k := range []string{"p", "e", "m", "n"} {
			total := 256
			if k == "m" || k == "n" {
				total = 264 // 8 AGPRs
			}
			fmt.Fprintf(&s, ".p2align 6\n.amdhsa_kernel %s%d\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr %d\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 256\n.end_amdhsa_kernel\n", k, i, total)
		}
	}
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	guest := buildGuestFrom(t, path)
	inline, err := Translate(guest, Options{Name: "scalemfma-inline", noShared: true})
	if err != nil {
		t.Fatal(err)
	}
	type variant struct {
		name  string
		opt   Options
		where string
	}
	var objs [][]byte
	for _, v := range []variant{
		{"after", Options{}, "placed after the code"},
		{"copy-per-use", Options{sharedReach: 1}, "placed in the code"},
		{"near", Options{sharedReach: 3000}, "placed in the code"},
	} {
		v.opt.Name = "scalemfma-" + v.name
		res, err := Translate(guest, v.opt)
		if err != nil {
			t.Fatalf("%s: %v\n%+v", v.name, err, res.Report)
		}
		for _, k := range res.Report.Kernels {
			// 16x16x128: k kernels: keys C/D in AGPRs (uses 1, 5), C in
			// VGPRs (use 2, alone: inline) and C = 0 (uses 3, 4); p and e
			// kernels: C in VGPRs (1, 2, 5) and C = 0. 32x32x64 (keyed by
			// D and C too): uses 1 and 5 share a body, the others are
			// alone (inline).
			notes := strings.Join(k.Notes, "\n")
			ci, err := strconv.Atoi(k.Name[1:])
			if err != nil {
				t.Fatal(err)
			}
			calls, bodies := 5, 2
			if k.Name[0] == 'k' {
				calls = 4
			}
			if cases[ci].m == 32 {
				calls, bodies = 2, 1
			}
			if !strings.Contains(notes, fmt.Sprintf("%d long expansions call ", calls)) || !strings.Contains(notes, v.where) {
				t.Fatalf("%s %s: notes %q, want %d calls of subroutines %s", v.name, k.Name, k.Notes, calls, v.where)
			}
			if v.name == "after" && !strings.Contains(notes, fmt.Sprintf("call %d per-kernel subroutines", bodies)) {
				t.Fatalf("%s %s: notes %q, want %d subroutines", v.name, k.Name, k.Notes, bodies)
			}
			if v.name == "copy-per-use" && !strings.Contains(notes, fmt.Sprintf("call %d per-kernel subroutines", calls)) {
				t.Fatalf("%s %s: notes %q, want %d copies", v.name, k.Name, k.Notes, calls)
			}
			if saved := strings.Contains(notes, "saved to AGPRs"); saved != (k.Name[0] == 'p' || k.Name[0] == 'e') {
				t.Fatalf("%s %s: notes %q: AGPR saves %v", v.name, k.Name, k.Notes, saved)
			}
			if saved := strings.Contains(notes, "saved to per-lane private memory around it"); saved != (k.Name[0] == 'm' || k.Name[0] == 'n') {
				t.Fatalf("%s %s: notes %q: private-memory saves %v", v.name, k.Name, k.Notes, saved)
			}
		}
		if v.name == "after" && len(res.Object) >= len(inline.Object) {
			t.Fatalf("object with subroutines %d bytes, inline %d", len(res.Object), len(inline.Object))
		}
		verifyObject(t, "scalemfma-"+v.name, guest, res.Object)
		objs = append(objs, res.Object)
	}
	smsCompare(t, rand.New(rand.NewSource(15)), guest, inline.Object, objs, "gfx942", cases, []string{"k", "p", "e", "m", "n"},
		func(kname string) bool { return kname == "e" || kname == "n" })
}

// smsCompare runs kernel KNAME<i> of every case i for each of knames, on
// inputs whose sums are exact and on general ones (every scale byte
// 2^-1..2^1 or 2^-10..2^10), as the gfx950 guest, the inline translation
// and each translation of objs on the simulated host: every output the
// kernel computes must agree bit for bit between objs and the inline
// translation, and with the guest for exact inputs and for the checksum
// row of the registers the kernel keeps live. Kernels for which
// checksumOnly holds run under partial EXEC: only their checksum is
// compared.
func smsCompare(t *testing.T, rng *rand.Rand, guest, inline []byte, objs [][]byte, host string, cases []smCase, knames []string, checksumOnly func(kname string) bool) {
	t.Helper()
	for ci, c := range cases {
		for _, kname := range knames {
			name := fmt.Sprintf("%s%d", kname, ci)
			for _, exact := range []bool{true, false} {
				in := smInputs(rng, c, exact, false, -1)
				in = append(in, make([]uint32, (smsRows-smRows)*64)...)
				for l := 0; l < 64; l++ {
					// Every byte of both scale dwords is 2^-1..2^1 (exact)
					// or 2^-10..2^10: any selector gives finite products.
					for _, row := range []int{smRegS, smRegS + 1} {
						var w uint32
						for b := 0; b < 4; b++ {
							v := 126 + rng.Intn(3)
							if !exact {
								v = 117 + rng.Intn(21)
							}
							w |= uint32(v) << (8 * b)
						}
						in[row*64+l] = w
					}
				}
				want := smRun(t, guest, "gfx950", name, in)
				ref := smRun(t, inline, host, name, in)
				for vi, obj := range objs {
					got := smRun(t, obj, host, name, in)
					nonzero := 0
					for i := smsOut * 64; i < smsRows*64; i++ {
						g, r := (i/64-smsOut)/16, (i/64-smsOut)%16
						if (r >= c.cd() || checksumOnly(kname)) && i/64 != smsSum {
							continue // partial EXEC: only the checksum of the saved registers
						}
						where := fmt.Sprintf("%s variant %d m=%d cbsz=%d blgp=%d exact=%v: row %d (D%d reg %d) lane %d", name, vi, c.m, c.cbsz, c.blgp, exact, i/64, g, r, i%64)
						if want[i] != 0 {
							nonzero++
						}
						if got[i] != ref[i] {
							t.Fatalf("%s: subroutine %#x (%g), inline %#x (%g)", where, got[i], math.Float32frombits(got[i]), ref[i], math.Float32frombits(ref[i]))
						}
						if (exact || i/64 == smsSum) && ref[i] != want[i] {
							t.Fatalf("%s: inline translation %#x (%g), gfx950 %#x (%g)", where, ref[i], math.Float32frombits(ref[i]), want[i], math.Float32frombits(want[i]))
						}
						if (exact || i/64 == smsSum) && got[i] != want[i] {
							t.Fatalf("%s: translated %#x (%g), gfx950 %#x (%g)", where, got[i], math.Float32frombits(got[i]), want[i], math.Float32frombits(want[i]))
						}
					}
					if checksumOnly(kname) && nonzero < 64 || !checksumOnly(kname) && nonzero < 4*c.cd()*32 {
						t.Fatalf("%s: only %d non-zero outputs on gfx950", name, nonzero)
					}
				}
			}
		}
	}
}

// TestScaleMFMASharedLead: a use keeps its leading s_nop 7 x3 (earlier
// MFMA writes of its operands) when a native MFMA precedes it in its block
// by fewer than 24 wait states or it starts a block, and drops them after
// another use or 24 wait states without an MFMA.
func TestScaleMFMASharedLead(t *testing.T) {
	use := func(vdst int) string {
		l0, l1 := uint32(0xd3ac0000), uint32(256+30)|uint32(256+31)<<9
		w0 := 0xd3800000 | uint32(0x2d)<<16 | 4<<8 | uint32(vdst)
		w1 := uint32(256+10) | uint32(256+20)<<9 | uint32(128)<<18 | 4<<29
		return fmt.Sprintf("  .long %#x, %#x, %#x, %#x\n", l0, l1, w0, w1)
	}
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n")
	s.WriteString("  v_mfma_f32_16x16x16_bf16 v[10:13], v[40:41], v[42:43], 0\n")
	s.WriteString(use(60)) // after a native MFMA: kept
	s.WriteString(use(64)) // after a use: dropped
	s.WriteString("  v_mfma_f32_16x16x16_bf16 v[20:23], v[40:41], v[42:43], 0\n  s_nop 7\n  s_nop 7\n  s_nop 6\n")
	s.WriteString(use(68)) // 23 wait states after a native MFMA: kept
	s.WriteString("  s_nop 7\n  s_nop 7\n  s_nop 7\n")
	s.WriteString(use(72)) // after a use: dropped
	for i := 0; i < 24; i++ {
		s.WriteString("  v_add_u32 v1, v1, v0\n")
	}
	s.WriteString(use(76)) // after 24 VALU instructions: dropped
	s.WriteString("  s_cmp_eq_u32 s0, 0\n  s_cbranch_scc1 .Lnext\n.Lnext:\n")
	s.WriteString(use(80)) // first of its block: kept
	s.WriteString("  s_endpgm\n.rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_next_free_vgpr 160\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 160\n.end_amdhsa_kernel\n")
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	guest := buildGuestFrom(t, path)
	res, err := Translate(guest, Options{Name: "lead", Diff: true})
	if err != nil {
		t.Fatal(err)
	}
	var leads []bool
	for _, c := range res.Changes {
		if !strings.HasPrefix(c.Guest, "v_mfma_scale") {
			continue
		}
		code := strings.Join(c.HostCode, "\n")
		if !strings.Contains(code, "s_call_b64") {
			t.Fatalf("use at %#x is not a call:\n%s", c.Src, code)
		}
		leads = append(leads, len(c.HostCode) >= 3 && c.HostCode[0] == "s_nop 7" && c.HostCode[1] == "s_nop 7" && c.HostCode[2] == "s_nop 7")
	}
	if want := []bool{true, false, true, false, false, true}; fmt.Sprint(leads) != fmt.Sprint(want) {
		t.Fatalf("leading waits per use %v, want %v", leads, want)
	}
	verifyObject(t, "lead", guest, res.Object)
}

// TestScaleMFMASharedReEmission: two uses of one key around 8000
// v_bitop3_b32 (64 KB of guest code, more than s_call_b64 reaches once
// expanded) and a branch over them: the
// first layout finds the call and the branch out of range, the
// re-emission puts a body copy before each use and a long window on the
// branch; reusing the first emission's code gives the same object as
// recomputing it, and the results on the simulated gfx942 equal the
// guest's on gfx950 bit for bit (exact inputs).
func TestScaleMFMASharedReEmission(t *testing.T) {
	c := smCase{m: 16, cbsz: 4, blgp: 4}
	use := func(vdst int) string {
		l0, l1 := uint32(0xd3ac0000), uint32(256+30)|uint32(256+31)<<9
		w0 := 0xd3800000 | uint32(0x2d)<<16 | 4<<8 | uint32(vdst)
		w1 := uint32(256+10) | uint32(256+20)<<9 | uint32(128)<<18 | 4<<29
		return fmt.Sprintf("  .long %#x, %#x, %#x, %#x\n", l0, l1, w0, w1)
	}
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n  v_lshlrev_b32_e32 v1, 2, v0\n  s_waitcnt lgkmcnt(0)\n")
	load := func(row, vreg int) {
		fmt.Fprintf(&s, "  v_add_u32_e32 v2, %d, v1\n  global_load_dword v%d, v2, s[8:9]\n", row*256, vreg)
	}
	for r := 0; r < 4; r++ {
		load(smRegA+r, 10+r)
		load(smRegB+r, 20+r)
	}
	load(smRegS, 30)
	load(smRegS+1, 31)
	s.WriteString("  s_waitcnt vmcnt(0)\n")
	s.WriteString(use(80))
	s.WriteString("  s_cmp_eq_u32 s8, 0\n  s_cbranch_scc1 .Lfar\n")
	for i := 0; i < 8000; i++ {
		neg, abs, omod := bitop3.Fields(uint8(i))
		w0 := 0xd2340000 | uint32(abs)<<8 | 3
		w1 := uint32(neg)<<29 | uint32(omod)<<27 | (256+3)<<18 | (256+2)<<9 | (256 + 1)
		fmt.Fprintf(&s, "  .long %#x, %#x\n", w0, w1) // v_bitop3_b32 v3, v1, v2, v3 (expanded)
	}
	s.WriteString(".Lfar:\n")
	s.WriteString(use(84))
	s.WriteString("  s_nop 7\n  s_nop 7\n  s_nop 7\n")
	for g, base := range []int{80, 84} {
		for r := 0; r < 4; r++ {
			fmt.Fprintf(&s, "  v_add_u32_e32 v2, %d, v1\n  global_store_dword v2, v%d, s[8:9]\n", (smsOut+16*g+r)*256, base+r)
		}
	}
	s.WriteString("  s_endpgm\n.rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 160\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 160\n.end_amdhsa_kernel\n")
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	guest := buildGuestFrom(t, path)
	a, err := Translate(guest, Options{Name: "reemit"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Translate(guest, Options{Name: "reemit", noReuse: true})
	if err != nil {
		t.Fatal(err)
	}
	k := a.Report.Kernels[0]
	if k.LongBranches == 0 || !strings.Contains(strings.Join(k.Notes, "\n"), "2 long expansions call 2 per-kernel subroutines placed in the code") {
		t.Fatalf("long branches %d, notes %q: want a long window and a body copy per use", k.LongBranches, k.Notes)
	}
	if !bytes.Equal(a.Object, b.Object) {
		t.Fatal("reusing the first emission changes the translation")
	}
	verifyObject(t, "reemit", guest, a.Object)
	in := smInputs(rand.New(rand.NewSource(3)), c, true, false, -1)
	in = append(in, make([]uint32, (smsRows-smRows)*64)...)
	want := smRun(t, guest, "gfx950", "k", in)
	got := smRun(t, a.Object, "gfx942", "k", in)
	nonzero := 0
	for g := 0; g < 2; g++ {
		for r := 0; r < 4; r++ {
			for l := 0; l < 64; l++ {
				i := (smsOut+16*g+r)*64 + l
				if want[i] != 0 {
					nonzero++
				}
				if got[i] != want[i] {
					t.Fatalf("D%d reg %d lane %d: translated %#x, gfx950 %#x", g, r, l, got[i], want[i])
				}
			}
		}
	}
	if nonzero < 256 {
		t.Fatalf("only %d non-zero outputs", nonzero)
	}
}
