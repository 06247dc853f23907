// common.h: helpers shared by the rocjitsu test kernels. Only compiler
// builtins are used: the OpenCL library (get_global_id, barrier, atomics)
// lives in device libraries that the corpus build does not link.
#ifndef ROCJITSU_KERNELS_COMMON_H
#define ROCJITSU_KERNELS_COMMON_H

#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

// The HSA kernel dispatch packet that launched this work-item
// (hsa_kernel_dispatch_packet_t): workgroup_size_x/y/z are u16 at byte
// offsets 4, 6, 8; grid_size_x/y/z are u32 at 12, 16, 20.
static inline __constant unsigned short *rj_packet16(void) {
  return (__constant unsigned short *)__builtin_amdgcn_dispatch_ptr();
}
static inline __constant unsigned int *rj_packet32(void) {
  return (__constant unsigned int *)__builtin_amdgcn_dispatch_ptr();
}

static inline uint local_id_x(void) { return __builtin_amdgcn_workitem_id_x(); }
static inline uint local_id_y(void) { return __builtin_amdgcn_workitem_id_y(); }
static inline uint group_id_x(void) { return __builtin_amdgcn_workgroup_id_x(); }
static inline uint group_id_y(void) { return __builtin_amdgcn_workgroup_id_y(); }
static inline uint local_size_x(void) { return rj_packet16()[2]; }
static inline uint local_size_y(void) { return rj_packet16()[3]; }
static inline uint grid_size_x(void) { return rj_packet32()[3]; }
static inline uint grid_size_y(void) { return rj_packet32()[4]; }

// Flat global index in x / y: group id times group size (from the dispatch
// packet) plus the local id.
static inline uint global_id_x(void) { return group_id_x() * local_size_x() + local_id_x(); }
static inline uint global_id_y(void) { return group_id_y() * local_size_y() + local_id_y(); }

// Work-group barrier with LDS visibility, as OpenCL's
// barrier(CLK_LOCAL_MEM_FENCE) lowers it.
static inline void group_barrier(void) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

#endif
