package kfd

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func readProps(t *testing.T, path string) map[string]uint64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]uint64{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		v, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", path, line, err)
		}
		m[f[0]] = v
	}
	return m
}

// TestTopology writes the tree libhsakmt reads and checks the properties
// it requires of a GPU node (non-zero render minor, SIMDs, gfx target
// version, doorbell type 2, gpu_id matching the ioctls) and of the CPU node.
func TestTopology(t *testing.T) {
	var gpus []GPU
	for _, n := range []string{"gfx942", "gfx1201"} {
		g, err := KnownGPU(n)
		if err != nil {
			t.Fatal(err)
		}
		gpus = append(gpus, g)
	}
	if _, err := KnownGPU("gfx90a"); err == nil {
		t.Errorf("gfx90a accepted")
	}
	root := t.TempDir()
	topo := &Topology{GPUs: gpus}
	if err := topo.WriteSysfs(root); err != nil {
		t.Fatal(err)
	}
	nodes := filepath.Join(root, KFDTopologyPath, "nodes")
	ents, _ := os.ReadDir(nodes)
	if len(ents) != 3 {
		t.Fatalf("%d nodes, want 3", len(ents))
	}
	cpu := readProps(t, filepath.Join(nodes, "0", "properties"))
	if cpu["simd_count"] != 0 || cpu["cpu_cores_count"] == 0 {
		t.Errorf("CPU node %v", cpu)
	}
	for i, g := range gpus {
		dir := filepath.Join(nodes, strconv.Itoa(i+1))
		id, _ := os.ReadFile(filepath.Join(dir, "gpu_id"))
		if strings.TrimSpace(string(id)) != strconv.Itoa(int(GPUID(i+1))) {
			t.Errorf("%s: gpu_id %q", g.Target, id)
		}
		p := readProps(t, filepath.Join(dir, "properties"))
		if p["drm_render_minor"] != uint64(DRMRenderMinorBase+i) || p["simd_count"] != uint64(g.ComputeUnits*g.SIMDsPerCU) ||
			p["gfx_target_version"] != uint64(g.GfxTargetVersion) || p["wave_front_size"] != uint64(g.WaveSize) {
			t.Errorf("%s: properties %v", g.Target, p)
		}
		if p["capability"]&(3<<12) != HSA_CAP_DOORBELL_TYPE_2_0 || p["capability"]&HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED != 0 ||
			p["capability"]&HSA_CAP_SVMAPI_SUPPORTED != 0 {
			t.Errorf("%s: capability %#x", g.Target, p["capability"])
		}
		if sram := p["capability"]&HSA_CAP_SRAM_EDCSUPPORTED != 0; sram == g.RDNA {
			t.Errorf("%s: SRAM ECC %v", g.Target, sram)
		}
		if p["caches_count"] == 0 || p["num_sdma_engines"] != 0 {
			t.Errorf("%s: caches %d, SDMA engines %d", g.Target, p["caches_count"], p["num_sdma_engines"])
		}
		for c := 0; c < int(p["caches_count"]); c++ {
			cp := readProps(t, filepath.Join(dir, "caches", strconv.Itoa(c), "properties"))
			if cp["size"] == 0 || cp["level"] == 0 {
				t.Errorf("%s cache %d: %v", g.Target, c, cp)
			}
		}
		bank := readProps(t, filepath.Join(dir, "mem_banks", "0", "properties"))
		if bank["size_in_bytes"] != g.LocalMemSize {
			t.Errorf("%s: memory bank %v", g.Target, bank)
		}
		// The render node's sysfs identity resolves inside the tree.
		link := filepath.Join(root, DevCharPath, "226:"+strconv.Itoa(DRMRenderMinorBase+i), "device", "device")
		if b, err := os.ReadFile(link); err != nil || !strings.Contains(string(b), strconv.FormatUint(uint64(g.DeviceID), 16)) {
			t.Errorf("%s: %s: %q %v", g.Target, link, b, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, AMDGPUModulePath, "initstate")); err != nil || string(b) != "live\n" {
		t.Errorf("amdgpu initstate %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(root, KFDClassPath, "kfd", "topology", "nodes", "1", "gpu_id")); err != nil {
		t.Errorf("/sys/class/kfd/kfd does not lead to the topology: %v", err)
	}
}
