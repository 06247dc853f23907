package kfd

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Executor runs GPU work for the driver: it sees the GPU address space the
// driver builds (MapMemory/UnmapMemory with the bytes behind each range)
// and executes kernel-dispatch packets. hsa/sim's agent is the executor
// the shim plugs in; tests may use their own.
type Executor interface {
	// MapMemory makes b visible to the GPU at virtual address va.
	MapMemory(va uint64, b []byte) error
	// UnmapMemory removes the range mapped at va.
	UnmapMemory(va uint64) error
	// Dispatch runs the 64-byte kernel-dispatch packet pkt, which sits at
	// GPU address pktAddr in queue queueAddr (the amd_queue_t), to
	// completion. An error is a kernel fault.
	Dispatch(pkt []byte, pktAddr, queueAddr, dispatchID uint64) error
}

// Config selects the simulated devices.
type Config struct {
	// GPUs are the simulated devices, in node order.
	GPUs []GPU
	// Executor returns the executor of GPU i.
	Executor func(i int, g GPU) (Executor, error)
	// SysfsDir is where the topology tree is written (a new temporary
	// directory when empty).
	SysfsDir string
	// Logf, when set, receives diagnostic lines.
	Logf func(format string, args ...any)
	// Warnf, when set, receives reports the user should see (a queue
	// stopped by a kernel fault).
	Warnf func(format string, args ...any)

	// holdQueues (tests) registers queues without serving them, so a
	// fuzzer's garbage rings are never executed.
	holdQueues bool
}

// FileKind says which device a file descriptor opened.
type FileKind int

// File kinds.
const (
	FileNone FileKind = iota
	// FileKFD is /dev/kfd.
	FileKFD
	// FileRender is a /dev/dri/renderD* node.
	FileRender
)

// String names the device kind.
func (k FileKind) String() string {
	switch k {
	case FileKFD:
		return "/dev/kfd"
	case FileRender:
		return "render node"
	}
	return "no device"
}

// Driver is the simulated kernel driver of one process.
type Driver struct {
	cfg   Config
	topo  Topology
	sysfs string
	start time.Time

	gpus []*gpuState

	mu             sync.Mutex
	kfdMem         int // memfd behind /dev/kfd: doorbell, MMIO and event pages
	bos            map[uint64]*bo
	nextBO         uint64
	events         *eventTable
	cp             *commandProcessor
	xnack          bool
	runtimeEnabled bool
	kfdOpened      atomic.Bool
}

// gpuState is the driver's view of one GPU node.
type gpuState struct {
	index    int
	node     int
	id       uint32
	gpu      GPU
	exec     Executor
	render   int    // memfd behind the render node; BO offsets are its file offsets
	rnext    uint64 // next free file offset
	vmFd     int    // render fd given to ACQUIRE_VM
	queues   int
	doorbell []byte // the driver's view of the GPU's doorbell page
}

// KFD memfd layout: per GPU, an 8 KiB doorbell page, then a 4 KiB MMIO
// remap page; then the 32 KiB events page.
const (
	doorbellPageSize = 8 << 10
	mmioPageSize     = 4 << 10
	maxGPUs          = 8
	mmioBase         = maxGPUs * doorbellPageSize
	eventsBase       = mmioBase + maxGPUs*mmioPageSize
	eventsPageSize   = KFD_SIGNAL_EVENT_LIMIT * 8
	kfdMemSize       = eventsBase + eventsPageSize
)

