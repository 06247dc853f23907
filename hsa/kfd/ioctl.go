package kfd

// The KFD ioctl interface of linux/kfd_ioctl.h (interface 1.17), mirrored
// name for name. Argument structs are the C structs' exact layouts (every
// field naturally aligned, no implicit padding), so a handler overlays them
// on the caller's argument bytes. TestIoctlLayout checks every size and
// offset against the header with a compiled C program.

// Interface version reported by AMDKFD_IOC_GET_VERSION.
const (
	KFDIoctlMajorVersion = 1
	KFDIoctlMinorVersion = 17
)

// ioctl request encoding (asm-generic/ioctl.h).
const (
	iocNone  = 0
	iocWrite = 1
	iocRead  = 2

	iocNRBits   = 8
	iocTypeBits = 8
	iocSizeBits = 14

	iocNRShift   = 0
	iocTypeShift = iocNRShift + iocNRBits
	iocSizeShift = iocTypeShift + iocTypeBits
	iocDirShift  = iocSizeShift + iocSizeBits
)

func ioc(dir, typ, nr, size uint32) uint32 {
	return dir<<iocDirShift | typ<<iocTypeShift | nr<<iocNRShift | size<<iocSizeShift
}

// IoctlNR returns the command number of an ioctl request.
func IoctlNR(req uint32) uint32 { return req >> iocNRShift & (1<<iocNRBits - 1) }

// IoctlType returns the type (magic) byte of an ioctl request.
func IoctlType(req uint32) uint32 { return req >> iocTypeShift & (1<<iocTypeBits - 1) }

// IoctlSize returns the argument size encoded in an ioctl request.
func IoctlSize(req uint32) uint32 { return req >> iocSizeShift & (1<<iocSizeBits - 1) }

// IoctlDir returns the direction bits (iocRead/iocWrite) of a request.
func IoctlDir(req uint32) uint32 { return req >> iocDirShift }

// AMDKFDIoctlBase is the KFD ioctl type byte ('K').
const AMDKFDIoctlBase = 'K'

func amdkfdIOR(nr, size uint32) uint32  { return ioc(iocRead, AMDKFDIoctlBase, nr, size) }
func amdkfdIOW(nr, size uint32) uint32  { return ioc(iocWrite, AMDKFDIoctlBase, nr, size) }
func amdkfdIOWR(nr, size uint32) uint32 { return ioc(iocRead|iocWrite, AMDKFDIoctlBase, nr, size) }

