// Package gfx950gfx12 is the gfx950 (CDNA4, wave64) -> gfx1200/gfx1201
// (RDNA4) translation pair. The wave size is kept (wave64, CU mode); every
// instruction is re-encoded into the gfx12 formats, through the operation
// mapping generated from the two ISA tables and the reviewed registry
// (mapping_gen.go, internal/names; lower.go), or expanded by a hand-written
// rule (rules.go, wmma.go: s_waitcnt split by counting outstanding
// operation kinds, s_barrier as signal + wait, v_lshl_add_u64, 16x16 and
// 32x32 f16/bf16 MFMAs as WMMA, the f8f6f4 and scaled f8f6f4 MFMAs as
// masked per-block WMMAs with f32 block scaling (scalemfma.go), the
// FP8/BF8 scaled widening conversions (scalecvt.go), SDWA selects,
// packed f32, v_cmpx, MODE
// hwregs, ds_cmpst operand order, DPP row_bcast (dppbcast.go), MUBUF as
// VBUFFER with the V# word3 converted at its definitions and buffer loads
// to LDS as load + ds_store (vsharp.go), ...), or by a gfx950 -> gfx942 rule whose
// output is lowered again (retarget.go). Anything else rejects the kernel
// with the reason. Every host instruction is built from dbt/isa/gfx12
// templates and re-decoded before it is emitted (build.go). The descriptor
// is re-derived for gfx12 and an entry prologue rebuilds the guest's
// initial SGPRs (preloaded kernargs, workgroup ids from TTMP9/TTMP7); guest
// AGPRs live in VGPRs right above the arch VGPRs the kernel names (pair.go).
package gfx950gfx12

//go:generate go run ./internal/gen -o mapping_gen.go

// hostOp is the gfx12 counterpart of a gfx950 operation.
type hostOp struct {
	to      string
	renamed bool
	// bound, when set, makes the mapping approximate.
	bound string
}
