/* hiplike.c: drives an HSA runtime the way HIP (CLR) does, for end-to-end
 * tests of librocjitsu.so on the stand-in runtime:
 *   hsa_init; find the GPU; create queues; executable_create_alt;
 *   code_object_reader_create_from_memory (or from a file, or through the
 *   loader extension's file-with-offset-size, or load_program_code_object);
 *   load_agent_code_object; freeze; get_symbol_by_name("<kernel>.kd");
 *   KERNEL_OBJECT; then publish AQL packets (header last, release) and ring
 *   the doorbell, with group/private/kernarg sizes taken from the original
 *   code object's metadata (passed on the command line, as HIP reads them
 *   with COMGR from the bytes it handed to the runtime).
 * Every dispatch carries a tag in its kernargs; the stand-in's dispatch hook
 * checks that each packet arrives once, in order, on the queue it was
 * written to.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ven_amd_loader.h>

#include "rocjitsu_standin.h"

#define MAXT 16
#define MAXQ 16
#define MAGIC 0x524a4b41u
#define NSLOTS 64

static struct {
  const char *path, *kernel, *load;
  uint32_t group, priv, kernarg, dyn;
  int threads, queues, fork_child, bench, info, no_shutdown, cycles, load_storm;
  int gpu_index; /* which GPU agent to use (-gpu N) */
  long n;
  long barrier_every; /* also publish a barrier-AND packet after every N dispatches on a queue */
  long check_wrapper; /* offset of the original kernarg pointer in a rewritten buffer, or -1 */
  uint32_t copy_size;
} opt = {.load = "memory", .threads = 1, .queues = 1, .n = 10, .check_wrapper = -1};

static hsa_agent_t gpu, cpu;
static int gpus_seen;
static hsa_amd_memory_pool_t kernarg_pool;
static int have_kernarg_pool;
static hsa_queue_t *queues[MAXQ];
static uint64_t kobj;
static _Atomic uint64_t errors;
static uint64_t last_seq[MAXT][MAXQ];
static uint64_t seen[MAXT][MAXQ];
static _Atomic uint64_t hook_calls;
static _Atomic uint64_t barriers_sent;

