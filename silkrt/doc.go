// Package silkrt is the runtime side of Silk GPU programs:
//
//   - the Silk GPU bundle v3 appended to host executables (Bundle,
//     AppendBundle, ReadBundle; the byte layout is in bundle-v3.md);
//   - the AQL kernel dispatch packet builder with the Silk seed's
//     validation rules (BuildDispatchPacket, EncodeDispatchPacket, also
//     exported to C as silk_amdgpu_aql_dispatch_packet_build through
//     BuildDispatchPacketC) and the barrier-AND/OR builder;
//   - the Provider interface that loads a bundle and launches its entries,
//     with AQL, a provider for any device driven by AQL packets (AQLDevice).
//
// Providers live in subpackages: silkrt/hip (libamdhip64 through purego)
// and silkrt/simulator (AQL on an hsa/sim agent).
package silkrt
