// Package kfd is rocjitsu's simulated AMD GPU kernel driver: the KFD
// compute interface of /dev/kfd (linux/kfd_ioctl.h), the DRM render node
// queries libdrm makes, the KFD sysfs topology and the mmap offset scheme,
// served in the application's own process so that the unmodified ROCm
// userland (libhsakmt, ROCR, HIP, rocminfo) finds a GPU and runs its work
// on the simulator.
//
// The driver owns no GPU: memory objects are pages of the process (user
// pointers) or of memfds (GTT and VRAM objects, whose file offsets are the
// mmap offsets libhsakmt maps at the object's virtual address, so GPU VA ==
// CPU VA), doorbells are a memfd page per GPU, and a command processor
// goroutine serves every AQL queue: it watches the doorbells, executes
// kernel-dispatch, barrier and vendor packets through an Executor (the
// simulator), decrements completion signals and raises the KFD events
// ROCR waits on.
//
// The libc side (which fd is the device, which path is sysfs) lives in the
// shim's C interposers; this package decides and answers. Handlers return
// errno values as a real driver does: ENOTTY for an unknown ioctl, EINVAL
// or EFAULT for bad arguments, never a panic.
package kfd
