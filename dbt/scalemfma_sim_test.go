package dbt

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
)

// smFormats are the element formats cbsz/blgp select.
var smFormats = [5]fp.Format{fp.E4M3FN, fp.E5M2, fp.E2M3, fp.E3M2, fp.E2M1}

// smCase is one scaled-MFMA kernel of the differential test.
type smCase struct {
	m          int // 16 or 32
	cbsz, blgp int
	sa, sb     int // scale byte selectors
	cdMode     int // 0: C=D in AGPRs, 1: C=D in VGPRs, 2: inline 0 C, D in VGPRs
	agpr       int // bit 0: A in a16..a23, bit 1: B in a24..a31
}

func (c smCase) cd() int { return c.m * c.m / 64 }

// Register-major buffer layout: dword (reg*64 + lane).
const (
	smRegA, smRegB, smRegC, smRegS = 0, 8, 16, 32 // rows of the input
	smRegOut                       = 34
	smRows                         = 50
)

// smKernel writes the assembly of kernel name for c: load A, B, C and the
// scale dwords of each lane, run the scaled MFMA given as raw gfx950
// words, store D.
func smKernel(s *strings.Builder, name string, c smCase) {
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
	var acc, vdst, src2 uint32
	switch c.cdMode {
	case 0:
		for r := 0; r < c.cd(); r++ {
			fmt.Fprintf(s, "  v_accvgpr_write_b32 a%d, v%d\n", r, 40+r)
		}
		s.WriteString("  s_nop 2\n")
		acc, vdst, src2 = 1, 0, 256
	case 1:
		vdst, src2 = 40, 256+40
	case 2:
		vdst, src2 = 60, 128
	}
	l0 := uint32(0xd3ac0000) | uint32(c.sa&1)<<11 | uint32(c.sb&1)<<12
	l1 := uint32(256+30) | uint32(256+31)<<9 | uint32(c.sa>>1)<<27 | uint32(c.sb>>1)<<28
	op := uint32(0x2d)
	if c.m == 32 {
		op = 0x2e
	}
	w0 := 0xd3800000 | op<<16 | acc<<15 | 1<<11 | uint32(c.cbsz)<<8 | vdst
	w1 := uint32(256+10) | uint32(256+20)<<9 | src2<<18 | uint32(c.blgp)<<29
	for x, base := range []int{16, 24} {
		if c.agpr>>x&1 == 0 {
			continue
		}
		for r := 0; r < 8; r++ {
			fmt.Fprintf(s, "  v_accvgpr_write_b32 a%d, v%d\n", base+r, 10+10*x+r)
		}
		w1 = w1&^(0x1ff<<(9*x)) | uint32(256+base)<<(9*x) | 1<<(27+x)
	}
	s.WriteString("  s_nop 2\n")
	fmt.Fprintf(s, "  .long %#x, %#x, %#x, %#x\n  s_nop 7\n  s_nop 7\n  s_nop 7\n", l0, l1, w0, w1)
	for r := 0; r < c.cd(); r++ {
		src := int(vdst) + r
		if c.cdMode == 0 {
			fmt.Fprintf(s, "  v_accvgpr_read_b32 v%d, a%d\n", 40+r, r)
			src = 40 + r
		}
		fmt.Fprintf(s, "  v_add_u32_e32 v2, %d, v1\n  global_store_dword v2, v%d, s[8:9]\n", (smRegOut+r)*256, src)
	}
	s.WriteString("  s_endpgm\n")
}

// smBuild assembles the kernels of cases into one gfx950 object.
func smBuild(t *testing.T, cases []smCase) []byte {
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n")
	for i, c := range cases {
		smKernel(&s, fmt.Sprintf("k%d", i), c)
	}
	s.WriteString(".rodata\n")
	for i := range cases {
		fmt.Fprintf(&s, ".p2align 6\n.amdhsa_kernel k%d\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 160\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 128\n.end_amdhsa_kernel\n", i)
	}
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return buildGuestFrom(t, path)
}

