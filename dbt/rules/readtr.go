package rules

import (
	"fmt"

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
		Name:     "ds-read-tr",
		Ops:      []string{"ds_read_b64_tr_b16", "ds_read_b64_tr_b8", "ds_read_b64_tr_b4"},
		Fidelity: report.Approximate,
		Bound:    ReadTrBound,
		Emit:     emitReadTr,
		Shared:   readTrShared,
	})
}

// Host opcodes used by the expansion.
const (
	dsOpReadU8     = 0x3a
	dsOpReadU16    = 0x3c
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
		// place: 27 instructions instead of 37.
		el := [4]uint16{vdst, vdst + 1, a, s}
		for j, d := range el {
			if j > 0 {
				w = append(w, vop2(op2AddU32, s, inlineInt(4*r), s, 0)...)
			}
			add3(dsRead(dsOpBpermute, d, s, vaddr, 0))
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
		if j > 0 {
			w = append(w, vop2(op2AddU32, s, inlineInt(4*r), s, 0)...)
		}
		add3(dsRead(dsOpBpermute, a, s, vaddr, 0))
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
