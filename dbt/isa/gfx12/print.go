package gfx12

import (
	"math/bits"
	"strconv"
	"strings"
	"sync"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12/internal/enc"
	"github.com/rocjitsu/rocjitsu/dbt/isa/internal/asmtext"
)

// Print returns the instruction in LLVM's syntax, as llvm-objdump-19
// prints it (branch targets as the encoded offset).
func Print(in *isa.Inst) string {
	var b strings.Builder
	b.Grow(64)
	AppendText(&b, in)
	return b.String()
}

// Mnemonic returns the encoding-specific mnemonic LLVM prints (for example
// "v_add_f32_e32").
func Mnemonic(in *isa.Inst) string {
	if int(in.Enc) < len(table()) {
		return table()[in.Enc].mnem
	}
	return in.Name()
}

// AppendText writes the instruction text to b.
func AppendText(b *strings.Builder, in *isa.Inst) {
	if int(in.Enc) >= len(table()) || in.Info == nil {
		b.WriteString("<unknown>")
		return
	}
	e := &table()[in.Enc]
	k := e.kind
	b.WriteString(e.mnem)
	absOpen := false
	if k == enc.EXP {
		b.WriteByte(' ')
		b.WriteString(expTarget(enc.Layout[enc.FETgt].Get(in.Pad[:])))
	}
	first := true
	for i := range in.Operands {
		o := &in.Operands[i]
		if i >= len(e.ops) {
			break
		}
		d := &e.ops[i]
		if e.mnemY != "" && i == int(e.nx) {
			b.WriteString(" :: ")
			b.WriteString(e.mnemY)
			first = true
		}
		if k == enc.SOPP && o.Kind == isa.KindImm && o.Imm == 0 && d.ifmt == "endpgm" {
			continue
		}
		if first {
			b.WriteByte(' ')
			first = false
		} else {
			b.WriteString(", ")
		}
		if e.mnem == "v_cndmask_b32_dpp" && i == 2 && o.Mods&(isa.ModAbs|isa.ModNeg) != 0 && o.Kind == isa.KindReg {
			// LLVM prints src1's modifiers around src1 and the implicit
			// vcc operand: -|v1, vcc_lo|.
			if o.Mods&isa.ModNeg != 0 {
				b.WriteByte('-')
			}
			if o.Mods&isa.ModAbs != 0 {
				b.WriteByte('|')
				absOpen = true
			}
			writeReg(b, "v", o.Reg, uint16(o.Width))
			continue
		}
		writeOperand(b, in, e, d, o)
		if absOpen {
			b.WriteByte('|')
			absOpen = false
		}
	}
	writeMods(b, in, e)
}

func writeReg(b *strings.Builder, prefix string, reg, width uint16) {
	var a [32]byte
	b.Write(asmtext.AppendReg(a[:0], prefix, reg, width))
}

// specialNames are the printed names of the special registers (32-bit,
// then 64-bit form). Built on first use; every call returns the same map.
var specialNames = sync.OnceValue(func() map[isa.SpecialReg][2]string {
	return map[isa.SpecialReg][2]string{
		isa.RegVCCLo: {"vcc_lo", "vcc"}, isa.RegVCCHi: {"vcc_hi", "vcc_hi"}, isa.RegEXECLo: {"exec_lo", "exec"},
		isa.RegEXECHi: {"exec_hi", "exec_hi"}, isa.RegM0: {"m0", "m0"}, isa.RegSCC: {"src_scc", "src_scc"},
		isa.RegVCCZ: {"src_vccz", "src_vccz"}, isa.RegEXECZ: {"src_execz", "src_execz"},
		isa.RegLDSDirect: {"src_lds_direct", "src_lds_direct"}, isa.RegSharedBase: {"src_shared_base", "src_shared_base"},
		isa.RegSharedLimit: {"src_shared_limit", "src_shared_limit"}, isa.RegPrivateBase: {"src_private_base", "src_private_base"},
		isa.RegPrivateLimit: {"src_private_limit", "src_private_limit"}, isa.RegNull: {"null", "null"},
		isa.RegPopsExitingWaveID: {"src_pops_exiting_wave_id", "src_pops_exiting_wave_id"},
	}
})

