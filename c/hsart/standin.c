/* standin.c: a stand-in libhsa-runtime64.so.1 for testing librocjitsu.so
 * without an AMD GPU.
 *
 * It reproduces the parts of ROCR that a tool depends on:
 *  - the HSA API table (HsaApiTable with CoreApiTable and AmdExtTable) that the
 *    exported hsa_* functions dispatch through, in three ABIs chosen with
 *    STANDIN_ABI: "5.2" (table major 1, AmdExtTable 400 bytes), "5.7" (major 1,
 *    456 bytes, entries moved by +16) and "7.0" (major 3, 608 bytes; default);
 *  - tool loading in the first hsa_init: HSA_TOOLS_LIB (space separated,
 *    quotes and backslash escapes), the HSA_AMD_TOOL_PRIORITY scan of every
 *    loaded object's .dynstr (not in the 5.2 ABI, like ROCm 5.2), de-duplication,
 *    OnLoad(table, major, failed_count, failed_names), OnUnload at the last
 *    hsa_shut_down, "Tool lib ... failed to load." on a bad path;
 *  - agents (one CPU, GPUs from STANDIN_GPUS, default gfx942), ISAs, memory
 *    pools and regions, signals;
 *  - real AMDGPU ELF code objects: PT_LOAD segments are copied into a host
 *    image and the .kd symbols answer symbol queries from their descriptors;
 *    a code object for another processor is refused (STANDIN_ISA_CHECK=0
 *    only warns); the reader does not copy its memory, like ROCR;
 *  - queues whose doorbell runs a fake GPU on the ringing thread: each kernel
 *    dispatch is checked against the loaded descriptor (kernel_object known,
 *    group and private segment sizes, kernarg buffer size and alignment,
 *    host LDS limit) and counted or reported as a FAULT;
 *  - intercept queues (table-only): proxy ring, handlers newest first, the
 *    writer passing packets down the chain, INVALID_QUEUE for register on a
 *    plain queue, size >= 3.
 * STANDIN_GPU=async runs each hardware queue's packets on a thread of its own
 * (completion is then truly asynchronous); the default runs them on the
 * thread that rings the doorbell. STANDIN_NO_GPU=1 makes hsa_init fail like ROCR without /dev/kfd (before any
 * tool is loaded). STANDIN_TABLE_MAJOR=N overrides the root table's major
 * version (a table from an unknown ROCm). STANDIN_LOG=path appends one line
 * per event.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ven_amd_loader.h>

#include "rocjitsu_hsa.h"
#include "rocjitsu_standin.h"

#define EXPORT __attribute__((visibility("default")))
#define UNUSED __attribute__((unused))

/* ------------------------------------------------------------------------ */
/* Logging and counters                                                      */

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_file;
static int log_checked;

static void slog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void slog(const char *fmt, ...) {
  if (log_checked && !log_file) return; /* logging off: no lock on the dispatch path */
  pthread_mutex_lock(&log_mu);
  if (!log_checked) {
    log_checked = 1;
    const char *p = getenv("STANDIN_LOG");
    if (p && *p) log_file = fopen(p, "a");
  }
  if (log_file) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(log_file, "standin[%d]: ", (int)getpid());
    vfprintf(log_file, fmt, ap);
    fputc('\n', log_file);
    fflush(log_file);
    va_end(ap);
  }
  pthread_mutex_unlock(&log_mu);
}

static _Atomic uint64_t st_dispatches, st_faults, st_barriers, st_other, st_tools, st_onload, st_cos, st_vlds;
static char last_fault[512];
static standin_dispatch_hook dispatch_hook;
static void *dispatch_hook_data;

EXPORT void standin_set_dispatch_hook(standin_dispatch_hook hook, void *data) {
  dispatch_hook_data = data;
  dispatch_hook = hook;
}

EXPORT void standin_get_stats(standin_stats *out) {
  out->dispatches = st_dispatches;
  out->faults = st_faults;
  out->barriers = st_barriers;
  out->other_packets = st_other;
  out->tools_loaded = st_tools;
  out->onload_calls = st_onload;
  out->code_objects = st_cos;
}

EXPORT void standin_last_fault(char *buf, uint64_t size) {
  if (!size) return;
  pthread_mutex_lock(&log_mu);
  snprintf(buf, size, "%s", last_fault);
  pthread_mutex_unlock(&log_mu);
}

static void fault(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fault(const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  uint64_t n = atomic_fetch_add(&st_faults, 1);
  pthread_mutex_lock(&log_mu);
  snprintf(last_fault, sizeof last_fault, "%s", msg);
  pthread_mutex_unlock(&log_mu);
  if (n < 5) fprintf(stderr, "standin: FAULT: %s\n", msg);
  slog("FAULT %s", msg);
}

/* ------------------------------------------------------------------------ */
/* ISAs and agents                                                           */

typedef struct isa_desc {
  const char *proc;
  const char *full;
  uint32_t mach;
  uint32_t wave;
  uint32_t lds;
  uint32_t waves_per_simd;
  const char *product;
} isa_desc;

static const isa_desc isas[] = {
    {"gfx942", "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", 0x4c, 64, 65536, 8, "AMD Instinct MI300X"},
    {"gfx950", "amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-", 0x4f, 64, 163840, 8, "AMD Instinct MI355X"},
    {"gfx1200", "amdgcn-amd-amdhsa--gfx1200", 0x48, 32, 65536, 16, "AMD Radeon RX 9060 XT"},
    {"gfx1201", "amdgcn-amd-amdhsa--gfx1201", 0x4e, 32, 65536, 16, "AMD Radeon RX 9070 XT"},
};

typedef struct pool {
  int segment;   /* hsa_amd_segment_t */
  uint32_t flags; /* hsa_amd_memory_pool_global_flag_t */
  size_t size;
  struct agent *agent;
} pool;

typedef struct agent {
  int is_gpu;
  const isa_desc *isa;
  uint32_t node;
  pool pools[3];
  int npools;
} agent;

#define MAX_AGENTS 8
static agent agents[MAX_AGENTS];
static int nagents;

static void init_agents(void) {
  nagents = 0;
  agent *cpu = &agents[nagents++];
  memset(cpu, 0, sizeof *cpu);
  cpu->pools[0] = (pool){HSA_AMD_SEGMENT_GLOBAL,
                         HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT | HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED,
                         1ull << 34, cpu};
  cpu->npools = 1;
  const char *gpus = getenv("STANDIN_GPUS");
  if (!gpus || !*gpus) gpus = "gfx942";
  char buf[256];
  snprintf(buf, sizeof buf, "%s", gpus);
  char *save = NULL;
  for (char *tok = strtok_r(buf, ",", &save); tok && nagents < MAX_AGENTS; tok = strtok_r(NULL, ",", &save)) {
    const isa_desc *d = NULL;
    for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++)
      if (!strcmp(isas[i].proc, tok)) d = &isas[i];
    if (!d) {
      fprintf(stderr, "standin: STANDIN_GPUS: unknown processor %s\n", tok);
      continue;
    }
    agent *g = &agents[nagents++];
    memset(g, 0, sizeof *g);
    g->is_gpu = 1;
    g->isa = d;
    g->node = (uint32_t)nagents - 1;
    g->pools[0] = (pool){HSA_AMD_SEGMENT_GLOBAL, HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED, 1ull << 36, g};
    g->pools[1] = (pool){HSA_AMD_SEGMENT_GROUP, 0, d->lds, g};
    g->npools = 2;
  }
}

static agent *agent_of(hsa_agent_t a) {
  for (int i = 0; i < nagents; i++)
    if ((uintptr_t)&agents[i] == a.handle) return &agents[i];
  return NULL;
}

static const isa_desc *isa_of(hsa_isa_t isa) {
  for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++)
    if ((uintptr_t)&isas[i] == isa.handle) return &isas[i];
  return NULL;
}

static pool *pool_of(uint64_t h) {
  for (int i = 0; i < nagents; i++)
    for (int j = 0; j < agents[i].npools; j++)
      if ((uintptr_t)&agents[i].pools[j] == h) return &agents[i].pools[j];
  return NULL;
}

/* ------------------------------------------------------------------------ */
/* Memory allocations (GPU-visible memory), for the kernarg size check.     */

typedef struct alloc_rec {
  uintptr_t base;
  size_t size;
  _Atomic int live;
} alloc_rec;

#define MAX_ALLOCS 65536
static alloc_rec allocs[MAX_ALLOCS];
static _Atomic int nallocs;
static pthread_mutex_t alloc_mu = PTHREAD_MUTEX_INITIALIZER;

static void *gpu_alloc(size_t size) {
  size_t sz = (size + 4095) & ~(size_t)4095;
  if (!sz) sz = 4096;
  void *p = aligned_alloc(4096, sz);
  if (!p) return NULL;
  memset(p, 0, sz);
  pthread_mutex_lock(&alloc_mu);
  int n = atomic_load(&nallocs);
  int slot = -1;
  for (int i = 0; i < n; i++)
    if (!allocs[i].live) {
      slot = i;
      break;
    }
  if (slot < 0 && n < MAX_ALLOCS) slot = n;
  if (slot >= 0) {
    allocs[slot].base = (uintptr_t)p;
    allocs[slot].size = size;
    atomic_store(&allocs[slot].live, 1);
    if (slot == n) atomic_store(&nallocs, n + 1);
  }
  pthread_mutex_unlock(&alloc_mu);
  return p;
}

static int gpu_free(void *p) {
  pthread_mutex_lock(&alloc_mu);
  int n = atomic_load(&nallocs);
  for (int i = 0; i < n; i++)
    if (allocs[i].live && allocs[i].base == (uintptr_t)p) {
      atomic_store(&allocs[i].live, 0);
      pthread_mutex_unlock(&alloc_mu);
      free(p);
      return 1;
    }
  pthread_mutex_unlock(&alloc_mu);
  return 0;
}

/* Bytes available from addr to the end of its allocation, or -1. */
static int64_t gpu_bytes_from(uintptr_t addr) {
  int n = atomic_load(&nallocs);
  for (int i = n - 1; i >= 0; i--)
    if (atomic_load_explicit(&allocs[i].live, memory_order_relaxed) && addr >= allocs[i].base &&
        addr < allocs[i].base + allocs[i].size)
      return (int64_t)(allocs[i].base + allocs[i].size - addr);
  return -1;
}

/* ------------------------------------------------------------------------ */
/* Signals                                                                   */

struct queue;
typedef struct signal_obj {
  _Atomic int64_t value;
  struct queue *doorbell_of; /* set for queue doorbells */
} signal_obj;

#define SIG(s) ((signal_obj *)(uintptr_t)(s).handle)

static void queue_doorbell(struct queue *q);

