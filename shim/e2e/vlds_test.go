package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/shim/internal/codeobj"
)

// TestVirtualLDS runs gfx950 kernels whose LDS exceeds gfx942's 64 KiB on a
// stand-in gfx942 through the DBT: the shim reads .rocjitsu.lds at freeze,
// and every dispatch asking for more LDS than the host has goes to the
// kernel's sidecar with a backing store and the kernarg wrapper. The
// stand-in's fake GPU accepts the sidecar descriptor only with no hardware
// LDS, the barrier bit, a wrapper whose original-pointer field holds the
// application's kernarg bytes and a backing store with a non-overlapping
// slice per workgroup; the normal kernel with such a request would fault.
func TestVirtualLDS(t *testing.T) {
	bt := setup(t)
	dir := projectpath.MustShared(t, "corpus", "aiter", "gfx950")
	env := map[string]string{"HSA_TOOLS_LIB": bt.shim, "ROCJITSU_GUEST": "gfx950", "STANDIN_ISA_CHECK": "0", "ROCJITSU_TRANSLATOR": "dbt"}
	ran := 0
	for _, name := range []string{"pa_pa_bf16_noquant_gqa8_1tg_4w.co", "bf16gemm_bf16gemm_bf16_tn_256x256.co"} {
		f := filepath.Join(dir, name)
		k := firstKernel(t, f)
		if k.Desc.GroupSegmentFixedSize <= 65536 {
			t.Fatalf("%s: static LDS %d does not need virtual LDS", name, k.Desc.GroupSegmentFixedSize)
		}
		r := bt.run(t, env, "-k", strings.TrimSuffix(k.Name, ".kd"), "-kernarg", fmt.Sprint(max(k.Desc.KernargSize, 64)),
			"-group", fmt.Sprint(k.Desc.GroupSegmentFixedSize), "-private", fmt.Sprint(k.Desc.PrivateSegmentFixedSize), "-n", "10", f)
		ok(t, r)
		want(t, r, r.log, "translated code object for gfx950 -> gfx942", "virtual-LDS sidecar", "10 virtual-LDS sidecar dispatches", "0 fall-backs")
		want(t, r, r.stdout, "dispatched 10 of 10 faults 0 errors 0")
		ran++
	}
	if ran == 0 {
		t.Fatal("nothing ran")
	}
}

// TestVirtualLDSPerDispatch uses a test kernel whose LDS is dynamic: the
// decision is made per dispatch from requested_lds = max(static,
// group_segment_size). A request within the host's 64 KiB runs the normal
// kernel with hardware LDS; 96 KiB runs the sidecar.
func TestVirtualLDSPerDispatch(t *testing.T) {
	bt := setup(t)
	f := filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "gfx950", "lds_big_dynamic.co")
	k := firstKernel(t, f)
	env := map[string]string{"HSA_TOOLS_LIB": bt.shim, "ROCJITSU_GUEST": "gfx950", "STANDIN_ISA_CHECK": "0", "ROCJITSU_TRANSLATOR": "dbt"}
	dispatchDynamicLDS(t, bt, env, f, k)
	// With virtual_lds off (and the guest advertising the host's 64 KiB, which
	// the configuration then requires), the sidecar is not used.
	cfg := filepath.Join(t.TempDir(), "cfg.json")
	if err := os.WriteFile(cfg, []byte(`{"guest": {"isa": "gfx950", "lds_size": 65536}, "virtual_lds": false}`), 0o644); err != nil {
		t.Fatal(err)
	}
	off := map[string]string{"HSA_TOOLS_LIB": bt.shim, "ROCJITSU_CONFIG": cfg, "STANDIN_ISA_CHECK": "0", "ROCJITSU_TRANSLATOR": "dbt"}
	r := bt.run(t, off, "-k", strings.TrimSuffix(k.Name, ".kd"), "-kernarg", fmt.Sprint(max(k.Desc.KernargSize, 64)),
		"-group", fmt.Sprint(k.Desc.GroupSegmentFixedSize), "-dyn", "4096", "-n", "2", f)
	want(t, r, r.log, "virtual-LDS sidecar not used (virtual_lds is false)")
}

