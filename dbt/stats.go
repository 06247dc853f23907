package dbt

import (
	"github.com/rocjitsu/rocjitsu/dbt/cost"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/legalize"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
)

// ClassCounts converts a cost tally to the report's form.
func ClassCounts(c cost.Counts) report.ClassCounts {
	return report.ClassCounts{MFMA: c[cost.MFMA], VALU: c[cost.VALU], Memory: c[cost.Memory], SALU: c[cost.SALU], Other: c[cost.Other]}
}

// countsOf converts the report's counts back to a cost tally.
func countsOf(c report.ClassCounts) cost.Counts {
	var out cost.Counts
	out[cost.MFMA], out[cost.VALU], out[cost.Memory], out[cost.SALU], out[cost.Other] = c.MFMA, c.VALU, c.Memory, c.SALU, c.Other
	return out
}

// staticCost counts the scope's guest instructions and the host
// instructions of its placed body (code, at host address pc) by class.
// Words that do not decode for the host are counted as Other, one per
// dword.
func (kt *kernelT) staticCost(code []byte, pc uint64) *report.Cost {
	var g, h cost.Counts
	for _, l := range kt.scope.Blocks {
		b := kt.g.Blocks[l]
		if b == nil {
			continue
		}
		for _, in := range b.Insts {
			g.Add(cost.Of(in.Name()), 1)
		}
	}
	for off := 0; off+4 <= len(code); {
		in, err := kt.hostDecode(code[off:], pc+uint64(off))
		if err != nil || in.Size == 0 {
			h.Add(cost.Other, 1)
			off += 4
			continue
		}
		h.Add(classOf(&in), 1)
		off += int(in.Size)
	}
	return &report.Cost{Guest: ClassCounts(g), Host: ClassCounts(h)}
}

// classOf is cost.Of of in's mnemonic.
func classOf(in *isa.Inst) cost.Class { return cost.Of(in.Name()) }

// tallyKey is what report.Kernel.Tally merges kinds by.
type tallyKey struct {
	mnemonic string
	action   report.Action
	rule     string
}

// tally is kt.rep.Tally with the position of each kind in kt.rep.Kinds
// remembered (the report's own lookup scans every kind of the kernel;
// report.Kernel.TallyAt checks a remembered position before using it,
// since the report may have been reset or reordered since).
func (kt *kernelT) tally(kind report.Kind) {
	key := tallyKey{kind.Mnemonic, kind.Action, kind.Rule}
	at, ok := kt.tallies[key]
	if !ok {
		at = -1
	}
	if i := kt.rep.TallyAt(kind, at); i != at {
		if kt.tallies == nil {
			kt.tallies = map[tallyKey]int{}
		}
		kt.tallies[key] = i
	}
}

// decisionKey identifies the report kind of an instruction translated by
// a decision without hashing its strings: the operation, the rule and
// the action (tallyDecision).
type decisionKey struct {
	info   *isa.OpInfo
	rule   *rules.Rule
	action uint8
}

// actionCode numbers the actions a decision tallies with (0: any
// other), for a key that hashes no string.
func actionCode(a report.Action) uint8 {
	switch a {
	case report.Identity:
		return 1
	case report.Substitute:
		return 2
	case report.Expand:
		return 3
	case report.Lower:
		return 4
	case report.Relocate:
		return 5
	}
	return 0
}

// tallyDecision is tally(kindOf(in, d)) with the kind's position found
// by pointers (the operation and rule) instead of by its strings.
func (kt *kernelT) tallyDecision(in *isa.Inst, d legalize.Decision) {
	key := decisionKey{in.Info, d.Rule, actionCode(d.Action)}
	if key.action == 0 {
		kt.tally(kindOf(in, d))
		return
	}
	byOp := key.rule == nil && key.action == 1
	var at int
	var ok bool
	if byOp {
		at, ok = kt.identityTallies[key.info]
	} else {
		at, ok = kt.decisionTallies[key]
	}
	if !ok {
		at = -1
	} else if kt.rep.CountAt(at, in.Name(), d.Action, kindRule(d), d.Fidelity) {
		return
	}
	kind := kindOf(in, d)
	i := kt.rep.TallyAt(kind, at)
	switch {
	case i == at:
	case byOp:
		if kt.identityTallies == nil {
			kt.identityTallies = map[*isa.OpInfo]int{}
		}
		kt.identityTallies[key.info] = i
	default:
		if kt.decisionTallies == nil {
			kt.decisionTallies = map[decisionKey]int{}
		}
		kt.decisionTallies[key] = i
	}
}
