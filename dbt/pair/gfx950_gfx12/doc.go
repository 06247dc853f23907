// Package gfx950gfx12 is the gfx950 (CDNA4, wave64) -> gfx1200/gfx1201
// (RDNA4) translation pair. The wave size is kept (wave64, CU mode); every
// instruction is re-encoded into the gfx12 formats, through the operation
// mapping generated from the two ISA tables and the reviewed registry
// (mapping_gen.go, internal/names), or expanded by a hand-written rule
// (s_waitcnt split by counting outstanding operation kinds, s_barrier as
// signal + wait, v_lshl_add_u64, ...). Anything else rejects the kernel
// with the reason. The descriptor is re-derived for gfx12 and an entry
// prologue rebuilds the guest's workgroup-id SGPRs from TTMP9/TTMP7.
package gfx950gfx12

//go:generate go run ./internal/gen -o mapping_gen.go

// hostOp is the gfx12 counterpart of a gfx950 operation.
type hostOp struct {
	to      string
	renamed bool
	// bound, when set, makes the mapping approximate.
	bound string
}
