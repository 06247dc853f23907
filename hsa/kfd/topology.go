package kfd

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// HSA_CAPABILITY bits of a node's "capability" property (kfd_sysfs.h).
const (
	HSA_CAP_HOT_PLUGGABLE                 = 0x00000001
	HSA_CAP_ATS_PRESENT                   = 0x00000002
	HSA_CAP_SHARED_WITH_GRAPHICS          = 0x00000004
	HSA_CAP_QUEUE_SIZE_POW2               = 0x00000008
	HSA_CAP_QUEUE_SIZE_32BIT              = 0x00000010
	HSA_CAP_QUEUE_IDLE_EVENT              = 0x00000020
	HSA_CAP_VA_LIMIT                      = 0x00000040
	HSA_CAP_WATCH_POINTS_SUPPORTED        = 0x00000080
	HSA_CAP_DOORBELL_TYPE_2_0             = 0x2 << 12
	HSA_CAP_AQL_QUEUE_DOUBLE_MAP          = 0x00004000
	HSA_CAP_SRAM_EDCSUPPORTED             = 0x04000000
	HSA_CAP_SVMAPI_SUPPORTED              = 0x08000000
	HSA_CAP_FLAGS_COHERENTHOSTACCESS      = 0x10000000
	HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED = 0x20000000
)

// Memory heap types of a mem_banks entry (HSA_MEM_HEAP_TYPE_*).
const (
	HSA_MEM_HEAP_TYPE_SYSTEM     = 0
	HSA_MEM_HEAP_TYPE_FB_PUBLIC  = 1
	HSA_MEM_HEAP_TYPE_FB_PRIVATE = 2
)

// DRMRenderMinorBase is the first DRM render-node minor (renderD128).
const DRMRenderMinorBase = 128

// GPU describes one simulated GPU node: the properties the KFD topology
// reports for it.
type GPU struct {
	// Target is the processor ("gfx942", "gfx950", ...).
	Target string
	// GfxTargetVersion is the topology's gfx_target_version (90402).
	GfxTargetVersion uint32
	// DeviceID and Revision are the PCI device id and revision, which
	// libdrm maps to the marketing name through its amdgpu.ids table.
	DeviceID, Revision uint32
	// FamilyID is the AMDGPU family (AMDGPU_FAMILY_AI = 141 for gfx9).
	FamilyID uint32
	// ComputeUnits is the number of CUs; SIMDsPerCU and MaxWavesPerSIMD
	// are per CU.
	ComputeUnits, SIMDsPerCU, MaxWavesPerSIMD uint32
	// ShaderEngines (array_count) and CUsPerShaderArray.
	ShaderEngines, CUsPerShaderArray uint32
	// NumXCC is the number of accelerated compute complexes.
	NumXCC uint32
	// LDSKiB is the LDS per workgroup in KiB; WaveSize the wavefront size.
	LDSKiB, WaveSize uint32
	// LocalMemSize is the VRAM size in bytes.
	LocalMemSize uint64
	// EngineClockMHz is the maximum compute clock.
	EngineClockMHz uint32
	// MarketingName is the product name the driver reports.
	MarketingName string
	// RDNA marks a graphics-class device: no SRAM ECC, wave32 default.
	RDNA bool
}

