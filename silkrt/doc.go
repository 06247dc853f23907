// Package silkrt is the runtime side of Silk GPU programs: the Silk GPU
// bundle v3 appended to host executables (reader and writer), the AQL kernel
// dispatch packet builder with the Silk seed's validation rules (also
// exported to C as silk_amdgpu_aql_dispatch_packet_build), and providers that
// load a bundle's code objects and launch its entries: HIP through a
// dlopen'ed libamdhip64, and (later) the hsa/sim simulator.
//
// The bundle layout is defined in bundle.go and documented in
// silkrt/bundle-v3.md.
package silkrt
