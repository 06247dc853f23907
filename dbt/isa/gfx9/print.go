package gfx9

import (
	"strconv"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9/internal/enc"
	"github.com/rocjitsu/rocjitsu/dbt/isa/internal/asmtext"
)

// Symbolizer names branch targets; it returns false when no symbol is at
// addr. llvm-objdump prints the symbol name in place of the offset.
type Symbolizer func(addr uint64) (string, bool)

// Print returns the instruction in LLVM's syntax, as llvm-mc prints it.
func Print(in *isa.Inst) string { return PrintWith(in, nil) }

// Mnemonic returns the encoding-specific mnemonic LLVM prints (for example
// "v_add_f32_e32").
func Mnemonic(in *isa.Inst) string {
	if int(in.Enc) < len(entries) {
		return entries[in.Enc].mnem
	}
	return in.Name()
}

// PrintWith is Print with branch targets named by sym, as llvm-objdump
// prints them.
func PrintWith(in *isa.Inst, sym Symbolizer) string {
	b := make(textBuf, 0, 64)
	appendInst(&b, in, sym)
	return string(b)
}

// AppendText writes the instruction text to b.
func AppendText(b *strings.Builder, in *isa.Inst, sym Symbolizer) {
	t := make(textBuf, 0, 64)
	appendInst(&t, in, sym)
	b.Write(t)
}

// AppendInst appends the instruction text to dst and returns the extended
// slice; it does not allocate when dst has room.
func AppendInst(dst []byte, in *isa.Inst, sym Symbolizer) []byte {
	t := textBuf(dst)
	appendInst(&t, in, sym)
	return t
}

// textBuf is an append-only text buffer.
type textBuf []byte

func (t *textBuf) WriteString(s string) { *t = append(*t, s...) }
func (t *textBuf) putc(c byte)          { *t = append(*t, c) }
func (t *textBuf) writeInt(v int)       { *t = strconv.AppendInt(*t, int64(v), 10) }

func appendInst(b *textBuf, in *isa.Inst, sym Symbolizer) {
	if int(in.Enc) >= len(entries) || in.Info == nil {
		b.WriteString("<unknown>")
		return
	}
	e := &entries[in.Enc]
	k := e.kind
	b.WriteString(e.mnem)
	first := true
	for i := range in.Operands {
		o := &in.Operands[i]
		if k == enc.SOPP && o.Kind == isa.KindImm && o.Imm == 0 && strings.HasPrefix(e.mnem, "s_endpgm") {
			continue
		}
		var d *opnd
		if i < len(e.ops) {
			d = &e.ops[i]
		}
		if first {
			b.putc(' ')
			first = false
		} else {
			*b = append(*b, ',', ' ') // two bytes, no copy call
		}
		if o.Mods == 0 && o.Kind == isa.KindReg {
			// writeOperand's first case (most operands), without the call.
			var c byte
			switch o.Class {
			case isa.VGPR:
				c = 'v'
			case isa.SGPR:
				c = 's'
			case isa.AGPR:
				c = 'a'
			}
			if c != 0 {
				*b = asmtext.AppendReg1(*b, c, o.Reg, uint16(o.Width))
				continue
			}
		}
		writeOperand(b, in, e, d, o, sym)
	}
	writeMods(b, in, e, k)
}

func writeReg(b *textBuf, prefix string, reg, width uint16) {
	*b = asmtext.AppendReg(*b, prefix, reg, width)
}