static hsa_status_t signal_create(hsa_signal_value_t initial, uint32_t n, const hsa_agent_t *consumers,
                                  hsa_signal_t *out) {
  (void)n;
  (void)consumers;
  if (!out) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  signal_obj *s = calloc(1, sizeof *s);
  if (!s) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  atomic_store(&s->value, initial);
  out->handle = (uintptr_t)s;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t amd_signal_create(hsa_signal_value_t initial, uint32_t n, const hsa_agent_t *consumers,
                                      uint64_t attributes, hsa_signal_t *out) {
  (void)attributes;
  return signal_create(initial, n, consumers, out);
}

static hsa_status_t signal_destroy(hsa_signal_t s) {
  if (!s.handle) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  if (SIG(s)->doorbell_of) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  free(SIG(s));
  return HSA_STATUS_SUCCESS;
}

static hsa_signal_value_t signal_load(hsa_signal_t s) { return atomic_load(&SIG(s)->value); }

static void signal_store(hsa_signal_t s, hsa_signal_value_t v) {
  signal_obj *o = SIG(s);
  atomic_store(&o->value, v);
  if (o->doorbell_of) queue_doorbell(o->doorbell_of);
}

static void signal_silent_store(hsa_signal_t s, hsa_signal_value_t v) { atomic_store(&SIG(s)->value, v); }
static void signal_add(hsa_signal_t s, hsa_signal_value_t v) { atomic_fetch_add(&SIG(s)->value, v); }
static void signal_sub(hsa_signal_t s, hsa_signal_value_t v) { atomic_fetch_sub(&SIG(s)->value, v); }
static void signal_and(hsa_signal_t s, hsa_signal_value_t v) { atomic_fetch_and(&SIG(s)->value, v); }
static void signal_or(hsa_signal_t s, hsa_signal_value_t v) { atomic_fetch_or(&SIG(s)->value, v); }
static void signal_xor(hsa_signal_t s, hsa_signal_value_t v) { atomic_fetch_xor(&SIG(s)->value, v); }
static hsa_signal_value_t signal_exchange(hsa_signal_t s, hsa_signal_value_t v) {
  return atomic_exchange(&SIG(s)->value, v);
}
static hsa_signal_value_t signal_cas(hsa_signal_t s, hsa_signal_value_t expected, hsa_signal_value_t v) {
  int64_t e = expected;
  atomic_compare_exchange_strong(&SIG(s)->value, &e, v);
  return e;
}

static int cond_ok(hsa_signal_condition_t c, int64_t v, int64_t cmp) {
  switch (c) {
  case HSA_SIGNAL_CONDITION_EQ: return v == cmp;
  case HSA_SIGNAL_CONDITION_NE: return v != cmp;
  case HSA_SIGNAL_CONDITION_LT: return v < cmp;
  case HSA_SIGNAL_CONDITION_GTE: return v >= cmp;
  }
  return 1;
}

static hsa_signal_value_t signal_wait(hsa_signal_t s, hsa_signal_condition_t c, hsa_signal_value_t cmp,
                                      uint64_t timeout_hint, hsa_wait_state_t st) {
  (void)st;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (uint64_t i = 0;; i++) {
    int64_t v = atomic_load(&SIG(s)->value);
    if (cond_ok(c, v, cmp)) return v;
    if (i > 64) sched_yield();
    clock_gettime(CLOCK_MONOTONIC, &t);
    uint64_t ns = (uint64_t)(t.tv_sec - t0.tv_sec) * 1000000000ull + (uint64_t)(t.tv_nsec - t0.tv_nsec);
    if (ns > timeout_hint || ns > 20000000000ull) return v; /* spurious wake-up is allowed */
  }
}

/* ------------------------------------------------------------------------ */
/* Code objects and executables                                              */

typedef struct reader {
  const uint8_t *data;
  size_t size;
  int owned;
} reader;

typedef struct symbol {
  char *name;
  int is_kernel;
  uint64_t address; /* kernel object (KD address) or variable address */
  uint64_t size;
  uint32_t mach;
  hsa_agent_t agent;
  struct executable *exec;
  struct symbol *next;
  /* Virtual-LDS sidecar descriptor (from .rocjitsu.kd / .rocjitsu.lds):
   * not a symbol the application can look up. */
  int vlds;
  uint32_t vlds_static, vlds_prefix, vlds_ptr, vlds_state, vlds_flags;
} symbol;

typedef struct loaded_co {
  uint8_t *image;
  size_t image_size;
  const void *storage;
  size_t storage_size;
  hsa_agent_t agent;
  struct loaded_co *next;
} loaded_co;

typedef struct executable {
  int frozen;
  symbol *syms;
  symbol *sidecars; /* virtual-LDS sidecar descriptors: dispatchable, not looked up */
  loaded_co *cos;
  pthread_mutex_t mu;
} executable;

/* Registry of loaded kernel descriptors, for the fake GPU. Open addressing
 * keyed by kernel object; entries are tombstoned on executable destroy. */
#define KREG_SIZE 8192
static struct {
  uint64_t kobj;
  symbol *sym;
} kreg[KREG_SIZE];
static pthread_rwlock_t kreg_mu = PTHREAD_RWLOCK_INITIALIZER;

static size_t khash(uint64_t k) { return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 51) & (KREG_SIZE - 1); }

static void kreg_put(symbol *s) {
  pthread_rwlock_wrlock(&kreg_mu);
  for (size_t i = khash(s->address), n = 0; n < KREG_SIZE; i = (i + 1) & (KREG_SIZE - 1), n++)
    if (kreg[i].kobj == 0 || kreg[i].kobj == s->address || kreg[i].sym == NULL) {
      kreg[i].kobj = s->address;
      kreg[i].sym = s;
      break;
    }
  pthread_rwlock_unlock(&kreg_mu);
}

static void kreg_del(uint64_t kobj) {
  pthread_rwlock_wrlock(&kreg_mu);
  for (size_t i = khash(kobj), n = 0; n < KREG_SIZE && kreg[i].kobj; i = (i + 1) & (KREG_SIZE - 1), n++)
    if (kreg[i].kobj == kobj) {
      kreg[i].sym = NULL; /* tombstone: keep kobj so probing continues */
      break;
    }
  pthread_rwlock_unlock(&kreg_mu);
}

static symbol *kreg_get(uint64_t kobj) {
  symbol *s = NULL;
  pthread_rwlock_rdlock(&kreg_mu);
  for (size_t i = khash(kobj), n = 0; n < KREG_SIZE && kreg[i].kobj; i = (i + 1) & (KREG_SIZE - 1), n++)
    if (kreg[i].kobj == kobj) {
      s = kreg[i].sym;
      break;
    }
  pthread_rwlock_unlock(&kreg_mu);
  return s;
}

static hsa_status_t reader_from_memory(const void *p, size_t size, hsa_code_object_reader_t *out) {
  if (!p || !size || !out) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  reader *r = calloc(1, sizeof *r);
  r->data = p; /* not copied, like ROCR */
  r->size = size;
  out->handle = (uintptr_t)r;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t reader_from_fd(int fd, size_t off, size_t size, hsa_code_object_reader_t *out) {
  if (fd < 0 || !out) return HSA_STATUS_ERROR_INVALID_FILE;
  if (size == 0) {
    off_t end = lseek(fd, 0, SEEK_END);
    if (end < 0 || (size_t)end <= off) return HSA_STATUS_ERROR_INVALID_FILE;
    size = (size_t)end - off;
  }
  uint8_t *buf = malloc(size);
  if (!buf) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  size_t got = 0;
  while (got < size) {
    ssize_t n = pread(fd, buf + got, size - got, (off_t)(off + got));
    if (n <= 0) {
      free(buf);
      return HSA_STATUS_ERROR_INVALID_FILE;
    }
    got += (size_t)n;
  }
  reader *r = calloc(1, sizeof *r);
  r->data = buf;
  r->size = size;
  r->owned = 1;
  out->handle = (uintptr_t)r;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t reader_from_file(hsa_file_t fd, hsa_code_object_reader_t *out) {
  return reader_from_fd(fd, 0, 0, out);
}

static hsa_status_t reader_from_file_off(hsa_file_t fd, size_t off, size_t size, hsa_code_object_reader_t *out) {
  if (!size) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return reader_from_fd(fd, off, size, out);
}

static hsa_status_t reader_destroy(hsa_code_object_reader_t r) {
  reader *rd = (reader *)(uintptr_t)r.handle;
  if (!rd) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  if (rd->owned) free((void *)rd->data);
  free(rd);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t exec_create(hsa_profile_t profile, hsa_executable_state_t state, const char *options,
                                hsa_executable_t *out) {
  (void)profile;
  (void)state;
  (void)options;
  executable *e = calloc(1, sizeof *e);
  pthread_mutex_init(&e->mu, NULL);
  out->handle = (uintptr_t)e;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t exec_create_alt(hsa_profile_t profile, hsa_default_float_rounding_mode_t r, const char *options,
                                    hsa_executable_t *out) {
  (void)r;
  return exec_create(profile, HSA_EXECUTABLE_STATE_UNFROZEN, options, out);
}

static int strict_isa(void) {
  const char *s = getenv("STANDIN_ISA_CHECK");
  return !(s && !strcmp(s, "0"));
}

/* Loads an ELF code object into e. Bounds-checked: the bytes are untrusted. */
static uint32_t rd32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

static uint64_t rd64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

/* The virtual-LDS sidecar descriptors of a translated object: the
 * .rocjitsu.lds section (version 1: a 24-byte header "RJVL", then 64-byte
 * entries {normal kd vaddr, sidecar kd vaddr, static LDS, private size,
 * wrapper prefix, original-pointer offset, state offset, wrapper size,
 * flags}) names descriptors in the loaded image that have no symbol. They
 * become kernel objects the fake GPU accepts, named like their kernel. A
 * malformed section is logged and ignored. */
static symbol *load_sidecars(const uint8_t *b, size_t n, const Elf64_Ehdr *eh, uint8_t *img, uint64_t lo, uint64_t hi,
                             uint32_t mach, executable *e, agent *ag, symbol *syms) {
  if (eh->e_shstrndx >= eh->e_shnum) return NULL;
  Elf64_Shdr ss;
  memcpy(&ss, b + eh->e_shoff + (size_t)eh->e_shstrndx * sizeof ss, sizeof ss);
  if (ss.sh_offset > n || ss.sh_size > n - ss.sh_offset) return NULL;
  const uint8_t *m = NULL;
  size_t msize = 0;
  for (int i = 0; i < eh->e_shnum; i++) {
    Elf64_Shdr sh;
    memcpy(&sh, b + eh->e_shoff + (size_t)i * sizeof sh, sizeof sh);
    static const char want[] = ".rocjitsu.lds";
    if (sh.sh_name >= ss.sh_size || ss.sh_size - sh.sh_name < sizeof want ||
        memcmp(b + ss.sh_offset + sh.sh_name, want, sizeof want))
      continue;
    if (sh.sh_offset > n || sh.sh_size > n - sh.sh_offset) {
      slog("load: .rocjitsu.lds out of bounds");
      return NULL;
    }
    m = b + sh.sh_offset;
    msize = sh.sh_size;
  }
  if (!m) return NULL;
  if (msize < 24 || memcmp(m, "RJVL", 4) || rd32(m + 4) != (1u | 24u << 16) || rd32(m + 8) != 64 ||
      (uint64_t)rd32(m + 12) * 64 != msize - 24) {
    slog("load: malformed .rocjitsu.lds header (%zu bytes)", msize);
    return NULL;
  }
  symbol *out = NULL;
  for (uint32_t i = 0; i < rd32(m + 12); i++) {
    const uint8_t *en = m + 24 + (size_t)i * 64;
    uint64_t normal = rd64(en), side = rd64(en + 8);
    if (side < lo || side > hi || hi - side < 64 || normal < lo || normal > hi || hi - normal < 64) {
      slog("load: .rocjitsu.lds entry %u: descriptor outside the image", i);
      continue;
    }
    const char *nname = NULL;
    for (symbol *s = syms; s; s = s->next)
      if (s->is_kernel && s->address == (uint64_t)(uintptr_t)(img + (normal - lo))) nname = s->name;
    if (!nname) {
      slog("load: .rocjitsu.lds entry %u: no kernel descriptor symbol at %#lx", i, (unsigned long)normal);
      continue;
    }
    symbol *s = calloc(1, sizeof *s);
    s->name = strdup(nname); /* the same kernel, as the dispatch hook reports it */
    s->is_kernel = 1;
    s->address = (uint64_t)(uintptr_t)(img + (side - lo));
    s->size = 64;
    s->mach = mach;
    s->exec = e;
    s->agent.handle = (uintptr_t)ag;
    s->vlds = 1;
    s->vlds_static = rd32(en + 16);
    s->vlds_prefix = rd32(en + 24);
    s->vlds_ptr = rd32(en + 28);
    s->vlds_state = rd32(en + 32);
    s->vlds_flags = rd32(en + 40);
    s->next = out;
    out = s;
  }
  return out;
}

static hsa_status_t load_co(executable *e, agent *ag, reader *rd, hsa_loaded_code_object_t *loaded) {
  const uint8_t *b = rd->data;
  size_t n = rd->size;
  if (n < sizeof(Elf64_Ehdr) || memcmp(b, ELFMAG, SELFMAG) || b[EI_CLASS] != ELFCLASS64) {
    slog("load: not an ELF64 object (%zu bytes)", n);
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  }
  Elf64_Ehdr eh;
  memcpy(&eh, b, sizeof eh);
  if (eh.e_machine != 224) {
    slog("load: e_machine %u is not EM_AMDGPU", eh.e_machine);
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  }
  uint32_t mach = eh.e_flags & 0xff;
  if (ag && ag->isa->mach != mach) {
    const char *cp = "unknown";
    for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++)
      if (isas[i].mach == mach) cp = isas[i].proc;
    slog("load: code object for %s (mach %#x) on a %s agent", cp, mach, ag->isa->proc);
    if (strict_isa()) return HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
  }
  if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > n || (size_t)eh.e_phnum * sizeof(Elf64_Phdr) > n - eh.e_phoff)
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (int i = 0; i < eh.e_phnum; i++) {
    Elf64_Phdr ph;
    memcpy(&ph, b + eh.e_phoff + (size_t)i * sizeof ph, sizeof ph);
    if (ph.p_type != PT_LOAD) continue;
    if (ph.p_offset > n || ph.p_filesz > n - ph.p_offset || ph.p_filesz > ph.p_memsz || ph.p_memsz > (1ull << 32))
      return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    if (ph.p_vaddr < lo) lo = ph.p_vaddr;
    if (ph.p_vaddr + ph.p_memsz > hi) hi = ph.p_vaddr + ph.p_memsz;
  }
  if (lo == UINT64_MAX || hi - lo > (1ull << 32)) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  size_t isz = (size_t)(hi - lo);
  uint8_t *img = gpu_alloc(isz);
  if (!img) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  for (int i = 0; i < eh.e_phnum; i++) {
    Elf64_Phdr ph;
    memcpy(&ph, b + eh.e_phoff + (size_t)i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_LOAD) memcpy(img + (ph.p_vaddr - lo), b + ph.p_offset, ph.p_filesz);
  }
  /* Symbols from .dynsym. */
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > n || (size_t)eh.e_shnum * sizeof(Elf64_Shdr) > n - eh.e_shoff) {
    gpu_free(img);
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  }
  symbol *syms = NULL;
  int nk = 0;
  for (int i = 0; i < eh.e_shnum; i++) {
    Elf64_Shdr sh;
    memcpy(&sh, b + eh.e_shoff + (size_t)i * sizeof sh, sizeof sh);
    if (sh.sh_type != SHT_DYNSYM) continue;
    if (sh.sh_link >= eh.e_shnum || sh.sh_offset > n || sh.sh_size > n - sh.sh_offset) goto bad;
    Elf64_Shdr st;
    memcpy(&st, b + eh.e_shoff + (size_t)sh.sh_link * sizeof st, sizeof st);
    if (st.sh_offset > n || st.sh_size > n - st.sh_offset) goto bad;
    for (size_t off = 0; off + sizeof(Elf64_Sym) <= sh.sh_size; off += sizeof(Elf64_Sym)) {
      Elf64_Sym sy;
      memcpy(&sy, b + sh.sh_offset + off, sizeof sy);
      if (ELF64_ST_TYPE(sy.st_info) != STT_OBJECT || sy.st_shndx == SHN_UNDEF) continue;
      if (sy.st_name >= st.sh_size) goto bad;
      const char *nm = (const char *)b + st.sh_offset + sy.st_name;
      size_t nlen = strnlen(nm, st.sh_size - sy.st_name);
      if (nlen == st.sh_size - sy.st_name) goto bad;
      if (sy.st_value < lo || sy.st_value + sy.st_size > hi) goto bad;
      symbol *s = calloc(1, sizeof *s);
      s->name = strndup(nm, nlen);
      s->address = (uint64_t)(uintptr_t)(img + (sy.st_value - lo));
      s->size = sy.st_size;
      s->mach = mach;
      s->exec = e;
      s->agent.handle = (uintptr_t)ag;
      s->is_kernel = nlen > 3 && !strcmp(nm + nlen - 3, ".kd");
      if (s->is_kernel && sy.st_size != 64) {
        free(s->name);
        free(s);
        goto bad;
      }
      nk += s->is_kernel;
      s->next = syms;
      syms = s;
    }
  }
  symbol *sides = load_sidecars(b, n, &eh, img, lo, hi, mach, e, ag, syms);
  loaded_co *co = calloc(1, sizeof *co);
  co->image = img;
  co->image_size = isz;
  co->storage = rd->data;
  co->storage_size = rd->size;
  co->agent.handle = (uintptr_t)ag;
  pthread_mutex_lock(&e->mu);
  co->next = e->cos;
  e->cos = co;
  while (syms) {
    symbol *s = syms;
    syms = s->next;
    s->next = e->syms;
    e->syms = s;
  }
  while (sides) {
    symbol *s = sides;
    sides = s->next;
    s->next = e->sidecars;
    e->sidecars = s;
  }
  pthread_mutex_unlock(&e->mu);
  if (loaded) loaded->handle = (uintptr_t)co;
  atomic_fetch_add(&st_cos, 1);
  slog("load: %zu-byte code object, mach %#x, %d kernels, image %p", n, mach, nk, (void *)img);
  return HSA_STATUS_SUCCESS;
bad:
  while (syms) {
    symbol *s = syms;
    syms = s->next;
    free(s->name);
    free(s);
  }
  gpu_free(img);
  slog("load: malformed symbol table");
  return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
}

static hsa_status_t exec_load_agent(hsa_executable_t ex, hsa_agent_t a, hsa_code_object_reader_t r, const char *opts,
                                    hsa_loaded_code_object_t *loaded) {
  (void)opts;
  executable *e = (executable *)(uintptr_t)ex.handle;
  agent *ag = agent_of(a);
  reader *rd = (reader *)(uintptr_t)r.handle;
  if (!e) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!ag || !ag->is_gpu) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!rd) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  if (e->frozen) return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  return load_co(e, ag, rd, loaded);
}

