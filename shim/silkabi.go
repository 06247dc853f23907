package main

import "C"

import (
	"unsafe"

	"github.com/rocjitsu/rocjitsu/silkrt"
)

// silk_amdgpu_aql_dispatch_packet_build is the silk.h C ABI function,
// exported by librocjitsu.so as it is by libsilk.a. The pointers are
// untyped here so that cgo's prototype does not clash with silk.h's
// const-qualified one; silkrt.BuildDispatchPacketC reads the config struct
// and never panics on valid pointers.
//
//export silk_amdgpu_aql_dispatch_packet_build
func silk_amdgpu_aql_dispatch_packet_build(config, outPacket unsafe.Pointer) int32 {
	return silkrt.BuildDispatchPacketC(config, outPacket)
}
