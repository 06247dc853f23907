package kfd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/rocjitsu/rocjitsu/internal/rocmroot"
)

// rocmHeaders returns the include directory of the Debian 13 root whose
// ROCm userland the driver serves (its linux/kfd_ioctl.h is interface 1.17,
// its drm/amdgpu_drm.h the DRM structs libdrm 2.4.124 uses).
func rocmHeaders(t *testing.T) string {
	t.Helper()
	root, err := rocmroot.Root()
	if err != nil {
		t.Fatal(err)
	}
	inc := filepath.Join(root, "usr/include")
	for _, h := range []string{"linux/kfd_ioctl.h", "drm/amdgpu_drm.h", "drm/drm.h"} {
		if _, err := os.Stat(filepath.Join(inc, h)); err != nil {
			t.Fatalf("the ROCm root's header %s is missing (%v): run `make deps`, which prepares the Debian 13 root", h, err)
		}
	}
	return inc
}

type layout struct {
	cStruct string
	goValue any
	cFields []string // C member names of the Go fields in order ("" for a Go-only blank)
}

var layouts = []layout{
	{"kfd_ioctl_get_version_args", kfdIoctlGetVersionArgs{}, []string{"major_version", "minor_version"}},
	{"kfd_ioctl_create_queue_args", kfdIoctlCreateQueueArgs{}, []string{"ring_base_address", "write_pointer_address",
		"read_pointer_address", "doorbell_offset", "ring_size", "gpu_id", "queue_type", "queue_percentage", "queue_priority",
		"queue_id", "eop_buffer_address", "eop_buffer_size", "ctx_save_restore_address", "ctx_save_restore_size",
		"ctl_stack_size", "sdma_engine_id", "pad"}},
	{"kfd_ioctl_destroy_queue_args", kfdIoctlDestroyQueueArgs{}, []string{"queue_id", "pad"}},
	{"kfd_ioctl_update_queue_args", kfdIoctlUpdateQueueArgs{}, []string{"ring_base_address", "queue_id", "ring_size", "queue_percentage", "queue_priority"}},
	{"kfd_ioctl_get_clock_counters_args", kfdIoctlGetClockCountersArgs{}, []string{"gpu_clock_counter", "cpu_clock_counter", "system_clock_counter", "system_clock_freq", "gpu_id", "pad"}},
	{"kfd_process_device_apertures", kfdProcessDeviceApertures{}, []string{"lds_base", "lds_limit", "scratch_base", "scratch_limit", "gpuvm_base", "gpuvm_limit", "gpu_id", "pad"}},
	{"kfd_ioctl_get_process_apertures_new_args", kfdIoctlGetProcessAperturesNewArgs{}, []string{"kfd_process_device_apertures_ptr", "num_of_nodes", "pad"}},
	{"kfd_ioctl_create_event_args", kfdIoctlCreateEventArgs{}, []string{"event_page_offset", "event_trigger_data", "event_type", "auto_reset", "node_id", "event_id", "event_slot_index"}},
	{"kfd_ioctl_set_event_args", kfdIoctlEventIDArgs{}, []string{"event_id", "pad"}},
	{"kfd_event_data", kfdEventData{}, []string{"signal_event_data.last_event_age", "", "kfd_event_data_ext", "event_id", "pad"}},
	{"kfd_ioctl_wait_events_args", kfdIoctlWaitEventsArgs{}, []string{"events_ptr", "num_events", "wait_for_all", "timeout", "wait_result"}},
	{"kfd_ioctl_get_tile_config_args", kfdIoctlGetTileConfigArgs{}, []string{"tile_config_ptr", "macro_tile_config_ptr", "num_tile_configs", "num_macro_tile_configs", "gpu_id", "gb_addr_config", "num_banks", "num_ranks"}},
	{"kfd_ioctl_acquire_vm_args", kfdIoctlAcquireVMArgs{}, []string{"drm_fd", "gpu_id"}},
	{"kfd_ioctl_alloc_memory_of_gpu_args", kfdIoctlAllocMemoryOfGPUArgs{}, []string{"va_addr", "size", "handle", "mmap_offset", "gpu_id", "flags"}},
	{"kfd_ioctl_free_memory_of_gpu_args", kfdIoctlFreeMemoryOfGPUArgs{}, []string{"handle"}},
	{"kfd_ioctl_map_memory_to_gpu_args", kfdIoctlMapMemoryToGPUArgs{}, []string{"handle", "device_ids_array_ptr", "n_devices", "n_success"}},
	{"kfd_ioctl_svm_args", kfdIoctlSVMArgs{}, []string{"start_addr", "size", "op", "nattr"}},
	{"kfd_ioctl_set_xnack_mode_args", kfdIoctlSetXnackModeArgs{}, []string{"xnack_enabled"}},
	{"kfd_ioctl_get_available_memory_args", kfdIoctlGetAvailableMemoryArgs{}, []string{"available", "gpu_id", "pad"}},
	{"kfd_ioctl_set_trap_handler_args", kfdIoctlSetTrapHandlerArgs{}, []string{"tba_addr", "tma_addr", "gpu_id", "pad"}},
	{"kfd_ioctl_set_memory_policy_args", kfdIoctlSetMemoryPolicyArgs{}, []string{"alternate_aperture_base", "alternate_aperture_size", "gpu_id", "default_policy", "alternate_policy", "pad"}},
	{"kfd_ioctl_set_scratch_backing_va_args", kfdIoctlSetScratchBackingVAArgs{}, []string{"va_addr", "gpu_id", "pad"}},
	{"drm_version", drmVersion{}, []string{"version_major", "version_minor", "version_patchlevel", "", "name_len", "name", "date_len", "date", "desc_len", "desc"}},
	{"drm_amdgpu_info", drmAMDGPUInfo{}, []string{"return_pointer", "return_size", "query", "read_mmr_reg"}},
	{"drm_amdgpu_info_vram_gtt", drmAMDGPUInfoVRAMGTT{}, []string{"vram_size", "vram_cpu_accessible_size", "gtt_size"}},
	{"drm_amdgpu_memory_info", drmAMDGPUMemoryInfo{}, []string{"vram", "cpu_accessible_vram", "gtt"}},
	{"drm_amdgpu_info_device", drmAMDGPUInfoDevice{}, []string{"device_id", "chip_rev", "external_rev", "pci_rev", "family",
		"num_shader_engines", "num_shader_arrays_per_engine", "gpu_counter_freq", "max_engine_clock", "max_memory_clock",
		"cu_active_number", "cu_ao_mask", "cu_bitmap", "enabled_rb_pipes_mask", "num_rb_pipes", "num_hw_gfx_contexts",
		"pcie_gen", "ids_flags", "virtual_address_offset", "virtual_address_max", "virtual_address_alignment",
		"pte_fragment_size", "gart_page_size", "ce_ram_size", "vram_type", "vram_bit_width", "vce_harvest_config",
		"gc_double_offchip_lds_buf", "prim_buf_gpu_addr", "pos_buf_gpu_addr", "cntl_sb_buf_gpu_addr", "param_buf_gpu_addr",
		"prim_buf_size", "pos_buf_size", "cntl_sb_buf_size", "param_buf_size", "wave_front_size", "num_shader_visible_vgprs",
		"num_cu_per_sh", "num_tcc_blocks", "gs_vgt_table_depth", "gs_prim_buffer_depth", "max_gs_waves_per_vgt",
		"pcie_num_lanes", "cu_ao_bitmap", "high_va_offset", "high_va_max", "pa_sc_tile_steering_override", "",
		"tcc_disabled_mask", "min_engine_clock", "min_memory_clock", "tcp_cache_size", "num_sqc_per_wgp",
		"sqc_data_cache_size", "sqc_inst_cache_size", "gl1c_cache_size", "gl2c_cache_size", "mall_size",
		"enabled_rb_pipes_mask_hi", "shadow_size", "shadow_alignment", "csa_size", "csa_alignment", ""}},
}

