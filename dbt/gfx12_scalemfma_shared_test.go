package dbt

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// TestGFX12ScaleMFMASharedAgainstGFX950Simulator: the kernels of
// TestScaleMFMASharedAgainstGFX950Simulator (five scaled MFMAs each with
// different A/B/C/D and scale registers and bytes, C/D in AGPRs and VGPRs,
// C the constant 0, one use accumulating onto another) translated for
// gfx1201 call two per-kernel subroutines (C registers: uses 1, 2, 5; C =
// 0: uses 3, 4); on the simulated gfx1201 they agree bit for bit with the
// gfx950 guest for inputs whose sums are exact and with the inline
// translation for general inputs. The same holds with the bodies placed in
// the code (a copy per use, or copies shared by nearby uses) and, for the
// kernels whose VGPRs are all in use (p), with the fixed registers that
// are live at some use saved to per-lane private memory around each use
// (gfx12 has no AGPRs): the checksum of the live registers matches.
func TestGFX12ScaleMFMASharedAgainstGFX950Simulator(t *testing.T) {
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
	}
	s.WriteString(".rodata\n")
	for i := range cases {
		fmt.Fprintf(&s, ".p2align 6\n.amdhsa_kernel k%d\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 224\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 192\n.end_amdhsa_kernel\n", i)
		fmt.Fprintf(&s, ".p2align 6\n.amdhsa_kernel p%d\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 256\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 256\n.end_amdhsa_kernel\n", i)
	}
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	guest := buildGuestFrom(t, path)
	inline, err := Translate(guest, Options{Name: "scalemfma12-inline", Host: isa.GFX1201, noShared: true})
	if err != nil {
		t.Fatalf("inline: %v", err)
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
		v.opt.Name, v.opt.Host = "scalemfma12-"+v.name, isa.GFX1201
		res, err := Translate(guest, v.opt)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if len(res.Report.Kernels) != 2*len(cases) {
			t.Fatalf("%s: %d kernels", v.name, len(res.Report.Kernels))
		}
		for _, k := range res.Report.Kernels {
			notes := strings.Join(k.Notes, "\n")
			if !strings.Contains(notes, "5 long expansions call ") || !strings.Contains(notes, v.where) {
				t.Fatalf("%s %s: notes %q, want 5 calls of subroutines %s", v.name, k.Name, k.Notes, v.where)
			}
			if v.name == "after" && !strings.Contains(notes, "call 2 per-kernel subroutines") {
				t.Fatalf("%s %s: notes %q, want 2 subroutines", v.name, k.Name, k.Notes)
			}
			if v.name == "copy-per-use" && !strings.Contains(notes, "call 5 per-kernel subroutines") {
				t.Fatalf("%s %s: notes %q, want 5 copies", v.name, k.Name, k.Notes)
			}
			if saved := strings.Contains(notes, "saved to per-lane private memory around it"); saved != (k.Name[0] == 'p') {
				t.Fatalf("%s %s: notes %q: private-memory saves %v", v.name, k.Name, k.Notes, saved)
			}
		}
		if v.name == "after" && len(res.Object) >= len(inline.Object) {
			t.Fatalf("object with subroutines %d bytes, inline %d", len(res.Object), len(inline.Object))
		}
		verifyObject12(t, "scalemfma12-"+v.name, isa.GFX1201, guest, res.Object)
		objs = append(objs, res.Object)
	}
	smsCompare(t, rand.New(rand.NewSource(1215)), guest, inline.Object, objs, "gfx1201", cases, []string{"k", "p"},
		func(string) bool { return false })
}