// KnownGPU returns the simulated device for a processor name.
func KnownGPU(target string) (GPU, error) {
	switch target {
	case "gfx942":
		return GPU{Target: "gfx942", GfxTargetVersion: 90402, DeviceID: 0x74a1, Revision: 0, FamilyID: 141,
			ComputeUnits: 304, SIMDsPerCU: 4, MaxWavesPerSIMD: 8, ShaderEngines: 32, CUsPerShaderArray: 10,
			NumXCC: 8, LDSKiB: 64, WaveSize: 64, LocalMemSize: 192 << 30, EngineClockMHz: 2100,
			MarketingName: "AMD Instinct MI300X"}, nil
	case "gfx950":
		return GPU{Target: "gfx950", GfxTargetVersion: 90500, DeviceID: 0x75a3, Revision: 0, FamilyID: 141,
			ComputeUnits: 256, SIMDsPerCU: 4, MaxWavesPerSIMD: 8, ShaderEngines: 32, CUsPerShaderArray: 8,
			NumXCC: 8, LDSKiB: 160, WaveSize: 64, LocalMemSize: 288 << 30, EngineClockMHz: 2400,
			MarketingName: "AMD Instinct MI355X"}, nil
	case "gfx1200":
		return GPU{Target: "gfx1200", GfxTargetVersion: 120000, DeviceID: 0x7590, Revision: 0xc0, FamilyID: 152,
			ComputeUnits: 32, SIMDsPerCU: 2, MaxWavesPerSIMD: 16, ShaderEngines: 4, CUsPerShaderArray: 8,
			NumXCC: 1, LDSKiB: 64, WaveSize: 32, LocalMemSize: 16 << 30, EngineClockMHz: 3320, RDNA: true,
			MarketingName: "AMD Radeon RX 9060 XT"}, nil
	case "gfx1201":
		return GPU{Target: "gfx1201", GfxTargetVersion: 120001, DeviceID: 0x7550, Revision: 0xc0, FamilyID: 152,
			ComputeUnits: 64, SIMDsPerCU: 2, MaxWavesPerSIMD: 16, ShaderEngines: 8, CUsPerShaderArray: 8,
			NumXCC: 1, LDSKiB: 64, WaveSize: 32, LocalMemSize: 16 << 30, EngineClockMHz: 2970, RDNA: true,
			MarketingName: "AMD Radeon RX 9070 XT"}, nil
	}
	return GPU{}, fmt.Errorf("kfd: no simulated device for %q (want gfx942, gfx950, gfx1200 or gfx1201)", target)
}

// GPUID returns the gpu_id of the GPU at topology node index node (node 0
// is the CPU): a stable value derived from the index, as KFD derives its
// ids from device properties.
func GPUID(node int) uint32 { return uint32(0x1000 + 0x111*node) }

type prop struct {
	name string
	val  uint64
}

func writeProps(path string, props []prop) error {
	var b strings.Builder
	for _, p := range props {
		fmt.Fprintf(&b, "%s %d\n", p.name, p.val)
	}
	return os.WriteFile(path, []byte(b.String()), 0o444)
}

// Topology is the simulated system: one CPU node and the GPUs, in node
// order (GPU i is node i+1).
type Topology struct {
	GPUs []GPU
}

// KFDTopologyPath and the other sysfs paths the driver serves.
const (
	KFDSysfsPath     = "/sys/devices/virtual/kfd/kfd"
	KFDTopologyPath  = KFDSysfsPath + "/topology"
	KFDClassPath     = "/sys/class/kfd"
	DRMClassPath     = "/sys/class/drm"
	DevCharPath      = "/sys/dev/char"
	AMDGPUModulePath = "/sys/module/amdgpu"
	KFDDevicePath    = "/dev/kfd"
	DRIDevicePath    = "/dev/dri"
	DRMMajor         = 226
)

