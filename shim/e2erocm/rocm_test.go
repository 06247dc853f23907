// Package e2erocm runs the real, unmodified ROCm userland of Debian 13
// (ROCR 6.1.2, libhsakmt 6.2.4, HIP 5.7.1, rocminfo 6.1.2) on the simulated
// GPU of librocjitsu.so: the programs of c/rocm, compiled by hipcc and gcc
// inside the ROCm root (internal/rocmroot, prepared by make deps), run there
// with LD_PRELOAD=librocjitsu.so ROCJITSU_GPU=gfx942. Each failing check of
// a program is reported by its name.
package e2erocm

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// TestWithoutDriver runs the programs without librocjitsu.so: on this
// GPU-less machine each must report that there is no device (exit 3) and
// neither hang nor crash. This is what the programs do before the driver
// serves them.
func TestWithoutDriver(t *testing.T) {
	bt := setup(t)
	for _, argv := range [][]string{{"hip_memory"}, {"hip_kernels"}, {"hip_fault"}, {"hip_lifecycle", "fork"}, {"hip_bench"}, {"hsa_run", "info"}} {
		t.Run(argv[0], func(t *testing.T) {
			r := bt.run(t, t.TempDir(), runOpts{noDriver: true, timeout: time.Minute}, argv[0], argv[1:]...)
			if r.rc != exitNoDevice || r.signal != 0 || r.hung {
				t.Fatalf("want exit %d (no device)\n%s", exitNoDevice, r)
			}
			if l, ok := r.line("FAIL "); !ok || !strings.Contains(l, "no ROCm device") {
				t.Fatalf("want a FAIL line saying there is no device\n%s", r)
			}
		})
	}
}

// TestRocminfo: rocminfo passes its preflight and lists a gfx942 GPU agent.
func TestRocminfo(t *testing.T) {
	bt := setup(t)
	r := bt.run(t, t.TempDir(), runOpts{timeout: 2 * time.Minute}, "rocminfo")
	if r.rc != 0 || r.hung {
		t.Fatalf("rocminfo failed\n%s", r)
	}
	if !regexp.MustCompile(`(?m)^\s*Name:\s+gfx942\s*$`).MatchString(r.stdout) {
		t.Errorf("rocminfo lists no agent named gfx942\n%s", r)
	}
	if !regexp.MustCompile(`(?m)^\s*Device Type:\s+GPU\s*$`).MatchString(r.stdout) {
		t.Errorf("rocminfo lists no GPU agent\n%s", r)
	}
	if !strings.Contains(r.stdout, "amdgcn-amd-amdhsa--gfx942") {
		t.Errorf("rocminfo lists no gfx942 ISA\n%s", r)
	}
}

// TestRocjitsuExec: rocjitsu exec (found beside librocjitsu.so, nothing
// else in the environment) runs rocminfo and a HIP program on the
// simulated gfx942.
// TestRocminfoTwoGPUs: ROCJITSU_GPU=gfx942,gfx942 gives two GPU agents
// (libdrm tells their render nodes apart by the primary node's name).
func TestRocminfoTwoGPUs(t *testing.T) {
	bt := setup(t)
	r := bt.run(t, t.TempDir(), runOpts{env: []string{"ROCJITSU_GPU=gfx942,gfx942"}}, "rocminfo")
	if r.rc != 0 {
		t.Fatalf("rocminfo: exit %d\n%s\n%s", r.rc, r.stdout, r.stderr)
	}
	if n := strings.Count(r.stdout, "Device Type:             GPU"); n != 2 {
		t.Errorf("%d GPU agents, want 2:\n%s", n, r.stdout)
	}
}