#define CHECK(x)                                                                       \
  do {                                                                                 \
    hsa_status_t st_ = (x);                                                            \
    if (st_ != HSA_STATUS_SUCCESS) {                                                   \
      fprintf(stderr, "hiplike: %s failed: %#x (line %d)\n", #x, st_, __LINE__);      \
      exit(3);                                                                         \
    }                                                                                  \
  } while (0)

static void err(const char *fmt, uint64_t a, uint64_t b, uint64_t c) {
  if (atomic_fetch_add(&errors, 1) < 5) {
    fprintf(stderr, "hiplike: ");
    fprintf(stderr, fmt, a, b, c);
    fputc('\n', stderr);
  }
}

static void hook(const hsa_queue_t *q, const hsa_kernel_dispatch_packet_t *p, const char *name, uint32_t mach,
                 void *data) {
  (void)data;
  (void)mach;
  atomic_fetch_add(&hook_calls, 1);
  const uint8_t *ka = p->kernarg_address;
  uint32_t magic, t, qi;
  uint64_t seq;
  memcpy(&magic, ka, 4);
  memcpy(&t, ka + 4, 4);
  memcpy(&qi, ka + 8, 4);
  memcpy(&seq, ka + 16, 8);
  if (magic != MAGIC || t >= MAXT || qi >= MAXQ) {
    err("dispatch with a bad tag (magic %#" PRIx64 " thread %" PRIu64 " queue %" PRIu64 ")", magic, t, qi);
    return;
  }
  if (!queues[qi] || q->id != queues[qi]->id)
    err("packet for queue %" PRIu64 " arrived on hw queue %" PRIu64 " (thread %" PRIu64 ")", qi, q->id, t);
  if (seq != last_seq[t][qi] + 1)
    err("thread %" PRIu64 " queue %" PRIu64 ": sequence %" PRIu64 " out of order", t, qi, seq);
  last_seq[t][qi] = seq;
  seen[t][qi]++;
  const char *want = opt.kernel;
  size_t wl = strlen(want);
  if (strncmp(name, want, wl) || strcmp(name + wl, ".kd"))
    err("dispatch ran another kernel than the one launched (%" PRIu64 " %" PRIu64 " %" PRIu64 ")", t, qi, seq);
  if (opt.check_wrapper >= 0) {
    uint64_t orig;
    memcpy(&orig, ka + opt.check_wrapper, 8);
    if (!orig || memcmp((const void *)(uintptr_t)orig, ka, opt.copy_size))
      err("kernarg wrapper's original pointer %#" PRIx64 " does not point at the app's kernargs%" PRIu64 "%" PRIu64, orig, 0, 0);
  }
}

static hsa_status_t find_agents(hsa_agent_t a, void *d) {
  (void)d;
  hsa_device_type_t t;
  CHECK(hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t));
  if (t == HSA_DEVICE_TYPE_GPU && gpus_seen++ == opt.gpu_index) gpu = a;
  if (t == HSA_DEVICE_TYPE_CPU && !cpu.handle) cpu = a;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_kernarg_pool(hsa_amd_memory_pool_t p, void *d) {
  (void)d;
  hsa_amd_segment_t seg;
  uint32_t flags;
  CHECK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
  if (seg != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
  CHECK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
  if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) {
    kernarg_pool = p;
    have_kernarg_pool = 1;
  }
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t print_isa(hsa_isa_t isa, void *d) {
  (void)d;
  uint32_t len;
  CHECK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &len));
  char *name = calloc(1, len + 1);
  CHECK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, name));
  printf("isa %s\n", name);
  free(name);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t print_group_pool(hsa_amd_memory_pool_t p, void *d) {
  (void)d;
  hsa_amd_segment_t seg;
  CHECK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
  if (seg == HSA_AMD_SEGMENT_GROUP) {
    size_t sz;
    CHECK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SIZE, &sz));
    printf("lds %zu\n", sz);
  }
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t print_group_region(hsa_region_t r, void *d) {
  (void)d;
  hsa_region_segment_t seg;
  CHECK(hsa_region_get_info(r, HSA_REGION_INFO_SEGMENT, &seg));
  if (seg == HSA_REGION_SEGMENT_GROUP) {
    size_t sz;
    CHECK(hsa_region_get_info(r, HSA_REGION_INFO_SIZE, &sz));
    printf("region_lds %zu\n", sz);
  }
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t print_wavefront(hsa_wavefront_t wf, void *d) {
  (void)d;
  uint32_t size;
  CHECK(hsa_wavefront_get_info(wf, HSA_WAVEFRONT_INFO_SIZE, &size));
  printf("isa_wavefront %u\n", size);
  return HSA_STATUS_SUCCESS;
}

static void print_info(void) {
  char name[64], product[64];
  uint32_t wave, waves_cu, simds;
  hsa_isa_t isa;
  CHECK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_NAME, name));
  CHECK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_PRODUCT_NAME, product));
  CHECK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_WAVEFRONT_SIZE, &wave));
  CHECK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU, &waves_cu));
  CHECK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU, &simds));
  CHECK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_ISA, &isa));
  printf("agent %s\nproduct %s\nwavefront %u\nwaves_per_simd %u\n", name, product, wave, simds ? waves_cu / simds : 0);
  printf("agent_");
  print_isa(isa, NULL);
  CHECK(hsa_agent_iterate_isas(gpu, print_isa, NULL));
  CHECK(hsa_amd_agent_iterate_memory_pools(gpu, print_group_pool, NULL));
  CHECK(hsa_agent_iterate_regions(gpu, print_group_region, NULL));
  /* The rest of the ISA API must accept the agent's ISA handle. */
  CHECK(hsa_isa_iterate_wavefronts(isa, print_wavefront, NULL));
  hsa_round_method_t rm;
  uint16_t mask;
  bool compat = false;
  CHECK(hsa_isa_get_round_method(isa, HSA_FP_TYPE_32, HSA_FLUSH_MODE_FTZ, &rm));
  CHECK(hsa_isa_get_exception_policies(isa, HSA_PROFILE_FULL, &mask));
  CHECK(hsa_isa_compatible(isa, isa, &compat));
  printf("round_method %d exception_policies %u compatible %d\n", (int)rm, mask, (int)compat);
}

