package gfx950gfx12

import (
	"fmt"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/dbt/pair/gfx950_gfx12/internal/names"
)

// lower re-encodes one gfx950 instruction as its gfx12 counterpart from
// the generated mapping: same operands (AGPRs moved above the arch VGPRs),
// the modifiers that mean the same, the cache policy converted. It fails
// with the reason when the operation has no proven counterpart or a form
// the host encodes differently.
func lower(in *isa.Inst, site pair.Site) ([]byte, string, error) {
	name := in.Name()
	op, ok := hostOps()[name]
	if !ok {
		if why := names.Differs(name); why != "" {
			return nil, "", fmt.Errorf("%s has no gfx12 rule: %s", name, why)
		}
		return nil, "", fmt.Errorf("%s has no gfx12 counterpart in the ISA tables or the rename registry", name)
	}
	if why := unsupportedForm(in); why != "" {
		return nil, "", fmt.Errorf("%s: %s", name, why)
	}
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	h := host{ops: ops}
	switch in.Format {
	case isa.DPP:
		// Same control encodings and meanings; FI stays 0, which reads
		// inactive lanes as gfx9 does (bound_ctrl decides).
		h.mod.DPPCtrl, h.mod.RowMask, h.mod.BankMask, h.mod.BoundCtrl = in.Mod.DPPCtrl, in.Mod.RowMask, in.Mod.BankMask, in.Mod.BoundCtrl
	case isa.VOP3, isa.VOP3P:
		h.mod.Clamp, h.mod.OMod, h.mod.OpSel = in.Mod.Clamp, in.Mod.OMod, in.Mod.OpSel
		h.mod.OpSelHi, h.mod.NegLo, h.mod.NegHi = in.Mod.OpSelHi, in.Mod.NegLo, in.Mod.NegHi
	case isa.SMEM:
		if err := smemOperands(in, &h); err != nil {
			return nil, "", fmt.Errorf("%s: %w", name, err)
		}
	case isa.DS:
		h.mod.Offset = in.Mod.Offset
		h.mod.Offset1 = in.Mod.Offset1 | uint8(in.Mod.Offset>>8)
	case isa.GLOBAL, isa.SCRATCH, isa.FLAT:
		h.mod.Offset = in.Mod.Offset
		h.th, h.scope, h.ret = cachePolicy(in)
	}
	suffix := strings.TrimPrefix(gfx9.Mnemonic(in), name)
	cands := candidates(op.to, suffix)
	if in.Format == isa.DPP {
		cands = []string{op.to + "_dpp"} // never an encoding without the controls
	}
	if in.Format == isa.DPP && in.Mod.DPPCtrl >= 0x150 && in.Mod.DPPCtrl <= 0x15f {
		op.bound = strings.TrimPrefix(op.bound+"; "+newbcastBound, "; ")
	}
	var last error
	for _, m := range cands {
		h.mnem = m
		b, err := h.encode()
		if err != nil {
			last = err
			continue
		}
		if sixteenBitResult(name) && in.Mod.OpSel&8 == 0 {
			// gfx9 zeroes bits [31:16] of a 16-bit result written to the
			// low half; gfx12's non-true16 forms keep them.
			d := ops[0]
			if d.Kind != isa.KindReg || d.Class != isa.VGPR {
				return nil, "", fmt.Errorf("%s: 16-bit result not in a VGPR", name)
			}
			z, err := host{mnem: "v_and_b32_e32", ops: []isa.Operand{vr(d.Reg, 1), lit(0xffff), vr(d.Reg, 1)}}.encode()
			if err != nil {
				return nil, "", err
			}
			bound := highHalfBound
			if op.bound != "" {
				bound = op.bound + "; " + bound
			}
			return append(b, z...), bound, nil
		}
		return b, op.bound, nil
	}
	return nil, "", fmt.Errorf("%s -> %s: %v", name, op.to, last)
}

// highHalfBound documents the 16-bit result rule's premise.
const highHalfBound = "16-bit result: bits [31:16] zeroed as gfx9 does for low-half results (the gfx9 model and LLVM's zeroesHigh16BitsOfDest; not checked on hardware)"

// dppShared reports whether a gfx9 DPP control has the same encoding and
// meaning on gfx12: quad_perm, row_shl/shr/ror, row_mirror,
// row_half_mirror, and gfx90a+ row_newbcast:n (0x150+n: every lane reads
// lane n of its row), which is gfx12's row_share:n (same encoding and
// meaning; newbcastBound).
func dppShared(c uint16) bool {
	switch {
	case c <= 0xff, c >= 0x101 && c <= 0x10f, c >= 0x111 && c <= 0x11f, c >= 0x121 && c <= 0x12f,
		c == 0x140, c == 0x141, c >= 0x150 && c <= 0x15f:
		return true
	}
	return false
}

// newbcastBound is the premise of row_newbcast -> row_share: the gfx9
// simulator does not model row_newbcast, so its meaning comes from the
// gfx90a ISA (lane n of each row to the whole row), checked against a
// CPU reference on the simulated gfx1201 (TestGFX12RowNewbcast).
const newbcastBound = "row_newbcast:n taken as gfx12 row_share:n (gfx90a ISA meaning; no gfx9 simulator model to compare the guest with)"