func TestRocjitsuExec(t *testing.T) {
	bt := setup(t)
	r := bt.run(t, t.TempDir(), runOpts{noDriver: true, timeout: 2 * time.Minute}, libDir+"/rocjitsu", "exec", "--", "rocminfo")
	if r.rc != 0 || r.hung || !regexp.MustCompile(`(?m)^\s*Name:\s+gfx942\s*$`).MatchString(r.stdout) {
		t.Errorf("rocjitsu exec -- rocminfo: want exit 0 and a gfx942 agent\n%s", r)
	}
	c, ok := kernelref.Lookup("saxpy")
	if !ok {
		t.Fatal("kernelref has no saxpy case")
	}
	work := t.TempDir()
	spec, outs := writeSpec(t, work, &c, objectInRoot(&c))
	r = bt.run(t, work, runOpts{noDriver: true, timeout: 2 * time.Minute}, libDir+"/rocjitsu", "exec", "--gpu", "gfx942", "--", bt.prog["hip_module"], spec)
	expectPass(t, r)
	if !t.Failed() {
		checkOutputs(t, &c, outs)
	}
}

// TestHSAInfo: hsa_init, agents and ISAs, device and kernarg pools,
// hsa_memory_copy, a queue with barrier packets.
func TestHSAInfo(t *testing.T) {
	bt := setup(t)
	r := bt.run(t, t.TempDir(), runOpts{}, "hsa_run", "info")
	expectPass(t, r)
	if !strings.Contains(r.stdout, "amdgcn-amd-amdhsa--gfx942") {
		t.Errorf("no gfx942 ISA among the agents' ISAs\n%s", r)
	}
}

// TestHIPMemory: copies of every kind, pinned memory, async copies on
// streams, events with elapsed time, memsets.
func TestHIPMemory(t *testing.T) {
	bt := setup(t)
	expectPass(t, bt.run(t, t.TempDir(), runOpts{}, "hip_memory"))
}

// TestHIPKernels: shared and dynamic shared memory, atomics, shuffles,
// ballots, 1-D/2-D/3-D grids, scratch, doubles.
func TestHIPKernels(t *testing.T) {
	bt := setup(t)
	expectPass(t, bt.run(t, t.TempDir(), runOpts{}, "hip_kernels"))
}

// TestHIPStreams: 8 threads x 8 streams x 320 launches, nothing lost, no
// deadlock.
func TestHIPStreams(t *testing.T) {
	bt := setup(t)
	r := bt.run(t, t.TempDir(), runOpts{timeout: 6 * time.Minute}, "hip_streams", "-threads", "8", "-streams", "8", "-launches", "320")
	expectPass(t, r)
	for i := 0; i < 8; i++ {
		if !strings.Contains(r.stdout, fmt.Sprintf("ok thread-%d-launches ", i)) {
			t.Errorf("thread %d did not report its launches", i)
		}
	}
}

// TestHIPFault: a kernel reading an unmapped address reaches the
// application as ROCR's memory fault event (address and reason), the
// synchronize returns, the device keeps working and the process exits by
// itself.
func TestHIPFault(t *testing.T) {
	bt := setup(t)
	r := bt.run(t, t.TempDir(), runOpts{}, "hip_fault")
	expectPass(t, r)
	if r.signal == syscall.SIGABRT {
		t.Logf("HIP 5.7 aborts when a queue reports an error (its queue callback); ROCR aborts on a memory fault event only when the application has no system event handler (hip_fault has one): the fault must come as a KFD memory event")
	}
}

// TestHIPFork: children that do nothing with HIP (_exit, exec) leave the
// parent's device working; a third child's exit(0) is only reported.
func TestHIPFork(t *testing.T) {
	bt := setup(t)
	expectPass(t, bt.run(t, t.TempDir(), runOpts{}, "hip_lifecycle", "fork"))
}

// TestHIPExitWithStreamsOpen: returning from main with queued work on open
// streams ends the process with status 0.
func TestHIPExitWithStreamsOpen(t *testing.T) {
	bt := setup(t)
	r := bt.run(t, t.TempDir(), runOpts{timeout: 2 * time.Minute}, "hip_lifecycle", "exit-open")
	expectPass(t, r)
}