static void *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "hiplike: %s: %s\n", path, strerror(errno));
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *b = malloc((size_t)n);
  if (fread(b, 1, (size_t)n, f) != (size_t)n) exit(2);
  fclose(f);
  *size = (size_t)n;
  return b;
}

static hsa_executable_t exec;
static hsa_ven_amd_loader_1_01_pfn_t storage_loader;

struct storage_q {
  const void *app;
  int same;
};

static hsa_status_t storage_cb(hsa_executable_t e, hsa_loaded_code_object_t lco, void *data) {
  (void)e;
  struct storage_q *q = data;
  uint64_t base = 0;
  if (storage_loader.hsa_ven_amd_loader_loaded_code_object_get_info == NULL) {
    hsa_ven_amd_loader_1_01_pfn_t ldr;
    hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_LOADER, 1, sizeof ldr, &ldr);
    storage_loader = ldr;
  }
  storage_loader.hsa_ven_amd_loader_loaded_code_object_get_info(
      lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_BASE, &base);
  if (base == (uint64_t)(uintptr_t)q->app) q->same = 1;
  return HSA_STATUS_SUCCESS;
}

static void load(void) {
  size_t size;
  void *bytes = read_file(opt.path, &size);
  hsa_code_object_reader_t reader;
  CHECK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exec));
  int fd = -1;
  if (!strcmp(opt.load, "memory") || !strcmp(opt.load, "program")) {
    CHECK(hsa_code_object_reader_create_from_memory(bytes, size, &reader));
  } else if (!strcmp(opt.load, "file")) {
    fd = open(opt.path, O_RDONLY);
    if (fd < 0) exit(2);
    CHECK(hsa_code_object_reader_create_from_file(fd, &reader));
  } else if (!strcmp(opt.load, "fileoff")) {
    char tmpl[] = "/tmp/hiplike-XXXXXX";
    fd = mkstemp(tmpl);
    unlink(tmpl);
    char junk[4096];
    memset(junk, 0x5a, sizeof junk);
    if (write(fd, junk, sizeof junk) != (ssize_t)sizeof junk || write(fd, bytes, size) != (ssize_t)size) exit(2);
    hsa_ven_amd_loader_1_02_pfn_t ldr;
    CHECK(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_LOADER, 1, sizeof ldr, &ldr));
    CHECK(ldr.hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size(fd, sizeof junk, size, &reader));
  } else {
    fprintf(stderr, "hiplike: unknown -load %s\n", opt.load);
    exit(2);
  }
  hsa_status_t st;
  if (!strcmp(opt.load, "program"))
    st = hsa_executable_load_program_code_object(exec, reader, NULL, NULL);
  else
    st = hsa_executable_load_agent_code_object(exec, gpu, reader, NULL, NULL);
  if (st != HSA_STATUS_SUCCESS) {
    printf("load_status %#x\n", st);
    fprintf(stderr, "hiplike: load_agent_code_object failed: %#x\n", st);
    exit(4);
  }
  CHECK(hsa_executable_freeze(exec, NULL));
  /* HIP keeps its copy; overwrite ours to prove nobody kept a pointer to it
   * after load (translated bytes must be owned by the tool). */
  char sym[512];
  snprintf(sym, sizeof sym, "%s.kd", opt.kernel);
  hsa_executable_symbol_t s;
  CHECK(hsa_executable_get_symbol_by_name(exec, sym, &gpu, &s));
  CHECK(hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kobj));
  uint32_t ks, gs, ps;
  CHECK(hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &ks));
  CHECK(hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &gs));
  CHECK(hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, &ps));
  printf("symbol %s kernarg %u group %u private %u\n", sym, ks, gs, ps);
  /* Which bytes did the runtime load? (the loader extension's storage base) */
  hsa_ven_amd_loader_1_01_pfn_t ldr;
  if (hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_LOADER, 1, sizeof ldr, &ldr) == HSA_STATUS_SUCCESS) {
    struct storage_q q = {bytes, 0};
    ldr.hsa_ven_amd_loader_executable_iterate_loaded_code_objects(exec, storage_cb, &q);
    printf("storage %s\n", q.same ? "app" : "other");
    storage_loader = ldr;
  }
  if (!strcmp(opt.load, "memory") || !strcmp(opt.load, "program")) {
    /* ROCR does not copy reader memory; HIP keeps it until the module is
     * unloaded. Keep ours too (never freed): like HIP. */
  } else {
    free(bytes);
  }
  CHECK(hsa_code_object_reader_destroy(reader));
  if (fd >= 0) close(fd);
}

