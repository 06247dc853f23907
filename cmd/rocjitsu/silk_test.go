package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/silkrt"
)

// silkFixtures compiles a gfx942 test kernel with clang-19/ld.lld-19 and the
// HIP test double with gcc into dir.
func silkFixtures(t *testing.T) (hsaco, double string) {
	t.Helper()
	clang := llvmtool.Require(t, "clang-19")
	lld := llvmtool.Require(t, "ld.lld-19")
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Fatalf("gcc not found (install Debian package gcc): %v", err)
	}
	dir := t.TempDir()
	src := `__kernel void fill(__global uint *out, uint value) {
  out[__builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x()] = value;
}
__kernel void nop(void) {}
`
	cl := filepath.Join(dir, "k.cl")
	if err := os.WriteFile(cl, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	hsaco = filepath.Join(dir, "k.hsaco")
	double = filepath.Join(dir, "libamdhip64.so")
	for _, c := range [][]string{
		{clang, "-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib", "-O2", "-c", cl, "-o", filepath.Join(dir, "k.o")},
		{lld, "-shared", filepath.Join(dir, "k.o"), "-o", hsaco},
		{gcc, "-shared", "-fPIC", "-o", double, filepath.Join(projectpath.MustRoot(t), "c", "hipdouble", "hipdouble.c")},
	} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c, err, out)
		}
	}
	return hsaco, double
}