// New starts a driver for cfg: it writes the sysfs tree and creates the
// device memory; the command processor starts with the first queue.
func New(cfg Config) (*Driver, error) {
	if len(cfg.GPUs) == 0 {
		return nil, fmt.Errorf("kfd: no GPUs configured")
	}
	if len(cfg.GPUs) > maxGPUs {
		return nil, fmt.Errorf("kfd: %d GPUs configured, at most %d", len(cfg.GPUs), maxGPUs)
	}
	d := &Driver{cfg: cfg, topo: Topology{GPUs: cfg.GPUs}, bos: map[uint64]*bo{}, start: time.Now(), kfdMem: -1}
	if cfg.SysfsDir != "" {
		d.sysfs = cfg.SysfsDir
		if err := d.topo.WriteSysfs(d.sysfs); err != nil {
			return nil, fmt.Errorf("kfd: writing the topology: %w", err)
		}
	} else {
		dir, err := d.topo.sharedSysfs()
		if err != nil {
			return nil, err
		}
		d.sysfs = dir
	}
	fd, err := unix.MemfdCreate("rocjitsu-kfd", unix.MFD_CLOEXEC)
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("kfd: memfd: %w", err)
	}
	d.kfdMem = fd
	if err := unix.Ftruncate(fd, kfdMemSize); err != nil {
		d.Close()
		return nil, fmt.Errorf("kfd: memfd size: %w", err)
	}
	for i, g := range cfg.GPUs {
		rfd, err := unix.MemfdCreate(fmt.Sprintf("rocjitsu-renderD%d", DRMRenderMinorBase+i), unix.MFD_CLOEXEC)
		if err != nil {
			d.Close()
			return nil, fmt.Errorf("kfd: render memfd: %w", err)
		}
		db, err := unix.Mmap(fd, int64(i*doorbellPageSize), doorbellPageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
		if err != nil {
			unix.Close(rfd)
			d.Close()
			return nil, fmt.Errorf("kfd: doorbell page: %w", err)
		}
		gs := &gpuState{index: i, node: i + 1, id: GPUID(i + 1), gpu: g, render: rfd, rnext: 1 << 21, vmFd: -1, doorbell: db}
		d.gpus = append(d.gpus, gs)
		if cfg.Executor != nil {
			ex, err := cfg.Executor(i, g)
			if err != nil {
				d.Close()
				return nil, fmt.Errorf("kfd: GPU %d (%s): %w", i, g.Target, err)
			}
			gs.exec = ex
		}
	}
	d.events = newEventTable()
	d.cp = newCommandProcessor(d)
	return d, nil
}

// SysfsDir returns the directory holding the sysfs tree: the driver answers
// a sysfs path P with the file SysfsDir()+P.
func (d *Driver) SysfsDir() string { return d.sysfs }

// GPUs returns the simulated devices.
func (d *Driver) GPUs() []GPU { return d.topo.GPUs }

func (d *Driver) warnf(format string, args ...any) {
	if d.cfg.Warnf != nil {
		d.cfg.Warnf(format, args...)
	} else {
		d.logf(format, args...)
	}
}

func (d *Driver) logf(format string, args ...any) {
	if d.cfg.Logf != nil {
		d.cfg.Logf(format, args...)
	}
}

// Close stops the command processor and releases the driver's memory.
func (d *Driver) Close() {
	if d.cp != nil {
		d.cp.stop()
	}
	for _, g := range d.gpus {
		if g.doorbell != nil {
			unix.Munmap(g.doorbell)
		}
		unix.Close(g.render)
	}
	d.gpus = nil
	if d.kfdMem >= 0 {
		unix.Close(d.kfdMem)
		d.kfdMem = -1
	}
}

// OpenKFD opens /dev/kfd: a new descriptor for the device (flags are the
// open flags; O_CLOEXEC is honoured).
func (d *Driver) OpenKFD(flags int) (int, error) {
	fd, err := dupFd(d.kfdMem, flags)
	if err == nil {
		d.kfdOpened.Store(true)
	}
	return fd, err
}

// Serving reports whether the process's runtime opened the simulated
// /dev/kfd: its GPUs are then the simulated ones.
func (d *Driver) Serving() bool { return d.kfdOpened.Load() }

// OpenRender opens /dev/dri/renderD<minor>.
func (d *Driver) OpenRender(minor int, flags int) (int, error) {
	g := d.gpuByMinor(minor)
	if g == nil {
		return -1, unix.ENOENT
	}
	return dupFd(g.render, flags)
}

func dupFd(fd, flags int) (int, error) {
	cmd := unix.F_DUPFD
	if flags&unix.O_CLOEXEC != 0 {
		cmd = unix.F_DUPFD_CLOEXEC
	}
	nfd, err := unix.FcntlInt(uintptr(fd), cmd, 3)
	if err != nil {
		return -1, err
	}
	return nfd, nil
}

func (d *Driver) gpuByMinor(minor int) *gpuState {
	for _, g := range d.gpus {
		if DRMRenderMinorBase+g.index == minor {
			return g
		}
	}
	return nil
}

func (d *Driver) gpuByID(id uint32) *gpuState {
	for _, g := range d.gpus {
		if g.id == id {
			return g
		}
	}
	return nil
}