static inline void publish(hsa_queue_t *q, hsa_kernel_dispatch_packet_t *pkt) {
  uint64_t idx = hsa_queue_add_write_index_screlease(q, 1);
  while (idx - hsa_queue_load_read_index_scacquire(q) >= q->size) sched_yield();
  hsa_kernel_dispatch_packet_t *slot = (hsa_kernel_dispatch_packet_t *)q->base_address + (idx & (q->size - 1));
  memcpy((char *)slot + 4, (char *)pkt + 4, 60);
  uint16_t header = (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  uint32_t word = header | ((uint32_t)1 << 16);
  __atomic_store_n((uint32_t *)slot, word, __ATOMIC_RELEASE);
  hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)idx);
}

typedef struct worker {
  int t;
  long n;    /* per queue */
  int first_q, nq;
  double ns; /* per dispatch, bench mode */
} worker;

/* Each worker has, per queue, its own kernarg ring and completion signal:
 * packets complete in order only within one queue. */
static void *run_worker(void *arg) {
  worker *w = arg;
  size_t slot_size = ((opt.kernarg < 64 ? 64 : opt.kernarg) + 255) & ~(size_t)255;
  uint8_t *ring[MAXQ];
  hsa_signal_t done[MAXQ];
  if (!have_kernarg_pool) exit(5);
  for (int k = 0; k < w->nq; k++) {
    CHECK(hsa_amd_memory_pool_allocate(kernarg_pool, slot_size * NSLOTS, 0, (void **)&ring[k]));
    CHECK(hsa_amd_agents_allow_access(1, &gpu, NULL, ring[k]));
    CHECK(hsa_signal_create(w->n, 0, NULL, &done[k]));
  }
  long total = w->n * w->nq;
  hsa_signal_t bdone, zero_sig;
  CHECK(hsa_signal_create(0, 0, NULL, &bdone));
  CHECK(hsa_signal_create(0, 0, NULL, &zero_sig));
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long i = 0; i < total; i++) {
    int k = (int)(i % w->nq);
    int qi = w->first_q + k;
    long j = i / w->nq; /* dispatch number on this queue */
    if (j >= NSLOTS)   /* slot j % NSLOTS was used by dispatch j - NSLOTS; wait for it */
      while (hsa_signal_load_scacquire(done[k]) > w->n - (j - NSLOTS + 1)) sched_yield();
    uint8_t *ka = ring[k] + (size_t)(j % NSLOTS) * slot_size;
    uint32_t magic = MAGIC, t = (uint32_t)w->t, q = (uint32_t)qi;
    uint64_t s = (uint64_t)j + 1;
    memcpy(ka, &magic, 4);
    memcpy(ka + 4, &t, 4);
    memcpy(ka + 8, &q, 4);
    memcpy(ka + 16, &s, 8);
    hsa_kernel_dispatch_packet_t pkt;
    memset(&pkt, 0, sizeof pkt);
    pkt.setup = 1;
    pkt.workgroup_size_x = 256;
    pkt.workgroup_size_y = pkt.workgroup_size_z = 1;
    pkt.grid_size_x = 256 * 4;
    pkt.grid_size_y = pkt.grid_size_z = 1;
    pkt.group_segment_size = opt.group + opt.dyn;
    pkt.private_segment_size = opt.priv;
    pkt.kernel_object = kobj;
    pkt.kernarg_address = ka;
    pkt.completion_signal = done[k];
    publish(queues[qi], &pkt);
    if (opt.barrier_every && (j + 1) % opt.barrier_every == 0) {
      /* A barrier-AND on the dispatch just made (HIP's stream waits look so). */
      hsa_barrier_and_packet_t bar;
      memset(&bar, 0, sizeof bar);
      bar.dep_signal[0] = zero_sig; /* an already-satisfied dependency */
      bar.completion_signal = bdone;
      hsa_signal_add_screlease(bdone, 1);
      uint64_t idx = hsa_queue_add_write_index_screlease(queues[qi], 1);
      while (idx - hsa_queue_load_read_index_scacquire(queues[qi]) >= queues[qi]->size) sched_yield();
      hsa_barrier_and_packet_t *slot = (hsa_barrier_and_packet_t *)queues[qi]->base_address + (idx & (queues[qi]->size - 1));
      memcpy((char *)slot + 4, (char *)&bar + 4, 60);
      uint16_t header = (HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER);
      __atomic_store_n((uint32_t *)slot, header, __ATOMIC_RELEASE);
      hsa_signal_store_screlease(queues[qi]->doorbell_signal, (hsa_signal_value_t)idx);
      atomic_fetch_add(&barriers_sent, 1);
    }
  }
  for (int k = 0; k < w->nq; k++)
    if (hsa_signal_wait_scacquire(done[k], HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) != 0)
      err("thread %" PRIu64 " queue %" PRIu64 ": completion signal never reached 0 (%" PRIu64 " left)", (uint64_t)w->t,
          (uint64_t)k, (uint64_t)hsa_signal_load_relaxed(done[k]));
  if (hsa_signal_wait_scacquire(bdone, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) != 0)
    err("thread %" PRIu64 ": %" PRIu64 " barrier packets never completed%" PRIu64, (uint64_t)w->t,
        (uint64_t)hsa_signal_load_relaxed(bdone), 0);
  hsa_signal_destroy(bdone);
  hsa_signal_destroy(zero_sig);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  w->ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)total;
  for (int k = 0; k < w->nq; k++) {
    hsa_signal_destroy(done[k]);
    hsa_amd_memory_pool_free(ring[k]);
  }
  return NULL;
}