static hsa_status_t exec_load_program(hsa_executable_t ex, hsa_code_object_reader_t r, const char *opts,
                                      hsa_loaded_code_object_t *loaded) {
  (void)opts;
  executable *e = (executable *)(uintptr_t)ex.handle;
  reader *rd = (reader *)(uintptr_t)r.handle;
  if (!e) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!rd) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  if (e->frozen) return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  agent *gpu = NULL;
  for (int i = 0; i < nagents && !gpu; i++)
    if (agents[i].is_gpu) gpu = &agents[i];
  if (!gpu) return HSA_STATUS_ERROR_INVALID_AGENT;
  return load_co(e, gpu, rd, loaded);
}

static hsa_status_t exec_freeze(hsa_executable_t ex, const char *opts) {
  (void)opts;
  executable *e = (executable *)(uintptr_t)ex.handle;
  if (!e) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (e->frozen) return HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  e->frozen = 1;
  for (symbol *s = e->syms; s; s = s->next)
    if (s->is_kernel) kreg_put(s);
  for (symbol *s = e->sidecars; s; s = s->next) kreg_put(s);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t exec_destroy(hsa_executable_t ex) {
  executable *e = (executable *)(uintptr_t)ex.handle;
  if (!e) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  for (symbol *s = e->syms, *nx; s; s = nx) {
    nx = s->next;
    if (s->is_kernel) kreg_del(s->address);
    free(s->name);
    free(s);
  }
  for (symbol *s = e->sidecars, *nx; s; s = nx) {
    nx = s->next;
    kreg_del(s->address);
    free(s->name);
    free(s);
  }
  for (loaded_co *c = e->cos, *nx; c; c = nx) {
    nx = c->next;
    gpu_free(c->image);
    free(c);
  }
  pthread_mutex_destroy(&e->mu);
  free(e);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t exec_get_symbol_by_name(hsa_executable_t ex, const char *name, const hsa_agent_t *a,
                                            hsa_executable_symbol_t *out) {
  executable *e = (executable *)(uintptr_t)ex.handle;
  if (!e || !name || !out) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (symbol *s = e->syms; s; s = s->next)
    if (!strcmp(s->name, name) && (!a || a->handle == s->agent.handle)) {
      out->handle = (uintptr_t)s;
      return HSA_STATUS_SUCCESS;
    }
  return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
}

static hsa_status_t symbol_get_info(hsa_executable_symbol_t sym, hsa_executable_symbol_info_t attr, void *v) {
  symbol *s = (symbol *)(uintptr_t)sym.handle;
  if (!s || !v) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const uint8_t *kd = (const uint8_t *)(uintptr_t)s->address;
  uint32_t u32;
  switch ((int)attr) {
  case HSA_EXECUTABLE_SYMBOL_INFO_TYPE: *(hsa_symbol_kind_t *)v = s->is_kernel ? HSA_SYMBOL_KIND_KERNEL : HSA_SYMBOL_KIND_VARIABLE; return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH: *(uint32_t *)v = (uint32_t)strlen(s->name); return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_NAME: memcpy(v, s->name, strlen(s->name)); return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE: *(hsa_symbol_linkage_t *)v = HSA_SYMBOL_LINKAGE_PROGRAM; return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_IS_DEFINITION: *(bool *)v = true; return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_AGENT: *(hsa_agent_t *)v = s->agent; return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS: *(uint64_t *)v = s->address; return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE: *(uint32_t *)v = (uint32_t)s->size; return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST: *(bool *)v = false; return HSA_STATUS_SUCCESS;
  }
  if (!s->is_kernel) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch ((int)attr) {
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT: *(uint64_t *)v = s->address; return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE: memcpy(&u32, kd + 8, 4); *(uint32_t *)v = u32; return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT: *(uint32_t *)v = 16; return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE: memcpy(&u32, kd + 0, 4); *(uint32_t *)v = u32; return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE: memcpy(&u32, kd + 4, 4); *(uint32_t *)v = u32; return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK: *(bool *)v = (kd[57] & 0x08) != 0; return HSA_STATUS_SUCCESS;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_CALL_CONVENTION: *(uint32_t *)v = 0; return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

static hsa_status_t exec_iterate_symbols(hsa_executable_t ex,
                                         hsa_status_t (*cb)(hsa_executable_t, hsa_executable_symbol_t, void *),
                                         void *data) {
  executable *e = (executable *)(uintptr_t)ex.handle;
  if (!e || !cb) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (symbol *s = e->syms; s; s = s->next) {
    hsa_status_t st = cb(ex, (hsa_executable_symbol_t){(uintptr_t)s}, data);
    if (st != HSA_STATUS_SUCCESS) return st == HSA_STATUS_INFO_BREAK ? HSA_STATUS_SUCCESS : st;
  }
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t exec_iterate_agent_symbols(
    hsa_executable_t ex, hsa_agent_t a,
    hsa_status_t (*cb)(hsa_executable_t, hsa_agent_t, hsa_executable_symbol_t, void *), void *data) {
  executable *e = (executable *)(uintptr_t)ex.handle;
  if (!e || !cb) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (symbol *s = e->syms; s; s = s->next) {
    if (s->agent.handle != a.handle) continue;
    hsa_status_t st = cb(ex, a, (hsa_executable_symbol_t){(uintptr_t)s}, data);
    if (st != HSA_STATUS_SUCCESS) return st == HSA_STATUS_INFO_BREAK ? HSA_STATUS_SUCCESS : st;
  }
  return HSA_STATUS_SUCCESS;
}

/* Loader extension. */
static hsa_status_t ldr_query_host_address(const void *dev, const void **host) {
  if (!dev || !host) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *host = dev;
  return HSA_STATUS_SUCCESS;
}
static hsa_status_t ldr_unsupported(void) { return HSA_STATUS_ERROR; }
static hsa_status_t ldr_iterate_loaded(hsa_executable_t ex,
                                       hsa_status_t (*cb)(hsa_executable_t, hsa_loaded_code_object_t, void *),
                                       void *data) {
  executable *e = (executable *)(uintptr_t)ex.handle;
  if (!e || !cb) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (loaded_co *c = e->cos; c; c = c->next) {
    hsa_status_t st = cb(ex, (hsa_loaded_code_object_t){(uintptr_t)c}, data);
    if (st != HSA_STATUS_SUCCESS) return st;
  }
  return HSA_STATUS_SUCCESS;
}
static hsa_status_t ldr_co_info(hsa_loaded_code_object_t lco, hsa_ven_amd_loader_loaded_code_object_info_t attr,
                                void *v) {
  loaded_co *c = (loaded_co *)(uintptr_t)lco.handle;
  if (!c || !v) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch (attr) {
  case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_AGENT: *(hsa_agent_t *)v = c->agent; return HSA_STATUS_SUCCESS;
  case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_TYPE: *(uint32_t *)v = HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY; return HSA_STATUS_SUCCESS;
  case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_BASE: *(uint64_t *)v = (uintptr_t)c->storage; return HSA_STATUS_SUCCESS;
  case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_SIZE: *(uint64_t *)v = c->storage_size; return HSA_STATUS_SUCCESS;
  case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_BASE: *(uint64_t *)v = (uintptr_t)c->image; return HSA_STATUS_SUCCESS;
  case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_SIZE: *(uint64_t *)v = c->image_size; return HSA_STATUS_SUCCESS;
  case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_DELTA: *(int64_t *)v = (int64_t)(uintptr_t)c->image; return HSA_STATUS_SUCCESS;
  default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

static hsa_status_t get_major_extension_table(uint16_t ext, uint16_t major, size_t len, void *table) {
  if (ext != HSA_EXTENSION_AMD_LOADER || major != 1 || !table) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  hsa_ven_amd_loader_1_03_pfn_t t;
  memset(&t, 0, sizeof t);
  t.hsa_ven_amd_loader_query_host_address = ldr_query_host_address;
  t.hsa_ven_amd_loader_query_segment_descriptors = (void *)ldr_unsupported;
  t.hsa_ven_amd_loader_query_executable = (void *)ldr_unsupported;
  t.hsa_ven_amd_loader_executable_iterate_loaded_code_objects = ldr_iterate_loaded;
  t.hsa_ven_amd_loader_loaded_code_object_get_info = ldr_co_info;
  t.hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size = reader_from_file_off;
  t.hsa_ven_amd_loader_iterate_executables = (void *)ldr_unsupported;
  memcpy(table, &t, len < sizeof t ? len : sizeof t);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t get_extension_table(uint16_t ext, uint16_t major, uint16_t minor, void *table) {
  (void)minor;
  return get_major_extension_table(ext, major, sizeof(hsa_ven_amd_loader_1_00_pfn_t), table);
}

static hsa_status_t major_extension_supported(uint16_t ext, uint16_t major, uint16_t *minor, bool *result) {
  *result = ext == HSA_EXTENSION_AMD_LOADER && major == 1;
  if (minor) *minor = 3;
  return HSA_STATUS_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Queues and the fake GPU                                                   */

#define MAX_HANDLERS 8

typedef struct queue {
  hsa_queue_t q; /* public part; must be first */
  _Atomic uint64_t write_index;
  _Atomic uint64_t read_index;
  int intercept;
  agent *ag;
  pthread_mutex_t mu;
  signal_obj doorbell;
  struct queue *hw; /* intercept: the hardware queue behind it */
  struct {
    rj_intercept_handler fn;
    void *data;
  } handlers[MAX_HANDLERS];
  int nhandlers;
  void (*cb)(hsa_status_t, hsa_queue_t *, void *);
  void *cb_data;
  /* STANDIN_GPU=async: a packet-processor thread per hardware queue. */
  int async;
  pthread_t gpu_thread;
  pthread_mutex_t gpu_mu;
  pthread_cond_t gpu_cv;
  uint64_t kicks;
  int stop;
} queue;

static int gpu_async; /* set from STANDIN_GPU at hsa_init */
static void hw_process(queue *q);

static void *gpu_main(void *arg) {
  queue *q = arg;
  uint64_t seen = 0;
  pthread_mutex_lock(&q->gpu_mu);
  while (!q->stop) {
    while (q->kicks == seen && !q->stop) pthread_cond_wait(&q->gpu_cv, &q->gpu_mu);
    seen = q->kicks;
    pthread_mutex_unlock(&q->gpu_mu);
    hw_process(q);
    pthread_mutex_lock(&q->gpu_mu);
  }
  pthread_mutex_unlock(&q->gpu_mu);
  return NULL;
}

static _Atomic uint64_t next_queue_id = 1;

static queue *queue_new(agent *ag, uint32_t size, int intercept) {
  queue *q = aligned_alloc(64, (sizeof(queue) + 63) & ~(size_t)63);
  if (!q) return NULL;
  memset(q, 0, sizeof *q);
  void *ring = aligned_alloc(64, (size_t)size * 64);
  if (!ring) {
    free(q);
    return NULL;
  }
  for (uint32_t i = 0; i < size; i++) {
    memset((char *)ring + (size_t)i * 64, 0, 64);
    *(uint16_t *)((char *)ring + (size_t)i * 64) = HSA_PACKET_TYPE_INVALID;
  }
  q->q.type = HSA_QUEUE_TYPE_MULTI;
  q->q.features = HSA_QUEUE_FEATURE_KERNEL_DISPATCH | HSA_QUEUE_FEATURE_AGENT_DISPATCH;
  q->q.base_address = ring;
  q->q.size = size;
  q->q.id = intercept ? 0 : atomic_fetch_add(&next_queue_id, 1);
  q->doorbell.doorbell_of = q;
  q->q.doorbell_signal.handle = (uintptr_t)&q->doorbell;
  q->intercept = intercept;
  q->ag = ag;
  pthread_mutex_init(&q->mu, NULL);
  if (!intercept && gpu_async) {
    q->async = 1;
    pthread_mutex_init(&q->gpu_mu, NULL);
    pthread_cond_init(&q->gpu_cv, NULL);
    pthread_create(&q->gpu_thread, NULL, gpu_main, q);
  }
  return q;
}

static void queue_free(queue *q) {
  if (q->async) {
    pthread_mutex_lock(&q->gpu_mu);
    q->stop = 1;
    pthread_cond_signal(&q->gpu_cv);
    pthread_mutex_unlock(&q->gpu_mu);
    pthread_join(q->gpu_thread, NULL);
    hw_process(q); /* drain */
  }
  free(q->q.base_address);
  pthread_mutex_destroy(&q->mu);
  free(q);
}

static uint16_t header_type(uint16_t h) { return h & 0xff; }

/* Checks a virtual-LDS sidecar dispatch the way the sidecar will use it: no
 * hardware LDS, a kernarg wrapper whose original-pointer field points at
 * the application's kernarg bytes (equal to the wrapper's prefix), and a
 * VirtualLdsDispatchState whose backing store holds a static-LDS slice for
 * every workgroup without overlap (a dimension with several workgroups needs
 * the workgroup-ID flag and a stride past the lower dimensions' slices). */
static int check_sidecar(queue *q, const hsa_kernel_dispatch_packet_t *p, symbol *s) {
  const uint8_t *w = p->kernarg_address;
  if (p->group_segment_size != 0) {
    fault("queue %lu: %s: virtual-LDS sidecar dispatched with group_segment_size %u", (unsigned long)q->q.id, s->name,
          p->group_segment_size);
    return 0;
  }
  if (!(p->header & (1 << HSA_PACKET_HEADER_BARRIER))) {
    fault("queue %lu: %s: virtual-LDS sidecar dispatched without the barrier bit", (unsigned long)q->q.id, s->name);
    return 0;
  }
  if (!w || gpu_bytes_from((uintptr_t)w) < (int64_t)s->vlds_state + 24) {
    fault("queue %lu: %s: kernarg wrapper %p cannot hold the dispatch state", (unsigned long)q->q.id, s->name, p->kernarg_address);
    return 0;
  }
  const uint8_t *orig = (const uint8_t *)(uintptr_t)rd64(w + s->vlds_ptr);
  if (!orig || gpu_bytes_from((uintptr_t)orig) < (int64_t)s->vlds_prefix || memcmp(orig, w, s->vlds_prefix)) {
    fault("queue %lu: %s: wrapper's original kernarg pointer %p does not hold the wrapper's %u-byte prefix", (unsigned long)q->q.id,
          s->name, (const void *)orig, s->vlds_prefix);
    return 0;
  }
  uint64_t backing = rd64(w + s->vlds_state);
  uint32_t stride[3] = {rd32(w + s->vlds_state + 8), rd32(w + s->vlds_state + 12), rd32(w + s->vlds_state + 16)};
  uint32_t grid[3] = {p->grid_size_x, p->grid_size_y, p->grid_size_z};
  uint32_t wg[3] = {p->workgroup_size_x, p->workgroup_size_y, p->workgroup_size_z};
  uint64_t extent = s->vlds_static, last = 0;
  for (int d = 0; d < 3; d++) {
    uint64_t groups = wg[d] ? (grid[d] + (uint64_t)wg[d] - 1) / wg[d] : 0;
    if (groups > 1) {
      if (!(s->vlds_flags & (1u << d)) || stride[d] < extent) {
        fault("queue %lu: %s: dimension %d has %lu workgroups but stride %u (slices of %lu bytes, flags %#x)",
              (unsigned long)q->q.id, s->name, d, (unsigned long)groups, stride[d], (unsigned long)extent, s->vlds_flags);
        return 0;
      }
      last += (groups - 1) * stride[d];
      extent = last + s->vlds_static;
    }
  }
  int64_t avail = gpu_bytes_from((uintptr_t)backing);
  if (!backing || avail < 0 || (uint64_t)avail < last + s->vlds_static) {
    fault("queue %lu: %s: backing store %#lx has %ld bytes, the workgroups need %lu", (unsigned long)q->q.id, s->name,
          (unsigned long)backing, (long)avail, (unsigned long)(last + s->vlds_static));
    return 0;
  }
  atomic_fetch_add(&st_vlds, 1);
  if (log_file)
    slog("dispatch: %s virtual-LDS sidecar, backing %#lx strides %u/%u/%u (%lu bytes used)", s->name, (unsigned long)backing,
         stride[0], stride[1], stride[2], (unsigned long)(last + s->vlds_static));
  return 1;
}

/* Runs one kernel dispatch on the fake GPU. */
static void gpu_dispatch(queue *q, const hsa_kernel_dispatch_packet_t *p) {
  symbol *s = kreg_get(p->kernel_object);
  if (!s) {
    fault("queue %lu: kernel_object %#lx is not a loaded kernel descriptor", (unsigned long)q->q.id,
          (unsigned long)p->kernel_object);
    return;
  }
  const uint8_t *kd = (const uint8_t *)(uintptr_t)s->address;
  uint32_t group, priv, kernarg;
  memcpy(&group, kd, 4);
  memcpy(&priv, kd + 4, 4);
  memcpy(&kernarg, kd + 8, 4);
  int dims = p->setup & 3;
  if (dims < 1 || !p->workgroup_size_x || !p->grid_size_x) {
    fault("queue %lu: %s: bad dimensions/sizes (setup %u, workgroup %u, grid %u)", (unsigned long)q->q.id, s->name,
          p->setup, p->workgroup_size_x, p->grid_size_x);
    return;
  }
  if (p->group_segment_size < group) {
    fault("queue %lu: %s: group_segment_size %u below the descriptor's %u", (unsigned long)q->q.id, s->name,
          p->group_segment_size, group);
    return;
  }
  if (p->group_segment_size > q->ag->isa->lds) {
    fault("queue %lu: %s: group_segment_size %u exceeds the %u bytes of LDS on %s", (unsigned long)q->q.id, s->name,
          p->group_segment_size, q->ag->isa->lds, q->ag->isa->proc);
    return;
  }
  if (p->private_segment_size < priv) {
    fault("queue %lu: %s: private_segment_size %u below the descriptor's %u", (unsigned long)q->q.id, s->name,
          p->private_segment_size, priv);
    return;
  }
  if (kernarg) {
    uintptr_t ka = (uintptr_t)p->kernarg_address;
    int64_t avail = gpu_bytes_from(ka);
    if (!ka || (ka & 15)) {
      fault("queue %lu: %s: kernarg_address %p is null or not 16-byte aligned", (unsigned long)q->q.id, s->name,
            p->kernarg_address);
      return;
    }
    if (avail < 0) {
      fault("queue %lu: %s: kernarg_address %p is not in memory the GPU can read", (unsigned long)q->q.id, s->name,
            p->kernarg_address);
      return;
    }
    if (avail < kernarg) {
      fault("queue %lu: %s: kernarg buffer has %ld bytes, the descriptor needs %u", (unsigned long)q->q.id, s->name,
            (long)avail, kernarg);
      return;
    }
  }
  if (s->vlds && !check_sidecar(q, p, s)) return;
  if (s->mach != q->ag->isa->mach)
    slog("dispatch: %s was built for mach %#x, running on %s", s->name, s->mach, q->ag->isa->proc);
  atomic_fetch_add(&st_dispatches, 1);
  if (log_file) slog("dispatch q=%lu kernel=%s group=%u private=%u kernarg=%p", (unsigned long)q->q.id, s->name,
                     p->group_segment_size, p->private_segment_size, p->kernarg_address);
  standin_dispatch_hook h = dispatch_hook;
  hsa_kernel_dispatch_packet_t seen = *p;
  if (s->vlds) /* the sidecar's prologue restores the original kernarg pointer */
    seen.kernarg_address = (void *)(uintptr_t)rd64((const uint8_t *)p->kernarg_address + s->vlds_ptr);
  if (h) h(&q->q, &seen, s->name, s->mach, dispatch_hook_data);
}

static void wait_deps(const hsa_barrier_and_packet_t *b) {
  for (int i = 0; i < 5; i++)
    if (b->dep_signal[i].handle)
      signal_wait(b->dep_signal[i], HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_ACTIVE);
}

/* The packet processor of a hardware queue: runs every valid packet. */
static void hw_process(queue *q) {
  pthread_mutex_lock(&q->mu);
  uint64_t mask = q->q.size - 1;
  for (;;) {
    uint64_t r = atomic_load(&q->read_index);
    if (r >= atomic_load(&q->write_index)) break;
    uint8_t *slot = (uint8_t *)q->q.base_address + (r & mask) * 64;
    uint16_t hdr = __atomic_load_n((uint16_t *)slot, __ATOMIC_ACQUIRE);
    uint16_t t = header_type(hdr);
    if (t == HSA_PACKET_TYPE_INVALID) break;
    hsa_signal_t done = {0};
    if (t == HSA_PACKET_TYPE_KERNEL_DISPATCH) {
      hsa_kernel_dispatch_packet_t p;
      memcpy(&p, slot, sizeof p);
      gpu_dispatch(q, &p);
      done = p.completion_signal;
    } else if (t == HSA_PACKET_TYPE_BARRIER_AND || t == HSA_PACKET_TYPE_BARRIER_OR) {
      hsa_barrier_and_packet_t b;
      memcpy(&b, slot, sizeof b);
      if (t == HSA_PACKET_TYPE_BARRIER_AND) wait_deps(&b);
      atomic_fetch_add(&st_barriers, 1);
      done = b.completion_signal;
    } else {
      atomic_fetch_add(&st_other, 1);
      memcpy(&done, slot + 56, sizeof done);
    }
    __atomic_store_n((uint16_t *)slot, HSA_PACKET_TYPE_INVALID, __ATOMIC_RELEASE);
    atomic_store(&q->read_index, r + 1);
    if (done.handle) signal_sub(done, 1);
  }
  pthread_mutex_unlock(&q->mu);
}

/* Writes packets into a hardware queue and rings its doorbell. */
static void hw_submit(queue *hw, const void *pkts, uint64_t n) {
  const uint8_t *src = pkts;
  uint64_t mask = hw->q.size - 1, last = 0;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t idx = atomic_fetch_add(&hw->write_index, 1);
    while (idx - atomic_load(&hw->read_index) >= hw->q.size) {
      if (hw->async) {
        signal_store(hw->q.doorbell_signal, (hsa_signal_value_t)idx);
        sched_yield();
      } else {
        hw_process(hw);
      }
    }
    uint8_t *slot = (uint8_t *)hw->q.base_address + (idx & mask) * 64;
    memcpy(slot + 4, src + i * 64 + 4, 60);
    uint32_t word;
    memcpy(&word, src + i * 64, 4);
    __atomic_store_n((uint32_t *)slot, word, __ATOMIC_RELEASE);
    last = idx;
  }
  if (n) signal_store(hw->q.doorbell_signal, (hsa_signal_value_t)last);
}

static __thread queue *tls_chain_q;
static __thread int tls_chain_pos;
static __thread uint64_t tls_chain_idx;

static void chain_writer(const void *pkts, uint64_t n) {
  queue *q = tls_chain_q;
  int pos = tls_chain_pos;
  if (pos + 1 < q->nhandlers) {
    tls_chain_pos = pos + 1;
    q->handlers[pos + 1].fn(pkts, n, tls_chain_idx, q->handlers[pos + 1].data, chain_writer);
    tls_chain_pos = pos;
  } else {
    hw_submit(q->hw, pkts, n);
  }
}

/* The doorbell of an intercept queue: every new packet goes through the
 * handler chain (newest first) on the ringing thread. */
static void intercept_process(queue *q) {
  pthread_mutex_lock(&q->mu);
  uint64_t mask = q->q.size - 1;
  queue *saved_q = tls_chain_q;
  int saved_pos = tls_chain_pos;
  uint64_t saved_idx = tls_chain_idx;
  for (;;) {
    uint64_t r = atomic_load(&q->read_index);
    if (r >= atomic_load(&q->write_index)) break;
    uint8_t *slot = (uint8_t *)q->q.base_address + (r & mask) * 64;
    uint16_t hdr = __atomic_load_n((uint16_t *)slot, __ATOMIC_ACQUIRE);
    if (header_type(hdr) == HSA_PACKET_TYPE_INVALID) break;
    uint8_t pkt[64];
    memcpy(pkt, slot, 64);
    if (q->nhandlers == 0) {
      hw_submit(q->hw, pkt, 1);
    } else {
      tls_chain_q = q;
      tls_chain_pos = 0;
      tls_chain_idx = r;
      q->handlers[0].fn(pkt, 1, r, q->handlers[0].data, chain_writer);
    }
    __atomic_store_n((uint16_t *)slot, HSA_PACKET_TYPE_INVALID, __ATOMIC_RELEASE);
    atomic_store(&q->read_index, r + 1);
  }
  tls_chain_q = saved_q;
  tls_chain_pos = saved_pos;
  tls_chain_idx = saved_idx;
  pthread_mutex_unlock(&q->mu);
}

static void queue_doorbell(queue *q) {
  if (q->intercept) {
    intercept_process(q);
  } else if (q->async) {
    pthread_mutex_lock(&q->gpu_mu);
    q->kicks++;
    pthread_cond_signal(&q->gpu_cv);
    pthread_mutex_unlock(&q->gpu_mu);
  } else {
    hw_process(q);
  }
}

static hsa_status_t queue_create(hsa_agent_t a, uint32_t size, hsa_queue_type32_t type,
                                 void (*cb)(hsa_status_t, hsa_queue_t *, void *), void *data, uint32_t priv,
                                 uint32_t group, hsa_queue_t **out) {
  (void)type;
  (void)priv;
  (void)group;
  agent *ag = agent_of(a);
  if (!ag || !ag->is_gpu) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!out || size == 0 || (size & (size - 1)) || size > (1u << 17)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  queue *q = queue_new(ag, size, 0);
  if (!q) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  q->cb = cb;
  q->cb_data = data;
  *out = &q->q;
  slog("queue_create: hw queue %lu size %u", (unsigned long)q->q.id, size);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t queue_destroy(hsa_queue_t *pq) {
  queue *q = (queue *)pq;
  if (!q) return HSA_STATUS_ERROR_INVALID_QUEUE;
  if (q->hw) queue_free(q->hw);
  queue_free(q);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t intercept_create(hsa_agent_t a, uint32_t size, hsa_queue_type32_t type,
                                     void (*cb)(hsa_status_t, hsa_queue_t *, void *), void *data, uint32_t priv,
                                     uint32_t group, hsa_queue_t **out) {
  if (size < 3 || (size & (size - 1))) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  hsa_queue_t *hw;
  hsa_status_t st = queue_create(a, size, type, cb, data, priv, group, &hw); /* internal, not via the table */
  if (st != HSA_STATUS_SUCCESS) return st;
  queue *q = queue_new(agent_of(a), size, 1);
  if (!q) {
    queue_destroy(hw);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  q->hw = (queue *)hw;
  q->q.id = hw->id;
  q->cb = cb;
  q->cb_data = data;
  *out = &q->q;
  slog("intercept_create: queue %lu", (unsigned long)q->q.id);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t intercept_register(hsa_queue_t *pq, rj_intercept_handler fn, void *data) {
  queue *q = (queue *)pq;
  if (!q || !q->intercept) return HSA_STATUS_ERROR_INVALID_QUEUE;
  if (!fn) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  pthread_mutex_lock(&q->mu);
  if (q->nhandlers == MAX_HANDLERS) {
    pthread_mutex_unlock(&q->mu);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  memmove(&q->handlers[1], &q->handlers[0], sizeof q->handlers[0] * (size_t)q->nhandlers);
  q->handlers[0].fn = fn;
  q->handlers[0].data = data;
  q->nhandlers++;
  pthread_mutex_unlock(&q->mu);
  return HSA_STATUS_SUCCESS;
}

#define QQ(p) ((queue *)(p))
static uint64_t q_load_read(const hsa_queue_t *q) { return atomic_load(&QQ(q)->read_index); }
static uint64_t q_load_write(const hsa_queue_t *q) { return atomic_load(&QQ(q)->write_index); }
static void q_store_write(const hsa_queue_t *q, uint64_t v) { atomic_store(&QQ(q)->write_index, v); }
static void q_store_read(const hsa_queue_t *q, uint64_t v) { atomic_store(&QQ(q)->read_index, v); }
static uint64_t q_add_write(const hsa_queue_t *q, uint64_t v) { return atomic_fetch_add(&QQ(q)->write_index, v); }
static uint64_t q_cas_write(const hsa_queue_t *q, uint64_t expected, uint64_t v) {
  uint64_t e = expected;
  atomic_compare_exchange_strong(&QQ(q)->write_index, &e, v);
  return e;
}

/* ------------------------------------------------------------------------ */
/* Agent, ISA, pool and region queries                                       */

static hsa_status_t iterate_agents(hsa_status_t (*cb)(hsa_agent_t, void *), void *data) {
  if (!cb) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (int i = 0; i < nagents; i++) {
    hsa_status_t st = cb((hsa_agent_t){(uintptr_t)&agents[i]}, data);
    if (st != HSA_STATUS_SUCCESS) return st;
  }
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t agent_get_info(hsa_agent_t a, hsa_agent_info_t attr, void *v) {
  agent *ag = agent_of(a);
  if (!ag || !v) return HSA_STATUS_ERROR_INVALID_AGENT;
  switch ((int)attr) {
  case HSA_AGENT_INFO_NAME:
    memset(v, 0, 64);
    snprintf(v, 64, "%s", ag->is_gpu ? ag->isa->proc : "Stand-in CPU");
    return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_VENDOR_NAME: memset(v, 0, 64); snprintf(v, 64, "AMD"); return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_FEATURE: *(uint32_t *)v = ag->is_gpu ? HSA_AGENT_FEATURE_KERNEL_DISPATCH : HSA_AGENT_FEATURE_AGENT_DISPATCH; return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_DEVICE: *(hsa_device_type_t *)v = ag->is_gpu ? HSA_DEVICE_TYPE_GPU : HSA_DEVICE_TYPE_CPU; return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_NODE: *(uint32_t *)v = ag->node; return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_QUEUES_MAX: *(uint32_t *)v = ag->is_gpu ? 128 : 0; return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_QUEUE_MIN_SIZE: *(uint32_t *)v = 64; return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_QUEUE_MAX_SIZE: *(uint32_t *)v = 1u << 17; return HSA_STATUS_SUCCESS;
  }
  if (!ag->is_gpu) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch ((int)attr) {
  case HSA_AGENT_INFO_WAVEFRONT_SIZE: *(uint32_t *)v = ag->isa->wave; return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_WORKGROUP_MAX_SIZE: *(uint32_t *)v = 1024; return HSA_STATUS_SUCCESS;
  case HSA_AGENT_INFO_ISA: *(hsa_isa_t *)v = (hsa_isa_t){(uintptr_t)ag->isa}; return HSA_STATUS_SUCCESS;
  case HSA_AMD_AGENT_INFO_PRODUCT_NAME: memset(v, 0, 64); snprintf(v, 64, "%s", ag->isa->product); return HSA_STATUS_SUCCESS;
  case HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU: *(uint32_t *)v = 4; return HSA_STATUS_SUCCESS;
  case HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU: *(uint32_t *)v = 4 * ag->isa->waves_per_simd; return HSA_STATUS_SUCCESS;
  case HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT: *(uint32_t *)v = 4; return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

static hsa_status_t agent_iterate_isas(hsa_agent_t a, hsa_status_t (*cb)(hsa_isa_t, void *), void *data) {
  agent *ag = agent_of(a);
  if (!ag || !cb) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!ag->is_gpu) return HSA_STATUS_SUCCESS;
  return cb((hsa_isa_t){(uintptr_t)ag->isa}, data);
}

static hsa_status_t isa_get_info_alt(hsa_isa_t isa, hsa_isa_info_t attr, void *v) {
  const isa_desc *d = isa_of(isa);
  if (!d || !v) return HSA_STATUS_ERROR_INVALID_ISA;
  switch ((int)attr) {
  case HSA_ISA_INFO_NAME_LENGTH: *(uint32_t *)v = (uint32_t)strlen(d->full) + 1; return HSA_STATUS_SUCCESS;
  case HSA_ISA_INFO_NAME: memcpy(v, d->full, strlen(d->full) + 1); return HSA_STATUS_SUCCESS;
  case HSA_ISA_INFO_WORKGROUP_MAX_SIZE: *(uint32_t *)v = 1024; return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

static hsa_status_t isa_get_info(hsa_isa_t isa, hsa_isa_info_t attr, uint32_t index, void *v) {
  if (index) return HSA_STATUS_ERROR_INVALID_INDEX;
  return isa_get_info_alt(isa, attr, v);
}

static hsa_status_t isa_from_name(const char *name, hsa_isa_t *out) {
  for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++)
    if (!strcmp(isas[i].full, name)) {
      out->handle = (uintptr_t)&isas[i];
      return HSA_STATUS_SUCCESS;
    }
  return HSA_STATUS_ERROR_INVALID_ISA_NAME;
}

static hsa_status_t isa_iterate_wavefronts(hsa_isa_t isa, hsa_status_t (*cb)(hsa_wavefront_t, void *), void *data) {
  const isa_desc *d = isa_of(isa);
  if (!d || !cb) return HSA_STATUS_ERROR_INVALID_ISA;
  return cb((hsa_wavefront_t){(uintptr_t)&d->wave}, data); /* the handle points at the size */
}

static hsa_status_t wavefront_get_info(hsa_wavefront_t wf, hsa_wavefront_info_t attr, void *v) {
  for (size_t i = 0; i < sizeof isas / sizeof isas[0]; i++)
    if ((uintptr_t)&isas[i].wave == wf.handle && attr == HSA_WAVEFRONT_INFO_SIZE) {
      *(uint32_t *)v = isas[i].wave;
      return HSA_STATUS_SUCCESS;
    }
  return HSA_STATUS_ERROR_INVALID_WAVEFRONT;
}

static hsa_status_t isa_get_round_method(hsa_isa_t isa, hsa_fp_type_t t, hsa_flush_mode_t f, hsa_round_method_t *m) {
  (void)t;
  (void)f;
  if (!isa_of(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
  *m = HSA_ROUND_METHOD_SINGLE;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t isa_get_exception_policies(hsa_isa_t isa, hsa_profile_t p, uint16_t *mask) {
  (void)p;
  if (!isa_of(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
  *mask = HSA_EXCEPTION_POLICY_BREAK | HSA_EXCEPTION_POLICY_DETECT;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t isa_compatible(hsa_isa_t a, hsa_isa_t b, bool *result) {
  if (!isa_of(a) || !isa_of(b)) return HSA_STATUS_ERROR_INVALID_ISA;
  *result = a.handle == b.handle;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t iterate_pools(hsa_agent_t a, hsa_status_t (*cb)(hsa_amd_memory_pool_t, void *), void *data) {
  agent *ag = agent_of(a);
  if (!ag || !cb) return HSA_STATUS_ERROR_INVALID_AGENT;
  for (int i = 0; i < ag->npools; i++) {
    hsa_status_t st = cb((hsa_amd_memory_pool_t){(uintptr_t)&ag->pools[i]}, data);
    if (st != HSA_STATUS_SUCCESS) return st;
  }
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t pool_get_info(hsa_amd_memory_pool_t ph, hsa_amd_memory_pool_info_t attr, void *v) {
  pool *p = pool_of(ph.handle);
  if (!p || !v) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch ((int)attr) {
  case HSA_AMD_MEMORY_POOL_INFO_SEGMENT: *(hsa_amd_segment_t *)v = (hsa_amd_segment_t)p->segment; return HSA_STATUS_SUCCESS;
  case HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS: *(uint32_t *)v = p->flags; return HSA_STATUS_SUCCESS;
  case HSA_AMD_MEMORY_POOL_INFO_SIZE: *(size_t *)v = p->size; return HSA_STATUS_SUCCESS;
  case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED: *(bool *)v = p->segment == HSA_AMD_SEGMENT_GLOBAL; return HSA_STATUS_SUCCESS;
  case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE:
  case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT: *(size_t *)v = 4096; return HSA_STATUS_SUCCESS;
  case HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL: *(bool *)v = true; return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

static hsa_status_t pool_allocate(hsa_amd_memory_pool_t ph, size_t size, uint32_t flags, void **ptr) {
  (void)flags;
  pool *p = pool_of(ph.handle);
  if (!p || !ptr || !size || p->segment != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  /* Tests: STANDIN_DEVICE_ALLOC_MAX=N makes device-pool allocations above N
   * bytes fail (out of device memory). */
  const char *lim = getenv("STANDIN_DEVICE_ALLOC_MAX");
  if (lim && p->flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED && size > strtoull(lim, NULL, 0))
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  *ptr = gpu_alloc(size);
  return *ptr ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_OUT_OF_RESOURCES;
}

static hsa_status_t pool_free(void *ptr) { return gpu_free(ptr) ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_ARGUMENT; }

static hsa_status_t agents_allow_access(uint32_t n, const hsa_agent_t *a, const uint32_t *flags, const void *ptr) {
  (void)n;
  (void)a;
  (void)flags;
  return gpu_bytes_from((uintptr_t)ptr) < 0 ? HSA_STATUS_ERROR_INVALID_ARGUMENT : HSA_STATUS_SUCCESS;
}

static hsa_status_t profiling_set_enabled(hsa_queue_t *q, int enable) {
  (void)q;
  (void)enable;
  return HSA_STATUS_SUCCESS;
}

/* Regions are the same objects as pools; HSA_REGION_INFO_* numbers agree for
 * SEGMENT, GLOBAL_FLAGS and SIZE. */
static hsa_status_t iterate_regions(hsa_agent_t a, hsa_status_t (*cb)(hsa_region_t, void *), void *data) {
  return iterate_pools(a, (hsa_status_t(*)(hsa_amd_memory_pool_t, void *))cb, data);
}

static hsa_status_t region_get_info(hsa_region_t r, hsa_region_info_t attr, void *v) {
  pool *p = pool_of(r.handle);
  if (!p || !v) return HSA_STATUS_ERROR_INVALID_REGION;
  switch ((int)attr) {
  case HSA_REGION_INFO_SEGMENT: *(hsa_region_segment_t *)v = (hsa_region_segment_t)p->segment; return HSA_STATUS_SUCCESS;
  case HSA_REGION_INFO_GLOBAL_FLAGS:
    *(uint32_t *)v = (p->flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT ? HSA_REGION_GLOBAL_FLAG_KERNARG : 0) |
                     (p->flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED ? HSA_REGION_GLOBAL_FLAG_FINE_GRAINED : 0) |
                     (p->flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED ? HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED : 0);
    return HSA_STATUS_SUCCESS;
  case HSA_REGION_INFO_SIZE: *(size_t *)v = p->size; return HSA_STATUS_SUCCESS;
  case HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED: *(bool *)v = p->segment == HSA_AMD_SEGMENT_GLOBAL; return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

static hsa_status_t memory_allocate(hsa_region_t r, size_t size, void **ptr) {
  return pool_allocate((hsa_amd_memory_pool_t){r.handle}, size, 0, ptr);
}

static hsa_status_t system_get_info(hsa_system_info_t attr, void *v) {
  switch ((int)attr) {
  case HSA_SYSTEM_INFO_VERSION_MAJOR: *(uint16_t *)v = 1; return HSA_STATUS_SUCCESS;
  case HSA_SYSTEM_INFO_VERSION_MINOR: *(uint16_t *)v = 1; return HSA_STATUS_SUCCESS;
  case HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY: *(uint64_t *)v = 1000000000ull; return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

static hsa_status_t status_string(hsa_status_t st, const char **s) {
  static char buf[64];
  snprintf(buf, sizeof buf, "stand-in HSA status %#x", st);
  *s = buf;
  return HSA_STATUS_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Tables and tool loading                                                   */

static hsa_status_t unsupported(void) { return HSA_STATUS_ERROR; }

enum { ABI_52, ABI_57, ABI_70 };
static int abi;
static rj_hsa_api_table root;
static uint8_t core_tbl[RJ_CORE_SIZE] __attribute__((aligned(16)));
static uint8_t amd_tbl[RJ_AMD70_SIZE] __attribute__((aligned(16)));
static uint8_t fin_tbl[64] __attribute__((aligned(16)));
static uint8_t img_tbl[128] __attribute__((aligned(16)));
static uint8_t tools_tbl[64] __attribute__((aligned(16)));
static uint8_t pcs_tbl[72] __attribute__((aligned(16)));

static hsa_status_t hsa_init_impl(void);
static hsa_status_t hsa_shut_down_impl(void);

#define AMD_OFF(name) (abi == ABI_52 ? RJ_AMD52_##name : RJ_AMD70_##name)

static void fill_table(uint8_t *t, size_t size, uint32_t major, uint32_t minor, uint32_t step) {
  memset(t, 0, size);
  for (size_t off = 16; off + 8 <= size; off += 8) RJ_SLOT(t, off) = (void *)unsupported;
  RJ_VERSION(t)->major_id = major;
  RJ_VERSION(t)->minor_id = minor;
  RJ_VERSION(t)->step_id = step;
}

static void build_tables(void) {
  const char *a = getenv("STANDIN_ABI");
  abi = ABI_70;
  if (a && !strcmp(a, "5.2")) abi = ABI_52;
  if (a && !strcmp(a, "5.7")) abi = ABI_57;
  uint32_t amd_size = abi == ABI_52 ? RJ_AMD52_SIZE : abi == ABI_57 ? 456 : RJ_AMD70_SIZE;
  memset(&root, 0, sizeof root);
  root.version.major_id = abi == ABI_70 ? 3 : 1;
  root.version.minor_id = abi == ABI_70 ? 64 : 48;
  root.version.step_id = abi == ABI_70 ? 1 : 0;
  const char *maj = getenv("STANDIN_TABLE_MAJOR"); /* tests: a table from a future ROCm */
  if (maj && *maj) root.version.major_id = (uint32_t)atoi(maj);
  fill_table(core_tbl, sizeof core_tbl, abi == ABI_70 ? 2 : 1, RJ_CORE_SIZE, 0);
  fill_table(amd_tbl, sizeof amd_tbl, abi == ABI_70 ? 2 : 1, amd_size, abi == ABI_70 ? 7 : 0);
  fill_table(fin_tbl, sizeof fin_tbl, 1, 64, 0);
  fill_table(img_tbl, sizeof img_tbl, abi == ABI_70 ? 2 : 1, abi == ABI_70 ? 128 : 120, 0);
  fill_table(tools_tbl, sizeof tools_tbl, 1, 64, 0);
  fill_table(pcs_tbl, sizeof pcs_tbl, 1, 72, 0);
  root.core = core_tbl;
  root.amd_ext = amd_tbl;
  root.finalizer_ext = fin_tbl;
  root.image_ext = img_tbl;
  if (abi == ABI_70) {
    root.tools = tools_tbl;
    root.pc_sampling_ext = pcs_tbl;
  }
  uint8_t *c = core_tbl;
#define C(name, fn) RJ_SLOT(c, RJ_CORE_##name) = (void *)(fn)
  C(INIT, hsa_init_impl);
  C(SHUT_DOWN, hsa_shut_down_impl);
  C(SYSTEM_GET_INFO, system_get_info);
  C(SYSTEM_GET_EXTENSION_TABLE, get_extension_table);
  C(SYSTEM_GET_MAJOR_EXTENSION_TABLE, get_major_extension_table);
  C(SYSTEM_MAJOR_EXTENSION_SUPPORTED, major_extension_supported);
  C(ITERATE_AGENTS, iterate_agents);
  C(AGENT_GET_INFO, agent_get_info);
  C(QUEUE_CREATE, queue_create);
  C(QUEUE_DESTROY, queue_destroy);
  C(QUEUE_LOAD_READ_INDEX_SCACQUIRE, q_load_read);
  C(QUEUE_LOAD_READ_INDEX_RELAXED, q_load_read);
  C(QUEUE_LOAD_WRITE_INDEX_SCACQUIRE, q_load_write);
  C(QUEUE_LOAD_WRITE_INDEX_RELAXED, q_load_write);
  C(QUEUE_STORE_WRITE_INDEX_RELAXED, q_store_write);
  C(QUEUE_STORE_WRITE_INDEX_SCRELEASE, q_store_write);
  C(QUEUE_CAS_WRITE_INDEX_SCACQ_SCREL, q_cas_write);
  C(QUEUE_CAS_WRITE_INDEX_SCACQUIRE, q_cas_write);
  C(QUEUE_CAS_WRITE_INDEX_RELAXED, q_cas_write);
  C(QUEUE_CAS_WRITE_INDEX_SCRELEASE, q_cas_write);
  C(QUEUE_ADD_WRITE_INDEX_SCACQ_SCREL, q_add_write);
  C(QUEUE_ADD_WRITE_INDEX_SCACQUIRE, q_add_write);
  C(QUEUE_ADD_WRITE_INDEX_RELAXED, q_add_write);
  C(QUEUE_ADD_WRITE_INDEX_SCRELEASE, q_add_write);
  C(QUEUE_STORE_READ_INDEX_RELAXED, q_store_read);
  C(QUEUE_STORE_READ_INDEX_SCRELEASE, q_store_read);
  C(AGENT_ITERATE_REGIONS, iterate_regions);
  C(REGION_GET_INFO, region_get_info);
  C(MEMORY_ALLOCATE, memory_allocate);
  C(MEMORY_FREE, pool_free);
  C(SIGNAL_CREATE, signal_create);
  C(SIGNAL_DESTROY, signal_destroy);
  C(SIGNAL_LOAD_RELAXED, signal_load);
  C(SIGNAL_LOAD_SCACQUIRE, signal_load);
  C(SIGNAL_STORE_RELAXED, signal_store);
  C(SIGNAL_STORE_SCRELEASE, signal_store);
  C(SIGNAL_SILENT_STORE_RELAXED, signal_silent_store);
  C(SIGNAL_SILENT_STORE_SCRELEASE, signal_silent_store);
  C(SIGNAL_WAIT_RELAXED, signal_wait);
  C(SIGNAL_WAIT_SCACQUIRE, signal_wait);
  C(SIGNAL_AND_RELAXED, signal_and);
  C(SIGNAL_AND_SCACQUIRE, signal_and);
  C(SIGNAL_AND_SCRELEASE, signal_and);
  C(SIGNAL_AND_SCACQ_SCREL, signal_and);
  C(SIGNAL_OR_RELAXED, signal_or);
  C(SIGNAL_OR_SCACQUIRE, signal_or);
  C(SIGNAL_OR_SCRELEASE, signal_or);
  C(SIGNAL_OR_SCACQ_SCREL, signal_or);
  C(SIGNAL_XOR_RELAXED, signal_xor);
  C(SIGNAL_XOR_SCACQUIRE, signal_xor);
  C(SIGNAL_XOR_SCRELEASE, signal_xor);
  C(SIGNAL_XOR_SCACQ_SCREL, signal_xor);
  C(SIGNAL_EXCHANGE_RELAXED, signal_exchange);
  C(SIGNAL_EXCHANGE_SCACQUIRE, signal_exchange);
  C(SIGNAL_EXCHANGE_SCRELEASE, signal_exchange);
  C(SIGNAL_EXCHANGE_SCACQ_SCREL, signal_exchange);
  C(SIGNAL_ADD_RELAXED, signal_add);
  C(SIGNAL_ADD_SCACQUIRE, signal_add);
  C(SIGNAL_ADD_SCRELEASE, signal_add);
  C(SIGNAL_ADD_SCACQ_SCREL, signal_add);
  C(SIGNAL_SUBTRACT_RELAXED, signal_sub);
  C(SIGNAL_SUBTRACT_SCACQUIRE, signal_sub);
  C(SIGNAL_SUBTRACT_SCRELEASE, signal_sub);
  C(SIGNAL_SUBTRACT_SCACQ_SCREL, signal_sub);
  C(SIGNAL_CAS_RELAXED, signal_cas);
  C(SIGNAL_CAS_SCACQUIRE, signal_cas);
  C(SIGNAL_CAS_SCRELEASE, signal_cas);
  C(SIGNAL_CAS_SCACQ_SCREL, signal_cas);
  C(ISA_FROM_NAME, isa_from_name);
  C(ISA_GET_INFO, isa_get_info);
  C(AGENT_ITERATE_ISAS, agent_iterate_isas);
  C(ISA_GET_INFO_ALT, isa_get_info_alt);
  C(ISA_ITERATE_WAVEFRONTS, isa_iterate_wavefronts);
  C(WAVEFRONT_GET_INFO, wavefront_get_info);
  C(ISA_GET_ROUND_METHOD, isa_get_round_method);
  C(ISA_GET_EXCEPTION_POLICIES, isa_get_exception_policies);
  C(ISA_COMPATIBLE, isa_compatible);
  C(EXECUTABLE_CREATE, exec_create);
  C(EXECUTABLE_CREATE_ALT, exec_create_alt);
  C(EXECUTABLE_DESTROY, exec_destroy);
  C(EXECUTABLE_FREEZE, exec_freeze);
  C(EXECUTABLE_SYMBOL_GET_INFO, symbol_get_info);
  C(EXECUTABLE_ITERATE_SYMBOLS, exec_iterate_symbols);
  C(EXECUTABLE_ITERATE_AGENT_SYMBOLS, exec_iterate_agent_symbols);
  C(EXECUTABLE_GET_SYMBOL_BY_NAME, exec_get_symbol_by_name);
  C(EXECUTABLE_LOAD_AGENT_CODE_OBJECT, exec_load_agent);
  C(EXECUTABLE_LOAD_PROGRAM_CODE_OBJECT, exec_load_program);
  C(CODE_OBJECT_READER_CREATE_FROM_FILE, reader_from_file);
  C(CODE_OBJECT_READER_CREATE_FROM_MEMORY, reader_from_memory);
  C(CODE_OBJECT_READER_DESTROY, reader_destroy);
  C(STATUS_STRING, status_string);
#undef C
  uint8_t *m = amd_tbl;
#define A(name, fn) RJ_SLOT(m, AMD_OFF(name)) = (void *)(fn)
  A(AMD_PROFILING_SET_PROFILER_ENABLED, profiling_set_enabled);
  A(AMD_MEMORY_POOL_GET_INFO, pool_get_info);
  A(AMD_AGENT_ITERATE_MEMORY_POOLS, iterate_pools);
  A(AMD_MEMORY_POOL_ALLOCATE, pool_allocate);
  A(AMD_MEMORY_POOL_FREE, pool_free);
  A(AMD_AGENTS_ALLOW_ACCESS, agents_allow_access);
  A(AMD_SIGNAL_CREATE, amd_signal_create);
  A(AMD_QUEUE_INTERCEPT_CREATE, intercept_create);
  A(AMD_QUEUE_INTERCEPT_REGISTER, intercept_register);
#undef A
}

__attribute__((constructor)) static void standin_ctor(void) {
  build_tables();
  slog("loaded");
}

/* Tool loading, as ROCR's Runtime::LoadTools. */
#define MAX_TOOLS 16
typedef struct tool {
  void *handle;
  char name[512];
  uint64_t order;
} tool;
static tool tools[MAX_TOOLS];
static int ntools;
static const char *failed_names[MAX_TOOLS + 1];
static char failed_store[MAX_TOOLS][512];
static int nfailed;

static int parse_tools_env(const char *s, char out[][512], int max) {
  int n = 0;
  while (*s && n < max) {
    while (*s == ' ') s++;
    if (!*s) break;
    size_t k = 0;
    int quoted = 0;
    while (*s && (quoted || *s != ' ')) {
      if (*s == '"') {
        quoted = !quoted;
        s++;
        continue;
      }
      if (*s == '\\' && s[1]) s++;
      if (k < 511) out[n][k++] = *s;
      s++;
    }
    out[n][k] = 0;
    n++;
  }
  return n;
}

typedef struct scan_ctx {
  char names[MAX_TOOLS][512];
  int n;
} scan_ctx;

static int scan_phdr(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  scan_ctx *sc = data;
  if (!info->dlpi_name || !info->dlpi_name[0]) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
    const ElfW(Dyn) *d = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    const char *strtab = NULL;
    size_t strsz = 0;
    for (; d->d_tag != DT_NULL; d++) {
      if (d->d_tag == DT_STRTAB) strtab = (const char *)d->d_un.d_ptr;
      if (d->d_tag == DT_STRSZ) strsz = d->d_un.d_val;
    }
    if (!strtab || !strsz) continue;
    if ((uintptr_t)strtab < info->dlpi_addr) strtab += info->dlpi_addr; /* unrelocated d_ptr */
    if (memmem(strtab, strsz, "HSA_AMD_TOOL_PRIORITY", 21) && sc->n < MAX_TOOLS)
      snprintf(sc->names[sc->n++], 512, "%s", info->dlpi_name);
  }
  return 0;
}

static void add_tool(void *h, const char *name, uint64_t order) {
  for (int i = 0; i < ntools; i++)
    if (tools[i].handle == h) {
      dlclose(h); /* de-duplicate: same library, one OnLoad */
      return;
    }
  if (ntools == MAX_TOOLS) return;
  tools[ntools].handle = h;
  snprintf(tools[ntools].name, sizeof tools[ntools].name, "%s", name);
  tools[ntools].order = order;
  ntools++;
}

static void load_tools(void) {
  char envnames[MAX_TOOLS][512];
  const char *env = getenv("HSA_TOOLS_LIB");
  int nenv = env ? parse_tools_env(env, envnames, MAX_TOOLS) : 0;
  ntools = 0;
  nfailed = 0;
  if (abi != ABI_52) {
    static scan_ctx sc;
    sc.n = 0;
    dl_iterate_phdr(scan_phdr, &sc);
    for (int i = 0; i < sc.n; i++) {
      void *h = dlopen(sc.names[i], RTLD_LAZY);
      if (!h) continue;
      const uint32_t *prio = dlsym(h, "HSA_AMD_TOOL_PRIORITY");
      if (!prio) {
        dlclose(h);
        continue;
      }
      add_tool(h, sc.names[i], (uint64_t)*prio + (uint64_t)nenv);
    }
  }
  for (int i = 0; i < nenv; i++) {
    void *h = dlopen(envnames[i], RTLD_LAZY);
    if (!h) {
      const char *rep = getenv("HSA_TOOLS_REPORT_LOAD_FAILURE");
      if (!rep || strcmp(rep, "0")) fprintf(stderr, "Tool lib \"%s\" failed to load.\n", envnames[i]);
      slog("tool %s failed to load: %s", envnames[i], dlerror());
      snprintf(failed_store[nfailed], 512, "%s", envnames[i]);
      failed_names[nfailed] = failed_store[nfailed];
      nfailed++;
      continue;
    }
    add_tool(h, envnames[i], (uint64_t)i);
  }
  /* stable sort by order */
  for (int i = 1; i < ntools; i++)
    for (int j = i; j > 0 && tools[j].order < tools[j - 1].order; j--) {
      tool t = tools[j];
      tools[j] = tools[j - 1];
      tools[j - 1] = t;
    }
  for (int i = 0; i < ntools; i++) {
    rj_tool_onload_fn onload = (rj_tool_onload_fn)dlsym(tools[i].handle, "OnLoad");
    if (!onload) continue;
    atomic_fetch_add(&st_onload, 1);
    failed_names[nfailed] = NULL;
    bool ok = onload(&root, root.version.major_id, (uint64_t)nfailed, failed_names);
    slog("tool %s OnLoad -> %s", tools[i].name, ok ? "true" : "false");
    if (ok) {
      atomic_fetch_add(&st_tools, 1);
    } else {
      if (nfailed < MAX_TOOLS) {
        snprintf(failed_store[nfailed], 512, "%s", tools[i].name);
        failed_names[nfailed] = failed_store[nfailed];
        nfailed++;
      }
      dlclose(tools[i].handle);
      tools[i].handle = NULL;
    }
  }
}

static void unload_tools(void) {
  for (int i = ntools - 1; i >= 0; i--) {
    if (!tools[i].handle) continue;
    rj_tool_onunload_fn f = (rj_tool_onunload_fn)dlsym(tools[i].handle, "OnUnload");
    if (f) f();
  }
  build_tables(); /* hsa_api_table().Reset() */
  for (int i = 0; i < ntools; i++)
    if (tools[i].handle) dlclose(tools[i].handle);
  ntools = 0;
}

static pthread_mutex_t bootstrap_mu;
static pthread_once_t bootstrap_once = PTHREAD_ONCE_INIT;
static int refcount;

static void bootstrap_init(void) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_init(&bootstrap_mu, &a);
}

static void bootstrap_lock(const char *who) {
  pthread_once(&bootstrap_once, bootstrap_init);
  if (pthread_mutex_lock(&bootstrap_mu) == EDEADLK) {
    fprintf(stderr, "standin: %s re-entered while the runtime holds its bootstrap lock (a tool called it from OnLoad/OnUnload; real ROCR deadlocks here)\n", who);
    abort();
  }
}

static hsa_status_t hsa_init_impl(void) {
  bootstrap_lock("hsa_init");
  hsa_status_t st = HSA_STATUS_SUCCESS;
  if (refcount == 0) {
    const char *nogpu = getenv("STANDIN_NO_GPU");
    if (nogpu && !strcmp(nogpu, "1")) {
      pthread_mutex_unlock(&bootstrap_mu);
      return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    init_agents();
    const char *g = getenv("STANDIN_GPU");
    gpu_async = g && !strcmp(g, "async");
    load_tools();
  }
  refcount++;
  pthread_mutex_unlock(&bootstrap_mu);
  return st;
}

static hsa_status_t hsa_shut_down_impl(void) {
  bootstrap_lock("hsa_shut_down");
  if (refcount == 0) {
    pthread_mutex_unlock(&bootstrap_mu);
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  }
  if (--refcount == 0) unload_tools();
  pthread_mutex_unlock(&bootstrap_mu);
  return HSA_STATUS_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Exported hsa_* functions: every one dispatches through the live table.    */

#define CORE(name, type) ((type)RJ_SLOT(root.core, RJ_CORE_##name))
#define AMDX(name, type) ((type)RJ_SLOT(root.amd_ext, AMD_OFF(name)))

EXPORT hsa_status_t hsa_init(void) { return CORE(INIT, hsa_status_t(*)(void))(); }
EXPORT hsa_status_t hsa_shut_down(void) { return CORE(SHUT_DOWN, hsa_status_t(*)(void))(); }
EXPORT hsa_status_t hsa_system_get_info(hsa_system_info_t a, void *v) {
  return CORE(SYSTEM_GET_INFO, hsa_status_t(*)(hsa_system_info_t, void *))(a, v);
}
EXPORT hsa_status_t hsa_system_get_major_extension_table(uint16_t e, uint16_t maj, size_t len, void *t) {
  return CORE(SYSTEM_GET_MAJOR_EXTENSION_TABLE, hsa_status_t(*)(uint16_t, uint16_t, size_t, void *))(e, maj, len, t);
}
EXPORT hsa_status_t hsa_system_get_extension_table(uint16_t e, uint16_t maj, uint16_t min, void *t) {
  return CORE(SYSTEM_GET_EXTENSION_TABLE, hsa_status_t(*)(uint16_t, uint16_t, uint16_t, void *))(e, maj, min, t);
}
EXPORT hsa_status_t hsa_iterate_agents(hsa_status_t (*cb)(hsa_agent_t, void *), void *d) {
  return CORE(ITERATE_AGENTS, hsa_status_t(*)(hsa_status_t(*)(hsa_agent_t, void *), void *))(cb, d);
}
EXPORT hsa_status_t hsa_agent_get_info(hsa_agent_t a, hsa_agent_info_t at, void *v) {
  return CORE(AGENT_GET_INFO, hsa_status_t(*)(hsa_agent_t, hsa_agent_info_t, void *))(a, at, v);
}
EXPORT hsa_status_t hsa_agent_iterate_isas(hsa_agent_t a, hsa_status_t (*cb)(hsa_isa_t, void *), void *d) {
  return CORE(AGENT_ITERATE_ISAS, hsa_status_t(*)(hsa_agent_t, hsa_status_t(*)(hsa_isa_t, void *), void *))(a, cb, d);
}
EXPORT hsa_status_t hsa_isa_get_info_alt(hsa_isa_t i, hsa_isa_info_t at, void *v) {
  return CORE(ISA_GET_INFO_ALT, hsa_status_t(*)(hsa_isa_t, hsa_isa_info_t, void *))(i, at, v);
}
EXPORT hsa_status_t hsa_isa_get_info(hsa_isa_t i, hsa_isa_info_t at, uint32_t idx, void *v) {
  return CORE(ISA_GET_INFO, hsa_status_t(*)(hsa_isa_t, hsa_isa_info_t, uint32_t, void *))(i, at, idx, v);
}
EXPORT hsa_status_t hsa_isa_iterate_wavefronts(hsa_isa_t i, hsa_status_t (*cb)(hsa_wavefront_t, void *), void *d) {
  return CORE(ISA_ITERATE_WAVEFRONTS, hsa_status_t(*)(hsa_isa_t, hsa_status_t(*)(hsa_wavefront_t, void *), void *))(i, cb, d);
}
EXPORT hsa_status_t hsa_wavefront_get_info(hsa_wavefront_t w, hsa_wavefront_info_t at, void *v) {
  return CORE(WAVEFRONT_GET_INFO, hsa_status_t(*)(hsa_wavefront_t, hsa_wavefront_info_t, void *))(w, at, v);
}
EXPORT hsa_status_t hsa_isa_get_round_method(hsa_isa_t i, hsa_fp_type_t t, hsa_flush_mode_t f, hsa_round_method_t *m) {
  return CORE(ISA_GET_ROUND_METHOD, hsa_status_t(*)(hsa_isa_t, hsa_fp_type_t, hsa_flush_mode_t, hsa_round_method_t *))(i, t, f, m);
}
EXPORT hsa_status_t hsa_isa_get_exception_policies(hsa_isa_t i, hsa_profile_t p, uint16_t *m) {
  return CORE(ISA_GET_EXCEPTION_POLICIES, hsa_status_t(*)(hsa_isa_t, hsa_profile_t, uint16_t *))(i, p, m);
}
EXPORT hsa_status_t hsa_isa_compatible(hsa_isa_t a, hsa_isa_t b, bool *r) {
  return CORE(ISA_COMPATIBLE, hsa_status_t(*)(hsa_isa_t, hsa_isa_t, bool *))(a, b, r);
}
EXPORT hsa_status_t hsa_agent_iterate_regions(hsa_agent_t a, hsa_status_t (*cb)(hsa_region_t, void *), void *d) {
  return CORE(AGENT_ITERATE_REGIONS, hsa_status_t(*)(hsa_agent_t, hsa_status_t(*)(hsa_region_t, void *), void *))(a, cb, d);
}
EXPORT hsa_status_t hsa_region_get_info(hsa_region_t r, hsa_region_info_t at, void *v) {
  return CORE(REGION_GET_INFO, hsa_status_t(*)(hsa_region_t, hsa_region_info_t, void *))(r, at, v);
}
EXPORT hsa_status_t hsa_queue_create(hsa_agent_t a, uint32_t size, hsa_queue_type32_t t,
                                     void (*cb)(hsa_status_t, hsa_queue_t *, void *), void *d, uint32_t p, uint32_t g,
                                     hsa_queue_t **q) {
  return CORE(QUEUE_CREATE, hsa_status_t(*)(hsa_agent_t, uint32_t, hsa_queue_type32_t,
                                            void (*)(hsa_status_t, hsa_queue_t *, void *), void *, uint32_t, uint32_t,
                                            hsa_queue_t **))(a, size, t, cb, d, p, g, q);
}
EXPORT hsa_status_t hsa_queue_destroy(hsa_queue_t *q) { return CORE(QUEUE_DESTROY, hsa_status_t(*)(hsa_queue_t *))(q); }
EXPORT uint64_t hsa_queue_load_read_index_scacquire(const hsa_queue_t *q) {
  return CORE(QUEUE_LOAD_READ_INDEX_SCACQUIRE, uint64_t(*)(const hsa_queue_t *))(q);
}
EXPORT uint64_t hsa_queue_load_read_index_relaxed(const hsa_queue_t *q) {
  return CORE(QUEUE_LOAD_READ_INDEX_RELAXED, uint64_t(*)(const hsa_queue_t *))(q);
}
EXPORT uint64_t hsa_queue_load_write_index_relaxed(const hsa_queue_t *q) {
  return CORE(QUEUE_LOAD_WRITE_INDEX_RELAXED, uint64_t(*)(const hsa_queue_t *))(q);
}
EXPORT uint64_t hsa_queue_add_write_index_screlease(const hsa_queue_t *q, uint64_t v) {
  return CORE(QUEUE_ADD_WRITE_INDEX_SCRELEASE, uint64_t(*)(const hsa_queue_t *, uint64_t))(q, v);
}
EXPORT uint64_t hsa_queue_add_write_index_relaxed(const hsa_queue_t *q, uint64_t v) {
  return CORE(QUEUE_ADD_WRITE_INDEX_RELAXED, uint64_t(*)(const hsa_queue_t *, uint64_t))(q, v);
}
EXPORT uint64_t hsa_queue_add_write_index_scacq_screl(const hsa_queue_t *q, uint64_t v) {
  return CORE(QUEUE_ADD_WRITE_INDEX_SCACQ_SCREL, uint64_t(*)(const hsa_queue_t *, uint64_t))(q, v);
}
EXPORT hsa_status_t hsa_signal_create(hsa_signal_value_t v, uint32_t n, const hsa_agent_t *c, hsa_signal_t *s) {
  return CORE(SIGNAL_CREATE, hsa_status_t(*)(hsa_signal_value_t, uint32_t, const hsa_agent_t *, hsa_signal_t *))(v, n, c, s);
}
EXPORT hsa_status_t hsa_signal_destroy(hsa_signal_t s) { return CORE(SIGNAL_DESTROY, hsa_status_t(*)(hsa_signal_t))(s); }
EXPORT hsa_signal_value_t hsa_signal_load_scacquire(hsa_signal_t s) {
  return CORE(SIGNAL_LOAD_SCACQUIRE, hsa_signal_value_t(*)(hsa_signal_t))(s);
}
EXPORT hsa_signal_value_t hsa_signal_load_relaxed(hsa_signal_t s) {
  return CORE(SIGNAL_LOAD_RELAXED, hsa_signal_value_t(*)(hsa_signal_t))(s);
}
EXPORT void hsa_signal_store_screlease(hsa_signal_t s, hsa_signal_value_t v) {
  CORE(SIGNAL_STORE_SCRELEASE, void (*)(hsa_signal_t, hsa_signal_value_t))(s, v);
}
EXPORT void hsa_signal_store_relaxed(hsa_signal_t s, hsa_signal_value_t v) {
  CORE(SIGNAL_STORE_RELAXED, void (*)(hsa_signal_t, hsa_signal_value_t))(s, v);
}
EXPORT hsa_signal_value_t hsa_signal_wait_scacquire(hsa_signal_t s, hsa_signal_condition_t c, hsa_signal_value_t v,
                                                    uint64_t t, hsa_wait_state_t w) {
  return CORE(SIGNAL_WAIT_SCACQUIRE, hsa_signal_value_t(*)(hsa_signal_t, hsa_signal_condition_t, hsa_signal_value_t,
                                                           uint64_t, hsa_wait_state_t))(s, c, v, t, w);
}
EXPORT void hsa_signal_add_screlease(hsa_signal_t s, hsa_signal_value_t v) {
  CORE(SIGNAL_ADD_SCRELEASE, void (*)(hsa_signal_t, hsa_signal_value_t))(s, v);
}
EXPORT void hsa_signal_add_relaxed(hsa_signal_t s, hsa_signal_value_t v) {
  CORE(SIGNAL_ADD_RELAXED, void (*)(hsa_signal_t, hsa_signal_value_t))(s, v);
}
EXPORT void hsa_signal_subtract_screlease(hsa_signal_t s, hsa_signal_value_t v) {
  CORE(SIGNAL_SUBTRACT_SCRELEASE, void (*)(hsa_signal_t, hsa_signal_value_t))(s, v);
}
EXPORT hsa_status_t hsa_executable_create_alt(hsa_profile_t p, hsa_default_float_rounding_mode_t r, const char *o,
                                              hsa_executable_t *e) {
  return CORE(EXECUTABLE_CREATE_ALT, hsa_status_t(*)(hsa_profile_t, hsa_default_float_rounding_mode_t, const char *,
                                                     hsa_executable_t *))(p, r, o, e);
}
EXPORT hsa_status_t hsa_executable_destroy(hsa_executable_t e) {
  return CORE(EXECUTABLE_DESTROY, hsa_status_t(*)(hsa_executable_t))(e);
}
EXPORT hsa_status_t hsa_executable_load_agent_code_object(hsa_executable_t e, hsa_agent_t a,
                                                          hsa_code_object_reader_t r, const char *o,
                                                          hsa_loaded_code_object_t *l) {
  return CORE(EXECUTABLE_LOAD_AGENT_CODE_OBJECT,
              hsa_status_t(*)(hsa_executable_t, hsa_agent_t, hsa_code_object_reader_t, const char *,
                              hsa_loaded_code_object_t *))(e, a, r, o, l);
}
EXPORT hsa_status_t hsa_executable_load_program_code_object(hsa_executable_t e, hsa_code_object_reader_t r,
                                                            const char *o, hsa_loaded_code_object_t *l) {
  return CORE(EXECUTABLE_LOAD_PROGRAM_CODE_OBJECT,
              hsa_status_t(*)(hsa_executable_t, hsa_code_object_reader_t, const char *, hsa_loaded_code_object_t *))(
      e, r, o, l);
}
EXPORT hsa_status_t hsa_executable_freeze(hsa_executable_t e, const char *o) {
  return CORE(EXECUTABLE_FREEZE, hsa_status_t(*)(hsa_executable_t, const char *))(e, o);
}
EXPORT hsa_status_t hsa_executable_get_symbol_by_name(hsa_executable_t e, const char *n, const hsa_agent_t *a,
                                                      hsa_executable_symbol_t *s) {
  return CORE(EXECUTABLE_GET_SYMBOL_BY_NAME,
              hsa_status_t(*)(hsa_executable_t, const char *, const hsa_agent_t *, hsa_executable_symbol_t *))(e, n, a, s);
}
EXPORT hsa_status_t hsa_executable_symbol_get_info(hsa_executable_symbol_t s, hsa_executable_symbol_info_t at, void *v) {
  return CORE(EXECUTABLE_SYMBOL_GET_INFO, hsa_status_t(*)(hsa_executable_symbol_t, hsa_executable_symbol_info_t, void *))(
      s, at, v);
}
EXPORT hsa_status_t hsa_executable_iterate_symbols(hsa_executable_t e,
                                                   hsa_status_t (*cb)(hsa_executable_t, hsa_executable_symbol_t, void *),
                                                   void *d) {
  return CORE(EXECUTABLE_ITERATE_SYMBOLS,
              hsa_status_t(*)(hsa_executable_t, hsa_status_t(*)(hsa_executable_t, hsa_executable_symbol_t, void *),
                              void *))(e, cb, d);
}
EXPORT hsa_status_t hsa_code_object_reader_create_from_memory(const void *p, size_t n, hsa_code_object_reader_t *r) {
  return CORE(CODE_OBJECT_READER_CREATE_FROM_MEMORY, hsa_status_t(*)(const void *, size_t, hsa_code_object_reader_t *))(
      p, n, r);
}
EXPORT hsa_status_t hsa_code_object_reader_create_from_file(hsa_file_t f, hsa_code_object_reader_t *r) {
  return CORE(CODE_OBJECT_READER_CREATE_FROM_FILE, hsa_status_t(*)(hsa_file_t, hsa_code_object_reader_t *))(f, r);
}
EXPORT hsa_status_t hsa_code_object_reader_destroy(hsa_code_object_reader_t r) {
  return CORE(CODE_OBJECT_READER_DESTROY, hsa_status_t(*)(hsa_code_object_reader_t))(r);
}
EXPORT hsa_status_t hsa_status_string(hsa_status_t st, const char **s) {
  return CORE(STATUS_STRING, hsa_status_t(*)(hsa_status_t, const char **))(st, s);
}
EXPORT hsa_status_t hsa_amd_agent_iterate_memory_pools(hsa_agent_t a, hsa_status_t (*cb)(hsa_amd_memory_pool_t, void *),
                                                       void *d) {
  return AMDX(AMD_AGENT_ITERATE_MEMORY_POOLS,
              hsa_status_t(*)(hsa_agent_t, hsa_status_t(*)(hsa_amd_memory_pool_t, void *), void *))(a, cb, d);
}
EXPORT hsa_status_t hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t p, hsa_amd_memory_pool_info_t at, void *v) {
  return AMDX(AMD_MEMORY_POOL_GET_INFO, hsa_status_t(*)(hsa_amd_memory_pool_t, hsa_amd_memory_pool_info_t, void *))(p, at, v);
}
EXPORT hsa_status_t hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t p, size_t n, uint32_t f, void **ptr) {
  return AMDX(AMD_MEMORY_POOL_ALLOCATE, hsa_status_t(*)(hsa_amd_memory_pool_t, size_t, uint32_t, void **))(p, n, f, ptr);
}
EXPORT hsa_status_t hsa_amd_memory_pool_free(void *ptr) { return AMDX(AMD_MEMORY_POOL_FREE, hsa_status_t(*)(void *))(ptr); }
EXPORT hsa_status_t hsa_amd_agents_allow_access(uint32_t n, const hsa_agent_t *a, const uint32_t *f, const void *p) {
  return AMDX(AMD_AGENTS_ALLOW_ACCESS, hsa_status_t(*)(uint32_t, const hsa_agent_t *, const uint32_t *, const void *))(
      n, a, f, p);
}
EXPORT hsa_status_t hsa_amd_signal_create(hsa_signal_value_t v, uint32_t n, const hsa_agent_t *c, uint64_t at,
                                          hsa_signal_t *s) {
  return AMDX(AMD_SIGNAL_CREATE, hsa_status_t(*)(hsa_signal_value_t, uint32_t, const hsa_agent_t *, uint64_t, hsa_signal_t *))(
      v, n, c, at, s);
}
