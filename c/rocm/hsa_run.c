/* hsa_run: the real ROCR driven directly through the HSA API.
 *
 *   hsa_run info
 *       hsa_init; every agent with its name, type and ISAs; a GPU agent
 *       must exist; allocations from the GPU's device pool and the CPU's
 *       kernarg pool; hsa_memory_copy host -> device -> device -> host; a
 *       queue with a barrier-AND packet whose completion signal is waited
 *       on; hsa_shut_down.
 *   hsa_run spec SPEC [-threads T] [-queues Q] [-n N]
 *       loads SPEC's code object (hsa_code_object_reader_create_from_file,
 *       hsa_executable_load_agent_code_object, freeze, validate), finds
 *       KERNEL.kd, and dispatches it: buffers from the device pool filled
 *       and read back with hsa_memory_copy, kernargs from the kernarg pool,
 *       an AQL kernel-dispatch packet on a queue, the completion signal
 *       waited on. The first dispatch's buffers go to the OUT files of the
 *       spec (shim/e2erocm checks them against internal/kernelref). With T
 *       threads (default 1) on Q queues (default 1), each thread makes N
 *       dispatches (default 1) with buffers of its own, and every result
 *       must equal the first one byte for byte.
 *
 * Output and exit status: check.h. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include "check.h"
#include "spec.h"

#define MAXQ 16
#define MAXT 64

static hsa_agent_t gpu, cpu;
static int have_gpu, have_cpu;
static hsa_amd_memory_pool_t device_pool, kernarg_pool, host_pool;
static int have_device_pool, have_kernarg_pool, have_host_pool;

/* ok records a check on an HSA status. */
static int ok(const char *name, hsa_status_t st) {
  const char *msg = "";
  if (st != HSA_STATUS_SUCCESS && hsa_status_string(st, &msg) != HSA_STATUS_SUCCESS) msg = "?";
  return check(st == HSA_STATUS_SUCCESS, name, "status %#x %s", (unsigned)st, msg);
}

#define must(name, call)                                                                                               \
  do {                                                                                                                 \
    begin(name);                                                                                                       \
    if (!ok(name, (call))) exit(finish());                                                                             \
  } while (0)

static hsa_status_t print_isa(hsa_isa_t isa, void *data) {
  int *n = (int *)data;
  uint32_t len = 0;
  char name[256] = {0};
  if (hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &len) == HSA_STATUS_SUCCESS && len < sizeof name)
    hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, name);
  info("isa", "agent %d: %s", *n, name);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_agent(hsa_agent_t a, void *data) {
  int *n = (int *)data;
  char name[64] = {0};
  hsa_device_type_t t;
  hsa_agent_get_info(a, HSA_AGENT_INFO_NAME, name);
  hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t);
  info("agent", "%d: %s (%s)", *n, name, t == HSA_DEVICE_TYPE_GPU ? "GPU" : t == HSA_DEVICE_TYPE_CPU ? "CPU" : "other");
  hsa_agent_iterate_isas(a, print_isa, n);
  if (t == HSA_DEVICE_TYPE_GPU && !have_gpu) {
    gpu = a;
    have_gpu = 1;
  }
  if (t == HSA_DEVICE_TYPE_CPU && !have_cpu) {
    cpu = a;
    have_cpu = 1;
  }
  (*n)++;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_gpu_pool(hsa_amd_memory_pool_t p, void *data) {
  (void)data;
  hsa_amd_segment_t seg;
  uint32_t flags = 0;
  bool alloc = false;
  hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg);
  hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &alloc);
  if (seg != HSA_AMD_SEGMENT_GLOBAL || !alloc) return HSA_STATUS_SUCCESS;
  hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
  if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) && !have_device_pool) {
    device_pool = p;
    have_device_pool = 1;
  }
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_cpu_pool(hsa_amd_memory_pool_t p, void *data) {
  (void)data;
  hsa_amd_segment_t seg;
  uint32_t flags = 0;
  bool alloc = false;
  hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg);
  hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &alloc);
  if (seg != HSA_AMD_SEGMENT_GLOBAL || !alloc) return HSA_STATUS_SUCCESS;
  hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
  if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) && !have_kernarg_pool) {
    kernarg_pool = p;
    have_kernarg_pool = 1;
  }
  if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) && !have_host_pool) {
    host_pool = p;
    have_host_pool = 1;
  }
  return HSA_STATUS_SUCCESS;
}

