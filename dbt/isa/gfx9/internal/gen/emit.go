package main

import (
	"bytes"
	"fmt"
	"go/format"
	"sort"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9/internal/enc"
)

var flagBits = map[string]string{
	"neg0": "fNeg0", "neg1": "fNeg1", "neg2": "fNeg2",
	"abs0": "fAbs0", "abs1": "fAbs1", "abs2": "fAbs2",
	"clamp": "fClamp", "omod": "fOMod", "opselhi0": "fOpSelHi0",
	"neg_lo": "fNegLo", "neg_hi": "fNegHi", "cbsz": "fCBSZ", "abid": "fABID", "blgp": "fBLGP",
	"sext0": "fSext0", "sext1": "fSext1", "sext2": "fSext2", "maineg": "fMAINeg",
	"vop3dpp": "fVOP3DPP", "bitop3": "fBitOp3", "dst_sel": "fDstSel", "dst_unused": "fDstUnused", "src0_sel": "fSrc0Sel", "src1_sel": "fSrc1Sel",
}

// facts computes the static facts of an operation from its name and
// encoding.
func facts(e *entry) []string {
	n := e.name
	var reads, writes []string
	var out []string
	pre := func(p ...string) bool {
		for _, x := range p {
			if strings.HasPrefix(n, x) {
				return true
			}
		}
		return false
	}
	salu := e.kind <= enc.SOPP
	valu := e.kind >= enc.VOP1 && e.kind <= enc.DPPC || e.kind == enc.VOP3PX2
	switch {
	case e.kind == enc.SOPC:
		writes = append(writes, "isa.ImpSCC")
		if pre("s_set_gpr_idx_on") {
			writes = append(writes[:0], "isa.ImpM0")
		}
		if pre("s_setvskip") {
			writes = writes[:0]
		}
	case e.kind == enc.SOP2 || e.kind == enc.SOP1 || e.kind == enc.SOPK:
		if pre("s_add_", "s_sub_", "s_addc_", "s_subb_", "s_min_", "s_max_", "s_and_", "s_or_", "s_xor_", "s_andn2_", "s_orn2_", "s_nand_", "s_nor_", "s_xnor_",
			"s_lshl_", "s_lshr_", "s_ashr_", "s_bfe_", "s_absdiff_", "s_lshl1_add", "s_lshl2_add", "s_lshl3_add", "s_lshl4_add", "s_not_", "s_wqm_", "s_bcnt0_", "s_bcnt1_",
			"s_quadmask_", "s_abs_", "s_cmpk_", "s_addk_", "s_andn1_", "s_orn1_", "s_bitcmp") {
			writes = append(writes, "isa.ImpSCC")
		}
		if pre("s_addc_", "s_subb_", "s_cselect_", "s_cmov_", "s_cmovk_") {
			reads = append(reads, "isa.ImpSCC")
		}
		if strings.Contains(n, "saveexec") || pre("s_andn1_wrexec", "s_andn2_wrexec") {
			reads = append(reads, "isa.ImpEXEC")
			writes = append(writes, "isa.ImpEXEC")
		}
		if pre("s_movrels", "s_movreld") {
			reads = append(reads, "isa.ImpM0")
		}
	}
	if e.kind == enc.SOPP {
		switch {
		case pre("s_cbranch_scc"):
			reads = append(reads, "isa.ImpSCC")
		case pre("s_cbranch_vcc"):
			reads = append(reads, "isa.ImpVCC")
		case pre("s_cbranch_exec"):
			reads = append(reads, "isa.ImpEXEC")
		case pre("s_sendmsg"):
			reads = append(reads, "isa.ImpM0")
		case pre("s_set_gpr_idx_mode"):
			writes = append(writes, "isa.ImpM0")
		}
	}
	if valu {
		reads = append(reads, "isa.ImpEXEC")
		// VOPC e32 writes VCC, which LLVM prints as an operand.
		if pre("v_cmpx_") {
			writes = append(writes, "isa.ImpEXEC")
		}
		if pre("v_div_fmas_") {
			reads = append(reads, "isa.ImpVCC")
		}
		if pre("v_movrel", "v_interp_") {
			reads = append(reads, "isa.ImpM0")
		}
		out = append(out, "isa.FlagVALU")
		if pre("v_mfma", "v_smfmac") {
			out = append(out, "isa.FlagMFMA")
		}
		for _, o := range e.ops {
			if o.role != "isa.Use" && o.class == 's' {
				out = append(out, "isa.FlagWritesSGPRFromVALU")
				break
			}
		}
	}
	if salu {
		out = append(out, "isa.FlagSALU")
	}
	mem, memop, wait, branch := "", []string{}, []string{}, ""
	switch e.kind {
	case enc.SMEM:
		mem = "isa.MemScalar"
		wait = append(wait, "isa.WaitLGKM")
	case enc.DS:
		mem = "isa.MemLDS"
		if strings.Contains(n, "gws") || pre("ds_gws", "ds_ordered") {
			mem = "isa.MemGDS"
			reads = append(reads, "isa.ImpM0")
		}
		if strings.Contains(n, "addtid") {
			reads = append(reads, "isa.ImpM0")
		}
		wait = append(wait, "isa.WaitLGKM")
		if mem == "isa.MemLDS" && !pre("ds_nop", "ds_swizzle", "ds_permute", "ds_bpermute") {
			out = append(out, "isa.FlagLDS")
		}
	case enc.FLAT:
		switch e.aux & 3 {
		case 0:
			mem = "isa.MemFlat"
			wait = append(wait, "isa.WaitVM", "isa.WaitLGKM")
		case 1:
			mem = "isa.MemScratch"
			wait = append(wait, "isa.WaitVM")
		default:
			mem = "isa.MemGlobal"
			wait = append(wait, "isa.WaitVM")
		}
		if strings.Contains(n, "_lds_") {
			out = append(out, "isa.FlagLDS")
			reads = append(reads, "isa.ImpM0")
		}
		reads = append(reads, "isa.ImpEXEC")
	case enc.MUBUF, enc.MTBUF:
		mem = "isa.MemBuffer"
		wait = append(wait, "isa.WaitVM")
		if e.aux&2 != 0 {
			out = append(out, "isa.FlagLDS")
			reads = append(reads, "isa.ImpM0")
		}
		reads = append(reads, "isa.ImpEXEC")
	}
	if mem != "" && !pre("s_dcache", "s_memtime", "s_memrealtime", "buffer_wbl2", "buffer_inv", "s_icache", "ds_nop", "buffer_wbinvl1") {
		switch {
		case strings.Contains(n, "atomic") || pre("ds_add", "ds_sub", "ds_rsub", "ds_inc", "ds_dec", "ds_min", "ds_max", "ds_and", "ds_or", "ds_xor", "ds_mskor", "ds_cmpst", "ds_wrxchg", "ds_wrap", "ds_condxchg", "ds_pk_add"):
			memop = append(memop, "isa.MemAtomic")
			if strings.Contains(n, "_rtn") || (e.kind == enc.FLAT && e.aux&4 != 0) || (e.kind == enc.MUBUF && e.aux&1 != 0) {
				memop = append(memop, "isa.MemReturn")
			}
		case strings.Contains(n, "load") || strings.Contains(n, "read") || pre("ds_swizzle", "ds_permute", "ds_bpermute", "ds_consume", "ds_append"):
			memop = append(memop, "isa.MemLoad")
		case strings.Contains(n, "store") || strings.Contains(n, "write"):
			memop = append(memop, "isa.MemStore")
		}
	}
	if e.kind == enc.SOPP && pre("s_sendmsg", "s_ttracedata") {
		wait = append(wait, "isa.WaitLGKM")
		out = append(out, "isa.FlagMessage")
	}
	switch {
	case n == "s_branch":
		branch = "isa.BranchJump"
	case pre("s_cbranch_join"):
		branch = "isa.BranchIndirect"
	case pre("s_cbranch_"):
		branch = "isa.BranchCond"
	case n == "s_setpc_b64":
		branch = "isa.BranchIndirect"
	case n == "s_swappc_b64" || n == "s_call_b64":
		branch = "isa.BranchCall"
	case pre("s_endpgm"):
		branch = "isa.BranchEnd"
	case n == "s_trap" || n == "s_rfe_b64" || n == "s_rfe_restore_b64":
		branch = "isa.BranchTrap"
	}
	switch {
	case n == "s_barrier":
		out = append(out, "isa.FlagBarrier")
	case pre("s_waitcnt"):
		out = append(out, "isa.FlagWaitcnt")
	case n == "s_nop" || n == "v_nop":
		out = append(out, "isa.FlagNop")
	}
	if (strings.Contains(n, "fp8") || strings.Contains(n, "bf8")) && e.targets == "isa.GFX9" {
		out = append(out, "isa.FlagNumericsDiffer")
	}
	var f []string
	f = append(f, fmt.Sprintf("Name: %q", n), "Targets: "+e.targets)
	if len(reads) > 0 {
		f = append(f, "ImplicitReads: "+strings.Join(uniq(reads), "|"))
	}
	if len(writes) > 0 {
		f = append(f, "ImplicitWrites: "+strings.Join(uniq(writes), "|"))
	}
	if branch != "" {
		f = append(f, "Branch: "+branch)
	}
	if mem != "" {
		f = append(f, "Mem: "+mem)
	}
	if len(memop) > 0 {
		f = append(f, "MemOp: "+strings.Join(memop, "|"))
	}
	if len(wait) > 0 {
		f = append(f, "Wait: "+strings.Join(uniq(wait), "|"))
	}
	if len(out) > 0 {
		f = append(f, "Flags: "+strings.Join(uniq(out), "|"))
	}
	return f
}