var specialNames = map[isa.SpecialReg][2]string{
	isa.RegVCCLo: {"vcc_lo", "vcc"}, isa.RegVCCHi: {"vcc_hi", "vcc_hi"}, isa.RegEXECLo: {"exec_lo", "exec"},
	isa.RegEXECHi: {"exec_hi", "exec_hi"}, isa.RegM0: {"m0", "m0"}, isa.RegFlatScratchLo: {"flat_scratch_lo", "flat_scratch"},
	isa.RegFlatScratchHi: {"flat_scratch_hi", "flat_scratch_hi"}, isa.RegXnackMaskLo: {"xnack_mask_lo", "xnack_mask"},
	isa.RegXnackMaskHi: {"xnack_mask_hi", "xnack_mask_hi"}, isa.RegSCC: {"src_scc", "src_scc"},
	isa.RegVCCZ: {"src_vccz", "src_vccz"}, isa.RegEXECZ: {"src_execz", "src_execz"},
	isa.RegLDSDirect: {"src_lds_direct", "src_lds_direct"}, isa.RegSharedBase: {"src_shared_base", "src_shared_base"},
	isa.RegSharedLimit: {"src_shared_limit", "src_shared_limit"}, isa.RegPrivateBase: {"src_private_base", "src_private_base"},
	isa.RegPrivateLimit: {"src_private_limit", "src_private_limit"}, isa.RegNull: {"null", "null"}, isa.RegPopsExitingWaveID: {"src_pops_exiting_wave_id", "src_pops_exiting_wave_id"},
}

var floatConst = [9][3]string{
	{"0.5", "0x3800", "0.5"}, {"-0.5", "0xb800", "-0.5"}, {"1.0", "0x3c00", "1.0"}, {"-1.0", "0xbc00", "-1.0"},
	{"2.0", "0x4000", "2.0"}, {"-2.0", "0xc000", "-2.0"}, {"4.0", "0x4400", "4.0"}, {"-4.0", "0xc400", "-4.0"},
	{"0.15915494", "0x3118", "0.15915494309189532"},
}

func writeInline(b *textBuf, code int64, typ byte) {
	switch {
	case code >= 128 && code <= 192:
		b.writeInt(int(code - 128))
	case code >= 193 && code <= 208:
		b.writeInt(-int(code - 192))
	case code >= 240 && code <= 248:
		col := 0
		switch typ {
		case 'h':
			col = 1
		case 'd':
			col = 2
		}
		b.WriteString(floatConst[code-240][col])
	}
}

func writeHex(b *textBuf, v uint64) { *b = asmtext.AppendHex(*b, v) }

func writeOperand(b *textBuf, in *isa.Inst, e *entry, d *opnd, o *isa.Operand, sym Symbolizer) {
	if o.Mods == 0 && o.Kind == isa.KindReg {
		// Most operands: a register without modifiers.
		switch o.Class {
		case isa.VGPR:
			writeReg(b, "v", o.Reg, uint16(o.Width))
			return
		case isa.SGPR:
			writeReg(b, "s", o.Reg, uint16(o.Width))
			return
		case isa.AGPR:
			writeReg(b, "a", o.Reg, uint16(o.Width))
			return
		}
	}
	neg, abs, sext := false, false, false
	if o.Mods != 0 && d != nil {
		idx := -1
		switch d.field {
		case enc.FSrc0:
			idx = 0
		case enc.FSrc1, enc.FVSrc1:
			idx = 1
		case enc.FSrc2:
			idx = 2
		}
		if idx >= 0 {
			neg = o.Mods&isa.ModNeg != 0 && e.flags&(fNeg0<<idx) != 0
			abs = o.Mods&isa.ModAbs != 0 && e.flags&(fAbs0<<idx) != 0
			sext = o.Mods&isa.ModSext != 0 && idx < 2 && e.flags&(fSext0<<idx) != 0
			if o.Mods&isa.ModNeg != 0 && (e.kind >= enc.DPP1 && e.kind <= enc.DPPC || e.kind == enc.VOP3) && sextFlag(e, idx) {
				// Integer DPP and VOP3 sources: the neg bit is a sign
				// extension.
				sext = true
			}
		}
	}
	negFn := false
	if neg && !abs && (o.Kind == isa.KindInline || o.Kind == isa.KindLiteral) {
		// LLVM writes neg(x) for a negated constant.
		negFn = true
		b.WriteString("neg(")
	} else if neg {
		b.putc('-')
	}
	if abs {
		b.putc('|')
	}
	if sext {
		b.WriteString("sext(")
	}
	var typ byte
	var style string
	if d != nil {
		typ = d.typ
		style = d.text
	}
	switch o.Kind {
	case isa.KindReg:
		switch o.Class {
		case isa.SGPR:
			writeReg(b, "s", o.Reg, uint16(o.Width))
		case isa.VGPR:
			writeReg(b, "v", o.Reg, uint16(o.Width))
		case isa.AGPR:
			writeReg(b, "a", o.Reg, uint16(o.Width))
		case isa.TTMP:
			writeReg(b, "ttmp", o.Reg, uint16(o.Width))
		case isa.Special:
			*b = asmtext.AppendSpecial(*b, o, specialNames)
		}
	case isa.KindInline:
		writeInline(b, o.Imm, typ)
	case isa.KindLiteral:
		w, lit := uint8(1), byte(0)
		if d != nil {
			w, lit = d.width, d.lit
		}
		writeLiteral(b, in.Literal, typ, w, lit)
	case isa.KindOff:
		b.WriteString("off")
	case isa.KindLabel:
		tgt := uint64(int64(in.PC) + 4 + 4*o.Imm)
		if sym != nil {
			if s, ok := sym(tgt); ok {
				b.WriteString(s)
				break
			}
		}
		b.writeInt(int(uint16(o.Imm)))
	case isa.KindImm:
		writeImm(b, in, e, o, style)
	}
	if sext {
		b.putc(')')
	}
	if abs {
		b.putc('|')
	}
	if negFn {
		b.putc(')')
	}
}

