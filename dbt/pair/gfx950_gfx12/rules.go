package gfx950gfx12

import (
	"fmt"
	"strings"
	"sync"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
)

// rule is one hand-written gfx950 -> gfx12 expansion.
type rule struct {
	name     string
	fidelity report.Fidelity
	bound    string
	emit     func(ctx rules.Context, in *isa.Inst, site pair.Site) ([]byte, error)
}

// handRules returns the expansions by guest operation. The table is built
// on the first call (the rule adders run in the order of their files, as the
// init functions they replace did); every call returns the same map.
var handRules = sync.OnceValue(func() map[string]*rule {
	m := map[string]*rule{
		"s_waitcnt":        {name: "gfx12-waitcnt", fidelity: report.Exact, emit: waitcnt},
		"s_barrier":        {name: "gfx12-barrier", fidelity: report.Exact, emit: barrier},
		"v_lshl_add_u64":   {name: "gfx12-lshl-add-u64", fidelity: report.Exact, emit: lshlAddU64},
		"v_mov_b64":        {name: "gfx12-mov-b64", fidelity: report.Exact, emit: movB64},
		"ds_cmpst_b32":     {name: "gfx12-ds-cmpstore", fidelity: report.Exact, emit: dsCmpst},
		"ds_cmpst_b64":     {name: "gfx12-ds-cmpstore", fidelity: report.Exact, emit: dsCmpst},
		"ds_cmpst_rtn_b32": {name: "gfx12-ds-cmpstore", fidelity: report.Exact, emit: dsCmpst},
		"ds_cmpst_rtn_b64": {name: "gfx12-ds-cmpstore", fidelity: report.Exact, emit: dsCmpst},
	}
	addAtomicF64Rules(m)
	addDSAddF64Rules(m)
	addGlobalLDSRules(m)
	addCmpkRules(m)
	addPkF32Rules(m)
	addAccvgprRules(m)
	addHwregModeRules(m)
	addScaleCvtRules(m)
	addScaleMFMARules(m)
	addSMFMACRules(m)
	addTimerRules(m)
	addWMMARules(m)
	addWMMA32Rules(m)
	addMFMAI8DotRules(m)
	return m
})

// addCmpkRules adds its rules to m (handRules).
func addCmpkRules(m map[string]*rule) {
	for _, op := range []string{"eq", "lg", "gt", "ge", "lt", "le"} {
		for _, t := range []string{"i32", "u32"} {
			m["s_cmpk_"+op+"_"+t] = &rule{name: "gfx12-cmpk", fidelity: report.Exact, emit: cmpk}
		}
	}
}

// gfx9 s_waitcnt simm16 fields (gfx940 class).
func waitFields(v uint32) (vm, exp, lgkm uint32) {
	return v&15 | (v>>14&3)<<4, v >> 4 & 7, v >> 8 & 15
}

// opKind classifies a guest instruction for the wait-counter split.
type opKind struct {
	vm, lgkm     bool // the gfx9 counters it increments
	load, store  bool // gfx12 loadcnt / storecnt
	ds, km, flat bool
}

func kindOf(in *isa.Inst) opKind {
	var k opKind
	w := in.Info.Wait
	k.vm = w&isa.WaitVM != 0
	k.lgkm = w&isa.WaitLGKM != 0
	switch in.Info.Mem {
	case isa.MemLDS:
		k.ds = true
	case isa.MemScalar:
		k.km = true
	case isa.MemFlat:
		k.flat = true
	}
	if !k.ds && !k.km && k.lgkm && in.Info.Mem == isa.MemNone {
		k.km = true // messages count in kmcnt
	}
	if k.vm || k.flat {
		op := in.Info.MemOp
		switch {
		case op&isa.MemAtomic != 0:
			if in.Mod.SC0 || op&isa.MemReturn != 0 {
				k.load = true // a returning atomic counts in loadcnt
			} else {
				k.store = true
			}
		case op&isa.MemStore != 0:
			k.store = true
		default:
			k.load = true
		}
	}
	return k
}

