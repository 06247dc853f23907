// Package asmtext appends the LLVM assembler spelling of the operand pieces
// that the GFX9 and GFX12 printers write the same way: register ranges, hex
// immediates, special registers, DPP16 controls and hwreg(...) operands. What differs
// between the families (the register and hardware-register names) stays with
// the caller.
package asmtext

import (
	"encoding/binary"
	"slices"
	"strconv"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// AppendReg appends a register operand: prefix and number ("v7") for one
// register, prefix and an inclusive range ("s[4:7]") for width > 1.
func AppendReg(dst []byte, prefix string, reg, width uint16) []byte {
	if len(prefix) > 4 || reg >= 1000 || uint(reg)+uint(width) > 1000 {
		return appendRegAny(dst, prefix, reg, width)
	}
	// Registers below 1000 with a short prefix (every one the printers
	// write) are written in place, in a 16-byte window grown once.
	n := len(dst)
	if cap(dst)-n < 16 {
		dst = slices.Grow(dst, 16)
	}
	b := (*[16]byte)(dst[n : n+16])
	k := 1
	if len(prefix) == 1 {
		b[0] = prefix[0]
	} else {
		k = copy(b[:], prefix)
	}
	if width <= 1 {
		return dst[:n+putSmall(b, k, uint(reg))]
	}
	b[k] = '['
	k = putSmall(b, k+1, uint(reg))
	b[k] = ':'
	k = putSmall(b, k+1, uint(reg)+uint(width)-1)
	b[k] = ']'
	return dst[:n+k+1]
}

// AppendReg1 is AppendReg with the one-byte prefix c ('v' for "v").
func AppendReg1(dst []byte, c byte, reg, width uint16) []byte {
	if reg >= 1000 || uint(reg)+uint(width) > 1000 {
		return appendRegAny(dst, string(rune(c)), reg, width)
	}
	n := len(dst)
	if cap(dst)-n < 16 {
		dst = slices.Grow(dst, 16)
	}
	b := (*[16]byte)(dst[n : n+16])
	b[0] = c
	if width <= 1 {
		return dst[:n+putSmall(b, 1, uint(reg))]
	}
	b[1] = '['
	k := putSmall(b, 2, uint(reg))
	b[k] = ':'
	k = putSmall(b, k+1, uint(reg)+uint(width)-1)
	b[k] = ']'
	return dst[:n+k+1]
}

// putSmall writes v (below 1000) in decimal into b at k and returns the
// index after it. It stores four bytes from a table (the digits and a
// byte past them, which the caller overwrites or drops) rather than
// branching on the number of digits, which registers vary unpredictably.
func putSmall(b *[16]byte, k int, v uint) int {
	d := smallDecimal[v]
	binary.LittleEndian.PutUint32(b[k:], d)
	return k + int(d>>24)
}

// smallDecimal holds, for every v below 1000, its decimal digits from the
// low byte up and their count in the high byte. It is built by arithmetic
// (the least significant digit first, each shifted up by the next), with
// no allocation.
var smallDecimal = func() (t [1000]uint32) {
	for v := range t {
		var d, n uint32
		for x := uint32(v); ; x /= 10 {
			d = d<<8 | ('0' + x%10)
			n++
			if x < 10 {
				break
			}
		}
		t[v] = d | n<<24
	}
	return t
}()

// appendRegAny is AppendReg for any prefix and register number.
func appendRegAny(dst []byte, prefix string, reg, width uint16) []byte {
	dst = append(dst, prefix...)
	if width <= 1 {
		return AppendUint(dst, uint(reg))
	}
	dst = append(dst, '[')
	dst = AppendUint(dst, uint(reg))
	dst = append(dst, ':')
	dst = AppendUint(dst, uint(reg+width-1))
	return append(dst, ']')
}

// AppendUint appends n in decimal (strconv.AppendUint, with the register
// and small-constant range, below 1000, written digit by digit).
func AppendUint(dst []byte, n uint) []byte {
	switch {
	case n < 10:
		return append(dst, byte('0'+n))
	case n < 100:
		return append(dst, byte('0'+n/10), byte('0'+n%10))
	case n < 1000:
		return append(dst, byte('0'+n/100), byte('0'+n/10%10), byte('0'+n%10))
	}
	return strconv.AppendUint(dst, uint64(n), 10)
}

// AppendSpecial appends a special-register operand o (Class isa.Special):
// the number for isa.RegEncoded, else the family's name from names, the
// second (64-bit pair) spelling when o spans two or more dwords ("vcc"
// rather than "vcc_lo").
func AppendSpecial(dst []byte, o *isa.Operand, names map[isa.SpecialReg][2]string) []byte {
	r := isa.SpecialReg(o.Reg)
	if r == isa.RegEncoded {
		return strconv.AppendInt(dst, o.Imm, 10)
	}
	n := names[r]
	if o.Width >= 2 {
		return append(dst, n[1]...)
	}
	return append(dst, n[0]...)
}

// AppendHex appends v as "0x" and lower-case hex digits.
func AppendHex(dst []byte, v uint64) []byte {
	dst = append(dst, "0x"...)
	return strconv.AppendUint(dst, v, 16)
}

// AppendHwreg appends an s_getreg/s_setreg operand v (id [5:0], offset
// [10:6], size-1 [15:11]) as hwreg(name) or hwreg(name, offset, size), the
// offset and size only when they are not the whole register. name returns
// the family's symbolic name of an id, or false to print the id as a number.
func AppendHwreg(dst []byte, v uint32, name func(id uint32) (string, bool)) []byte {
	id, off, size := v&0x3f, (v>>6)&0x1f, (v>>11)&0x1f+1
	dst = append(dst, "hwreg("...)
	if n, ok := name(id); ok {
		dst = append(dst, n...)
	} else {
		dst = strconv.AppendInt(dst, int64(id), 10)
	}
	if off != 0 || size != 32 {
		dst = append(dst, ", "...)
		dst = strconv.AppendInt(dst, int64(off), 10)
		dst = append(dst, ", "...)
		dst = strconv.AppendInt(dst, int64(size), 10)
	}
	return append(dst, ')')
}

// AppendDPPCtrl appends a DPP16 dpp_ctrl value c that GFX9 and GFX12 spell
// alike: quad_perm:[a,b,c,d], row_shl/row_shr/row_ror:n, row_mirror and
// row_half_mirror. For any other value it returns dst unchanged and false;
// the family spells those (the same code can mean different things, e.g.
// 0x150 is row_newbcast:0 on GFX9 and row_share:0 on GFX12).
func AppendDPPCtrl(dst []byte, c uint16) ([]byte, bool) {
	switch {
	case c <= 0xff:
		dst = append(dst, "quad_perm:["...)
		for i := 0; i < 4; i++ {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '0'+byte(c>>(2*i)&3))
		}
		return append(dst, ']'), true
	case c >= 0x101 && c <= 0x10f:
		return strconv.AppendInt(append(dst, "row_shl:"...), int64(c&15), 10), true
	case c >= 0x111 && c <= 0x11f:
		return strconv.AppendInt(append(dst, "row_shr:"...), int64(c&15), 10), true
	case c >= 0x121 && c <= 0x12f:
		return strconv.AppendInt(append(dst, "row_ror:"...), int64(c&15), 10), true
	case c == 0x140:
		return append(dst, "row_mirror"...), true
	case c == 0x141:
		return append(dst, "row_half_mirror"...), true
	}
	return dst, false
}

// AppendDPPMasks appends the DPP16 masks that follow dpp_ctrl,
// " row_mask:0x.. bank_mask:0x..", and " bound_ctrl:1" when boundCtrl is set.
func AppendDPPMasks(dst []byte, rowMask, bankMask uint8, boundCtrl bool) []byte {
	dst = AppendHex(append(dst, " row_mask:"...), uint64(rowMask))
	dst = AppendHex(append(dst, " bank_mask:"...), uint64(bankMask))
	if boundCtrl {
		dst = append(dst, " bound_ctrl:1"...)
	}
	return dst
}
