package dbt

import (
	"bytes"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
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
// as when every instruction is recomputed.
func TestReEmissionReuse(t *testing.T) {
	for _, name := range []string{"fmha_v3_bwd_bwd_hd128_bf16_a16_psskddv_group.co"} { // fmoe_fmoe_fp8_blockscale_g1u1_subGU_256 fits short branches since the FP8 MFMA chains, the f4gemm and fmha_v4 objects since the subroutines (TestScaleMFMASharedReEmission re-emits subroutine calls)
		p := filepath.Join(projectpath.MustShared(t, "corpus", "aiter", "gfx950"), name)
		guest := readFile(t, p)
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
			t.Fatalf("%s: no long branches: the test needs an object that is re-emitted", name)
		}
		if !bytes.Equal(a.Object, b.Object) || !reflect.DeepEqual(a.Report, b.Report) {
			t.Fatalf("%s: reusing the first emission changes the translation", name)
		}
	}
}