// waitcnt splits a gfx9 s_waitcnt into the gfx12 counters by counting the
// outstanding operation kinds: vmcnt(N) allows the N newest vector-memory
// operations to be outstanding, so the host waits loadcnt(L) and
// storecnt(S) with L loads and S stores among those N (each gfx12 counter
// completes in order within its type, MEM_ORDERED=1). The operations are
// read backwards in the basic block; when it has fewer than N, the older
// ones (from predecessors, kinds unknown) are waited for too, which only
// over-waits. lgkmcnt(M) becomes dscnt/kmcnt the same way; FLAT operations
// count in both gfx9 counters, so a FLAT operation in scope makes the LDS
// wait also wait for the vector-memory counters.
func waitcnt(_ rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	if len(in.Operands) != 1 || in.Operands[0].Kind != isa.KindImm {
		return nil, fmt.Errorf("s_waitcnt operand")
	}
	vm, exp, lgkm := waitFields(uint32(in.Operands[0].Imm))
	var prior []opKind
	for j := site.Index - 1; j >= 0; j-- {
		prior = append(prior, kindOf(site.Block[j]))
	}
	count := func(n uint32, sel func(opKind) bool) (int, []opKind) {
		var got []opKind
		for _, k := range prior {
			if uint32(len(got)) == n {
				break
			}
			if sel(k) {
				got = append(got, k)
			}
		}
		return len(got), got
	}
	var hs []host
	waitLoad, waitStore := -1, -1
	if vm < 63 {
		_, win := count(vm, func(k opKind) bool { return k.vm })
		l, s := 0, 0
		for _, k := range win {
			if k.load {
				l++
			}
			if k.store {
				s++
			}
		}
		waitLoad, waitStore = l, s
	}
	if lgkm < 15 {
		_, win := count(lgkm, func(k opKind) bool { return k.lgkm })
		d, km := 0, 0
		for _, k := range win {
			if k.ds || k.flat {
				d++
			}
			if k.km {
				km++
			}
		}
		if site.Flat {
			// A FLAT operation may be what the guest waits for: on gfx12
			// it completes through loadcnt/storecnt.
			waitLoad, waitStore = 0, 0
			for _, k := range win {
				if k.flat && k.load {
					waitLoad++
				}
				if k.flat && k.store {
					waitStore++
				}
			}
		}
		hs = append(hs, host{mnem: "s_wait_dscnt", ops: []isa.Operand{imm(int64(d))}},
			host{mnem: "s_wait_kmcnt", ops: []isa.Operand{imm(int64(km))}})
	}
	if waitStore >= 0 {
		hs = append([]host{{mnem: "s_wait_storecnt", ops: []isa.Operand{imm(int64(waitStore))}}}, hs...)
	}
	if waitLoad >= 0 {
		hs = append([]host{{mnem: "s_wait_loadcnt", ops: []isa.Operand{imm(int64(waitLoad))}}}, hs...)
	}
	if exp < 7 {
		hs = append(hs, host{mnem: "s_wait_expcnt", ops: []isa.Operand{imm(int64(exp))}})
	}
	if len(hs) == 0 {
		hs = append(hs, host{mnem: "s_nop", ops: []isa.Operand{imm(0)}})
	}
	return seq(hs...)
}

// barrier is the split barrier: s_barrier_signal -1; s_barrier_wait -1
// (gfx9 s_barrier waits for no memory counter either).
func barrier(rules.Context, *isa.Inst, pair.Site) ([]byte, error) {
	return seq(host{mnem: "s_barrier_signal", ops: []isa.Operand{inl(-1)}},
		host{mnem: "s_barrier_wait", ops: []isa.Operand{imm(0xffff)}})
}

// lshlAddU64 is D = (S0 << S1[2:0]) + S2 (64-bit, gfx940 semantics) as
// T = S0 << s; D = T.lo * 1 + S2 (v_mad_co_u64_u32, 64-bit sum);
// D.hi += T.hi. Exact modulo 2^64. The shift is masked to 3 bits.
func lshlAddU64(ctx rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	if len(ops) != 4 || ops[0].Kind != isa.KindReg || ops[0].Class != isa.VGPR {
		return nil, fmt.Errorf("v_lshl_add_u64 operands")
	}
	if in.Mod.Clamp || in.Mod.OMod != 0 || in.Mod.OpSel != 0 {
		return nil, fmt.Errorf("v_lshl_add_u64 with modifiers")
	}
	for _, o := range ops[1:] {
		if o.Mods != 0 {
			return nil, fmt.Errorf("v_lshl_add_u64 with source modifiers")
		}
	}
	d, a, s, b := ops[0], ops[1], ops[2], ops[3]
	t, err := ctx.TempVGPRRange(2, 1)
	if err != nil {
		return nil, err
	}
	var hs []host
	switch {
	case s.Kind == isa.KindInline && s.Imm >= 128 && s.Imm <= 192:
		s = inl(int(s.Imm-128) & 7)
	default:
		m, err := ctx.TempVGPRs(1)
		if err != nil {
			return nil, err
		}
		hs = append(hs, host{mnem: "v_and_b32_e64", ops: []isa.Operand{vr(m[0], 1), inl(7), s}})
		s = vr(m[0], 1)
	}
	hs = append(hs,
		host{mnem: "v_lshlrev_b64_e64", ops: []isa.Operand{vr(t, 2), s, a}},
		host{mnem: "v_mad_co_u64_u32", ops: []isa.Operand{vr(d.Reg, 2), special(isa.RegNull, 2), vr(t, 1), inl(1), b}},
		host{mnem: "v_add_nc_u32_e64", ops: []isa.Operand{vr(d.Reg+1, 1), vr(t+1, 1), vr(d.Reg+1, 1)}})
	return seq(hs...)
}

