/* hip_memory: HIP memory copies of every kind (H2D, D2H, D2D, H2H,
 * hipMemcpyDefault, unaligned, large), pinned host memory (hipHostMalloc,
 * read and written by a kernel), hipMemcpyAsync on several streams, events
 * with elapsed time, hipMemset / hipMemsetD32 / hipMemsetAsync.
 * Usage: hip_memory. Output and exit status: check.h. */
#include <stdint.h>

#include "hipcheck.h"

#define N (4u << 20) /* bytes */

static void fill(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(i * 131u + seed * 7u + (i >> 11));
}

/* same checks n bytes and names the first difference. */
static int same(const char *name, const unsigned char *got, const unsigned char *want, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (got[i] != want[i]) {
      return check(0, name, "byte %zu of %zu is %#x, want %#x", i, n, got[i], want[i]);
    }
  }
  return check(1, name, "%zu bytes match", n);
}

static int all(const char *name, const unsigned char *got, unsigned char v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (got[i] != v) return check(0, name, "byte %zu of %zu is %#x, want %#x", i, n, got[i], v);
  }
  return check(1, name, "%zu bytes are %#x", n, v);
}

__global__ void add_u32(uint32_t *p, uint32_t v, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) p[i] += v;
}

__global__ void spin(uint64_t *out, uint64_t iters) {
  uint64_t x = threadIdx.x;
  for (uint64_t i = 0; i < iters; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
  if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = x;
}

int main(void) {
  watchdog("hip_memory", 120);
  device_init();
  unsigned char *h = (unsigned char *)malloc(N), *h2 = (unsigned char *)malloc(N), *h3 = (unsigned char *)malloc(N);
  unsigned char *d = NULL, *d2 = NULL;
  fill(h, N, 1);
  must("malloc", hipMalloc((void **)&d, N));
  must("malloc-2", hipMalloc((void **)&d2, N));

  /* synchronous copies of every kind */
  if (hipok("copy-h2d", hipMemcpy(d, h, N, hipMemcpyHostToDevice)) &&
      hipok("copy-d2h", hipMemcpy(h2, d, N, hipMemcpyDeviceToHost)))
    same("copy-h2d-d2h-data", h2, h, N);
  memset(h2, 0, N);
  if (hipok("copy-d2d", hipMemcpy(d2, d, N, hipMemcpyDeviceToDevice)) &&
      hipok("copy-d2d-readback", hipMemcpy(h2, d2, N, hipMemcpyDeviceToHost)))
    same("copy-d2d-data", h2, h, N);
  if (hipok("copy-h2h", hipMemcpy(h3, h, N, hipMemcpyHostToHost))) same("copy-h2h-data", h3, h, N);
  fill(h3, N, 2);
  memset(h2, 0, N);
  if (hipok("copy-default-h2d", hipMemcpy(d2, h3, N, hipMemcpyDefault)) &&
      hipok("copy-default-d2h", hipMemcpy(h2, d2, N, hipMemcpyDefault)))
    same("copy-default-data", h2, h3, N);

  /* unaligned offsets and odd sizes (the blit kernels' edge paths) */
  {
    size_t n = 100003;
    memset(h2, 0xEE, N);
    if (hipok("copy-unaligned-h2d", hipMemcpy(d + 3, h + 5, n, hipMemcpyHostToDevice)) &&
        hipok("copy-unaligned-d2d", hipMemcpy(d2 + 1, d + 3, n, hipMemcpyDeviceToDevice)) &&
        hipok("copy-unaligned-d2h", hipMemcpy(h2 + 7, d2 + 1, n, hipMemcpyDeviceToHost))) {
      same("copy-unaligned-data", h2 + 7, h + 5, n);
      all("copy-unaligned-before", h2, 0xEE, 7);
      all("copy-unaligned-after", h2 + 7 + n, 0xEE, 64);
    }
    for (size_t sz = 1; sz <= 9; sz++) {
      unsigned char b[16] = {0};
      char name[64];
      snprintf(name, sizeof name, "copy-small-%zu", sz);
      if (hipok(name, hipMemcpy(d2 + 100 + sz, h + sz, sz, hipMemcpyHostToDevice)) &&
          hipok(name, hipMemcpy(b, d2 + 100 + sz, sz, hipMemcpyDeviceToHost)))
        same(name, b, h + sz, sz);
    }
  }

  /* a large copy: several blit chunks */
  {
    size_t big = 64u << 20;
    unsigned char *hb = (unsigned char *)malloc(big), *hb2 = (unsigned char *)malloc(big), *db = NULL;
    fill(hb, big, 3);
    if (hipok("malloc-64mib", hipMalloc((void **)&db, big)) &&
        hipok("copy-64mib-h2d", hipMemcpy(db, hb, big, hipMemcpyHostToDevice)) &&
        hipok("copy-64mib-d2h", hipMemcpy(hb2, db, big, hipMemcpyDeviceToHost)))
      same("copy-64mib-data", hb2, hb, big);
    if (db) hipok("free-64mib", hipFree(db));
    free(hb);
    free(hb2);
  }

  /* pinned host memory */
  {
    unsigned char *p = NULL, *q = NULL;
    if (hipok("host-malloc", hipHostMalloc((void **)&p, N, hipHostMallocDefault)) &&
        hipok("host-malloc-2", hipHostMalloc((void **)&q, N, hipHostMallocDefault))) {
      fill(p, N, 4);
      memset(q, 0, N);
      if (hipok("pinned-h2d", hipMemcpy(d, p, N, hipMemcpyHostToDevice)) &&
          hipok("pinned-d2h", hipMemcpy(q, d, N, hipMemcpyDeviceToHost)))
        same("pinned-data", q, p, N);
      /* a kernel reads and writes pinned memory directly */
      uint32_t *pw = (uint32_t *)p, *dp = NULL;
      size_t words = N / 4;
      for (size_t i = 0; i < words; i++) pw[i] = (uint32_t)i;
      if (hipok("pinned-device-pointer", hipHostGetDevicePointer((void **)&dp, p, 0))) {
        begin("pinned-kernel");
        hipLaunchKernelGGL(add_u32, dim3((unsigned)((words + 255) / 256)), dim3(256), 0, 0, dp, 5u, words);
        if (hipok("pinned-kernel-launch", hipGetLastError()) && hipok("pinned-kernel-sync", hipDeviceSynchronize())) {
          size_t bad = words;
          for (size_t i = 0; i < words; i++)
            if (pw[i] != (uint32_t)i + 5u) {
              bad = i;
              break;
            }
          check(bad == words, "pinned-kernel-data", bad == words ? "%zu words +5" : "word %zu wrong", bad);
        }
      }
      /* async copies from pinned memory on several streams, a kernel in
       * between, each stream's chunk checked */
      enum { S = 4 };
      hipStream_t st[S];
      size_t chunk = N / S;
      fill(p, N, 5);
      memset(q, 0, N);
      int ok = 1;
      for (int s = 0; s < S; s++) ok &= hipok("stream-create", hipStreamCreate(&st[s]));
      if (ok) {
        for (int s = 0; s < S; s++) {
          hipok("async-h2d", hipMemcpyAsync(d + s * chunk, p + s * chunk, chunk, hipMemcpyHostToDevice, st[s]));
          hipLaunchKernelGGL(add_u32, dim3((unsigned)(chunk / 4 / 256)), dim3(256), 0, st[s], (uint32_t *)(d + s * chunk),
                             (uint32_t)(s + 1), chunk / 4);
          hipok("async-d2h", hipMemcpyAsync(q + s * chunk, d + s * chunk, chunk, hipMemcpyDeviceToHost, st[s]));
        }
        for (int s = 0; s < S; s++) {
          char name[64];
          snprintf(name, sizeof name, "async-stream-%d-sync", s);
          if (!hipok(name, hipStreamSynchronize(st[s]))) continue;
          const uint32_t *in = (const uint32_t *)(p + s * chunk), *out = (const uint32_t *)(q + s * chunk);
          size_t bad = chunk / 4;
          for (size_t i = 0; i < chunk / 4; i++)
            if (out[i] != in[i] + (uint32_t)(s + 1)) {
              bad = i;
              break;
            }
          snprintf(name, sizeof name, "async-stream-%d-data", s);
          check(bad == chunk / 4, name, bad == chunk / 4 ? "%zu words" : "word %zu wrong", bad);
        }
        for (int s = 0; s < S; s++) hipok("stream-destroy", hipStreamDestroy(st[s]));
      }
      hipok("host-free", hipHostFree(p));
      hipok("host-free-2", hipHostFree(q));
    }
  }

  /* events with elapsed time */
  {
    hipEvent_t a, b;
    hipStream_t s;
    uint64_t *out = NULL;
    if (hipok("event-create", hipEventCreate(&a)) && hipok("event-create-2", hipEventCreate(&b)) &&
        hipok("event-stream", hipStreamCreate(&s)) && hipok("event-malloc", hipMalloc((void **)&out, 8))) {
      hipok("event-record-start", hipEventRecord(a, s));
      hipLaunchKernelGGL(spin, dim3(4), dim3(64), 0, s, out, (uint64_t)20000);
      hipok("event-copy", hipMemcpyAsync(d2, d, N, hipMemcpyDeviceToDevice, s));
      hipok("event-record-stop", hipEventRecord(b, s));
      if (hipok("event-synchronize", hipEventSynchronize(b))) {
        hipok("event-query", hipEventQuery(b));
        float ms = -1;
        if (hipok("event-elapsed", hipEventElapsedTime(&ms, a, b)))
          check(ms > 0 && ms < 60000, "event-elapsed-value", "%.6f ms between the events (want > 0)", ms);
      }
      hipok("event-destroy", hipEventDestroy(a));
      hipok("event-destroy-2", hipEventDestroy(b));
      hipok("event-stream-destroy", hipStreamDestroy(s));
      hipok("event-free", hipFree(out));
    }
  }

  /* memset */
  if (hipok("memset", hipMemset(d, 0xAB, N)) && hipok("memset-readback", hipMemcpy(h2, d, N, hipMemcpyDeviceToHost)))
    all("memset-data", h2, 0xAB, N);
  {
    size_t words = 12345;
    if (hipok("memset-d32", hipMemsetD32((hipDeviceptr_t)d, 0x01020304, words)) &&
        hipok("memset-d32-readback", hipMemcpy(h2, d, words * 4 + 8, hipMemcpyDeviceToHost))) {
      const uint32_t *w = (const uint32_t *)h2;
      size_t bad = words;
      for (size_t i = 0; i < words; i++)
        if (w[i] != 0x01020304u) {
          bad = i;
          break;
        }
      check(bad == words, "memset-d32-data", bad == words ? "%zu words" : "word %zu wrong", bad);
      check(w[words] == 0xABABABABu, "memset-d32-after", "word after the range is %#x", w[words]);
    }
  }
  {
    hipStream_t s;
    size_t off = 3, n = N - 11;
    if (hipok("memset-async-stream", hipStreamCreate(&s)) && hipok("memset-async-fill", hipMemset(d, 0, N)) &&
        hipok("memset-async", hipMemsetAsync(d + off, 0x5A, n, s)) &&
        hipok("memset-async-sync", hipStreamSynchronize(s)) &&
        hipok("memset-async-readback", hipMemcpy(h2, d, N, hipMemcpyDeviceToHost))) {
      all("memset-async-before", h2, 0, off);
      all("memset-async-data", h2 + off, 0x5A, n);
      all("memset-async-after", h2 + off + n, 0, N - off - n);
      hipok("memset-async-stream-destroy", hipStreamDestroy(s));
    }
  }

  hipok("free", hipFree(d));
  hipok("free-2", hipFree(d2));
  free(h);
  free(h2);
  free(h3);
  return finish();
}
