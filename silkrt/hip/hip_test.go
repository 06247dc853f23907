package hip

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rocjitsu/rocjitsu/silkrt"
	"github.com/rocjitsu/rocjitsu/silkrt/internal/fixture"
)

func TestMain(m *testing.M) {
	code := m.Run()
	fixture.Cleanup()
	os.Exit(code)
}

func fnv1a(b []byte) uint64 {
	h := uint64(0xcbf29ce484222325)
	for _, c := range b {
		h ^= uint64(c)
		h *= 0x100000001b3
	}
	return h
}

func readLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHIPProviderAgainstDouble drives the provider against the C test double
// and compares the double's call log, argument by argument, with what the
// provider must have passed.
func TestHIPProviderAgainstDouble(t *testing.T) {
	code, double := fixture.KernelBytes(t), fixture.HIPDouble(t)
	logPath := filepath.Join(t.TempDir(), "hip.log")
	t.Setenv("HIPDOUBLE_LOG", logPath)
	t.Setenv("HIPDOUBLE_DEVICES", "1")
	t.Setenv("HIPDOUBLE_FAIL", "")

	fill, tag, err := silkrt.EntryFromCodeObject("fill", code)
	if err != nil {
		t.Fatal(err)
	}
	nop, _, err := silkrt.EntryFromCodeObject("nop", code)
	if err != nil {
		t.Fatal(err)
	}
	// Round-trip through the bundle format, as the CLI does.
	exe, err := silkrt.AppendBundle([]byte("host"), &silkrt.Bundle{Provider: silkrt.ProviderHIP, Target: tag, Entries: []silkrt.Entry{fill, nop}})
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := silkrt.ParseBundle(exe)
	if err != nil {
		t.Fatal(err)
	}

	h, err := Open(Options{Library: double})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Load(b); err != nil {
		t.Fatal(err)
	}
	buf, err := h.Alloc(256)
	if err != nil {
		t.Fatal(err)
	}
	in := bytes.Repeat([]byte{1, 2, 3, 4}, 4)
	if err := h.CopyIn(buf+16, in); err != nil {
		t.Fatal(err)
	}
	args := binary.LittleEndian.AppendUint64(nil, uint64(buf))
	args = binary.LittleEndian.AppendUint32(args, 0xdeadbeef)
	if err := h.Launch("fill", silkrt.D3(256, 1, 1), silkrt.D3(64, 1, 1), args); err != nil {
		t.Fatal(err)
	}
	if err := h.LaunchWith("nop", silkrt.D3(128, 4, 2), silkrt.D3(32, 2, 2), nil, silkrt.LaunchOptions{DynamicGroupSegmentSize: 4096}); err != nil {
		t.Fatal(err)
	}
	if err := h.Synchronize(); err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 24)
	if err := h.CopyOut(out, buf+8); err != nil {
		t.Fatal(err)
	}
	// The double does not run kernels: device memory holds its 0xA5 fill
	// except where CopyIn wrote.
	want := append(bytes.Repeat([]byte{0xa5}, 8), in...)
	if !bytes.Equal(out, want) {
		t.Fatalf("copy out: %x want %x", out, want)
	}
	if err := h.Free(buf); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}

	argHex := fmt.Sprintf("%x", args)
	wantLog := strings.Join([]string{
		"hipInit flags=0", "  -> hipSuccess",
		"hipGetDeviceCount count=ptr", "  -> hipSuccess",
		fmt.Sprintf("hipModuleLoadData module=ptr image=ptr size=%d fnv=%016x", len(fill.CodeObject), fnv1a(fill.CodeObject)), "  mod#1", "  -> hipSuccess",
		"hipModuleGetFunction function=ptr mod#1 name=fill", "  fn#1", "  -> hipSuccess",
		fmt.Sprintf("hipModuleLoadData module=ptr image=ptr size=%d fnv=%016x", len(nop.CodeObject), fnv1a(nop.CodeObject)), "  mod#2", "  -> hipSuccess",
		"hipModuleGetFunction function=ptr mod#2 name=nop", "  fn#2", "  -> hipSuccess",
		"hipMalloc ptr=ptr size=256", "  buf#1", "  -> hipSuccess",
		"hipMemcpy dst=buf#1+16 src=host size=16 kind=1 data=01020304010203040102030401020304", "  -> hipSuccess",
		"hipModuleLaunchKernel fn#1(fill) grid=4,1,1 block=64,1,1 shared=0 stream=NULL kernelParams=NULL extra=buffer args[12]=" + argHex, "  -> hipSuccess",
		"hipModuleLaunchKernel fn#2(nop) grid=4,2,1 block=32,2,2 shared=4096 stream=NULL kernelParams=NULL extra=buffer args[0]=", "  -> hipSuccess",
		"hipDeviceSynchronize", "  -> hipSuccess",
		"hipMemcpy dst=host src=buf#1+8 size=24 kind=2 data=a5a5a5a5a5a5a5a5" + fmt.Sprintf("%x", in), "  -> hipSuccess",
		"hipFree buf#1", "  -> hipSuccess",
	}, "\n")
	got := readLog(t, logPath)
	if !strings.HasPrefix(got, wantLog+"\n") {
		t.Fatalf("call log mismatch:\n--- got\n%s\n--- want prefix\n%s", got, wantLog)
	}
	// Close unloads both modules (in map order), nothing else.
	rest := strings.TrimPrefix(got, wantLog+"\n")
	if strings.Count(rest, "hipModuleUnload") != 2 || strings.Count(rest, "-> hipSuccess") != 2 || strings.Count(rest, "\n") != 4 {
		t.Fatalf("close: %q", rest)
	}
}