// KFD ioctl requests.
var (
	AMDKFD_IOC_GET_VERSION               = amdkfdIOR(0x01, 8)
	AMDKFD_IOC_CREATE_QUEUE              = amdkfdIOWR(0x02, 96)
	AMDKFD_IOC_DESTROY_QUEUE             = amdkfdIOWR(0x03, 8)
	AMDKFD_IOC_SET_MEMORY_POLICY         = amdkfdIOW(0x04, 32)
	AMDKFD_IOC_GET_CLOCK_COUNTERS        = amdkfdIOWR(0x05, 40)
	AMDKFD_IOC_GET_PROCESS_APERTURES     = amdkfdIOR(0x06, 400)
	AMDKFD_IOC_UPDATE_QUEUE              = amdkfdIOW(0x07, 24)
	AMDKFD_IOC_CREATE_EVENT              = amdkfdIOWR(0x08, 32)
	AMDKFD_IOC_DESTROY_EVENT             = amdkfdIOW(0x09, 8)
	AMDKFD_IOC_SET_EVENT                 = amdkfdIOW(0x0A, 8)
	AMDKFD_IOC_RESET_EVENT               = amdkfdIOW(0x0B, 8)
	AMDKFD_IOC_WAIT_EVENTS               = amdkfdIOWR(0x0C, 24)
	AMDKFD_IOC_SET_SCRATCH_BACKING_VA    = amdkfdIOWR(0x11, 16)
	AMDKFD_IOC_GET_TILE_CONFIG           = amdkfdIOWR(0x12, 40)
	AMDKFD_IOC_SET_TRAP_HANDLER          = amdkfdIOW(0x13, 24)
	AMDKFD_IOC_GET_PROCESS_APERTURES_NEW = amdkfdIOWR(0x14, 16)
	AMDKFD_IOC_ACQUIRE_VM                = amdkfdIOW(0x15, 8)
	AMDKFD_IOC_ALLOC_MEMORY_OF_GPU       = amdkfdIOWR(0x16, 40)
	AMDKFD_IOC_FREE_MEMORY_OF_GPU        = amdkfdIOW(0x17, 8)
	AMDKFD_IOC_MAP_MEMORY_TO_GPU         = amdkfdIOWR(0x18, 24)
	AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU     = amdkfdIOWR(0x19, 24)
	AMDKFD_IOC_SET_CU_MASK               = amdkfdIOW(0x1A, 16)
	AMDKFD_IOC_GET_QUEUE_WAVE_STATE      = amdkfdIOWR(0x1B, 24)
	AMDKFD_IOC_ALLOC_QUEUE_GWS           = amdkfdIOWR(0x1E, 16)
	AMDKFD_IOC_SMI_EVENTS                = amdkfdIOWR(0x1F, 8)
	AMDKFD_IOC_SVM                       = amdkfdIOWR(0x20, 24) // + 8 bytes per attribute in the size field
	AMDKFD_IOC_SET_XNACK_MODE            = amdkfdIOWR(0x21, 4)
	AMDKFD_IOC_AVAILABLE_MEMORY          = amdkfdIOWR(0x23, 16)
	AMDKFD_IOC_RUNTIME_ENABLE            = amdkfdIOWR(0x25, 16)
	AMDKFD_IOC_DBG_TRAP                  = amdkfdIOWR(0x26, 32)
)

// Queue types (KFD_IOC_QUEUE_TYPE_*).
const (
	KFD_IOC_QUEUE_TYPE_COMPUTE        = 0x0
	KFD_IOC_QUEUE_TYPE_SDMA           = 0x1
	KFD_IOC_QUEUE_TYPE_COMPUTE_AQL    = 0x2
	KFD_IOC_QUEUE_TYPE_SDMA_XGMI      = 0x3
	KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID = 0x4
)

// Event types (KFD_IOC_EVENT_*) and wait results.
const (
	KFD_IOC_EVENT_SIGNAL            = 0
	KFD_IOC_EVENT_NODECHANGE        = 1
	KFD_IOC_EVENT_DEVICESTATECHANGE = 2
	KFD_IOC_EVENT_HW_EXCEPTION      = 3
	KFD_IOC_EVENT_SYSTEM_EVENT      = 4
	KFD_IOC_EVENT_DEBUG_EVENT       = 5
	KFD_IOC_EVENT_PROFILE_EVENT     = 6
	KFD_IOC_EVENT_QUEUE_EVENT       = 7
	KFD_IOC_EVENT_MEMORY            = 8

	KFD_IOC_WAIT_RESULT_COMPLETE = 0
	KFD_IOC_WAIT_RESULT_TIMEOUT  = 1
	KFD_IOC_WAIT_RESULT_FAIL     = 2

	KFD_SIGNAL_EVENT_LIMIT = 4096
)

// Allocation flags (KFD_IOC_ALLOC_MEM_FLAGS_*).
const (
	KFD_IOC_ALLOC_MEM_FLAGS_VRAM          = 1 << 0
	KFD_IOC_ALLOC_MEM_FLAGS_GTT           = 1 << 1
	KFD_IOC_ALLOC_MEM_FLAGS_USERPTR       = 1 << 2
	KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL      = 1 << 3
	KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP    = 1 << 4
	KFD_IOC_ALLOC_MEM_FLAGS_CONTIGUOUS    = 1 << 23
	KFD_IOC_ALLOC_MEM_FLAGS_EXT_COHERENT  = 1 << 24
	KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED      = 1 << 25
	KFD_IOC_ALLOC_MEM_FLAGS_COHERENT      = 1 << 26
	KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM = 1 << 27
	KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE = 1 << 28
	KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC        = 1 << 29
	KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE    = 1 << 30
	KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE      = 1 << 31
)