// RenderMinor returns the render minor the descriptor's memfd belongs to, by
// comparing inodes (for fstat answers), or -1.
func (d *Driver) RenderMinor(fd int) int {
	var st, gs unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return -1
	}
	for _, g := range d.gpus {
		if unix.Fstat(g.render, &gs) == nil && gs.Ino == st.Ino && gs.Dev == st.Dev {
			return DRMRenderMinorBase + g.index
		}
	}
	return -1
}

// Ioctl serves ioctl(fd, req, arg) on a descriptor fd of kind k, arg being
// the caller's argument address. The argument is copied in and out as a kernel
// copies it (an unreadable address gives EFAULT). It returns 0 or the
// errno the real driver gives.
func (d *Driver) Ioctl(k FileKind, fd int, req uint32, arg uintptr) unix.Errno {
	size := IoctlSize(req)
	var b []byte
	if size > 0 {
		var e unix.Errno
		if b, e = copyIn(uint64(arg), uint64(size)); e != 0 {
			return e
		}
	}
	var e unix.Errno
	switch k {
	case FileKFD:
		e = d.kfdIoctl(req, b)
	case FileRender:
		e = d.drmIoctl(d.gpuByMinor(d.RenderMinor(fd)), req, b)
	default:
		return unix.ENOTTY
	}
	if e != 0 {
		d.logf("kfd: ioctl %#x (nr %#x, %s): %v", req, IoctlNR(req), k, e)
	}
	if e == 0 && size > 0 && IoctlDir(req)&iocRead != 0 {
		if e := copyOut(uint64(arg), b); e != 0 {
			return e
		}
	}
	return e
}

// kfdHandler serves one KFD ioctl on its argument bytes.
type kfdHandler func(d *Driver, b []byte) unix.Errno

// kfdHandlers maps each served request to its handler; an ioctl that is not
// here is answered with ENOTTY, as the kernel answers an unknown command.
var kfdHandlers map[uint32]kfdHandler

func init() {
	kfdHandlers = map[uint32]kfdHandler{
		AMDKFD_IOC_GET_VERSION:               (*Driver).getVersion,
		AMDKFD_IOC_CREATE_QUEUE:              (*Driver).createQueue,
		AMDKFD_IOC_DESTROY_QUEUE:             (*Driver).destroyQueue,
		AMDKFD_IOC_UPDATE_QUEUE:              (*Driver).updateQueue,
		AMDKFD_IOC_SET_MEMORY_POLICY:         (*Driver).setMemoryPolicy,
		AMDKFD_IOC_GET_CLOCK_COUNTERS:        (*Driver).getClockCounters,
		AMDKFD_IOC_CREATE_EVENT:              (*Driver).createEvent,
		AMDKFD_IOC_DESTROY_EVENT:             (*Driver).destroyEvent,
		AMDKFD_IOC_SET_EVENT:                 (*Driver).setEvent,
		AMDKFD_IOC_RESET_EVENT:               (*Driver).resetEvent,
		AMDKFD_IOC_WAIT_EVENTS:               (*Driver).waitEvents,
		AMDKFD_IOC_GET_TILE_CONFIG:           (*Driver).getTileConfig,
		AMDKFD_IOC_SET_TRAP_HANDLER:          (*Driver).setTrapHandler,
		AMDKFD_IOC_GET_PROCESS_APERTURES_NEW: (*Driver).getProcessAperturesNew,
		AMDKFD_IOC_ACQUIRE_VM:                (*Driver).acquireVM,
		AMDKFD_IOC_ALLOC_MEMORY_OF_GPU:       (*Driver).allocMemoryOfGPU,
		AMDKFD_IOC_FREE_MEMORY_OF_GPU:        (*Driver).freeMemoryOfGPU,
		AMDKFD_IOC_MAP_MEMORY_TO_GPU:         (*Driver).mapMemoryToGPU,
		AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU:     (*Driver).unmapMemoryFromGPU,
		AMDKFD_IOC_SET_XNACK_MODE:            (*Driver).setXnackMode,
		AMDKFD_IOC_AVAILABLE_MEMORY:          (*Driver).availableMemory,
		AMDKFD_IOC_SET_CU_MASK:               (*Driver).setCUMask,
		AMDKFD_IOC_RUNTIME_ENABLE:            (*Driver).runtimeEnable,
		AMDKFD_IOC_SET_SCRATCH_BACKING_VA:    (*Driver).setScratchBackingVA,
	}
	for req, h := range kfdHandlers {
		kfdByNR[IoctlNR(req)].req, kfdByNR[IoctlNR(req)].h = req, h
	}
}