func TestHIPProviderErrors(t *testing.T) {
	code, double := fixture.KernelBytes(t), fixture.HIPDouble(t)
	fill, _, err := silkrt.EntryFromCodeObject("fill", code)
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "hip.log")
	t.Setenv("HIPDOUBLE_LOG", logPath)

	// No device: a clean error that matches silkrt.ErrNoDevice and names HIP's code.
	t.Setenv("HIPDOUBLE_DEVICES", "0")
	_, err = Open(Options{Library: double})
	var he *Error
	if !errors.Is(err, silkrt.ErrNoDevice) || !errors.As(err, &he) || he.Name != "hipErrorNoDevice" || he.Func != "hipInit" {
		t.Fatalf("no device: %v", err)
	}
	t.Logf("no device: %v", err)

	// A missing library.
	if _, err := Open(Options{Library: filepath.Join(t.TempDir(), "libnothere.so")}); err == nil || !strings.Contains(err.Error(), "cannot load the HIP runtime") {
		t.Fatalf("missing library: %v", err)
	}
	// A library without the HIP functions.
	if _, err := Open(Options{Library: "libm.so.6"}); err == nil || !strings.Contains(err.Error(), "lacks hipInit, hipModuleLoadData") {
		t.Fatalf("incomplete library: %v", err)
	}

	t.Setenv("HIPDOUBLE_DEVICES", "1")
	double2 := fixture.HIPDouble(t)
	h, err := Open(Options{Library: double2})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.Load(&silkrt.Bundle{Provider: silkrt.ProviderCUDA, Target: 80, Entries: []silkrt.Entry{fill}}); err == nil || !strings.Contains(err.Error(), "provider cuda") {
		t.Fatalf("cuda bundle offered to HIP: %v", err)
	}
	if err := h.Launch("fill", silkrt.D3(64, 1, 1), silkrt.D3(64, 1, 1), make([]byte, 12)); err == nil || !strings.Contains(err.Error(), "no bundle loaded") {
		t.Fatalf("launch before load: %v", err)
	}
	// A kernel name the code object does not have: HIP's hipErrorNotFound.
	bad := fill
	bad.Name = "absent"
	err = h.Load(&silkrt.Bundle{Provider: silkrt.ProviderHIP, Target: 942, Entries: []silkrt.Entry{bad}})
	if !errors.As(err, &he) || he.Name != "hipErrorNotFound" || he.Func != "hipModuleGetFunction" || !strings.Contains(err.Error(), "named symbol not found") {
		t.Fatalf("absent kernel: %v", err)
	}
	// The failed Load unloaded its module and left the provider usable.
	if log := readLog(t, logPath); !strings.HasSuffix(log, "hipModuleUnload mod#1\n  -> hipSuccess\n") {
		t.Fatalf("failed Load did not unload its module:\n%s", log)
	}
	if err := h.Load(&silkrt.Bundle{Provider: silkrt.ProviderHIP, Target: 942, Entries: []silkrt.Entry{fill}}); err != nil {
		t.Fatalf("Load after a failed Load: %v", err)
	}

	double3 := fixture.HIPDouble(t)
	h3, err := Open(Options{Library: double3})
	if err != nil {
		t.Fatal(err)
	}
	defer h3.Close()
	// Not an ELF: hipErrorInvalidImage from the runtime.
	junk := silkrt.Entry{Name: "fill", KernargSize: 12, CodeObject: []byte("not an elf at all")}
	if err := h3.Load(&silkrt.Bundle{Provider: silkrt.ProviderHIP, Target: 942, Entries: []silkrt.Entry{junk}}); !errors.As(err, &he) || he.Name != "hipErrorInvalidImage" {
		t.Fatalf("junk image: %v", err)
	}

	double4 := fixture.HIPDouble(t)
	h4, err := Open(Options{Library: double4})
	if err != nil {
		t.Fatal(err)
	}
	defer h4.Close()
	if err := h4.Load(&silkrt.Bundle{Provider: silkrt.ProviderHIP, Target: 942, Entries: []silkrt.Entry{fill}}); err != nil {
		t.Fatal(err)
	}
	p, err := h4.Alloc(64)
	if err != nil {
		t.Fatal(err)
	}
	launch := []struct {
		name        string
		grid, block silkrt.Dim3
		args        int
		want        string
	}{
		{"kernarg size", silkrt.D3(64, 1, 1), silkrt.D3(64, 1, 1), 8, "takes 12 bytes of kernel arguments, got 8"},
		{"not a multiple", silkrt.D3(100, 1, 1), silkrt.D3(64, 1, 1), 12, "grid_size_x 100 is not a multiple of workgroup_size_x 64"},
		{"flat too large", silkrt.D3(2048, 1, 1), silkrt.D3(2048, 1, 1), 12, "exceeds max_flat_workgroup_size 1024"},
		{"grid smaller", silkrt.D3(32, 1, 1), silkrt.D3(64, 1, 1), 12, "smaller than the workgroup size"},
		{"zero block", silkrt.D3(64, 1, 1), silkrt.D3(0, 1, 1), 12, "workgroup_size_x = 0"},
	}
	for _, l := range launch {
		if err := h4.Launch("fill", l.grid, l.block, make([]byte, l.args)); err == nil || !strings.Contains(err.Error(), l.want) {
			t.Errorf("%s: %v, want %q", l.name, err, l.want)
		}
	}
	if err := h4.LaunchWith("fill", silkrt.D3(64, 1, 1), silkrt.D3(64, 1, 1), make([]byte, 12), silkrt.LaunchOptions{GlobalOffset: [3]uint64{7}}); err == nil || !strings.Contains(err.Error(), "no global offset") {
		t.Errorf("global offset: %v", err)
	}
	if err := h4.Launch("other", silkrt.D3(64, 1, 1), silkrt.D3(64, 1, 1), nil); err == nil || !strings.Contains(err.Error(), "no entry \"other\"") {
		t.Errorf("unknown entry: %v", err)
	}
	if err := h4.CopyIn(p+60, make([]byte, 8)); err == nil || !strings.Contains(err.Error(), "runs past the end of the 64-byte buffer") {
		t.Errorf("overrun: %v", err)
	}
	if err := h4.CopyOut(make([]byte, 4), p+64); err == nil || !strings.Contains(err.Error(), "not inside a live allocation") {
		t.Errorf("outside: %v", err)
	}
	if err := h4.Free(p + 8); err == nil {
		t.Error("free of an interior pointer accepted")
	}
	// Injected runtime failures carry HIP's names.
	t.Setenv("HIPDOUBLE_FAIL", "hipMalloc:2")
	if _, err := h4.Alloc(8); !errors.As(err, &he) || he.Name != "hipErrorOutOfMemory" || !strings.Contains(err.Error(), "hipMalloc: hipErrorOutOfMemory (2): out of memory") {
		t.Errorf("injected hipMalloc failure: %v", err)
	}
	t.Setenv("HIPDOUBLE_FAIL", "hipDeviceSynchronize:700")
	if err := h4.Synchronize(); !errors.As(err, &he) || he.Code != 700 || he.Name != "hipErrorUnknown" && he.Name != "hipErrorIllegalAddress" {
		t.Errorf("injected sync failure: %v", err)
	}
	t.Setenv("HIPDOUBLE_FAIL", "")
	if err := h4.Free(p); err != nil {
		t.Fatal(err)
	}
}