func writeHex(b *strings.Builder, v uint64) {
	var a [24]byte
	b.Write(asmtext.AppendHex(a[:0], v))
}

func writeOperand(b *strings.Builder, in *isa.Inst, e *entry, d *opnd, o *isa.Operand) {
	if o.Mods&isa.ModNeg != 0 && d.mods&4 != 0 {
		b.WriteString("sext(")
		o2 := *o
		o2.Mods &^= isa.ModNeg
		writeOperand(b, in, e, d, &o2)
		b.WriteByte(')')
		return
	}
	neg := o.Mods&isa.ModNeg != 0 && d.mods&1 != 0
	abs := o.Mods&isa.ModAbs != 0 && d.mods&2 != 0
	isConst := o.Kind == isa.KindInline || o.Kind == isa.KindLiteral
	if neg && isConst && !abs {
		b.WriteString("neg(")
	} else if neg {
		b.WriteByte('-')
	}
	if abs {
		b.WriteByte('|')
	}
	switch o.Kind {
	case isa.KindReg:
		switch o.Class {
		case isa.SGPR:
			writeReg(b, "s", o.Reg, uint16(o.Width))
		case isa.VGPR:
			writeReg(b, "v", o.Reg, uint16(o.Width))
			if d.mods&8 != 0 {
				b.WriteString([2]string{".l", ".h"}[o.Imm&1])
			}
		case isa.TTMP:
			writeReg(b, "ttmp", o.Reg, uint16(o.Width))
		case isa.Special:
			var a [32]byte
			b.Write(asmtext.AppendSpecial(a[:0], o, specialNames()))
		}
	case isa.KindInline:
		b.WriteString(enc.FormatConst(d.style, uint32(o.Imm), 0))
	case isa.KindLiteral:
		if d.class == 'k' {
			b.WriteString(enc.FormatConst(d.style, 255, in.Literal))
		} else {
			b.WriteString(enc.FormatConst(d.style, 255, in.Literal))
		}
	case isa.KindOff:
		b.WriteString("off")
	case isa.KindLabel:
		b.WriteString(strconv.Itoa(int(uint16(o.Imm))))
	case isa.KindImm:
		writeImm(b, e, d, o.Imm)
	}
	if abs {
		b.WriteByte('|')
	}
	if neg && isConst && !abs {
		b.WriteByte(')')
	}
}

func writeImm(b *strings.Builder, e *entry, d *opnd, v int64) {
	u := uint64(v)
	switch d.ifmt {
	case "hex", "version":
		writeHex(b, u&0xffff)
	case "udec", "endpgm":
		b.WriteString(strconv.Itoa(int(u & 0xffff)))
	case "sdec":
		b.WriteString(strconv.Itoa(int(int16(u))))
	case "int16":
		if s := int16(u); s >= -16 && s <= 64 {
			b.WriteString(strconv.Itoa(int(s)))
		} else {
			writeHex(b, u&0xffff)
		}
	case "u64hex":
		if u&0xffff <= 64 {
			b.WriteString(strconv.Itoa(int(u & 0xffff)))
		} else {
			writeHex(b, u&0xffff)
		}
	case "hwreg":
		writeHwreg(b, uint32(u))
	case "sendmsg":
		// A known message id in the low byte prints symbolically whatever
		// the high bits; an unknown one prints as sendmsg(id, 0, 0) only
		// when the high bits are clear.
		u &= 0xffff
		if t, ok := sendmsgText()[uint16(u&0xff)]; ok && strings.Contains(t, "MSG_") {
			b.WriteString(t)
		} else if t, ok := sendmsgText()[uint16(u)]; ok && u < 256 {
			b.WriteString(t)
		} else {
			b.WriteString(strconv.Itoa(int(u)))
		}
	case "delay":
		writeDelay(b, uint32(u))
	case "depctr":
		writeDepCtr(b, uint32(u))
	case "waitcnt":
		writeWaitcnt(b, uint32(u))
	default:
		if d.field == enc.FSMOff {
			if v < 0 {
				b.WriteString("-")
				writeHex(b, uint64(-v))
			} else {
				writeHex(b, u)
			}
			return
		}
		b.WriteString(strconv.FormatInt(v, 10))
	}
}