func (d *Driver) kfdIoctl(req uint32, b []byte) unix.Errno {
	if IoctlType(req) != AMDKFDIoctlBase {
		return unix.ENOTTY
	}
	if IoctlNR(req) == IoctlNR(AMDKFD_IOC_SVM) {
		return d.svm(req, b)
	}
	nr := IoctlNR(req)
	canon, h := kfdByNR[nr].req, kfdByNR[nr].h
	if h == nil {
		d.logf("kfd: unknown ioctl %#x (nr %#x, size %d): ENOTTY", req, nr, IoctlSize(req))
		return unix.ENOTTY
	}
	if IoctlDir(req) != IoctlDir(canon) {
		return unix.EINVAL
	}
	// As the kernel does, an argument of another size (an older or newer
	// libhsakmt's struct) is zero-extended to the driver's struct and only
	// the caller's bytes are written back.
	if want := IoctlSize(canon); uint32(len(b)) != want {
		tmp := make([]byte, want)
		copy(tmp, b)
		e := h(d, tmp)
		copy(b, tmp)
		return e
	}
	return h(d, b)
}

// kfdByNR indexes kfdHandlers by command number.
var kfdByNR [256]struct {
	req uint32
	h   kfdHandler
}

func (d *Driver) getVersion(b []byte) unix.Errno {
	a := as[kfdIoctlGetVersionArgs](b)
	a.MajorVersion, a.MinorVersion = KFDIoctlMajorVersion, KFDIoctlMinorVersion
	return 0
}

func (d *Driver) setMemoryPolicy(b []byte) unix.Errno {
	a := as[kfdIoctlSetMemoryPolicyArgs](b)
	if d.gpuByID(a.GPUID) == nil {
		return unix.EINVAL
	}
	if a.DefaultPolicy > 1 || a.AlternatePolicy > 1 {
		return unix.EINVAL
	}
	return 0
}

// GPU clock: a 100 MHz counter from the driver's start, the rate libdrm
// reports as gpu_counter_freq.
const gpuCounterHz = 100_000_000

func (d *Driver) getClockCounters(b []byte) unix.Errno {
	a := as[kfdIoctlGetClockCountersArgs](b)
	if d.gpuByID(a.GPUID) == nil {
		return unix.EINVAL
	}
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC_RAW, &ts)
	now := uint64(ts.Nano())
	var bt unix.Timespec
	unix.ClockGettime(unix.CLOCK_BOOTTIME, &bt)
	a.GPUClockCounter = uint64(time.Since(d.start).Nanoseconds()) / (1e9 / gpuCounterHz)
	a.CPUClockCounter = now
	a.SystemClockCounter = uint64(bt.Nano())
	a.SystemClockFreq = 1_000_000_000
	return 0
}

func (d *Driver) getTileConfig(b []byte) unix.Errno {
	a := as[kfdIoctlGetTileConfigArgs](b)
	if d.gpuByID(a.GPUID) == nil {
		return unix.EINVAL
	}
	a.GBAddrConfig = 0x00000444
	a.NumBanks, a.NumRanks = 0, 0
	a.NumTileConfigs, a.NumMacroTileConfigs = 0, 0
	return 0
}

func (d *Driver) setTrapHandler(b []byte) unix.Errno {
	a := as[kfdIoctlSetTrapHandlerArgs](b)
	if d.gpuByID(a.GPUID) == nil {
		return unix.EINVAL
	}
	// The simulator reports traps itself; the handler address is accepted.
	return 0
}