// candidates lists the gfx12 encoding-specific mnemonics to try: the
// guest's form first, then the VOP3 promotion.
func candidates(to, suffix string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []string{to + suffix, to, to + "_e64", to + "_e32"} {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

// unsupportedForm names a guest form that has no gfx12 re-encoding.
func unsupportedForm(in *isa.Inst) string {
	switch {
	case in.Format == isa.SDWA:
		return "SDWA has no gfx12 encoding and no lowering rule"
	case in.Format == isa.DPP && !dppShared(in.Mod.DPPCtrl):
		return fmt.Sprintf("DPP control %#x (wave shifts/rotates) has no gfx12 form and no lowering rule", in.Mod.DPPCtrl)
	case in.Mod.GDS:
		return "GDS is not on gfx12"
	case in.Mod.LDS && in.Format != isa.SCRATCH:
		return "load-to-LDS is not on gfx12"
	case in.Mod.TFE:
		return "tfe is not supported"
	case in.Mod.NV:
		return "nv is not on gfx12"
	}
	return ""
}

// sixteenBitResult reports VALU operations whose destination is a 16-bit
// value (packed v_pk_* results and v_pack_b32_f16's are full dwords).
func sixteenBitResult(name string) bool {
	if !strings.HasPrefix(name, "v_") || strings.HasPrefix(name, "v_pk_") || strings.HasPrefix(name, "v_pack_") || strings.HasPrefix(name, "v_cmp") {
		return false
	}
	if strings.HasPrefix(name, "v_cvt_") {
		parts := strings.Split(name, "_")
		if len(parts) >= 3 {
			d := parts[2]
			return d == "f16" || d == "i16" || d == "u16" || d == "bf16"
		}
	}
	for _, s := range []string{"_f16", "_i16", "_u16", "_b16"} {
		if strings.HasSuffix(name, s) {
			return !strings.HasPrefix(name, "v_cvt_")
		}
	}
	return false
}

// hostOperands copies the guest operands, moving AGPRs to the VGPRs above
// the arch ones the kernel names (a*i* -> v[Site.AGPRBase+i]; ACCUM_OFFSET
// when the kernel indexes VGPRs) and rejecting registers gfx12
// does not have or that mean something else there.
func hostOperands(in *isa.Inst, site pair.Site) ([]isa.Operand, error) {
	out := make([]isa.Operand, len(in.Operands))
	for i, o := range in.Operands {
		if o.Kind == isa.KindLiteral {
			o.Imm = int64(in.Literal)
		}
		if o.Kind == isa.KindReg {
			switch o.Class {
			case isa.AGPR:
				if site.Kernel == nil {
					return nil, fmt.Errorf("AGPR operand without a kernel")
				}
				acc := site.AGPRBase
				if acc+int(o.Reg)+int(o.Width) > 256 {
					return nil, fmt.Errorf("a%d maps to v%d, beyond the 256 VGPRs of a gfx12 wave64", o.Reg, acc+int(o.Reg))
				}
				o.Class, o.Reg = isa.VGPR, uint16(acc)+o.Reg
			case isa.TTMP:
				return nil, fmt.Errorf("trap temporaries hold other values on gfx12 (workgroup ids)")
			case isa.Special:
				switch isa.SpecialReg(o.Reg) {
				case isa.RegVCCLo, isa.RegVCCHi, isa.RegEXECLo, isa.RegEXECHi, isa.RegM0, isa.RegSCC,
					isa.RegSharedBase, isa.RegSharedLimit, isa.RegPrivateBase, isa.RegPrivateLimit:
				default:
					return nil, fmt.Errorf("special register operand %d is not a gfx12 register (flat_scratch, xnack_mask, src_vccz, ...)", o.Reg)
				}
			}
		}
		if o.Kind == isa.KindInline && o.Imm > 208 && o.Imm < 240 {
			return nil, fmt.Errorf("operand code %d", o.Imm)
		}
		out[i] = o
	}
	return out, nil
}

// smemOperands adapts a scalar load: the immediate offset becomes the
// 24-bit offset modifier, an SGPR offset the soffset operand, glc the
// device scope.
func smemOperands(in *isa.Inst, h *host) error {
	// Guest: sdata, sbase, then soffset and/or imm.
	var soff *isa.Operand
	var offv int64
	for i := 2; i < len(h.ops); i++ {
		o := h.ops[i]
		switch {
		case o.Kind == isa.KindImm:
			offv = o.Imm
		case o.Kind == isa.KindReg:
			c := o
			soff = &c
		default:
			return fmt.Errorf("scalar offset operand %d", i)
		}
	}
	if offv >= 1<<20 {
		offv -= 1 << 21 // the gfx9 21-bit offset is signed
	}
	h.ops = h.ops[:2]
	if soff != nil {
		h.ops = append(h.ops, *soff)
	} else {
		h.ops = append(h.ops, imm(offv))
	}
	h.mod.Offset = int32(offv)
	if in.Mod.SC0 {
		h.scope = scopeDev
	}
	return nil
}

// gfx12 cache scopes and temporal hints.
const (
	scopeCU  = 0
	scopeDev = 2
	scopeSys = 3
	thNT     = 1
	thAtomNT = 2
)

// cachePolicy converts gfx940-class sc0/sc1/nt into gfx12 th/scope (CU
// mode; research note §3.3): loads and stores sc0 = workgroup (CU scope),
// sc1 = agent (DEV), both = system; nt = non-temporal. Atomics: sc0 =
// return the old value (TH_ATOMIC_RETURN), sc1 = system scope, otherwise
// device scope; nt = TH_ATOMIC_NT.
func cachePolicy(in *isa.Inst) (th, scope uint8, ret bool) {
	m := in.Mod
	if in.Info.MemOp&isa.MemAtomic != 0 {
		scope = scopeDev
		if m.SC1 {
			scope = scopeSys
		}
		if m.NT {
			th |= thAtomNT
		}
		return th, scope, m.SC0
	}
	switch {
	case m.SC0 && m.SC1:
		scope = scopeSys
	case m.SC1:
		scope = scopeDev
	default:
		scope = scopeCU
	}
	if m.NT {
		th = thNT
	}
	return th, scope, false
}