func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// emit writes the Go table source.
func emit(entries map[string]*entry, order []string, hw map[int]string) []byte {
	var b bytes.Buffer
	fmt.Fprintln(&b, "// Code generated by dbt/isa/gfx9/internal/gen from llvm-mc-19 probes and the gfx950 MC test data. DO NOT EDIT.")
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "package gfx9")
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, `import (
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9/internal/enc"
)`)
	// Op infos, one per (name, facts) combination.
	infoIdx := map[string]int{}
	var infos []string
	entInfo := map[string]int{}
	for _, k := range order {
		e := entries[k]
		f := "{" + strings.Join(facts(e), ", ") + "}"
		i, ok := infoIdx[f]
		if !ok {
			i = len(infos)
			infoIdx[f] = i
			infos = append(infos, f)
		}
		entInfo[k] = i
	}
	fmt.Fprintln(&b, "\n// opInfos holds the facts of every operation.")
	fmt.Fprintln(&b, "var opInfos = [...]isa.OpInfo{")
	for _, f := range infos {
		fmt.Fprintf(&b, "\t%s,\n", f)
	}
	fmt.Fprintln(&b, "}")
	fmt.Fprintln(&b, "\n// entries holds one row per (encoding, opcode, sub-key).")
	fmt.Fprintln(&b, "var entries = [...]entry{")
	for _, k := range order {
		e := entries[k]
		var fl []string
		for _, x := range e.flags {
			if c, ok := flagBits[x]; ok {
				fl = append(fl, c)
			}
		}
		if e.kind >= enc.SDWA1 && e.kind <= enc.SDWAC {
			for _, key := range []string{"dst_sel", "dst_unused", "src0_sel", "src1_sel"} {
				if strings.Contains(e.mods, key+":") {
					fl = append(fl, flagBits[key])
				}
			}
		}
		sort.Strings(fl)
		fl = uniq(fl)
		flags := "0"
		if len(fl) > 0 {
			flags = strings.Join(fl, "|")
		}
		var ops []string
		for _, o := range e.ops {
			s := fmt.Sprintf("{field: enc.F%s, width: %d, class: '%c', role: %s", fieldGoName(o.field), o.width, o.class, o.role)
			if o.typ != 0 {
				s += fmt.Sprintf(", typ: '%c'", o.typ)
			}
			if o.lit != 0 {
				s += fmt.Sprintf(", lit: '%c'", o.lit)
			}
			if a := canonAcc(o.acc); a != "" {
				s += fmt.Sprintf(", acc: %q", a)
			}
			if o.text != "" {
				s += fmt.Sprintf(", text: %q", o.text)
			}
			ops = append(ops, s+"}")
		}
		fmt.Fprintf(&b, "\t{kind: enc.%s, op: %d, aux: %d, mnem: %q, info: %d, flags: %s, opselN: %d, ops: []opnd{%s}},\n",
			e.kind, e.op, e.aux, e.mnem, entInfo[k], flags, e.opselN, strings.Join(ops, ", "))
	}
	fmt.Fprintln(&b, "}")
	fmt.Fprintln(&b, "\n// hwregNames are the symbolic hardware register ids.")
	fmt.Fprintln(&b, "var hwregNames = map[uint32]string{")
	var ids []int
	for id := range hw {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		fmt.Fprintf(&b, "\t%d: %q,\n", id, hw[id])
	}
	fmt.Fprintln(&b, "}")
	src, err := format.Source(b.Bytes())
	if err != nil {
		fail(fmt.Errorf("format: %w", err))
	}
	return src
}