func run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := runMain(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestSilkBundleInspectRun(t *testing.T) {
	hsaco, double := silkFixtures(t)
	dir := t.TempDir()
	exe := filepath.Join(dir, "app")
	host := []byte("\x7fELF pretend host executable, 37 bytes")
	if err := os.WriteFile(exe, host, 0o750); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run("silk", "bundle", "--entry", "fill="+hsaco, "--entry", "nop="+hsaco, "--into", exe)
	if code != 0 || !strings.Contains(out, "target 942, 2 entries") {
		t.Fatalf("bundle: %d %q %q", code, out, errs)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, host) {
		t.Fatal("host bytes changed")
	}
	if st, _ := os.Stat(exe); st.Mode().Perm() != 0o750 {
		t.Fatalf("mode %v", st.Mode())
	}
	code, out, errs = run("silk", "inspect", exe)
	if code != 0 {
		t.Fatalf("inspect: %d %q", code, errs)
	}
	for _, want := range []string{"Silk GPU bundle v3 at offset 40", "provider hip, target 942, 2 entries", "0    12         4", "gfx942     fill\n", "1    0          4", "gfx942     nop\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out)
		}
	}
	// A second bundle needs --replace.
	if code, _, errs = run("silk", "bundle", "--entry", "nop="+hsaco, "--into", exe); code != 1 || !strings.Contains(errs, "already has a bundle") {
		t.Fatalf("second bundle: %d %q", code, errs)
	}
	out2 := filepath.Join(dir, "app2")
	if code, _, errs = run("silk", "bundle", "--replace", "--entry", "nop="+hsaco, "--into", exe, "-o", out2); code != 0 {
		t.Fatalf("replace: %q", errs)
	}
	if b, _, err := silkrt.ParseBundle(mustRead(t, out2)); err != nil || len(b.Entries) != 1 || b.Entries[0].Name != "nop" {
		t.Fatalf("replaced bundle: %v", err)
	}

	// Run through the HIP test double.
	logPath := filepath.Join(dir, "hip.log")
	t.Setenv("HIPDOUBLE_LOG", logPath)
	t.Setenv("HIPDOUBLE_DEVICES", "1")
	in := filepath.Join(dir, "in.bin")
	if err := os.WriteFile(in, []byte{1, 2, 3, 4, 5, 6, 7, 8}, 0o644); err != nil {
		t.Fatal(err)
	}
	outFile := filepath.Join(dir, "out.bin")
	code, out, errs = run("silk", "run", exe, "fill", "--grid", "128", "--block", "64", "--arg", "out:"+outFile+":512", "--arg", "u32:0x2a", "--hip-lib", double)
	if code != 0 || !strings.Contains(out, "ran fill grid=128,1,1 block=64,1,1 kernargs=12 bytes on hip") {
		t.Fatalf("run: %d %q %q", code, out, errs)
	}
	if got := mustRead(t, outFile); len(got) != 512 || !bytes.Equal(got, make([]byte, 512)) {
		t.Fatalf("out.bin: %d bytes", len(got))
	}
	log := string(mustRead(t, logPath))
	for _, want := range []string{
		"hipModuleGetFunction function=ptr mod#1 name=fill",
		"hipMalloc ptr=ptr size=512",
		"hipMemcpy dst=buf#1+0 src=host size=512 kind=1",
		"hipModuleLaunchKernel fn#1(fill) grid=2,1,1 block=64,1,1 shared=0 stream=NULL kernelParams=NULL extra=buffer args[12]=",
		"hipDeviceSynchronize",
		"hipMemcpy dst=host src=buf#1+0 size=512 kind=2",
		"hipFree buf#1",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("HIP log lacks %q:\n%s", want, log)
		}
	}
	// The pointer argument is followed by 0x2a.
	i := strings.Index(log, "args[12]=")
	if i < 0 || log[i+9+16:i+9+24] != "2a000000" {
		t.Errorf("kernarg bytes: %q", log[i:min(len(log), i+40)])
	}
	code, out, errs = run("silk", "run", exe, "nop", "--grid", "64,2", "--block", "32,2", "--dyn-lds", "1024", "--hip-lib", double)
	if code != 0 || !strings.Contains(out, "ran nop grid=64,2,1 block=32,2,1 kernargs=0 bytes") {
		t.Fatalf("run nop: %d %q %q", code, out, errs)
	}
	if !strings.Contains(string(mustRead(t, logPath)), "(nop) grid=2,1,1 block=32,2,1 shared=1024 ") {
		t.Errorf("--dyn-lds did not reach sharedMemBytes:\n%s", mustRead(t, logPath))
	}
	code, _, _ = run("silk", "run", exe, "fill", "--grid", "64", "--block", "64", "--arg", "in:"+in, "--arg", "i32:-1", "--hip-lib", double)
	if code != 0 {
		t.Fatal("run with in: failed")
	}
	if log := string(mustRead(t, logPath)); !strings.Contains(log, "hipMemcpy dst=buf#2+0 src=host size=8 kind=1 data=0102030405060708") || !strings.Contains(log, "ffffffff\n") {
		t.Errorf("in: upload or i32 argument missing from log:\n%s", log)
	}

	errCases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"silk", "run", exe, "fill", "--grid", "128", "--block", "64", "--arg", "u32:1", "--hip-lib", double}, 1, "takes 12 bytes of kernel arguments; the --arg list packs to 4"},
		{[]string{"silk", "run", exe, "other", "--grid", "64", "--block", "64", "--hip-lib", double}, 1, "no entry \"other\" (entries: fill, nop)"},
		{[]string{"silk", "run", exe, "nop", "--grid", "4096", "--block", "2048", "--hip-lib", double}, 1, "exceeds max_flat_workgroup_size 1024"},
		{[]string{"silk", "run", exe, "nop", "--grid", "100", "--block", "64", "--hip-lib", double}, 1, "not a multiple of workgroup_size_x 64"},
		{[]string{"silk", "run", exe, "nop", "--grid", "64"}, 2, "need --grid and --block"},
		{[]string{"silk", "run", exe, "fill", "--grid", "64", "--block", "64", "--arg", "x:1"}, 1, "unknown kind"},
		{[]string{"silk", "inspect", filepath.Join(dir, "in.bin")}, 1, "offset 0 (footer): file is 8 bytes"},
		{[]string{"silk", "inspect", hsaco}, 1, "(footer): found"},
		{[]string{"silk", "bundle", "--entry", "absent=" + hsaco, "--into", exe}, 1, "no kernel \"absent\""},
		{[]string{"silk", "bundle", "--into", exe}, 2, "at least one --entry"},
		{[]string{"silk", "frob"}, 2, "unknown subcommand"},
	}
	for _, c := range errCases {
		code, _, errs := run(c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d stderr %q, want %d and %q", c.args[1:], code, errs, c.code, c.want)
		}
	}
	// The simulator runs the kernel for real: every work-item stores 0x2a.
	simOut := filepath.Join(dir, "sim.bin")
	code, out, errs = run("silk", "run", exe, "fill", "--provider", "sim", "--grid", "128", "--block", "64", "--arg", "out:"+simOut+":512", "--arg", "u32:0x2a")
	if code != 0 || !strings.Contains(out, "kernargs=12 bytes on sim") || !strings.Contains(out, "simulator gfx942: 2 waves") {
		t.Fatalf("run on sim: %d %q %q", code, out, errs)
	}
	res := mustRead(t, simOut)
	for i := range 128 {
		if v := binary.LittleEndian.Uint32(res[4*i:]); v != 0x2a {
			t.Fatalf("sim out[%d] = %#x, want 0x2a", i, v)
		}
	}
	if len(res) != 512 {
		t.Fatalf("sim.bin is %d bytes", len(res))
	}
	// auto falls back to the simulator when HIP has no device.
	t.Setenv("HIPDOUBLE_DEVICES", "0")
	code, out, errs = run("silk", "run", exe, "nop", "--grid", "64", "--block", "64", "--hip-lib", double)
	if code != 0 || !strings.Contains(out, "on sim") || !strings.Contains(errs, "using the simulator (gfx942)") || !strings.Contains(errs, "hipErrorNoDevice") {
		t.Fatalf("auto fallback: %d %q %q", code, out, errs)
	}
	if code, _, errs = run("silk", "run", exe, "nop", "--grid", "64", "--block", "64", "--provider", "hip", "--hip-lib", double); code != 1 || !strings.Contains(errs, "no GPU device") {
		t.Fatalf("--provider hip without a device: %d %q", code, errs)
	}
	if code, _, errs = run("silk", "run", exe, "nop", "--grid", "64", "--block", "64", "--provider", "cuda"); code != 2 || !strings.Contains(errs, "want auto, hip or sim") {
		t.Fatalf("--provider cuda: %d %q", code, errs)
	}
	t.Setenv("HIPDOUBLE_DEVICES", "1")

	// inspect checks each entry against its code object.
	hand, err := silkrt.AppendBundle([]byte("h"), &silkrt.Bundle{Provider: silkrt.ProviderHIP, Target: 950, Entries: []silkrt.Entry{
		{Name: "fill", KernargSize: 16, CodeObject: mustRead(t, hsaco)},
		{Name: "nop", KernargSize: 0, CodeObject: mustRead(t, hsaco)},
		{Name: "junk", KernargSize: 0, CodeObject: []byte("junk")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	handExe := filepath.Join(dir, "hand")
	if err := os.WriteFile(handExe, hand, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = run("silk", "inspect", handExe)
	for _, want := range []string{"fill  ! metadata says 12 kernarg bytes", "nop  ! bundle target is 950", "?          junk  ! "} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect of a hand-made bundle lacks %q:\n%s", want, out)
		}
	}
	if code != 1 || !strings.Contains(errs, "3 of 3 entries disagree") {
		t.Errorf("inspect exit %d %q", code, errs)
	}

	// A bundle whose version field was bumped is rejected with the offset.
	bad := mustRead(t, exe)
	_, loc, _ := silkrt.ParseBundle(bad)
	binary.LittleEndian.PutUint32(bad[loc.Start+8:], 4)
	badExe := filepath.Join(dir, "bad")
	if err := os.WriteFile(badExe, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = run("silk", "inspect", badExe)
	if want := fmt.Sprintf("offset %d (version): unsupported bundle version 4", loc.Start+8); code != 1 || !strings.Contains(errs, want) {
		t.Errorf("bad version: %d %q, want %q", code, errs, want)
	}
}

// TestSilkRunRealHIP runs "silk run" against Debian's libamdhip64 in a child
// process: without a GPU it must exit 1 with a clean no-device message.
func TestSilkRunRealHIP(t *testing.T) {
	if exe := os.Getenv("ROCJITSU_SILK_REAL_HIP_EXE"); exe != "" {
		os.Exit(runMain([]string{"silk", "run", exe, "nop", "--grid", "64", "--block", "64", "--provider", "hip"}, os.Stdout, os.Stderr))
	}
	hsaco, _ := silkFixtures(t)
	exe := filepath.Join(t.TempDir(), "app")
	if err := os.WriteFile(exe, []byte("host"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run("silk", "bundle", "--entry", "nop="+hsaco, "--into", exe); code != 0 {
		t.Fatal(errs)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSilkRunRealHIP$")
	cmd.Env = append(os.Environ(), "ROCJITSU_SILK_REAL_HIP_EXE="+exe)
	out, err := cmd.CombinedOutput()
	if _, statErr := os.Stat("/dev/kfd"); statErr == nil {
		t.Skipf("/dev/kfd present; no-device check does not apply (child: %v, %s)", err, out)
	}
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 {
		t.Fatalf("child: %v (want exit status 1)\n%s", err, out)
	}
	if !strings.Contains(string(out), "no GPU device") || !strings.Contains(string(out), "hipErrorNoDevice") {
		t.Fatalf("child output lacks a clean no-device error:\n%s", out)
	}
	t.Logf("%s", bytes.TrimSpace(out))
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSilkPacket(t *testing.T) {
	code, out, errs := run("silk", "packet", "--grid", "256,4", "--block", "64,2", "--kernel-object", "0x1000", "--kernarg", "0x2000", "--signal", "0x3000", "--group", "512", "--barrier")
	if code != 0 {
		t.Fatalf("packet: %d %q", code, errs)
	}
	want := "0215" + "0200" + "4000" + "0200" + "0100" + "0000" + "00010000" + "04000000" + "01000000" + "00000000" + "00020000" +
		"0010000000000000" + "0020000000000000" + "0000000000000000" + "0030000000000000"
	lines := strings.Split(out, "\n")
	if lines[0] != want {
		t.Fatalf("packet bytes\n got %s\nwant %s", lines[0], want)
	}
	for _, w := range []string{"KERNEL_DISPATCH barrier acquire=SYSTEM release=SYSTEM", "dimensions=2", "grid_size          256,4,1", "kernel_object      0x1000"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	// Decoding the printed bytes gives the same fields.
	code, out2, errs := run("silk", "packet", "--decode", want)
	if code != 0 || out2 != out {
		t.Fatalf("decode: %d %q\n%s\nwant\n%s", code, errs, out2, out)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--grid", "32", "--block", "64"}, 1, "grid_size_x = 32 is smaller than the workgroup size 64"},
		{[]string{"--grid", "64,2", "--block", "64,1,2"}, 1, "grid_size_z = 1 is smaller than the workgroup size 2"},
		{[]string{"--grid", "2048", "--block", "1024", "--max-flat", "256"}, 1, "exceeds max_flat_workgroup_size 256"},
		{[]string{"--grid", "64", "--block", "64", "--acquire", "cluster"}, 2, "want none, agent or system"},
		{[]string{"--decode", "0102"}, 1, "2 bytes, want 64"},
		{[]string{"--grid", "64"}, 2, "need --grid and --block"},
	} {
		code, _, errs := run(append([]string{"silk", "packet"}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: %d %q, want %d %q", c.args, code, errs, c.code, c.want)
		}
	}
}
