package dbt_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/verify"
)

// gfx12AiterTranslating are the aiter gfx950 objects that translate for
// gfx1201 (TestGFX12AiterCorpus checks the list from the translator side).
var gfx12AiterTranslating = []string{
	"fmha_v3_fwd_fwd_hd128_bf16.co", "fmha_v3_fwd_fwd_hd128_bf16_causal.co",
	"fp8gemm_blockscale_fp8gemm_bf16_blockscale_BpreShuffle_32x128.co",
	"topksoftmax_topksoftmax_12x128x4.co", "topksoftmax_topksoftmax_12x128x4_bf16.co",
}

// TestGFX12AiterVerify runs each aiter object that translates for gfx1201
// as guest on the simulated gfx950 and as translation on the simulated
// gfx1201 (package verify: synthesized arguments, paged float-filled
// memory, two seeds) and requires every byte written to be identical. It
// caught the gfx9 simulator index-checking the offen-only accesses of the
// topksoftmax V#s, which set STRIDE 4 (gfx9 checks by IDXEN).
func TestGFX12AiterVerify(t *testing.T) {
	dir := filepath.Join(projectpath.MustRoot(t), "..", "shared", "corpus", "aiter", "gfx950")
	for _, name := range gfx12AiterTranslating {
		guest, err := os.ReadFile(filepath.Join(dir, name))
		if os.IsNotExist(err) {
			t.Skip("no ../shared/corpus/aiter/gfx950")
		}
		if err != nil {
			t.Fatal(err)
		}
		for seed := uint64(0); seed < 2; seed++ {
			rs, err := verify.Object(name, guest, verify.Options{Host: "gfx1201", Seed: seed})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(rs) == 0 {
				t.Fatalf("%s: no kernel verified", name)
			}
			for _, r := range rs {
				if r.Outcome != verify.Identical {
					t.Errorf("%s %s seed %d: %s", name, r.Name, seed, verify.Summarize([]verify.Result{r}))
				}
			}
		}
	}
}