/* -load-storm: every thread loads, freezes, dispatches once and destroys
 * its own executable, opt.n times, all at once: code-object hooks (and the
 * Go half of a tool) entered from many threads, the tool's kernel_object map
 * rebuilt while other threads dispatch. */
static void *storm_worker(void *arg) {
  worker *w = arg;
  size_t size;
  void *bytes = read_file(opt.path, &size);
  char sym[512];
  snprintf(sym, sizeof sym, "%s.kd", opt.kernel);
  uint8_t *ka;
  CHECK(hsa_amd_memory_pool_allocate(kernarg_pool, 4096, 0, (void **)&ka));
  hsa_signal_t done;
  CHECK(hsa_signal_create(1, 0, NULL, &done));
  for (long j = 0; j < w->n; j++) {
    hsa_executable_t e;
    hsa_code_object_reader_t r;
    CHECK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &e));
    CHECK(hsa_code_object_reader_create_from_memory(bytes, size, &r));
    CHECK(hsa_executable_load_agent_code_object(e, gpu, r, NULL, NULL));
    CHECK(hsa_executable_freeze(e, NULL));
    hsa_executable_symbol_t s;
    uint64_t ko;
    CHECK(hsa_executable_get_symbol_by_name(e, sym, &gpu, &s));
    CHECK(hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &ko));
    uint32_t magic = MAGIC, t = (uint32_t)w->t, q = 0;
    uint64_t seq = (uint64_t)j + 1;
    memset(ka, 0, 64);
    memcpy(ka, &magic, 4);
    memcpy(ka + 4, &t, 4);
    memcpy(ka + 8, &q, 4);
    memcpy(ka + 16, &seq, 8);
    hsa_signal_store_screlease(done, 1);
    hsa_kernel_dispatch_packet_t pkt;
    memset(&pkt, 0, sizeof pkt);
    pkt.setup = 1;
    pkt.workgroup_size_x = 64;
    pkt.workgroup_size_y = pkt.workgroup_size_z = 1;
    pkt.grid_size_x = 64;
    pkt.grid_size_y = pkt.grid_size_z = 1;
    pkt.group_segment_size = opt.group + opt.dyn;
    pkt.private_segment_size = opt.priv;
    pkt.kernel_object = ko;
    pkt.kernarg_address = ka;
    pkt.completion_signal = done;
    publish(queues[0], &pkt);
    if (hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) != 0)
      err("thread %" PRIu64 " iteration %" PRIu64 ": dispatch never completed%" PRIu64, (uint64_t)w->t, (uint64_t)j, 0);
    CHECK(hsa_code_object_reader_destroy(r));
    CHECK(hsa_executable_destroy(e));
  }
  hsa_signal_destroy(done);
  hsa_amd_memory_pool_free(ka);
  free(bytes);
  return NULL;
}

