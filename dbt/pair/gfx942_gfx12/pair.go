// Package gfx942gfx12 is the gfx942 (CDNA3) -> gfx1200/gfx1201 pair. gfx942
// code is gfx950 code without the gfx950-only operations, except for the
// numerics of FP8/BF8: gfx942 uses the FNUZ formats, gfx12 (like gfx950)
// OCP. So the pair is the gfx950 -> gfx12 pair (dbt/pair/gfx950_gfx12)
// with every FP8/BF8 operation rejected until a conversion rule exists;
// it is also the smallest example of a pair built on another one.
package gfx942gfx12

import (
	"fmt"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/legalize"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	gfx950gfx12 "github.com/rocjitsu/rocjitsu/dbt/pair/gfx950_gfx12"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// Pair is the gfx942 -> gfx1200 or gfx1201 pair.
type Pair struct{ gfx950gfx12.Pair }

// New returns the pair for host isa.GFX1200 or isa.GFX1201.
func New(host isa.Target) Pair { return Pair{gfx950gfx12.New(host)} }

var _ pair.Pair = Pair{}

// Guests implements pair.Pair.
func (Pair) Guests() isa.Target { return isa.GFX942 }

// Decide implements pair.Pair: FP8/BF8 operations are rejected (FNUZ on
// the guest, OCP on the host), everything else is decided as for gfx950.
func (p Pair) Decide(in *isa.Inst, raw []byte, guest isa.Target, site pair.Site) legalize.Decision {
	if n := in.Name(); fp8Named(n) {
		return legalize.Decision{Action: report.Reject, Fidelity: report.Rejected,
			Reason: fmt.Sprintf("%s reads or writes FP8/BF8, which is FNUZ on gfx942 and OCP on %s; no conversion rule", n, p.Host())}
	}
	return p.Pair.Decide(in, raw, isa.GFX950, site)
}

// fp8Named reports whether a mnemonic names an FP8/BF8 operand type.
func fp8Named(name string) bool {
	return strings.Contains(name, "fp8") || strings.Contains(name, "bf8") || strings.Contains(name, "f8f6f4")
}