// WriteSysfs writes the topology as a sysfs tree under root: root + a real
// sysfs path is the file the driver answers for that path.
func (t *Topology) WriteSysfs(root string) error {
	topo := filepath.Join(root, KFDTopologyPath)
	if err := os.MkdirAll(filepath.Join(topo, "nodes"), 0o755); err != nil {
		return fmt.Errorf("kfd: sysfs: %w", err)
	}
	w := func(rel, s string) error {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(s), 0o444)
	}
	if err := w(KFDTopologyPath+"/generation_id", "1\n"); err != nil {
		return err
	}
	if err := w(KFDTopologyPath+"/system_properties", "platform_oem 0\nplatform_id 0\nplatform_rev 0\n"); err != nil {
		return err
	}
	ncpu := runtime.NumCPU()
	nodes := 1 + len(t.GPUs)
	for n := 0; n < nodes; n++ {
		dir := filepath.Join(topo, "nodes", fmt.Sprint(n))
		for _, sub := range []string{"mem_banks/0", "caches", "io_links", "p2p_links"} {
			if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
				return err
			}
		}
		var props []prop
		var bank []prop
		gpuID, name := uint32(0), ""
		if n == 0 {
			name = "CPU"
			props = []prop{{"cpu_cores_count", uint64(ncpu)}, {"simd_count", 0}, {"mem_banks_count", 1},
				{"caches_count", 0}, {"io_links_count", uint64(len(t.GPUs))}, {"p2p_links_count", 0},
				{"cpu_core_id_base", 0}, {"simd_id_base", 0}, {"max_waves_per_simd", 0}, {"lds_size_in_kb", 0},
				{"gds_size_in_kb", 0}, {"num_gws", 0}, {"wave_front_size", 0}, {"array_count", 0},
				{"simd_arrays_per_engine", 0}, {"cu_per_simd_array", 0}, {"simd_per_cu", 0},
				{"max_slots_scratch_cu", 0}, {"gfx_target_version", 0}, {"vendor_id", 0}, {"device_id", 0},
				{"location_id", 0}, {"domain", 0}, {"drm_render_minor", 0}, {"hive_id", 0},
				{"num_sdma_engines", 0}, {"num_sdma_xgmi_engines", 0}, {"num_sdma_queues_per_engine", 0},
				{"num_cp_queues", 0}, {"max_engine_clk_ccompute", 3000}, {"local_mem_size", 0},
				{"fw_version", 0}, {"capability", 0}, {"debug_prop", 0}, {"sdma_fw_version", 0},
				{"unique_id", 0}, {"num_xcc", 0}}
			bank = []prop{{"heap_type", HSA_MEM_HEAP_TYPE_SYSTEM}, {"size_in_bytes", systemMemory()},
				{"flags", 0}, {"width", 64}, {"mem_clk_max", 3200}}
		} else {
			g := t.GPUs[n-1]
			gpuID, name = GPUID(n), g.Target
			props = []prop{{"cpu_cores_count", 0}, {"simd_count", uint64(g.ComputeUnits * g.SIMDsPerCU)},
				{"mem_banks_count", 1}, {"caches_count", uint64(len(gpuCaches))}, {"io_links_count", 1}, {"p2p_links_count", 0},
				{"cpu_core_id_base", 0}, {"simd_id_base", uint64(0x80000000 + 0x1000*n)},
				{"max_waves_per_simd", uint64(g.MaxWavesPerSIMD)}, {"lds_size_in_kb", uint64(g.LDSKiB)},
				{"gds_size_in_kb", 0}, {"num_gws", 0}, {"wave_front_size", uint64(g.WaveSize)},
				{"array_count", uint64(g.ShaderEngines)}, {"simd_arrays_per_engine", 1},
				{"cu_per_simd_array", uint64(g.CUsPerShaderArray)}, {"simd_per_cu", uint64(g.SIMDsPerCU)},
				{"max_slots_scratch_cu", 32}, {"gfx_target_version", uint64(g.GfxTargetVersion)},
				{"vendor_id", 0x1002}, {"device_id", uint64(g.DeviceID)}, {"location_id", uint64(0x0300 + 0x100*(n-1))},
				{"domain", 0}, {"drm_render_minor", uint64(DRMRenderMinorBase + n - 1)}, {"hive_id", 0},
				{"num_sdma_engines", 0}, {"num_sdma_xgmi_engines", 0}, {"num_sdma_queues_per_engine", 0},
				{"num_cp_queues", 24}, {"max_engine_clk_fcompute", uint64(g.EngineClockMHz)},
				{"local_mem_size", g.LocalMemSize}, {"fw_version", 177}, {"capability", capability(g)},
				{"debug_prop", 0}, {"sdma_fw_version", 0}, {"unique_id", uint64(0x5ee0000 + n)},
				{"num_xcc", uint64(g.NumXCC)}, {"max_engine_clk_ccompute", 3000}}
			bank = []prop{{"heap_type", HSA_MEM_HEAP_TYPE_FB_PUBLIC}, {"size_in_bytes", g.LocalMemSize},
				{"flags", 0}, {"width", 8192}, {"mem_clk_max", 1300}}
			for c, cp := range gpuCaches {
				cdir := filepath.Join(dir, "caches", fmt.Sprint(c))
				if err := os.MkdirAll(cdir, 0o755); err != nil {
					return err
				}
				props := []prop{{"processor_id_low", uint64(0x80000000 + 0x1000*n)}, {"level", cp.level},
					{"size", cp.sizeKiB}, {"cache_line_size", cp.line}, {"cache_lines_per_tag", 1},
					{"association", cp.assoc}, {"latency", cp.latency}, {"type", cp.typ}}
				var b strings.Builder
				for _, p := range props {
					fmt.Fprintf(&b, "%s %d\n", p.name, p.val)
				}
				b.WriteString("sibling_map 1\n")
				if err := os.WriteFile(filepath.Join(cdir, "properties"), []byte(b.String()), 0o444); err != nil {
					return err
				}
			}
			if err := os.MkdirAll(filepath.Join(dir, "io_links/0"), 0o755); err != nil {
				return err
			}
			// io link GPU -> CPU (HSA_IOLINKTYPE_PCIEXPRESS = 2).
			if err := writeProps(filepath.Join(dir, "io_links/0/properties"), linkProps(n, 0)); err != nil {
				return err
			}
			cpuLink := filepath.Join(topo, "nodes", "0", "io_links", fmt.Sprint(n-1))
			if err := os.MkdirAll(cpuLink, 0o755); err != nil {
				return err
			}
			if err := writeProps(filepath.Join(cpuLink, "properties"), linkProps(0, n)); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "gpu_id"), []byte(fmt.Sprintf("%d\n", gpuID)), 0o444); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "name"), []byte(name+"\n"), 0o444); err != nil {
			return err
		}
		if err := writeProps(filepath.Join(dir, "properties"), props); err != nil {
			return err
		}
		if err := writeProps(filepath.Join(dir, "mem_banks/0/properties"), bank); err != nil {
			return err
		}
	}
	// /sys/class/kfd/kfd is a link to the device directory.
	if err := os.MkdirAll(filepath.Join(root, KFDClassPath), 0o755); err != nil {
		return err
	}
	if err := os.Symlink("../../devices/virtual/kfd/kfd", filepath.Join(root, KFDClassPath, "kfd")); err != nil && !os.IsExist(err) {
		return err
	}
	// rocminfo's preflight.
	if err := w(AMDGPUModulePath+"/initstate", "live\n"); err != nil {
		return err
	}
	if err := w(AMDGPUModulePath+"/version", "6.8.5\n"); err != nil {
		return err
	}
	// DRM render nodes with their PCI identity.
	for i, g := range t.GPUs {
		minor := DRMRenderMinorBase + i
		pci := fmt.Sprintf("0000:%02x:00.0", 3+i)
		dev := filepath.Join("/sys/devices/pci0000:00", pci)
		node := fmt.Sprintf("renderD%d", minor)
		files := map[string]string{
			dev + "/vendor":               "0x1002\n",
			dev + "/device":               fmt.Sprintf("0x%04x\n", g.DeviceID),
			dev + "/subsystem_vendor":     "0x1002\n",
			dev + "/subsystem_device":     "0x0000\n",
			dev + "/revision":             fmt.Sprintf("0x%02x\n", g.Revision),
			dev + "/uevent":               fmt.Sprintf("DRIVER=amdgpu\nPCI_CLASS=120000\nPCI_ID=1002:%04X\nPCI_SUBSYS_ID=1002:0000\nPCI_SLOT_NAME=%s\n", g.DeviceID, pci),
			dev + "/drm/" + node + "/dev": fmt.Sprintf("%d:%d\n", DRMMajor, minor),
			// The primary node beside the render node: libdrm tells devices
			// apart by its name (drmGetPrimaryDeviceNameFromFd).
			dev + fmt.Sprintf("/drm/card%d/dev", i): fmt.Sprintf("%d:%d\n", DRMMajor, i),
			dev + "/drm/" + node + "/uevent":        fmt.Sprintf("MAJOR=%d\nMINOR=%d\nDEVNAME=dri/%s\nDEVTYPE=drm_minor\n", DRMMajor, minor, node),
		}
		for p, s := range files {
			if err := w(p, s); err != nil {
				return err
			}
		}
		if err := os.MkdirAll(filepath.Join(root, "/sys/bus/pci/drivers/amdgpu"), 0o755); err != nil {
			return err
		}
		links := map[string]string{
			dev + "/subsystem":                                   "../../../bus/pci",
			dev + "/driver":                                      "../../../bus/pci/drivers/amdgpu",
			dev + "/drm/" + node + "/device":                     "../../../" + pci,
			dev + "/drm/" + node + "/subsystem":                  "../../../../../class/drm",
			DRMClassPath + "/" + node:                            "../../devices/pci0000:00/" + pci + "/drm/" + node,
			DevCharPath + fmt.Sprintf("/%d:%d", DRMMajor, minor): "../../devices/pci0000:00/" + pci + "/drm/" + node,
		}
		if err := os.MkdirAll(filepath.Join(root, "/sys/bus/pci"), 0o755); err != nil {
			return err
		}
		for p, target := range links {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(target, filepath.Join(root, p)); err != nil && !os.IsExist(err) {
				return err
			}
		}
		// /dev/dri/renderD* as plain files so directory scans find them
		// (opens and stats of the device paths are answered by the driver).
		if err := w(DRIDevicePath+"/"+node, ""); err != nil {
			return err
		}
	}
	return nil
}

