package rules

import (
	"encoding/hex"

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
		Shared:   bufferLoadLDSShared,
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

// bufferLoadLDSCheck checks the fields the expansion depends on.
func bufferLoadLDSCheck(in *isa.Inst, raw []byte) error {
	if len(raw) != 8 {
		return fieldErr(in, "size", uint32(len(raw)))
	}
	if words(raw)[0]>>15&1 != 0 { // addr64 is not GFX9
		return fieldErr(in, "addr64", 1)
	}
	return nil
}

func emitBufferLoadLDS(ctx Context, in *isa.Inst, raw []byte) ([]byte, error) {
	if err := bufferLoadLDSCheck(in, raw); err != nil {
		return nil, err
	}
	w := words(raw)
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

// The subroutine form of the wide LDS DMA (issue 15: in the aiter bf16
// GEMMs and attention kernels each distinct load, encoding alike, occurs
// in the prologue, the main loop and its tail, 40 bytes over the guest's 8
// each time). The key is the guest encoding, so the body is the inline
// expansion itself on the guest's address, resource and offset registers
// (and the M0 of the call), with the data and LDS-address scratch VGPRs
// fixed; a use is the s_call_b64 alone. The results are those of the
// inline expansion. The body accesses LDS, so virtual-LDS sidecars keep
// the inline form.

var bufferLoadLDSShared = &Shared{Key: bufferLoadLDSKey, Site: bufferLoadLDSSite, Body: bufferLoadLDSBody, Names: bufferLoadLDSNames, Tail: bufferLoadLDSTail, LDS: true}

// bufferLoadLDSTail: everything after the load (the waits, the lane's LDS
// address from M0 and the ds_write of the data quad) names only the fixed
// registers and the instruction offset, so the bodies of loads through
// different address registers or resources share it.
func bufferLoadLDSTail(in *isa.Inst, raw []byte, regs SharedRegs) int {
	body, err := bufferLoadLDSBody(in, raw, regs)
	if err != nil || len(body) < 8 {
		return 0
	}
	return len(body) - 8
}

func bufferLoadLDSKey(in *isa.Inst, raw []byte) (string, bool) {
	if bufferLoadLDSCheck(in, raw) != nil {
		return "", false
	}
	return "buffer-load-lds-wide/" + hex.EncodeToString(raw), true
}

// bufferLoadLDSLayout takes the data quad (even-aligned) and the address
// VGPR from the fixed registers.
func bufferLoadLDSLayout(regs []uint16) (data, addr uint16, used []uint16, err error) {
	p := newRegPool(regs)
	if data, err = p.run(4, 2); err != nil {
		return 0, 0, nil, err
	}
	if addr, err = p.one(); err != nil {
		return 0, 0, nil, err
	}
	return data, addr, p.used, nil
}

func bufferLoadLDSSite(in *isa.Inst, raw []byte, regs SharedRegs) (SharedSite, error) {
	if err := bufferLoadLDSCheck(in, raw); err != nil {
		return SharedSite{}, err
	}
	_, _, used, err := bufferLoadLDSLayout(regs.V)
	if err != nil {
		return SharedSite{}, err
	}
	return SharedSite{Used: used}, nil
}

func bufferLoadLDSBody(in *isa.Inst, raw []byte, regs SharedRegs) ([]byte, error) {
	if err := bufferLoadLDSCheck(in, raw); err != nil {
		return nil, err
	}
	data, addr, _, err := bufferLoadLDSLayout(regs.V)
	if err != nil {
		return nil, err
	}
	w := words(raw)
	return BufferLoadLDSCode(w[0], w[1], 4, data, addr), nil
}

// bufferLoadLDSNames: the address VGPRs (one with offen or idxen, a pair
// with both; the vdata field of the LDS form names no register).
func bufferLoadLDSNames(in *isa.Inst, raw []byte) ([]uint16, bool) {
	if bufferLoadLDSCheck(in, raw) != nil {
		return nil, false
	}
	w := words(raw)
	vaddr := uint16(w[1] & 0xff)
	switch offen, idxen := w[0]>>12&1 != 0, w[0]>>13&1 != 0; {
	case offen && idxen:
		return []uint16{vaddr, vaddr + 1}, vaddr < 255
	case offen || idxen:
		return []uint16{vaddr}, true
	}
	return nil, true
}