// requests are the ioctl numbers the driver serves, against the header's
// macros.
var requests = map[string]uint32{
	"AMDKFD_IOC_GET_VERSION": AMDKFD_IOC_GET_VERSION, "AMDKFD_IOC_CREATE_QUEUE": AMDKFD_IOC_CREATE_QUEUE,
	"AMDKFD_IOC_DESTROY_QUEUE": AMDKFD_IOC_DESTROY_QUEUE, "AMDKFD_IOC_SET_MEMORY_POLICY": AMDKFD_IOC_SET_MEMORY_POLICY,
	"AMDKFD_IOC_GET_CLOCK_COUNTERS": AMDKFD_IOC_GET_CLOCK_COUNTERS, "AMDKFD_IOC_GET_PROCESS_APERTURES": AMDKFD_IOC_GET_PROCESS_APERTURES,
	"AMDKFD_IOC_UPDATE_QUEUE": AMDKFD_IOC_UPDATE_QUEUE, "AMDKFD_IOC_CREATE_EVENT": AMDKFD_IOC_CREATE_EVENT,
	"AMDKFD_IOC_DESTROY_EVENT": AMDKFD_IOC_DESTROY_EVENT, "AMDKFD_IOC_SET_EVENT": AMDKFD_IOC_SET_EVENT,
	"AMDKFD_IOC_RESET_EVENT": AMDKFD_IOC_RESET_EVENT, "AMDKFD_IOC_WAIT_EVENTS": AMDKFD_IOC_WAIT_EVENTS,
	"AMDKFD_IOC_SET_SCRATCH_BACKING_VA": AMDKFD_IOC_SET_SCRATCH_BACKING_VA, "AMDKFD_IOC_GET_TILE_CONFIG": AMDKFD_IOC_GET_TILE_CONFIG,
	"AMDKFD_IOC_SET_TRAP_HANDLER": AMDKFD_IOC_SET_TRAP_HANDLER, "AMDKFD_IOC_GET_PROCESS_APERTURES_NEW": AMDKFD_IOC_GET_PROCESS_APERTURES_NEW,
	"AMDKFD_IOC_ACQUIRE_VM": AMDKFD_IOC_ACQUIRE_VM, "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU": AMDKFD_IOC_ALLOC_MEMORY_OF_GPU,
	"AMDKFD_IOC_FREE_MEMORY_OF_GPU": AMDKFD_IOC_FREE_MEMORY_OF_GPU, "AMDKFD_IOC_MAP_MEMORY_TO_GPU": AMDKFD_IOC_MAP_MEMORY_TO_GPU,
	"AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU": AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, "AMDKFD_IOC_SET_CU_MASK": AMDKFD_IOC_SET_CU_MASK,
	"AMDKFD_IOC_GET_QUEUE_WAVE_STATE": AMDKFD_IOC_GET_QUEUE_WAVE_STATE, "AMDKFD_IOC_ALLOC_QUEUE_GWS": AMDKFD_IOC_ALLOC_QUEUE_GWS,
	"AMDKFD_IOC_SMI_EVENTS": AMDKFD_IOC_SMI_EVENTS, "AMDKFD_IOC_SVM": AMDKFD_IOC_SVM, "AMDKFD_IOC_SET_XNACK_MODE": AMDKFD_IOC_SET_XNACK_MODE,
	"AMDKFD_IOC_AVAILABLE_MEMORY": AMDKFD_IOC_AVAILABLE_MEMORY, "AMDKFD_IOC_RUNTIME_ENABLE": AMDKFD_IOC_RUNTIME_ENABLE,
	"AMDKFD_IOC_DBG_TRAP": AMDKFD_IOC_DBG_TRAP, "DRM_IOCTL_VERSION": DRM_IOCTL_VERSION, "DRM_IOCTL_AMDGPU_INFO": DRM_IOCTL_AMDGPU_INFO,
}

