/* shim.c: the C half of librocjitsu.so.
 *
 * OnLoad checks the table versions, copies the live CoreApiTable and
 * AmdExtTable (so every wrapper calls what was there before it: ROCR or an
 * earlier tool), asks Go for the policy (guest identity, translator) and
 * installs wrappers. Everything that runs per packet is here, in C: the
 * intercept-queue handler, the read-mostly kernel_object map and the
 * per-queue kernarg pools. Go is entered only on cold paths (OnLoad,
 * code-object load, freeze, destroy, OnUnload), never in a forked child, and
 * never from the handler.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ven_amd_loader.h>

#include "rocjitsu_hsa.h"
#include "shim.h"
#include "_cgo_export.h"

#define EXPORT __attribute__((visibility("default")))

/* ROCR >= 5.3 finds an LD_PRELOADed tool by this data symbol; lower loads
 * earlier (roctracer uses 50). */
EXPORT const uint32_t HSA_AMD_TOOL_PRIORITY = 25;

/* ------------------------------------------------------------------------ */
/* Process state                                                             */

static pid_t rj_pid;
static volatile int rj_forked;
static int rj_active;   /* OnLoad installed the wrappers */
static int rj_dispatch = 1;

static void rj_atfork_child(void) { rj_forked = 1; }

/* True in a forked child: never enter Go there (the Go runtime's threads did
 * not survive the fork). */
static int in_child(void) { return rj_forked || getpid() != rj_pid; }

/* ------------------------------------------------------------------------ */
/* Logging from C                                                            */

static int log_level = 1;
static int log_fd = 2;
static _Atomic int log_budget = 200; /* C-side lines, to keep a hot failure from flooding */

