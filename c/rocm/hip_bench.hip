/* hip_bench: the cost of the device, in one run.
 *  - launch round trip: N (default 2000, after 20 warm-up launches) empty
 *    kernel launches (hipLaunchKernelGGL), each followed by
 *    hipDeviceSynchronize; prints p50, p90 and max in microseconds.
 *  - idle CPU: 4 streams, each with a finished kernel (so their queues
 *    exist), then a sleep of S seconds (default 2): prints the process's
 *    CPU time (getrusage, all threads) during the sleep, in ms and percent
 *    of the wall time.
 * Lines: "ok launch-roundtrip n=N p50_us=.. p90_us=.. max_us=..",
 *        "ok idle-cpu seconds=S cpu_ms=.. percent=..".
 * Usage: hip_bench [-n N] [-idle S]. Output and exit status: check.h. */
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

#include "hipcheck.h"

__global__ void empty(void) {}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static double cpu_ms(void) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  return (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e3 + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  int n = 2000, idle = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-n")) n = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-idle")) idle = atoi(argv[i + 1]);
    else {
      fprintf(stderr, "usage: hip_bench [-n N] [-idle S]\n");
      return EXIT_USAGE;
    }
  }
  if (n < 1 || idle < 1) {
    fprintf(stderr, "hip_bench: -n and -idle must be >= 1\n");
    return EXIT_USAGE;
  }
  watchdog("hip_bench", 120 + (unsigned)idle + (unsigned)(n / 1000));
  device_init();

  begin("launch-roundtrip");
  double *t = (double *)malloc(n * sizeof(double));
  int errors = 0;
  hipError_t first = hipSuccess;
  for (int i = -20; i < n; i++) {
    double t0 = now_us();
    hipLaunchKernelGGL(empty, dim3(1), dim3(64), 0, 0);
    hipError_t e = hipDeviceSynchronize();
    double t1 = now_us();
    if (e != hipSuccess && !errors++) first = e;
    if (i >= 0) t[i] = t1 - t0;
  }
  qsort(t, n, sizeof(double), cmp);
  check(errors == 0, "launch-roundtrip", "n=%d p50_us=%.1f p90_us=%.1f max_us=%.1f errors=%d (first: %s)", n, t[n / 2],
        t[(int)(n * 0.9)], t[n - 1], errors, hipGetErrorName(first));
  free(t);

  begin("idle-cpu");
  enum { S = 4 };
  hipStream_t st[S];
  for (int s = 0; s < S; s++) {
    must("stream-create", hipStreamCreate(&st[s]));
    hipLaunchKernelGGL(empty, dim3(1), dim3(64), 0, st[s]);
    must("stream-sync", hipStreamSynchronize(st[s]));
  }
  double c0 = cpu_ms(), w0 = now_us();
  sleep((unsigned)idle);
  double c1 = cpu_ms(), w1 = now_us();
  double used = c1 - c0, pct = 100.0 * used * 1e3 / (w1 - w0);
  check(1, "idle-cpu", "seconds=%d cpu_ms=%.1f percent=%.2f", idle, used, pct);
  for (int s = 0; s < S; s++) hipok("stream-destroy", hipStreamDestroy(st[s]));
  return finish();
}