// TestRealHIPNoDevice loads Debian's libamdhip64 (package libamdhip64-5) in
// a child process and checks that a machine without a GPU gives a clean
// "no device" error naming HIP's error code, not a crash.
func TestRealHIPNoDevice(t *testing.T) {
	if os.Getenv("SILKRT_REAL_HIP_CHILD") == "1" {
		_, err := Open(Options{})
		if err == nil {
			fmt.Println("RESULT: device present")
			return
		}
		fmt.Printf("RESULT: noDevice=%v err=%v\n", errors.Is(err, silkrt.ErrNoDevice), err)
		return
	}
	found := false
	for _, n := range LibraryNames {
		for _, d := range []string{"/usr/lib/x86_64-linux-gnu", "/opt/rocm/lib", "/usr/lib64"} {
			if _, err := os.Stat(filepath.Join(d, n)); err == nil {
				found = true
			}
		}
	}
	if !found {
		t.Fatal("no libamdhip64 found; install the Debian package libamdhip64-5 (make deps)")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRealHIPNoDevice$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SILKRT_REAL_HIP_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child process failed (crash?): %v\n%s", err, out)
	}
	s := string(out)
	i := strings.Index(s, "RESULT: ")
	if i < 0 {
		t.Fatalf("child printed no result:\n%s", s)
	}
	line := s[i:]
	if j := strings.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	t.Log(line)
	if _, err := os.Stat("/dev/kfd"); err == nil {
		t.Skip("/dev/kfd exists: this machine may have a GPU; the no-device check does not apply")
	}
	// Debian ships only libamdhip64.so.5: the fallback order reached it.
	if !strings.Contains(line, "noDevice=true") || !strings.Contains(line, "hipError") || !strings.Contains(line, "(libamdhip64.so") {
		t.Fatalf("want a clean no-device error with HIP's error name, got %q", line)
	}
}

