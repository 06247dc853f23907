package rules

import (
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// global_load_lds_dwordx4 (gfx950) loads 16 bytes per active lane as
// global_load_dwordx4 would and writes them to LDS at
// M0 + instruction offset + lane_id * 16 (the instruction offset applies to
// both addresses). The expansion loads into scratch VGPRs, waits, computes
// the LDS address and stores with ds_write_b128, then waits for the store.

func init() {
	register(Pair{isa.GFX950, isa.GFX942}, &Rule{
		Name:     "global-load-lds-x4",
		Ops:      []string{"global_load_lds_dwordx4"},
		Fidelity: report.Exact,
		Emit:     emitGlobalLoadLDS,
	})
}

const flatOpGlobalLoadDwordx4 = 0x17

// GlobalLoadLDSCode returns the expansion of global_load_lds_dwordx4
// encoded as (w0, w1), with data VGPRs data..data+3 and address VGPR addr.
func GlobalLoadLDSCode(w0, w1 uint32, data, addr uint16) []byte {
	load0 := w0&^(0x7f<<18) | flatOpGlobalLoadDwordx4<<18
	load1 := w1&^(0xff<<24) | uint32(data)<<24
	off := int32(w0<<19) >> 19 // 13-bit signed offset
	lo := vop3(op3MbcntLo, addr, srcOnes, srcZero, 0)
	hi := vop3(op3MbcntHi, addr, srcOnes, srcVGPR+addr, 0)
	la := vop3(op3LshlAdd, addr, srcVGPR+addr, inlineInt(4), srcM0)
	w := []uint32{load0, load1, waitVMCnt0, lo[0], lo[1], hi[0], hi[1], la[0], la[1]}
	dsOff := uint32(0)
	switch {
	case off > 0:
		dsOff = uint32(off)
	case off < 0:
		w = append(w, vop2(op2AddU32, addr, srcLit, addr, uint32(off))...)
	}
	ds := dsWrite(dsOpWriteB128, addr, data, dsOff)
	w = append(w, ds[0], ds[1], waitLGKMCnt0)
	return appendWords(nil, w...)
}

func emitGlobalLoadLDS(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
	if len(raw) != 8 {
		return nil, fieldErr(in, "size", uint32(len(raw)))
	}
	w := words(raw)
	if seg := w[0] >> 14 & 3; seg != 2 {
		return nil, fieldErr(in, "segment", seg)
	}
	data, err := ctx.TempVGPRRange(4, 2)
	if err != nil {
		return nil, err
	}
	addr, err := ctx.TempVGPRs(1)
	if err != nil {
		return nil, err
	}
	return GlobalLoadLDSCode(w[0], w[1], data, addr[0]), nil
}
