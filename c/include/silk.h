/*
 * silk.h - C ABI of rocjitsu's Silk runtime pieces.
 *
 * silk_amdgpu_aql_dispatch_packet_build serializes an HSA AQL kernel
 * dispatch packet (hsa_kernel_dispatch_packet_t, 64 bytes) after applying
 * the Silk seed's validation rules. It is provided by libsilk.a (a Go
 * c-archive built from c/libsilk; link with -lpthread) and exported by
 * librocjitsu.so.
 */
#ifndef ROCJITSU_SILK_H
#define ROCJITSU_SILK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Size in bytes of an AQL kernel dispatch packet. */
#define SILK_AMDGPU_AQL_DISPATCH_PACKET_SIZE 64

/* Fence scopes for the packet header (hsa_fence_scope_t values). */
typedef enum SilkAmdGpuAqlFenceScope {
	SILK_AMDGPU_AQL_FENCE_SCOPE_NONE = 0,
	SILK_AMDGPU_AQL_FENCE_SCOPE_AGENT = 1,
	SILK_AMDGPU_AQL_FENCE_SCOPE_SYSTEM = 2
} SilkAmdGpuAqlFenceScope;

/*
 * Status codes of silk_amdgpu_aql_dispatch_packet_build, one per validation
 * rule. Rules are checked in the order of their values.
 */
typedef enum SilkAmdGpuAqlStatus {
	/* The packet was written. */
	SILK_AMDGPU_AQL_STATUS_OK = 0,
	/* config or out_packet is NULL. */
	SILK_AMDGPU_AQL_STATUS_NULL_POINTER = 1,
	/* dimensions is not 1, 2 or 3. */
	SILK_AMDGPU_AQL_STATUS_INVALID_DIMENSIONS = 2,
	/* a workgroup_size_* is 0. */
	SILK_AMDGPU_AQL_STATUS_ZERO_WORKGROUP_SIZE = 3,
	/* a grid_size_* is 0. */
	SILK_AMDGPU_AQL_STATUS_ZERO_GRID_SIZE = 4,
	/* a grid_size_* is smaller than the matching workgroup_size_*. */
	SILK_AMDGPU_AQL_STATUS_GRID_SMALLER_THAN_WORKGROUP = 5,
	/* a dimension at or above `dimensions` has a size other than 1. */
	SILK_AMDGPU_AQL_STATUS_UNUSED_DIMENSION_NOT_ONE = 6,
	/* workgroup_size_x * y * z exceeds max_flat_workgroup_size. */
	SILK_AMDGPU_AQL_STATUS_FLAT_WORKGROUP_SIZE_TOO_LARGE = 7,
	/* a fence scope is not one of SilkAmdGpuAqlFenceScope. */
	SILK_AMDGPU_AQL_STATUS_INVALID_FENCE_SCOPE = 8
} SilkAmdGpuAqlStatus;

/* Input of silk_amdgpu_aql_dispatch_packet_build. Sizes are in work-items. */
typedef struct SilkAmdGpuAqlDispatchPacketConfig {
	uint16_t dimensions;               /* 1, 2 or 3 */
	uint16_t workgroup_size_x;
	uint16_t workgroup_size_y;         /* 1 when dimensions < 2 */
	uint16_t workgroup_size_z;         /* 1 when dimensions < 3 */
	uint32_t grid_size_x;
	uint32_t grid_size_y;              /* 1 when dimensions < 2 */
	uint32_t grid_size_z;              /* 1 when dimensions < 3 */
	uint32_t private_segment_size;     /* bytes per work-item */
	uint32_t group_segment_size;       /* bytes per workgroup */
	uint32_t max_flat_workgroup_size;  /* 0 means 1024 */
	uint64_t kernel_object;            /* kernel descriptor address */
	uint64_t kernarg_address;
	uint64_t completion_signal;        /* hsa_signal_t handle, 0 for none */
	uint8_t barrier;                   /* nonzero sets the header barrier bit */
	int32_t acquire_fence_scope;       /* SilkAmdGpuAqlFenceScope */
	int32_t release_fence_scope;       /* SilkAmdGpuAqlFenceScope */
} SilkAmdGpuAqlDispatchPacketConfig;

/*
 * Zeroes out_packet, validates *config and, when valid, writes the packet:
 * header (type KERNEL_DISPATCH, barrier, acquire and release scopes), setup
 * (dimensions) and every field at its HSA offset; both reserved fields are
 * zero. Returns SILK_AMDGPU_AQL_STATUS_OK or the status of the first rule
 * broken; on failure out_packet stays all zero. Safe to call from any thread.
 */
int32_t silk_amdgpu_aql_dispatch_packet_build(
	const SilkAmdGpuAqlDispatchPacketConfig *config,
	uint8_t out_packet[SILK_AMDGPU_AQL_DISPATCH_PACKET_SIZE]);

#ifdef __cplusplus
}
#endif

#endif /* ROCJITSU_SILK_H */
