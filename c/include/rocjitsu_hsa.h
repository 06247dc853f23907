/* rocjitsu_hsa.h: the parts of ROCR's tool ABI that are not in the C headers
 * of libhsa-runtime-dev (hsa_api_trace.h is C++ only and the intercept-queue
 * API is table-only). Shared by the shim's C half and the stand-in runtime.
 * Offsets come from rocjitsu_hsa_tables.h (generated from the layout dumps). */
#ifndef ROCJITSU_HSA_H
#define ROCJITSU_HSA_H

#include <stdint.h>
#include <hsa/hsa.h>
#include "rocjitsu_hsa_tables.h"

/* ApiTableVersion: major, minor (= sizeof the table in the runtime), step. */
typedef struct rj_api_table_version {
  uint32_t major_id;
  uint32_t minor_id;
  uint32_t step_id;
  uint32_t reserved;
} rj_api_table_version;

/* HsaApiTable: a version then pointers to the sub-tables. */
typedef struct rj_hsa_api_table {
  rj_api_table_version version; /* 0 */
  void *core;                   /* 16 CoreApiTable* */
  void *amd_ext;                /* 24 AmdExtTable* */
  void *finalizer_ext;          /* 32 */
  void *image_ext;              /* 40 */
  void *tools;                  /* 48, ROCm >= 6.1 (version.minor_id > 48) */
  void *pc_sampling_ext;        /* 56, ROCm >= 6.2 (version.minor_id > 56) */
} rj_hsa_api_table;

/* The function pointer slot at byte offset off of a table. */
#define RJ_SLOT(table, off) (*(void **)((char *)(table) + (off)))
/* A table's version header. */
#define RJ_VERSION(table) ((rj_api_table_version *)(table))

/* Intercept queues (hsa_ext_amd.h in ROCm >= 5.x, tool tables only). */
typedef void (*rj_intercept_packet_writer)(const void *pkts, uint64_t pkt_count);
typedef void (*rj_intercept_handler)(const void *pkts, uint64_t pkt_count, uint64_t user_pkt_index,
                                     void *data, rj_intercept_packet_writer writer);
typedef hsa_status_t (*rj_queue_intercept_create_fn)(
    hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
    void (*callback)(hsa_status_t status, hsa_queue_t *source, void *data), void *data,
    uint32_t private_segment_size, uint32_t group_segment_size, hsa_queue_t **queue);
typedef hsa_status_t (*rj_queue_intercept_register_fn)(hsa_queue_t *queue, rj_intercept_handler callback,
                                                       void *user_data);

/* Tool entry points. */
typedef _Bool (*rj_tool_onload_fn)(void *table, uint64_t runtime_version, uint64_t failed_tool_count,
                                   const char *const *failed_tool_names);
typedef void (*rj_tool_onunload_fn)(void);

#endif
