package main

import (
	"bytes"
	"fmt"
	"go/format"
	"sort"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12/internal/enc"
)

var fieldNames = map[enc.FieldID]string{}

func init() {
	names := []string{"FNone", "FSDst", "FSSrc0", "FSSrc1", "FSimm16", "FSMBase", "FSMData", "FSMScope", "FSMTH", "FSMOff", "FSMSOff",
		"FVDst", "FSrc0", "FVSrc1", "F3VDst", "F3SDst", "F3Abs", "F3OpSel", "F3Clamp", "F3Src0", "F3Src1", "F3Src2", "F3OMod", "F3Neg",
		"FPNegHi", "FPOpSel", "FPOpSelH", "FPOpSelL", "FIWait", "FDPPSrc0", "FDPPCtrl", "FDPPFI", "FDPPBC", "FDPPNeg0", "FDPPAbs0",
		"FDPPNeg1", "FDPPAbs1", "FDPPBank", "FDPPRow", "FDPP8Sel", "FDSrc0X", "FDVSrc1X", "FDSrc0Y", "FDVSrc1Y", "FDVDstY", "FDVDstX",
		"FDSOff0", "FDSOff1", "FDSAddr", "FDSData0", "FDSData1", "FDSVDst", "FFSAddr", "FFVDst", "FFSVE", "FFScope", "FFTH", "FFData",
		"FFVAddr", "FFOff", "FBSOff", "FBVData", "FBRsrc", "FBFormat", "FBOffen", "FBIdxen", "FBVAddr", "FBOff", "FBTFE"}
	for i, n := range names {
		fieldNames[enc.FieldID(i)] = "enc." + n
	}
	fieldNames[fLit] = "fLit"
}

var kindGo = [enc.NumKinds]string{"enc.Invalid", "enc.SOP1", "enc.SOP2", "enc.SOPK", "enc.SOPC", "enc.SOPP", "enc.SMEM", "enc.VOP1", "enc.VOP2", "enc.VOPC", "enc.VOP3", "enc.VOP3P", "enc.VOPD", "enc.VINTERP", "enc.DS", "enc.FLAT", "enc.GLOBAL", "enc.SCRATCH", "enc.VBUFFER", "enc.VIMAGE", "enc.VSAMPLE", "enc.EXP"}

// canonical strips the encoding suffix of a mnemonic.
func canonical(m string) string {
	for _, s := range []string{"_e64_dpp", "_e32", "_e64", "_dpp"} {
		if strings.HasSuffix(m, s) {
			return strings.TrimSuffix(m, s)
		}
	}
	return m
}