func writeImm(b *textBuf, in *isa.Inst, e *entry, o *isa.Operand, style string) {
	v := uint32(o.Imm)
	if e.kind == enc.SOPP && strings.HasPrefix(e.mnem, "s_sendmsg") {
		style = "sendmsg"
	}
	if e.kind == enc.SMEM {
		writeSignedHex(b, o.Imm)
		return
	}
	switch style {
	case "hwreg":
		writeHwreg(b, v)
	case "sendmsg":
		writeSendmsg(b, v)
	case "waitcnt":
		writeWaitcnt(b, v)
	case "gpr_idx":
		if v > 15 {
			writeHex(b, uint64(v))
		} else {
			writeGprIdx(b, v)
		}
	case "hex":
		if e.kind == enc.SOPP && v <= 64 {
			b.writeInt(int(v))
		} else {
			writeHex(b, uint64(v))
		}
	default:
		*b = strconv.AppendUint(*b, uint64(v), 10)
	}
}

func writeMods(b *textBuf, in *isa.Inst, e *entry, k enc.Kind) {
	md := &in.Mod
	switch k {
	case enc.VOP3:
		if e.flags&fBitOp3 != 0 {
			lut := uint32(md.OMod) << 6
			for i := range in.Operands {
				o := &in.Operands[i]
				if i < len(e.ops) && e.ops[i].field >= enc.FSrc0 && e.ops[i].field <= enc.FSrc2 {
					j := uint(e.ops[i].field - enc.FSrc0)
					if o.Mods&isa.ModNeg != 0 {
						lut |= 1 << j
					}
					if o.Mods&isa.ModAbs != 0 {
						lut |= 8 << j
					}
				}
			}
			if lut != 0 {
				b.WriteString(" bitop3:")
				if lut <= 64 {
					b.writeInt(int(lut))
				} else {
					writeHex(b, uint64(lut))
				}
			}
			return
		}
		if e.flags&fVOP3DPP != 0 {
			if md.OpSel&2 != 0 {
				b.WriteString(" bound_ctrl:1")
			}
			if md.OpSel&1 != 0 {
				b.WriteString(" fi:1")
			}
			return
		}
		if e.opselN > 0 && md.OpSel != 0 {
			n := int(e.opselN)
			v := uint32(md.OpSel)
			if ns := countSrcs(e); n == ns+1 && n < 4 {
				// The last element is the destination bit (bit 3).
				v = v&(1<<ns-1) | (v>>3&1)<<ns
			}
			writeBits(b, " op_sel:", v, n)
		}
		if md.Clamp && e.flags&fClamp != 0 {
			b.WriteString(" clamp")
		}
		writeOMod(b, md.OMod, e.flags&fOMod != 0)
	case enc.VOP3P:
		n := int(e.opselN)
		if n == 0 {
			n = countSrcs(e)
		}
		if md.OpSel != 0 {
			writeBits(b, " op_sel:", uint32(md.OpSel), n)
		}
		def := uint32(1<<n - 1)
		if e.flags&fOpSelHi0 != 0 {
			def = 0
		}
		if uint32(md.OpSelHi)&(1<<n-1) != def {
			writeBits(b, " op_sel_hi:", uint32(md.OpSelHi), n)
		}
		if md.NegLo != 0 && e.flags&fNegLo != 0 {
			writeBits(b, " neg_lo:", uint32(md.NegLo), n)
		}
		if md.NegHi != 0 && e.flags&fNegHi != 0 {
			writeBits(b, " neg_hi:", uint32(md.NegHi), n)
		}
		if md.Clamp && e.flags&fClamp != 0 {
			b.WriteString(" clamp")
		}
	case enc.MAI, enc.VOP3PX2:
		if k == enc.VOP3PX2 {
			if md.OpSel != 0 {
				writeBits(b, " op_sel:", uint32(md.OpSel), 3)
			}
			writeBits(b, " op_sel_hi:", uint32(md.OpSelHi), 3)
		}
		if md.CBSZ != 0 && (e.flags&fCBSZ != 0 || k == enc.VOP3PX2) {
			b.WriteString(" cbsz:")
			b.writeInt(int(md.CBSZ))
		}
		if md.ABID != 0 && k != enc.VOP3PX2 && e.flags&fABID != 0 {
			b.WriteString(" abid:")
			b.writeInt(int(md.ABID))
		}
		if e.flags&fMAINeg != 0 {
			if md.BLGP != 0 {
				writeBits(b, " neg:", uint32(md.BLGP), 3)
			}
		} else if md.BLGP != 0 && (e.flags&fBLGP != 0 || k == enc.VOP3PX2) {
			b.WriteString(" blgp:")
			b.writeInt(int(md.BLGP))
		}
	case enc.SDWA1, enc.SDWA2, enc.SDWAC:
		if md.Clamp && e.flags&fClamp != 0 {
			b.WriteString(" clamp")
		}
		writeOMod(b, md.OMod, e.flags&fOMod != 0)
		if e.flags&fDstSel != 0 {
			b.WriteString(" dst_sel:")
			b.WriteString(sdwaSel(md.DstSel))
		}
		if e.flags&fDstUnused != 0 {
			b.WriteString(" dst_unused:")
			b.WriteString(sdwaUnused(md.DstUnused))
		}
		if e.flags&fSrc0Sel != 0 {
			b.WriteString(" src0_sel:")
			b.WriteString(sdwaSel(md.Src0Sel))
		}
		if e.flags&fSrc1Sel != 0 {
			b.WriteString(" src1_sel:")
			b.WriteString(sdwaSel(md.Src1Sel))
		}
	case enc.DPP1, enc.DPP2, enc.DPPC:
		writeDPP(b, md)
	case enc.DS:
		name := opInfos[e.info].Name
		if rowFacts(in.Enc).ds2 {
			if md.Offset != 0 {
				b.WriteString(" offset0:")
				b.writeInt(int(md.Offset))
			}
			if md.Offset1 != 0 {
				b.WriteString(" offset1:")
				b.writeInt(int(md.Offset1))
			}
		} else if off := int(md.Offset) | int(md.Offset1)<<8; off != 0 {
			if name == "ds_swizzle_b32" {
				b.WriteString(" offset:")
				writeSwizzle(b, uint32(off))
			} else {
				b.WriteString(" offset:")
				b.writeInt(off)
			}
		}
		if md.GDS {
			b.WriteString(" gds")
		}
	case enc.FLAT:
		if md.Offset != 0 {
			b.WriteString(" offset:")
			b.writeInt(int(md.Offset))
		}
		writeCache(b, md)
	case enc.MUBUF, enc.MTBUF:
		if k == enc.MTBUF {
			writeTBufFormat(b, md.Format)
		}
		if md.Idxen {
			b.WriteString(" idxen")
		}
		if md.Offen {
			b.WriteString(" offen")
		}
		if md.Offset != 0 {
			b.WriteString(" offset:")
			b.writeInt(int(md.Offset))
		}
		writeCache(b, md)
		if md.LDS && k == enc.MUBUF {
			b.WriteString(" lds")
		}
	case enc.SMEM:
		if md.SMemSOE && md.SMemImm {
			b.WriteString(" offset:")
			writeSignedHex(b, int64(md.Offset))
		}
		if md.SC0 {
			b.WriteString(" glc")
		}
	}
}