/* setup initialises ROCR and finds the agents and pools. */
static void setup(void) {
  begin("hsa-init");
  hsa_status_t st = hsa_init();
  if (st != HSA_STATUS_SUCCESS) {
    const char *msg = "?";
    hsa_status_string(st, &msg);
    printf("FAIL hsa-init status %#x %s (no ROCm device: is the simulated driver loaded?)\n", (unsigned)st, msg);
    exit(EXIT_NODEVICE);
  }
  check(1, "hsa-init", "ROCR initialised");
  int n = 0;
  must("iterate-agents", hsa_iterate_agents(find_agent, &n));
  if (!check(have_gpu, "gpu-agent", "%d agents, GPU %s", n, have_gpu ? "found" : "missing") ||
      !check(have_cpu, "cpu-agent", "%s", have_cpu ? "found" : "missing"))
    exit(finish());
  char name[64] = {0};
  hsa_agent_get_info(gpu, HSA_AGENT_INFO_NAME, name);
  check(!strncmp(name, "gfx", 3), "gpu-name", "%s", name);
  must("gpu-pools", hsa_amd_agent_iterate_memory_pools(gpu, find_gpu_pool, NULL));
  must("cpu-pools", hsa_amd_agent_iterate_memory_pools(cpu, find_cpu_pool, NULL));
  if (!check(have_device_pool, "device-pool", "coarse-grained global pool of the GPU") ||
      !check(have_kernarg_pool, "kernarg-pool", "kernarg pool of the CPU") ||
      !check(have_host_pool, "host-pool", "fine-grained system pool"))
    exit(finish());
}

/* alloc allocates from pool and lets the GPU (and the CPU) reach it. */
static void *alloc(const char *name, hsa_amd_memory_pool_t pool, size_t size) {
  void *p = NULL;
  begin(name);
  if (hsa_amd_memory_pool_allocate(pool, size ? size : 1, 0, &p) != HSA_STATUS_SUCCESS) {
    check(0, name, "hsa_amd_memory_pool_allocate of %zu bytes failed", size);
    return NULL;
  }
  hsa_agent_t both[2] = {gpu, cpu};
  hsa_status_t st = hsa_amd_agents_allow_access(2, both, NULL, p);
  if (st != HSA_STATUS_SUCCESS) {
    ok(name, st);
    return NULL;
  }
  return p;
}

/* copy copies n bytes between host memory and a pool allocation with
 * hsa_memory_copy, staging the host side through the fine-grained host
 * pool (ROCR copies between memory it knows). to_device says the
 * direction. */
static hsa_status_t copy(void *dev, void *host, size_t n, int to_device) {
  if (!n) return HSA_STATUS_SUCCESS;
  void *stage = NULL;
  hsa_status_t st = hsa_amd_memory_pool_allocate(host_pool, n, 0, &stage);
  if (st != HSA_STATUS_SUCCESS) return st;
  hsa_agent_t both[2] = {gpu, cpu};
  st = hsa_amd_agents_allow_access(2, both, NULL, stage);
  if (st == HSA_STATUS_SUCCESS) {
    if (to_device) {
      memcpy(stage, host, n);
      st = hsa_memory_copy(dev, stage, n);
    } else {
      st = hsa_memory_copy(stage, dev, n);
      if (st == HSA_STATUS_SUCCESS) memcpy(host, stage, n);
    }
  }
  hsa_amd_memory_pool_free(stage);
  return st;
}

/* barrier publishes a barrier-AND packet with a completion signal and
 * waits for it. */