// HSA cache types (HsaCacheType bits): data, instruction, HSA CU.
const (
	hsaCacheData        = 1
	hsaCacheInstruction = 2
	hsaCacheHSACU       = 8
)

// gpuCaches are the cache levels a GPU node reports: the vector L1, the
// L2 and the last-level (Infinity) cache of a CDNA3-class device.
var gpuCaches = []struct{ level, sizeKiB, line, assoc, latency, typ uint64 }{
	{1, 32, 128, 4, 1, hsaCacheData | hsaCacheHSACU},
	{1, 64, 128, 8, 1, hsaCacheInstruction | hsaCacheHSACU},
	{2, 4096, 128, 16, 1, hsaCacheData | hsaCacheHSACU},
	{3, 262144, 64, 16, 1, hsaCacheData | hsaCacheHSACU},
}

// capability is a GPU node's HSA_CAPABILITY word: doorbells of type 2.0,
// power-of-two queue sizes, and SRAM ECC on the Instinct parts (so ROCR
// names the ISA gfx942:sramecc+, as on an MI300X).
func capability(g GPU) uint64 {
	c := uint64(HSA_CAP_DOORBELL_TYPE_2_0 | HSA_CAP_QUEUE_SIZE_POW2)
	if !g.RDNA {
		c |= HSA_CAP_SRAM_EDCSUPPORTED
	}
	return c
}