// TestHIPBenchProgram runs the benchmark program briefly: its launch loop
// and idle phase must complete without errors (the figures are measured
// by BenchmarkHIPLaunch).
func TestHIPBenchProgram(t *testing.T) {
	bt := setup(t)
	r := bt.run(t, t.TempDir(), runOpts{}, "hip_bench", "-n", "50", "-idle", "1")
	expectPass(t, r)
	if _, ok := r.line("ok launch-roundtrip "); !ok {
		t.Errorf("no launch-roundtrip line")
	}
	if _, ok := r.line("ok idle-cpu "); !ok {
		t.Errorf("no idle-cpu line")
	}
}

// field parses key=NUMBER out of a line.
func field(t testing.TB, line, key string) float64 {
	t.Helper()
	m := regexp.MustCompile(`\b` + regexp.QuoteMeta(key) + `=([-0-9.e+]+)`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("no %s= in %q", key, line)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatalf("%s in %q: %v", key, line, err)
	}
	return v
}

// writeSpec writes the c/rocm/spec.h description of case c with its input
// files into work and returns the spec's path inside the root and the
// output file of every buffer argument (host paths).
func writeSpec(t testing.TB, work string, c *kernelref.Case, object string) (string, map[int]string) {
	t.Helper()
	addrs := map[int]uint64{}
	for _, i := range c.Buffers() {
		addrs[i] = 0
	}
	ka, err := c.Kernarg(addrs)
	if err != nil {
		t.Fatal(err)
	}
	var s strings.Builder
	fmt.Fprintf(&s, "object %s\nkernel %s\n", object, c.Name)
	fmt.Fprintf(&s, "grid %d %d %d\nblock %d %d %d\nlds %d\n", c.Grid[0], c.Grid[1], c.Grid[2], c.Block[0], c.Block[1], c.Block[2], c.DynamicLDS())
	fmt.Fprintf(&s, "kernarg %s\n", hex.EncodeToString(ka))
	outs := map[int]string{}
	for _, i := range c.Buffers() {
		a := &c.Args[i]
		in := fmt.Sprintf("arg%d.in", i)
		if err := os.WriteFile(filepath.Join(work, in), a.Init, 0o644); err != nil {
			t.Fatal(err)
		}
		out := fmt.Sprintf("arg%d.out", i)
		outs[i] = filepath.Join(work, out)
		fmt.Fprintf(&s, "buffer %d %d %s/%s %s/%s\n", a.Offset, len(a.Init), workDir, in, workDir, out)
	}
	if err := os.WriteFile(filepath.Join(work, "case.spec"), []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return workDir + "/case.spec", outs
}

// checkOutputs reads the output files and compares them with the case's
// references.
func checkOutputs(t testing.TB, c *kernelref.Case, outs map[int]string) {
	t.Helper()
	got := map[int][]byte{}
	for i, p := range outs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("output of arg %d: %v", i, err)
		}
		got[i] = data
	}
	if err := c.Check(got); err != nil {
		t.Error(err)
	}
}

// gfx942Cases are the kernelref cases with a gfx942 object.
func gfx942Cases() []kernelref.Case {
	var out []kernelref.Case
	for _, c := range kernelref.Cases() {
		if c.HasTarget("gfx942") {
			out = append(out, c)
		}
	}
	return out
}

// objectInRoot is the path inside the root of case c's gfx942 object.
func objectInRoot(c *kernelref.Case) string {
	return testdataDir + "/" + strings.TrimPrefix(c.Object("gfx942"), "testdata/")
}

// globalOffset reports whether the case expects non-zero OpenCL global
// offsets in its hidden arguments: HIP has no way to set them (its launches
// always pass zero), so such a case runs only through the HSA path
// (TestHSAModuleKernelref passes the case's own kernarg bytes).
func globalOffset(c *kernelref.Case) bool {
	for _, a := range c.Args {
		if a.Kind == kernelref.Hidden && strings.HasPrefix(a.Name, "hidden_global_offset_") {
			for _, v := range a.Value {
				if v != 0 {
					return true
				}
			}
		}
	}
	return false
}

// kernelrefRun describes how a set of kernelref cases runs: the object of
// a case (a path inside the root), the program and its arguments around
// the spec, extra environment, and the cases that are not expected to run
// (name -> reason; such a case must not pass).
type kernelrefRun struct {
	object func(c *kernelref.Case) string
	prog   string
	args   func(spec string) []string
	env    []string
	skip   func(c *kernelref.Case) string // logged and not run when non-empty
	notRun map[string]string
}

