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

// buildCL compiles OpenCL C for gfx942 with clang-19 and links it with
// ld.lld-19, returning the code object.
func buildCL(t *testing.T, src string, extra ...string) []byte {
	t.Helper()
	clang := llvmtool.Require(t, "clang-19")
	lld := llvmtool.Require(t, "ld.lld-19")
	dir := t.TempDir()
	cl, obj, co := filepath.Join(dir, "k.cl"), filepath.Join(dir, "k.o"), filepath.Join(dir, "k.co")
	if err := os.WriteFile(cl, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942",
		"-nogpulib", "-O2"}, extra...)
	if out, err := exec.Command(clang, append(args, "-c", cl, "-o", obj)...).CombinedOutput(); err != nil {
		t.Fatalf("clang-19: %v\n%s", err, out)
	}
	if out, err := exec.Command(lld, "-shared", "--build-id=none", obj, "-o", co).CombinedOutput(); err != nil {
		t.Fatalf("ld.lld-19: %v\n%s", err, out)
	}
	image, err := os.ReadFile(co)
	if err != nil {
		t.Fatal(err)
	}
	return image
}

// TestGenericLDSPointers runs a kernel whose out-of-line functions take
// generic pointers into LDS (flat loads and stores through the shared
// aperture from src_shared_base) and that reads the dispatch packet.
func TestGenericLDSPointers(t *testing.T) {
	image := buildCL(t, `__attribute__((noinline)) static void put(int *p, int v) { *p = v * 3; }
__attribute__((noinline)) static int get(int *p) { return *p + 1; }
__kernel void gen(__global int *out) {
  __local int s[64];
  uint t = __builtin_amdgcn_workitem_id_x();
  put(&s[t], (int)t);
  __builtin_amdgcn_s_barrier();
  out[t] = get(&s[63 - t]);
}
`)
	a, _ := NewAgent("gfx942")
	ex, err := a.LoadCodeObject(image)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ex.Kernel("gen")
	if err != nil {
		t.Fatal(err)
	}
	out, _ := a.Alloc(256)
	ka := make([]byte, 8)
	binary.LittleEndian.PutUint64(ka, out)
	if err := a.Dispatch(k, [3]uint32{64, 1, 1}, [3]uint32{64, 1, 1}, ka); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 256)
	if err := a.CopyOut(out, b); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 64; i++ {
		if got, want := int32(binary.LittleEndian.Uint32(b[4*i:])), int32((63-i)*3+1); got != want {
			t.Fatalf("out[%d] = %d, want %d", i, got, want)
		}
	}
}

// TestKernargPreload compiles a kernel with clang-19 so that its first
// kernel arguments are preloaded into user SGPRs (gfx942's kernarg
// preload: the code starts 256 bytes after the descriptor's entry) and
// checks its results.
func TestKernargPreload(t *testing.T) {
	image := buildCL(t, `__kernel void addk(__global const float *a, __global float *b, float k, uint n) {
  uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  if (i < n) b[i] = a[i] * k + (float)i;
}
`, "-mllvm", "-amdgpu-kernarg-preload-count=4")
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

// TestCompilerLaneIntrinsics runs DPP, ds_swizzle and readlane code that
// clang-19 generated from builtins, and compares with the mathematical
// results: an inclusive wave prefix sum built from row_shr, row_bcast:15
// and row_bcast:31 (row masks 0xa and 0xc), a swizzle that swaps
// neighbouring lanes, and a broadcast of lane 37.
func TestCompilerLaneIntrinsics(t *testing.T) {
	image := buildCL(t, `__kernel void lanes(__global const int *in, __global int *scan, __global int *swz, __global int *bc) {
  uint t = __builtin_amdgcn_workitem_id_x();
  int v = in[t];
  int x = v;
  x += __builtin_amdgcn_update_dpp(0, x, 0x111, 0xf, 0xf, false);
  x += __builtin_amdgcn_update_dpp(0, x, 0x112, 0xf, 0xf, false);
  x += __builtin_amdgcn_update_dpp(0, x, 0x114, 0xf, 0xf, false);
  x += __builtin_amdgcn_update_dpp(0, x, 0x118, 0xf, 0xf, false);
  x += __builtin_amdgcn_update_dpp(0, x, 0x142, 0xa, 0xf, false);
  x += __builtin_amdgcn_update_dpp(0, x, 0x143, 0xc, 0xf, false);
  scan[t] = x;
  swz[t] = __builtin_amdgcn_ds_swizzle(v, 0x1f | (1 << 10));
  bc[t] = __builtin_amdgcn_readlane(v, 37);
}
`)
	a, _ := NewAgent("gfx942")
	ex, err := a.LoadCodeObject(image)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ex.Kernel("lanes")
	if err != nil {
		t.Fatal(err)
	}
	in := make([]byte, 256)
	for i := 0; i < 64; i++ {
		binary.LittleEndian.PutUint32(in[4*i:], uint32(i*i%17+1))
	}
	var addrs [4]uint64
	ka := make([]byte, 32)
	for i := range addrs {
		addrs[i], _ = a.Alloc(256)
		binary.LittleEndian.PutUint64(ka[8*i:], addrs[i])
	}
	if err := a.CopyIn(addrs[0], in); err != nil {
		t.Fatal(err)
	}
	if err := a.Dispatch(k, [3]uint32{64, 1, 1}, [3]uint32{64, 1, 1}, ka); err != nil {
		t.Fatal(err)
	}
	read := func(addr uint64, i int) int32 {
		b := make([]byte, 4)
		if err := a.CopyOut(addr+uint64(4*i), b); err != nil {
			t.Fatal(err)
		}
		return int32(binary.LittleEndian.Uint32(b))
	}
	val := func(i int) int32 { return int32(i*i%17 + 1) }
	var sum int32
	for i := 0; i < 64; i++ {
		sum += val(i)
		if got := read(addrs[1], i); got != sum {
			t.Errorf("scan[%d] = %d, want %d", i, got, sum)
		}
		if got := read(addrs[2], i); got != val(i^1) {
			t.Errorf("swizzle[%d] = %d, want %d", i, got, val(i^1))
		}
		if got := read(addrs[3], i); got != val(37) {
			t.Errorf("readlane[%d] = %d, want %d", i, got, val(37))
		}
	}
}