func writeHwreg(b *strings.Builder, v uint32) {
	var a [64]byte
	b.Write(asmtext.AppendHwreg(a[:0], v, hwregName))
}

// hwregName returns the GFX12 name of hardware register id, if it has one.
func hwregName(id uint32) (string, bool) {
	n := hwregNames[id]
	return n, n != ""
}

var delayIDs = []string{"NO_DEP", "VALU_DEP_1", "VALU_DEP_2", "VALU_DEP_3", "VALU_DEP_4", "TRANS32_DEP_1", "TRANS32_DEP_2", "TRANS32_DEP_3", "FMA_ACCUM_CYCLE_1", "SALU_CYCLE_1", "SALU_CYCLE_2", "SALU_CYCLE_3"}
var delaySkips = []string{"SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"}

func writeDelay(b *strings.Builder, v uint32) {
	v &= 0x7ff // LLVM ignores the bits above instid1
	id0, skip, id1 := v&15, v>>4&7, v>>7&15
	if int(id0) >= len(delayIDs) || int(id1) >= len(delayIDs) || int(skip) >= len(delaySkips) {
		writeHex(b, uint64(v))
		return
	}
	sep := ""
	if id0 != 0 {
		b.WriteString("instid0(" + delayIDs[id0] + ")")
		sep = " | "
	}
	if skip != 0 {
		b.WriteString(sep + "instskip(" + delaySkips[skip] + ")")
		sep = " | "
	}
	if id1 != 0 {
		b.WriteString(sep + "instid1(" + delayIDs[id1] + ")")
		sep = " | "
	}
	if sep == "" {
		b.WriteString("0")
	}
}

var depctrFields = []struct {
	name              string
	shift, bits, dflt uint32
}{
	{"depctr_hold_cnt", 7, 1, 1}, {"depctr_sa_sdst", 0, 1, 1}, {"depctr_va_vdst", 12, 4, 15},
	{"depctr_va_sdst", 9, 3, 7}, {"depctr_va_ssrc", 8, 1, 1}, {"depctr_va_vcc", 1, 1, 1}, {"depctr_vm_vsrc", 2, 3, 7},
}

func writeDepCtr(b *strings.Builder, v uint32) {
	if v&0x60 != 0 {
		writeHex(b, uint64(v))
		return
	}
	nonDefault := false
	for _, f := range depctrFields {
		if v>>f.shift&(1<<f.bits-1) != f.dflt {
			nonDefault = true
		}
	}
	sep := ""
	for _, f := range depctrFields {
		x := v >> f.shift & (1<<f.bits - 1)
		if x != f.dflt || !nonDefault {
			b.WriteString(sep + f.name + "(" + strconv.Itoa(int(x)) + ")")
			sep = " "
		}
	}
}

func writeWaitcnt(b *strings.Builder, v uint32) {
	// GFX12 s_waitcnt: expcnt [2:0], lgkmcnt [9:4], vmcnt [15:10].
	vm, exp, lgkm := v>>10&63, v&7, v>>4&63
	var parts []string
	if vm != 63 {
		parts = append(parts, "vmcnt("+strconv.Itoa(int(vm))+")")
	}
	if exp != 7 {
		parts = append(parts, "expcnt("+strconv.Itoa(int(exp))+")")
	}
	if lgkm != 63 {
		parts = append(parts, "lgkmcnt("+strconv.Itoa(int(lgkm))+")")
	}
	if len(parts) == 0 {
		parts = []string{"vmcnt(63) expcnt(7) lgkmcnt(63)"}
	}
	b.WriteString(strings.Join(parts, " "))
}