// TestIoctlLayout compiles a C program against the ROCm root's headers and
// compares every struct size, member offset and request number with the Go
// mirror.
func TestIoctlLayout(t *testing.T) {
	inc := rocmHeaders(t)
	var src strings.Builder
	src.WriteString("#include <stddef.h>\n#include <stdio.h>\n#include <linux/kfd_ioctl.h>\n#include <drm/drm.h>\n#include <drm/amdgpu_drm.h>\nint main(void){\n")
	type want struct {
		key string
		val uint64
	}
	var wants []want
	for _, l := range layouts {
		ty := reflect.TypeOf(l.goValue)
		fmt.Fprintf(&src, "printf(\"%s.sizeof %%zu\\n\", sizeof(struct %s));\n", l.cStruct, l.cStruct)
		wants = append(wants, want{l.cStruct + ".sizeof", uint64(ty.Size())})
		if ty.NumField() != len(l.cFields) {
			t.Fatalf("%s: %d Go fields, %d C members listed", l.cStruct, ty.NumField(), len(l.cFields))
		}
		for i, c := range l.cFields {
			if c == "" {
				continue
			}
			fmt.Fprintf(&src, "printf(\"%s.%s %%zu\\n\", offsetof(struct %s, %s));\n", l.cStruct, c, l.cStruct, c)
			wants = append(wants, want{l.cStruct + "." + c, uint64(ty.Field(i).Offset)})
		}
	}
	for name, v := range requests {
		fmt.Fprintf(&src, "printf(\"%s %%lu\\n\", (unsigned long)%s);\n", name, name)
		wants = append(wants, want{name, uint64(v)})
	}
	src.WriteString("return 0;}\n")
	dir := t.TempDir()
	c := filepath.Join(dir, "layout.c")
	if err := os.WriteFile(c, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// Only the three headers come from the root; the rest of the
	// compilation uses the host's C library headers.
	hdr := filepath.Join(dir, "include")
	for _, h := range []string{"linux/kfd_ioctl.h", "drm/drm.h", "drm/amdgpu_drm.h", "drm/drm_mode.h"} {
		b, err := os.ReadFile(filepath.Join(inc, h))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(hdr, filepath.Dir(h)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(hdr, h), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "layout")
	if out, err := exec.Command("gcc", "-std=gnu11", "-I", hdr, "-o", bin, c).CombinedOutput(); err != nil {
		t.Fatalf("compiling the layout program: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		v, _ := strconv.ParseUint(f[1], 10, 64)
		got[f[0]] = v
	}
	for _, w := range wants {
		if g, ok := got[w.key]; !ok || g != w.val {
			t.Errorf("%s: header says %d, Go has %d", w.key, g, w.val)
		}
	}
	if n := unsafe.Sizeof(kfdEventData{}); n != 48 {
		t.Errorf("kfd_event_data is %d bytes", n)
	}
}