// runKernelref runs every case as r says, each as a subtest checked against
// its kernelref reference. After a hang the remaining cases fail at once.
func runKernelref(t *testing.T, bt *built, cases []kernelref.Case, r kernelrefRun) {
	hung := ""
	for i := range cases {
		c := &cases[i]
		if r.skip != nil {
			if why := r.skip(c); why != "" {
				t.Logf("%s: %s", c.Name, why)
				continue
			}
		}
		t.Run(c.Name, func(t *testing.T) {
			work := t.TempDir()
			spec, outs := writeSpec(t, work, c, r.object(c))
			if hung != "" {
				t.Fatalf("not run: the earlier case %s hung", hung)
			}
			res := bt.run(t, work, runOpts{timeout: 2 * time.Minute, env: r.env}, r.prog, r.args(spec)...)
			if res.hung || res.rc == exitWatchdog {
				hung = c.Name
			}
			if why, ok := r.notRun[c.Name]; ok {
				if res.rc == 0 && len(res.failures()) == 0 {
					t.Errorf("listed as not running (%s), yet it passed: update the list", why)
				}
				t.Logf("not run: %s: %s", c.Name, why)
				return
			}
			expectPass(t, res)
			if !t.Failed() {
				checkOutputs(t, c, outs)
			}
		})
	}
}

// TestHIPModuleKernelref: every gfx942 test kernel through hipModuleLoad,
// hipModuleGetFunction and hipModuleLaunchKernel matches its kernelref
// reference (but those with global offsets, see globalOffset).
func TestHIPModuleKernelref(t *testing.T) {
	bt := setup(t)
	cases := gfx942Cases()
	if len(cases) < 20 {
		t.Fatalf("only %d gfx942 cases in kernelref", len(cases))
	}
	runKernelref(t, bt, cases, kernelrefRun{object: objectInRoot, prog: "hip_module",
		args: func(spec string) []string { return []string{spec} },
		skip: func(c *kernelref.Case) string {
			if globalOffset(c) {
				return "expects OpenCL global offsets, which HIP cannot pass; TestHSAModuleKernelref runs it"
			}
			return ""
		}})
}

// TestHSAModuleKernelref: every gfx942 test kernel loaded by ROCR's loader
// (reader from file, load, freeze, validate) and dispatched on an AQL
// queue matches its kernelref reference.
func TestHSAModuleKernelref(t *testing.T) {
	bt := setup(t)
	runKernelref(t, bt, gfx942Cases(), kernelrefRun{object: objectInRoot, prog: "hsa_run",
		args: func(spec string) []string { return []string{"spec", spec} }})
}

// TestHSAThreads: 8 threads on 4 queues, 25 dispatches each, every result
// equal to the first, the first equal to the reference.
func TestHSAThreads(t *testing.T) {
	bt := setup(t)
	c, ok := kernelref.Lookup("saxpy")
	if !ok {
		t.Fatal("kernelref has no saxpy case")
	}
	work := t.TempDir()
	spec, outs := writeSpec(t, work, &c, objectInRoot(&c))
	r := bt.run(t, work, runOpts{timeout: 5 * time.Minute}, "hsa_run", "spec", spec, "-threads", "8", "-queues", "4", "-n", "25")
	expectPass(t, r)
	if !t.Failed() {
		checkOutputs(t, &c, outs)
	}
}

