package kfd

import (
	"encoding/binary"
	"unsafe"

	"golang.org/x/sys/unix"
)

// DRM ioctls of the render node (drm.h, amdgpu_drm.h) that libdrm issues.
const (
	DRMIoctlBase    = 'd'
	DRMCommandBase  = 0x40
	DRM_AMDGPU_INFO = 0x05
)

// DRM ioctl requests.
var (
	DRM_IOCTL_VERSION     = ioc(iocRead|iocWrite, DRMIoctlBase, 0x00, uint32(unsafe.Sizeof(drmVersion{})))
	DRM_IOCTL_GET_UNIQUE  = ioc(iocRead|iocWrite, DRMIoctlBase, 0x01, 16)
	DRM_IOCTL_AMDGPU_INFO = ioc(iocWrite, DRMIoctlBase, DRMCommandBase+DRM_AMDGPU_INFO, uint32(unsafe.Sizeof(drmAMDGPUInfo{})))
)

// AMDGPU_INFO queries.
const (
	AMDGPU_INFO_ACCEL_WORKING = 0x00
	AMDGPU_INFO_HW_IP_INFO    = 0x02
	AMDGPU_INFO_HW_IP_COUNT   = 0x03
	AMDGPU_INFO_TIMESTAMP     = 0x05
	AMDGPU_INFO_FW_VERSION    = 0x0e
	AMDGPU_INFO_VRAM_USAGE    = 0x10
	AMDGPU_INFO_GTT_USAGE     = 0x11
	AMDGPU_INFO_VRAM_GTT      = 0x14
	AMDGPU_INFO_READ_MMR_REG  = 0x15
	AMDGPU_INFO_DEV_INFO      = 0x16
	AMDGPU_INFO_MEMORY        = 0x19
)

// AMDGPU_VRAM_TYPE_HBM is drm_amdgpu_info_device.vram_type for HBM.
const AMDGPU_VRAM_TYPE_HBM = 6

// struct drm_version
type drmVersion struct {
	VersionMajor      int32
	VersionMinor      int32
	VersionPatchlevel int32
	_                 int32
	NameLen           uint64
	Name              uint64
	DateLen           uint64
	Date              uint64
	DescLen           uint64
	Desc              uint64
}

// struct drm_amdgpu_info
type drmAMDGPUInfo struct {
	ReturnPointer uint64
	ReturnSize    uint32
	Query         uint32
	Union         [16]byte
}

// struct drm_amdgpu_info_device
type drmAMDGPUInfoDevice struct {
	DeviceID                 uint32
	ChipRev                  uint32
	ExternalRev              uint32
	PCIRev                   uint32
	Family                   uint32
	NumShaderEngines         uint32
	NumShaderArraysPerEngine uint32
	GPUCounterFreq           uint32
	MaxEngineClock           uint64
	MaxMemoryClock           uint64
	CUActiveNumber           uint32
	CUAOMask                 uint32
	CUBitmap                 [4][4]uint32
	EnabledRBPipesMask       uint32
	NumRBPipes               uint32
	NumHWGfxContexts         uint32
	PCIeGen                  uint32
	IDsFlags                 uint64
	VirtualAddressOffset     uint64
	VirtualAddressMax        uint64
	VirtualAddressAlignment  uint32
	PTEFragmentSize          uint32
	GARTPageSize             uint32
	CERAMSize                uint32
	VRAMType                 uint32
	VRAMBitWidth             uint32
	VCEHarvestConfig         uint32
	GCDoubleOffchipLDSBuf    uint32
	PrimBufGPUAddr           uint64
	PosBufGPUAddr            uint64
	CntlSBBufGPUAddr         uint64
	ParamBufGPUAddr          uint64
	PrimBufSize              uint32
	PosBufSize               uint32
	CntlSBBufSize            uint32
	ParamBufSize             uint32
	WaveFrontSize            uint32
	NumShaderVisibleVGPRs    uint32
	NumCUPerSH               uint32
	NumTCCBlocks             uint32
	GSVGTTableDepth          uint32
	GSPrimBufferDepth        uint32
	MaxGSWavesPerVGT         uint32
	PCIeNumLanes             uint32
	CUAOBitmap               [4][4]uint32
	HighVAOffset             uint64
	HighVAMax                uint64
	PAScTileSteeringOverride uint32
	_                        uint32
	TCCDisabledMask          uint64
	MinEngineClock           uint64
	MinMemoryClock           uint64
	TCPCacheSize             uint32
	NumSQCPerWGP             uint32
	SQCDataCacheSize         uint32
	SQCInstCacheSize         uint32
	GL1CCacheSize            uint32
	GL2CCacheSize            uint32
	MallSize                 uint64
	EnabledRBPipesMaskHi     uint32
	ShadowSize               uint32
	ShadowAlignment          uint32
	CSASize                  uint32
	CSAAlignment             uint32
	_                        uint32
}

