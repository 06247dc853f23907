package main

// The simulated GPU behind the real ROCm userland: the Go half of the
// driver boundary (shim/kfd.c holds the libc interposers). The driver
// (hsa/kfd) starts on the first access to a device or sysfs path when
// ROCJITSU_GPU names the simulated devices (gfx942, or gfx942,gfx942 for
// two) or ROCJITSU_CONFIG has "host": {"backend": "simulator"}.

/*
#include <stdint.h>
#include <stdlib.h>
*/
import "C"

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/rocjitsu/rocjitsu/hsa/kfd"
	"github.com/rocjitsu/rocjitsu/shim/internal/guest"
	"github.com/rocjitsu/rocjitsu/shim/internal/logx"
)

var (
	kfdMu  sync.Mutex
	kfdDrv *kfd.Driver
)

func driver() *kfd.Driver {
	kfdMu.Lock()
	defer kfdMu.Unlock()
	return kfdDrv
}

// simulatedGPUs returns the devices the environment asks for (nil: none).
func simulatedGPUs(getenv func(string) string) ([]string, error) {
	if v := strings.TrimSpace(getenv("ROCJITSU_GPU")); v != "" && v != "off" && v != "hardware" {
		var out []string
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out, nil
	}
	cfg, err := guest.FromEnv(getenv)
	if err != nil || cfg == nil {
		return nil, err
	}
	if cfg.Host.Backend != guest.Simulator {
		return nil, nil
	}
	isa := cfg.Host.ISA
	if isa == "" {
		isa = "gfx942"
	}
	return []string{guest.Processor(isa)}, nil
}

//export rjKfdStart
func rjKfdStart() (dir *C.char) {
	defer guard(nil, "simulated GPU start", func() { dir = nil })
	lg := logx.FromEnv(os.Getenv)
	names, err := simulatedGPUs(os.Getenv)
	if err != nil {
		lg.Errorf("simulated GPU: %v; no GPU is simulated", err)
		return nil
	}
	if len(names) == 0 {
		return nil
	}
	var gpus []kfd.GPU
	for _, n := range names {
		g, err := kfd.KnownGPU(n)
		if err != nil {
			lg.Errorf("simulated GPU: %v; no GPU is simulated", err)
			fmt.Fprintf(os.Stderr, "rocjitsu: simulated GPU: %v\n", err)
			return nil
		}
		gpus = append(gpus, g)
	}
	d, err := kfd.New(kfd.Config{GPUs: gpus,
		Executor: func(i int, g kfd.GPU) (kfd.Executor, error) { return kfd.NewSimExecutor(g.Target) },
		Logf:     func(f string, a ...any) { lg.Debugf(f, a...) },
		Warnf:    func(f string, a ...any) { lg.Errorf(f, a...) }})
	if err != nil {
		lg.Errorf("simulated GPU: %v", err)
		fmt.Fprintf(os.Stderr, "rocjitsu: simulated GPU: %v\n", err)
		return nil
	}
	kfdMu.Lock()
	kfdDrv = d
	kfdMu.Unlock()
	lg.Infof("simulated GPU: %s (topology in %s)", strings.Join(names, ", "), d.SysfsDir())
	return C.CString(d.SysfsDir())
}

const (
	kindKFD    = 1
	kindRender = 2
)

//export rjKfdOpen
func rjKfdOpen(kind, minor, flags C.int) (fd C.int) {
	defer guard(nil, "device open", func() { fd = -C.int(unix.EIO) })
	d := driver()
	if d == nil {
		return -C.int(unix.ENOENT)
	}
	var n int
	var err error
	switch kind {
	case kindKFD:
		n, err = d.OpenKFD(int(flags))
	case kindRender:
		n, err = d.OpenRender(int(minor), int(flags))
	default:
		return -C.int(unix.ENOENT)
	}
	if err != nil {
		if e, ok := err.(unix.Errno); ok {
			return -C.int(e)
		}
		return -C.int(unix.EIO)
	}
	return C.int(n)
}

//export rjKfdIoctl
func rjKfdIoctl(fd, kind C.int, req C.ulong, arg unsafe.Pointer) (errno C.int) {
	defer guard(nil, "device ioctl", func() { errno = C.int(unix.EIO) })
	d := driver()
	if d == nil {
		return C.int(unix.ENODEV)
	}
	k := kfd.FileKFD
	if kind == kindRender {
		k = kfd.FileRender
	}
	return C.int(d.Ioctl(k, int(fd), uint32(req), uintptr(arg)))
}

//export rjKfdMmapTarget
func rjKfdMmapTarget(off, length C.uint64_t, fd *C.int, foff *C.int64_t) (errno C.int) {
	defer guard(nil, "device mmap", func() { errno = C.int(unix.EIO) })
	d := driver()
	if d == nil {
		return C.int(unix.ENODEV)
	}
	n, o, e := d.MmapTarget(uint64(off), uint64(length))
	if e != 0 {
		return C.int(e)
	}
	*fd, *foff = C.int(n), C.int64_t(o)
	return 0
}

//export rjKfdClose
func rjKfdClose(fd, kind C.int) {}