// movB64 is two v_mov_b32 (high half first when the destination's low
// half is the source's high half).
func movB64(_ rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	if in.Format != isa.VOP1 || len(ops) != 2 {
		return nil, fmt.Errorf("v_mov_b64 form %s", in.Format)
	}
	d, s := ops[0], ops[1]
	var lo, hi isa.Operand
	switch {
	case s.Kind == isa.KindReg && (s.Class == isa.VGPR || s.Class == isa.SGPR):
		lo, hi = s, s
		lo.Width, hi.Width = 1, 1
		hi.Reg++
	case s.Kind == isa.KindInline && s.Imm >= 128 && s.Imm <= 208:
		lo = s
		hi = inl(0)
		if s.Imm > 192 {
			hi = inl(-1)
		}
	default:
		return nil, fmt.Errorf("v_mov_b64 source %v is not a register or an integer inline constant", s.Kind)
	}
	mlo := host{mnem: "v_mov_b32_e32", ops: []isa.Operand{vr(d.Reg, 1), lo}}
	mhi := host{mnem: "v_mov_b32_e32", ops: []isa.Operand{vr(d.Reg+1, 1), hi}}
	if s.Kind == isa.KindReg && s.Class == isa.VGPR && s.Reg+1 == d.Reg {
		return seq(mhi, mlo)
	}
	return seq(mlo, mhi)
}

// dsCmpst is ds_cmpst(_rtn) -> ds_cmpstore(_rtn) with the data operands
// swapped: gfx9 data0 = compare value, data1 = new value; gfx12 data0 =
// new value, data1 = compare value (research note §3.4, [V]).
func dsCmpst(_ rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	if in.Mod.GDS {
		return nil, fmt.Errorf("gds")
	}
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	n := len(ops)
	if n < 3 {
		return nil, fmt.Errorf("ds_cmpst operands")
	}
	ops[n-2], ops[n-1] = ops[n-1], ops[n-2]
	m := map[string]string{"ds_cmpst_b32": "ds_cmpstore_b32", "ds_cmpst_b64": "ds_cmpstore_b64",
		"ds_cmpst_rtn_b32": "ds_cmpstore_rtn_b32", "ds_cmpst_rtn_b64": "ds_cmpstore_rtn_b64"}[in.Name()]
	h := host{mnem: m, ops: ops}
	h.mod.Offset = in.Mod.Offset
	h.mod.Offset1 = in.Mod.Offset1 | uint8(in.Mod.Offset>>8)
	return h.encode()
}

// cmpk is s_cmpk_<op>_<t> s, imm16 -> s_cmp_<op>_<t> s, literal (the
// immediate zero-extended for u32, sign-extended for i32, as gfx9 does).
func cmpk(_ rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	if len(ops) != 2 || ops[1].Kind != isa.KindImm {
		return nil, fmt.Errorf("s_cmpk operands")
	}
	name := in.Name()
	v := uint32(uint16(ops[1].Imm))
	if name[len(name)-3] == 'i' {
		v = uint32(int32(int16(v)))
	}
	src := lit(v)
	if v <= 64 {
		src = inl(int(v))
	}
	return host{mnem: "s_cmp_" + name[len("s_cmpk_"):], ops: []isa.Operand{ops[0], src}}.encode()
}

// addPkF32Rules adds its rules to m (handRules).
func addPkF32Rules(m map[string]*rule) {
	for _, n := range []string{"v_pk_mul_f32", "v_pk_add_f32", "v_pk_fma_f32"} {
		m[n] = &rule{name: "gfx12-pk-f32", fidelity: report.Exact, emit: pkF32}
	}
	m["v_fmac_f64"] = &rule{name: "gfx12-fmac-f64", fidelity: report.Exact, emit: fmacF64}
}

