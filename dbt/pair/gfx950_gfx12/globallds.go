package gfx950gfx12

import (
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
)

// global_load_lds_dword loads a dword per active lane as global_load_dword
// would and writes it to LDS at M0 + instruction offset + lane_id * 4 (the
// instruction offset applies to both addresses, as in the gfx942 rule for
// the x4 form). gfx12 has no load to LDS: the rule is global_load_b32 into
// a scratch VGPR, s_wait_loadcnt 0, the lane's LDS address with
// v_mbcnt_lo/hi + v_lshl_add_u32 (M0), the offset added when negative (DS
// offsets are unsigned), ds_store_b32, s_wait_dscnt 0.

const globalLDSBound = "load to LDS: meaning (M0 + offset + lane_id * 4) from the ISA and the gfx942 x4 rule; the gfx9 simulator does not run LDS-direct global loads, so the rule is checked against a CPU reference on the simulated gfx1201"

// addGlobalLDSRules adds its rules to m (handRules).
func addGlobalLDSRules(m map[string]*rule) {
	m["global_load_lds_dword"] = &rule{name: "gfx12-global-load-lds", fidelity: report.Approximate, bound: globalLDSBound, emit: globalLoadLDS}
}

func globalLoadLDS(ctx rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	if len(ops) != 2 {
		return nil, fmt.Errorf("%s: %d operands, want vaddr, saddr", in.Name(), len(ops))
	}
	t, err := ctx.TempVGPRs(2)
	if err != nil {
		return nil, err
	}
	data, a := t[0], t[1]
	th, scope, _ := cachePolicy(in)
	ld := host{mnem: "global_load_b32", ops: []isa.Operand{vr(data, 1), ops[0], ops[1]}, th: th, scope: scope}
	ld.mod.Offset = in.Mod.Offset
	hs := []host{ld,
		{mnem: "s_wait_loadcnt", ops: []isa.Operand{imm(0)}},
		{mnem: "v_mbcnt_lo_u32_b32", ops: []isa.Operand{vr(a, 1), inl(-1), inl(0)}},
		{mnem: "v_mbcnt_hi_u32_b32", ops: []isa.Operand{vr(a, 1), inl(-1), vr(a, 1)}},
		{mnem: "v_lshl_add_u32", ops: []isa.Operand{vr(a, 1), vr(a, 1), inl(2), special(isa.RegM0, 1)}},
	}
	st := host{mnem: "ds_store_b32", ops: []isa.Operand{vr(a, 1), vr(data, 1)}}
	switch off := in.Mod.Offset; {
	case off > 0xffff:
		return nil, fmt.Errorf("offset %d does not fit the DS offset", off)
	case off >= 0:
		st.mod.Offset = off
	default:
		hs = append(hs, host{mnem: "v_add_nc_u32_e32", ops: []isa.Operand{vr(a, 1), lit(uint32(off)), vr(a, 1)}})
	}
	hs = append(hs, st, host{mnem: "s_wait_dscnt", ops: []isa.Operand{imm(0)}})
	return seq(hs...)
}