// Apertures: LDS and scratch at the fixed high addresses gfx9 uses, the GPU
// VM aperture over the low canonical half, as on a dGPU with 48-bit VA.
func (d *Driver) getProcessAperturesNew(b []byte) unix.Errno {
	a := as[kfdIoctlGetProcessAperturesNewArgs](b)
	if a.NumOfNodes == 0 {
		a.NumOfNodes = uint32(len(d.gpus))
		return 0
	}
	n := int(a.NumOfNodes)
	if n > len(d.gpus) {
		n = len(d.gpus)
	}
	out := make([]byte, uint64(n)*uint64(unsafe.Sizeof(kfdProcessDeviceApertures{})))
	for i := 0; i < n; i++ {
		ap := as[kfdProcessDeviceApertures](out[i*int(unsafe.Sizeof(kfdProcessDeviceApertures{})):])
		g := d.gpus[i]
		base := uint64(i+1) << 48
		*ap = kfdProcessDeviceApertures{
			LDSBase: 0x1000000000000 + base, LDSLimit: 0x1000000000000 + base + 0xffffffff,
			ScratchBase: 0x2000000000000 + base, ScratchLimit: 0x2000000000000 + base + 0xffffffff,
			GPUVMBase: 1 << 21, GPUVMLimit: 1<<47 - 1, GPUID: g.id,
		}
		// gfx9: LDS and scratch apertures at their architectural
		// addresses (SH_MEM_BASES), 4 GiB each.
		ap.LDSBase, ap.LDSLimit = 0x1000000000000, 0x10000ffffffff
		ap.ScratchBase, ap.ScratchLimit = 0x2000000000000, 0x20000ffffffff
	}
	a.NumOfNodes = uint32(n)
	return copyOut(a.KFDProcessDeviceAperturesPtr, out)
}

func (d *Driver) acquireVM(b []byte) unix.Errno {
	a := as[kfdIoctlAcquireVMArgs](b)
	g := d.gpuByID(a.GPUID)
	if g == nil {
		return unix.EINVAL
	}
	if d.RenderMinor(int(a.DRMFd)) != DRMRenderMinorBase+g.index {
		return unix.EINVAL
	}
	d.mu.Lock()
	g.vmFd = int(a.DRMFd)
	d.mu.Unlock()
	return 0
}

func (d *Driver) setXnackMode(b []byte) unix.Errno {
	a := as[kfdIoctlSetXnackModeArgs](b)
	if a.XnackEnabled < 0 {
		a.XnackEnabled = 0
		if d.xnack {
			a.XnackEnabled = 1
		}
		return 0
	}
	if a.XnackEnabled != 0 {
		// The simulated GPUs do not retry faults (xnack-).
		return unix.EPERM
	}
	d.xnack = false
	return 0
}

func (d *Driver) availableMemory(b []byte) unix.Errno {
	a := as[kfdIoctlGetAvailableMemoryArgs](b)
	g := d.gpuByID(a.GPUID)
	if g == nil {
		return unix.EINVAL
	}
	d.mu.Lock()
	used := uint64(0)
	for _, o := range d.bos {
		if o.gpu == g && o.flags&KFD_IOC_ALLOC_MEM_FLAGS_VRAM != 0 {
			used += o.size
		}
	}
	d.mu.Unlock()
	a.Available = 0
	if used < g.gpu.LocalMemSize {
		a.Available = g.gpu.LocalMemSize - used
	}
	return 0
}

func (d *Driver) setScratchBackingVA(b []byte) unix.Errno {
	a := as[kfdIoctlSetScratchBackingVAArgs](b)
	if d.gpuByID(a.GPUID) == nil {
		return unix.EINVAL
	}
	// Scratch lives in the simulator's per-lane private memory; the
	// backing address is accepted.
	return 0
}

func (d *Driver) setCUMask(b []byte) unix.Errno { return 0 }

func (d *Driver) runtimeEnable(b []byte) unix.Errno {
	// No debugger support: the topology leaves DebugSupportedFirmware
	// clear, so libhsakmt only gets here when asked explicitly.
	return unix.EOPNOTSUPP
}

func (d *Driver) svm(req uint32, b []byte) unix.Errno {
	if len(b) < int(unsafe.Sizeof(kfdIoctlSVMArgs{})) {
		return unix.EINVAL
	}
	a := as[kfdIoctlSVMArgs](b)
	if uint64(IoctlSize(req)) != uint64(unsafe.Sizeof(kfdIoctlSVMArgs{}))+8*uint64(a.NAttr) {
		return unix.EINVAL
	}
	// SVM is not advertised (SVMAPISupported is clear); the range API is
	// refused as by a kernel without CONFIG_HSA_AMD_SVM.
	return unix.EPERM
}
