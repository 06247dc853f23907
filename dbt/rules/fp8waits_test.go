package rules

import (
	"fmt"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
)

// TestFP8ClearEveryByte clears every byte value in every byte position of
// the A and B registers of an FP8 MFMA (in place, VGPR and AGPR operands,
// in the three- and four-operation forms, with the mask in the constant
// register or as literals, or ahead of a later MFMA) and checks that
// exactly the 0x80 bytes became 0x00; in copy mode the guest registers
// keep their bytes.
func TestFP8ClearEveryByte(t *testing.T) {
	for _, acc := range []bool{false, true} {
		for _, mode := range []OperandMode{InPlace, Copy, Clean} {
			for _, spare := range []bool{false, true} {
				for _, k := range []int{-1, 105} {
					name := fmt.Sprintf("acc %v mode %d spare %v K %d", acc, mode, spare, k)
					var wv wave
					AB := &wv.v
					if acc {
						AB = &wv.a
					}
					// Lane l, register r: byte b holds (4l + r + 64b) mod 256,
					// so each byte position sees all 256 codes.
					for l := 0; l < 64; l++ {
						for r := 0; r < 4; r++ {
							var x uint32
							for b := 0; b < 4; b++ {
								x |= uint32(4*l+r+64*b) & 0xff << (8 * b)
							}
							AB[10+r][l] = x
						}
					}
					orig := *AB
					w0 := uint32(0xd3800000 | 0x73<<16 | 40)
					w1 := uint32(256+10) | uint32(256+12)<<9 | uint32(srcZero)<<18
					if acc {
						w1 |= 3 << 27
					}
					f := FP8MFMAForm{K: k, ScaledOut: true, A: mode, B: mode, Spare: 106, HasSpare: spare}
					if mode == Clean {
						// The same registers cleared ahead of a later MFMA.
						f.Ahead = []FP8Regs{{AGPR: acc, Reg: 10, N: 2}, {AGPR: acc, Reg: 12, N: 2}}
					}
					code, err := FP8MFMAFormCode(w0, w1, 0x73, 4, 1, 100, 102, 104, f)
					if err != nil {
						t.Fatal(err)
					}
					wv.run(t, code)
					for r := 0; r < 4; r++ {
						got := AB[10+r]
						if mode == Copy {
							if got != orig[10+r] {
								t.Fatalf("%s: guest register %d changed", name, r)
							}
							got = wv.v[100+r]
						}
						for l := 0; l < 64; l++ {
							for b := 0; b < 32; b += 8 {
								in, out := orig[10+r][l]>>b&0xff, got[l]>>b&0xff
								want := in
								if in == 0x80 {
									want = 0
								}
								if out != want {
									t.Fatalf("%s: register %d lane %d byte %d: %#x -> %#x, want %#x", name, r, l, b/8, in, out, want)
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestFP8MFMAWaitStates decodes FP8 MFMA expansions in every operand mode,
// chain form, part count, accumulator file and with or without the spare
// register and registers cleared ahead, and checks the gfx942 wait states they must
// provide themselves (LLVM's GCNHazardRecognizer, GFX940 rules): a VALU
// write of a register an MFMA reads is at least 2 wait states before it,
// and a VALU access of a register an N-pass XDL MFMA wrote at least N+3
// after it; each instruction is one wait state, s_nop n is n+1.
func TestFP8MFMAWaitStates(t *testing.T) {
	type write struct {
		at    int // wait-state position of the writer
		mfma  bool
		needs int // wait states a VALU access needs after an MFMA write
	}
	for _, op := range []struct {
		op        uint32
		cd, parts int
		guest     uint32
	}{{0x73, 4, 1, 0x73}, {0x77, 16, 1, 0x77}, {0x73, 4, 4, 0x2d}, {0x77, 16, 4, 0x2e}} {
		for mode := 0; mode < 9; mode++ {
			for form := 0; form < 16; form++ {
				for _, accAB := range []bool{false, true} {
					f := FP8MFMAForm{K: 105, ScaledIn: form&1 != 0, ScaledOut: form&2 != 0, HasSpare: form&4 != 0, Spare: 106, TailFree: form&8 != 0,
						A: OperandMode(mode / 3), B: OperandMode(mode % 3)}
					if form&4 != 0 {
						// Registers of a later MFMA cleared ahead of it.
						f.Ahead = []FP8Regs{{AGPR: accAB, Reg: 30, N: 4}}
					}
					w0 := 0xd3800000 | op.guest<<16 | 40
					w1 := uint32(256+10) | uint32(256+20)<<9 | uint32(256+40)<<18
					if accAB {
						w1 |= 3 << 27
					}
					code, err := FP8MFMAFormCode(w0, w1, op.op, op.cd, op.parts, 100, 102, 104, f)
					if err != nil {
						t.Fatal(err)
					}
					name := fmt.Sprintf("op %#x parts %d form %+v accAB %v", op.op, op.parts, f, accAB)
					last := map[[2]int]write{} // (file, reg) -> last write
					at := 0
					for pc := 0; pc < len(code); {
						in, err := gfx9.Decode(code[pc:], uint64(pc), isa.GFX942)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						pc += int(in.Size)
						if in.Name() == "s_nop" {
							at += int(in.Operands[0].Imm) + 1
							continue
						}
						mfma := in.Info.Flags&isa.FlagMFMA != 0
						regs := func(o *isa.Operand, fn func(k [2]int)) {
							if o.Kind != isa.KindReg || (o.Class != isa.VGPR && o.Class != isa.AGPR) {
								return
							}
							lo, hi := o.Regs()
							for r := lo; r <= hi; r++ {
								fn([2]int{int(o.Class), r})
							}
						}
						for k := range in.Operands {
							o := &in.Operands[k]
							regs(o, func(r [2]int) {
								wr, ok := last[r]
								if !ok {
									return
								}
								gap := at - wr.at - 1
								switch {
								case mfma && !wr.mfma && o.Role.Uses() && gap < 2:
									t.Errorf("%s: %s reads %v %d wait states after a VALU write, needs 2", name, gfx9.Print(&in), r, gap)
								case !mfma && wr.mfma && gap < wr.needs:
									t.Errorf("%s: %s accesses %v %d wait states after an MFMA write, needs %d", name, gfx9.Print(&in), r, gap, wr.needs)
								}
							})
						}
						for k := range in.Operands {
							o := &in.Operands[k]
							if !o.Role.Defines() {
								continue
							}
							regs(o, func(r [2]int) {
								passes := 4
								if op.cd > 4 {
									passes = 8
								}
								last[r] = write{at: at, mfma: mfma, needs: passes + 3}
							})
						}
						at++
					}
					// A later MFMA may read the registers cleared ahead
					// right after the expansion.
					for _, g := range f.Ahead {
						class := isa.VGPR
						if g.AGPR {
							class = isa.AGPR
						}
						for r := int(g.Reg); r < int(g.Reg)+int(g.N); r++ {
							if wr, ok := last[[2]int{int(class), r}]; !ok || at-wr.at-1 < 2 {
								t.Errorf("%s: register %d cleared ahead %d wait states before the end (written: %v), needs 2", name, r, at-wr.at-1, ok)
							}
						}
					}
				}
			}
		}
	}
}

// TestFP8MFMATailFree checks when the wait after the scaling of D is
// dropped: the next two instructions are in the block and do not name D.
func TestFP8MFMATailFree(t *testing.T) {
	mfma := []uint32{0xd3800000 | 0x73<<16 | 40, (256 + 10) | (256+12)<<9 | srcZero<<18}
	nop := []uint32{0xbf800000}
	for _, c := range []struct {
		name  string
		words [][]uint32
		want  bool
	}{
		{"free", [][]uint32{mfma, nop, nop, {0x7e640329}}, true},    // third: v_mov_b32 v50, v41
		{"reader", [][]uint32{mfma, nop, {0x7e640329}, nop}, false}, // second: v_mov_b32 v50, v41
		{"writer", [][]uint32{mfma, {0x7e520332}, nop, nop}, false}, // first: v_mov_b32 v41, v50
		{"end", [][]uint32{mfma, nop}, false},
	} {
		var block []*isa.Inst
		pc := uint64(0)
		for _, w := range c.words {
			in, err := gfx9.Decode(appendWords(nil, w...), pc, isa.GFX950)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			pc += uint64(in.Size)
			block = append(block, &in)
		}
		if sh := FP8MFMAShapeAt(block, 0, nil, nil); sh.TailFree != c.want {
			t.Errorf("%s: TailFree %v, want %v", c.name, sh.TailFree, c.want)
		}
	}
}

// TestFP8ScopeReadsAfterMFMAWrite checks the read set: a register read by
// a VALU operation after a zero-C FP8 MFMA of the same block wrote it as
// D, or a move wrote it, does not count (the value read is that write's),
// unless EXEC is written between, the read is in another block or the
// move writes part of the register (SDWA).
func TestFP8ScopeReadsAfterMFMAWrite(t *testing.T) {
	dec := func(w ...uint32) *isa.Inst {
		in, err := gfx9.Decode(appendWords(nil, w...), 0, isa.GFX950)
		if err != nil {
			t.Fatal(err)
		}
		return &in
	}
	mfma := dec(0xd3800000|0x73<<16|40, (256+10)|(256+12)<<9|srcZero<<18) // v[40:43] = v[10:11] x v[12:13]
	read := dec(0x7e640329)                                               // v_mov_b32 v50, v41
	exec := dec(0xbefe0180)                                               // s_mov_b64 exec, 0
	v41 := &isa.Operand{Kind: isa.KindReg, Class: isa.VGPR, Reg: 41, Width: 1}
	for _, c := range []struct {
		name   string
		blocks [][]*isa.Inst
		want   bool
	}{
		{"after the MFMA", [][]*isa.Inst{{mfma, read}}, false},
		{"before the MFMA", [][]*isa.Inst{{read, mfma}}, true},
		{"EXEC between", [][]*isa.Inst{{mfma, exec, read}}, true},
		{"other block", [][]*isa.Inst{{mfma}, {read}}, true},
		{"after a move", [][]*isa.Inst{{dec(0x7e520280), read}}, false},                  // v_mov_b32 v41, 0
		{"after an SDWA move", [][]*isa.Inst{{dec(0x7e5202f9, 0x00061080), read}}, true}, // v_mov_b32_sdwa v41, v128 dst_sel:BYTE_0
	} {
		rs := fp8ScopeReads(func(fn func([]*isa.Inst, []int, bool)) {
			for _, b := range c.blocks {
				fn(b, nil, true)
			}
		})
		if got := rs.has(v41); got != c.want {
			t.Errorf("%s: v41 in the read set %v, want %v", c.name, got, c.want)
		}
	}
}

// TestFP8ReadAfterMFMAWriteAndClear checks the two conditions that keep a
// read let pass by fp8ScopeReads (after an MFMA wrote the register as D)
// from seeing a cleared value: an FP8 MFMA reading the register as A/B
// between makes the read count, and no MFMA before the read clears the
// register ahead of an FP8 reader after it.
func TestFP8ReadAfterMFMAWriteAndClear(t *testing.T) {
	dec := func(w ...uint32) *isa.Inst {
		in, err := gfx9.Decode(appendWords(nil, w...), 0, isa.GFX950)
		if err != nil {
			t.Fatal(err)
		}
		return &in
	}
	mf := func(d, a, b uint32) *isa.Inst {
		return dec(0xd3800000|0x73<<16|d, (256+a)|(256+b)<<9|srcZero<<18)
	}
	kill := mf(10, 20, 22)   // v[10:13] = v[20:21] x v[22:23]
	other := mf(40, 24, 26)  // v[40:43] = v[24:25] x v[26:27]
	reader := mf(44, 10, 28) // v[44:47] = v[10:11] x v[28:29]
	read := dec(0x7e64030a)  // v_mov_b32 v50, v10
	v10 := &isa.Operand{Kind: isa.KindReg, Class: isa.VGPR, Reg: 10, Width: 2}
	// kill, FP8 reader, read: the read counts.
	block := []*isa.Inst{kill, reader, read}
	rs := fp8ScopeReads(func(fn func([]*isa.Inst, []int, bool)) { fn(block, nil, true) })
	if !rs.has(v10) {
		t.Error("v10 read after an FP8 MFMA read it as A does not count")
	}
	// kill, other MFMA, read, FP8 reader: the reader clears v[10:11]
	// itself, not the other MFMA ahead of it.
	block = []*isa.Inst{kill, other, read, reader}
	rs = fp8ScopeReads(func(fn func([]*isa.Inst, []int, bool)) { fn(block, nil, true) })
	if rs.has(v10) {
		t.Fatal("v10 read after the MFMA that wrote it counts")
	}
	pl := fp8PlanBlock(block, rs)
	for i, a := range pl.ahead {
		for _, g := range a {
			if !g.AGPR && g.Reg <= 11 && 10 < g.Reg+uint16(g.N) {
				t.Errorf("instruction %d clears %v ahead, before the read of v10", i, g)
			}
		}
	}
	if pl.modes[3][0] != InPlace {
		t.Errorf("reader's A: mode %v, want in place", pl.modes[3][0])
	}
}

// TestFP8ScopeReadsAcrossBlocks checks the must analysis over the
// scope's edges: a read after a whole write in a predecessor does not
// count when every path to it has the write (a loop that does not
// redefine the register included), and counts when one predecessor
// lacks it, when the loop reads the register as an FP8 MFMA operand, or
// when the reading block is an entry.
func TestFP8ScopeReadsAcrossBlocks(t *testing.T) {
	dec := func(w ...uint32) *isa.Inst {
		in, err := gfx9.Decode(appendWords(nil, w...), 0, isa.GFX950)
		if err != nil {
			t.Fatal(err)
		}
		return &in
	}
	mov := dec(0x7e520280)                                               // v_mov_b32 v41, 0
	read := dec(0x7e640329)                                              // v_mov_b32 v50, v41
	nop := dec(0xbf800000)                                               // s_nop 0
	fp8 := dec(0xd3800000|0x73<<16|60, (256+40)|(256+12)<<9|srcZero<<18) // reads v[40:41] as A
	v41 := &isa.Operand{Kind: isa.KindReg, Class: isa.VGPR, Reg: 41, Width: 1}
	type blk struct {
		insts []*isa.Inst
		succs []int
		entry bool
	}
	for _, c := range []struct {
		name   string
		blocks []blk
		want   bool
	}{
		{"straight", []blk{{[]*isa.Inst{mov}, []int{1}, true}, {[]*isa.Inst{read}, nil, false}}, false},
		{"entry", []blk{{[]*isa.Inst{mov}, []int{1}, true}, {[]*isa.Inst{read}, nil, true}}, true},
		{"diamond", []blk{{[]*isa.Inst{nop}, []int{1, 2}, true}, {[]*isa.Inst{mov}, []int{3}, false}, {[]*isa.Inst{nop}, []int{3}, false}, {[]*isa.Inst{read}, nil, false}}, true},
		{"loop", []blk{{[]*isa.Inst{mov}, []int{1}, true}, {[]*isa.Inst{read, nop}, []int{1, 2}, false}, {[]*isa.Inst{nop}, nil, false}}, false},
		{"loop with FP8 read", []blk{{[]*isa.Inst{mov}, []int{1}, true}, {[]*isa.Inst{read, fp8}, []int{1, 2}, false}, {[]*isa.Inst{nop}, nil, false}}, true},
	} {
		rs := fp8ScopeReads(func(fn func([]*isa.Inst, []int, bool)) {
			for _, b := range c.blocks {
				fn(b.insts, b.succs, b.entry)
			}
		})
		if got := rs.has(v41); got != c.want {
			t.Errorf("%s: v41 in the read set %v, want %v", c.name, got, c.want)
		}
	}
}