// TestHIPProviderConcurrent uses one provider from several goroutines; the
// provider serializes calls into the (not thread-safe) runtime double.
func TestHIPProviderConcurrent(t *testing.T) {
	code, double := fixture.KernelBytes(t), fixture.HIPDouble(t)
	t.Setenv("HIPDOUBLE_LOG", "")
	t.Setenv("HIPDOUBLE_DEVICES", "1")
	t.Setenv("HIPDOUBLE_FAIL", "")
	nop, _, err := silkrt.EntryFromCodeObject("nop", code)
	if err != nil {
		t.Fatal(err)
	}
	h, err := Open(Options{Library: double})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.Load(&silkrt.Bundle{Provider: silkrt.ProviderHIP, Target: 942, Entries: []silkrt.Entry{nop}}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				p, err := h.Alloc(64)
				if err != nil {
					errs <- err
					return
				}
				in := bytes.Repeat([]byte{byte(g), byte(i)}, 32)
				out := make([]byte, 64)
				if err := h.CopyIn(p, in); err != nil {
					errs <- err
					return
				}
				if err := h.Launch("nop", silkrt.D3(64, 1, 1), silkrt.D3(64, 1, 1), nil); err != nil {
					errs <- err
					return
				}
				if err := h.CopyOut(out, p); err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(in, out) {
					errs <- fmt.Errorf("goroutine %d iteration %d: copy mismatch", g, i)
					return
				}
				if err := h.Free(p); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
