package dbt

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// gfx12SMCase is one f8f6f4 MFMA kernel of the gfx12 differential test:
// an smCase (scaledmfma_sim_test.go) run either as the scaled MFMA or as
// the plain f8f6f4 MFMA (the same words without v_mfma_ld_scale_b32).
type gfx12SMCase struct {
	smCase
	scaled bool
}

// gfx12SMBuild assembles the kernels k<i> of the cases i that keep
// accepts (all when nil) into one gfx950 object. wide kernels also write
// v159 (dead), so that 160 arch VGPRs exist whose live ones a rule may
// borrow.
func gfx12SMBuild(t *testing.T, cases []gfx12SMCase, wide bool, keep func(i int) bool) []byte {
	t.Helper()
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n")
	var kept []int
	for i, c := range cases {
		if keep != nil && !keep(i) {
			continue
		}
		kept = append(kept, i)
		var k strings.Builder
		smKernel(&k, fmt.Sprintf("k%d", i), c.smCase)
		text := k.String()
		if wide {
			text = strings.Replace(text, "  s_load_dwordx2", "  v_mov_b32 v159, 0\n  s_load_dwordx2", 1)
		}
		if !c.scaled {
			// Drop the v_mfma_ld_scale_b32 dwords: ".long l0, l1, w0, w1".
			at := strings.Index(text, "  .long 0xd3ac")
			if at < 0 {
				t.Fatal("no v_mfma_ld_scale_b32 in the kernel text")
			}
			rest := text[at+len("  .long "):]
			for n := 0; n < 2; n++ {
				rest = rest[strings.Index(rest, ", ")+2:]
			}
			text = text[:at] + "  .long " + rest
		}
		s.WriteString(text)
	}
	s.WriteString(".rodata\n")
	for _, i := range kept {
		fmt.Fprintf(&s, ".p2align 6\n.amdhsa_kernel k%d\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 160\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 128\n.end_amdhsa_kernel\n", i)
	}
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return buildGuestFrom(t, path)
}

// setScaleBytes sets the scale bytes of every lane: A's (row smRegS, byte
// c.sa) to fa(lane) and B's (row smRegS+1, byte c.sb) to fb(lane).
func setScaleBytes(in []uint32, c smCase, fa, fb func(l int) uint32) {
	set := func(w *uint32, sel int, v uint32) { *w = *w&^(0xff<<(8*sel)) | v<<(8*sel) }
	for l := 0; l < 64; l++ {
		set(&in[smRegS*64+l], c.sa, fa(l))
		set(&in[(smRegS+1)*64+l], c.sb, fb(l))
	}
}

// gfx12SMBound is the documented bound of the gfx12 f8f6f4 rule for an
// output of magnitude sum mag (|C| + sum |a_k b_k|).
func gfx12SMBound(mag float64) float64 { return 14*math.Ldexp(mag, -24) + 5*math.Ldexp(1, -149) }