// struct drm_amdgpu_heap_info and drm_amdgpu_memory_info
type drmAMDGPUHeapInfo struct {
	TotalHeapSize  uint64
	UsableHeapSize uint64
	HeapUsage      uint64
	MaxAllocation  uint64
}

type drmAMDGPUMemoryInfo struct {
	VRAM          drmAMDGPUHeapInfo
	CPUAccessible drmAMDGPUHeapInfo
	GTT           drmAMDGPUHeapInfo
}

// struct drm_amdgpu_info_vram_gtt
type drmAMDGPUInfoVRAMGTT struct {
	VRAMSize          uint64
	VRAMCPUAccessible uint64
	GTTSize           uint64
}

// DRM driver identity of the simulated render node.
const (
	drmDriverName   = "amdgpu"
	drmDriverDate   = "20150101"
	drmDriverDesc   = "AMD GPU (rocjitsu simulator)"
	drmVersionMajor = 3
	drmVersionMinor = 57
)

func (d *Driver) drmIoctl(g *gpuState, req uint32, b []byte) unix.Errno {
	if g == nil {
		return unix.ENODEV
	}
	switch req {
	case DRM_IOCTL_VERSION:
		return d.drmVersion(b)
	case DRM_IOCTL_AMDGPU_INFO:
		return d.amdgpuInfo(g, b)
	}
	d.logf("kfd: render node: unsupported DRM ioctl %#x (nr %#x): EINVAL", req, IoctlNR(req))
	if IoctlType(req) != DRMIoctlBase {
		return unix.ENOTTY
	}
	return unix.EINVAL
}

// copyString writes s into the user buffer (ptr, n) as the kernel does:
// truncated to n, length returned in full.
func copyString(ptr uint64, n *uint64, s string) unix.Errno {
	if ptr != 0 && *n > 0 {
		c := uint64(len(s))
		if c > *n {
			c = *n
		}
		if e := copyOut(ptr, []byte(s[:c])); e != 0 {
			return e
		}
	}
	*n = uint64(len(s))
	return 0
}

func (d *Driver) drmVersion(b []byte) unix.Errno {
	v := as[drmVersion](b)
	v.VersionMajor, v.VersionMinor, v.VersionPatchlevel = drmVersionMajor, drmVersionMinor, 0
	for _, f := range []struct {
		ptr uint64
		n   *uint64
		s   string
	}{{v.Name, &v.NameLen, drmDriverName}, {v.Date, &v.DateLen, drmDriverDate}, {v.Desc, &v.DescLen, drmDriverDesc}} {
		if e := copyString(f.ptr, f.n, f.s); e != 0 {
			return e
		}
	}
	return 0
}

func (d *Driver) amdgpuInfo(g *gpuState, b []byte) unix.Errno {
	in := as[drmAMDGPUInfo](b)
	if in.ReturnPointer == 0 || in.ReturnSize == 0 || in.ReturnSize > 1<<20 {
		return unix.EINVAL
	}
	out := make([]byte, in.ReturnSize)
	e := d.amdgpuInfoQuery(g, in, out)
	if e != 0 {
		return e
	}
	return copyOut(in.ReturnPointer, out)
}

