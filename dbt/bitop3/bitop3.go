// Package bitop3 gives the semantics of gfx950's v_bitop3_b16/_b32 and
// lowers any of its 256 truth tables to a short program of bit operations
// that gfx942 has (v_and_b32, v_or_b32, v_xor_b32, v_not_b32, v_bfi_b32).
//
// Semantics: for every bit position i, the result bit is bit number
// (a_i<<2 | b_i<<1 | c_i) of the 8-bit truth table, where a, b and c are
// src0, src1 and src2. In the VOP3 encoding the table is stored in the
// repurposed modifier fields: NEG (word 1 bits 31:29) holds table bits 2:0,
// ABS (word 0 bits 10:8) table bits 5:3 and OMOD (word 1 bits 28:27) table
// bits 7:6.
package bitop3

import "fmt"

// Eval returns the bitwise result of truth table lut applied to a, b, c.
func Eval(lut uint8, a, b, c uint32) uint32 {
	var r uint32
	for idx := 0; idx < 8; idx++ {
		if lut>>idx&1 == 0 {
			continue
		}
		m := ^uint32(0)
		if idx&4 != 0 {
			m &= a
		} else {
			m &^= a
		}
		if idx&2 != 0 {
			m &= b
		} else {
			m &^= b
		}
		if idx&1 != 0 {
			m &= c
		} else {
			m &^= c
		}
		r |= m
	}
	return r
}

// LUT returns the truth table stored in the VOP3 modifier fields.
func LUT(neg, abs, omod uint8) uint8 {
	return neg&7 | (abs&7)<<3 | (omod&3)<<6
}

// Fields splits a truth table into the VOP3 modifier fields (the inverse of
// LUT).
func Fields(lut uint8) (neg, abs, omod uint8) {
	return lut & 7, lut >> 3 & 7, lut >> 6
}

// Op is an operation of a lowered program, one host instruction each.
type Op uint8

// The host operations. Semantics per bit: And x&y, Or x|y, Xor x^y, Not ^x,
// Bfi (x&y)|(^x&z) (v_bfi_b32), Mov x.
const (
	Mov Op = iota
	Not
	And
	Or
	Xor
	Bfi
)

var opNames = [...]string{"mov", "not", "and", "or", "xor", "bfi"}

// String returns the operation's name.
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", o)
}

// Arity is the number of sources Op reads.
func (o Op) Arity() int {
	switch o {
	case Mov, Not:
		return 1
	case Bfi:
		return 3
	}
	return 2
}

// Val names a value of a lowered program.
type Val uint8

// The values a program can read or write. A, B, C are the instruction's
// sources; T0 and T1 are scratch registers; D is the destination. Zero and
// Ones are the inline constants 0 and -1.
const (
	A Val = iota
	B
	C
	T0
	T1
	D
	Zero
	Ones
)

var valNames = [...]string{"a", "b", "c", "t0", "t1", "d", "0", "-1"}

// String returns the value's name.
func (v Val) String() string {
	if int(v) < len(valNames) {
		return valNames[v]
	}
	return fmt.Sprintf("val(%d)", v)
}

// Inst is one operation: Dst = Op(Src[0..Arity-1]).
type Inst struct {
	Op  Op
	Dst Val
	Src [3]Val
}

// String prints the operation as "dst = op src, ...".
func (in Inst) String() string {
	s := fmt.Sprintf("%s = %s", in.Dst, in.Op)
	for i := 0; i < in.Op.Arity(); i++ {
		if i > 0 {
			s += ","
		}
		s += " " + in.Src[i].String()
	}
	return s
}

// Program is a lowered truth table. Only its last instruction writes D, so
// D may alias any source; temporaries are T0 and T1.
type Program []Inst

// Temps returns how many scratch registers p uses (0, 1 or 2).
func (p Program) Temps() int {
	n := 0
	for _, in := range p {
		switch in.Dst {
		case T0:
			if n < 1 {
				n = 1
			}
		case T1:
			n = 2
		}
	}
	return n
}

// Run evaluates p on 32-bit inputs, the reference interpreter for tests and
// for the simulator's cross-checks.
func (p Program) Run(a, b, c uint32) uint32 {
	var regs [8]uint32
	regs[A], regs[B], regs[C], regs[Ones] = a, b, c, ^uint32(0)
	for _, in := range p {
		x, y, z := regs[in.Src[0]], regs[in.Src[1]], regs[in.Src[2]]
		var r uint32
		switch in.Op {
		case Mov:
			r = x
		case Not:
			r = ^x
		case And:
			r = x & y
		case Or:
			r = x | y
		case Xor:
			r = x ^ y
		case Bfi:
			r = x&y | ^x&z
		}
		regs[in.Dst] = r
	}
	return regs[D]
}

// fn2 is a two-input function over (x, y) as a 4-bit truth table indexed by
// x<<1|y.
type fn2 uint8

