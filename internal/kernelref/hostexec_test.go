package kernelref

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
)

// cType is the C type of a scalar kernel argument on x86-64, matching
// what OpenCL C's type lowers to.
var cType = map[Elem]string{
	I8: "int8_t", U8: "uint8_t", I16: "int16_t", U16: "uint16_t", F16: "_Float16",
	I32: "int32_t", U32: "uint32_t", F32: "float", I64: "int64_t", U64: "uint64_t",
	F64: "double", F32x4: "rj_f4",
}

// callsSource generates rj_call: a switch from kernel name to a call with
// the buffers and the scalars unpacked from the kernarg bytes.
func callsSource(cases []Case) string {
	var b strings.Builder
	b.WriteString("#include <stdint.h>\n#include <string.h>\n")
	b.WriteString("typedef float rj_f4 __attribute__((ext_vector_type(4)));\n")
	for _, c := range cases {
		var params []string
		for _, a := range c.Args {
			switch a.Kind {
			case BufferIn, BufferOut, BufferInOut, DynamicLDS:
				params = append(params, "void *")
			case Scalar:
				params = append(params, cType[a.Elem])
			}
		}
		fmt.Fprintf(&b, "void %s(%s);\n", c.Name, strings.Join(params, ", "))
	}
	b.WriteString("long rj_implicit_offset(const char *name) {\n")
	for _, c := range cases {
		if off, ok := c.ImplicitArgOffset(); ok {
			fmt.Fprintf(&b, "  if (!strcmp(name, %q)) return %d;\n", c.Name, off)
		}
	}
	b.WriteString("  return -1;\n}\n")
	b.WriteString("extern unsigned char rj_dyn_lds[];\n")
	b.WriteString("int rj_call(const char *name, void **b, const unsigned char *ka) {\n")
	for _, c := range cases {
		fmt.Fprintf(&b, "  if (!strcmp(name, %q)) {\n", c.Name)
		var args []string
		nb := 0
		for i, a := range c.Args {
			switch a.Kind {
			case Hidden:
				continue
			case DynamicLDS:
				args = append(args, "rj_dyn_lds")
				continue
			case BufferIn, BufferOut, BufferInOut:
				args = append(args, fmt.Sprintf("b[%d]", nb))
				nb++
				continue
			}
			fmt.Fprintf(&b, "    %s s%d; memcpy(&s%d, ka + %d, %d);\n", cType[a.Elem], i, i, a.Offset, a.Size)
			args = append(args, fmt.Sprintf("s%d", i))
		}
		fmt.Fprintf(&b, "    %s(%s);\n    return 0;\n  }\n", c.Name, strings.Join(args, ", "))
	}
	b.WriteString("  return -1;\n}\n")
	return b.String()
}