func writeCache(b *textBuf, md *isa.Modifiers) {
	if md.SC0 {
		b.WriteString(" sc0")
	}
	if md.NT {
		b.WriteString(" nt")
	}
	if md.SC1 {
		b.WriteString(" sc1")
	}
}

func isDS2(name string) bool {
	return strings.Contains(name, "2_") || strings.Contains(name, "2st64")
}

func countSrcs(e *entry) int {
	n := 0
	for _, o := range e.ops {
		if o.field == enc.FSrc0 || o.field == enc.FSrc1 || o.field == enc.FSrc2 {
			n++
		}
	}
	return n
}

func writeBits(b *textBuf, key string, v uint32, n int) {
	b.WriteString(key)
	b.putc('[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.putc(',')
		}
		b.putc('0' + byte(v>>i&1))
	}
	b.putc(']')
}

func writeOMod(b *textBuf, omod uint8, ok bool) {
	if !ok {
		return
	}
	switch omod {
	case 1:
		b.WriteString(" mul:2")
	case 2:
		b.WriteString(" mul:4")
	case 3:
		b.WriteString(" div:2")
	}
}

var sdwaSels = []string{"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"}

func sdwaSel(s uint8) string {
	if int(s) < len(sdwaSels) {
		return sdwaSels[s]
	}
	return strconv.Itoa(int(s))
}

