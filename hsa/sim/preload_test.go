package sim

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
)

// TestKernargPreload compiles a kernel with clang-19 so that its first
// kernel arguments are preloaded into user SGPRs (gfx942's kernarg
// preload: the code starts 256 bytes after the descriptor's entry) and
// checks its results.
func TestKernargPreload(t *testing.T) {
	clang := llvmtool.Require(t, "clang-19")
	lld := llvmtool.Require(t, "ld.lld-19")
	dir := t.TempDir()
	src := `__kernel void addk(__global const float *a, __global float *b, float k, uint n) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  if (i < n) b[i] = a[i] * k + (float)i;
}
`
	cl, obj, co := filepath.Join(dir, "k.cl"), filepath.Join(dir, "k.o"), filepath.Join(dir, "k.co")
	if err := os.WriteFile(cl, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(clang, "-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942",
		"-nogpulib", "-O2", "-mllvm", "-amdgpu-kernarg-preload-count=4", "-c", cl, "-o", obj).CombinedOutput(); err != nil {
		t.Fatalf("clang-19: %v\n%s", err, out)
	}
	if out, err := exec.Command(lld, "-shared", "--build-id=none", obj, "-o", co).CombinedOutput(); err != nil {
		t.Fatalf("ld.lld-19: %v\n%s", err, out)
	}
	image, err := os.ReadFile(co)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := NewAgent("gfx942")
	ex, err := a.LoadCodeObject(image)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ex.Kernel("addk")
	if err != nil {
		t.Fatal(err)
	}
	if k.Desc.KernargPreload&0x7f == 0 {
		t.Fatal("clang did not preload any kernel argument; the test would not test preloading")
	}
	const n = 200
	in := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(in[4*i:], math.Float32bits(float32(i)*0.25))
	}
	pa, _ := a.Alloc(4 * n)
	pb, _ := a.Alloc(4 * n)
	if err := a.CopyIn(pa, in); err != nil {
		t.Fatal(err)
	}
	ka := make([]byte, 24)
	binary.LittleEndian.PutUint64(ka[0:], pa)
	binary.LittleEndian.PutUint64(ka[8:], pb)
	binary.LittleEndian.PutUint32(ka[16:], math.Float32bits(3))
	binary.LittleEndian.PutUint32(ka[20:], n)
	if err := a.Dispatch(k, [3]uint32{256, 1, 1}, [3]uint32{64, 1, 1}, ka); err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 4*n)
	if err := a.CopyOut(pb, out); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		want := float32(i)*0.25*3 + float32(i)
		if got := math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:])); got != want {
			t.Fatalf("b[%d] = %v, want %v", i, got, want)
		}
	}
}