func (d *Driver) amdgpuInfoQuery(g *gpuState, in *drmAMDGPUInfo, out []byte) unix.Errno {
	put := func(p unsafe.Pointer, size uintptr) unix.Errno {
		src := unsafe.Slice((*byte)(p), size)
		n := copy(out, src)
		clear(out[n:])
		return 0
	}
	le := binary.LittleEndian
	switch in.Query {
	case AMDGPU_INFO_ACCEL_WORKING:
		if len(out) < 4 {
			return unix.EINVAL
		}
		le.PutUint32(out, 1)
		return 0
	case AMDGPU_INFO_DEV_INFO:
		di := d.deviceInfo(g)
		return put(unsafe.Pointer(&di), unsafe.Sizeof(di))
	case AMDGPU_INFO_VRAM_GTT:
		v := drmAMDGPUInfoVRAMGTT{VRAMSize: g.gpu.LocalMemSize, VRAMCPUAccessible: g.gpu.LocalMemSize, GTTSize: systemMemory()}
		return put(unsafe.Pointer(&v), unsafe.Sizeof(v))
	case AMDGPU_INFO_MEMORY:
		vram := drmAMDGPUHeapInfo{TotalHeapSize: g.gpu.LocalMemSize, UsableHeapSize: g.gpu.LocalMemSize, MaxAllocation: g.gpu.LocalMemSize}
		gtt := drmAMDGPUHeapInfo{TotalHeapSize: systemMemory(), UsableHeapSize: systemMemory(), MaxAllocation: systemMemory()}
		m := drmAMDGPUMemoryInfo{VRAM: vram, CPUAccessible: vram, GTT: gtt}
		return put(unsafe.Pointer(&m), unsafe.Sizeof(m))
	case AMDGPU_INFO_READ_MMR_REG:
		// Register reads (gb_addr_config and friends) read as zero.
		clear(out)
		return 0
	case AMDGPU_INFO_TIMESTAMP:
		if len(out) < 8 {
			return unix.EINVAL
		}
		le.PutUint64(out, d.gpuTicks())
		return 0
	case AMDGPU_INFO_VRAM_USAGE, AMDGPU_INFO_GTT_USAGE, AMDGPU_INFO_FW_VERSION, AMDGPU_INFO_HW_IP_INFO, AMDGPU_INFO_HW_IP_COUNT:
		clear(out)
		return 0
	}
	d.logf("kfd: render node: AMDGPU_INFO query %#x answered with zeros", in.Query)
	clear(out)
	return 0
}

func (d *Driver) deviceInfo(g *gpuState) drmAMDGPUInfoDevice {
	gp := g.gpu
	di := drmAMDGPUInfoDevice{
		DeviceID: gp.DeviceID, ChipRev: gp.Revision, ExternalRev: gp.Revision + 1, PCIRev: gp.Revision,
		Family: gp.FamilyID, NumShaderEngines: gp.ShaderEngines, NumShaderArraysPerEngine: 1,
		GPUCounterFreq: gpuCounterHz / 1000, MaxEngineClock: uint64(gp.EngineClockMHz) * 1000,
		MaxMemoryClock: 1300 * 1000, CUActiveNumber: gp.ComputeUnits, CUAOMask: 0xffffffff,
		NumRBPipes: 0, PCIeGen: 5, VirtualAddressOffset: 1 << 21, VirtualAddressMax: 1 << 47,
		VirtualAddressAlignment: pageSize, PTEFragmentSize: 1 << 21, GARTPageSize: pageSize,
		VRAMType: AMDGPU_VRAM_TYPE_HBM, VRAMBitWidth: 8192, WaveFrontSize: gp.WaveSize,
		NumShaderVisibleVGPRs: 512, NumCUPerSH: gp.CUsPerShaderArray, NumTCCBlocks: 16, PCIeNumLanes: 16,
		HighVAOffset: 0xffff800000000000, HighVAMax: 0xffffffffffe00000,
		MinEngineClock: 500 * 1000, MinMemoryClock: 900 * 1000,
		TCPCacheSize: 16, SQCDataCacheSize: 16, SQCInstCacheSize: 64, GL2CCacheSize: 4096,
	}
	for se := 0; se < 4; se++ {
		for sh := 0; sh < 4; sh++ {
			if uint32(se*4+sh) < gp.ShaderEngines {
				di.CUBitmap[se][sh] = 1<<gp.CUsPerShaderArray - 1
			}
		}
	}
	return di
}
