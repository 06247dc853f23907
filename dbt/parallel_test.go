package dbt

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/bitop3"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// TestParallelKernelsDeterministic: emitting the kernels of one object on
// several goroutines gives the same object and report as emitting them in
// order (run with -race to check they share no mutable state).
func TestParallelKernelsDeterministic(t *testing.T) {
	guest := buildGuest(t, "shared_helper")
	seq, err := Translate(guest, Options{Name: "shared_helper", Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(seq.Report.Kernels) < 2 {
		t.Fatalf("%d kernels: the test needs several", len(seq.Report.Kernels))
	}
	for rep := 0; rep < 4; rep++ {
		par, err := Translate(guest, Options{Name: "shared_helper", Workers: 4})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(par.Object, seq.Object) {
			t.Fatal("parallel translation differs from the sequential one")
		}
		if !reflect.DeepEqual(par.Report, seq.Report) {
			t.Fatalf("reports differ:\n%+v\n%+v", par.Report, seq.Report)
		}
	}
}

// TestReEmissionReuse: objects whose first layout needs long branches are
// emitted twice; the second emission reuses the first one's host code for
// every non-control instruction. The object and report must be the same
// as when every instruction is recomputed. No aiter object needs long
// branches since the subroutines, so the test also builds one that does
// (a branch over 8000 expanded v_bitop3_b32) and checks every aiter object
// that still does.
func TestReEmissionReuse(t *testing.T) {
	objs := map[string][]byte{"far-branch": reemitGuest(t)}
	for _, p := range corpus(t, "gfx950") {
		objs[filepath.Base(p)] = readFile(t, p)
	}
	reemitted := 0
	for name, guest := range objs {
		a, errA := Translate(guest, Options{Name: name})
		b, errB := Translate(guest, Options{Name: name, noReuse: true})
		if (errA == nil) != (errB == nil) {
			t.Fatalf("%s: errors %v / %v", name, errA, errB)
		}
		long := 0
		for _, k := range b.Report.Kernels {
			long += k.LongBranches
		}
		if long == 0 {
			continue
		}
		reemitted++
		if !bytes.Equal(a.Object, b.Object) || !reflect.DeepEqual(a.Report, b.Report) {
			t.Fatalf("%s: reusing the first emission changes the translation", name)
		}
	}
	if reemitted == 0 {
		t.Fatal("no object was re-emitted")
	}
}

// reemitGuest assembles a gfx950 kernel whose translation needs a long
// branch: a conditional branch over 8000 v_bitop3_b32 (64 KB of guest code,
// about three times that once expanded).
func reemitGuest(t *testing.T) []byte {
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_cmp_eq_u32 s0, 0\n  s_cbranch_scc1 .Lfar\n")
	for i := 0; i < 8000; i++ {
		neg, abs, omod := bitop3.Fields(uint8(i))
		w0 := 0xd2340000 | uint32(abs)<<8 | 3
		w1 := uint32(neg)<<29 | uint32(omod)<<27 | (256+3)<<18 | (256+2)<<9 | (256 + 1)
		fmt.Fprintf(&s, "  .long %#x, %#x\n", w0, w1)
	}
	s.WriteString(".Lfar:\n  s_endpgm\n.rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_next_free_vgpr 8\n  .amdhsa_next_free_sgpr 8\n  .amdhsa_accum_offset 8\n.end_amdhsa_kernel\n")
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return buildGuestFrom(t, path)
}

// TestDecisionCache: the decisions and subroutine forms cached per scope
// (decide.go) give the same objects and reports as asking the pair at
// every question, for every aiter object and gfx950 test kernel, on both
// hosts.
func TestDecisionCache(t *testing.T) {
	paths := append(corpus(t, "gfx950"), testKernels(t, "gfx950")...)
	for _, host := range []isa.Target{isa.GFX942, isa.GFX1201} {
		for _, p := range paths {
			guest, name := readFile(t, p), filepath.Base(p)
			a, errA := Translate(guest, Options{Name: name, Host: host})
			b, errB := Translate(guest, Options{Name: name, Host: host, noDecisionCache: true})
			if (errA == nil) != (errB == nil) {
				t.Fatalf("%s for %s: errors %v / %v", name, host, errA, errB)
			}
			if a == nil || b == nil {
				continue
			}
			if !bytes.Equal(a.Object, b.Object) || !reflect.DeepEqual(a.Report, b.Report) {
				t.Fatalf("%s for %s: the decision cache changes the translation", name, host)
			}
		}
	}
}
