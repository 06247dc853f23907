/* hip_streams: T threads (default 8), each with S streams of its own
 * (default 8; half created with hipStreamNonBlocking), each thread making L
 * launches (default 320) round-robin over its streams: every launch adds 1
 * to its stream's buffer, every 16th launch is followed by an async copy of
 * the buffer to pinned memory, and every 32nd makes the next stream wait on
 * an event of this one. At the end each stream's buffer must hold its
 * launch count exactly and the last async copy must match: nothing lost,
 * nothing run twice, no deadlock (the watchdog catches hangs).
 * Usage: hip_streams [-threads T] [-streams S] [-launches L].
 * Output and exit status: check.h. */
#include <pthread.h>
#include <stdint.h>

#include "hipcheck.h"

#define MAXS 16
#define WORDS 4096

static int nthreads = 8, nstreams = 8, nlaunches = 320;

__global__ void bump(uint32_t *p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < WORDS) p[i] += 1;
}

static void *worker(void *arg) {
  int t = (int)(intptr_t)arg;
  char name[64];
  hipStream_t st[MAXS];
  hipEvent_t ev[MAXS];
  uint32_t *d[MAXS], *pinned[MAXS];
  int count[MAXS] = {0}, copied[MAXS] = {0};
  int ok = 1;
  snprintf(name, sizeof name, "thread-%d-setup", t);
  for (int s = 0; s < nstreams && ok; s++) {
    ok &= hipSetDevice(0) == hipSuccess;
    ok &= (s % 2 ? hipStreamCreateWithFlags(&st[s], hipStreamNonBlocking) : hipStreamCreate(&st[s])) == hipSuccess;
    ok &= hipEventCreateWithFlags(&ev[s], hipEventDisableTiming) == hipSuccess;
    ok &= hipMalloc((void **)&d[s], WORDS * 4) == hipSuccess;
    ok &= hipMemsetAsync(d[s], 0, WORDS * 4, st[s]) == hipSuccess;
    ok &= hipHostMalloc((void **)&pinned[s], WORDS * 4, hipHostMallocDefault) == hipSuccess;
  }
  if (!check(ok, name, "%d streams, events, buffers", nstreams)) return NULL;
  int errors = 0;
  hipError_t first = hipSuccess;
  for (int l = 0; l < nlaunches; l++) {
    int s = l % nstreams;
    hipLaunchKernelGGL(bump, dim3(WORDS / 256), dim3(256), 0, st[s], d[s]);
    hipError_t e = hipGetLastError();
    count[s]++;
    if (l % 16 == 15 && e == hipSuccess) {
      e = hipMemcpyAsync(pinned[s], d[s], WORDS * 4, hipMemcpyDeviceToHost, st[s]);
      copied[s] = count[s];
    }
    if (l % 32 == 31 && e == hipSuccess) {
      int n = (s + 1) % nstreams;
      e = hipEventRecord(ev[s], st[s]);
      if (e == hipSuccess) e = hipStreamWaitEvent(st[n], ev[s], 0);
    }
    if (e != hipSuccess) {
      if (!errors++) first = e;
    }
  }
  snprintf(name, sizeof name, "thread-%d-launches", t);
  check(errors == 0, name, "%d launches on %d streams, %d errors (first: %s)", nlaunches, nstreams, errors,
        hipGetErrorName(first));
  for (int s = 0; s < nstreams; s++) {
    snprintf(name, sizeof name, "thread-%d-stream-%d-sync", t, s);
    begin("stream-synchronize");
    if (!hipok(name, hipStreamSynchronize(st[s]))) continue;
    int bad = -1;
    if (copied[s]) {
      for (int i = 0; i < WORDS && bad < 0; i++)
        if (pinned[s][i] != (uint32_t)copied[s]) bad = i;
      snprintf(name, sizeof name, "thread-%d-stream-%d-async-copy", t, s);
      check(bad < 0, name, "copy after launch %d: word %d is %u", copied[s], bad < 0 ? 0 : bad,
            pinned[s][bad < 0 ? 0 : bad]);
    }
    uint32_t *h = (uint32_t *)malloc(WORDS * 4);
    snprintf(name, sizeof name, "thread-%d-stream-%d-readback", t, s);
    if (hipok(name, hipMemcpy(h, d[s], WORDS * 4, hipMemcpyDeviceToHost))) {
      bad = -1;
      for (int i = 0; i < WORDS && bad < 0; i++)
        if (h[i] != (uint32_t)count[s]) bad = i;
      snprintf(name, sizeof name, "thread-%d-stream-%d-count", t, s);
      check(bad < 0, name, "%d launches: word %d is %u", count[s], bad < 0 ? 0 : bad, h[bad < 0 ? 0 : bad]);
    }
    free(h);
    dfree(d[s]);
    hipok("host-free", hipHostFree(pinned[s]));
    hipok("event-destroy", hipEventDestroy(ev[s]));
    hipok("stream-destroy", hipStreamDestroy(st[s]));
  }
  return NULL;
}

int main(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-threads")) nthreads = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-streams")) nstreams = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-launches")) nlaunches = atoi(argv[i + 1]);
    else {
      fprintf(stderr, "usage: hip_streams [-threads T] [-streams S] [-launches L]\n");
      return EXIT_USAGE;
    }
  }
  if (nthreads < 1 || nthreads > 64 || nstreams < 1 || nstreams > MAXS || nlaunches < 1) {
    fprintf(stderr, "hip_streams: threads 1..64, streams 1..%d, launches >= 1\n", MAXS);
    return EXIT_USAGE;
  }
  watchdog("hip_streams", 300);
  device_init();
  pthread_t th[64];
  begin("threads");
  for (int t = 0; t < nthreads; t++)
    if (pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t)) {
      check(0, "pthread-create", "thread %d", t);
      return finish();
    }
  for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
  info("streams", "%d threads x %d streams, %d launches per thread", nthreads, nstreams, nlaunches);
  return finish();
}