static void barrier(hsa_queue_t *q) {
  hsa_signal_t sig;
  if (!ok("barrier-signal", hsa_signal_create(1, 0, NULL, &sig))) return;
  uint64_t idx = hsa_queue_add_write_index_relaxed(q, 1);
  hsa_barrier_and_packet_t *p = (hsa_barrier_and_packet_t *)q->base_address + (idx % q->size);
  memset((char *)p + 4, 0, sizeof *p - 4);
  p->completion_signal = sig;
  uint16_t header = (HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE);
  __atomic_store_n((uint16_t *)&p->header, header, __ATOMIC_RELEASE);
  hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)idx);
  begin("barrier-wait");
  hsa_signal_value_t v = hsa_signal_wait_scacquire(sig, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
  check(v == 0, "barrier-complete", "completion signal %" PRId64, (int64_t)v);
  check(hsa_queue_load_read_index_scacquire(q) >= idx + 1, "barrier-read-index", "read index %" PRIu64 ", want > %" PRIu64,
        hsa_queue_load_read_index_scacquire(q), idx);
  hsa_signal_destroy(sig);
}

static int do_info(void) {
  setup();
  const size_t n = 1 << 20;
  unsigned char *h = alloc("host-alloc", host_pool, n), *h2 = alloc("host-alloc-2", host_pool, n);
  void *d = alloc("device-alloc", device_pool, n), *d2 = alloc("device-alloc-2", device_pool, n);
  void *ka = alloc("kernarg-alloc", kernarg_pool, 4096);
  check(h && h2 && d && d2 && ka, "allocations", "host, device and kernarg pools");
  if (ka) {
    memset(ka, 0x3c, 4096);
    check(((unsigned char *)ka)[4095] == 0x3c, "kernarg-writable", "the CPU writes kernarg memory");
  }
  if (h && h2 && d && d2) {
    for (size_t i = 0; i < n; i++) h[i] = (unsigned char)(i * 13 + (i >> 9));
    memset(h2, 0, n);
    if (ok("memory-copy-h2d", hsa_memory_copy(d, h, n)) && ok("memory-copy-d2d", hsa_memory_copy(d2, d, n)) &&
        ok("memory-copy-d2h", hsa_memory_copy(h2, d2, n)))
      check(!memcmp(h, h2, n), "memory-copy-data", "%zu bytes host -> device -> device -> host", n);
  }
  uint32_t qmax = 0;
  hsa_agent_get_info(gpu, HSA_AGENT_INFO_QUEUE_MAX_SIZE, &qmax);
  hsa_queue_t *q = NULL;
  begin("queue-create");
  if (ok("queue-create", hsa_queue_create(gpu, qmax < 1024 ? qmax : 1024, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX,
                                          UINT32_MAX, &q))) {
    barrier(q);
    barrier(q);
    ok("queue-destroy", hsa_queue_destroy(q));
  }
  hsa_signal_t s;
  if (ok("signal-create", hsa_signal_create(5, 0, NULL, &s))) {
    hsa_signal_subtract_screlease(s, 2);
    check(hsa_signal_load_scacquire(s) == 3, "signal-value", "%" PRId64, (int64_t)hsa_signal_load_scacquire(s));
    hsa_signal_destroy(s);
  }
  if (h) hsa_amd_memory_pool_free(h);
  if (h2) hsa_amd_memory_pool_free(h2);
  if (d) hsa_amd_memory_pool_free(d);
  if (d2) hsa_amd_memory_pool_free(d2);
  if (ka) hsa_amd_memory_pool_free(ka);
  ok("shut-down", hsa_shut_down());
  return finish();
}

/* The loaded kernel and the spec, shared by the dispatch threads. */
static struct spec sp;
static uint64_t kobj;
static uint32_t group_size, private_size, kernarg_size;
static hsa_queue_t *queues[MAXQ];
static int nthreads = 1, nqueues = 1, ndispatch = 1;
static unsigned char *first[SPEC_MAXBUF];
static pthread_mutex_t first_mu = PTHREAD_MUTEX_INITIALIZER;

/* dispatch runs the kernel once on q with fresh buffers and reads them back
 * into out[i] (malloc'd). */