static void usage(void) {
  fprintf(stderr, "usage: hiplike -k KERNEL [-load memory|file|fileoff|program] [-group N] [-private N] [-kernarg N]\n"
                  "               [-dyn N] [-n N] [-t THREADS] [-q QUEUES] [-fork] [-bench] [-info]\n"
                  "               [-check-wrapper OFF -copy N] [-barrier-every N] [-cycles N] [-load-storm]\n"
                  "               [-gpu N] [-no-shutdown]\n"
                  "               CODE_OBJECT\n");
  exit(2);
}

static int report(const char *who) {
  standin_stats st;
  standin_get_stats(&st);
  long want = opt.n * opt.queues * opt.threads;
  uint64_t got = 0;
  for (int t = 0; t < opt.threads; t++)
    for (int q = 0; q < opt.queues; q++) {
      got += seen[t][q];
      if ((long)seen[t][q] != opt.n)
        err("thread %" PRIu64 " queue %" PRIu64 ": %" PRIu64 " dispatches arrived", (uint64_t)t, (uint64_t)q, seen[t][q]);
    }
  printf("%s dispatched %" PRIu64 " of %ld faults %" PRIu64 " errors %" PRIu64 "\n", who, got, want, st.faults,
         (uint64_t)errors);
  printf("%s tools_loaded %" PRIu64 " onload_calls %" PRIu64 "\n", who, st.tools_loaded, st.onload_calls);
  printf("%s barriers_sent %" PRIu64 " barriers_run %" PRIu64 "\n", who, (uint64_t)barriers_sent, st.barriers);
  if (st.faults) {
    char buf[512];
    standin_last_fault(buf, sizeof buf);
    printf("%s last_fault %s\n", who, buf);
  }
  return (st.faults || errors || (long)got != want) ? 1 : 0;
}