func bitList(b *strings.Builder, name string, v uint8, n int, dstBit bool) {
	b.WriteString(" " + name + ":[")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		bit := i
		if dstBit && i == n-1 {
			bit = 3
		}
		b.WriteByte('0' + v>>bit&1)
	}
	b.WriteByte(']')
}

// cpolCategory is the cache-policy naming of an entry: 0 load, 1 store,
// 2 atomic, 3 SMEM.
func cpolCategory(e *entry) int {
	switch {
	case e.kind == enc.SMEM:
		return 3
	case strings.Contains(e.mnem, "atomic"):
		return 2
	case strings.Contains(e.mnem, "store"):
		return 1
	}
	return 0
}

// CachePolicy returns the th and scope fields of a memory instruction.
func CachePolicy(in *isa.Inst) (th, scope uint8) {
	if int(in.Enc) >= len(table()) {
		return 0, 0
	}
	switch table()[in.Enc].kind {
	case enc.SMEM:
		return uint8(enc.Layout[enc.FSMTH].Get(in.Pad[:])), uint8(enc.Layout[enc.FSMScope].Get(in.Pad[:]))
	case enc.FLAT, enc.GLOBAL, enc.SCRATCH, enc.VBUFFER, enc.VIMAGE, enc.VSAMPLE:
		return uint8(enc.Layout[enc.FFTH].Get(in.Pad[:])), uint8(enc.Layout[enc.FFScope].Get(in.Pad[:]))
	}
	return 0, 0
}

func writeCPol(b *strings.Builder, in *isa.Inst, e *entry) {
	th, scope := CachePolicy(in)
	if t := cpolText[cpolCategory(e)][th&7][scope&3]; t != "" {
		b.WriteByte(' ')
		b.WriteString(t)
	}
}

func writeDPP(b *strings.Builder, in *isa.Inst, e *entry, aux int) {
	m := &in.Mod
	if aux == enc.AuxDPP8 {
		sel := in.Pad[dppWord(e)] >> 8
		b.WriteString(" dpp8:[")
		for i := 0; i < 8; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('0' + byte(sel>>(3*i)&7))
		}
		b.WriteByte(']')
		if src0Code(in, e) == 234 {
			b.WriteString(" fi:1")
		}
		return
	}
	c := m.DPPCtrl
	var a [64]byte
	t, ok := asmtext.AppendDPPCtrl(append(a[:0], ' '), c)
	switch {
	case ok:
	case c >= 0x150 && c <= 0x15f:
		t = strconv.AppendInt(append(t, "row_share:"...), int64(c&15), 10)
	case c >= 0x160 && c <= 0x16f:
		t = strconv.AppendInt(append(t, "row_xmask:"...), int64(c&15), 10)
	default:
		t = append(t, "/* DPP UNSUPPORTED */"...)
	}
	b.Write(asmtext.AppendDPPMasks(t, m.RowMask, m.BankMask, m.BoundCtrl))
	if m.FI {
		b.WriteString(" fi:1")
	}
}

func dppWord(e *entry) int {
	if e.kind == enc.VOP3 || e.kind == enc.VOP3P {
		return 2
	}
	return 1
}

func src0Code(in *isa.Inst, e *entry) uint32 {
	if e.kind == enc.VOP3 || e.kind == enc.VOP3P {
		return in.Pad[1] & 0x1ff
	}
	return in.Pad[0] & 0x1ff
}

