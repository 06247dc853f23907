// Command libsilk is built with -buildmode=c-archive into libsilk.a, the
// static C library declared by c/include/silk.h. Its exports only forward to
// package silkrt.
package main

import "C"

import (
	"unsafe"

	"github.com/rocjitsu/rocjitsu/silkrt"
)

// silk_amdgpu_aql_dispatch_packet_build is the C entry point declared in
// silk.h; the pointers are passed through untyped so that cgo's generated
// prototype does not clash with the header's const-qualified one.
//
//export silk_amdgpu_aql_dispatch_packet_build
func silk_amdgpu_aql_dispatch_packet_build(config, outPacket unsafe.Pointer) int32 {
	return silkrt.BuildDispatchPacketC(config, outPacket)
}

func main() {}
