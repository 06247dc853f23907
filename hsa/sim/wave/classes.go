package wave

import (
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/cost"
)

// classify sets in's execution class (dbt/cost's classification of its
// mnemonic) and its issue-cycle weight on target (cost.IssuePasses: the
// MFMA passes of LLVM's scheduling model for gfx942 and gfx950, one for
// everything else), once when the instruction is decoded, so counting an
// executed instruction is two additions.
func classify(in *Inst, target Target) {
	c := cost.Of(in.Name)
	in.class = uint8(c)
	t := ""
	switch target &^ Wave64 {
	case GFX942:
		t = "gfx942"
	case GFX950:
		t = "gfx950"
	}
	// An f8f6f4 matrix instruction takes twice the passes when either
	// format (CBSZ for A, BLGP for B) is FP8 (0) or BF8 (1).
	f8 := strings.HasSuffix(in.Name, "_f8f6f4") && (in.Cbsz <= 1 || in.Blgp <= 1)
	in.passes = uint8(cost.IssuePasses(t, in.Name, c, f8))
}