func fieldGoName(f enc.FieldID) string {
	names := map[enc.FieldID]string{
		enc.FSDst: "SDst", enc.FSSrc0: "SSrc0", enc.FSSrc1: "SSrc1", enc.FSImm16: "SImm16", enc.FSData: "SData",
		enc.FSBase: "SBase", enc.FSOffset: "SOffset", enc.FSMOff: "SMOff", enc.FVDst: "VDst", enc.FSrc0: "Src0",
		enc.FSrc1: "Src1", enc.FSrc2: "Src2", enc.FVSrc1: "VSrc1", enc.FSDstV: "SDstV", enc.FAddr: "Addr",
		enc.FData0: "Data0", enc.FData1: "Data1", enc.FSAddr: "SAddr", enc.FVAddr: "VAddr", enc.FVData: "VData",
		enc.FSRsrc: "SRsrc", enc.FLiteral: "Literal", enc.FImplicit: "Implicit", enc.FScale0: "Scale0", enc.FScale1: "Scale1",
	}
	return names[f]
}

// canonAcc sorts the accepted-kind letters; "" means not probed.
func canonAcc(a string) string {
	if a == "" {
		return ""
	}
	var out []byte
	for _, c := range "svil" {
		if strings.ContainsRune(a, c) {
			out = append(out, byte(c))
		}
	}
	if len(out) == 0 {
		return "-"
	}
	return string(out)
}
