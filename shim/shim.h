/* shim.h: the C half of librocjitsu.so, as seen from Go. Declarations only
 * (it is included by the cgo preamble of a file with //export). */
#ifndef ROCJITSU_SHIM_H
#define ROCJITSU_SHIM_H

#include <stddef.h>
#include <stdint.h>

/* Logging from C: level (0 error .. 3 debug) and a file descriptor that C
 * owns (a duplicate of the Go logger's). */
void rj_set_log(int level, int fd);

/* The advertised guest. */
void rj_set_guest(const char *name, const char *isa_name, const char *product, uint32_t lds, uint32_t wave,
                  uint32_t waves_per_simd);

/* Whether the dispatch rewrite is enabled (ROCJITSU_DISPATCH != off). */
void rj_set_dispatch(int on);

/* Looks up "<name>" in exec for agent through the saved (original) table and
 * returns its KERNEL_OBJECT in *kobj; 0 on success. */
int rj_kernel_object(uint64_t exec, uint64_t agent, const char *name, uint64_t *kobj);

/* A kernel's virtual-LDS sidecar (from the translated object's
 * .rocjitsu.lds entry; kobj 0 = none). A dispatch whose requested LDS,
 * max(static_lds, group_segment_size), exceeds host_lds runs the sidecar:
 * kernel_object = kobj, group_segment_size = 0, private_segment_size >=
 * private_size, and a wrapper_size-byte kernarg wrapper holding prefix guest
 * kernarg bytes, the original kernarg pointer at ptr_offset and the 24-byte
 * VirtualLdsDispatchState at state_offset over a per-queue backing store.
 * flags bit d: the sidecar reads the workgroup ID of dimension d. */
typedef struct rj_vlds {
  uint64_t kobj;
  uint32_t static_lds, host_lds, private_size;
  uint32_t prefix, ptr_offset, state_offset, wrapper_size;
  uint32_t flags;
} rj_vlds;

/* Adds a dispatch rewrite for kobj, owned by exec. The payload and vlds
 * (may be NULL) are copied. */
void rj_map_put(uint64_t exec, uint64_t kobj, uint64_t new_kobj, uint32_t group_add, int group_zero,
                uint32_t private_min, uint32_t kernarg_size, uint32_t copy_size, uint32_t ptr_offset,
                const void *payload, uint32_t payload_len, const rj_vlds *vlds);

/* Number of rewrite entries (for logs and tests). */
uint64_t rj_map_count(void);

/* C-side counters. */
typedef struct rj_counters {
  uint64_t rewritten;   /* dispatch packets rewritten */
  uint64_t passed;      /* packets forwarded unchanged */
  uint64_t pool_waits;  /* times the kernarg pool was full */
  uint64_t fallbacks;   /* rewrites abandoned (packet forwarded unchanged) */
  uint64_t vlds;        /* dispatches switched to a virtual-LDS sidecar */
} rj_counters;
void rj_get_counters(rj_counters *out);

#endif