func linkProps(from, to int) []prop {
	return []prop{{"type", 2}, {"version_major", 0}, {"version_minor", 0}, {"node_from", uint64(from)},
		{"node_to", uint64(to)}, {"weight", 20}, {"min_latency", 0}, {"max_latency", 0},
		{"min_bandwidth", 312}, {"max_bandwidth", 64000}, {"recommended_transfer_size", 0},
		{"recommended_sdma_engine_id_mask", 0}, {"flags", 1}}
}

// systemMemory returns the machine's memory in bytes (from /proc/meminfo),
// or 16 GiB when it cannot be read.
func systemMemory() uint64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err == nil {
		var kb uint64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil && kb > 0 {
			return kb << 10
		}
	}
	return 16 << 30
}

// sharedSysfs returns a sysfs tree for the topology in the temporary
// directory, shared by every process of the same user with the same
// topology: written once (into a private directory, then renamed into
// place), so processes neither leak trees nor race on a half-written one.
func (t *Topology) sharedSysfs() (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "v3 %+v cpus=%d mem=%d", t.GPUs, runtime.NumCPU(), systemMemory())
	name := fmt.Sprintf("rocjitsu-sysfs-%d-%s", os.Getuid(), hex.EncodeToString(h.Sum(nil))[:16])
	final := filepath.Join(os.TempDir(), name)
	if st, err := os.Stat(filepath.Join(final, ".complete")); err == nil && st.Mode().IsRegular() {
		return final, nil
	}
	tmp, err := os.MkdirTemp(os.TempDir(), name+".tmp-")
	if err != nil {
		return "", fmt.Errorf("kfd: sysfs directory: %w", err)
	}
	if err := t.WriteSysfs(tmp); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("kfd: writing the topology: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".complete"), nil, 0o444); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("kfd: writing the topology: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		// Another process won the race: use its tree.
		os.RemoveAll(tmp)
		if _, err2 := os.Stat(filepath.Join(final, ".complete")); err2 != nil {
			return "", fmt.Errorf("kfd: sysfs directory %s: %w", final, err)
		}
	}
	return final, nil
}
