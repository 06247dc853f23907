package dbt

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// TestCorpusTransposeAtomicSMFMACRules translates the aiter gfx950 objects
// and, for every object where the ds-read-tr, buffer-atomic-pk-add-bf16 or
// smfmac-* rules apply, requires that the object is committed with no
// rejection and that the output passes llvm-readelf-19 and llvm-objdump-19
// --mcpu=gfx942 with no undecodable word. At least 7 objects use these
// rules (the fmha v3 forward and backward, fmha v4 and MLA kernels).
func TestCorpusTransposeAtomicSMFMACRules(t *testing.T) {
	mine := func(rule string) bool {
		return rule == "ds-read-tr" || rule == "buffer-atomic-pk-add-bf16" || strings.HasPrefix(rule, "smfmac-")
	}
	used := map[string]int{}
	objects := 0
	for _, p := range corpus(t, "gfx950") {
		src := readFile(t, p)
		res, err := Translate(src, Options{Name: filepath.Base(p)})
		rep := res.Report
		uses := false
		for _, k := range rep.Kernels {
			for _, kind := range k.Kinds {
				if kind.Action == report.Expand && mine(kind.Rule) {
					uses = true
					used[kind.Rule] += kind.Count
				}
			}
			for _, r := range k.Rejections {
				if strings.HasPrefix(r.Mnemonic, "ds_read_b64_tr_") || strings.HasPrefix(r.Mnemonic, "v_smfmac_") || r.Mnemonic == "buffer_atomic_pk_add_bf16" {
					t.Errorf("%s: %s at %#x rejected: %s", filepath.Base(p), r.Mnemonic, r.Offset, r.Reason)
				}
			}
		}
		if !uses {
			continue
		}
		objects++
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(p), err)
			continue
		}
		oracleCheck(t, filepath.Base(p), res.Object)
	}
	t.Logf("%d objects use the rules: %v", objects, used)
	if objects < 7 || used["ds-read-tr"] == 0 || used["buffer-atomic-pk-add-bf16"] == 0 || used["smfmac-fp8-ocp"] == 0 {
		t.Fatalf("%d objects use the rules (%v), want at least 7 covering all three", objects, used)
	}
}
