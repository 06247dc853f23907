/* rocjitsu_standin.h: test-only entry points of the stand-in
 * libhsa-runtime64.so.1 (c/hsart). Real ROCR has none of these. */
#ifndef ROCJITSU_STANDIN_H
#define ROCJITSU_STANDIN_H

#include <stdint.h>
#include <hsa/hsa.h>

/* Counters of the fake GPU. */
typedef struct standin_stats {
  uint64_t dispatches;      /* kernel dispatches that passed every check */
  uint64_t faults;          /* kernel dispatches that failed a check */
  uint64_t barriers;        /* barrier-AND / barrier-OR packets */
  uint64_t other_packets;   /* vendor-specific and agent dispatch packets */
  uint64_t tools_loaded;    /* OnLoad calls that returned true */
  uint64_t onload_calls;    /* OnLoad calls */
  uint64_t code_objects;    /* code objects loaded */
} standin_stats;

/* Called by the fake GPU for every kernel dispatch that passed its checks,
 * on the thread that rang the doorbell. queue is the hardware queue; its id
 * equals the id of the intercept queue in front of it, if any. */
typedef void (*standin_dispatch_hook)(const hsa_queue_t *queue, const hsa_kernel_dispatch_packet_t *pkt,
                                      const char *kernel_name, uint32_t code_object_mach, void *data);

void standin_set_dispatch_hook(standin_dispatch_hook hook, void *data);
void standin_get_stats(standin_stats *out);
/* Copies the last fault message (empty if none). */
void standin_last_fault(char *buf, uint64_t size);

#endif