func sdwaUnused(u uint8) string {
	switch u {
	case 0:
		return "UNUSED_PAD"
	case 1:
		return "UNUSED_SEXT"
	case 2:
		return "UNUSED_PRESERVE"
	case 3:
		return "UNUSED_PAD"
	}
	return strconv.Itoa(int(u))
}

func writeDPP(b *textBuf, md *isa.Modifiers) {
	c := md.DPPCtrl
	b.putc(' ')
	var ok bool
	*b, ok = asmtext.AppendDPPCtrl(*b, c)
	switch {
	case ok:
	case c == 0x130:
		b.WriteString("wave_shl:1")
	case c == 0x134:
		b.WriteString("wave_rol:1")
	case c == 0x138:
		b.WriteString("wave_shr:1")
	case c == 0x13c:
		b.WriteString("wave_ror:1")
	case c == 0x142:
		b.WriteString("row_bcast:15")
	case c == 0x143:
		b.WriteString("row_bcast:31")
	case c >= 0x150 && c <= 0x15f:
		b.WriteString("row_newbcast:" + strconv.Itoa(int(c-0x150)))
	default:
		b.WriteString("/* invalid dpp_ctrl */")
	}
	*b = asmtext.AppendDPPMasks(*b, md.RowMask, md.BankMask, md.BoundCtrl)
}

func writeHwreg(b *textBuf, v uint32) {
	*b = asmtext.AppendHwreg(*b, v, func(id uint32) (string, bool) {
		n, ok := hwregNames[id]
		return n, ok
	})
}

var msgNames = map[uint32]string{1: "MSG_INTERRUPT", 2: "MSG_GS", 3: "MSG_GS_DONE", 4: "MSG_SAVEWAVE", 5: "MSG_STALL_WAVE_GEN",
	6: "MSG_HALT_WAVES", 7: "MSG_ORDERED_PS_DONE", 8: "MSG_EARLY_PRIM_DEALLOC", 9: "MSG_GS_ALLOC_REQ", 10: "MSG_GET_DOORBELL", 15: "MSG_SYSMSG"}

