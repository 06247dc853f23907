package dbt

import (
	"encoding/binary"
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/live"
	"github.com/rocjitsu/rocjitsu/dbt/place"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
)

// Subroutines (issue 15): a rule with a Shared form whose key occurs at
// two or more uses of a kernel scope gets one body per key after the
// scope's code; each use copies its operands into fixed registers, calls
// the body with s_call_b64 and copies the results out. The fixed VGPRs and
// the return SGPR pair are free at every use of the rule (no instruction
// reads them after any use, no use names them), so a body may clobber
// them. A use falls back to the inline expansion when the rule has no
// fixed registers, its key occurs once, or its call went out of SOPP range
// (placement asked for a long window there).

// sharedPlan is the subroutine plan of one rule in a scope.
type sharedPlan struct {
	// uses counts the scope's uses of each key.
	uses map[string]int
	// regs are the VGPRs free at every use; ret is the return pair.
	regs []uint16
	ret  uint16
	ok   bool
	// bodies caches each key's body (it depends on the plan only).
	bodies map[string][]byte
}

// sharedCall is one emitted call: its fixup index and key.
type sharedCall struct {
	fx   int
	rule *rules.Rule
	key  string
}

// sharedState is a scope's subroutine bookkeeping.
type sharedState struct {
	// live is the analysis the plans were made for.
	live  *live.Info
	plans map[*rules.Rule]*sharedPlan
	// body is the emission the calls belong to; calls and order (the
	// bodies in first-call order) are reset with it.
	body  *place.Body
	calls []sharedCall
	order []sharedCall
}

// sharedPlanFor returns the plan of rule r, computing the scope's plans
// on first use after a new liveness analysis.
func (kt *kernelT) sharedPlanFor(r *rules.Rule) *sharedPlan {
	if kt.shared == nil || kt.shared.live != kt.live {
		kt.shared = &sharedState{live: kt.live, plans: map[*rules.Rule]*sharedPlan{}}
	}
	if p, ok := kt.shared.plans[r]; ok {
		return p
	}
	p := &sharedPlan{uses: map[string]int{}, bodies: map[string][]byte{}}
	kt.shared.plans[r] = p
	var sites []*isa.Inst
	for _, l := range kt.scope.Blocks {
		for _, in := range kt.g.Blocks[l].Insts {
			if rules.ForInst(kt.guest, kt.host, in) != r {
				continue
			}
			sites = append(sites, in)
			if key, ok := r.Shared.Key(in, kt.raw(in)); ok {
				p.uses[key]++
			}
		}
	}
	if len(sites) == 0 {
		return p
	}
	arch, agprs := kt.archVGPRs()
	saved := kt.cur
	defer func() { kt.cur = saved }()
	for v := 0; v < 256; v++ {
		if v >= arch && agprs > 0 && (v+1+3)&^3+agprs > 512 {
			break
		}
		if kt.mappedAGPR(v) {
			continue
		}
		free := true
		for _, in := range sites {
			kt.cur = in
			if a := kt.live.After(in.PC); a == nil || (v < arch && a.V.Has(v)) || kt.selfUses(v) {
				free = false
				break
			}
		}
		if free {
			p.regs = append(p.regs, uint16(v))
		}
	}
	limit := min(kt.k.Descriptor.NextFreeSGPR()-6, 102)
	for s := 0; s+1 < limit && !p.ok; s += 2 {
		free := true
		for _, in := range sites {
			a := kt.live.After(in.PC)
			if a == nil || a.S.Has(s) || a.S.Has(s+1) || kt.selfUsesSGPR(in, s) || kt.selfUsesSGPR(in, s+1) {
				free = false
				break
			}
		}
		if free {
			p.ret, p.ok = uint16(s), true
		}
	}
	return p
}

// sharedSite emits in as a call of its rule's shared body, or reports
// false to leave it to the inline expansion.
func (kt *kernelT) sharedSite(code []byte, in *isa.Inst, raw []byte, r *rules.Rule, kind report.Kind) ([]byte, bool) {
	if r == nil || r.Shared == nil || kt.forceSpill || kt.noShared || kt.long[in.PC] || rules.ForInst(kt.guest, kt.host, in) != r {
		return code, false
	}
	key, ok := r.Shared.Key(in, raw)
	if !ok {
		return code, false
	}
	p := kt.sharedPlanFor(r)
	if !p.ok || (p.uses[key] < 2 && !kt.forceShared) {
		return code, false
	}
	site, err := r.Shared.Site(in, raw, p.regs)
	if err != nil {
		return code, false
	}
	body, have := p.bodies[key]
	if !have {
		if body, err = r.Shared.Body(in, raw, p.regs); err != nil {
			return code, false
		}
		p.bodies[key] = body
	}
	st := kt.shared
	if st.body != kt.body {
		st.body, st.calls, st.order = kt.body, nil, nil
	}
	first := true
	for _, c := range st.order {
		if c.rule == r && c.key == key {
			first = false
		}
	}
	if first {
		st.order = append(st.order, sharedCall{rule: r, key: key})
	}
	for _, v := range site.Used {
		kt.take(v)
	}
	code = append(code, site.Pre...)
	st.calls = append(st.calls, sharedCall{fx: len(kt.body.Fixups), rule: r, key: key})
	kt.body.Fixups = append(kt.body.Fixups, place.Fixup{Kind: place.Call, Off: len(code), Size: 4, Pair: p.ret, Local: true, Src: in.PC})
	code = window(code, 4)
	code = append(code, site.Post...)
	kt.rep.Tally(kind)
	return code, true
}

// appendShared appends the bodies the current emission calls (each ended
// by s_setpc_b64 through its plan's return pair) and points the calls at
// them.
func (kt *kernelT) appendShared(code []byte) []byte {
	st := kt.shared
	if st == nil || st.body != kt.body || len(st.order) == 0 {
		return code
	}
	at := map[sharedCall]int{}
	for _, c := range st.order {
		p := st.plans[c.rule]
		at[c] = len(code)
		code = append(code, p.bodies[c.key]...)
		code = binary.LittleEndian.AppendUint32(code, kt.pair.Words().Setpc(p.ret))
	}
	for _, c := range st.calls {
		kt.body.Fixups[c.fx].Target = uint64(at[sharedCall{rule: c.rule, key: c.key}])
	}
	kt.rep.Notes = appendOnce(kt.rep.Notes, fmt.Sprintf("%d long expansions call %d per-kernel subroutines (operands copied to fixed registers, s_call_b64)", len(st.calls), len(st.order)))
	return code
}