func writeMods(b *strings.Builder, in *isa.Inst, e *entry) {
	m := &in.Mod
	aux := int(e.aux)
	switch e.kind {
	case enc.EXP:
		if enc.Layout[enc.FEDone].Get(in.Pad[:]) != 0 {
			b.WriteString(" done")
		}
		if enc.Layout[enc.FERow].Get(in.Pad[:]) != 0 {
			b.WriteString(" row_en")
		}
	case enc.VOP3:
		if e.opselN > 0 && m.OpSel&e.opselMask != 0 {
			opSelList(b, e, m.OpSel&e.opselMask)
		}
		if e.byteSel != [4]uint8{} {
			bs := 0
			for i := 0; i < 4; i++ {
				if m.OpSel>>i&1 != 0 {
					bs += int(e.byteSel[i])
				}
			}
			if bs != 0 {
				b.WriteString(" byte_sel:" + strconv.Itoa(bs))
			}
		}
		if e.flags&eClamp != 0 && m.Clamp {
			b.WriteString(" clamp")
		}
		if e.flags&eOMod != 0 && m.OMod != 0 {
			b.WriteString([4]string{"", " mul:2", " mul:4", " div:2"}[m.OMod&3])
		}
	case enc.VOP3P:
		if _, ok := IndexKeyMax(e.mnem, true); ok && m.OpSel&3 != 0 {
			b.WriteString(" index_key:" + strconv.Itoa(int(m.OpSel&3)))
		}
		if e.opselN > 0 && m.OpSel != 0 {
			bitList(b, "op_sel", m.OpSel, int(e.opselN), false)
		}
		if e.opselHiN > 0 {
			mask := uint8(1<<e.opselHiN - 1)
			if m.OpSelHi&mask != e.opselHiDef&mask {
				bitList(b, "op_sel_hi", m.OpSelHi, int(e.opselHiN), false)
			}
		}
		if e.negLoN > 0 && m.NegLo != 0 {
			bitList(b, "neg_lo", m.NegLo, int(e.negLoN), false)
		}
		if e.negHiN > 0 && m.NegHi != 0 {
			bitList(b, "neg_hi", m.NegHi, int(e.negHiN), false)
		}
		if e.flags&eClamp != 0 && m.Clamp {
			b.WriteString(" clamp")
		}
	case enc.VINTERP:
		if e.flags&eClamp != 0 && m.Clamp {
			b.WriteString(" clamp")
		}
		if e.opselN > 0 && m.OpSel&e.opselMask != 0 {
			opSelList(b, e, m.OpSel&e.opselMask)
		}
		b.WriteString(" wait_exp:" + strconv.Itoa(int(enc.Layout[enc.FIWait].Get(in.Pad[:]))))
	case enc.SMEM:
		if len(e.ops) == 0 || strings.Contains(e.mnem, "prefetch") {
			break
		}
		if aux == 0 && m.Offset != 0 {
			b.WriteString(" offset:")
			if m.Offset < 0 {
				b.WriteString("-")
				writeHex(b, uint64(-int64(m.Offset)))
			} else {
				writeHex(b, uint64(m.Offset))
			}
		}
		if strings.HasPrefix(e.mnem, "s_load") || strings.HasPrefix(e.mnem, "s_buffer_load") {
			writeCPol(b, in, e)
		}
	case enc.DS:
		if strings.Contains(e.mnem, "2addr") {
			if off0 := m.Offset & 0xff; off0 != 0 {
				b.WriteString(" offset0:" + strconv.Itoa(int(off0)))
			}
			if m.Offset1 != 0 {
				b.WriteString(" offset1:" + strconv.Itoa(int(m.Offset1)))
			}
		} else if e.mnem == "ds_swizzle_b32" && m.Offset != 0 {
			b.WriteString(" offset:")
			writeSwizzle(b, uint32(m.Offset))
		} else if m.Offset != 0 {
			b.WriteString(" offset:" + strconv.Itoa(int(m.Offset)))
		}
	case enc.FLAT, enc.GLOBAL, enc.SCRATCH:
		if m.Offset != 0 && len(e.ops) > 0 {
			b.WriteString(" offset:" + strconv.Itoa(int(m.Offset)))
		}
		writeCPol(b, in, e)
	case enc.VBUFFER:
		if strings.HasPrefix(e.mnem, "tbuffer") {
			if f := bufFormats[m.Format&127]; f != "" && f != "?" {
				b.WriteString(" " + f)
			}
		}
		if m.Idxen {
			b.WriteString(" idxen")
		}
		if m.Offen {
			b.WriteString(" offen")
		}
		if m.Offset != 0 {
			b.WriteString(" offset:" + strconv.Itoa(int(m.Offset)))
		}
		writeCPol(b, in, e)
	}
	if isVALU(e.kind) && aux != enc.AuxNone {
		writeDPP(b, in, e, aux)
	}
}

