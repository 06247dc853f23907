/* hipcheck.h: HIP helpers shared by the c/rocm HIP programs (see check.h
 * for the output protocol). */
#ifndef ROCJITSU_ROCM_HIPCHECK_H
#define ROCJITSU_ROCM_HIPCHECK_H

#include <hip/hip_runtime.h>

#include "check.h"

/* hipok records a check on the status of a HIP call. */
#define hipok(name, call)                                                                      \
  ({                                                                                           \
    begin(name);                                                                               \
    hipError_t e_ = (call);                                                                    \
    check(e_ == hipSuccess, name, "%s: %s", #call, e_ == hipSuccess ? "hipSuccess" : hipGetErrorName(e_)); \
  })

/* must is hipok for set-up calls: on failure the program cannot go on, so
 * it prints the summary and exits. */
#define must(name, call)                                                                       \
  do {                                                                                         \
    if (!hipok(name, call)) exit(finish());                                                    \
  } while (0)

/* dfree frees device memory; only a failure is reported (as a check). */
static __attribute__((unused)) void dfree(void *p) {
  hipError_t e = hipFree(p);
  if (e != hipSuccess) check(0, "free", "hipFree(%p): %s", p, hipGetErrorName(e));
}

/* device_init finds the first HIP device and prints its properties; with
 * none it prints a FAIL line and exits with EXIT_NODEVICE. */
static __attribute__((unused)) void device_init(void) {
  int n = 0;
  begin("device");
  hipError_t e = hipGetDeviceCount(&n);
  if (e != hipSuccess || n == 0) {
    printf("FAIL device hipGetDeviceCount: %s, %d devices (no ROCm device: is the simulated driver loaded?)\n",
           e == hipSuccess ? "hipSuccess" : hipGetErrorName(e), n);
    exit(EXIT_NODEVICE);
  }
  hipDeviceProp_t p;
  must("device-properties", hipGetDeviceProperties(&p, 0));
  check(p.warpSize == 64, "device-warpsize", "%d (gfx9 runs wave64)", p.warpSize);
  check(p.multiProcessorCount > 0, "device-cus", "%d compute units", p.multiProcessorCount);
  info("device", "%d devices; 0: %s arch %s, %zu MiB, %d KiB LDS per block", n, p.name, p.gcnArchName,
       (size_t)(p.totalGlobalMem >> 20), (int)(p.sharedMemPerBlock >> 10));
  must("set-device", hipSetDevice(0));
}

#endif
