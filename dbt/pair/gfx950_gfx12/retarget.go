package gfx950gfx12

import (
	"fmt"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/dbt/legalize"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
)

// retarget lists the gfx950 -> gfx942 rules (dbt/rules) whose expansion
// is also right for gfx12: they rewrite a gfx950-only operation into
// gfx942 operations with the same meaning on gfx12 (no FP8 FNUZ scaling,
// no MFMA). Their gfx942 output is lowered instruction by instruction
// through this pair's own mapping and rules, so nothing passes unchecked;
// an expansion that uses a gfx942 FP8/BF8 conversion (FNUZ there, OCP on
// gfx12, under the same mnemonic) is refused (fp8Free). The scaled
// conversions are listed for their FP4 forms; the FP8/BF8 widening forms
// have their own rule (scalecvt.go), and the FP8/BF8 narrowing ones are
// refused that way.
var retarget = map[string]bool{
	"bitop3": true, "cvt-f32-bf16": true, "cvt-pk-bf16": true, "cvt-pk-f16": true,
	"permlane16-swap": true, "permlane32-swap": true, "global-load-lds-x4": true, "ds-read-tr": true,
	"cvt-scalef32-pk-fp4-f32": true, "cvt-scalef32-widen": true, "cvt-scalef32-pk-narrow-16": true,
}

// fp8Free reports why a decoded gfx942 instruction may not be lowered as
// if it were gfx950 code: the FP8/BF8 conversions and MFMAs are FNUZ on
// gfx942 and OCP on gfx950 and gfx12.
func fp8Free(x *isa.Inst) error {
	if n := x.Name(); strings.Contains(n, "fp8") || strings.Contains(n, "bf8") {
		return fmt.Errorf("the gfx942 expansion uses %s, FNUZ on gfx942 and OCP on gfx12", n)
	}
	return nil
}

// retargeted wraps a gfx942 rule: its output is decoded as gfx942 code and
// each instruction lowered for gfx12 (waits inside it are split over the
// expansion's own operations, older ones waited for).
func retargeted(g *rules.Rule, in *isa.Inst, site pair.Site) legalize.Decision {
	fid, bound := g.Fidelity, g.Bound
	return legalize.Decision{Action: report.Expand, Fidelity: fid, Bound: bound, Rule: &rules.Rule{
		Name: g.Name + "+gfx12", Ops: g.Ops, Fidelity: fid, Bound: bound,
		Emit: func(ctx rules.Context, in *isa.Inst, raw []byte) ([]byte, error) {
			code, err := g.Emit(ctx, in, raw)
			if err != nil {
				return nil, err
			}
			var insts []*isa.Inst
			for off := 0; off < len(code); {
				x, err := gfx9.Decode(code[off:], uint64(off), isa.GFX942)
				if err != nil {
					return nil, fmt.Errorf("gfx942 expansion does not decode: %v", err)
				}
				if err := fp8Free(&x); err != nil {
					return nil, err
				}
				insts = append(insts, &x)
				off += int(x.Size)
			}
			var out []byte
			for j, x := range insts {
				s := pair.Site{Kernel: site.Kernel, Block: insts, Index: j, Flat: site.Flat, AGPRBase: site.AGPRBase}
				r := handRules()[x.Name()]
				if x.Format == isa.SDWA {
					r = nil
					if sdwaOps()[x.Name()] {
						r = &rule{name: "gfx12-sdwa", emit: sdwa}
					}
				}
				var b []byte
				if r != nil {
					b, err = r.emit(ctx, x, s)
				} else {
					b, _, err = lower(x, s)
				}
				if err != nil {
					return nil, fmt.Errorf("gfx942 expansion instruction %s: %v", gfx9.Print(x), err)
				}
				out = append(out, b...)
			}
			return out, nil
		},
	}}
}
