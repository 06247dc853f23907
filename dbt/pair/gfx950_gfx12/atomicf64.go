package gfx950gfx12

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/dbt/place"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
)

// atomicF64Bound is the approximation of the f64 atomic-add loop.
const atomicF64Bound = "the add is v_add_f64 (rounding and denormals from MODE) instead of the memory-side adder; lanes hitting one address apply in the order their compare-and-swap wins"

// atomicMinMaxF64Bound is the approximation of the f64 atomic min/max
// loop.
const atomicMinMaxF64Bound = "the min/max is v_min_num_f64/v_max_num_f64 (IEEE 754-2019 minimumNumber/maximumNumber; sNaN and signed-zero handling of the memory-side unit not checked); lanes hitting one address apply in the order their compare-and-swap wins"

// addAtomicF64Rules adds its rules to m (handRules).
func addAtomicF64Rules(m map[string]*rule) {
	for _, n := range []string{"global_atomic_add_f64", "flat_atomic_add_f64"} {
		m[n] = &rule{name: "gfx12-atomic-add-f64", fidelity: report.Approximate, bound: atomicF64Bound, emit: atomicAddF64}
	}
	for _, n := range []string{"global_atomic_min_f64", "flat_atomic_min_f64", "global_atomic_max_f64", "flat_atomic_max_f64"} {
		m[n] = &rule{name: "gfx12-atomic-minmax-f64", fidelity: report.Approximate, bound: atomicMinMaxF64Bound, emit: atomicAddF64}
	}
}

// f64Combine returns the segment and the gfx12 VALU operation that
// combines the old memory value with the operand for a gfx9 f64 atomic.
func f64Combine(name string) (seg, op string, err error) {
	for _, c := range [][2]string{{"_atomic_add_f64", "v_add_f64_e64"}, {"_atomic_min_f64", "v_min_num_f64_e64"}, {"_atomic_max_f64", "v_max_num_f64_e64"}} {
		if s, ok := strings.CutSuffix(name, c[0]); ok {
			return s, c[1], nil
		}
	}
	return "", "", fmt.Errorf("%s is not an f64 atomic add/min/max", name)
}

// atomicAddF64 lowers gfx9's f64 atomic add (and min/max: the same loop
// with v_min/max_num_f64 as the combine), which gfx12 lacks, to a
// compare-and-swap loop: save EXEC; old = load; loop { new = old + x;
// ret = cmpswap_b64(addr, {new, old}) returning; EXEC &= (ret != old)
// (gfx12 v_cmpx writes only EXEC); old = ret } while EXEC; restore EXEC.
// A lane leaves the loop when its swap succeeded, with old = the value
// before its add, which the returning form writes to vdst.
func atomicAddF64(ctx rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	name := in.Name()
	seg, combine, err := f64Combine(name) // global or flat; add, min or max
	if err != nil {
		return nil, err
	}
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	var dst *isa.Operand
	if len(ops) > 0 && ops[0].Role.Defines() {
		d := ops[0]
		dst, ops = &d, ops[1:]
	}
	if len(ops) < 2 || ops[1].Kind != isa.KindReg || ops[1].Class != isa.VGPR || ops[1].Width != 2 {
		return nil, fmt.Errorf("%s operands", name)
	}
	addr, x, rest := ops[0], ops[1], ops[2:] // rest: saddr (global)
	th, scope, _ := cachePolicy(in)
	nv, err := ctx.TempVGPRRange(4, 1) // new at nv, old (the compare value) at nv+2
	if err != nil {
		return nil, err
	}
	ret, err := ctx.TempVGPRRange(2, 1)
	if err != nil {
		return nil, err
	}
	save, err := ctx.TempSGPRPair()
	if err != nil {
		return nil, err
	}
	old := nv + 2
	load := host{mnem: seg + "_load_b64", ops: append([]isa.Operand{vr(old, 2), addr}, rest...), scope: scope}
	load.mod.Offset = in.Mod.Offset
	pre, err := seq(
		host{mnem: "s_mov_b64", ops: []isa.Operand{sr(save, 2), special(isa.RegEXECLo, 2)}},
		load,
		host{mnem: "s_wait_loadcnt", ops: []isa.Operand{imm(0)}})
	if err != nil {
		return nil, err
	}
	cas := host{mnem: seg + "_atomic_cmpswap_b64", ops: append([]isa.Operand{vr(ret, 2), addr, vr(nv, 4)}, rest...), th: th, scope: scope, ret: true}
	cas.mod.Offset = in.Mod.Offset
	body, err := seq(
		host{mnem: combine, ops: []isa.Operand{vr(nv, 2), vr(old, 2), x}},
		cas,
		host{mnem: "s_wait_loadcnt", ops: []isa.Operand{imm(0)}},
		host{mnem: "v_cmpx_ne_u64_e64", ops: []isa.Operand{vr(ret, 2), vr(old, 2)}},
		host{mnem: "v_mov_b32_e32", ops: []isa.Operand{vr(old, 1), vr(ret, 1)}},
		host{mnem: "v_mov_b32_e32", ops: []isa.Operand{vr(old+1, 1), vr(ret+1, 1)}})
	if err != nil {
		return nil, err
	}
	back := -(len(body) + 4) / 4
	body = binary.LittleEndian.AppendUint32(body, place.GFX12.SOPP(place.OpCbranchEXECNZ, int16(back)))
	post := []host{{mnem: "s_mov_b64", ops: []isa.Operand{special(isa.RegEXECLo, 2), sr(save, 2)}}}
	if dst != nil {
		if dst.Kind != isa.KindReg || dst.Class != isa.VGPR || dst.Width != 2 {
			return nil, fmt.Errorf("%s destination", name)
		}
		post = append(post,
			host{mnem: "v_mov_b32_e32", ops: []isa.Operand{vr(dst.Reg, 1), vr(old, 1)}},
			host{mnem: "v_mov_b32_e32", ops: []isa.Operand{vr(dst.Reg+1, 1), vr(old+1, 1)}})
	}
	tail, err := seq(post...)
	if err != nil {
		return nil, err
	}
	return append(append(pre, body...), tail...), nil
}

