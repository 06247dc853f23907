package vlds

import "fmt"

// WrapperLayout is the sidecar kernarg wrapper: the guest kernarg bytes
// unchanged at offset 0, then at OrigPtr (8-byte aligned) the original
// kernarg segment address, then at State the 24-byte
// VirtualLdsDispatchState {u64 backing_base; u32 stride_x, stride_y,
// stride_z; u32 reserved}.
type WrapperLayout struct {
	// Prefix is the number of preserved guest kernarg bytes.
	Prefix uint32
	// OrigPtr and State are byte offsets in the wrapper.
	OrigPtr, State uint32
	// Size is the wrapper's size in bytes.
	Size uint32
}

// StateSize is the size of VirtualLdsDispatchState.
const StateSize = 24

// Layout returns the wrapper layout for a guest kernarg prefix of n bytes.
func Layout(n uint32) WrapperLayout {
	p := (n + 7) &^ 7
	return WrapperLayout{Prefix: n, OrigPtr: p, State: p + 8, Size: p + 8 + StateSize}
}

// PrologueSpec describes the registers of a sidecar entry prologue.
type PrologueSpec struct {
	// Kernarg is the first SGPR of the kernarg segment pointer pair (it
	// points at the wrapper on entry and at the original kernarg segment
	// after the prologue).
	Kernarg uint16
	// Wrapper is the wrapper layout.
	Wrapper WrapperLayout
	// WorkgroupID holds the SGPR of each workgroup ID, or -1 when the
	// descriptor does not initialise it (the runtime must then give that
	// dimension a single workgroup or a zero stride).
	WorkgroupID [3]int
	// Base is the even SGPR pair that holds virtual_lds_base after the
	// prologue.
	Base uint16
	// Temps are four SGPRs the prologue clobbers: Temps[0] is even and
	// Temps[1] is Temps[0]+1 (they receive stride_x, stride_y).
	Temps [4]uint16
}

// SMEM and SOP2 encodings (GFX9).
const (
	smemLoadDword   = 0
	smemLoadDwordx2 = 1
	sop2AddU32      = 0
	sop2AddcU32     = 4
	sop2MulI32      = 0x24
	sop2MulHiU32    = 0x2c
)

func smem(op uint32, sdata, sbase uint16, off uint32) []uint32 {
	return []uint32{0xc0000000 | op<<18 | 1<<17 | uint32(sdata&0x7f)<<6 | uint32(sbase>>1&0x3f), off & 0x1fffff}
}

func sop2(op uint32, sdst, s0, s1 uint16) uint32 {
	return 0x80000000 | op<<23 | uint32(sdst&0x7f)<<16 | uint32(s1&0xff)<<8 | uint32(s0&0xff)
}

// Check reports whether the spec's registers are distinct aligned SGPRs
// below s102 and its wrapper layout is well formed (the rules every
// host's encoding of the prologue relies on).
func (p PrologueSpec) Check() error {
	_, err := p.claims()
	return err
}

// claims checks the spec and returns the SGPRs the prologue writes, by
// role.
func (p PrologueSpec) claims() (map[uint16]string, error) {
	regs := map[uint16]string{}
	claim := func(r uint16, what string) error {
		if r >= 102 {
			return fmt.Errorf("vlds: prologue: %s s%d is not an SGPR below s102", what, r)
		}
		if other, dup := regs[r]; dup {
			return fmt.Errorf("vlds: prologue: %s s%d is also the %s", what, r, other)
		}
		regs[r] = what
		return nil
	}
	if p.Base%2 != 0 || p.Kernarg%2 != 0 || p.Temps[0]%2 != 0 || p.Temps[1] != p.Temps[0]+1 {
		return nil, fmt.Errorf("vlds: prologue: base s%d, kernarg s%d and temps s%d,s%d must be aligned pairs", p.Base, p.Kernarg, p.Temps[0], p.Temps[1])
	}
	for _, c := range []struct {
		r    uint16
		what string
	}{{p.Base, "base"}, {p.Base + 1, "base"}, {p.Kernarg, "kernarg pointer"}, {p.Kernarg + 1, "kernarg pointer"},
		{p.Temps[0], "temporary"}, {p.Temps[1], "temporary"}, {p.Temps[2], "temporary"}, {p.Temps[3], "temporary"}} {
		if err := claim(c.r, c.what); err != nil {
			return nil, err
		}
	}
	w := p.Wrapper
	if w.OrigPtr%8 != 0 || w.State != w.OrigPtr+8 || w.Size < w.State+StateSize {
		return nil, fmt.Errorf("vlds: prologue: bad wrapper layout %+v", w)
	}
	return regs, nil
}

// Prologue returns the sidecar entry prologue:
//
//	virtual_lds_base = backing_base + wg_id_x*stride_x + wg_id_y*stride_y + wg_id_z*stride_z
//
// (64-bit products), with the kernarg pointer restored to the original
// kernarg segment. It waits for its loads before the guest code runs.
func Prologue(p PrologueSpec) ([]byte, error) {
	regs, err := p.claims()
	if err != nil {
		return nil, err
	}
	w := p.Wrapper
	var out []uint32
	out = append(out, smem(smemLoadDwordx2, p.Base, p.Kernarg, w.State)...)
	out = append(out, smem(smemLoadDwordx2, p.Temps[0], p.Kernarg, w.State+8)...)
	out = append(out, smem(smemLoadDword, p.Temps[2], p.Kernarg, w.State+16)...)
	out = append(out, smem(smemLoadDwordx2, p.Kernarg, p.Kernarg, w.OrigPtr)...)
	out = append(out, waitLGKM0)
	stride := [3]uint16{p.Temps[0], p.Temps[1], p.Temps[2]}
	hi := p.Temps[3]
	for d, g := range p.WorkgroupID {
		if g < 0 {
			continue
		}
		if _, clash := regs[uint16(g)]; clash || g >= 102 {
			return nil, fmt.Errorf("vlds: prologue: workgroup ID SGPR s%d overlaps the prologue's registers", g)
		}
		out = append(out,
			sop2(sop2MulHiU32, hi, stride[d], uint16(g)),
			sop2(sop2MulI32, stride[d], stride[d], uint16(g)),
			sop2(sop2AddU32, p.Base, p.Base, stride[d]),
			sop2(sop2AddcU32, p.Base+1, p.Base+1, hi))
	}
	return appendWords(nil, out...), nil
}
