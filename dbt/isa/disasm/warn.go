package disasm

import (
	"strconv"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12"
)

// appendAlignWarnings appends llvm-objdump's comment for SGPR and TTMP
// tuples whose encoded first register is not aligned (for example s1 in a
// 64-bit lane-mask slot of wave64 code, which LLVM prints as s[0:1] with
// "; Warning: SGPR_64: scalar reg isn't aligned 1"; the number is the
// encoded register, twice the field for SMEM sbase). raw holds the
// instruction's bytes. The GFX12 decoder aligns such tuples down and keeps
// the dropped bits in Inst.Pad; the bits are found again by re-encoding the
// operand with the next register numbers and reading raw where the
// encodings differ.
func appendAlignWarnings(line []byte, in *isa.Inst, raw []byte) []byte {
	if in.Pad == [4]uint32{} {
		return line // no dropped bits
	}
	first := true
	for i := range in.Operands {
		o := &in.Operands[i]
		if o.Kind != isa.KindReg || (o.Class != isa.SGPR && o.Class != isa.TTMP) || o.Width < 2 {
			continue
		}
		align := uint16(2)
		if o.Width >= 3 {
			align = 4
		}
		probe := *in
		probe.Operands = append([]isa.Operand(nil), in.Operands...)
		probe.Pad = [4]uint32{}
		base, err := gfx12.Encode(&probe)
		if err != nil || len(base) > len(raw) {
			continue
		}
		var dropped uint16
		for k := uint16(1); k < align; k <<= 1 {
			probe.Operands[i].Reg = o.Reg + k
			enc, err := gfx12.Encode(&probe)
			if err != nil {
				// The field cannot hold this bit (SMEM sbase holds the
				// register number / 2 and rejects odd registers).
				continue
			}
			if len(enc) != len(base) {
				dropped = 0
				break
			}
			pos, n := -1, 0
			for j := range enc {
				if d := enc[j] ^ base[j]; d != 0 {
					for bit := 0; bit < 8; bit++ {
						if d>>bit&1 != 0 {
							pos = 8*j + bit
							n++
						}
					}
				}
			}
			if n == 0 {
				continue // the field does not hold this bit
			}
			if n != 1 {
				dropped = 0
				break
			}
			if raw[pos/8]>>(pos%8)&1 != 0 {
				dropped |= k
			}
		}
		if dropped == 0 {
			continue
		}
		class := "SGPR_"
		if o.Class == isa.TTMP {
			class = "TTMP_"
		}
		if first {
			// objdump writes one " ; " and runs the warnings together.
			line = append(line, " ; "...)
			first = false
		}
		line = append(line, "Warning: "...)
		line = append(line, class...)
		line = strconv.AppendInt(line, 32*int64(o.Width), 10)
		line = append(line, ": scalar reg isn't aligned "...)
		line = strconv.AppendInt(line, int64(o.Reg+dropped), 10)
	}
	return line
}
