/* hip_fault: a kernel that reads an unmapped address (0x8, in the page
 * below every mapping) must reach the application, not end the process.
 *
 * The program first checks that the device works (a kernel, a copy), then
 * registers an HSA system event handler: without one ROCR's own handler
 * prints "Memory access fault by GPU node-N ..." and aborts the process (as
 * on a real GPU). HIP 5.7 has no error code for a memory fault (its queue
 * error callback aborts), so the fault reaches the application as ROCR's
 * HSA_AMD_GPU_MEMORY_FAULT_EVENT: the check is that the handler receives
 * it with the faulting address and "page not present", that
 * hipDeviceSynchronize returns (the faulting dispatch ends) and that the
 * device still works afterwards. Exit status 0 when all held and the
 * process lived to print its summary (check.h); 124 if the synchronize or
 * the exit hangs; a death by SIGABRT means HIP or ROCR aborted on the
 * fault.
 * Usage: hip_fault. */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "hipcheck.h"

static volatile int fault_events;
static volatile uint64_t fault_address;
static volatile uint32_t fault_reason;

static hsa_status_t on_event(const hsa_amd_event_t *e, void *data) {
  (void)data;
  if (e->event_type == HSA_AMD_GPU_MEMORY_FAULT_EVENT) {
    fault_address = e->memory_fault.virtual_address;
    fault_reason = e->memory_fault.fault_reason_mask;
    __atomic_fetch_add(&fault_events, 1, __ATOMIC_SEQ_CST);
    info("fault-event-received", "address %#llx, reason mask %#x", (unsigned long long)fault_address, fault_reason);
  } else {
    info("system-event-received", "type %d", (int)e->event_type);
  }
  return HSA_STATUS_SUCCESS;
}

__global__ void fine(int *out) { out[threadIdx.x] = threadIdx.x * 2; }

__global__ void faulting(const int *bad, int *out) { out[threadIdx.x] = bad[threadIdx.x]; }

int main(void) {
  watchdog("hip_fault", 60);
  device_init();
  int *out = NULL, h[64];
  must("malloc", hipMalloc((void **)&out, sizeof h));
  begin("before-fault");
  hipLaunchKernelGGL(fine, dim3(1), dim3(64), 0, 0, out);
  if (hipok("before-fault-sync", hipDeviceSynchronize()) &&
      hipok("before-fault-copy", hipMemcpy(h, out, sizeof h, hipMemcpyDeviceToHost)))
    check(h[5] == 10 && h[63] == 126, "before-fault-data", "out[5]=%d out[63]=%d", h[5], h[63]);

  begin("register-handler");
  hsa_status_t st = hsa_init();
  check(st == HSA_STATUS_SUCCESS, "hsa-init", "%#x", st);
  st = hsa_amd_register_system_event_handler(on_event, NULL);
  check(st == HSA_STATUS_SUCCESS, "register-system-event-handler", "%#x", st);

  begin("fault-launch");
  hipLaunchKernelGGL(faulting, dim3(1), dim3(64), 0, 0, (const int *)(uintptr_t)8, out);
  hipError_t launch = hipGetLastError();
  info("fault-launch", "hipGetLastError after the launch: %s", hipGetErrorName(launch));
  begin("fault-sync (hipDeviceSynchronize after the faulting kernel)");
  hipError_t sync = hipDeviceSynchronize();
  info("fault-sync", "hipDeviceSynchronize after the fault returned %s", hipGetErrorName(sync));
  /* The handler runs on ROCR's event thread; give it a moment. */
  for (int i = 0; i < 2000 && !__atomic_load_n(&fault_events, __ATOMIC_SEQ_CST); i++) usleep(1000);
  check(fault_events >= 1 && fault_address == 8 && (fault_reason & HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT),
        "fault-event", "%d memory fault events, address %#llx, reason mask %#x (want address 0x8, page not present)",
        fault_events, (unsigned long long)fault_address, fault_reason);
  begin("after-fault");
  hipLaunchKernelGGL(fine, dim3(1), dim3(64), 0, 0, out);
  memset(h, 0, sizeof h);
  if (hipok("after-fault-sync", hipDeviceSynchronize()) &&
      hipok("after-fault-copy", hipMemcpy(h, out, sizeof h, hipMemcpyDeviceToHost)))
    check(h[5] == 10 && h[63] == 126, "after-fault-data", "out[5]=%d out[63]=%d", h[5], h[63]);
  check(1, "fault-alive", "the process survived the fault");
  begin("exit after the fault");
  return finish();
}
