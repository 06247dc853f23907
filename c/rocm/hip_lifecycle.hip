/* hip_lifecycle: process life around a HIP device.
 *
 *   hip_lifecycle fork       works on the device, forks three children that
 *                            do nothing with HIP (one _exit(7)s, one execs
 *                            /bin/true, one calls exit(0), running the exit
 *                            handlers it inherited), checks how the first two
 *                            ended (within 20 s; the third is reported, see
 *                            below) and that the parent's device still works
 *                            after each.
 *   hip_lifecycle exit-open  leaves 4 streams with queued kernels and async
 *                            copies, events and memory behind and returns
 *                            from main without synchronizing: the process
 *                            must end (status 0, no hang at exit).
 *
 * Output and exit status: check.h. */
#include <errno.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>

#include "hipcheck.h"

__global__ void iota(uint32_t *p, uint32_t base, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = base + i;
}

__global__ void spin(uint64_t *out, uint64_t iters) {
  uint64_t x = threadIdx.x;
  for (uint64_t i = 0; i < iters; i++) x = x * 6364136223846793005ull + 1;
  if (threadIdx.x == 0) out[blockIdx.x] = x;
}

/* works runs a kernel and a copy and checks the data. */
static int works(const char *name, uint32_t base) {
  const int n = 10000;
  uint32_t *d = NULL, *h = (uint32_t *)malloc(n * 4);
  char nm[96];
  snprintf(nm, sizeof nm, "%s-malloc", name);
  if (!hipok(nm, hipMalloc((void **)&d, n * 4))) return 0;
  begin(name);
  hipLaunchKernelGGL(iota, dim3((n + 255) / 256), dim3(256), 0, 0, d, base, n);
  snprintf(nm, sizeof nm, "%s-copy", name);
  int ok = hipok(nm, hipMemcpy(h, d, n * 4, hipMemcpyDeviceToHost));
  if (ok) {
    int bad = -1;
    for (int i = 0; i < n && bad < 0; i++)
      if (h[i] != base + (uint32_t)i) bad = i;
    snprintf(nm, sizeof nm, "%s-data", name);
    ok = check(bad < 0, nm, bad < 0 ? "%d words" : "word %d wrong", bad < 0 ? n : bad);
  }
  dfree(d);
  free(h);
  return ok;
}

/* reap waits up to 20 s for pid and checks how it ended. */
static void reap(const char *name, pid_t pid, int want_status) {
  int status = 0;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  begin(name);
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) {
      check(0, name, "waitpid: %s", strerror(errno));
      return;
    }
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (t.tv_sec - t0.tv_sec > 20) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      check(0, name, "child %d still running after 20 s (killed)", (int)pid);
      return;
    }
    usleep(10000);
  }
  if (WIFSIGNALED(status))
    check(0, name, "child died of signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
  else
    check(WEXITSTATUS(status) == want_status, name, "child exited with %d, want %d", WEXITSTATUS(status), want_status);
}

static int child_exit(void) { exit(0); }

static int do_fork(void) {
  if (!works("before-fork", 100)) return finish();
  fflush(stdout);
  pid_t p = fork();
  if (p == 0) _exit(7);
  check(p > 0, "fork", "fork: %s", p > 0 ? "ok" : strerror(errno));
  if (p > 0) reap("fork-child-_exit", p, 7);
  works("after-fork-_exit", 200);

  fflush(stdout);
  p = fork();
  if (p == 0) {
    execl("/bin/true", "true", (char *)NULL);
    _exit(99);
  }
  if (p > 0) reap("fork-child-exec", p, 0);
  works("after-fork-exec", 300);

  fflush(stdout);
  p = fork();
  if (p == 0) {
    /* no more checks from the child: its output would double the parent's */
    alarm(0);
    child_exit();
  }
  if (p > 0) {
    /* Not a check: ROCR's exit handlers run in the child and its libhsakmt
     * refuses every call after a fork, so Debian's ROCR (assertions on)
     * aborts in FreeKfdMemory, on a real GPU as well. */
    int status = 0;
    begin("fork-child-exit");
    for (int i = 0; i < 2000 && waitpid(p, &status, WNOHANG) == 0; i++) usleep(10000);
    if (waitpid(p, &status, WNOHANG) == 0) {
      kill(p, SIGKILL);
      waitpid(p, &status, 0);
    }
    info("fork-child-exit", "a child calling exit(0) ended with %s %d", WIFSIGNALED(status) ? "signal" : "status",
         WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  }
  works("after-fork-exit", 400);
  return finish();
}

static int do_exit_open(void) {
  enum { S = 4 };
  hipStream_t st[S];
  hipEvent_t ev[S];
  uint64_t *spins = NULL;
  uint32_t *d = NULL, *p = NULL;
  must("malloc", hipMalloc((void **)&spins, 64 * 8));
  must("malloc-2", hipMalloc((void **)&d, S << 20));
  must("host-malloc", hipHostMalloc((void **)&p, S << 20, hipHostMallocDefault));
  for (int s = 0; s < S; s++) {
    must("stream-create", hipStreamCreate(&st[s]));
    must("event-create", hipEventCreate(&ev[s]));
    hipLaunchKernelGGL(spin, dim3(4), dim3(64), 0, st[s], spins, (uint64_t)200000);
    hipLaunchKernelGGL(iota, dim3((1 << 18) / 256), dim3(256), 0, st[s], d + s * (1 << 18), 0u, 1 << 18);
    hipok("async-copy", hipMemcpyAsync(p + s * (1 << 18), d + s * (1 << 18), 1 << 20, hipMemcpyDeviceToHost, st[s]));
    hipok("event-record", hipEventRecord(ev[s], st[s]));
  }
  hipok("queued", hipGetLastError());
  begin("exit with streams open");
  return finish();
}

int main(int argc, char **argv) {
  if (argc != 2 || (strcmp(argv[1], "fork") && strcmp(argv[1], "exit-open"))) {
    fprintf(stderr, "usage: hip_lifecycle fork|exit-open\n");
    return EXIT_USAGE;
  }
  watchdog("hip_lifecycle", 90);
  device_init();
  return strcmp(argv[1], "fork") ? do_exit_open() : do_fork();
}
