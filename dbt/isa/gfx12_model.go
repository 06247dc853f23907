package isa

// GFX12 (RDNA4) additions to the shared model. The gfx12 family package
// (dbt/isa/gfx12) decodes gfx1200 and gfx1201.

// GFX12 is the set of GFX12 (RDNA4) targets the gfx12 family decodes.
const GFX12 = GFX1200 | GFX1201

// Wave64 is not a target: OR it into the target given to a GFX12 decoder
// to decode wave64 code (the default there is wave32, as LLVM's). It
// changes the width of lane-mask operands (vcc vs vcc_lo, s[0:1] vs s0) and
// of WMMA matrix operands.
const Wave64 Target = 1 << 7

// GFX12 encodings. VOP3 with a DPP dword is Format DPP with Base VOP3;
// DPP8 is Format DPP8 with the VOP encoding as Base. FLAT/GLOBAL/SCRATCH,
// DS, SMEM, SOP*, VOP* and EXP reuse the shared values (VFLAT, VGLOBAL,
// VSCRATCH and VDS in the GFX12 manual).
const (
	DPP8    Format = 64 + iota // VOP1/VOP2/VOPC/VOP3/VOP3P with a DPP8 dword
	VOPD                       // dual-issue VALU (wave32 only)
	VINTERP                    // GFX11+ parameter interpolation
	VBUFFER                    // GFX12 buffer (MUBUF and MTBUF)
	VIMAGE                     // GFX12 image without sampler
	VSAMPLE                    // GFX12 image with sampler
)

// GFX12FormatName returns the name of a Format, including the GFX12 ones.
func GFX12FormatName(f Format) string {
	switch f {
	case DPP8:
		return "DPP8"
	case VOPD:
		return "VOPD"
	case VINTERP:
		return "VINTERP"
	case VBUFFER:
		return "VBUFFER"
	case VIMAGE:
		return "VIMAGE"
	case VSAMPLE:
		return "VSAMPLE"
	}
	return f.String()
}

// GFX12 wait counters. GFX12 splits vmcnt and lgkmcnt: loadcnt (vector
// memory loads, the old vmcnt: WaitLoad == WaitVM), storecnt (vector memory
// stores, the old vscnt: WaitStore == WaitVS), dscnt (LDS), kmcnt (scalar
// memory and messages), samplecnt (image samples), bvhcnt (BVH) and expcnt
// (WaitEXP).
const (
	WaitLoad               = WaitVM
	WaitStore              = WaitVS
	WaitDS     WaitCounter = 1 << 4
	WaitKM     WaitCounter = 1 << 5
	WaitSample WaitCounter = 1 << 6
	WaitBVH    WaitCounter = 1 << 7
)

// FlagWMMA marks GFX12 wave matrix multiply (WMMA, SWMMAC) operations.
const FlagWMMA OpFlags = 1 << 24