// sdwaOps returns the integer (and FP8-decode) operations whose SDWA forms
// are lowered by extracting the selected source bytes or words first. The
// set is built on the first call; every call returns the same map.
var sdwaOps = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, n := range []string{"v_add_u32", "v_sub_u32", "v_subrev_u32", "v_or_b32", "v_and_b32", "v_xor_b32", "v_mov_b32",
		"v_lshlrev_b32", "v_lshrrev_b32", "v_cvt_f32_fp8", "v_cvt_f32_bf8", "v_cvt_f32_ubyte0", "v_mul_u32_u24", "v_max_u32", "v_min_u32"} {
		m[n] = true
	}
	return m
})

// sdwa lowers an SDWA instruction with a DWORD destination: each source
// whose select is a byte or word (zero-extended) is extracted into a
// scratch VGPR with v_bfe_u32 / v_lshrrev_b32, then the operation runs on
// the extracted values in its gfx12 form.
func sdwa(ctx rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	m := in.Mod
	if m.DstSel != 6 {
		return nil, fmt.Errorf("SDWA dst_sel %d (only DWORD is lowered)", m.DstSel)
	}
	if m.Clamp || m.OMod != 0 {
		return nil, fmt.Errorf("SDWA clamp/omod")
	}
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	op, ok := hostOps()[in.Name()]
	if !ok {
		return nil, fmt.Errorf("no gfx12 counterpart")
	}
	var hs []host
	sels := []uint8{m.Src0Sel, m.Src1Sel}
	si := 0
	for i := range ops {
		o := ops[i]
		if o.Role.Defines() {
			continue
		}
		if si >= len(sels) {
			break
		}
		sel := sels[si]
		si++
		if o.Mods != 0 {
			return nil, fmt.Errorf("SDWA source modifiers (sext/neg/abs)")
		}
		if sel == 6 {
			continue
		}
		t, err := ctx.TempVGPRs(1)
		if err != nil {
			return nil, err
		}
		switch {
		case sel < 4:
			hs = append(hs, host{mnem: "v_bfe_u32", ops: []isa.Operand{vr(t[0], 1), o, inl(8 * int(sel)), inl(8)}})
		case sel == 4:
			hs = append(hs, host{mnem: "v_bfe_u32", ops: []isa.Operand{vr(t[0], 1), o, inl(0), inl(16)}})
		case sel == 5:
			hs = append(hs, host{mnem: "v_lshrrev_b32_e64", ops: []isa.Operand{vr(t[0], 1), inl(16), o}})
		default:
			return nil, fmt.Errorf("SDWA select %d", sel)
		}
		ops[i] = vr(t[0], 1)
	}
	var last error
	for _, mn := range []string{op.to + "_e64", op.to + "_e32", op.to} {
		b, err := seq(append(hs, host{mnem: mn, ops: ops})...)
		if err == nil {
			return b, nil
		}
		last = err
	}
	return nil, last
}

// pkF32 is a packed f32 operation as two f32 VOP3 operations: result half
// h takes each source's low or high register as op_sel (h=0) or op_sel_hi
// (h=1) selects it, negated by neg_lo / neg_hi. The low result goes
// through a scratch VGPR so that the high half still reads the sources.
func pkF32(ctx rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	name := in.Name()
	scalar := map[string]string{"v_pk_mul_f32": "v_mul_f32_e64", "v_pk_add_f32": "v_add_f32_e64", "v_pk_fma_f32": "v_fma_f32"}[name]
	d, srcs := ops[0], ops[1:]
	if d.Kind != isa.KindReg || d.Class != isa.VGPR {
		return nil, fmt.Errorf("%s destination", name)
	}
	m := in.Mod
	half := func(h int) ([]isa.Operand, error) {
		var out []isa.Operand
		for i, s := range srcs {
			if s.Kind != isa.KindReg || s.Mods != 0 {
				return nil, fmt.Errorf("%s source %d is not a plain register pair", name, i)
			}
			sel := m.OpSel >> i & 1
			neg := m.NegLo >> i & 1
			if h == 1 {
				sel = m.OpSelHi >> i & 1
				neg = m.NegHi >> i & 1
			}
			o := s
			o.Width = 1
			o.Reg += uint16(sel)
			if neg != 0 {
				o.Mods |= isa.ModNeg
			}
			out = append(out, o)
		}
		return out, nil
	}
	lo, err := half(0)
	if err != nil {
		return nil, err
	}
	hi, err := half(1)
	if err != nil {
		return nil, err
	}
	t, err := ctx.TempVGPRs(1)
	if err != nil {
		return nil, err
	}
	mod := isa.Modifiers{Clamp: m.Clamp}
	return seq(
		host{mnem: scalar, ops: append([]isa.Operand{vr(t[0], 1)}, lo...), mod: mod},
		host{mnem: scalar, ops: append([]isa.Operand{vr(d.Reg+1, 1)}, hi...), mod: mod},
		host{mnem: "v_mov_b32_e32", ops: []isa.Operand{vr(d.Reg, 1), vr(t[0], 1)}})
}