static void clog_(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void clog_(int level, const char *fmt, ...) {
  static const char *names[] = {"error", "warn", "info", "debug"};
  if (level > log_level || atomic_fetch_sub(&log_budget, 1) <= 0) return;
  char buf[1024];
  int n = snprintf(buf, sizeof buf, "rocjitsu[%d]: %s: ", (int)getpid(), names[level & 3]);
  va_list ap;
  va_start(ap, fmt);
  n += vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
  va_end(ap);
  if (n > (int)sizeof buf - 2) n = (int)sizeof buf - 2;
  buf[n++] = '\n';
  ssize_t w = write(log_fd, buf, (size_t)n);
  (void)w;
}

void rj_set_log(int level, int fd) {
  int old = log_fd;
  log_level = level;
  log_fd = fd;
  atomic_store(&log_budget, 200);
  if (old > 2 && old != fd) close(old);
}

void rj_set_dispatch(int on) { rj_dispatch = on; }

/* ------------------------------------------------------------------------ */
/* Saved tables                                                              */

static uint8_t saved_core[RJ_CORE_SIZE] __attribute__((aligned(16)));
static uint8_t saved_amd[RJ_AMD70_SIZE] __attribute__((aligned(16)));
static uint32_t amd_size;
static int amd56;
static void *live_core, *live_amd;

#define ORIG(name, type) ((type)RJ_SLOT(saved_core, RJ_CORE_##name))
#define AMD_OFF(name) (amd56 ? RJ_AMD70_##name : RJ_AMD52_##name)
#define ORIG_AMD(name, type) ((type)RJ_SLOT(saved_amd, AMD_OFF(name)))

/* Installs fn at off in a live table if the table has that slot. */
static void install(void *table, uint32_t size, size_t off, void *fn) {
  if (off + 8 <= size) __atomic_store_n((void **)((char *)table + off), fn, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------------------ */
/* Agents and the guest                                                      */

#define MAX_GPUS 16
static struct {
  hsa_agent_t agent;
  char isa[128];
  int guested;
  hsa_amd_memory_pool_t vram; /* coarse-grained device pool: virtual-LDS backing stores */
  int have_vram;
} gpus[MAX_GPUS];
static int ngpus;
static hsa_agent_t cpu_agent;
static hsa_amd_memory_pool_t kernarg_pool;
static int have_kernarg_pool;

static struct {
  int on;
  char name[64], isa[128], product[64];
  uint32_t lds, wave, waves_per_simd;
} guest;
static const char guest_isa_tag[] = "rocjitsu-guest-isa"; /* the guest's hsa_isa_t handle is this address */
#define GUEST_ISA_HANDLE ((uint64_t)(uintptr_t)guest_isa_tag)

void rj_set_guest(const char *name, const char *isa_name, const char *product, uint32_t lds, uint32_t wave,
                  uint32_t waves_per_simd) {
  snprintf(guest.name, sizeof guest.name, "%s", name);
  snprintf(guest.isa, sizeof guest.isa, "%s", isa_name);
  snprintf(guest.product, sizeof guest.product, "%s", product);
  guest.lds = lds;
  guest.wave = wave;
  guest.waves_per_simd = waves_per_simd;
  guest.on = 1;
  for (int i = 0; i < ngpus; i++) gpus[i].guested = 1;
}

static int gpu_index(hsa_agent_t a) {
  for (int i = 0; i < ngpus; i++)
    if (gpus[i].agent.handle == a.handle) return i;
  return -1;
}

static int guested(hsa_agent_t a) {
  int i = guest.on ? gpu_index(a) : -1;
  return i >= 0 && gpus[i].guested;
}

static hsa_status_t collect_isa(hsa_isa_t isa, void *data) {
  char *out = data;
  uint32_t len = 0;
  if (ORIG(ISA_GET_INFO_ALT, hsa_status_t(*)(hsa_isa_t, hsa_isa_info_t, void *))(isa, HSA_ISA_INFO_NAME_LENGTH, &len) !=
          HSA_STATUS_SUCCESS ||
      len == 0 || len >= 128)
    return HSA_STATUS_SUCCESS;
  char buf[128] = {0};
  if (ORIG(ISA_GET_INFO_ALT, hsa_status_t(*)(hsa_isa_t, hsa_isa_info_t, void *))(isa, HSA_ISA_INFO_NAME, buf) ==
          HSA_STATUS_SUCCESS &&
      !out[0])
    snprintf(out, 128, "%s", buf);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_kernarg_pool(hsa_amd_memory_pool_t p, void *data) {
  (void)data;
  hsa_amd_segment_t seg;
  uint32_t flags = 0;
  if (ORIG_AMD(AMD_MEMORY_POOL_GET_INFO, hsa_status_t(*)(hsa_amd_memory_pool_t, hsa_amd_memory_pool_info_t, void *))(
          p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg) != HSA_STATUS_SUCCESS ||
      seg != HSA_AMD_SEGMENT_GLOBAL)
    return HSA_STATUS_SUCCESS;
  ORIG_AMD(AMD_MEMORY_POOL_GET_INFO, hsa_status_t(*)(hsa_amd_memory_pool_t, hsa_amd_memory_pool_info_t, void *))(
      p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
  if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) && !have_kernarg_pool) {
    kernarg_pool = p;
    have_kernarg_pool = 1;
  }
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_vram_pool(hsa_amd_memory_pool_t p, void *data) {
  int *gi = data;
  hsa_amd_segment_t seg;
  uint32_t flags = 0;
  if (ORIG_AMD(AMD_MEMORY_POOL_GET_INFO, hsa_status_t(*)(hsa_amd_memory_pool_t, hsa_amd_memory_pool_info_t, void *))(
          p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg) != HSA_STATUS_SUCCESS ||
      seg != HSA_AMD_SEGMENT_GLOBAL)
    return HSA_STATUS_SUCCESS;
  ORIG_AMD(AMD_MEMORY_POOL_GET_INFO, hsa_status_t(*)(hsa_amd_memory_pool_t, hsa_amd_memory_pool_info_t, void *))(
      p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
  if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) && !gpus[*gi].have_vram) {
    gpus[*gi].vram = p;
    gpus[*gi].have_vram = 1;
  }
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t collect_agent(hsa_agent_t a, void *data) {
  (void)data;
  hsa_device_type_t t;
  if (ORIG(AGENT_GET_INFO, hsa_status_t(*)(hsa_agent_t, hsa_agent_info_t, void *))(a, HSA_AGENT_INFO_DEVICE, &t) !=
      HSA_STATUS_SUCCESS)
    return HSA_STATUS_SUCCESS;
  if (t == HSA_DEVICE_TYPE_CPU) {
    if (!cpu_agent.handle) cpu_agent = a;
    if (!have_kernarg_pool)
      ORIG_AMD(AMD_AGENT_ITERATE_MEMORY_POOLS,
               hsa_status_t(*)(hsa_agent_t, hsa_status_t(*)(hsa_amd_memory_pool_t, void *), void *))(a, find_kernarg_pool,
                                                                                                    NULL);
  } else if (t == HSA_DEVICE_TYPE_GPU && ngpus < MAX_GPUS) {
    gpus[ngpus].agent = a;
    gpus[ngpus].isa[0] = 0;
    gpus[ngpus].guested = 0;
    gpus[ngpus].have_vram = 0;
    int gi = ngpus;
    ORIG_AMD(AMD_AGENT_ITERATE_MEMORY_POOLS,
             hsa_status_t(*)(hsa_agent_t, hsa_status_t(*)(hsa_amd_memory_pool_t, void *), void *))(a, find_vram_pool,
                                                                                                  &gi);
    ORIG(AGENT_ITERATE_ISAS, hsa_status_t(*)(hsa_agent_t, hsa_status_t(*)(hsa_isa_t, void *), void *))(
        a, collect_isa, gpus[ngpus].isa);
    ngpus++;
  }
  return HSA_STATUS_SUCCESS;
}

/* Group-segment pools and regions of guested agents report the guest's LDS. */
#define MAX_GROUP 64
static uint64_t group_handles[MAX_GROUP];
static _Atomic int ngroup;

static void note_group(uint64_t h) {
  int n = atomic_load(&ngroup);
  for (int i = 0; i < n; i++)
    if (group_handles[i] == h) return;
  if (n < MAX_GROUP) {
    group_handles[n] = h;
    atomic_store(&ngroup, n + 1);
  }
}

static int is_group(uint64_t h) {
  int n = atomic_load(&ngroup);
  for (int i = 0; i < n; i++)
    if (group_handles[i] == h) return 1;
  return 0;
}

/* ------------------------------------------------------------------------ */
/* Identity wrappers (pure C; safe in a forked child)                        */

static hsa_status_t w_agent_get_info(hsa_agent_t a, hsa_agent_info_t attr, void *v) {
  hsa_status_t st = ORIG(AGENT_GET_INFO, hsa_status_t(*)(hsa_agent_t, hsa_agent_info_t, void *))(a, attr, v);
  if (st != HSA_STATUS_SUCCESS || !guested(a)) return st;
  switch ((int)attr) {
  case HSA_AGENT_INFO_NAME:
    memset(v, 0, 64);
    memcpy(v, guest.name, strlen(guest.name));
    break;
  case HSA_AMD_AGENT_INFO_PRODUCT_NAME:
    memset(v, 0, 64);
    memcpy(v, guest.product, strlen(guest.product));
    break;
  case HSA_AGENT_INFO_WAVEFRONT_SIZE: *(uint32_t *)v = guest.wave; break;
  case HSA_AGENT_INFO_ISA: ((hsa_isa_t *)v)->handle = GUEST_ISA_HANDLE; break;
  case HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU: {
    uint32_t simds = 0;
    if (ORIG(AGENT_GET_INFO, hsa_status_t(*)(hsa_agent_t, hsa_agent_info_t, void *))(
            a, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU, &simds) == HSA_STATUS_SUCCESS &&
        simds)
      *(uint32_t *)v = guest.waves_per_simd * simds;
    break;
  }
  default: break;
  }
  return st;
}

static hsa_status_t w_agent_iterate_isas(hsa_agent_t a, hsa_status_t (*cb)(hsa_isa_t, void *), void *data) {
  if (!guested(a) || !cb)
    return ORIG(AGENT_ITERATE_ISAS, hsa_status_t(*)(hsa_agent_t, hsa_status_t(*)(hsa_isa_t, void *), void *))(a, cb,
                                                                                                           data);
  hsa_status_t st = cb((hsa_isa_t){GUEST_ISA_HANDLE}, data);
  return st == HSA_STATUS_INFO_BREAK ? HSA_STATUS_SUCCESS : st;
}

static hsa_isa_t first_host_isa(void) {
  hsa_isa_t isa = {0};
  if (ngpus)
    ORIG(AGENT_GET_INFO, hsa_status_t(*)(hsa_agent_t, hsa_agent_info_t, void *))(gpus[0].agent, HSA_AGENT_INFO_ISA,
                                                                                 &isa);
  return isa;
}

static hsa_status_t w_isa_get_info_alt(hsa_isa_t isa, hsa_isa_info_t attr, void *v) {
  if (isa.handle == GUEST_ISA_HANDLE && guest.on) {
    if (attr == HSA_ISA_INFO_NAME_LENGTH) {
      *(uint32_t *)v = (uint32_t)strlen(guest.isa) + 1;
      return HSA_STATUS_SUCCESS;
    }
    if (attr == HSA_ISA_INFO_NAME) {
      memcpy(v, guest.isa, strlen(guest.isa) + 1);
      return HSA_STATUS_SUCCESS;
    }
    isa = first_host_isa(); /* other properties: the host's */
  }
  return ORIG(ISA_GET_INFO_ALT, hsa_status_t(*)(hsa_isa_t, hsa_isa_info_t, void *))(isa, attr, v);
}

static hsa_status_t w_isa_get_info(hsa_isa_t isa, hsa_isa_info_t attr, uint32_t index, void *v) {
  if (isa.handle == GUEST_ISA_HANDLE && guest.on) {
    if (index) return HSA_STATUS_ERROR_INVALID_INDEX;
    return w_isa_get_info_alt(isa, attr, v);
  }
  return ORIG(ISA_GET_INFO, hsa_status_t(*)(hsa_isa_t, hsa_isa_info_t, uint32_t, void *))(isa, attr, index, v);
}

static hsa_status_t w_isa_from_name(const char *name, hsa_isa_t *out) {
  if (guest.on && name && out && !strcmp(name, guest.isa)) {
    out->handle = GUEST_ISA_HANDLE;
    return HSA_STATUS_SUCCESS;
  }
  return ORIG(ISA_FROM_NAME, hsa_status_t(*)(const char *, hsa_isa_t *))(name, out);
}

/* The rest of the ISA API receives the guest handle too: answer for the
 * guest where the guest differs (wavefront size), else ask about the host
 * ISA. Never hand the runtime a handle it did not make. */
static hsa_isa_t host_for(hsa_isa_t isa) { return isa.handle == GUEST_ISA_HANDLE ? first_host_isa() : isa; }

static const char guest_wave_tag[] = "rocjitsu-guest-wavefront";
#define GUEST_WAVE_HANDLE ((uint64_t)(uintptr_t)guest_wave_tag)

static hsa_status_t w_isa_get_exception_policies(hsa_isa_t isa, hsa_profile_t profile, uint16_t *mask) {
  return ORIG(ISA_GET_EXCEPTION_POLICIES, hsa_status_t(*)(hsa_isa_t, hsa_profile_t, uint16_t *))(host_for(isa), profile,
                                                                                                 mask);
}

static hsa_status_t w_isa_get_round_method(hsa_isa_t isa, hsa_fp_type_t t, hsa_flush_mode_t f, hsa_round_method_t *m) {
  return ORIG(ISA_GET_ROUND_METHOD, hsa_status_t(*)(hsa_isa_t, hsa_fp_type_t, hsa_flush_mode_t, hsa_round_method_t *))(
      host_for(isa), t, f, m);
}

static hsa_status_t w_isa_iterate_wavefronts(hsa_isa_t isa, hsa_status_t (*cb)(hsa_wavefront_t, void *), void *data) {
  if (isa.handle == GUEST_ISA_HANDLE && guest.on && cb) {
    hsa_status_t st = cb((hsa_wavefront_t){GUEST_WAVE_HANDLE}, data);
    return st == HSA_STATUS_INFO_BREAK ? HSA_STATUS_SUCCESS : st;
  }
  return ORIG(ISA_ITERATE_WAVEFRONTS, hsa_status_t(*)(hsa_isa_t, hsa_status_t(*)(hsa_wavefront_t, void *), void *))(
      isa, cb, data);
}

static hsa_status_t w_wavefront_get_info(hsa_wavefront_t wf, hsa_wavefront_info_t attr, void *v) {
  if (wf.handle == GUEST_WAVE_HANDLE) {
    if (attr != HSA_WAVEFRONT_INFO_SIZE || !v) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *(uint32_t *)v = guest.wave;
    return HSA_STATUS_SUCCESS;
  }
  return ORIG(WAVEFRONT_GET_INFO, hsa_status_t(*)(hsa_wavefront_t, hsa_wavefront_info_t, void *))(wf, attr, v);
}

static hsa_status_t w_isa_compatible(hsa_isa_t code_isa, hsa_isa_t agent_isa, bool *result) {
  if (code_isa.handle == GUEST_ISA_HANDLE && agent_isa.handle == GUEST_ISA_HANDLE && result) {
    *result = true;
    return HSA_STATUS_SUCCESS;
  }
  return ORIG(ISA_COMPATIBLE, hsa_status_t(*)(hsa_isa_t, hsa_isa_t, bool *))(host_for(code_isa), host_for(agent_isa),
                                                                          result);
}

typedef struct pool_iter {
  hsa_status_t (*cb)(hsa_amd_memory_pool_t, void *);
  void *data;
} pool_iter;

static hsa_status_t note_pool(hsa_amd_memory_pool_t p, void *data) {
  pool_iter *it = data;
  hsa_amd_segment_t seg;
  if (ORIG_AMD(AMD_MEMORY_POOL_GET_INFO, hsa_status_t(*)(hsa_amd_memory_pool_t, hsa_amd_memory_pool_info_t, void *))(
          p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg) == HSA_STATUS_SUCCESS &&
      seg == HSA_AMD_SEGMENT_GROUP)
    note_group(p.handle);
  return it->cb(p, it->data);
}

static hsa_status_t w_iterate_pools(hsa_agent_t a, hsa_status_t (*cb)(hsa_amd_memory_pool_t, void *), void *data) {
  typedef hsa_status_t (*fn_t)(hsa_agent_t, hsa_status_t (*)(hsa_amd_memory_pool_t, void *), void *);
  if (!guested(a) || !cb) return ORIG_AMD(AMD_AGENT_ITERATE_MEMORY_POOLS, fn_t)(a, cb, data);
  pool_iter it = {cb, data};
  return ORIG_AMD(AMD_AGENT_ITERATE_MEMORY_POOLS, fn_t)(a, note_pool, &it);
}

static hsa_status_t w_pool_get_info(hsa_amd_memory_pool_t p, hsa_amd_memory_pool_info_t attr, void *v) {
  hsa_status_t st =
      ORIG_AMD(AMD_MEMORY_POOL_GET_INFO, hsa_status_t(*)(hsa_amd_memory_pool_t, hsa_amd_memory_pool_info_t, void *))(
          p, attr, v);
  if (st == HSA_STATUS_SUCCESS && attr == HSA_AMD_MEMORY_POOL_INFO_SIZE && guest.on && is_group(p.handle))
    *(size_t *)v = guest.lds;
  return st;
}

typedef struct region_iter {
  hsa_status_t (*cb)(hsa_region_t, void *);
  void *data;
} region_iter;

static hsa_status_t note_region(hsa_region_t r, void *data) {
  region_iter *it = data;
  hsa_region_segment_t seg;
  if (ORIG(REGION_GET_INFO, hsa_status_t(*)(hsa_region_t, hsa_region_info_t, void *))(r, HSA_REGION_INFO_SEGMENT,
                                                                                       &seg) == HSA_STATUS_SUCCESS &&
      seg == HSA_REGION_SEGMENT_GROUP)
    note_group(r.handle);
  return it->cb(r, it->data);
}

static hsa_status_t w_iterate_regions(hsa_agent_t a, hsa_status_t (*cb)(hsa_region_t, void *), void *data) {
  typedef hsa_status_t (*fn_t)(hsa_agent_t, hsa_status_t (*)(hsa_region_t, void *), void *);
  if (!guested(a) || !cb) return ORIG(AGENT_ITERATE_REGIONS, fn_t)(a, cb, data);
  region_iter it = {cb, data};
  return ORIG(AGENT_ITERATE_REGIONS, fn_t)(a, note_region, &it);
}

static hsa_status_t w_region_get_info(hsa_region_t r, hsa_region_info_t attr, void *v) {
  hsa_status_t st = ORIG(REGION_GET_INFO, hsa_status_t(*)(hsa_region_t, hsa_region_info_t, void *))(r, attr, v);
  if (st == HSA_STATUS_SUCCESS && attr == HSA_REGION_INFO_SIZE && guest.on && is_group(r.handle))
    *(size_t *)v = guest.lds;
  return st;
}

/* ------------------------------------------------------------------------ */
/* Code-object readers: remember the bytes behind each reader                */

typedef struct reader_rec {
  uint64_t handle;
  const void *data;
  size_t size;
  int owned;
  struct reader_rec *next;
} reader_rec;

static reader_rec *readers;
static pthread_mutex_t readers_mu = PTHREAD_MUTEX_INITIALIZER;

static void remember_reader(uint64_t h, const void *data, size_t size, int owned) {
  reader_rec *r = calloc(1, sizeof *r);
  if (!r) {
    if (owned) free((void *)data);
    return;
  }
  r->handle = h;
  r->data = data;
  r->size = size;
  r->owned = owned;
  pthread_mutex_lock(&readers_mu);
  r->next = readers;
  readers = r;
  pthread_mutex_unlock(&readers_mu);
}

static int find_reader(uint64_t h, const void **data, size_t *size) {
  int found = 0;
  pthread_mutex_lock(&readers_mu);
  for (reader_rec *r = readers; r; r = r->next)
    if (r->handle == h) {
      *data = r->data;
      *size = r->size;
      found = 1;
      break;
    }
  pthread_mutex_unlock(&readers_mu);
  return found;
}

static void forget_reader(uint64_t h) {
  pthread_mutex_lock(&readers_mu);
  for (reader_rec **p = &readers; *p; p = &(*p)->next)
    if ((*p)->handle == h) {
      reader_rec *r = *p;
      *p = r->next;
      if (r->owned) free((void *)r->data);
      free(r);
      break;
    }
  pthread_mutex_unlock(&readers_mu);
}

/* Reads size bytes at off of fd (size 0: to the end) without moving the
 * file offset. */
static void *read_fd(int fd, size_t off, size_t size, size_t *got_size) {
  if (size == 0) {
    struct stat sb;
    if (fstat(fd, &sb) || (size_t)sb.st_size <= off) return NULL;
    size = (size_t)sb.st_size - off;
  }
  if (size > ((size_t)1 << 31)) return NULL;
  uint8_t *buf = malloc(size);
  if (!buf) return NULL;
  size_t got = 0;
  while (got < size) {
    ssize_t n = pread(fd, buf + got, size - got, (off_t)(off + got));
    if (n <= 0) {
      free(buf);
      return NULL;
    }
    got += (size_t)n;
  }
  *got_size = size;
  return buf;
}

static hsa_status_t w_reader_from_memory(const void *p, size_t size, hsa_code_object_reader_t *out) {
  hsa_status_t st = ORIG(CODE_OBJECT_READER_CREATE_FROM_MEMORY,
                         hsa_status_t(*)(const void *, size_t, hsa_code_object_reader_t *))(p, size, out);
  if (st == HSA_STATUS_SUCCESS && rj_active && out) remember_reader(out->handle, p, size, 0);
  return st;
}

static hsa_status_t w_reader_from_file(hsa_file_t fd, hsa_code_object_reader_t *out) {
  hsa_status_t st =
      ORIG(CODE_OBJECT_READER_CREATE_FROM_FILE, hsa_status_t(*)(hsa_file_t, hsa_code_object_reader_t *))(fd, out);
  if (st == HSA_STATUS_SUCCESS && rj_active && out) {
    size_t n = 0;
    void *b = read_fd(fd, 0, 0, &n);
    if (b)
      remember_reader(out->handle, b, n, 1);
    else
      clog_(1, "cannot read the code object behind file reader %#lx: it will load untranslated",
            (unsigned long)out->handle);
  }
  return st;
}

typedef hsa_status_t (*file_off_fn)(hsa_file_t, size_t, size_t, hsa_code_object_reader_t *);
static file_off_fn orig_file_off;

static hsa_status_t w_reader_from_file_off(hsa_file_t fd, size_t off, size_t size, hsa_code_object_reader_t *out) {
  hsa_status_t st = orig_file_off(fd, off, size, out);
  if (st == HSA_STATUS_SUCCESS && rj_active && out) {
    size_t n = 0;
    void *b = read_fd(fd, off, size, &n);
    if (b)
      remember_reader(out->handle, b, n, 1);
    else
      clog_(1, "cannot read the code object behind file reader %#lx (offset %zu size %zu)", (unsigned long)out->handle,
            off, size);
  }
  return st;
}

static hsa_status_t w_reader_destroy(hsa_code_object_reader_t r) {
  hsa_status_t st = ORIG(CODE_OBJECT_READER_DESTROY, hsa_status_t(*)(hsa_code_object_reader_t))(r);
  forget_reader(r.handle);
  return st;
}

/* The loader extension is not in the API table: hand out a copy whose
 * create_from_file_with_offset_size is ours. */
static void patch_loader_table(uint16_t ext, uint16_t major, size_t len, void *table) {
  if (ext != HSA_EXTENSION_AMD_LOADER || major != 1 || !table) return;
  size_t off = offsetof(hsa_ven_amd_loader_1_02_pfn_t,
                        hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size);
  if (len < off + sizeof(void *)) return;
  file_off_fn *slot = (file_off_fn *)((char *)table + off);
  if (*slot && *slot != w_reader_from_file_off) {
    orig_file_off = *slot;
    *slot = w_reader_from_file_off;
  }
}

static hsa_status_t w_get_major_extension_table(uint16_t ext, uint16_t major, size_t len, void *table) {
  hsa_status_t st = ORIG(SYSTEM_GET_MAJOR_EXTENSION_TABLE, hsa_status_t(*)(uint16_t, uint16_t, size_t, void *))(
      ext, major, len, table);
  if (st == HSA_STATUS_SUCCESS && rj_active) patch_loader_table(ext, major, len, table);
  return st;
}

/* ------------------------------------------------------------------------ */
/* Code-object swap                                                          */

typedef struct owned_co {
  uint64_t exec;
  void *bytes;
  hsa_code_object_reader_t reader;
  struct owned_co *next;
} owned_co;

static owned_co *owned;
static pthread_mutex_t owned_mu = PTHREAD_MUTEX_INITIALIZER;

typedef hsa_status_t (*load_agent_fn)(hsa_executable_t, hsa_agent_t, hsa_code_object_reader_t, const char *,
                                      hsa_loaded_code_object_t *);
typedef hsa_status_t (*load_program_fn)(hsa_executable_t, hsa_code_object_reader_t, const char *,
                                        hsa_loaded_code_object_t *);

/* Asks Go to translate the reader's bytes for agent gi. On success returns a
 * new reader over the translated bytes (kept until executable destroy). */
static int swap_reader(hsa_executable_t exec, int gi, hsa_code_object_reader_t r, hsa_code_object_reader_t *nr,
                       uint64_t *load_id) {
  const void *data;
  size_t size;
  if (!find_reader(r.handle, &data, &size)) {
    clog_(2, "reader %#lx: bytes unknown (created before rocjitsu was loaded?); loading untranslated",
          (unsigned long)r.handle);
    return 0;
  }
  void *out = NULL;
  size_t out_size = 0;
  uint64_t id = 0;
  int ok = rjGoTranslate(exec.handle, gpus[gi].agent.handle, (void *)data, size, gpus[gi].isa, &out, &out_size, &id);
  if (!ok || !out) return 0;
  if (ORIG(CODE_OBJECT_READER_CREATE_FROM_MEMORY, hsa_status_t(*)(const void *, size_t, hsa_code_object_reader_t *))(
          out, out_size, nr) != HSA_STATUS_SUCCESS) {
    clog_(1, "cannot create a reader over the translated code object; loading untranslated");
    free(out);
    rjGoLoadResult(id, 0);
    return 0;
  }
  owned_co *o = calloc(1, sizeof *o);
  if (o) {
    o->exec = exec.handle;
    o->bytes = out;
    o->reader = *nr;
    pthread_mutex_lock(&owned_mu);
    o->next = owned;
    owned = o;
    pthread_mutex_unlock(&owned_mu);
  }
  *load_id = id;
  return 1;
}

static void drop_owned(uint64_t exec, void *bytes) {
  pthread_mutex_lock(&owned_mu);
  for (owned_co **p = &owned; *p;) {
    owned_co *o = *p;
    if (o->exec == exec && (!bytes || o->bytes == bytes)) {
      *p = o->next;
      ORIG(CODE_OBJECT_READER_DESTROY, hsa_status_t(*)(hsa_code_object_reader_t))(o->reader);
      free(o->bytes);
      free(o);
    } else {
      p = &o->next;
    }
  }
  pthread_mutex_unlock(&owned_mu);
}

static hsa_status_t load_swapped(hsa_executable_t exec, int gi, hsa_code_object_reader_t r, const char *opts,
                                 hsa_loaded_code_object_t *loaded, int program) {
  hsa_code_object_reader_t nr;
  uint64_t id = 0;
  const void *data;
  size_t size;
  /* An image that points outside itself would make the runtime's loader
   * read past its end: refuse it with an HSA error instead. */
  if (find_reader(r.handle, &data, &size) && !rjGoCheckBounds((void *)data, size))
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  if (swap_reader(exec, gi, r, &nr, &id)) {
    hsa_status_t st = program ? ORIG(EXECUTABLE_LOAD_PROGRAM_CODE_OBJECT, load_program_fn)(exec, nr, opts, loaded)
                              : ORIG(EXECUTABLE_LOAD_AGENT_CODE_OBJECT, load_agent_fn)(exec, gpus[gi].agent, nr, opts,
                                                                                      loaded);
    if (st == HSA_STATUS_SUCCESS) {
      rjGoLoadResult(id, 1);
      return st;
    }
    clog_(1, "the runtime refused the translated code object (status %#x); loading the original", st);
    rjGoLoadResult(id, 0);
    pthread_mutex_lock(&owned_mu);
    void *bytes = NULL;
    for (owned_co *o = owned; o; o = o->next)
      if (o->reader.handle == nr.handle) bytes = o->bytes;
    pthread_mutex_unlock(&owned_mu);
    if (bytes) drop_owned(exec.handle, bytes);
  }
  return program ? ORIG(EXECUTABLE_LOAD_PROGRAM_CODE_OBJECT, load_program_fn)(exec, r, opts, loaded)
                 : ORIG(EXECUTABLE_LOAD_AGENT_CODE_OBJECT, load_agent_fn)(exec, gpus[gi].agent, r, opts, loaded);
}

static hsa_status_t w_load_agent(hsa_executable_t exec, hsa_agent_t a, hsa_code_object_reader_t r, const char *opts,
                                 hsa_loaded_code_object_t *loaded) {
  int gi = gpu_index(a);
  if (!rj_active || in_child() || gi < 0)
    return ORIG(EXECUTABLE_LOAD_AGENT_CODE_OBJECT, load_agent_fn)(exec, a, r, opts, loaded);
  return load_swapped(exec, gi, r, opts, loaded, 0);
}

static hsa_status_t w_load_program(hsa_executable_t exec, hsa_code_object_reader_t r, const char *opts,
                                   hsa_loaded_code_object_t *loaded) {
  if (!rj_active || in_child() || ngpus == 0)
    return ORIG(EXECUTABLE_LOAD_PROGRAM_CODE_OBJECT, load_program_fn)(exec, r, opts, loaded);
  return load_swapped(exec, 0, r, opts, loaded, 1);
}

int rj_kernel_object(uint64_t exec, uint64_t agent, const char *name, uint64_t *kobj) {
  typedef hsa_status_t (*by_name_fn)(hsa_executable_t, const char *, const hsa_agent_t *, hsa_executable_symbol_t *);
  hsa_executable_symbol_t sym;
  hsa_agent_t a = {agent};
  /* Agent symbols first; program code objects' symbols have no agent. */
  if (ORIG(EXECUTABLE_GET_SYMBOL_BY_NAME, by_name_fn)((hsa_executable_t){exec}, name, agent ? &a : NULL, &sym) !=
          HSA_STATUS_SUCCESS &&
      (!agent ||
       ORIG(EXECUTABLE_GET_SYMBOL_BY_NAME, by_name_fn)((hsa_executable_t){exec}, name, NULL, &sym) != HSA_STATUS_SUCCESS))
    return -1;
  if (ORIG(EXECUTABLE_SYMBOL_GET_INFO, hsa_status_t(*)(hsa_executable_symbol_t, hsa_executable_symbol_info_t, void *))(
          sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, kobj) != HSA_STATUS_SUCCESS)
    return -2;
  return 0;
}

/* ------------------------------------------------------------------------ */
/* The kernel_object map: read-mostly, lock-free readers                     */

typedef struct rj_entry {
  uint64_t kobj; /* 0 = empty */
  uint64_t exec;
  uint64_t new_kobj;
  uint32_t group_add;
  uint32_t private_min;
  uint32_t kernarg_size;
  uint32_t copy_size;
  uint32_t ptr_offset;
  uint32_t payload_len;
  int group_zero;
  uint8_t *payload;
  rj_vlds vlds;
} rj_entry;

typedef struct rj_table {
  size_t cap; /* power of two */
  size_t count;
  rj_entry slots[];
} rj_table;

static _Atomic(rj_table *) rj_map;
static pthread_mutex_t map_mu = PTHREAD_MUTEX_INITIALIZER;

static inline size_t mhash(uint64_t k, size_t cap) { return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1); }

static inline const rj_entry *map_get(const rj_table *t, uint64_t kobj) {
  for (size_t i = mhash(kobj, t->cap), n = 0; n < t->cap; i = (i + 1) & (t->cap - 1), n++) {
    if (t->slots[i].kobj == kobj) return &t->slots[i];
    if (t->slots[i].kobj == 0) return NULL;
  }
  return NULL;
}

static void table_insert(rj_table *t, const rj_entry *e) {
  for (size_t i = mhash(e->kobj, t->cap);; i = (i + 1) & (t->cap - 1))
    if (t->slots[i].kobj == 0 || t->slots[i].kobj == e->kobj) {
      if (t->slots[i].kobj == 0) t->count++;
      t->slots[i] = *e;
      return;
    }
}

/* Builds a new table from the old one (minus entries of drop_exec, plus e)
 * and publishes it. Old tables are not freed: a reader may still hold one,
 * and there are as many as there are freezes and destroys. */
static void map_rebuild(const rj_entry *e, uint64_t drop_exec) {
  pthread_mutex_lock(&map_mu);
  rj_table *old = atomic_load(&rj_map);
  size_t need = (old ? old->count : 0) + 1;
  size_t cap = 16;
  while (cap < need * 2) cap <<= 1;
  rj_table *t = calloc(1, sizeof(rj_table) + cap * sizeof(rj_entry));
  if (!t) {
    pthread_mutex_unlock(&map_mu);
    clog_(0, "out of memory building the dispatch map");
    return;
  }
  t->cap = cap;
  if (old)
    for (size_t i = 0; i < old->cap; i++)
      if (old->slots[i].kobj && (!drop_exec || old->slots[i].exec != drop_exec)) table_insert(t, &old->slots[i]);
  if (e) table_insert(t, e);
  atomic_store_explicit(&rj_map, t, memory_order_release);
  pthread_mutex_unlock(&map_mu);
}

void rj_map_put(uint64_t exec, uint64_t kobj, uint64_t new_kobj, uint32_t group_add, int group_zero,
                uint32_t private_min, uint32_t kernarg_size, uint32_t copy_size, uint32_t ptr_offset,
                const void *payload, uint32_t payload_len, const rj_vlds *vlds) {
  rj_entry e = {.kobj = kobj,
                .exec = exec,
                .new_kobj = new_kobj,
                .group_add = group_add,
                .private_min = private_min,
                .kernarg_size = kernarg_size,
                .copy_size = copy_size,
                .ptr_offset = ptr_offset,
                .payload_len = payload_len,
                .group_zero = group_zero};
  if (vlds) e.vlds = *vlds;
  if (payload_len) {
    e.payload = malloc(payload_len);
    if (!e.payload) return;
    memcpy(e.payload, payload, payload_len);
  }
  map_rebuild(&e, 0);
}

uint64_t rj_map_count(void) {
  rj_table *t = atomic_load(&rj_map);
  return t ? t->count : 0;
}

/* ------------------------------------------------------------------------ */
/* Queues, kernarg pools and the intercept handler                           */

#define POOL_SLOTS 256
#define SLOT_BYTES 4096
#define RETIRE_BASE ((int64_t)1 << 62)

typedef struct qstate {
  hsa_queue_t *queue;
  uint8_t *pool; /* POOL_SLOTS * SLOT_BYTES, allocated on first rewrite */
  int pool_failed;
  uint64_t issued; /* slots handed out; guarded by the runtime's queue lock */
  /* Per-queue counters (same lock): no shared cache line on the packet path. */
  uint64_t rewritten, passed, fallbacks, pool_waits, vlds;
  hsa_signal_t retire;
  int gpu; /* index in gpus[] of the queue's agent */
  /* Virtual-LDS backing store (grown, never shrunk); replaced stores are
   * freed with the queue, since a dispatch may still be using them. */
  void *vlds_buf;
  size_t vlds_cap;
  void **vlds_old;
  size_t vlds_nold;
  struct qstate *next;
} qstate;

static qstate *qstates;
static pthread_mutex_t qstates_mu = PTHREAD_MUTEX_INITIALIZER;
/* Totals of queues already destroyed; live queues are summed on request. */
static uint64_t c_rewritten, c_passed, c_pool_waits, c_fallbacks, c_vlds;

void rj_get_counters(rj_counters *out) {
  pthread_mutex_lock(&qstates_mu);
  out->rewritten = c_rewritten;
  out->passed = c_passed;
  out->pool_waits = c_pool_waits;
  out->fallbacks = c_fallbacks;
  out->vlds = c_vlds;
  for (qstate *q = qstates; q; q = q->next) {
    out->vlds += __atomic_load_n(&q->vlds, __ATOMIC_RELAXED);
    out->rewritten += __atomic_load_n(&q->rewritten, __ATOMIC_RELAXED);
    out->passed += __atomic_load_n(&q->passed, __ATOMIC_RELAXED);
    out->pool_waits += __atomic_load_n(&q->pool_waits, __ATOMIC_RELAXED);
    out->fallbacks += __atomic_load_n(&q->fallbacks, __ATOMIC_RELAXED);
  }
  pthread_mutex_unlock(&qstates_mu);
}

/* Called with qstates_mu held when a queue goes away. */
static void retire_counters(qstate *q) {
  c_rewritten += q->rewritten;
  c_passed += q->passed;
  c_pool_waits += q->pool_waits;
  c_fallbacks += q->fallbacks;
  c_vlds += q->vlds;
}

#define BUMP(q, field, n) __atomic_store_n(&(q)->field, (q)->field + (n), __ATOMIC_RELAXED)

static int pool_init(qstate *qs) {
  if (qs->pool) return 1;
  if (qs->pool_failed || !have_kernarg_pool) return 0;
  void *p = NULL;
  if (ORIG_AMD(AMD_MEMORY_POOL_ALLOCATE, hsa_status_t(*)(hsa_amd_memory_pool_t, size_t, uint32_t, void **))(
          kernarg_pool, (size_t)POOL_SLOTS * SLOT_BYTES, 0, &p) != HSA_STATUS_SUCCESS ||
      !p) {
    qs->pool_failed = 1;
    clog_(0, "cannot allocate the kernarg pool for queue %lu: its dispatches pass through unchanged",
          (unsigned long)qs->queue->id);
    return 0;
  }
  hsa_agent_t ags[MAX_GPUS];
  for (int i = 0; i < ngpus; i++) ags[i] = gpus[i].agent;
  ORIG_AMD(AMD_AGENTS_ALLOW_ACCESS, hsa_status_t(*)(uint32_t, const hsa_agent_t *, const uint32_t *, const void *))(
      (uint32_t)ngpus, ags, NULL, p);
  qs->pool = p;
  return 1;
}

/* Slots retire in batches: after every RETIRE_BATCH-th slot the handler
 * appends a barrier-AND (barrier bit set, so it completes only after every
 * earlier packet of the queue) whose completion decrements the queue's retire
 * signal. One completed barrier frees RETIRE_BATCH slots. */
#define RETIRE_BATCH 16

/* A free kernarg slot: slot i may be reused once slot i - POOL_SLOTS has
 * retired, i.e. once (i - POOL_SLOTS) / RETIRE_BATCH + 1 barriers have
 * completed. That barrier was appended long before (POOL_SLOTS >
 * RETIRE_BATCH), so the wait always ends. */
static uint8_t *pool_next(qstate *qs) {
  uint64_t i = qs->issued;
  if (i >= POOL_SLOTS) {
    uint64_t need = (i - POOL_SLOTS) / RETIRE_BATCH + 1;
    int waited = 0;
    struct timespec t0, t;
    for (;;) {
      int64_t v = ORIG(SIGNAL_LOAD_SCACQUIRE, hsa_signal_value_t(*)(hsa_signal_t))(qs->retire);
      if ((uint64_t)(RETIRE_BASE - v) >= need) break;
      if (!waited) {
        waited = 1;
        BUMP(qs, pool_waits, 1);
        clock_gettime(CLOCK_MONOTONIC, &t0);
      }
      sched_yield();
      clock_gettime(CLOCK_MONOTONIC, &t);
      if (t.tv_sec - t0.tv_sec > 2) {
        clog_(1, "queue %lu: kernarg pool still full after 2 s; passing a dispatch through unchanged",
              (unsigned long)qs->queue->id);
        return NULL;
      }
    }
  }
  qs->issued = i + 1;
  return qs->pool + (i % POOL_SLOTS) * SLOT_BYTES;
}

#define PKT_TYPE(h) ((h) & 0xff)

/* The queue's backing store of at least size bytes, or NULL. */
static void *vlds_backing(qstate *qs, uint64_t size) {
  if (qs->vlds_buf && qs->vlds_cap >= size) return qs->vlds_buf;
  if (qs->gpu < 0 || !gpus[qs->gpu].have_vram) return NULL;
  uint64_t cap = size > 2 * (uint64_t)qs->vlds_cap ? size : 2 * (uint64_t)qs->vlds_cap;
  void **old = NULL;
  if (qs->vlds_buf) {
    old = realloc(qs->vlds_old, (qs->vlds_nold + 1) * sizeof *old);
    if (!old) return NULL;
    qs->vlds_old = old;
  }
  void *p = NULL;
  if (ORIG_AMD(AMD_MEMORY_POOL_ALLOCATE, hsa_status_t(*)(hsa_amd_memory_pool_t, size_t, uint32_t, void **))(
          gpus[qs->gpu].vram, (size_t)cap, 0, &p) != HSA_STATUS_SUCCESS ||
      !p)
    return NULL;
  if (qs->vlds_buf) qs->vlds_old[qs->vlds_nold++] = qs->vlds_buf;
  qs->vlds_buf = p;
  qs->vlds_cap = (size_t)cap;
  return p;
}

/* Builds the sidecar dispatch of p into out (and a retire barrier); returns
 * the number of packets, or 0 with *why set. The sidecar packet has the
 * barrier bit: it starts after every earlier packet of the queue has
 * completed, so two sidecar dispatches never share the backing store. */
static uint64_t vlds_packet(qstate *qs, const hsa_kernel_dispatch_packet_t *p, const rj_vlds *v, uint32_t req,
                            hsa_kernel_dispatch_packet_t *out, const char **why) {
  uint32_t grid[3] = {p->grid_size_x, p->grid_size_y, p->grid_size_z};
  uint32_t wg[3] = {p->workgroup_size_x, p->workgroup_size_y, p->workgroup_size_z};
  uint64_t stride = ((uint64_t)req + 255) & ~(uint64_t)255, n = 1;
  uint32_t strides[3];
  for (int d = 0; d < 3; d++) {
    if (!grid[d] || !wg[d]) {
      *why = "zero grid or workgroup size";
      return 0;
    }
    uint64_t groups = (grid[d] + (uint64_t)wg[d] - 1) / wg[d];
    strides[d] = 0;
    if (groups > 1) {
      if (!(v->flags & (1u << d))) {
        *why = "several workgroups in a dimension whose workgroup ID the sidecar does not read";
        return 0;
      }
      if (n * stride > UINT32_MAX) {
        *why = "a workgroup stride exceeds 32 bits";
        return 0;
      }
      strides[d] = (uint32_t)(n * stride);
    }
    n *= groups;
  }
  if (n > ((uint64_t)1 << 40) / stride) {
    *why = "the backing store would exceed 1 TiB";
    return 0;
  }
  if (v->wrapper_size > SLOT_BYTES || v->state_offset + 24 > v->wrapper_size || v->ptr_offset + 8 > v->wrapper_size ||
      v->prefix > v->ptr_offset) {
    *why = "bad wrapper layout";
    return 0;
  }
  void *backing = vlds_backing(qs, n * stride);
  if (!backing) {
    *why = "cannot allocate the backing store";
    return 0;
  }
  uint8_t *slot = pool_init(qs) ? pool_next(qs) : NULL;
  if (!slot) {
    *why = "no kernarg slot";
    return 0;
  }
  const uint8_t *orig = p->kernarg_address;
  memset(slot, 0, v->wrapper_size);
  if (orig && v->prefix) memcpy(slot, orig, v->prefix);
  uint64_t op = (uint64_t)(uintptr_t)orig, bb = (uint64_t)(uintptr_t)backing;
  memcpy(slot + v->ptr_offset, &op, 8);
  memcpy(slot + v->state_offset, &bb, 8);
  memcpy(slot + v->state_offset + 8, strides, 12);
  out[0] = *p;
  out[0].header |= (uint16_t)(1 << HSA_PACKET_HEADER_BARRIER);
  out[0].kernel_object = v->kobj;
  out[0].group_segment_size = 0;
  if (out[0].private_segment_size < v->private_size) out[0].private_segment_size = v->private_size;
  out[0].kernarg_address = slot;
  uint64_t nout = 1;
  if (qs->issued % RETIRE_BATCH == 0) {
    hsa_barrier_and_packet_t *b = (hsa_barrier_and_packet_t *)&out[1];
    memset(b, 0, sizeof *b);
    b->header = (uint16_t)((HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER) |
                           (HSA_FENCE_SCOPE_NONE << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                           (HSA_FENCE_SCOPE_NONE << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
    b->completion_signal = qs->retire;
    nout = 2;
  }
  return nout;
}

static void rj_handler(const void *pkts, uint64_t n, uint64_t user_idx, void *data, rj_intercept_packet_writer writer) {
  (void)user_idx;
  rj_table *t = atomic_load_explicit(&rj_map, memory_order_acquire);
  if (!t || !t->count || !rj_dispatch) {
    BUMP((qstate *)data, passed, n);
    writer(pkts, n);
    return;
  }
  qstate *qs = data;
  const hsa_kernel_dispatch_packet_t *in = pkts;
  for (uint64_t k = 0; k < n; k++) {
    const hsa_kernel_dispatch_packet_t *p = &in[k];
    const rj_entry *e = PKT_TYPE(p->header) == HSA_PACKET_TYPE_KERNEL_DISPATCH ? map_get(t, p->kernel_object) : NULL;
    if (!e) {
      BUMP(qs, passed, 1);
      writer(p, 1);
      continue;
    }
    hsa_kernel_dispatch_packet_t out[2];
    if (e->vlds.kobj) {
      uint32_t req = p->group_segment_size > e->vlds.static_lds ? p->group_segment_size : e->vlds.static_lds;
      if (req > e->vlds.host_lds) {
        const char *why = "";
        uint64_t nv = vlds_packet(qs, p, &e->vlds, req, out, &why);
        if (nv) {
          BUMP(qs, rewritten, 1);
          BUMP(qs, vlds, 1);
          writer(out, nv);
          continue;
        }
        BUMP(qs, fallbacks, 1);
        clog_(1, "kernel_object %#lx asks for %u bytes of LDS (host %u) but its virtual-LDS sidecar cannot run (%s): "
                 "dispatching the normal kernel, which may fault",
              (unsigned long)p->kernel_object, req, e->vlds.host_lds, why);
      }
    }
    if (!e->new_kobj && !e->group_add && !e->group_zero && !e->private_min && !e->kernarg_size) {
      BUMP(qs, passed, 1);
      writer(p, 1);
      continue;
    }
    out[0] = *p;
    uint64_t nout = 1;
    if (e->new_kobj) out[0].kernel_object = e->new_kobj;
    if (e->group_zero)
      out[0].group_segment_size = 0;
    else
      out[0].group_segment_size += e->group_add;
    if (out[0].private_segment_size < e->private_min) out[0].private_segment_size = e->private_min;
    if (e->kernarg_size) {
      uint8_t *slot = pool_init(qs) ? pool_next(qs) : NULL;
      if (!slot) {
        BUMP(qs, fallbacks, 1);
        writer(p, 1);
        continue;
      }
      const uint8_t *orig = p->kernarg_address;
      if (orig && e->copy_size) memcpy(slot, orig, e->copy_size);
      if (e->kernarg_size > e->copy_size) memset(slot + e->copy_size, 0, e->kernarg_size - e->copy_size);
      if (e->ptr_offset != UINT32_MAX) {
        uint64_t op = (uint64_t)(uintptr_t)orig;
        memcpy(slot + e->ptr_offset, &op, 8);
        if (e->payload_len) memcpy(slot + e->ptr_offset + 8, e->payload, e->payload_len);
      }
      out[0].kernarg_address = slot;
      if (qs->issued % RETIRE_BATCH == 0) {
        hsa_barrier_and_packet_t *b = (hsa_barrier_and_packet_t *)&out[1];
        memset(b, 0, sizeof *b);
        b->header = (uint16_t)((HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE) |
                               (1 << HSA_PACKET_HEADER_BARRIER) |
                               (HSA_FENCE_SCOPE_NONE << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                               (HSA_FENCE_SCOPE_NONE << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
        b->completion_signal = qs->retire;
        nout = 2;
      }
    }
    BUMP(qs, rewritten, 1);
    writer(out, nout);
  }
}

typedef hsa_status_t (*queue_create_fn)(hsa_agent_t, uint32_t, hsa_queue_type32_t,
                                        void (*)(hsa_status_t, hsa_queue_t *, void *), void *, uint32_t, uint32_t,
                                        hsa_queue_t **);

static qstate *qstate_new(void) {
  qstate *qs = calloc(1, sizeof *qs);
  if (!qs) return NULL;
  if (ORIG(SIGNAL_CREATE, hsa_status_t(*)(hsa_signal_value_t, uint32_t, const hsa_agent_t *, hsa_signal_t *))(
          RETIRE_BASE, 0, NULL, &qs->retire) != HSA_STATUS_SUCCESS) {
    free(qs);
    return NULL;
  }
  return qs;
}

static void qstate_free(qstate *qs) {
  if (qs->pool) ORIG_AMD(AMD_MEMORY_POOL_FREE, hsa_status_t(*)(void *))(qs->pool);
  if (qs->vlds_buf) ORIG_AMD(AMD_MEMORY_POOL_FREE, hsa_status_t(*)(void *))(qs->vlds_buf);
  for (size_t i = 0; i < qs->vlds_nold; i++) ORIG_AMD(AMD_MEMORY_POOL_FREE, hsa_status_t(*)(void *))(qs->vlds_old[i]);
  free(qs->vlds_old);
  ORIG(SIGNAL_DESTROY, hsa_status_t(*)(hsa_signal_t))(qs->retire);
  free(qs);
}

static hsa_status_t w_queue_create(hsa_agent_t a, uint32_t size, hsa_queue_type32_t type,
                                   void (*cb)(hsa_status_t, hsa_queue_t *, void *), void *data, uint32_t priv,
                                   uint32_t group, hsa_queue_t **out) {
  queue_create_fn prev = ORIG(QUEUE_CREATE, queue_create_fn);
  hsa_status_t st = prev(a, size, type, cb, data, priv, group, out);
  if (st != HSA_STATUS_SUCCESS || !rj_active || !rj_dispatch || gpu_index(a) < 0 || !out || !*out) return st;
  qstate *qs = qstate_new();
  if (!qs) return st;
  qs->gpu = gpu_index(a);
  rj_queue_intercept_register_fn reg = ORIG_AMD(AMD_QUEUE_INTERCEPT_REGISTER, rj_queue_intercept_register_fn);
  rj_queue_intercept_create_fn create = ORIG_AMD(AMD_QUEUE_INTERCEPT_CREATE, rj_queue_intercept_create_fn);
  if (reg(*out, rj_handler, qs) != HSA_STATUS_SUCCESS) {
    /* A plain queue: replace it by an intercept queue. */
    hsa_queue_t *plain = *out;
    hsa_queue_t *iq = NULL;
    if (create(a, size, type, cb, data, priv, group, &iq) != HSA_STATUS_SUCCESS || !iq ||
        reg(iq, rj_handler, qs) != HSA_STATUS_SUCCESS) {
      clog_(1, "cannot create an intercept queue; queue %lu runs without dispatch rewriting",
            (unsigned long)plain->id);
      if (iq) ORIG(QUEUE_DESTROY, hsa_status_t(*)(hsa_queue_t *))(iq);
      qstate_free(qs);
      return st;
    }
    ORIG(QUEUE_DESTROY, hsa_status_t(*)(hsa_queue_t *))(plain);
    *out = iq;
  }
  qs->queue = *out;
  pthread_mutex_lock(&qstates_mu);
  qs->next = qstates;
  qstates = qs;
  pthread_mutex_unlock(&qstates_mu);
  clog_(3, "queue %lu: intercept handler installed", (unsigned long)(*out)->id);
  return st;
}

static hsa_status_t w_queue_destroy(hsa_queue_t *q) {
  hsa_status_t st = ORIG(QUEUE_DESTROY, hsa_status_t(*)(hsa_queue_t *))(q);
  qstate *found = NULL;
  pthread_mutex_lock(&qstates_mu);
  for (qstate **p = &qstates; *p; p = &(*p)->next)
    if ((*p)->queue == q) {
      found = *p;
      *p = found->next;
      retire_counters(found);
      break;
    }
  pthread_mutex_unlock(&qstates_mu);
  if (found) qstate_free(found);
  return st;
}

/* ------------------------------------------------------------------------ */
/* Executables                                                               */

static hsa_status_t w_freeze(hsa_executable_t exec, const char *opts) {
  hsa_status_t st = ORIG(EXECUTABLE_FREEZE, hsa_status_t(*)(hsa_executable_t, const char *))(exec, opts);
  if (st == HSA_STATUS_SUCCESS && rj_active && !in_child()) rjGoFreeze(exec.handle);
  return st;
}

static hsa_status_t w_exec_destroy(hsa_executable_t exec) {
  if (rj_active && atomic_load(&rj_map)) map_rebuild(NULL, exec.handle);
  hsa_status_t st = ORIG(EXECUTABLE_DESTROY, hsa_status_t(*)(hsa_executable_t))(exec);
  drop_owned(exec.handle, NULL);
  if (rj_active && !in_child()) rjGoDestroy(exec.handle);
  return st;
}

/* ------------------------------------------------------------------------ */
/* OnLoad / OnUnload                                                         */

static void reset_state(void) {
  pthread_mutex_lock(&qstates_mu);
  c_rewritten = c_passed = c_pool_waits = c_fallbacks = 0;
  pthread_mutex_unlock(&qstates_mu);
  ngpus = 0;
  cpu_agent.handle = 0;
  have_kernarg_pool = 0;
  memset(&guest, 0, sizeof guest);
  atomic_store(&ngroup, 0);
  atomic_store(&rj_map, NULL);
  rj_active = 0;
}

EXPORT bool OnLoad(void *table, uint64_t runtime_version, uint64_t failed_tool_count,
                   const char *const *failed_tool_names) {
  (void)failed_tool_count;
  (void)failed_tool_names;
  static int atfork_done;
  rj_pid = getpid();
  rj_forked = 0;
  if (!atfork_done) {
    atfork_done = 1;
    pthread_atfork(NULL, NULL, rj_atfork_child);
  }
  reset_state();
  rj_hsa_api_table *root = table;
  char why[256] = "";
  /* Our own Go runtime's C symbols are hidden by the version script, so a
   * visible one belongs to another Go runtime in the process: two Go
   * runtimes in one process are unsupported. */
  void *other_go = dlsym(RTLD_DEFAULT, "_cgo_wait_runtime_init_done");
  if (other_go)
    snprintf(why, sizeof why, "another Go runtime is loaded in this process (two Go runtimes are not supported)");
  else if (!root)
    snprintf(why, sizeof why, "no table");
  else if (root->version.major_id < 1 || root->version.major_id > 3)
    snprintf(why, sizeof why, "HsaApiTable major %u is not one rocjitsu knows (1-3)", root->version.major_id);
  else if (root->version.minor_id < 48)
    snprintf(why, sizeof why, "HsaApiTable size %u is below 48", root->version.minor_id);
  else if (!root->core || !root->amd_ext)
    snprintf(why, sizeof why, "the core or AMD extension table is missing");
  else if (RJ_VERSION(root->core)->major_id < 1 || RJ_VERSION(root->core)->major_id > 2)
    snprintf(why, sizeof why, "CoreApiTable major %u is not one rocjitsu knows (1-2)", RJ_VERSION(root->core)->major_id);
  else if (RJ_VERSION(root->core)->minor_id < RJ_CORE_SIZE)
    snprintf(why, sizeof why, "CoreApiTable size %u is below %d", RJ_VERSION(root->core)->minor_id, RJ_CORE_SIZE);
  else if (RJ_VERSION(root->amd_ext)->major_id < 1 || RJ_VERSION(root->amd_ext)->major_id > 2)
    snprintf(why, sizeof why, "AmdExtTable major %u is not one rocjitsu knows (1-2)",
             RJ_VERSION(root->amd_ext)->major_id);
  else if (RJ_VERSION(root->amd_ext)->minor_id < RJ_AMD52_SIZE)
    snprintf(why, sizeof why, "AmdExtTable size %u is below %d", RJ_VERSION(root->amd_ext)->minor_id, RJ_AMD52_SIZE);
  if (why[0]) {
    rjGoRefuse(why);
    return false;
  }
  live_core = root->core;
  live_amd = root->amd_ext;
  uint32_t core_size = RJ_VERSION(live_core)->minor_id;
  amd_size = RJ_VERSION(live_amd)->minor_id;
  amd56 = amd_size >= 456;
  memcpy(saved_core, live_core, RJ_CORE_SIZE);
  memset(saved_amd, 0, sizeof saved_amd);
  memcpy(saved_amd, live_amd, amd_size < sizeof saved_amd ? amd_size : sizeof saved_amd);
  ORIG(ITERATE_AGENTS, hsa_status_t(*)(hsa_status_t(*)(hsa_agent_t, void *), void *))(collect_agent, NULL);
  const char *isas[MAX_GPUS];
  for (int i = 0; i < ngpus; i++) isas[i] = gpus[i].isa;
  int rc = rjGoStart(runtime_version, root->version.major_id, amd_size, ngpus, (char **)isas);
  if (rc < 0) return false; /* refused; Go said why */
  rj_active = 1;
  if (guest.on) {
    install(live_core, core_size, RJ_CORE_AGENT_GET_INFO, (void *)w_agent_get_info);
    install(live_core, core_size, RJ_CORE_AGENT_ITERATE_ISAS, (void *)w_agent_iterate_isas);
    install(live_core, core_size, RJ_CORE_ISA_GET_INFO_ALT, (void *)w_isa_get_info_alt);
    install(live_core, core_size, RJ_CORE_ISA_GET_INFO, (void *)w_isa_get_info);
    install(live_core, core_size, RJ_CORE_ISA_FROM_NAME, (void *)w_isa_from_name);
    install(live_core, core_size, RJ_CORE_ISA_GET_EXCEPTION_POLICIES, (void *)w_isa_get_exception_policies);
    install(live_core, core_size, RJ_CORE_ISA_GET_ROUND_METHOD, (void *)w_isa_get_round_method);
    install(live_core, core_size, RJ_CORE_ISA_ITERATE_WAVEFRONTS, (void *)w_isa_iterate_wavefronts);
    install(live_core, core_size, RJ_CORE_WAVEFRONT_GET_INFO, (void *)w_wavefront_get_info);
    install(live_core, core_size, RJ_CORE_ISA_COMPATIBLE, (void *)w_isa_compatible);
    install(live_core, core_size, RJ_CORE_AGENT_ITERATE_REGIONS, (void *)w_iterate_regions);
    install(live_core, core_size, RJ_CORE_REGION_GET_INFO, (void *)w_region_get_info);
    install(live_amd, amd_size, AMD_OFF(AMD_AGENT_ITERATE_MEMORY_POOLS), (void *)w_iterate_pools);
    install(live_amd, amd_size, AMD_OFF(AMD_MEMORY_POOL_GET_INFO), (void *)w_pool_get_info);
  }
  install(live_core, core_size, RJ_CORE_CODE_OBJECT_READER_CREATE_FROM_MEMORY, (void *)w_reader_from_memory);
  install(live_core, core_size, RJ_CORE_CODE_OBJECT_READER_CREATE_FROM_FILE, (void *)w_reader_from_file);
  install(live_core, core_size, RJ_CORE_CODE_OBJECT_READER_DESTROY, (void *)w_reader_destroy);
  install(live_core, core_size, RJ_CORE_SYSTEM_GET_MAJOR_EXTENSION_TABLE, (void *)w_get_major_extension_table);
  install(live_core, core_size, RJ_CORE_EXECUTABLE_LOAD_AGENT_CODE_OBJECT, (void *)w_load_agent);
  install(live_core, core_size, RJ_CORE_EXECUTABLE_LOAD_PROGRAM_CODE_OBJECT, (void *)w_load_program);
  install(live_core, core_size, RJ_CORE_EXECUTABLE_FREEZE, (void *)w_freeze);
  install(live_core, core_size, RJ_CORE_EXECUTABLE_DESTROY, (void *)w_exec_destroy);
  if (rj_dispatch) {
    install(live_core, core_size, RJ_CORE_QUEUE_CREATE, (void *)w_queue_create);
    install(live_core, core_size, RJ_CORE_QUEUE_DESTROY, (void *)w_queue_destroy);
  }
  return true;
}

/* Drops what the last session kept: the runtime is shut down, so its
 * readers, executables and queues are gone (their handles may be reused by
 * the next session). */
static void drop_session(void) {
  pthread_mutex_lock(&readers_mu);
  for (reader_rec *r = readers, *nx; r; r = nx) {
    nx = r->next;
    if (r->owned) free((void *)r->data);
    free(r);
  }
  readers = NULL;
  pthread_mutex_unlock(&readers_mu);
  pthread_mutex_lock(&owned_mu);
  for (owned_co *o = owned, *nx; o; o = nx) {
    nx = o->next;
    free(o->bytes);
    free(o);
  }
  owned = NULL;
  pthread_mutex_unlock(&owned_mu);
  pthread_mutex_lock(&qstates_mu);
  for (qstate *q = qstates, *nx; q; q = nx) {
    nx = q->next;
    free(q); /* its pool and signal belonged to the runtime that just shut down */
  }
  qstates = NULL;
  pthread_mutex_unlock(&qstates_mu);
  atomic_store(&rj_map, NULL);
}

EXPORT void OnUnload(void) {
  if (in_child()) return;
  if (rj_active) rjGoUnload();
  rj_active = 0;
  drop_session();
}