// info derives the static facts of an operation from its mnemonic and
// encoding.
func info(e *gent, name string) string {
	var f []string
	var reads, writes []string
	add := func(l *[]string, s string) {
		for _, x := range *l {
			if x == s {
				return
			}
		}
		*l = append(*l, s)
	}
	has := func(s ...string) bool {
		for _, x := range s {
			if strings.Contains(name, x) {
				return true
			}
		}
		return false
	}
	pre := func(s ...string) bool {
		for _, x := range s {
			if strings.HasPrefix(name, x) {
				return true
			}
		}
		return false
	}
	tgt := "isa.GFX1200"
	if e.t1201 {
		tgt = "isa.GFX1200 | isa.GFX1201"
	}
	f = append(f, "Targets: "+tgt)
	var flags []string
	branch, mem, memop, wait := "", "", []string{}, []string{}
	switch e.kind {
	case enc.SOP1, enc.SOP2, enc.SOPK, enc.SOPC, enc.SOPP:
		flags = append(flags, "isa.FlagSALU")
		if e.kind == enc.SOPC || pre("s_cmp", "s_bitcmp") {
			add(&writes, "isa.ImpSCC")
		}
		if pre("s_add_", "s_sub_", "s_and_", "s_or_", "s_xor_", "s_nand_", "s_nor_", "s_xnor_", "s_not_", "s_lshl", "s_lshr", "s_ashr", "s_bfe", "s_min_", "s_max_", "s_abs", "s_absdiff", "s_bcnt", "s_quadmask", "s_wqm", "s_and_not", "s_or_not", "s_addk", "s_add_co", "s_sub_co", "s_bitcmp", "s_cselect") && !pre("s_cselect") {
			add(&writes, "isa.ImpSCC")
		}
		if pre("s_cselect", "s_cmov", "s_add_co_ci", "s_sub_co_ci", "s_cbranch_scc") {
			add(&reads, "isa.ImpSCC")
		}
		if pre("s_add_co_ci", "s_sub_co_ci") {
			add(&writes, "isa.ImpSCC")
		}
		if has("saveexec", "wrexec") {
			add(&reads, "isa.ImpEXEC")
			add(&writes, "isa.ImpEXEC")
			add(&writes, "isa.ImpSCC")
		}
		if pre("s_cbranch_vcc") {
			add(&reads, "isa.ImpVCC")
		}
		if pre("s_cbranch_exec") {
			add(&reads, "isa.ImpEXEC")
		}
		if pre("s_movrel", "s_sendmsg") {
			add(&reads, "isa.ImpM0")
		}
		switch {
		case name == "s_branch":
			branch = "isa.BranchJump"
		case pre("s_cbranch_"):
			branch = "isa.BranchCond"
		case name == "s_setpc_b64":
			branch = "isa.BranchIndirect"
		case name == "s_swappc_b64" || name == "s_call_b64":
			branch = "isa.BranchCall"
		case pre("s_endpgm"):
			branch = "isa.BranchEnd"
		case name == "s_trap" || name == "s_rfe_b64":
			branch = "isa.BranchTrap"
		}
		if pre("s_barrier") {
			flags = append(flags, "isa.FlagBarrier")
		}
		if pre("s_wait_") || name == "s_waitcnt" {
			flags = append(flags, "isa.FlagWaitcnt")
		}
		if name == "s_nop" {
			flags = append(flags, "isa.FlagNop")
		}
		if pre("s_sendmsg") {
			flags = append(flags, "isa.FlagMessage")
			wait = append(wait, "isa.WaitKM")
		}
	case enc.SMEM:
		mem = "isa.MemScalar"
		if pre("s_load", "s_buffer_load") {
			memop = append(memop, "isa.MemLoad")
		}
		wait = append(wait, "isa.WaitKM")
	case enc.DS:
		flags = append(flags, "isa.FlagLDS")
		mem = "isa.MemLDS"
		wait = append(wait, "isa.WaitDS")
	case enc.FLAT, enc.GLOBAL, enc.SCRATCH, enc.VBUFFER:
		mem = map[enc.Kind]string{enc.FLAT: "isa.MemFlat", enc.GLOBAL: "isa.MemGlobal", enc.SCRATCH: "isa.MemScratch", enc.VBUFFER: "isa.MemBuffer"}[e.kind]
		if e.kind == enc.FLAT {
			wait = append(wait, "isa.WaitDS")
		}
	default:
		flags = append(flags, "isa.FlagVALU")
		add(&reads, "isa.ImpEXEC")
		if pre("v_cmpx_") {
			add(&writes, "isa.ImpEXEC")
		} else if pre("v_cmp_") {
			add(&writes, "isa.ImpVCC") // e32 form; e64 names its destination
		}
		if pre("v_cndmask_b32", "v_add_co_ci_", "v_sub_co_ci_", "v_subrev_co_ci_", "v_dual_cndmask") {
			add(&reads, "isa.ImpVCC") // e32 form
		}
		if pre("v_add_co_ci_", "v_sub_co_ci_", "v_subrev_co_ci_") {
			add(&writes, "isa.ImpVCC")
		}
		if has("wmma") {
			flags = append(flags, "isa.FlagWMMA")
		}
		if pre("v_nop") {
			flags = append(flags, "isa.FlagNop")
		}
		if pre("v_movrel", "v_swaprel") {
			add(&reads, "isa.ImpM0")
		}
		for _, o := range e.ops {
			if o.class == 'S' || o.field == enc.F3SDst || o.class == 'n' && strings.HasPrefix(o.n32, "vcc") && o.role != "isa.Use" {
				flags = append(flags, "isa.FlagWritesSGPRFromVALU")
				break
			}
		}
	}
	if mem != "" && e.kind != enc.SMEM && e.kind != enc.DS {
		switch {
		case has("atomic"):
			memop = append(memop, "isa.MemAtomic")
			wait = append(wait, "isa.WaitStore", "isa.WaitLoad")
		case has("store"):
			memop = append(memop, "isa.MemStore")
			wait = append(wait, "isa.WaitStore")
		case has("load"):
			memop = append(memop, "isa.MemLoad")
			wait = append(wait, "isa.WaitLoad")
		}
	}
	if e.kind == enc.DS {
		switch {
		case has("store", "write"):
			memop = append(memop, "isa.MemStore")
		case has("load", "read", "bpermute", "permute", "swizzle"):
			memop = append(memop, "isa.MemLoad")
		case pre("ds_"):
			memop = append(memop, "isa.MemAtomic")
		}
	}
	if len(reads) > 0 {
		f = append(f, "ImplicitReads: "+strings.Join(reads, " | "))
	}
	if len(writes) > 0 {
		f = append(f, "ImplicitWrites: "+strings.Join(writes, " | "))
	}
	if branch != "" {
		f = append(f, "Branch: "+branch)
	}
	if mem != "" {
		f = append(f, "Mem: "+mem)
	}
	if len(memop) > 0 {
		f = append(f, "MemOp: "+strings.Join(memop, " | "))
	}
	if len(wait) > 0 {
		f = append(f, "Wait: "+strings.Join(wait, " | "))
	}
	if len(flags) > 0 {
		f = append(f, "Flags: "+strings.Join(flags, " | "))
	}
	return fmt.Sprintf("{Name: %q, %s}", name, strings.Join(f, ", "))
}