// expTarget names an export target as LLVM does.
func expTarget(t uint32) string {
	switch {
	case t <= 7:
		return "mrt" + strconv.Itoa(int(t))
	case t == 8:
		return "mrtz"
	case t >= 12 && t <= 16:
		return "pos" + strconv.Itoa(int(t-12))
	case t == 20:
		return "prim"
	case t == 21 || t == 22:
		return "dual_src_blend" + strconv.Itoa(int(t-21))
	}
	return "invalid_target_" + strconv.Itoa(int(t))
}

// writeSwizzle prints a ds_swizzle_b32 offset as LLVM does.
func writeSwizzle(b *strings.Builder, v uint32) {
	if v&0xff00 == 0x8000 {
		b.WriteString("swizzle(QUAD_PERM")
		for i := 0; i < 4; i++ {
			b.WriteString("," + strconv.Itoa(int(v>>(2*i)&3)))
		}
		b.WriteByte(')')
		return
	}
	if v&0x8000 != 0 {
		b.WriteString(strconv.Itoa(int(v)))
		return
	}
	and, or, xor := v&31, v>>5&31, v>>10&31
	pop := bits.OnesCount32(xor)
	switch {
	case and == 31 && or == 0 && pop == 1:
		b.WriteString("swizzle(SWAP," + strconv.Itoa(int(xor)) + ")")
	case and == 31 && or == 0 && xor > 0 && (xor+1)&xor == 0:
		b.WriteString("swizzle(REVERSE," + strconv.Itoa(int(xor+1)) + ")")
	default:
		g := 31 - and + 1
		if g > 1 && g&(g-1) == 0 && or < g && xor == 0 {
			b.WriteString("swizzle(BROADCAST," + strconv.Itoa(int(g)) + "," + strconv.Itoa(int(or)) + ")")
			return
		}
		p0, p1 := or^xor, (31&and|or)^xor
		b.WriteString("swizzle(BITMASK_PERM,\"")
		for m := uint32(16); m > 0; m >>= 1 {
			switch a, c := p0&m != 0, p1&m != 0; {
			case a && c:
				b.WriteByte('1')
			case !a && !c:
				b.WriteByte('0')
			case !a && c:
				b.WriteByte('p')
			default:
				b.WriteByte('i')
			}
		}
		b.WriteString("\")")
	}
}

// opSelList prints a VOP3/VINTERP op_sel list, each bit at the position
// LLVM prints it.
func opSelList(b *strings.Builder, e *entry, v uint8) {
	var l [4]byte
	n := int(e.opselN)
	for i := range l {
		l[i] = '0'
	}
	for bit := 0; bit < 4; bit++ {
		if v>>bit&1 != 0 && e.opselIdx[bit] > 0 && int(e.opselIdx[bit]) <= n {
			l[e.opselIdx[bit]-1] = '1'
		}
	}
	b.WriteString(" op_sel:[")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte(l[i])
	}
	b.WriteByte(']')
}
