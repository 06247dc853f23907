package rules

import (
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// The MUBUF load-to-LDS forms wider than a dword are gfx950-only. Their
// semantics: every active lane loads N dwords exactly as the plain
// buffer_load_dwordxN would, and writes them to LDS at
// M0 + instruction offset + lane_id * 4N. The expansion does exactly that
// through scratch VGPRs and waits for both the load and the LDS write, so
// later code that waits on vmcnt for the DMA sees the data in LDS.

func init() {
	register(Pair{isa.GFX950, isa.GFX942}, &Rule{
		Name:     "buffer-load-lds-wide",
		Ops:      []string{"buffer_load_dwordx4"},
		Match:    func(in *isa.Inst) bool { return in.Mod.LDS },
		Fidelity: report.Exact,
		Emit:     emitBufferLoadLDS,
	})
}

// Host words used by the expansion.
const (
	waitVMCnt0    = 0xbf8c0f70 // s_waitcnt vmcnt(0)
	waitLGKMCnt0  = 0xbf8cc07f // s_waitcnt lgkmcnt(0)
	op3MbcntLo    = 0x28c
	op3MbcntHi    = 0x28d
	op3LshlAdd    = 0x1fd
	srcM0         = 124
	dsOpWriteB96  = 0xde
	dsOpWriteB128 = 0xdf
)

// dsWrite encodes ds_write_b96/b128 addr, data offset:off.
func dsWrite(op uint32, addr, data uint16, off uint32) [2]uint32 {
	return [2]uint32{0xd8000000 | op<<17 | off&0xffff, uint32(addr) | uint32(data)<<8}
}

// BufferLoadLDSCode returns the host sequence for a MUBUF load-to-LDS of
// n dwords encoded as (w0, w1), using VGPRs data..data+n-1 and addr.
func BufferLoadLDSCode(w0, w1 uint32, n int, data, addr uint16) []byte {
	load0 := w0 &^ (1 << 16)                 // clear lds
	load1 := w1&^(0xff<<8) | uint32(data)<<8 // vdata
	lo := vop3(op3MbcntLo, addr, srcOnes, srcZero, 0)
	hi := vop3(op3MbcntHi, addr, srcOnes, srcVGPR+addr, 0)
	la := vop3(op3LshlAdd, addr, srcVGPR+addr, inlineInt(2+bitsFor(n)), srcM0)
	op := uint32(dsOpWriteB128)
	if n == 3 {
		op = dsOpWriteB96
	}
	ds := dsWrite(op, addr, data, w0&0xfff)
	return appendWords(nil, load0, load1, waitVMCnt0, lo[0], lo[1], hi[0], hi[1], la[0], la[1], ds[0], ds[1], waitLGKMCnt0)
}

// bitsFor returns log2 of the per-lane stride in dwords (x3 lanes are
// 16 bytes apart like x4).
func bitsFor(n int) int {
	if n >= 3 {
		return 2
	}
	return 0
}

func emitBufferLoadLDS(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
	if len(raw) != 8 {
		return nil, fieldErr(in, "size", uint32(len(raw)))
	}
	w := words(raw)
	if w[0]>>15&1 != 0 { // addr64 is not GFX9
		return nil, fieldErr(in, "addr64", 1)
	}
	n := 4
	data, err := ctx.TempVGPRRange(n, 2)
	if err != nil {
		return nil, err
	}
	addr, err := ctx.TempVGPRs(1)
	if err != nil {
		return nil, err
	}
	if addr[0] >= data && addr[0] < data+uint16(n) {
		return nil, fieldErr(in, "scratch overlap", uint32(addr[0]))
	}
	return BufferLoadLDSCode(w[0], w[1], n, data, addr[0]), nil
}