static int dispatch(int t, hsa_queue_t *q, unsigned char **out) {
  char name[400];
  void *d[SPEC_MAXBUF] = {0};
  int good = 1;
  unsigned char *ka = alloc("kernarg-alloc", kernarg_pool, kernarg_size > sp.kernarg_size ? kernarg_size : sp.kernarg_size);
  if (!ka) return 0;
  memset(ka, 0, kernarg_size > sp.kernarg_size ? kernarg_size : sp.kernarg_size);
  memcpy(ka, sp.kernarg, sp.kernarg_size);
  for (int i = 0; i < sp.nbuf && good; i++) {
    snprintf(name, sizeof name, "thread-%d-buffer-%d-alloc", t, i);
    d[i] = alloc(name, device_pool, sp.buf[i].size);
    good = d[i] != NULL;
    if (good && sp.buf[i].size) {
      snprintf(name, sizeof name, "thread-%d-buffer-%d-upload", t, i);
      hsa_status_t st = copy(d[i], sp.buf[i].init, sp.buf[i].size, 1);
      if (st != HSA_STATUS_SUCCESS) good = ok(name, st);
    }
    if (good) spec_set_address(ka, &sp.buf[i], (uint64_t)(uintptr_t)d[i]);
  }
  hsa_signal_t sig;
  if (good) {
    snprintf(name, sizeof name, "thread-%d-signal-create", t);
    hsa_status_t st = hsa_signal_create(1, 0, NULL, &sig);
    if (st != HSA_STATUS_SUCCESS) good = ok(name, st);
  }
  if (good) {
    uint64_t idx = hsa_queue_add_write_index_screlease(q, 1);
    while (idx - hsa_queue_load_read_index_scacquire(q) >= q->size) sched_yield();
    hsa_kernel_dispatch_packet_t *p = (hsa_kernel_dispatch_packet_t *)q->base_address + (idx % q->size);
    memset((char *)p + 4, 0, sizeof *p - 4);
    int dims = sp.grid[2] > 1 ? 3 : sp.grid[1] > 1 ? 2 : 1;
    p->workgroup_size_x = (uint16_t)sp.block[0];
    p->workgroup_size_y = (uint16_t)sp.block[1];
    p->workgroup_size_z = (uint16_t)sp.block[2];
    p->grid_size_x = sp.grid[0];
    p->grid_size_y = sp.grid[1];
    p->grid_size_z = sp.grid[2];
    p->private_segment_size = private_size;
    p->group_segment_size = group_size + sp.lds;
    p->kernel_object = kobj;
    p->kernarg_address = ka;
    p->completion_signal = sig;
    uint16_t header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER) |
                      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE) |
                      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE);
    uint32_t word = header | (uint32_t)(dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS) << 16;
    __atomic_store_n((uint32_t *)p, word, __ATOMIC_RELEASE);
    hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)idx);
    snprintf(name, sizeof name, "thread-%d-dispatch-wait (completion signal of %s)", t, sp.kernel);
    begin(name);
    hsa_signal_value_t v = hsa_signal_wait_scacquire(sig, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
    if (v != 0) {
      snprintf(name, sizeof name, "thread-%d-dispatch-complete", t);
      good = check(0, name, "completion signal %" PRId64, (int64_t)v);
    }
    hsa_signal_destroy(sig);
  }
  for (int i = 0; i < sp.nbuf; i++) {
    out[i] = (unsigned char *)calloc(1, sp.buf[i].size + 1);
    if (good && sp.buf[i].size) {
      snprintf(name, sizeof name, "thread-%d-buffer-%d-readback", t, i);
      hsa_status_t st = copy(d[i], out[i], sp.buf[i].size, 0);
      if (st != HSA_STATUS_SUCCESS) good = ok(name, st);
    }
    if (d[i]) hsa_amd_memory_pool_free(d[i]);
  }
  hsa_amd_memory_pool_free(ka);
  return good;
}

static void *worker(void *arg) {
  int t = (int)(intptr_t)arg;
  hsa_queue_t *q = queues[t % nqueues];
  int bad = 0, failed = 0;
  char name[64];
  for (int k = 0; k < ndispatch; k++) {
    unsigned char *out[SPEC_MAXBUF] = {0};
    if (!dispatch(t, q, out)) {
      failed++;
    } else {
      pthread_mutex_lock(&first_mu);
      if (!first[0] && sp.nbuf) {
        for (int i = 0; i < sp.nbuf; i++) {
          first[i] = out[i];
          out[i] = NULL;
        }
      } else {
        for (int i = 0; i < sp.nbuf; i++)
          if (memcmp(out[i], first[i], sp.buf[i].size)) bad++;
      }
      pthread_mutex_unlock(&first_mu);
    }
    for (int i = 0; i < sp.nbuf; i++) free(out[i]);
  }
  snprintf(name, sizeof name, "thread-%d-dispatches", t);
  check(!failed && !bad, name, "%d dispatches on queue %d: %d failed, %d buffers differ from the first result", ndispatch,
        t % nqueues, failed, bad);
  return NULL;
}

