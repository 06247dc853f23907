package cfg

import "github.com/rocjitsu/rocjitsu/dbt/isa"

// PCLiteral returns the 32-bit literal of x when x is the low half
// (hi false: s_add_u32, gfx12 s_add_co_u32) or the high half (hi true:
// s_addc_u32, gfx12 s_add_co_ci_u32) of the canonical pair that adds a
// PC-relative literal to s[dst] after an s_getpc_b64: "op s[dst], s[dst],
// literal".
func PCLiteral(x *isa.Inst, hi bool, dst uint16) (uint32, bool) {
	name := x.Name()
	if (!hi && name != "s_add_u32" && name != "s_add_co_u32") || (hi && name != "s_addc_u32" && name != "s_add_co_ci_u32") || len(x.Operands) != 3 || !x.HasLiteral {
		return 0, false
	}
	o := x.Operands
	if o[0].Class != isa.SGPR || o[0].Reg != dst || o[1].Kind != isa.KindReg || o[1].Class != isa.SGPR || o[1].Reg != dst || o[2].Kind != isa.KindLiteral {
		return 0, false
	}
	return x.Literal, true
}