// cofactors splits lut on the variable sel (0 = a, 1 = b, 2 = c) into the
// two-input functions of the remaining variables (in a, b, c order) for
// sel = 1 and sel = 0, and returns those remaining variables.
func cofactors(lut uint8, sel int) (hi, lo fn2, x, y Val) {
	others := [3][2]Val{{B, C}, {A, C}, {A, B}}[sel]
	bitOf := [3]int{2, 1, 0} // position of a, b, c in the table index
	for xi := 0; xi < 2; xi++ {
		for yi := 0; yi < 2; yi++ {
			for s := 0; s < 2; s++ {
				idx := s << bitOf[sel]
				idx |= xi << bitOf[others[0]]
				idx |= yi << bitOf[others[1]]
				bit := fn2(lut >> idx & 1)
				k := xi<<1 | yi
				if s == 1 {
					hi |= bit << k
				} else {
					lo |= bit << k
				}
			}
		}
	}
	return hi, lo, others[0], others[1]
}

// leaf returns a value equal to f(x, y) without any instruction, if one
// exists.
func leaf(f fn2, x, y Val) (Val, bool) {
	switch f {
	case 0x0:
		return Zero, true
	case 0xf:
		return Ones, true
	case 0xc:
		return x, true
	case 0xa:
		return y, true
	}
	return 0, false
}

// build2 returns instructions computing f(x, y) into dst.
func build2(f fn2, x, y, dst Val) Program {
	if v, ok := leaf(f, x, y); ok {
		return Program{{Op: Mov, Dst: dst, Src: [3]Val{v}}}
	}
	one := func(op Op, s ...Val) Program {
		in := Inst{Op: op, Dst: dst}
		copy(in.Src[:], s)
		return Program{in}
	}
	switch f {
	case 0x3:
		return one(Not, x)
	case 0x5:
		return one(Not, y)
	case 0x8:
		return one(And, x, y)
	case 0xe:
		return one(Or, x, y)
	case 0x6:
		return one(Xor, x, y)
	case 0x4: // x & ^y
		return one(Bfi, y, Zero, x)
	case 0x2: // ^x & y
		return one(Bfi, x, Zero, y)
	case 0xd: // x | ^y
		return one(Bfi, y, x, Ones)
	case 0xb: // ^x | y
		return one(Bfi, x, y, Ones)
	}
	// Two instructions: an intermediate, then its complement. Only the
	// last instruction may write D, so the intermediate goes to T0.
	mid := dst
	if dst == D {
		mid = T0
	}
	var op Op
	switch f {
	case 0x9: // ^(x ^ y)
		op = Xor
	case 0x7: // ^(x & y)
		op = And
	case 0x1: // ^(x | y)
		op = Or
	default:
		panic(fmt.Sprintf("bitop3: unreachable two-input function %#x", f))
	}
	return Program{{Op: op, Dst: mid, Src: [3]Val{x, y}}, {Op: Not, Dst: dst, Src: [3]Val{mid}}}
}

// Lower returns the shortest program this package knows for lut. The
// result is correct for every input (see the exhaustive tests); it has at
// most 5 instructions and 2 temporaries.
func Lower(lut uint8) Program {
	var best Program
	for sel := 0; sel < 3; sel++ {
		p := lowerOn(lut, sel)
		if best == nil || len(p) < len(best) || len(p) == len(best) && p.Temps() < best.Temps() {
			best = p
		}
	}
	return best
}

// lowerOn splits lut on variable sel with a v_bfi_b32 (or simpler when a
// cofactor is a plain value).
func lowerOn(lut uint8, sel int) Program {
	hi, lo, x, y := cofactors(lut, sel)
	s := [3]Val{A, B, C}[sel]
	if hi == lo { // independent of sel
		return build2(hi, x, y, D)
	}
	var p Program
	if hi == lo^0xf { // sel ^ lo
		if v, ok := leaf(lo, x, y); ok {
			return Program{{Op: Xor, Dst: D, Src: [3]Val{s, v}}}
		}
		p = build2(lo, x, y, T0)
		return append(p, Inst{Op: Xor, Dst: D, Src: [3]Val{s, T0}})
	}
	hv, hok := leaf(hi, x, y)
	lv, lok := leaf(lo, x, y)
	if !hok {
		p = append(p, build2(hi, x, y, T0)...)
		hv = T0
	}
	if !lok {
		t := T0
		if !hok {
			t = T1
		}
		p = append(p, build2(lo, x, y, t)...)
		lv = t
	}
	switch {
	case hv == Ones && lv == Zero:
		p = append(p, Inst{Op: Mov, Dst: D, Src: [3]Val{s}})
	case hv == Zero && lv == Ones:
		p = append(p, Inst{Op: Not, Dst: D, Src: [3]Val{s}})
	case hv == Ones:
		p = append(p, Inst{Op: Or, Dst: D, Src: [3]Val{s, lv}})
	case lv == Zero:
		p = append(p, Inst{Op: And, Dst: D, Src: [3]Val{s, hv}})
	default:
		p = append(p, Inst{Op: Bfi, Dst: D, Src: [3]Val{s, hv, lv}})
	}
	return p
}
