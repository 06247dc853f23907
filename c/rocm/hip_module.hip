/* hip_module: runs one kernel of a code object file through HIP's module
 * API: hipModuleLoad, hipModuleGetFunction, then hipModuleLaunchKernel
 * (hipExtModuleLaunchKernel when the grid is not a multiple of the block:
 * it takes the grid in work-items) with the kernarg segment passed through
 * HIP_LAUNCH_PARAM_BUFFER_POINTER, buffers from hipMalloc filled and read
 * back with hipMemcpy, the results written to files (spec.h describes the
 * input). shim/e2erocm checks the files against internal/kernelref.
 * Usage: hip_module SPEC. Output and exit status: check.h. */
#include <hip/hip_ext.h>

#include "hipcheck.h"
#include "spec.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: hip_module SPEC\n");
    return EXIT_USAGE;
  }
  static struct spec s;
  char err[1024];
  if (!spec_parse(argv[1], &s, err, sizeof err)) {
    fprintf(stderr, "hip_module: %s\n", err);
    return EXIT_USAGE;
  }
  watchdog("hip_module", 60);
  device_init();
  hipModule_t m;
  hipFunction_t f;
  must("module-load", hipModuleLoad(&m, s.object));
  must("module-get-function", hipModuleGetFunction(&f, m, s.kernel));
  void *d[SPEC_MAXBUF] = {0};
  unsigned char *ka = (unsigned char *)calloc(1, s.kernarg_size + 8);
  memcpy(ka, s.kernarg, s.kernarg_size);
  for (int i = 0; i < s.nbuf; i++) {
    must("buffer-malloc", hipMalloc(&d[i], s.buf[i].size ? s.buf[i].size : 1));
    must("buffer-upload", hipMemcpy(d[i], s.buf[i].init, s.buf[i].size, hipMemcpyHostToDevice));
    spec_set_address(ka, &s.buf[i], (uint64_t)(uintptr_t)d[i]);
  }
  size_t size = s.kernarg_size;
  void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, ka, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END};
  int whole = s.grid[0] % s.block[0] == 0 && s.grid[1] % s.block[1] == 0 && s.grid[2] % s.block[2] == 0;
  if (whole) {
    must("module-launch-kernel",
         hipModuleLaunchKernel(f, s.grid[0] / s.block[0], s.grid[1] / s.block[1], s.grid[2] / s.block[2], s.block[0],
                               s.block[1], s.block[2], s.lds, 0, NULL, extra));
  } else {
    must("ext-module-launch-kernel", hipExtModuleLaunchKernel(f, s.grid[0], s.grid[1], s.grid[2], s.block[0], s.block[1],
                                                              s.block[2], s.lds, 0, NULL, extra, NULL, NULL, 0));
  }
  must("sync", hipDeviceSynchronize());
  for (int i = 0; i < s.nbuf; i++) {
    unsigned char *h = (unsigned char *)malloc(s.buf[i].size + 1);
    char name[64];
    snprintf(name, sizeof name, "buffer-%d-readback", i);
    if (hipok(name, hipMemcpy(h, d[i], s.buf[i].size, hipMemcpyDeviceToHost))) {
      snprintf(name, sizeof name, "buffer-%d-write", i);
      check(spec_write_file(s.buf[i].out, h, s.buf[i].size), name, "%zu bytes to %s", s.buf[i].size, s.buf[i].out);
    }
    free(h);
    dfree(d[i]);
  }
  hipok("module-unload", hipModuleUnload(m));
  info("module", "%s from %s: grid %u %u %u block %u %u %u lds %u kernarg %zu", s.kernel, s.object, s.grid[0], s.grid[1],
       s.grid[2], s.block[0], s.block[1], s.block[2], s.lds, s.kernarg_size);
  return finish();
}