// TestVirtualLDSFailOpen: when the backing store cannot be allocated the
// shim logs why and dispatches the normal kernel (which the stand-in GPU,
// like a real gfx942, faults for asking 160 KiB of LDS); the application
// still runs to the end.
func TestVirtualLDSFailOpen(t *testing.T) {
	bt := setup(t)
	f := filepath.Join(projectpath.MustShared(t, "corpus", "aiter", "gfx950"), "pa_pa_bf16_noquant_gqa8_1tg_4w.co")
	k := firstKernel(t, f)
	env := map[string]string{"HSA_TOOLS_LIB": bt.shim, "ROCJITSU_GUEST": "gfx950", "STANDIN_ISA_CHECK": "0", "ROCJITSU_TRANSLATOR": "dbt",
		"STANDIN_DEVICE_ALLOC_MAX": "65536"}
	r := bt.run(t, env, "-k", strings.TrimSuffix(k.Name, ".kd"), "-kernarg", "64",
		"-group", fmt.Sprint(k.Desc.GroupSegmentFixedSize), "-n", "3", f)
	want(t, r, r.log, "virtual-LDS sidecar cannot run (cannot allocate the backing store): dispatching the normal kernel",
		"3 fall-backs, 0 virtual-LDS sidecar dispatches")
	want(t, r, r.stdout, "faults 3")
}

// TestVirtualLDSOnRDNA4 is TestVirtualLDSPerDispatch on a stand-in gfx1201
// (64 KiB of LDS per workgroup, wave64 kept): the shim translates the gfx950
// object for gfx1201 with its gfx12 sidecar, and a 96 KiB request goes to the
// sidecar with a backing store, a 4 KiB one to the normal kernel. The
// stand-in refuses a code object for another processor (ISA check on), so
// what it runs is the gfx1201 translation.
func TestVirtualLDSOnRDNA4(t *testing.T) {
	bt := setup(t)
	f := filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "gfx950", "lds_big_dynamic.co")
	k := firstKernel(t, f)
	env := map[string]string{"HSA_TOOLS_LIB": bt.shim, "ROCJITSU_GUEST": "gfx950", "STANDIN_GPUS": "gfx1201", "ROCJITSU_TRANSLATOR": "dbt"}
	dispatchDynamicLDS(t, bt, env, f, k, "translated code object for gfx950 -> gfx1201")
}

// firstKernel returns the first kernel of the code object at path.
func firstKernel(t *testing.T, path string) codeobj.Kernel {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	o, err := codeobj.Parse(data)
	if err != nil || len(o.Kernels) == 0 {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	return o.Kernels[0]
}

// dispatchDynamicLDS dispatches kernel k of f (a kernel with dynamic LDS)
// five times asking 96 KiB, which must all go to its virtual-LDS sidecar,
// then five times asking 4 KiB, which must all run the normal kernel; the
// log must also hold logWant.
func dispatchDynamicLDS(t *testing.T, bt *built, env map[string]string, f string, k codeobj.Kernel, logWant ...string) {
	t.Helper()
	for _, c := range []struct {
		dyn     int
		sidecar string
	}{{98304, "5 virtual-LDS sidecar dispatches"}, {4096, "0 virtual-LDS sidecar dispatches"}} {
		r := bt.run(t, env, "-k", strings.TrimSuffix(k.Name, ".kd"), "-kernarg", fmt.Sprint(max(k.Desc.KernargSize, 64)),
			"-group", fmt.Sprint(k.Desc.GroupSegmentFixedSize), "-dyn", fmt.Sprint(c.dyn), "-n", "5", f)
		ok(t, r)
		want(t, r, r.log, append(logWant, "virtual-LDS sidecar", c.sidecar, "0 fall-backs")...)
		want(t, r, r.stdout, "faults 0 errors 0")
	}
}
