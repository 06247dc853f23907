package dbt_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/sim/mem"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/verify"
)

// gfx12AiterTranslating are the aiter gfx950 objects that translate for
// gfx1201 (TestGFX12AiterCorpus checks the list from the translator side:
// every object whose registers fit), with the outcome the int fill gets:
// identical, or within bound where the README's verify section says why
// (f4gemm: signed zeros of the scaled f8f6f4 rule; fmha_v3_fwd: the int
// fill's subnormal bf16 outputs, flushed by approximate gfx12 rules).
var gfx12AiterTranslating = map[string]verify.Outcome{
	"fmha_v3_fwd_fwd_hd128_bf16.co":                                    verify.WithinBound,
	"fmha_v3_fwd_fwd_hd128_bf16_causal.co":                             verify.WithinBound,
	"fp8gemm_blockscale_fp8gemm_bf16_blockscale_BpreShuffle_32x128.co": verify.Identical,
	"f4gemm_f4gemm_bf16_per1x32Fp4_BpreShuffle_128x128.co":             verify.WithinBound,
	"f8_block_scale_mi350_x32.co":                                      verify.Identical,
	"f8_block_scale_mi350_x64.co":                                      verify.Identical,
	"fmha_v4_fwd_fwd_hd128_f4f4.co":                                    verify.Identical,
	"fmha_v4_fwd_fwd_hd128_f6f4.co":                                    verify.Identical,
	"topksoftmax_topksoftmax_12x128x4.co":                              verify.Identical,
	"topksoftmax_topksoftmax_12x128x4_bf16.co":                         verify.Identical,
}

// TestGFX12AiterVerify runs each aiter object that translates for gfx1201
// as guest on the simulated gfx950 and as translation on the simulated
// gfx1201 (package verify: argument profiles, paged int-filled memory, one
// workgroup, two seeds) and requires each kernel's expected outcome: identical, or within
// bound for the listed approximate cases. It caught the gfx9 simulator
// index-checking the offen-only accesses of the topksoftmax V#s, which set
// STRIDE 4 (gfx9 checks by IDXEN).
func TestGFX12AiterVerify(t *testing.T) {
	dir := projectpath.MustShared(t, "corpus", "aiter", "gfx950")
	for name, want := range gfx12AiterTranslating {
		guest, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for seed := uint64(0); seed < 2; seed++ {
			rs, err := verify.Object(name, guest, verify.Options{Host: "gfx1201", Seed: seed, Fill: mem.FillInt, Workgroups: 1})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(rs) == 0 {
				t.Fatalf("%s: no kernel verified", name)
			}
			for _, r := range rs {
				if r.Outcome != verify.Identical && r.Outcome != want {
					t.Errorf("%s %s seed %d: want %s: %s", name, r.Name, seed, want, verify.Summarize([]verify.Result{r}))
				}
			}
		}
	}
}