func emit(entries map[string]*gent, order []string, n *names) []byte {
	var b bytes.Buffer
	b.WriteString("// Code generated by dbt/isa/gfx12/internal/gen from llvm-mc-19 probes (gfx1200, gfx1201; wave32 and wave64). DO NOT EDIT.\n\npackage gfx12\n\n")
	b.WriteString("import (\n\t\"sync\"\n\n\t\"github.com/rocjitsu/rocjitsu/dbt/isa\"\n\t\"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12/internal/enc\"\n)\n\n")
	// Operation facts.
	infoIdx := map[string]int{}
	var infos []string
	for _, k := range order {
		e := entries[k]
		for _, name := range []string{canonical(e.mnem)} {
			if _, ok := infoIdx[name]; !ok {
				infoIdx[name] = len(infos)
				infos = append(infos, info(e, name))
			}
		}
	}
	b.WriteString("// opInfos holds the facts of every operation.\nvar opInfos = [...]isa.OpInfo{\n")
	for _, s := range infos {
		fmt.Fprintf(&b, "\t%s,\n", s)
	}
	b.WriteString("}\n\n")
	b.WriteString("// entries is the encoding table: one row per (encoding, opcode, variant).\nvar entries = [...]entry{\n")
	for _, k := range order {
		e := entries[k]
		ifmt := ""
		switch {
		case strings.HasPrefix(e.mnem, "s_sendmsg"):
			ifmt = "sendmsg"
		case e.mnem == "s_wait_alu" || e.mnem == "s_waitcnt_depctr":
			ifmt = "depctr"
		case e.mnem == "s_version":
			ifmt = "version"
		case e.mnem == "s_endpgm":
			ifmt = "endpgm"
		}
		var flags []string
		if e.clamp {
			flags = append(flags, "eClamp")
		}
		if e.omod {
			flags = append(flags, "eOMod")
		}
		if e.wave32 {
			flags = append(flags, "eWave32")
		}
		if e.w64 {
			flags = append(flags, "eWave64")
		}
		if e.hasLit {
			flags = append(flags, "eLit")
		}
		if len(flags) == 0 {
			flags = []string{"0"}
		}
		infoName := canonical(e.mnem)
		fmt.Fprintf(&b, "\t{kind: %s, op: %d, aux: %d, mnem: %q, ", kindGo[e.kind], e.op, e.aux, e.mnem)
		if e.mnemY != "" {
			fmt.Fprintf(&b, "mnemY: %q, nx: %d, infoY: %d, ", e.mnemY, e.nx, infoIdxOf(infoIdx, &infos, e, canonical(e.mnemY)))
		}
		fmt.Fprintf(&b, "info: %d, flags: %s", infoIdx[infoName], strings.Join(flags, "|"))
		if e.opselN > 0 {
			fmt.Fprintf(&b, ", opselN: %d", e.opselN)
			if e.kind != enc.VOP3P {
				fmt.Fprintf(&b, ", opselMask: %d, opselIdx: [4]uint8{%d, %d, %d, %d}", e.opselMask, e.opselIdx[0], e.opselIdx[1], e.opselIdx[2], e.opselIdx[3])
			}
		}
		if e.opselHiN > 0 {
			fmt.Fprintf(&b, ", opselHiN: %d, opselHiDef: %d", e.opselHiN, e.opselHiDef)
		}
		if e.strict != [4]uint32{} {
			fmt.Fprintf(&b, ", strict: [4]uint32{%#x, %#x, %#x, %#x}", e.strict[0], e.strict[1], e.strict[2], e.strict[3])
		}
		if e.byteSel != [4]int{} {
			fmt.Fprintf(&b, ", byteSel: [4]uint8{%d, %d, %d, %d}", e.byteSel[0], e.byteSel[1], e.byteSel[2], e.byteSel[3])
		}
		if e.negLoN > 0 {
			fmt.Fprintf(&b, ", negLoN: %d", e.negLoN)
		}
		if e.negHiN > 0 {
			fmt.Fprintf(&b, ", negHiN: %d", e.negHiN)
		}
		b.WriteString(", ops: []opnd{")
		for i, o := range e.ops {
			if i > 0 {
				b.WriteString(", ")
			}
			f := ifmt
			if f == "" || o.class != 'i' || o.field != enc.FSimm16 && o.field != enc.FSSrc0 {
				f = o.ifmt
			}
			mods := 0
			if o.neg {
				mods |= 1
			}
			if o.abs {
				mods |= 2
			}
			if o.sext {
				mods |= 4
			}
			if o.t16 {
				mods |= 8
			}
			allowed := o.allowed
			if o.class == 'c' || o.class == 'v' {
				allowed |= int(enc.Category(uint32(fieldVal(e.words, len(e.words), o.field)), o.class))
				if e.hasLit && o.class == 'c' {
					allowed |= enc.CatLit // fmamk/fmaak: sources may share the literal
				}
			} else {
				allowed = 0
			}
			fmt.Fprintf(&b, "{%s, '%c', %d, %d, %s, enc.%s, %q, %d, %q, %q, %d}", fieldNames[o.field], o.class, o.w32, o.w64, o.role, enc.StyleNames[o.style], f, mods, o.n32, o.n64, allowed)
		}
		b.WriteString("}},\n")
	}
	b.WriteString("}\n\n")
	// Fix up VOPD Y infos appended late.
	src := b.String()
	if len(infos) > strings.Count(src[:strings.Index(src, "var entries")], "{Name:") {
		var b2 bytes.Buffer
		b2.WriteString(src[:strings.Index(src, "}\n\n// entries")])
		base := strings.Count(src[:strings.Index(src, "var entries")], "{Name:")
		for _, s := range infos[base:] {
			fmt.Fprintf(&b2, "\t%s,\n", s)
		}
		b2.WriteString(src[strings.Index(src, "}\n\n// entries"):])
		b.Reset()
		b.Write(b2.Bytes())
	}
	b.WriteString("// hwregNames are the names of hardware registers by id.\nvar hwregNames = [64]string{")
	for i, s := range n.hwreg {
		if s != "" {
			fmt.Fprintf(&b, "%d: %q, ", i, s)
		}
	}
	b.WriteString("}\n\n// sendmsgText returns how s_sendmsg prints its immediate, for the values LLVM prints symbolically.\n// It is built on the first call; every call returns the same map.\nvar sendmsgText = sync.OnceValue(func() map[uint16]string {\n\treturn map[uint16]string{\n")
	var ks []int
	for k := range n.sendmsg {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	for _, k := range ks {
		fmt.Fprintf(&b, "\t%d: %q,\n", k, n.sendmsg[k])
	}
	b.WriteString("\t}\n})\n\n// bufFormats are the MTBUF format names (\"?\" where LLVM does not decode).\nvar bufFormats = [128]string{")
	for i, s := range n.format {
		fmt.Fprintf(&b, "%d: %q, ", i, s)
	}
	b.WriteString("}\n\n// cpolText is the printed th/scope of a category (0 load, 1 store, 2 atomic, 3 SMEM), th and scope.\nvar cpolText = [4][8][4]string{\n")
	for cat := 0; cat < 4; cat++ {
		b.WriteString("\t{")
		for th := 0; th < 8; th++ {
			b.WriteString("{")
			for sc := 0; sc < 4; sc++ {
				fmt.Fprintf(&b, "%q, ", n.th[fmt.Sprintf("%d/%d/%d", cat, th, sc)])
			}
			b.WriteString("}, ")
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
	out, err := format.Source(b.Bytes())
	if err != nil {
		fail(fmt.Errorf("gofmt: %w", err))
	}
	return out
}

func infoIdxOf(idx map[string]int, infos *[]string, e *gent, name string) int {
	if i, ok := idx[name]; ok {
		return i
	}
	idx[name] = len(*infos)
	*infos = append(*infos, info(e, name))
	return idx[name]
}
