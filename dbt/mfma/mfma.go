// Package mfma holds the shape arithmetic for splitting gfx950's
// double-K matrix instructions into chained gfx942 matrix instructions.
//
// A gfx950 MFMA of shape MxNx(2K) reads A and B with twice as many elements
// per lane as the gfx942 MFMA of shape MxNxK. In both, lane l holds row (or
// column) l mod M of its operand and a contiguous run of E elements of the K
// dimension starting at E*(l/M) (E = K*M/64 for the host shape, 2E for the
// guest). Issuing host part p on the operand registers [p*R, p*R+R) (R =
// registers per host operand) therefore multiplies the same permutation of
// K for A and for B, and the parts together cover every k exactly once. The
// accumulator is chained: part 0 reads the guest's C, later parts read the
// previous part's D. Integer shapes are exact; floating-point shapes add one
// f32 rounding per extra part.
package mfma

import "sort"

// Split describes how one guest MFMA becomes Parts host MFMAs.
type Split struct {
	// Guest and Host are the LLVM mnemonics (without the _e64 suffix).
	Guest, Host string
	// M, N are the output shape; GuestK and HostK the reduction depths.
	M, N, GuestK, HostK int
	// ElemBits is the A/B element width in bits.
	ElemBits int
	// Parts is GuestK / HostK.
	Parts int
	// Integer is true for integer accumulation (exact in any order).
	Integer bool
}

// GuestABRegs is the number of VGPRs of the guest's A (or B) operand.
func (s Split) GuestABRegs() int { return s.Parts * s.HostABRegs() }

// HostABRegs is the number of VGPRs of one host part's A (or B) operand.
func (s Split) HostABRegs() int { return s.HostK * s.M / 64 * s.ElemBits / 32 }

// CDRegs is the number of VGPRs (or AGPRs) of the C and D operands.
func (s Split) CDRegs() int { return s.M * s.N / 64 }

// GuestElems is the number of K elements one lane holds for the guest.
func (s Split) GuestElems() int { return s.GuestK * s.M / 64 }

// HostElems is the number of K elements one lane holds for a host part.
func (s Split) HostElems() int { return s.HostK * s.M / 64 }

// Exact reports whether the split reproduces the guest bit for bit.
func (s Split) Exact() bool { return s.Integer }

// Bound describes the difference from the guest for inexact splits.
func (s Split) Bound() string {
	if s.Integer {
		return ""
	}
	return "f32 accumulation split into chained partial sums: one extra f32 round-to-nearest of each intermediate accumulator (<= 0.5 ulp of the partial sum per extra part)"
}

var splits = map[string]Split{}

func add(s Split) {
	s.Parts = s.GuestK / s.HostK
	splits[s.Guest] = s
}

func init() {
	add(Split{Guest: "v_mfma_f32_16x16x32_f16", Host: "v_mfma_f32_16x16x16_f16", M: 16, N: 16, GuestK: 32, HostK: 16, ElemBits: 16})
	add(Split{Guest: "v_mfma_f32_32x32x16_f16", Host: "v_mfma_f32_32x32x8_f16", M: 32, N: 32, GuestK: 16, HostK: 8, ElemBits: 16})
	add(Split{Guest: "v_mfma_f32_16x16x32_bf16", Host: "v_mfma_f32_16x16x16_bf16", M: 16, N: 16, GuestK: 32, HostK: 16, ElemBits: 16})
	add(Split{Guest: "v_mfma_f32_32x32x16_bf16", Host: "v_mfma_f32_32x32x8_bf16", M: 32, N: 32, GuestK: 16, HostK: 8, ElemBits: 16})
	add(Split{Guest: "v_mfma_i32_16x16x64_i8", Host: "v_mfma_i32_16x16x32_i8", M: 16, N: 16, GuestK: 64, HostK: 32, ElemBits: 8, Integer: true})
	add(Split{Guest: "v_mfma_i32_32x32x32_i8", Host: "v_mfma_i32_32x32x16_i8", M: 32, N: 32, GuestK: 32, HostK: 16, ElemBits: 8, Integer: true})
}

// Lookup returns the split for a guest mnemonic (with or without "_e64").
func Lookup(guest string) (Split, bool) {
	if n := len(guest); n > 4 && guest[n-4:] == "_e64" {
		guest = guest[:n-4]
	}
	s, ok := splits[guest]
	return s, ok
}

// All returns every known split, sorted by guest mnemonic.
func All() []Split {
	out := make([]Split, 0, len(splits))
	for _, s := range splits {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Guest < out[j].Guest })
	return out
}

// Element returns, for lane l and per-lane element e of an A or B operand
// with elems elements per lane, the row/column index and the k index the
// matrix core reads (the layout model above).
func Element(m, elems, lane, e int) (rowcol, k int) {
	return lane % m, elems*(lane/m) + e
}
