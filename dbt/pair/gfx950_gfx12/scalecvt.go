package gfx950gfx12

import (
	"fmt"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
)

// The widening gfx950 scaled conversions of OCP FP8 (E4M3) and BF8 (E5M2)
// elements, v_cvt_scalef32_[pk_]<f32|f16|bf16>_<fp8|bf8>, multiply each
// element by 2^(E-127), E the exponent field of the f32 scale operand, and
// round the product once to the result type. gfx12's v_cvt_pk_f32_fp8 /
// v_cvt_pk_f32_bf8 decode the same OCP formats exactly, v_ldexp_f32 applies
// E-127 (exact: an element has at most four significant bits, so the
// product is an f32 whenever it is in range, and a subnormal product is
// exact too, the smallest being 2^-143), and the f32 is rounded to f16
// (v_cvt_f16_f32) or bf16 (round to nearest even on the bits, NaN made
// quiet) when the result asks for it. The gfx942 rule of the same
// instructions (dbt/rules scalecvt.go) decodes through gfx942's FNUZ
// conversions, so it cannot be retargeted; the FP4 forms can (retarget.go).

// scaleCvtBound is what the gfx12 scaled conversions do not promise.
const scaleCvtBound = "round-to-nearest-even with the default MODE; the f32 denormal mode is not applied (as in the simulator's gfx950 model); a NaN result may have a different payload"

// addScaleCvtRules adds its rules to m (handRules).
func addScaleCvtRules(m map[string]*rule) {
	for _, wide := range []string{"f32", "f16", "bf16"} {
		for _, f := range []string{"fp8", "bf8"} {
			m["v_cvt_scalef32_pk_"+wide+"_"+f] = &rule{name: "gfx12-cvt-scalef32-widen-fp8", fidelity: report.Approximate, bound: scaleCvtBound, emit: scaleWidenFP8}
		}
	}
	for _, f := range []string{"fp8", "bf8"} {
		m["v_cvt_scalef32_f32_"+f] = &rule{name: "gfx12-cvt-scalef32-widen-fp8", fidelity: report.Approximate, bound: scaleCvtBound, emit: scaleWidenFP8}
	}
}

// scaleWidenFP8 expands v_cvt_scalef32_[pk_]<wide>_<fp8|bf8> vdst, src,
// scale: the byte pair (word op_sel[0]) or the byte op_sel[1:0] of src is
// decoded to f32 and scaled, then written or narrowed.
func scaleWidenFP8(ctx rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	name := in.Name()
	rest := strings.TrimPrefix(name, "v_cvt_scalef32_")
	pk := strings.HasPrefix(rest, "pk_")
	parts := strings.Split(strings.TrimPrefix(rest, "pk_"), "_")
	if len(parts) != 2 {
		return nil, fmt.Errorf("%s: unexpected mnemonic", name)
	}
	wide, format := parts[0], parts[1]
	m := in.Mod
	if in.Format != isa.VOP3 || m.Clamp || m.OMod != 0 || m.NegLo != 0 || m.NegHi != 0 {
		return nil, fmt.Errorf("%s at %#x: form %s with clamp/omod/neg", name, in.PC, in.Format)
	}
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	if len(ops) != 3 {
		return nil, fmt.Errorf("%s at %#x: %d operands", name, in.PC, len(ops))
	}
	d, src, s := ops[0], ops[1], ops[2]
	for i, o := range ops[1:] {
		if o.Mods != 0 {
			return nil, fmt.Errorf("%s at %#x: source %d has abs/neg", name, in.PC, i)
		}
	}
	if d.Kind != isa.KindReg || d.Class != isa.VGPR {
		return nil, fmt.Errorf("%s at %#x: destination", name, in.PC)
	}
	// word is the source half the host decoder reads; elems the f32 of
	// the pair (0, 1) the result takes.
	var word uint8
	elems := []uint16{0, 1}
	if pk {
		if m.OpSel&^1 != 0 {
			return nil, fmt.Errorf("%s at %#x: op_sel %#x", name, in.PC, m.OpSel)
		}
		word = m.OpSel & 1
	} else {
		if m.OpSel&^3 != 0 {
			return nil, fmt.Errorf("%s at %#x: op_sel %#x", name, in.PC, m.OpSel)
		}
		word = m.OpSel >> 1 & 1
		elems = []uint16{uint16(m.OpSel & 1)}
	}
	pair, err := ctx.TempVGPRRange(2, 1)
	if err != nil {
		return nil, err
	}
	tmp, err := ctx.TempVGPRs(3)
	if err != nil {
		return nil, err
	}
	k, q0, q1 := tmp[0], tmp[1], tmp[2]
	cvt := host{mnem: "v_cvt_pk_f32_" + format + "_e64", ops: []isa.Operand{vr(pair, 2), src}}
	cvt.mod.OpSel = word
	hs := []host{cvt,
		{mnem: "v_bfe_u32", ops: []isa.Operand{vr(k, 1), s, inl(23), inl(8)}},
		{mnem: "v_add_nc_u32_e64", ops: []isa.Operand{vr(k, 1), lit(0xffffff81), vr(k, 1)}}, // E - 127
	}
	ldexp := func(dst, x uint16) host {
		return host{mnem: "v_ldexp_f32", ops: []isa.Operand{vr(dst, 1), vr(x, 1), vr(k, 1)}}
	}
	switch wide {
	case "f32":
		for i, e := range elems {
			hs = append(hs, ldexp(d.Reg+uint16(i), pair+e))
		}
	case "f16":
		hs = append(hs, ldexp(pair, pair), ldexp(pair+1, pair+1),
			host{mnem: "v_cvt_f16_f32_e64", ops: []isa.Operand{vr(q0, 1), vr(pair, 1)}},
			host{mnem: "v_cvt_f16_f32_e64", ops: []isa.Operand{vr(q1, 1), vr(pair+1, 1)}},
			// {q1[15:0], q0[15:0]}
			host{mnem: "v_perm_b32", ops: []isa.Operand{vr(d.Reg, 1), vr(q1, 1), vr(q0, 1), lit(0x05040100)}})
	case "bf16":
		sp, err := ctx.TempSGPRPair()
		if err != nil {
			return nil, err
		}
		hs = append(hs, ldexp(pair, pair), ldexp(pair+1, pair+1))
		for i, q := range []uint16{q0, q1} {
			x := vr(pair+uint16(i), 1)
			hs = append(hs,
				host{mnem: "v_cmp_u_f32_e64", ops: []isa.Operand{sr(sp, 2), x, x}},
				host{mnem: "v_bfe_u32", ops: []isa.Operand{vr(q, 1), x, inl(16), inl(1)}},
				host{mnem: "v_add3_u32", ops: []isa.Operand{vr(q, 1), x, lit(0x7fff), vr(q, 1)}},
				host{mnem: "v_or_b32_e32", ops: []isa.Operand{vr(k, 1), lit(0x400000), x}},
				host{mnem: "v_cndmask_b32_e64", ops: []isa.Operand{vr(q, 1), vr(q, 1), vr(k, 1), sr(sp, 2)}})
		}
		// {q1[31:16], q0[31:16]}
		hs = append(hs, host{mnem: "v_perm_b32", ops: []isa.Operand{vr(d.Reg, 1), vr(q1, 1), vr(q0, 1), lit(0x07060302)}})
	default:
		return nil, fmt.Errorf("%s: result type %s", name, wide)
	}
	return seq(hs...)
}