// SVM operations (enum kfd_ioctl_svm_op).
const (
	KFD_IOCTL_SVM_OP_SET_ATTR = 0
	KFD_IOCTL_SVM_OP_GET_ATTR = 1
)

// struct kfd_ioctl_get_version_args
type kfdIoctlGetVersionArgs struct {
	MajorVersion uint32
	MinorVersion uint32
}

// struct kfd_ioctl_create_queue_args
type kfdIoctlCreateQueueArgs struct {
	RingBaseAddress       uint64
	WritePointerAddress   uint64
	ReadPointerAddress    uint64
	DoorbellOffset        uint64
	RingSize              uint32
	GPUID                 uint32
	QueueType             uint32
	QueuePercentage       uint32
	QueuePriority         uint32
	QueueID               uint32
	EOPBufferAddress      uint64
	EOPBufferSize         uint64
	CtxSaveRestoreAddress uint64
	CtxSaveRestoreSize    uint32
	CtlStackSize          uint32
	SDMAEngineID          uint32
	Pad                   uint32
}

// struct kfd_ioctl_destroy_queue_args
type kfdIoctlDestroyQueueArgs struct {
	QueueID uint32
	Pad     uint32
}

// struct kfd_ioctl_update_queue_args
type kfdIoctlUpdateQueueArgs struct {
	RingBaseAddress uint64
	QueueID         uint32
	RingSize        uint32
	QueuePercentage uint32
	QueuePriority   uint32
}

// struct kfd_ioctl_get_clock_counters_args
type kfdIoctlGetClockCountersArgs struct {
	GPUClockCounter    uint64
	CPUClockCounter    uint64
	SystemClockCounter uint64
	SystemClockFreq    uint64
	GPUID              uint32
	Pad                uint32
}

// struct kfd_process_device_apertures
type kfdProcessDeviceApertures struct {
	LDSBase      uint64
	LDSLimit     uint64
	ScratchBase  uint64
	ScratchLimit uint64
	GPUVMBase    uint64
	GPUVMLimit   uint64
	GPUID        uint32
	Pad          uint32
}

// struct kfd_ioctl_get_process_apertures_new_args
type kfdIoctlGetProcessAperturesNewArgs struct {
	KFDProcessDeviceAperturesPtr uint64
	NumOfNodes                   uint32
	Pad                          uint32
}

// struct kfd_ioctl_create_event_args
type kfdIoctlCreateEventArgs struct {
	EventPageOffset  uint64
	EventTriggerData uint32
	EventType        uint32
	AutoReset        uint32
	NodeID           uint32
	EventID          uint32
	EventSlotIndex   uint32
}

// struct kfd_ioctl_destroy_event_args, set_event_args, reset_event_args
type kfdIoctlEventIDArgs struct {
	EventID uint32
	Pad     uint32
}

// struct kfd_event_data (the signal_event_data member of the union)
type kfdEventData struct {
	LastEventAge    uint64 // signal_event_data.last_event_age
	Union           [24]byte
	KFDEventDataExt uint64
	EventID         uint32
	Pad             uint32
}

// struct kfd_ioctl_wait_events_args
type kfdIoctlWaitEventsArgs struct {
	EventsPtr  uint64
	NumEvents  uint32
	WaitForAll uint32
	Timeout    uint32
	WaitResult uint32
}

// struct kfd_ioctl_get_tile_config_args
type kfdIoctlGetTileConfigArgs struct {
	TileConfigPtr       uint64
	MacroTileConfigPtr  uint64
	NumTileConfigs      uint32
	NumMacroTileConfigs uint32
	GPUID               uint32
	GBAddrConfig        uint32
	NumBanks            uint32
	NumRanks            uint32
}

// struct kfd_ioctl_acquire_vm_args
type kfdIoctlAcquireVMArgs struct {
	DRMFd uint32
	GPUID uint32
}

// struct kfd_ioctl_alloc_memory_of_gpu_args
type kfdIoctlAllocMemoryOfGPUArgs struct {
	VAAddr     uint64
	Size       uint64
	Handle     uint64
	MmapOffset uint64
	GPUID      uint32
	Flags      uint32
}