// TestGFX12ScaleMFMAAgainstGFX950Simulator is the differential test of the
// gfx12 f8f6f4 MFMA rule: both shapes, scaled and plain, every cbsz/blgp
// format pair (E4M3, E5M2, E2M3, E3M2, E2M1 for A and B), scale byte
// selectors, C/D in AGPRs or VGPRs or an inline-constant C, A/B in AGPRs.
// Random inputs run through the gfx950 instruction on the simulated gfx950
// agent and its translation on the simulated gfx1201 agent (exact inputs
// of a third of the kernels also on gfx1200, and of a quarter with every
// scratch register borrowed and spilled):
//
//   - exact: inputs whose sums are exact in f32 must agree bit for bit;
//   - bound: general inputs and scales 2^-10..2^10 within the rule's bound;
//   - specials: the inf and NaN codes of E4M3/E5M2 (NaN for NaN, inf for
//     the same inf);
//   - nan (scaled): a lane with scale byte 0xFF makes exactly the same
//     outputs NaN;
//   - extreme (scaled): every block has scale bytes near 0 or 254 for A
//     and the complement for B, so that each element times its scale is
//     far outside f16 and often f32 while the products are moderate (a
//     rule that scaled the elements before multiplying would fail);
//   - range (scaled): scale bytes anywhere in 0..254, outputs whose
//     magnitude sum stays below half the f32 range within the bound
//     (including subnormal results).
func TestGFX12ScaleMFMAAgainstGFX950Simulator(t *testing.T) {
	var cases []gfx12SMCase
	n := 0
	for _, scaled := range []bool{true, false} {
		for _, m := range []int{16, 32} {
			for cb := 0; cb < 5; cb++ {
				for bl := 0; bl < 5; bl++ {
					c := smCase{m: m, cbsz: cb, blgp: bl, sa: n % 4, sb: (n/4 + n) % 4, cdMode: n % 3, agpr: n / 3 % 4}
					if !scaled {
						c.sa, c.sb = 0, 0
					}
					cases = append(cases, gfx12SMCase{c, scaled})
					n++
				}
			}
		}
	}
	spills := func(i int) bool { return i%4 == 1 }
	guest := gfx12SMBuild(t, cases, false, nil)
	wide := gfx12SMBuild(t, cases, true, spills)
	res, err := Translate(guest, Options{Name: "scalemfma12", Host: isa.GFX1201})
	if err != nil {
		var b strings.Builder
		res.Report.WriteText(&b)
		t.Fatalf("%v\n%s", err, b.String())
	}
	verifyObject12(t, "scalemfma12", isa.GFX1201, guest, res.Object)
	// gfx1200, and gfx1201 with every scratch register borrowed from live
	// registers and saved to private memory around the expansion, run
	// the exact inputs of some kernels.
	res1200, err := Translate(guest, Options{Name: "scalemfma12", Host: isa.GFX1200})
	if err != nil {
		t.Fatalf("gfx1200: %v", err)
	}
	verifyObject12(t, "scalemfma12", isa.GFX1200, guest, res1200.Object)
	spilled, err := Translate(wide, Options{Name: "scalemfma12-spill", Host: isa.GFX1201, forceSpill: true})
	if err != nil {
		var b strings.Builder
		spilled.Report.WriteText(&b)
		t.Fatalf("spilled: %v\n%s", err, b.String())
	}
	if !strings.Contains(fmt.Sprintf("%+v", spilled.Report), "borrowed") {
		t.Fatalf("forced spills borrowed no registers: %+v", spilled.Report)
	}
	// Every use called as a per-kernel subroutine (each kernel has one
	// use, so forced): the exact inputs against gfx950, and the bound
	// inputs bit for bit against the inline expansion.
	shared, err := Translate(guest, Options{Name: "scalemfma12-shared", Host: isa.GFX1201, forceShared: true})
	if err != nil {
		t.Fatalf("shared: %v", err)
	}
	if len(shared.Report.Kernels) != len(cases) {
		t.Fatalf("shared: %d kernels, want %d", len(shared.Report.Kernels), len(cases))
	}
	for _, k := range shared.Report.Kernels {
		// The plain 16x16 form on E4M3/E5M2 A and B stays inline.
		var i int
		if _, err := fmt.Sscanf(k.Name, "k%d", &i); err != nil || i >= len(cases) {
			t.Fatalf("kernel %q", k.Name)
		}
		c := cases[i]
		short := !c.scaled && c.m == 16 && c.cbsz < 2 && c.blgp < 2
		if calls := strings.Contains(strings.Join(k.Notes, "\n"), "1 long expansions call 1 per-kernel subroutines"); calls == short {
			t.Fatalf("%s (m=%d scaled=%v cbsz=%d blgp=%d): subroutine call %v: %q", k.Name, c.m, c.scaled, c.cbsz, c.blgp, calls, k.Notes)
		}
	}
	verifyObject12(t, "scalemfma12-shared", isa.GFX1201, guest, shared.Object)
	rng := rand.New(rand.NewSource(1201))
	runs, checked, skipped := 0, 0, 0
	worst := 0.0 // largest |diff| / (2^-24 * magnitude) seen
	for ci, c := range cases {
		name := fmt.Sprintf("k%d", ci)
		modes := []string{"exact", "bound", "specials"}
		if c.scaled {
			modes = append(modes, "nan", "extreme", "range")
		}
		if ci%3 == 0 {
			modes = append(modes, "gfx1200")
		}
		if spills(ci) {
			modes = append(modes, "spill")
		}
		modes = append(modes, "shared", "shared-inline")
		for _, mode := range modes {
			gobj, gtarget, host, target := guest, "gfx950", res.Object, "gfx1201"
			switch mode {
			case "gfx1200":
				host, target, mode = res1200.Object, "gfx1200", "exact"
			case "spill":
				gobj, host, mode = wide, spilled.Object, "exact"
			case "shared":
				host, mode = shared.Object, "exact"
			case "shared-inline":
				// The bound inputs; the inline translation is the
				// reference, bit for bit.
				gobj, gtarget, host, mode = res.Object, "gfx1201", shared.Object, "bound"
			}
			same := gtarget != "gfx950"
			if mode == "specials" && c.cbsz > 1 && c.blgp > 1 {
				continue // no format of this pair has special codes
			}
			nanLane := -1
			if mode == "nan" {
				nanLane = rng.Intn(64)
			}
			in := smInputs(rng, c.smCase, mode == "exact", mode == "specials", nanLane)
			switch {
			case !c.scaled:
				one := func(int) uint32 { return 127 }
				setScaleBytes(in, c.smCase, one, one)
			case mode == "bound":
				setScaleBytes(in, c.smCase, func(int) uint32 { return uint32(117 + rng.Intn(21)) }, func(int) uint32 { return uint32(117 + rng.Intn(21)) })
			case mode == "extreme":
				var x [4]int
				for b := range x {
					x[b] = rng.Intn(7)
					if rng.Intn(2) == 0 {
						x[b] = 254 - x[b]
					}
				}
				setScaleBytes(in, c.smCase, func(l int) uint32 { return uint32(x[l/c.m]) }, func(l int) uint32 {
					return uint32(max(0, min(254, 254-x[l/c.m]+rng.Intn(7)-3)))
				})
			case mode == "range":
				setScaleBytes(in, c.smCase, func(int) uint32 { return uint32(rng.Intn(255)) }, func(int) uint32 { return uint32(rng.Intn(255)) })
			}
			want := smRun(t, gobj, gtarget, name, in)
			got := smRun(t, host, target, name, in)
			runs++
			nonzero, nans := false, 0
			for r := 0; r < c.cd(); r++ {
				for l := 0; l < 64; l++ {
					gw, ww := got[(smRegOut+r)*64+l], want[(smRegOut+r)*64+l]
					nonzero = nonzero || ww != 0
					gv, wv := float64(math.Float32frombits(gw)), float64(math.Float32frombits(ww))
					if math.IsNaN(wv) {
						nans++
					}
					where := fmt.Sprintf("%s on %s: m=%d scaled=%v cbsz=%d blgp=%d sel=%d/%d cd=%d agpr=%d %s: lane %d reg %d", name, target, c.m, c.scaled, c.cbsz, c.blgp, c.sa, c.sb, c.cdMode, c.agpr, mode, l, r)
					mag := smMagnitude(in, c.smCase, l, r)
					switch {
					case mode == "exact" || same:
						if gw != ww {
							t.Fatalf("%s: translated %#x (%g), gfx950 %#x (%g)", where, gw, gv, ww, wv)
						}
					case mode == "range" && !(mag < math.MaxFloat32/2):
						skipped++
						continue
					case math.IsNaN(wv) || math.IsNaN(gv) || math.IsInf(wv, 0) || math.IsInf(gv, 0):
						if math.IsNaN(wv) != math.IsNaN(gv) || (!math.IsNaN(wv) && gv != wv) {
							t.Fatalf("%s: translated %g, gfx950 %g", where, gv, wv)
						}
					default:
						if bound := gfx12SMBound(mag); math.Abs(gv-wv) > bound {
							t.Fatalf("%s: translated %g, gfx950 %g, |diff| %g > bound %g", where, gv, wv, math.Abs(gv-wv), bound)
						}
						if mag > 1e-30 {
							worst = max(worst, math.Abs(gv-wv)/math.Ldexp(mag, -24))
						}
					}
					checked++
				}
			}
			if !nonzero {
				t.Fatalf("%s %s: the gfx950 run stored only zeros", name, mode)
			}
			if mode != "specials" && mode != "range" && (nans != 0) != (mode == "nan") {
				t.Fatalf("%s %s: %d NaN outputs on gfx950", name, mode, nans)
			}
		}
	}
	if skipped > checked/4 {
		t.Fatalf("%d outputs skipped as beyond the f32 range, %d checked", skipped, checked)
	}
	t.Logf("%d kernels, %d runs, %d outputs compared (%d range outputs beyond f32 skipped); largest |diff| %.2f * 2^-24 * (|C| + sum |a*b|) (bound 14)", len(cases), runs, checked, skipped, worst)
}