// writeSendmsg prints a message immediate as LLVM does for GFX9: the
// symbolic form when the id, operation and stream are valid (other bits are
// ignored), the numeric triple when the three fields say everything, and
// the plain number otherwise.
func writeSendmsg(b *textBuf, v uint32) {
	id, op, stream := v&0xf, (v>>4)&7, (v>>8)&3
	name, known := msgNames[id]
	gs := id == 2 || id == 3
	validOp := false
	switch {
	case gs:
		validOp = op <= 3 && !(id == 2 && op == 0)
	case id == 15:
		validOp = op == 1 || op == 2 || op == 4 // HOST_TRAP_ACK is not a GFX9 operation
	default:
		validOp = op == 0
	}
	supportsStream := gs && op != 0
	validStream := supportsStream || stream == 0
	if known && validOp && validStream {
		b.WriteString("sendmsg(")
		b.WriteString(name)
		switch {
		case gs:
			ops := []string{"GS_OP_NOP", "GS_OP_CUT", "GS_OP_EMIT", "GS_OP_EMIT_CUT"}
			b.WriteString(", ")
			b.WriteString(ops[op])
			if supportsStream {
				b.WriteString(", ")
				b.writeInt(int(stream))
			}
		case id == 15:
			ops := []string{"", "SYSMSG_OP_ECC_ERR_INTERRUPT", "SYSMSG_OP_REG_RD", "SYSMSG_OP_HOST_TRAP_ACK", "SYSMSG_OP_TTRACE_PC"}
			b.WriteString(", ")
			b.WriteString(ops[op])
		}
		b.putc(')')
		return
	}
	if v>>10 == 0 && v&0x80 == 0 {
		b.WriteString("sendmsg(")
		b.writeInt(int(id))
		b.WriteString(", ")
		b.writeInt(int(op))
		b.WriteString(", ")
		b.writeInt(int(stream))
		b.putc(')')
		return
	}
	b.writeInt(int(v))
}

func writeWaitcnt(b *textBuf, v uint32) {
	vm := v&0xf | (v>>14&3)<<4
	exp := (v >> 4) & 7
	lgkm := (v >> 8) & 0xf
	parts := 0
	put := func(name string, val uint32) {
		if parts > 0 {
			b.putc(' ')
		}
		b.WriteString(name)
		b.putc('(')
		b.writeInt(int(val))
		b.putc(')')
		parts++
	}
	if vm != 63 {
		put("vmcnt", vm)
	}
	if exp != 7 {
		put("expcnt", exp)
	}
	if lgkm != 15 {
		put("lgkmcnt", lgkm)
	}
	if parts == 0 {
		put("vmcnt", vm)
		put("expcnt", exp)
		put("lgkmcnt", lgkm)
	}
}

func writeGprIdx(b *textBuf, v uint32) {
	b.WriteString("gpr_idx(")
	names := []string{"SRC0", "SRC1", "SRC2", "DST"}
	n := 0
	for i, s := range names {
		if v>>i&1 != 0 {
			if n > 0 {
				b.putc(',')
			}
			b.WriteString(s)
			n++
		}
	}
	b.putc(')')
}

func writeSwizzle(b *textBuf, off uint32) {
	if off&0x8000 != 0 {
		b.WriteString("swizzle(QUAD_PERM")
		for i := 0; i < 4; i++ {
			b.putc(',')
			b.writeInt(int(off >> (2 * i) & 3))
		}
		b.putc(')')
		return
	}
	and := off & 0x1f
	or := (off >> 5) & 0x1f
	xor := (off >> 10) & 0x1f
	b.WriteString("swizzle(BITMASK_PERM,\"")
	for i := 4; i >= 0; i-- {
		a, o, x := and>>i&1, or>>i&1, xor>>i&1
		switch {
		case a == 0 && o == 0:
			b.putc('0')
		case a == 0 && o == 1:
			b.putc('1')
		case a == 1 && x == 1:
			b.putc('i')
		default:
			b.putc('p')
		}
	}
	b.WriteString("\")")
}