// struct kfd_ioctl_free_memory_of_gpu_args
type kfdIoctlFreeMemoryOfGPUArgs struct {
	Handle uint64
}

// struct kfd_ioctl_map_memory_to_gpu_args, unmap_memory_from_gpu_args
type kfdIoctlMapMemoryToGPUArgs struct {
	Handle            uint64
	DeviceIDsArrayPtr uint64
	NDevices          uint32
	NSuccess          uint32
}

// struct kfd_ioctl_svm_args (without its flexible attribute array)
type kfdIoctlSVMArgs struct {
	StartAddr uint64
	Size      uint64
	Op        uint32
	NAttr     uint32
}

// struct kfd_ioctl_set_xnack_mode_args
type kfdIoctlSetXnackModeArgs struct {
	XnackEnabled int32
}

// struct kfd_ioctl_get_available_memory_args
type kfdIoctlGetAvailableMemoryArgs struct {
	Available uint64
	GPUID     uint32
	Pad       uint32
}

// struct kfd_ioctl_set_trap_handler_args
type kfdIoctlSetTrapHandlerArgs struct {
	TBAAddr uint64
	TMAAddr uint64
	GPUID   uint32
	Pad     uint32
}

// struct kfd_ioctl_set_memory_policy_args
type kfdIoctlSetMemoryPolicyArgs struct {
	AlternateApertureBase uint64
	AlternateApertureSize uint64
	GPUID                 uint32
	DefaultPolicy         uint32
	AlternatePolicy       uint32
	Pad                   uint32
}

// The mmap offset scheme of the KFD device file (kfd_priv.h): the type in
// bits 63..62, the gpu_id in bits 61..46, the offset below.
const (
	KFD_MMAP_TYPE_SHIFT        = 62
	KFD_MMAP_TYPE_MASK         = 0x3 << KFD_MMAP_TYPE_SHIFT
	KFD_MMAP_TYPE_DOORBELL     = 0x3 << KFD_MMAP_TYPE_SHIFT
	KFD_MMAP_TYPE_EVENTS       = 0x2 << KFD_MMAP_TYPE_SHIFT
	KFD_MMAP_TYPE_RESERVED_MEM = 0x1 << KFD_MMAP_TYPE_SHIFT
	KFD_MMAP_TYPE_MMIO         = 0x0 << KFD_MMAP_TYPE_SHIFT

	KFD_MMAP_GPU_ID_SHIFT = 46
	KFD_MMAP_GPU_ID_MASK  = ((1 << 16) - 1) << KFD_MMAP_GPU_ID_SHIFT
	KFD_MMAP_OFFSET_MASK  = (1 << KFD_MMAP_GPU_ID_SHIFT) - 1
)

// MmapOffset is a decoded KFD mmap offset.
type MmapOffset struct {
	// Type is one of KFD_MMAP_TYPE_*.
	Type uint64
	// GPUID is the gpu_id field.
	GPUID uint32
	// Offset is the low 46 bits.
	Offset uint64
}

// DecodeMmapOffset splits a KFD mmap offset into its fields.
func DecodeMmapOffset(off uint64) MmapOffset {
	return MmapOffset{Type: off & KFD_MMAP_TYPE_MASK, GPUID: uint32(off & KFD_MMAP_GPU_ID_MASK >> KFD_MMAP_GPU_ID_SHIFT), Offset: off & KFD_MMAP_OFFSET_MASK}
}

// EncodeMmapOffset is the inverse of DecodeMmapOffset.
func EncodeMmapOffset(typ uint64, gpuID uint32, offset uint64) uint64 {
	return typ&KFD_MMAP_TYPE_MASK | uint64(gpuID)<<KFD_MMAP_GPU_ID_SHIFT&KFD_MMAP_GPU_ID_MASK | offset&KFD_MMAP_OFFSET_MASK
}

// struct kfd_ioctl_set_scratch_backing_va_args
type kfdIoctlSetScratchBackingVAArgs struct {
	VAAddr uint64
	GPUID  uint32
	Pad    uint32
}
