package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/aql"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/silkrt"
)

// buildSilktest builds the silk.h library with go build (-buildmode=c-archive
// of this package for libsilk.a, or c-shared of ./shim for librocjitsu.so)
// and links c/silktest/silktest.c against it with gcc.
func buildSilktest(t *testing.T, shared bool) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Fatalf("gcc not found (install Debian package gcc): %v", err)
	}
	root := projectpath.MustRoot(t)
	dir := t.TempDir()
	lib := filepath.Join(dir, "libsilk.a")
	cmd := exec.Command("go", "build", "-buildmode=c-archive", "-o", lib, ".")
	cmd.Dir = filepath.Join(root, "c", "libsilk")
	if shared {
		lib = filepath.Join(dir, "librocjitsu.so")
		cmd = exec.Command("go", "build", "-buildmode=c-shared", "-o", lib, "./shim")
		cmd.Dir = root
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
	}
	exe := filepath.Join(dir, "silktest")
	args := []string{"-std=c11", "-Wall", "-Wextra", "-Werror", "-I", filepath.Join(root, "c", "include"),
		"-o", exe, filepath.Join(root, "c", "silktest", "silktest.c")}
	if shared {
		args = append(args, "-L", dir, "-lrocjitsu", "-Wl,-rpath,"+dir)
	} else {
		args = append(args, lib, "-lpthread")
	}
	if out, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return exe
}

// TestCABI runs the C program, linked with libsilk.a, on its own table
// (struct layout, field offsets, every status) and on configs generated
// here, comparing status and packet bytes with silkrt.EncodeDispatchPacket.
func TestCABI(t *testing.T) {
	checkSilktest(t, buildSilktest(t, false), 3000)
}

// TestHeaderCXX checks that silk.h compiles as C++ (extern "C", no C-only
// constructs) with clang-19.
func TestHeaderCXX(t *testing.T) {
	clang := llvmtool.Require(t, llvmtool.Clang)
	src := filepath.Join(t.TempDir(), "use.cc")
	prog := `#include "silk.h"
static_assert(sizeof(SilkAmdGpuAqlDispatchPacketConfig) == 72, "config size");
int use(const SilkAmdGpuAqlDispatchPacketConfig *c, uint8_t *p) {
	return silk_amdgpu_aql_dispatch_packet_build(c, p) == SILK_AMDGPU_AQL_STATUS_OK;
}
`
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(clang, "-x", "c++", "-std=c++11", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
		"-I", filepath.Join(projectpath.MustRoot(t), "c", "include"), src).CombinedOutput()
	if err != nil {
		t.Fatalf("silk.h as C++: %v\n%s", err, out)
	}
}

// TestCABILibrocjitsu does the same with the function exported by
// librocjitsu.so (shim/silkabi.go).
func TestCABILibrocjitsu(t *testing.T) {
	checkSilktest(t, buildSilktest(t, true), 500)
}

func checkSilktest(t *testing.T, exe string, n int) {
	out, err := exec.Command(exe).CombinedOutput()
	if err != nil {
		t.Fatalf("silktest: %v\n%s", err, out)
	}
	t.Logf("%s", bytes.TrimSpace(out))

	r := rand.New(rand.NewPCG(1, 2))
	pick16 := []uint64{0, 1, 2, 3, 8, 63, 64, 65, 256, 1024, 1025, 2048, 0xffff}
	pick32 := []uint64{0, 1, 2, 3, 8, 63, 64, 65, 256, 1024, 1025, 4096, 1 << 20, 0xffffffff}
	var configs []silkrt.DispatchConfig
	var lines strings.Builder
	for range n {
		v := [16]uint64{
			uint64(r.IntN(5)),
			pick16[r.IntN(len(pick16))], pick16[r.IntN(len(pick16))], pick16[r.IntN(len(pick16))],
			pick32[r.IntN(len(pick32))], pick32[r.IntN(len(pick32))], pick32[r.IntN(len(pick32))],
			r.Uint64() & 0xffffffff, r.Uint64() & 0xffffffff, []uint64{0, 0, 32, 256, 1024, 2048}[r.IntN(6)],
			r.Uint64(), r.Uint64(), r.Uint64(),
			uint64(r.IntN(2)), uint64(r.IntN(4)), uint64(r.IntN(4)),
		}
		// Bias towards valid geometry so later rules get reached.
		if r.IntN(2) == 0 {
			d := v[0]
			if d < 1 || d > 3 {
				d = 1 + uint64(r.IntN(3))
				v[0] = d
			}
			for i := d; i < 3; i++ {
				v[1+i], v[4+i] = 1, 1
			}
			for i := range d {
				if v[1+i] == 0 {
					v[1+i] = 1
				}
				if v[4+i] < v[1+i] {
					v[4+i] = v[1+i] * uint64(1+r.IntN(4))
				}
			}
			if r.IntN(2) == 0 {
				v[14], v[15] = uint64(r.IntN(3)), uint64(r.IntN(3))
			}
		}
		fields := make([]string, 16)
		for i, x := range v {
			fields[i] = strconv.FormatUint(x, 10)
		}
		lines.WriteString(strings.Join(fields, " ") + "\n")
		configs = append(configs, silkrt.DispatchConfig{
			Dimensions: uint16(v[0]), WorkgroupSizeX: uint16(v[1]), WorkgroupSizeY: uint16(v[2]), WorkgroupSizeZ: uint16(v[3]),
			GridSizeX: uint32(v[4]), GridSizeY: uint32(v[5]), GridSizeZ: uint32(v[6]),
			PrivateSegmentSize: uint32(v[7]), GroupSegmentSize: uint32(v[8]), MaxFlatWorkgroupSize: uint32(v[9]),
			KernelObject: v[10], KernargAddress: v[11], CompletionSignal: v[12],
			Barrier: v[13] != 0, AcquireFenceScope: aql.FenceScope(v[14]), ReleaseFenceScope: aql.FenceScope(v[15]),
		})
	}
	cmd := exec.Command(exe, "--stdin")
	cmd.Stdin = strings.NewReader(lines.String())
	cmd.Stderr = os.Stderr
	res, err := cmd.Output()
	if err != nil {
		t.Fatalf("silktest --stdin: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(res))
	statuses := map[silkrt.Rule]int{}
	i := 0
	for ; sc.Scan(); i++ {
		if i >= len(configs) {
			t.Fatal("more output lines than configs")
		}
		var st int32
		var hx string
		if _, err := fmt.Sscanf(sc.Text(), "%d %s", &st, &hx); err != nil {
			t.Fatalf("line %d: %q: %v", i, sc.Text(), err)
		}
		var want [64]byte
		rule := silkrt.RuleOf(silkrt.EncodeDispatchPacket(&configs[i], want[:]))
		if st != int32(rule) || hx != hex.EncodeToString(want[:]) {
			t.Fatalf("config %d %+v:\nC:  %d %s\nGo: %d %x", i, configs[i], st, hx, rule, want)
		}
		statuses[rule]++
	}
	if i != len(configs) {
		t.Fatalf("%d output lines for %d configs", i, len(configs))
	}
	for r := silkrt.RuleOK; r <= silkrt.RuleFenceScope; r++ {
		if r != silkrt.RuleNullPointer && statuses[r] == 0 {
			t.Errorf("no generated config reached status %d (%v)", r, r)
		}
	}
	t.Logf("C ABI and Go agree on %d configs; statuses %v", len(configs), statuses)
}