var dfmtNames = []string{"INVALID", "8", "16", "8_8", "32", "16_16", "10_11_11", "11_11_10", "10_10_10_2", "2_10_10_10", "8_8_8_8", "32_32", "16_16_16_16", "32_32_32", "32_32_32_32", "RESERVED_15"}
var nfmtNames = []string{"UNORM", "SNORM", "USCALED", "SSCALED", "UINT", "SINT", "RESERVED_6", "FLOAT"}

func writeTBufFormat(b *textBuf, f uint8) {
	dfmt, nfmt := f&0xf, f>>4&7
	if dfmt == 1 && nfmt == 0 {
		return
	}
	b.WriteString(" format:[")
	if dfmt != 1 {
		b.WriteString("BUF_DATA_FORMAT_")
		b.WriteString(dfmtNames[dfmt])
		if nfmt != 0 {
			b.putc(',')
		}
	}
	if nfmt != 0 {
		b.WriteString("BUF_NUM_FORMAT_")
		b.WriteString(nfmtNames[nfmt])
	}
	b.putc(']')
}

func writeSignedHex(b *textBuf, v int64) {
	if v < 0 {
		b.putc('-')
		v = -v
	}
	writeHex(b, uint64(v))
}

var literalHalves = map[uint32]string{
	0x3800: "0.5", 0xb800: "-0.5", 0x3c00: "1.0", 0xbc00: "-1.0", 0x4000: "2.0",
	0xc000: "-2.0", 0x4400: "4.0", 0xc400: "-4.0", 0x3118: "0.15915494",
}

var literalDoubles = map[uint32]string{
	0x3fe00000: "0.5", 0xbfe00000: "-0.5", 0x3ff00000: "1.0", 0xbff00000: "-1.0", 0x40000000: "2.0",
	0xc0000000: "-2.0", 0x40100000: "4.0", 0xc0100000: "-4.0",
}

var literalFloats = map[uint32]string{
	0x3f000000: "0.5", 0xbf000000: "-0.5", 0x3f800000: "1.0", 0xbf800000: "-1.0", 0x40000000: "2.0",
	0xc0000000: "-2.0", 0x40800000: "4.0", 0xc0800000: "-4.0", 0x3e22f983: "0.15915494",
}

// writeLiteral prints a 32-bit literal as LLVM does: values that an inline
// constant could express print as that constant.
func writeLiteral(b *textBuf, v uint32, typ byte, width uint8, lit byte) {
	if width == 2 {
		// 64-bit operands: integers zero-extend the literal, doubles take
		// it as the high half.
		if lit == 'F' {
			if s, ok := literalDoubles[v]; ok {
				b.WriteString(s)
				return
			}
		} else if v <= 64 {
			b.writeInt(int(v))
			return
		}
		writeHex(b, uint64(v))
		return
	}
	if lit == 'H' {
		// 16-bit operands use the low half of the literal.
		h := v & 0xffff
		if i := int16(h); i >= -16 && i <= 64 {
			b.writeInt(int(i))
			return
		}
		if typ != 'h' {
			if s, ok := literalHalves[h]; ok {
				b.WriteString(s)
				return
			}
		}
		writeHex(b, uint64(h))
		return
	}
	if i := int32(v); i >= -16 && i <= 64 {
		b.writeInt(int(i))
		return
	}
	if typ != 'h' && typ != 'd' {
		if s, ok := literalFloats[v]; ok {
			b.WriteString(s)
			return
		}
	}
	writeHex(b, uint64(v))
}

func sextFlag(e *entry, idx int) bool {
	switch idx {
	case 0:
		return e.flags&fSext0 != 0
	case 1:
		return e.flags&fSext1 != 0
	case 2:
		return e.flags&fSext2 != 0
	}
	return false
}