// fmacF64 is v_fmac_f64 d, a, b -> v_fma_f64 d, a, b, d.
func fmacF64(_ rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	if len(ops) < 3 || in.Format == isa.SDWA || in.Format == isa.DPP {
		return nil, fmt.Errorf("v_fmac_f64 form %s", in.Format)
	}
	d := ops[0]
	h := host{mnem: "v_fma_f64", ops: []isa.Operand{d, ops[1], ops[2], d}}
	h.mod.Clamp, h.mod.OMod = in.Mod.Clamp, in.Mod.OMod
	return h.encode()
}

// addAccvgprRules adds its rules to m (handRules).
func addAccvgprRules(m map[string]*rule) {
	for _, n := range []string{"v_accvgpr_write_b32", "v_accvgpr_read_b32", "v_accvgpr_mov_b32"} {
		m[n] = &rule{name: "gfx12-accvgpr", fidelity: report.Exact, emit: accvgpr}
	}
}

// accvgpr is v_accvgpr_write/read/mov as v_mov_b32: the AGPR operand names
// the VGPR above the arch ones it maps to (a*i* -> v[ACCUM_OFFSET+i]).
func accvgpr(_ rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	if len(ops) != 2 || in.Format == isa.SDWA || in.Format == isa.DPP {
		return nil, fmt.Errorf("%s form", in.Name())
	}
	for _, m := range []string{"v_mov_b32_e32", "v_mov_b32_e64"} {
		if b, err := (host{mnem: m, ops: ops}).encode(); err == nil {
			return b, nil
		}
	}
	return host{mnem: "v_mov_b32_e64", ops: ops}.encode()
}

// cmpx lowers gfx9 v_cmpx_* (which writes EXEC and VCC or its SGPR
// destination) as v_cmp_* into that destination followed by
// s_mov_b64 exec, destination: gfx12's v_cmpx writes only EXEC. Inactive
// lanes compare false in both, so EXEC ends the same.
func cmpx(_ rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	name := in.Name()
	to := "v_cmp_" + strings.TrimPrefix(name, "v_cmpx_")
	op, ok := hostOps()[to]
	if !ok {
		return nil, fmt.Errorf("%s: no gfx12 %s", name, to)
	}
	if why := unsupportedForm(in); why != "" {
		return nil, fmt.Errorf("%s: %s", name, why)
	}
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	if len(ops) < 1 || ops[0].Kind != isa.KindReg || ops[0].Width != 2 {
		return nil, fmt.Errorf("%s: destination", name)
	}
	h := host{ops: ops}
	h.mod.Clamp, h.mod.OMod, h.mod.OpSel = in.Mod.Clamp, in.Mod.OMod, in.Mod.OpSel
	suffix := strings.TrimPrefix(gfx9.Mnemonic(in), name)
	var last error
	for _, m := range candidates(op.to, suffix) {
		h.mnem = m
		b, err := h.encode()
		if err != nil {
			last = err
			continue
		}
		mov, err := host{mnem: "s_mov_b64", ops: []isa.Operand{special(isa.RegEXECLo, 2), ops[0]}}.encode()
		if err != nil {
			return nil, err
		}
		return append(b, mov...), nil
	}
	return nil, last
}

// addHwregModeRules adds its rules to m (handRules).
func addHwregModeRules(m map[string]*rule) {
	for _, n := range []string{"s_getreg_b32", "s_setreg_b32", "s_setreg_imm32_b32"} {
		m[n] = &rule{name: "gfx12-hwreg-mode", fidelity: report.Exact, emit: hwregMode}
	}
}

// hwregMode keeps s_getreg/s_setreg of HW_REG_MODE (id 1) bits [7:0]
// (FP_ROUND, FP_DENORM), which have the same id and layout on gfx12
// (research note §3.1); every other register or field is rejected (ids 3,
// 4, 15, 20-24 mean other registers on gfx12, and MODE's upper bits differ).
func hwregMode(_ rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	var hw int64 = -1
	for _, o := range ops {
		if o.Kind == isa.KindImm {
			hw = o.Imm
		}
	}
	id, offset, size := hw&63, hw>>6&31, hw>>11&31+1
	if hw < 0 || id != 1 || offset+size > 8 {
		return nil, fmt.Errorf("%s hwreg(id %d, offset %d, size %d): only HW_REG_MODE bits [7:0] (round and denorm modes) mean the same on gfx12", in.Name(), id, offset, size)
	}
	return host{mnem: in.Name(), ops: ops}.encode()
}