// addDSAddF64Rules adds its rules to m (handRules).
func addDSAddF64Rules(m map[string]*rule) {
	for _, n := range []string{"ds_add_f64", "ds_add_rtn_f64"} {
		m[n] = &rule{name: "gfx12-ds-add-f64", fidelity: report.Approximate, bound: atomicF64Bound, emit: dsAddF64}
	}
}

// dsAddF64 is atomicAddF64 for LDS: ds_load_b64, then a
// ds_cmpstore_rtn_b64 loop (gfx12 data0 = new value, data1 = compare).
func dsAddF64(ctx rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	name := in.Name()
	if in.Mod.GDS {
		return nil, fmt.Errorf("%s with gds", name)
	}
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	var dst *isa.Operand
	if len(ops) > 0 && ops[0].Role.Defines() {
		d := ops[0]
		dst, ops = &d, ops[1:]
	}
	if len(ops) != 2 || ops[1].Kind != isa.KindReg || ops[1].Class != isa.VGPR || ops[1].Width != 2 {
		return nil, fmt.Errorf("%s operands", name)
	}
	addr, x := ops[0], ops[1]
	t, err := ctx.TempVGPRRange(6, 1) // new, old, ret
	if err != nil {
		return nil, err
	}
	nv, old, ret := t, t+2, t+4
	save, err := ctx.TempSGPRPair()
	if err != nil {
		return nil, err
	}
	ds := func(h host) host {
		h.mod.Offset = in.Mod.Offset
		h.mod.Offset1 = in.Mod.Offset1 | uint8(in.Mod.Offset>>8)
		return h
	}
	pre, err := seq(
		host{mnem: "s_mov_b64", ops: []isa.Operand{sr(save, 2), special(isa.RegEXECLo, 2)}},
		ds(host{mnem: "ds_load_b64", ops: []isa.Operand{vr(old, 2), addr}}),
		host{mnem: "s_wait_dscnt", ops: []isa.Operand{imm(0)}})
	if err != nil {
		return nil, err
	}
	body, err := seq(
		host{mnem: "v_add_f64_e64", ops: []isa.Operand{vr(nv, 2), vr(old, 2), x}},
		ds(host{mnem: "ds_cmpstore_rtn_b64", ops: []isa.Operand{vr(ret, 2), addr, vr(nv, 2), vr(old, 2)}}),
		host{mnem: "s_wait_dscnt", ops: []isa.Operand{imm(0)}},
		host{mnem: "v_cmpx_ne_u64_e64", ops: []isa.Operand{vr(ret, 2), vr(old, 2)}},
		host{mnem: "v_mov_b32_e32", ops: []isa.Operand{vr(old, 1), vr(ret, 1)}},
		host{mnem: "v_mov_b32_e32", ops: []isa.Operand{vr(old+1, 1), vr(ret+1, 1)}})
	if err != nil {
		return nil, err
	}
	back := -(len(body) + 4) / 4
	body = binary.LittleEndian.AppendUint32(body, place.GFX12.SOPP(place.OpCbranchEXECNZ, int16(back)))
	post := []host{{mnem: "s_mov_b64", ops: []isa.Operand{special(isa.RegEXECLo, 2), sr(save, 2)}}}
	if dst != nil {
		post = append(post,
			host{mnem: "v_mov_b32_e32", ops: []isa.Operand{vr(dst.Reg, 1), vr(old, 1)}},
			host{mnem: "v_mov_b32_e32", ops: []isa.Operand{vr(dst.Reg+1, 1), vr(old+1, 1)}})
	}
	tail, err := seq(post...)
	if err != nil {
		return nil, err
	}
	return append(append(pre, body...), tail...), nil
}
