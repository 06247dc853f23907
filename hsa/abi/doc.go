// Package abi holds the byte layout of ROCR's HSA API tables (HsaApiTable,
// CoreApiTable, AmdExtTable) that librocjitsu.so patches, independent of any
// ROCm header. The offsets are generated from the layout dumps in
// shared/docs/research/layouts by gentables.go; the same numbers go to
// c/include/rocjitsu_hsa_tables.h for the C half of the shim and for the
// stand-in runtime.
package abi

//go:generate go run gentables.go

// Root table (HsaApiTable) member offsets.
const (
	// RootCore is the offset of HsaApiTable.core_.
	RootCore = 16
	// RootAmdExt is the offset of HsaApiTable.amd_ext_.
	RootAmdExt = 24
	// RootFinalizerExt is the offset of HsaApiTable.finalizer_ext_.
	RootFinalizerExt = 32
	// RootImageExt is the offset of HsaApiTable.image_ext_.
	RootImageExt = 40
	// RootTools is the offset of HsaApiTable.tools_ (ROCm >= 6.1).
	RootTools = 48
	// RootPcSamplingExt is the offset of HsaApiTable.pc_sampling_ext_ (ROCm >= 6.2).
	RootPcSamplingExt = 56
)

// AmdExtMovedMinSize is the smallest AmdExtTable size (its version.minor_id)
// that has the ROCm 5.6 layout, where two inserted entries moved every later
// member by 16 bytes.
const AmdExtMovedMinSize = 456

// AmdLayout names an AmdExtTable layout.
type AmdLayout int

const (
	// AmdLayout52 is the layout of ROCm 5.0 to 5.5.
	AmdLayout52 AmdLayout = iota
	// AmdLayout56 is the layout of ROCm 5.6 and later.
	AmdLayout56
)

// PickAmdLayout chooses the AmdExtTable layout from the table's size
// (version.minor_id). Sizes below the 5.0 table are refused.
func PickAmdLayout(size uint32) (AmdLayout, bool) {
	switch {
	case size < Amd52Size:
		return 0, false
	case size >= AmdExtMovedMinSize:
		return AmdLayout56, true
	default:
		return AmdLayout52, true
	}
}