// smRun runs kernel name of obj on target over the input rows and returns
// the buffer.
func smRun(t *testing.T, obj []byte, target, name string, in []uint32) []uint32 {
	t.Helper()
	ag, err := sim.NewAgent(target)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := ag.LoadCodeObject(obj)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	k, err := ex.Kernel(name)
	if err != nil {
		t.Fatal(err)
	}
	buf, err := ag.Alloc(uint64(4 * len(in)))
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 4*len(in))
	for i, v := range in {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	if err := ag.CopyIn(buf, b); err != nil {
		t.Fatal(err)
	}
	if err := ag.Dispatch(k, [3]uint32{64, 1, 1}, [3]uint32{64, 1, 1}, binary.LittleEndian.AppendUint64(nil, buf)); err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	if err := ag.CopyOut(buf, b); err != nil {
		t.Fatal(err)
	}
	out := make([]uint32, len(in))
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

// smElem reads element e of a lane's operand (rows row0.. of in).
func smElem(in []uint32, row0, lane, e int, f fp.Format) float64 {
	bits := f.Bits
	if bits == 0 {
		bits = 8
	}
	bit := e * bits
	r := bit / 32
	v := uint64(in[(row0+r)*64+lane])
	if r+1 < 8 {
		v |= uint64(in[(row0+r+1)*64+lane]) << 32
	}
	return float64(f.Decode(uint8(v >> (bit % 32) & (1<<bits - 1))))
}

// smInputs fills the input rows: random element codes (exact mode:
// values 0 or in [0.5, 8), A scales 2^-1..2^1, B scales 1), random scale
// dwords, random C. nanLane >= 0 gets an A scale byte of 0xFF.
// specials allows the NaN and inf codes of E4M3 and E5M2.
func smInputs(rng *rand.Rand, c smCase, exact, specials bool, nanLane int) []uint32 {
	in := make([]uint32, smRows*64)
	fa, fb := smFormats[c.cbsz], smFormats[c.blgp]
	// positive(l) asks for positive non-zero codes in lane l (so that a
	// NaN scale is the only source of NaN: without it the lane's products
	// would be +-inf, not NaN).
	gen := func(row0 int, f fp.Format, positive func(l int) bool) {
		bits := f.Bits
		if bits == 0 {
			bits = 8
		}
		for l := 0; l < 64; l++ {
			var acc [9]uint32
			for e := 0; e < 32; e++ {
				var code uint32
				for {
					code = uint32(rng.Intn(1 << bits))
					v := math.Abs(float64(f.Decode(uint8(code))))
					if !specials && (math.IsNaN(v) || math.IsInf(v, 0)) {
						continue
					}
					if exact && v != 0 && (v < 0.5 || v >= 8) {
						continue
					}
					if positive(l) && (v == 0 || code>>(bits-1) != 0) {
						continue
					}
					break
				}
				bit := e * bits
				acc[bit/32] |= code << (bit % 32)
				if bit%32+bits > 32 {
					acc[bit/32+1] |= code >> (32 - bit%32)
				}
			}
			for r := 0; r < 8; r++ {
				in[(row0+r)*64+l] = acc[r]
			}
		}
	}
	gen(smRegA, fa, func(l int) bool { return l == nanLane })
	gen(smRegB, fb, func(int) bool { return nanLane >= 0 })
	for l := 0; l < 64; l++ {
		for r := 0; r < 16; r++ {
			if exact {
				in[(smRegC+r)*64+l] = math.Float32bits(float32(rng.Intn(4096)-2048) / 256)
			} else {
				in[(smRegC+r)*64+l] = math.Float32bits(float32(rng.NormFloat64() * 100))
			}
		}
		sa, sb := rng.Uint32(), rng.Uint32()
		set := func(w *uint32, byteSel int, v uint32) {
			*w = *w&^(0xff<<(8*byteSel)) | v<<(8*byteSel)
		}
		if exact {
			set(&sa, c.sa, uint32(126+rng.Intn(3)))
			set(&sb, c.sb, 127)
		} else {
			set(&sa, c.sa, uint32(117+rng.Intn(21)))
			set(&sb, c.sb, uint32(117+rng.Intn(21)))
		}
		if l == nanLane {
			set(&sa, c.sa, 0xff)
		}
		in[smRegS*64+l], in[(smRegS+1)*64+l] = sa, sb
	}
	return in
}

// smMagnitude returns |C| + sum_k |a_k b_k| for output register r of lane
// l (the gfx950 layout of the simulator's f8f6f4 MFMA).
func smMagnitude(in []uint32, c smCase, l, r int) float64 {
	m, g := c.m, 64/c.m
	i, j := (r/4)*(4*g)+(l/m)*4+r%4, l%m
	fa, fb := smFormats[c.cbsz], smFormats[c.blgp]
	sum := 0.0
	if c.cdMode != 2 {
		sum = math.Abs(float64(math.Float32frombits(in[(smRegC+r)*64+l])))
	}
	byteOf := func(w uint32, sel int) uint8 { return uint8(w >> (8 * sel)) }
	for grp := 0; grp < g; grp++ {
		la, lb := grp*m+i, grp*m+j
		sa := fp.E8M0(byteOf(in[smRegS*64+la], c.sa))
		sb := fp.E8M0(byteOf(in[(smRegS+1)*64+lb], c.sb))
		for e := 0; e < 32; e++ {
			sum += math.Abs(smElem(in, smRegA, la, e, fa) * sa * smElem(in, smRegB, lb, e, fb) * sb)
		}
	}
	return sum
}

// TestScaleMFMARuleAgainstGFX950Simulator is the differential test of the
// scaled f8f6f4 MFMA rule: for both shapes and every cbsz/blgp format pair
// (with varying scale byte selectors and C/D in AGPRs or VGPRs), random
// inputs run through the gfx950 instruction on the simulated gfx950 agent
// and through its translation on the simulated gfx942 agent. Inputs whose
// partial sums are exact in f32 must agree bit for bit; general inputs
// must agree within the rule's bound; a lane with a NaN scale must make
// exactly the same outputs NaN.
func TestScaleMFMARuleAgainstGFX950Simulator(t *testing.T) {
	var cases []smCase
	n := 0
	for _, m := range []int{16, 32} {
		for cb := 0; cb < 5; cb++ {
			for bl := 0; bl < 5; bl++ {
				cases = append(cases, smCase{m: m, cbsz: cb, blgp: bl, sa: n % 4, sb: (n/4 + n) % 4, cdMode: n % 3, agpr: n / 3 % 4})
				n++
			}
		}
	}
	guest := smBuild(t, cases)
	res, err := Translate(guest, Options{Name: "scalemfma"})
	if err != nil {
		t.Fatalf("%v\n%+v", err, res.Report)
	}
	verifyObject(t, "scalemfma", guest, res.Object)
	// The same kernels with every scratch register borrowed from live
	// registers and saved to private memory around the expansion.
	spilled, err := Translate(guest, Options{Name: "scalemfma-spill", forceSpill: true})
	if err != nil {
		t.Fatalf("%v\n%+v", err, spilled.Report)
	}
	if !strings.Contains(fmt.Sprintf("%+v", spilled.Report), "borrowed") {
		t.Fatalf("forced spills borrowed no registers: %+v", spilled.Report)
	}
	// The same kernels with each expansion called as a per-kernel
	// subroutine (forced: every kernel has one use).
	shared, err := Translate(guest, Options{Name: "scalemfma-shared", forceShared: true})
	if err != nil {
		t.Fatalf("%v\n%+v", err, shared.Report)
	}
	for _, k := range shared.Report.Kernels {
		if !strings.Contains(strings.Join(k.Notes, "\n"), "1 long expansions call 1 per-kernel subroutines") {
			t.Fatalf("%s: the forced translation calls no subroutine: %q", k.Name, k.Notes)
		}
	}
	verifyObject(t, "scalemfma-shared", guest, shared.Object)
	rng := rand.New(rand.NewSource(950))
	exactOK, boundOK := 0, 0
	for ci, c := range cases {
		name := fmt.Sprintf("k%d", ci)
		for _, mode := range []string{"exact", "bound", "nan", "specials", "spill", "shared-exact", "shared-bound", "shared-nan"} {
			if mode == "specials" && c.cbsz > 1 && c.blgp > 1 {
				continue // no format of this pair has special codes
			}
			host := res.Object
			if mode == "spill" {
				if ci%7 != 0 {
					continue
				}
				host, mode = spilled.Object, "exact"
			}
			if m, ok := strings.CutPrefix(mode, "shared-"); ok {
				host, mode = shared.Object, m
			}
			nanLane := -1
			if mode == "nan" {
				nanLane = rng.Intn(64)
			}
			in := smInputs(rng, c, mode == "exact", mode == "specials", nanLane)
			want := smRun(t, guest, "gfx950", name, in)
			got := smRun(t, host, "gfx942", name, in)
			nonzero, nans := false, 0
			for r := 0; r < c.cd(); r++ {
				for l := 0; l < 64; l++ {
					gw, ww := got[(smRegOut+r)*64+l], want[(smRegOut+r)*64+l]
					nonzero = nonzero || ww != 0
					gv, wv := float64(math.Float32frombits(gw)), float64(math.Float32frombits(ww))
					if math.IsNaN(wv) {
						nans++
					}
					where := fmt.Sprintf("m=%d cbsz=%d blgp=%d sel=%d/%d cd=%d %s: lane %d reg %d", c.m, c.cbsz, c.blgp, c.sa, c.sb, c.cdMode, mode, l, r)
					switch {
					case mode == "exact":
						if gw != ww {
							t.Fatalf("%s: translated %#x (%g), gfx950 %#x (%g)", where, gw, gv, ww, wv)
						}
					case math.IsNaN(wv) || math.IsNaN(gv) || math.IsInf(wv, 0) || math.IsInf(gv, 0):
						if math.IsNaN(wv) != math.IsNaN(gv) || (!math.IsNaN(wv) && gv != wv) {
							t.Fatalf("%s: translated %g, gfx950 %g", where, gv, wv)
						}
					default:
						bound := 9 * math.Ldexp(smMagnitude(in, c, l, r), -24)
						if math.Abs(gv-wv) > bound {
							t.Fatalf("%s: translated %g, gfx950 %g, |diff| %g > bound %g", where, gv, wv, math.Abs(gv-wv), bound)
						}
					}
				}
			}
			if !nonzero {
				t.Fatalf("%s %s: the gfx950 run stored only zeros", name, mode)
			}
			if mode != "specials" && (nans != 0) != (mode == "nan") {
				t.Fatalf("%s %s: %d NaN outputs on gfx950", name, mode, nans)
			}
			if mode == "exact" {
				exactOK++
			} else {
				boundOK++
			}
		}
	}
	t.Logf("%d kernels: %d bit-exact runs, %d runs within the bound or NaN-equal", len(cases), exactOK, boundOK)
}

// TestCorpusScaleMFMARule translates the aiter objects that use the
// scaled f8f6f4 MFMAs (f4gemm_*, fmha_v4_fwd_*): none of those
// instructions is rejected, every object commits, and the output passes
// llvm-readelf-19 and llvm-objdump-19 --mcpu=gfx942 (checked for one
// object per shape, FP4 and FP6, to keep the test short).
func TestCorpusScaleMFMARule(t *testing.T) {
	objects, uses := 0, 0
	for _, p := range corpus(t, "gfx950") {
		base := filepath.Base(p)
		if !strings.HasPrefix(base, "f4gemm_") && !strings.HasPrefix(base, "fmha_v4_") {
			continue
		}
		src := readFile(t, p)
		res, err := Translate(src, Options{Name: base})
		for _, k := range res.Report.Kernels {
			for _, kind := range k.Kinds {
				if kind.Rule == "mfma-scale-f8f6f4-bf16" {
					uses += kind.Count
				}
			}
			for _, r := range k.Rejections {
				if strings.HasPrefix(r.Mnemonic, "v_mfma_scale_") {
					t.Errorf("%s: %s at %#x rejected: %s", base, r.Mnemonic, r.Offset, r.Reason)
				}
			}
		}
		if err != nil {
			t.Errorf("%s: %v", base, err)
			continue
		}
		objects++
		if strings.Contains(base, "128x128") || strings.Contains(base, "f6f4") {
			verifyObject(t, base, src, res.Object)
		}
	}
	t.Logf("%d objects, %d scaled MFMAs expanded", objects, uses)
	if objects < 4 || uses < 1280 {
		t.Fatalf("%d objects committed, %d scaled MFMAs expanded; want 4 and 1280", objects, uses)
	}
}
