/* chaintool.c: a second HSA tool, shaped like a profiler, for chaining tests
 * with librocjitsu.so. It wraps hsa_queue_create and load_agent_code_object
 * and counts what it sees; its intercept handler counts kernel dispatches
 * and forwards every packet unchanged.
 *
 * CHAINTOOL_MODE=chain (default) calls the previous hsa_queue_create first
 * and registers on the queue it returns when that is already an intercept
 * queue (the chain-friendly pattern). CHAINTOOL_MODE=nochain creates its own
 * intercept queue without calling the previous entry, like rocprofiler-sdk,
 * which hides earlier tools' queue hooks.
 * At OnUnload it prints "chaintool: loads N queues N dispatches N" on
 * standard error. */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hsa/hsa.h>

#include "rocjitsu_hsa.h"

#define EXPORT __attribute__((visibility("default")))

typedef hsa_status_t (*queue_create_fn)(hsa_agent_t, uint32_t, hsa_queue_type32_t,
                                        void (*)(hsa_status_t, hsa_queue_t *, void *), void *, uint32_t, uint32_t,
                                        hsa_queue_t **);
typedef hsa_status_t (*load_fn)(hsa_executable_t, hsa_agent_t, hsa_code_object_reader_t, const char *,
                                hsa_loaded_code_object_t *);

static queue_create_fn prev_queue_create;
static hsa_status_t (*prev_queue_destroy)(hsa_queue_t *);
static load_fn prev_load;
static rj_queue_intercept_create_fn icreate;
static rj_queue_intercept_register_fn iregister;
static int nochain;
static _Atomic uint64_t loads, queues, dispatches;

static void handler(const void *pkts, uint64_t n, uint64_t idx, void *data, rj_intercept_packet_writer writer) {
  (void)idx;
  (void)data;
  const uint16_t *h = pkts;
  for (uint64_t i = 0; i < n; i++)
    if ((h[i * 32] & 0xff) == HSA_PACKET_TYPE_KERNEL_DISPATCH) atomic_fetch_add(&dispatches, 1);
  writer(pkts, n);
}

static hsa_status_t my_queue_create(hsa_agent_t a, uint32_t size, hsa_queue_type32_t type,
                                    void (*cb)(hsa_status_t, hsa_queue_t *, void *), void *d, uint32_t p, uint32_t g,
                                    hsa_queue_t **out) {
  atomic_fetch_add(&queues, 1);
  if (nochain) {
    hsa_status_t st = icreate(a, size, type, cb, d, p, g, out);
    if (st == HSA_STATUS_SUCCESS) iregister(*out, handler, NULL);
    return st;
  }
  hsa_status_t st = prev_queue_create(a, size, type, cb, d, p, g, out);
  if (st != HSA_STATUS_SUCCESS) return st;
  if (iregister(*out, handler, NULL) == HSA_STATUS_SUCCESS) return st;
  prev_queue_destroy(*out);
  st = icreate(a, size, type, cb, d, p, g, out);
  if (st == HSA_STATUS_SUCCESS) iregister(*out, handler, NULL);
  return st;
}

static hsa_status_t my_load(hsa_executable_t e, hsa_agent_t a, hsa_code_object_reader_t r, const char *o,
                            hsa_loaded_code_object_t *l) {
  atomic_fetch_add(&loads, 1);
  return prev_load(e, a, r, o, l);
}

EXPORT bool OnLoad(void *table, uint64_t rv, uint64_t nfailed, const char *const *failed) {
  (void)rv;
  (void)nfailed;
  (void)failed;
  rj_hsa_api_table *root = table;
  void *core = root->core, *amd = root->amd_ext;
  int amd56 = RJ_VERSION(amd)->minor_id >= 456;
  const char *m = getenv("CHAINTOOL_MODE");
  nochain = m && !strcmp(m, "nochain");
  prev_queue_create = (queue_create_fn)RJ_SLOT(core, RJ_CORE_QUEUE_CREATE);
  prev_queue_destroy = (hsa_status_t(*)(hsa_queue_t *))RJ_SLOT(core, RJ_CORE_QUEUE_DESTROY);
  prev_load = (load_fn)RJ_SLOT(core, RJ_CORE_EXECUTABLE_LOAD_AGENT_CODE_OBJECT);
  icreate = (rj_queue_intercept_create_fn)RJ_SLOT(amd, amd56 ? RJ_AMD70_AMD_QUEUE_INTERCEPT_CREATE
                                                             : RJ_AMD52_AMD_QUEUE_INTERCEPT_CREATE);
  iregister = (rj_queue_intercept_register_fn)RJ_SLOT(amd, amd56 ? RJ_AMD70_AMD_QUEUE_INTERCEPT_REGISTER
                                                                 : RJ_AMD52_AMD_QUEUE_INTERCEPT_REGISTER);
  RJ_SLOT(core, RJ_CORE_QUEUE_CREATE) = (void *)my_queue_create;
  RJ_SLOT(core, RJ_CORE_EXECUTABLE_LOAD_AGENT_CODE_OBJECT) = (void *)my_load;
  return true;
}

EXPORT void OnUnload(void) {
  fprintf(stderr, "chaintool: loads %lu queues %lu dispatches %lu\n", (unsigned long)loads, (unsigned long)queues,
          (unsigned long)dispatches);
}