// TestReferencesAgainstHostExecution compiles every kernel source for the
// host (x86-64 OpenCL C with clang-19, the AMDGPU builtins mapped onto
// testdata/hostexec/harness.c, which runs each work-item as a thread and
// emulates barriers, ds_bpermute and the MFMA/WMMA lane layouts the
// sources document) and checks that executing the source gives exactly
// the images the Go references predict. It catches a reference that
// disagrees with its kernel before any simulator or GPU is involved; it
// cannot prove the hardware-specific parts (lane layouts, transcendental
// accuracy), which only a real device or the simulator can.
func TestReferencesAgainstHostExecution(t *testing.T) {
	clang := llvmtool.Require(t, llvmtool.Clang)
	r := root(t)
	dir := t.TempDir()
	hostDir := filepath.Join(r, "internal", "kernelref", "testdata", "hostexec")
	cases := AllCases()
	if err := os.WriteFile(filepath.Join(dir, "calls.c"), []byte(callsSource(cases)), 0o644); err != nil {
		t.Fatal(err)
	}
	// A kernel written per wave size (it tests __AMDGCN_WAVEFRONT_SIZE__)
	// is compiled once per size; the others once. Two harness binaries
	// result, one per wave size.
	type job struct {
		src, obj string
		defs     []string
	}
	var jobs []job
	shared := []string{}
	perWave := map[int][]string{64: nil, 32: nil}
	for _, c := range cases {
		src, err := os.ReadFile(filepath.Join(r, c.Source))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(src), "__AMDGCN_WAVEFRONT_SIZE__") {
			for _, w := range []int{64, 32} {
				o := filepath.Join(dir, fmt.Sprintf("%s.w%d.o", c.Name, w))
				jobs = append(jobs, job{c.Source, o, []string{fmt.Sprintf("-DRJ_WAVE=%d", w)}})
				perWave[w] = append(perWave[w], o)
			}
			continue
		}
		o := filepath.Join(dir, c.Name+".o")
		jobs = append(jobs, job{c.Source, o, nil})
		shared = append(shared, o)
	}
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			args := []string{"-x", "cl", "-cl-std=CL2.0", "-target", "x86_64-linux-gnu",
				"-O1", "-ffp-contract=off", "-Xclang", "-ffloat16-excess-precision=none"}
			args = append(args, j.defs...)
			args = append(args, "-include", filepath.Join(hostDir, "prelude.h"),
				"-I", filepath.Join(r, "testdata", "kernels", "src"),
				"-c", filepath.Join(r, j.src), "-o", j.obj)
			out, err := exec.Command(clang, args...).CombinedOutput()
			if err != nil {
				errs[i] = fmt.Errorf("%s: %v\n%s", j.src, err, out)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	bins := map[int]string{}
	for _, w := range []int{64, 32} {
		bins[w] = filepath.Join(dir, fmt.Sprintf("harness%d", w))
		args := []string{"-O1", "-ffp-contract=off", "-o", bins[w],
			filepath.Join(hostDir, "harness.c"), filepath.Join(dir, "calls.c")}
		args = append(args, shared...)
		args = append(args, perWave[w]...)
		args = append(args, "-lm", "-pthread")
		if out, err := exec.Command(clang, args...).CombinedOutput(); err != nil {
			t.Fatalf("link harness: %v\n%s", err, out)
		}
	}

	runs := 0
	for _, c := range cases {
		var waves []int
		if c.HasTarget("gfx942") || c.HasTarget("gfx950") {
			waves = append(waves, 64)
		}
		if c.HasTarget("gfx1200") {
			waves = append(waves, 32)
		}
		for _, wave := range waves {
			run := filepath.Join(dir, fmt.Sprintf("%s.w%d", c.Name, wave))
			if err := os.MkdirAll(run, 0o755); err != nil {
				t.Fatal(err)
			}
			addrs := map[int]uint64{}
			for _, i := range c.Buffers() {
				addrs[i] = 0
			}
			ka, err := c.Kernarg(addrs)
			if err != nil {
				t.Fatal(err)
			}
			kaPath := filepath.Join(run, "kernarg")
			if err := os.WriteFile(kaPath, ka, 0o644); err != nil {
				t.Fatal(err)
			}
			cmdArgs := []string{c.Name, fmt.Sprint(wave)}
			for _, g := range c.Grid {
				cmdArgs = append(cmdArgs, fmt.Sprint(g))
			}
			for _, g := range c.Block {
				cmdArgs = append(cmdArgs, fmt.Sprint(g))
			}
			cmdArgs = append(cmdArgs, kaPath)
			for _, i := range c.Buffers() {
				p := filepath.Join(run, fmt.Sprintf("buf%d", i))
				if err := os.WriteFile(p, c.Args[i].Init, 0o644); err != nil {
					t.Fatal(err)
				}
				cmdArgs = append(cmdArgs, p)
			}
			cmd := exec.Command(bins[wave], cmdArgs...)
			fp8 := "ocp"
			if c.HasTarget("gfx942") {
				fp8 = "fnuz" // gfx942's FP8/BF8 formats; gfx950 and gfx12 use OCP
			}
			cmd.Env = append(os.Environ(), "RJ_FP8="+fp8)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s wave%d: harness: %v\n%s", c.Name, wave, err, out)
				continue
			}
			outs := map[int][]byte{}
			for _, i := range c.Buffers() {
				b, err := os.ReadFile(filepath.Join(run, fmt.Sprintf("buf%d", i)))
				if err != nil {
					t.Fatal(err)
				}
				outs[i] = b
			}
			if err := c.Check(outs); err != nil {
				t.Errorf("wave%d: %v", wave, err)
			}
			runs++
		}
	}
	t.Logf("%d host runs of %d kernels", runs, len(cases))
}