static int cycle(void) {
  hsa_status_t st = hsa_init();
  if (st != HSA_STATUS_SUCCESS) {
    printf("hsa_init %#x\n", st);
    return 6;
  }
  CHECK(hsa_iterate_agents(find_agents, NULL));
  if (!gpu.handle || !cpu.handle) {
    fprintf(stderr, "hiplike: no GPU\n");
    return 7;
  }
  CHECK(hsa_amd_agent_iterate_memory_pools(cpu, find_kernarg_pool, NULL));
  if (opt.info) print_info();
  if (!opt.path || !opt.kernel) {
    if (!opt.no_shutdown) CHECK(hsa_shut_down());
    return opt.info ? 0 : (usage(), 2);
  }
  for (int q = 0; q < opt.queues; q++)
    CHECK(hsa_queue_create(gpu, 1024, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &queues[q]));
  load();
  standin_set_dispatch_hook(hook, NULL);
  if (opt.n == 0) {
    if (!opt.no_shutdown) CHECK(hsa_executable_destroy(exec));
    if (!opt.no_shutdown) CHECK(hsa_shut_down());
    return 0;
  }
  worker w[MAXT];
  pthread_t th[MAXT];
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if (opt.load_storm) opt.queues = 1; /* storm threads dispatch on queue 0 */
  for (int t = 0; t < opt.threads; t++) {
    w[t] = (worker){.t = t, .n = opt.n, .first_q = 0, .nq = opt.queues};
    pthread_create(&th[t], NULL, opt.load_storm ? storm_worker : run_worker, &w[t]);
  }
  for (int t = 0; t < opt.threads; t++) pthread_join(th[t], NULL);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (opt.bench) {
    double wall = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
    printf("ns_per_dispatch %.1f\n", w[0].ns);
    /* all threads: wall time over every dispatch (includes thread start-up) */
    printf("wall_ns_per_dispatch %.1f\n", wall / (double)(opt.n * opt.queues * opt.threads));
  }
  int rc = report("parent");
  if (opt.fork_child) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      /* The child dispatches on the queues inherited from the parent. */
      memset(seen, 0, sizeof seen);
      memset(last_seq, 0, sizeof last_seq);
      opt.threads = 1; /* one dispatching thread in the child */
      worker cw = {.t = 0, .n = opt.n, .first_q = 0, .nq = opt.queues};
      run_worker(&cw);
      int crc = report("child");
      if (!opt.no_shutdown) {
        CHECK(hsa_executable_destroy(exec));
        CHECK(hsa_shut_down());
      }
      fflush(stdout);
      _exit(crc);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    printf("child_exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    if (!WIFEXITED(status) || WEXITSTATUS(status)) rc = 1;
  }
  if (!opt.no_shutdown) {
    CHECK(hsa_executable_destroy(exec));
    for (int q = 0; q < opt.queues; q++) CHECK(hsa_queue_destroy(queues[q]));
    CHECK(hsa_shut_down());
  }
  return rc;
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
#define NEXT() (i + 1 < argc ? argv[++i] : (usage(), ""))
    if (!strcmp(a, "-k")) opt.kernel = NEXT();
    else if (!strcmp(a, "-load")) opt.load = NEXT();
    else if (!strcmp(a, "-group")) opt.group = (uint32_t)atoi(NEXT());
    else if (!strcmp(a, "-private")) opt.priv = (uint32_t)atoi(NEXT());
    else if (!strcmp(a, "-kernarg")) opt.kernarg = (uint32_t)atoi(NEXT());
    else if (!strcmp(a, "-dyn")) opt.dyn = (uint32_t)atoi(NEXT());
    else if (!strcmp(a, "-n")) opt.n = atol(NEXT());
    else if (!strcmp(a, "-t")) opt.threads = atoi(NEXT());
    else if (!strcmp(a, "-q")) opt.queues = atoi(NEXT());
    else if (!strcmp(a, "-fork")) opt.fork_child = 1;
    else if (!strcmp(a, "-bench")) opt.bench = 1;
    else if (!strcmp(a, "-info")) opt.info = 1;
    else if (!strcmp(a, "-no-shutdown")) opt.no_shutdown = 1;
    else if (!strcmp(a, "-cycles")) opt.cycles = atoi(NEXT());
    else if (!strcmp(a, "-barrier-every")) opt.barrier_every = atol(NEXT());
    else if (!strcmp(a, "-load-storm")) opt.load_storm = 1;
    else if (!strcmp(a, "-gpu")) opt.gpu_index = atoi(NEXT());
    else if (!strcmp(a, "-check-wrapper")) opt.check_wrapper = atol(NEXT());
    else if (!strcmp(a, "-copy")) opt.copy_size = (uint32_t)atoi(NEXT());
    else if (a[0] == '-') usage();
    else opt.path = a;
  }
  if (opt.threads < 1 || opt.threads > MAXT || opt.queues < 1 || opt.queues > MAXQ) usage();
  int rc = 0;
  if (opt.cycles < 1) opt.cycles = 1;
  for (int c = 0; c < opt.cycles && rc == 0; c++) {
    /* A later hsa_init after a full shutdown loads the tools again. */
    gpu.handle = cpu.handle = 0;
    gpus_seen = 0;
    have_kernarg_pool = 0;
    memset(queues, 0, sizeof queues);
    memset(seen, 0, sizeof seen);
    memset(last_seq, 0, sizeof last_seq);
    rc = cycle();
    if (opt.cycles > 1) printf("cycle %d rc %d\n", c, rc);
  }
  return rc;
}