// TestCorruptCodeObject: a corrupt code object is refused with an error
// by hipModuleLoad and by ROCR's loader, and neither process crashes. Two
// corruptions: bytes that are not an ELF file (both paths), and a valid ELF
// header whose file is cut to a third (ROCR's loader path only: ROCR 6.1's
// loader would read past the end, so librocjitsu.so's load hook refuses it;
// HIP 5.7's own parser crashes on it before either sees it).
func TestCorruptCodeObject(t *testing.T) {
	bt := setup(t)
	c, ok := kernelref.Lookup("saxpy")
	if !ok {
		t.Fatal("kernelref has no saxpy case")
	}
	obj, err := os.ReadFile(filepath.Join(projectpath.MustRoot(t), c.Object("gfx942")))
	if err != nil {
		t.Fatal(err)
	}
	garbage := make([]byte, 4096)
	for i := range garbage {
		garbage[i] = byte(i*131 + i>>8)
	}
	for _, k := range []struct {
		name string
		data []byte
	}{
		{"not-elf", garbage},
		{"truncated-elf", obj[:len(obj)/3]},
	} {
		for _, p := range []struct {
			prog string
			want []string // the check that must fail first, one of these
		}{
			{"hip_module", []string{"module-load"}},
			{"hsa_run", []string{"code-object-reader", "load-agent-code-object", "executable-freeze", "executable-validate", "executable-valid"}},
		} {
			if k.name == "truncated-elf" && p.prog == "hip_module" {
				// HIP 5.7's hipModuleLoad parses the ELF itself and crashes on
				// this one inside libamdhip64, before ROCR or librocjitsu.so
				// sees it: with a GPU too. Only ROCR's loader path is checked.
				continue
			}
			t.Run(k.name+"/"+p.prog, func(t *testing.T) {
				work := t.TempDir()
				if err := os.WriteFile(filepath.Join(work, "corrupt.co"), k.data, 0o644); err != nil {
					t.Fatal(err)
				}
				spec, _ := writeSpec(t, work, &c, workDir+"/corrupt.co")
				args := []string{spec}
				if p.prog == "hsa_run" {
					args = []string{"spec", spec}
				}
				r := bt.run(t, work, runOpts{timeout: 2 * time.Minute}, p.prog, args...)
				if r.signal != 0 || r.hung || r.rc != exitChecks {
					t.Fatalf("%s on a corrupt object (%s): want exit %d (a failed check)%s\n%s", p.prog, k.name, exitChecks, abortHint(r), r)
				}
				fails := r.failures()
				first := ""
				if len(fails) > 0 {
					first, _, _ = strings.Cut(fails[0], " ")
				}
				if !slices.Contains(p.want, first) {
					t.Errorf("%s on a corrupt object (%s): the first failed check is %q, want one of %q\n%s", p.prog, k.name, first, p.want, r)
				}
			})
		}
	}
}

// gfx950Cases are the kernelref cases with a gfx950 object (the gfx942
// build retargeted, and the gfx950-only guests).
func gfx950Cases() []kernelref.Case {
	var out []kernelref.Case
	for _, c := range kernelref.AllCases() {
		if c.HasTarget("gfx950") {
			out = append(out, c)
		}
	}
	return out
}

// guestNotRun are the gfx950 cases that cannot run as guests on the
// simulated gfx942, with the reason; every other case must match.
var guestNotRun = map[string]string{
	"indirect_call": "the translator rejects it (fail closed: no provable target set for the indirect call), so the gfx950 object reaches ROCR, which refuses it for the gfx942 agent",
}

// TestHSAGuestGFX950 is the guest mode on the simulated GPU: librocjitsu.so
// advertises a gfx950 agent (ROCJITSU_GUEST=gfx950) over the simulated
// gfx942, each gfx950 test kernel is loaded by ROCR's loader through the
// shim's load hook, which translates it for gfx942, and the dispatch on the
// simulator matches the kernelref reference. (HIP 5.7 does not know
// gfx950, so the HSA path is the one Debian 13's ROCm offers for it.)
func TestHSAGuestGFX950(t *testing.T) {
	bt := setup(t)
	cases := gfx950Cases()
	if len(cases) < 40 {
		t.Fatalf("only %d gfx950 cases in kernelref", len(cases))
	}
	runKernelref(t, bt, cases, kernelrefRun{prog: "hsa_run", env: []string{"ROCJITSU_GUEST=gfx950"}, notRun: guestNotRun,
		object: func(c *kernelref.Case) string {
			return testdataDir + "/" + strings.TrimPrefix(c.Object("gfx950"), "testdata/")
		},
		args: func(spec string) []string { return []string{"spec", spec} }})
}