static int do_spec(const char *path) {
  char err[1024];
  if (!spec_parse(path, &sp, err, sizeof err)) {
    fprintf(stderr, "hsa_run: %s\n", err);
    return EXIT_USAGE;
  }
  setup();
  int fd = open(sp.object, O_RDONLY);
  if (!check(fd >= 0, "open-object", "%s", sp.object)) return finish();
  hsa_code_object_reader_t reader;
  hsa_executable_t exe;
  must("code-object-reader", hsa_code_object_reader_create_from_file(fd, &reader));
  must("executable-create", hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
  must("load-agent-code-object", hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL));
  must("executable-freeze", hsa_executable_freeze(exe, NULL));
  uint32_t result = 1;
  must("executable-validate", hsa_executable_validate(exe, &result));
  check(result == 0, "executable-valid", "validation result %u", result);
  char sym_name[300];
  snprintf(sym_name, sizeof sym_name, "%s.kd", sp.kernel);
  hsa_executable_symbol_t sym;
  must("get-symbol", hsa_executable_get_symbol_by_name(exe, sym_name, &gpu, &sym));
  must("kernel-object", hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kobj));
  must("group-size", hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &group_size));
  must("private-size",
       hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, &private_size));
  must("kernarg-size",
       hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &kernarg_size));
  info("kernel", "%s: group %u private %u kernarg %u (spec %zu)", sym_name, group_size, private_size, kernarg_size,
       sp.kernarg_size);
  uint32_t qmax = 0;
  hsa_agent_get_info(gpu, HSA_AGENT_INFO_QUEUE_MAX_SIZE, &qmax);
  for (int i = 0; i < nqueues; i++) {
    char name[32];
    snprintf(name, sizeof name, "queue-%d-create", i);
    must(name, hsa_queue_create(gpu, qmax < 256 ? qmax : 256, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX,
                                &queues[i]));
  }
  pthread_t th[MAXT];
  begin("dispatch");
  for (int t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
  for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
  for (int i = 0; i < sp.nbuf && first[0]; i++) {
    char name[64];
    snprintf(name, sizeof name, "buffer-%d-write", i);
    check(spec_write_file(sp.buf[i].out, first[i], sp.buf[i].size), name, "%zu bytes to %s", sp.buf[i].size,
          sp.buf[i].out);
  }
  for (int i = 0; i < nqueues; i++) ok("queue-destroy", hsa_queue_destroy(queues[i]));
  ok("executable-destroy", hsa_executable_destroy(exe));
  ok("code-object-reader-destroy", hsa_code_object_reader_destroy(reader));
  close(fd);
  ok("shut-down", hsa_shut_down());
  return finish();
}

static int usage(void) {
  fprintf(stderr, "usage: hsa_run info | hsa_run spec SPEC [-threads T] [-queues Q] [-n N]\n");
  return EXIT_USAGE;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage();
  if (!strcmp(argv[1], "info") && argc == 2) {
    watchdog("hsa_run", 60);
    return do_info();
  }
  if (strcmp(argv[1], "spec") || argc < 3) return usage();
  for (int i = 3; i < argc; i += 2) {
    if (i + 1 >= argc) return usage();
    if (!strcmp(argv[i], "-threads")) nthreads = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-queues")) nqueues = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-n")) ndispatch = atoi(argv[i + 1]);
    else return usage();
  }
  if (nthreads < 1 || nthreads > MAXT || nqueues < 1 || nqueues > MAXQ || ndispatch < 1) return usage();
  watchdog("hsa_run", 120 + (unsigned)(nthreads * ndispatch / 100));
  return do_spec(argv[2]);
}
