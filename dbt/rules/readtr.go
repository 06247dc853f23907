package rules

import (
	"fmt"
	"slices"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// The gfx950 transposed LDS reads ds_read_b64_tr_b{4,8,16} work on groups
// of 16 lanes (lanes 16g..16g+15). Each lane supplies an address (VGPR +
// instruction offset) of 64 bits = E elements of b bits (E = 64/b); the 16
// lanes together address a 16 x (16*E/16) matrix whose rows are R = 16/E
// consecutive lanes' 64-bit blocks. The result gives lane l of the group
// column l of that matrix:
//
//	result[16g+l].elem[j] = mem[addr(16g + R*j + l/E) + (l%E)*b/8]   j = 0..E-1
//
// with elements packed little-endian (element j at bits j*b..j*b+b-1; for
// b = 4 the low nibble of a byte is the lower element). This is the
// layout MFMA operands need: 16-bit (E=4, R=4) lanes 4j..4j+3 hold row j;
// 8-bit (E=8, R=2) lanes 2j, 2j+1; 4-bit (E=16, R=1) lane j.
//
// Source of the lane mapping: the gfx950 MFMA operand layouts and the
// address layouts compilers choose for these instructions (16 lanes take
// part in each shuffle; for 16-bit data lanes 1, 2 step the row by 4 and 8
// elements and lanes 4, 8 step K by 1, 2; for 8-bit lane 1 steps by 8 and
// lanes 2, 4, 8 step K). It is not documented by AMD nor checked on
// hardware. The differential test (dbt/readtr_sim_test.go) checks the
// expansion against a reference model of this formula and against the
// simulated gfx950 agent, whose model was written from the same formula.
//
// The expansion: lane id from v_mbcnt; for each element j a ds_bpermute_b32
// fetches the address VGPR of the source lane, the lane adds its element's
// byte offset and reads the element with ds_read_u16/ds_read_u8 (with the
// guest's instruction offset), and packs it with v_lshl_or_b32 (16-bit
// elements into VGPRs apart from the address: all permutes, then all
// reads, with one wait each, packed at the end). Result
// dwords are assembled in place, except a dword whose register is the
// address VGPR (moved there at the end) and AGPR destinations (assembled in
// a scratch VGPR and written with v_accvgpr_write_b32). Every LDS access is
// waited for (lgkmcnt(0)), which is stricter than the guest's own wait.
//
// ds_read_b96_tr_b6 is not handled (its 6-bit packing is not established
// well enough here); it stays rejected.

// ReadTrBound documents the partial-EXEC difference.
const ReadTrBound = "exact when every 16-lane group containing an active lane is fully active; otherwise an active lane whose source lane is inactive uses the address ds_bpermute_b32 returns for an inactive lane (0 on the simulator) instead of that lane's address VGPR (gfx950's partial-EXEC behaviour is undocumented)"

func init() {
	register(Pair{isa.GFX950, isa.GFX942}, &Rule{
		Name:     ReadTrRuleName,
		Ops:      []string{"ds_read_b64_tr_b16", "ds_read_b64_tr_b8", "ds_read_b64_tr_b4"},
		Fidelity: report.Approximate,
		Bound:    ReadTrBound,
		Emit:     emitReadTr,
		Shared:   readTrShared,
	})
}

// Host opcodes used by the expansion.
const (
	dsOpReadU8  = 0x3a
	dsOpReadU16 = 0x3c
	// dsOpReadU16D16Hi is ds_read_u16_d16_hi (the run code only: the
	// gfx12 pair lowers the registered rule's code, which does not use
	// it).
	dsOpReadU16D16Hi = 0x5b
	// dsAcc is the DS acc bit: vdst names AGPRs (gfx90a and later).
	dsAcc          = 1 << 25
	op1MovB32VOP1  = 0x01
	vop3pAccWrite0 = 0xd3d94000 // v_accvgpr_write_b32 (op_sel_hi set as the assembler emits it)
	vop3pAccWrite1 = 0x18000000
)

// ReadTrTemps returns how many scratch VGPRs ReadTrCode needs: a lane
// selector, an element offset and an address (plus a nibble shift for
// 4-bit elements), and one more when the destination is AGPRs or overlaps
// the address register (then a dword is assembled in a scratch register).
func ReadTrTemps(bits int, vdst uint16, acc bool, vaddr uint16) int {
	n := 3
	if bits == 4 {
		n++
	}
	if acc || vaddr == vdst || vaddr == vdst+1 {
		n++
	}
	return n
}

// ReadTrCode returns the host expansion of a ds_read_b64_tr_b<bits>
// (bits 16, 8 or 4) reading through guest address VGPR vaddr with
// instruction offset off into the destination register pair starting at
// vdst (AGPRs when acc). t holds ReadTrTemps distinct scratch VGPRs not
// named by the guest instruction.
func ReadTrCode(bits int, vdst uint16, acc bool, vaddr uint16, off uint32, t []uint16) ([]byte, error) {
	var e, shift int // elements per lane, log2(e)
	switch bits {
	case 16:
		e, shift = 4, 2
	case 8:
		e, shift = 8, 3
	case 4:
		e, shift = 16, 4
	default:
		return nil, fmt.Errorf("ds_read_tr: element size %d", bits)
	}
	if need := ReadTrTemps(bits, vdst, acc, vaddr); len(t) < need {
		return nil, fmt.Errorf("ds_read_tr: %d scratch VGPRs, need %d", len(t), need)
	}
	r := 16 / e
	s, b, a := t[0], t[1], t[2]
	var h, o uint16
	next := 3
	if bits == 4 {
		h = t[next]
		next++
	}
	// Where dword k of the result is assembled: in place, or in a scratch
	// register when the destination is AGPRs or is the address register.
	target := func(k int) uint16 {
		d := vdst + uint16(k)
		if acc || d == vaddr {
			return o
		}
		return d
	}
	if acc || vaddr == vdst || vaddr == vdst+1 {
		o = t[next]
	}
	var w []uint32
	add3 := func(p [2]uint32) { w = append(w, p[0], p[1]) }
	// s = lane id.
	add3(vop3(op3MbcntLo, s, srcOnes, srcZero, 0))
	add3(vop3(op3MbcntHi, s, srcOnes, srcVGPR+s, 0))
	// b = byte offset of this lane's element inside a source row; h = bit
	// shift of the nibble (4-bit only).
	switch bits {
	case 16:
		w = append(w, vop2(op2AndB32, b, inlineInt(3), s, 0)...)
		w = append(w, vop2(op2LshlrevB32, b, inlineInt(1), b, 0)...)
	case 8:
		w = append(w, vop2(op2AndB32, b, inlineInt(7), s, 0)...)
	case 4:
		add3(vop3(op3BfeU32, b, srcVGPR+s, inlineInt(1), inlineInt(3)))
		w = append(w, vop2(op2AndB32, h, inlineInt(1), s, 0)...)
		w = append(w, vop2(op2LshlrevB32, h, inlineInt(2), h, 0)...)
	}
	// s = byte selector of the first source lane: 4*(16g + (l%16)/e).
	if shift < 4 {
		add3(vop3(op3BfeU32, a, srcVGPR+s, inlineInt(shift), inlineInt(4-shift)))
		w = append(w, vop2(op2AndB32, s, inlineInt(48), s, 0)...)
		w = append(w, vop2(op2OrB32, s, srcVGPR+a, s, 0)...)
	} else {
		w = append(w, vop2(op2AndB32, s, inlineInt(48), s, 0)...)
	}
	w = append(w, vop2(op2LshlrevB32, s, inlineInt(2), s, 0)...)
	if bits == 16 && !acc && vaddr != vdst && vaddr != vdst+1 {
		// 16-bit elements into VGPRs apart from the address: the four
		// permutes, then the four reads, are issued back to back (one wait
		// each), the element addresses held in the destination pair, a and
		// s (the last permute replaces the selector), then packed in
		// place: 24 instructions instead of 34.
		el := [4]uint16{vdst, vdst + 1, a, s}
		for j, d := range el {
			// Source lane 16g + r*j + (l%16)/e: the selector plus 4*r*j
			// bytes, in the instruction offset (ds_bpermute_b32 picks the
			// lane by bits 7:2 of address + offset).
			add3(dsRead(dsOpBpermute, d, s, vaddr, uint32(4*r*j)))
		}
		w = append(w, waitLGKMCnt0)
		for _, d := range el {
			w = append(w, vop2(op2AddU32, d, srcVGPR+b, d, 0)...)
		}
		for _, d := range el {
			add3(dsRead(dsOpReadU16, d, d, 0, off))
		}
		w = append(w, waitLGKMCnt0)
		add3(vop3(op3LshlOrB32, vdst, srcVGPR+vdst+1, inlineInt(16), srcVGPR+vdst))
		add3(vop3(op3LshlOrB32, vdst+1, srcVGPR+s, inlineInt(16), srcVGPR+a))
		return appendWords(nil, w...), nil
	}
	dsOp := uint32(dsOpReadU16)
	if bits != 16 {
		dsOp = dsOpReadU8
	}
	perDword := 32 / bits
	for j := 0; j < e; j++ {
		add3(dsRead(dsOpBpermute, a, s, vaddr, uint32(4*r*j)))
		w = append(w, waitLGKMCnt0)
		w = append(w, vop2(op2AddU32, a, srcVGPR+b, a, 0)...)
		add3(dsRead(dsOp, a, a, 0, off))
		w = append(w, waitLGKMCnt0)
		if bits == 4 {
			add3(vop3(op3BfeU32, a, srcVGPR+a, srcVGPR+h, inlineInt(4)))
		}
		dw := j / perDword
		d := target(dw)
		if k := j % perDword; k == 0 {
			w = append(w, 0x7e000000|uint32(d&0xff)<<17|op1MovB32VOP1<<9|uint32(srcVGPR+a))
		} else {
			add3(vop3(op3LshlOrB32, d, srcVGPR+a, inlineInt(k*bits), srcVGPR+d))
		}
		if acc && j%perDword == perDword-1 {
			// The dword is complete: move it to its AGPR.
			w = append(w, vop3pAccWrite0|uint32((vdst+uint16(dw))&0xff), vop3pAccWrite1|uint32(srcVGPR+o))
		}
	}
	if !acc {
		for k := 0; k < 2; k++ {
			if d := vdst + uint16(k); d == vaddr {
				w = append(w, 0x7e000000|uint32(d&0xff)<<17|op1MovB32VOP1<<9|uint32(srcVGPR+o))
			}
		}
	}
	return appendWords(nil, w...), nil
}

func emitReadTr(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
	if len(raw) != 8 {
		return nil, fieldErr(in, "size", uint32(len(raw)))
	}
	w := words(raw)
	if w[0]>>16&1 != 0 {
		return nil, fieldErr(in, "gds", 1)
	}
	bits := 0
	switch in.Name() {
	case "ds_read_b64_tr_b16":
		bits = 16
	case "ds_read_b64_tr_b8":
		bits = 8
	case "ds_read_b64_tr_b4":
		bits = 4
	default:
		return nil, fmt.Errorf("%s at %#x: not a transposed read this rule handles", in.Name(), in.PC)
	}
	acc := w[0]>>25&1 != 0
	vaddr, vdst := uint16(w[1]&0xff), uint16(w[1]>>24)
	if vdst > 254 {
		return nil, fieldErr(in, "vdst", uint32(vdst))
	}
	t, err := ctx.TempVGPRs(ReadTrTemps(bits, vdst, acc, vaddr))
	if err != nil {
		return nil, err
	}
	return ReadTrCode(bits, vdst, acc, vaddr, w[0]&0xffff, t)
}

// Runs of 16-bit transposed reads (issue 15). The aiter attention kernels
// read a tile with up to 32 consecutive ds_read_b64_tr_b16 through one
// address VGPR at different instruction offsets. The source lanes and
// their addresses are the same for every read of such a run, so where the
// reads are inline (virtual-LDS sidecars, which run these kernels on
// gfx942, or subroutines turned off) the first read of a run emits the
// whole run: the lane set-up and the four ds_bpermute_b32 once (16
// instructions), then per read two ds_read_u16 and two ds_read_u16_d16_hi
// with its offset, which assemble the two dwords in place (AGPRs too,
// with the DS acc bit), and one wait (5 instructions), instead of 24 each.
// The later reads of the run then emit nothing. That moves them before
// nothing: the run's reads are adjacent and read only the address VGPR,
// which none of them writes, and LDS, which none writes; they write their
// destinations in program order. A run may go through up to
// readTrRunAddrs address VGPRs (the aiter MLA kernels alternate two in
// groups of four adjacent reads): the lane set-up is shared and each
// address VGPR gets its own four permutes, read before any destination
// is written, so the run ends before a read whose address an earlier
// read of the run writes.

// VGPRReserver is a Context that can keep VGPRs from the scratch
// registers it hands out for the rest of the current instruction's
// translation (the registers a rule's code writes early that liveness at
// the instruction counts as dead).
type VGPRReserver interface {
	ReserveVGPRs(regs ...uint16)
}

// ReadTrRuleName is the transposed-read rule's name.
const ReadTrRuleName = "ds-read-tr"

// readTrRunMax bounds a run (the reads of one emitted group).
const readTrRunMax = 64

// readTrOffsetSpan bounds the DS offsets of a run's reads (the global
// memory instructions' 13-bit signed offset holds 0..4095).
const readTrOffsetSpan = 4096

// readTrMember is one read of a run.
type readTrMember struct {
	pc    uint64
	vdst  uint16
	acc   bool
	off   uint32
	vaddr uint16
}

// readTrMemberOf returns the fields of a ds_read_b64_tr_b16 whose
// destination does not overlap its address VGPR (the decoder splits the
// 16-bit offset into the DS offset0 and offset1 bytes).
func readTrMemberOf(in *isa.Inst) (m readTrMember, vaddr uint16, ok bool) {
	if in.Name() != "ds_read_b64_tr_b16" || in.Mod.GDS || len(in.Operands) != 2 || in.Mod.Offset < 0 || in.Mod.Offset > 0xff {
		return m, 0, false
	}
	d, a := in.Operands[0], in.Operands[1]
	if d.Kind != isa.KindReg || d.Width != 2 || d.Reg > 254 || (d.Class != isa.VGPR && d.Class != isa.AGPR) || a.Kind != isa.KindReg || a.Class != isa.VGPR || a.Width != 1 {
		return m, 0, false
	}
	m = readTrMember{pc: in.PC, vdst: d.Reg, acc: d.Class == isa.AGPR, off: uint32(in.Mod.Offset) | uint32(in.Mod.Offset1)<<8, vaddr: a.Reg}
	if !m.acc && (a.Reg == d.Reg || a.Reg == d.Reg+1) {
		return m, 0, false
	}
	return m, a.Reg, true
}

// readTrRunAddrs bounds the address VGPRs of a run (each takes four
// scratch registers for its element addresses).
const readTrRunAddrs = 2

// readTrRun returns the run block[i] belongs to from block[i] on: the
// adjacent 16-bit reads through at most readTrRunAddrs address VGPRs,
// ending before a read whose address VGPR an earlier read of the run
// writes (the run's code reads every address before it writes any
// destination); fewer than two reads in all, counting an adjacent read
// before block[i], is no run.
func readTrRun(block []*isa.Inst, i int) ([]readTrMember, bool) {
	if i < 0 || i >= len(block) {
		return nil, false
	}
	m, _, ok := readTrMemberOf(block[i])
	if !ok {
		return nil, false
	}
	before := 0
	if i > 0 {
		if _, _, ok := readTrMemberOf(block[i-1]); ok {
			before = 1
		}
	}
	run := []readTrMember{m}
	addrs := []uint16{m.vaddr}
	var dsts []uint16
	for j := i + 1; j < len(block) && len(run) < readTrRunMax; j++ {
		if p := run[len(run)-1]; !p.acc {
			dsts = append(dsts, p.vdst, p.vdst+1)
		}
		x, a, ok := readTrMemberOf(block[j])
		if !ok || slices.Contains(dsts, a) {
			break
		}
		if !slices.Contains(addrs, a) {
			if len(addrs) == readTrRunAddrs {
				break
			}
			addrs = append(addrs, a)
		}
		run = append(run, x)
	}
	return run, before+len(run) >= 2
}

// readTrRunAddrList is the run's address VGPRs in order of first use.
func readTrRunAddrList(run []readTrMember) []uint16 {
	var addrs []uint16
	for _, m := range run {
		if !slices.Contains(addrs, m.vaddr) {
			addrs = append(addrs, m.vaddr)
		}
	}
	return addrs
}

// readTrGroupTemps is how many scratch VGPRs readTrGroupCode needs: the
// lane selector and element offset and four element addresses per
// address VGPR.
func readTrGroupTemps(run []readTrMember) int {
	return 2 + 4*len(readTrRunAddrList(run))
}

// readTrGroupCode returns the expansion of the reads run (16-bit
// elements, through the run's address VGPRs) with scratch VGPRs t
// (readTrGroupTemps of them, named by no read of the run): the lane
// set-up once, the four element addresses of each address VGPR (in order
// of first use), then the reads in program order.
func readTrGroupCode(run []readTrMember, t []uint16) []byte {
	s, b := t[0], t[1]
	addrs := readTrRunAddrList(run)
	el := make([][4]uint16, len(addrs))
	for k := range el {
		el[k] = [4]uint16{t[2+4*k], t[3+4*k], t[4+4*k], t[5+4*k]}
	}
	var w []uint32
	add3 := func(p [2]uint32) { w = append(w, p[0], p[1]) }
	// s = lane id; b = byte offset of the lane's element in a source row.
	add3(vop3(op3MbcntLo, s, srcOnes, srcZero, 0))
	add3(vop3(op3MbcntHi, s, srcOnes, srcVGPR+s, 0))
	w = append(w, vop2(op2AndB32, b, inlineInt(3), s, 0)...)
	w = append(w, vop2(op2LshlrevB32, b, inlineInt(1), b, 0)...)
	// s = byte selector of the first source lane: 4*(16g + (l%16)/4) =
	// (l&48)<<2 | l&12.
	w = append(w, vop2(op2AndB32, el[0][0], inlineInt(12), s, 0)...)
	w = append(w, vop2(op2AndB32, s, inlineInt(48), s, 0)...)
	add3(vop3(op3LshlOrB32, s, srcVGPR+s, inlineInt(2), srcVGPR+el[0][0]))
	// el[k][j] = the address of element j through address VGPR k: source
	// lane 16g + 4j + (l%16)/4.
	for k, a := range addrs {
		for j, d := range el[k] {
			add3(dsRead(dsOpBpermute, d, s, a, uint32(16*j)))
		}
	}
	// The element addresses are moved by base so that every read's offset
	// field stays below readTrOffsetSpan: a virtual-LDS sidecar lowers an
	// LDS read with a larger one through a scratch register of its own,
	// one per read of the run. When the first read's offset is past the
	// span, every address starts from it: added once to the element
	// offset b, before b is added to the element addresses.
	base := make([]uint32, len(addrs))
	if off := run[0].off; off >= readTrOffsetSpan {
		w = append(w, vop2(op2AddU32, b, srcLit, b, off)...)
		for k := range base {
			base[k] = off
		}
	}
	w = append(w, waitLGKMCnt0)
	for _, e := range el {
		for _, d := range e {
			w = append(w, vop2(op2AddU32, d, srcVGPR+b, d, 0)...)
		}
	}
	for _, m := range run {
		k := slices.Index(addrs, m.vaddr)
		if m.off < base[k] || m.off-base[k] >= readTrOffsetSpan {
			for _, d := range el[k] {
				w = append(w, vop2(op2AddU32, d, srcLit, d, m.off-base[k])...)
			}
			base[k] = m.off
		}
		// Elements 0, 2 go to the low halves of the two dwords
		// (ds_read_u16, zero-extended), elements 1, 3 to their high
		// halves (ds_read_u16_d16_hi keeps the low half; LDS reads
		// return in order), in place: AGPRs through the DS acc bit.
		for j, d := range [4]uint16{m.vdst, m.vdst, m.vdst + 1, m.vdst + 1} {
			op := uint32(dsOpReadU16)
			if j%2 == 1 {
				op = dsOpReadU16D16Hi
			}
			r := dsRead(op, d, el[k][j], 0, m.off-base[k])
			if m.acc {
				r[0] |= dsAcc
			}
			add3(r)
		}
		w = append(w, waitLGKMCnt0)
	}
	return appendWords(nil, w...)
}

// readTrRunKey is the pair.Site.Memo entry holding, per read of a run,
// whether an earlier read's code of the current emission covers it.
const readTrRunKey = "rules/ds-read-tr-run"

// ReadTrRunRule returns the form of the transposed-read rule for
// block[i] when it belongs to a run of two or more 16-bit reads through
// at most readTrRunAddrs address VGPRs and the reads are emitted inline
// (see above); nil
// otherwise. memo is the pair's per-scope cache (pair.Site.Memo).
func ReadTrRunRule(block []*isa.Inst, i int, memo map[string]any) *Rule {
	run, ok := readTrRun(block, i)
	if !ok || memo == nil {
		return nil
	}
	covered, _ := memo[readTrRunKey].(map[uint64]bool)
	if covered == nil {
		covered = map[uint64]bool{}
		memo[readTrRunKey] = covered
	}
	base := For(isa.GFX950, isa.GFX942, "ds_read_b64_tr_b16")
	if base == nil {
		return nil
	}
	r := *base
	r.Shared = nil
	r.Emit = func(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
		if in.PC != run[0].pc {
			return nil, fmt.Errorf("ds_read_tr run at %#x emitted for %#x", run[0].pc, in.PC)
		}
		if covered[in.PC] {
			// An earlier read of the run emitted this one.
			return []byte{}, nil
		}
		t, err := ctx.TempVGPRs(readTrGroupTemps(run))
		if err != nil {
			return nil, err
		}
		// The group ends before a read whose destination is one of the
		// scratch registers (dead after this read, written by that one),
		// or whose address VGPR is (a live register borrowed for this
		// read: the run's code would overwrite it before reading it).
		// The later reads' destinations are kept from the scratch
		// registers of the rest of this translation (a sidecar lowers
		// the LDS accesses of the code with some): a context that cannot
		// keep them gets a group of one.
		res, ok := ctx.(VGPRReserver)
		n := 1
		for ; ok && n < len(run); n++ {
			if m := run[n]; slices.Contains(t, m.vaddr) || !m.acc && (slices.Contains(t, m.vdst) || slices.Contains(t, m.vdst+1)) {
				break
			}
		}
		for _, m := range run[:n] {
			if ok && !m.acc {
				res.ReserveVGPRs(m.vdst, m.vdst+1)
			}
		}
		if need := readTrGroupTemps(run[:n]); need < len(t) {
			t = t[:need]
		}
		// Marks set by an earlier emission of the scope are replaced.
		for k, m := range run[1:] {
			covered[m.pc] = k+1 < n
		}
		return readTrGroupCode(run[:n], t), nil
	}
	return &r
}
