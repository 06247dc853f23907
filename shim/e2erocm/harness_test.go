package e2erocm

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/internal/rocmroot"
)

// Paths inside the ROCm root where the harness binds host folders.
const (
	libDir      = "/opt/rocjitsu"          // the librocjitsu.so built for this test binary
	testdataDir = "/opt/rocjitsu-testdata" // the project's testdata (kernels)
	workDir     = "/tmp/rocjitsu-work"     // one test's scratch folder
)

// The exit statuses of the c/rocm programs (c/rocm/check.h).
const (
	exitChecks   = 1
	exitNoDevice = 3
	exitWatchdog = 124
)

// hipPrograms are the c/rocm HIP programs, with their extra link flags.
var hipPrograms = map[string][]string{
	"hip_memory":    nil,
	"hip_kernels":   nil,
	"hip_streams":   nil,
	"hip_fault":     {"-lhsa-runtime64"},
	"hip_lifecycle": nil,
	"hip_module":    nil,
	"hip_bench":     nil,
}

// built is what every test uses, made once per test binary.
type built struct {
	lib  string            // host folder holding librocjitsu.so and rocjitsu
	prog map[string]string // program name -> path inside the root
}

var (
	buildOnce sync.Once
	buildErr  error
	b         built
	tmpRoot   string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if tmpRoot != "" {
		os.RemoveAll(tmpRoot)
	}
	os.Exit(code)
}

// setup checks the root and builds librocjitsu.so and the programs (once).
func setup(t testing.TB) *built {
	t.Helper()
	rocmroot.MustRoot(t)
	root := projectpath.MustRoot(t)
	buildOnce.Do(func() { buildErr = doBuild(root) })
	if buildErr != nil {
		t.Fatalf("build: %v", buildErr)
	}
	return &b
}

func doBuild(root string) error {
	var err error
	tmpRoot, err = os.MkdirTemp("", "rocjitsu-e2erocm-")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	cmd := exec.CommandContext(ctx, goTool, "build", "-buildmode=c-shared", "-o", filepath.Join(tmpRoot, "librocjitsu.so"), "./shim")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build -buildmode=c-shared ./shim: %v\n%s", err, out)
	}
	// rocjitsu beside librocjitsu.so, as make build leaves them in bin/.
	cmd = exec.CommandContext(ctx, goTool, "build", "-o", filepath.Join(tmpRoot, "rocjitsu"), "./cmd/rocjitsu")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/rocjitsu: %v\n%s", err, out)
	}
	b = built{lib: tmpRoot, prog: map[string]string{}}
	src := filepath.Join(root, "c", "rocm")
	for name, flags := range hipPrograms {
		p, err := rocmroot.HIPCC(ctx, filepath.Join(src, name+".hip"), flags...)
		if err != nil {
			return err
		}
		b.prog[name] = p
	}
	p, err := rocmroot.GCC(ctx, filepath.Join(src, "hsa_run.c"))
	if err != nil {
		return err
	}
	b.prog["hsa_run"] = p
	return nil
}

// runOpts vary one run of a program in the root.
type runOpts struct {
	noDriver bool          // run without LD_PRELOAD and ROCJITSU_GPU
	env      []string      // more K=V
	timeout  time.Duration // default 4 minutes
}

// result is one run of a program in the root.
type result struct {
	argv           []string
	stdout, stderr string
	log            string // librocjitsu.so's log
	rc             int    // exit status, -1 when killed by a signal
	signal         syscall.Signal
	hung           bool // killed by the harness's timeout
}

// run runs a program (a name of b.prog, or an absolute path inside the
// root) with args inside the ROCm root, with librocjitsu.so preloaded and
// ROCJITSU_GPU=gfx942 (unless o.noDriver). work is a host folder bound at
// workDir.
func (bt *built) run(t testing.TB, work string, o runOpts, prog string, args ...string) result {
	t.Helper()
	if p, ok := bt.prog[prog]; ok {
		prog = p
	}
	root := projectpath.MustRoot(t)
	env := []string{
		"ROCJITSU_LOG=info",
		"ROCJITSU_LOG_FILE=" + workDir + "/rocjitsu.log",
		"ROCJITSU_CACHE_DIR=" + workDir + "/cache",
	}
	if !o.noDriver {
		env = append(env, "LD_PRELOAD="+libDir+"/librocjitsu.so", "ROCJITSU_GPU=gfx942")
	}
	env = append(env, o.env...)
	// ROCJITSU_E2EROCM_ENV adds K=V words to every run (for experiments,
	// such as HSA_ENABLE_INTERRUPT=0 to take ROCR's polling path).
	env = append(env, strings.Fields(os.Getenv("ROCJITSU_E2EROCM_ENV"))...)
	timeout := o.timeout
	if timeout == 0 {
		timeout = 4 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	argv := append([]string{prog}, args...)
	cmd := rocmroot.Command(ctx, rocmroot.Options{
		Binds: []rocmroot.Bind{
			{Host: bt.lib, Root: libDir},
			{Host: filepath.Join(root, "testdata"), Root: testdataDir},
			{Host: work, Root: workDir},
		},
		Env: env,
		Dir: workDir,
	}, argv...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	r := result{argv: argv, stdout: so.String(), stderr: se.String(), hung: ctx.Err() != nil}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.rc = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.signal = ws.Signal()
		}
	default:
		t.Fatalf("%s: %v", strings.Join(argv, " "), err)
	}
	if l, err := os.ReadFile(filepath.Join(work, "rocjitsu.log")); err == nil {
		r.log = string(l)
	}
	return r
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("[... %d lines]", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

func (r result) String() string {
	return fmt.Sprintf("%s: exit %d (signal %v, hung %v)\nstdout:\n%s\nstderr:\n%s\nlibrocjitsu log:\n%s",
		strings.Join(r.argv, " "), r.rc, r.signal, r.hung, tail(r.stdout, 60), tail(r.stderr, 30), tail(r.log, 30))
}

// failures returns the FAIL lines of the program's check protocol, without
// the summary line.
func (r result) failures() []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "FAIL ") && !strings.Contains(l, " checks failed") {
			out = append(out, strings.TrimPrefix(l, "FAIL "))
		}
	}
	return out
}

// line returns the first stdout line starting with prefix.
func (r result) line(prefix string) (string, bool) {
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l, true
		}
	}
	return "", false
}

// expectPass fails the test unless the program passed every check; each
// failing check is reported under its own name, the first line of the
// message says what kind of failure it was.
func expectPass(t testing.TB, r result) {
	t.Helper()
	fails := r.failures()
	switch {
	case r.hung:
		t.Errorf("%s hung: killed by the harness's timeout", r.argv[0])
	case r.signal != 0:
		t.Errorf("%s died of signal %d (%v)%s", r.argv[0], r.signal, r.signal, abortHint(r))
	case r.rc == exitNoDevice:
		t.Errorf("%s found no GPU: the simulated driver (LD_PRELOAD=librocjitsu.so ROCJITSU_GPU=gfx942) did not provide one", r.argv[0])
	case r.rc == exitWatchdog:
		t.Errorf("%s hung: its watchdog fired", r.argv[0])
	case r.rc != 0 && len(fails) == 0:
		t.Errorf("%s exited with %d without a failed check", r.argv[0], r.rc)
	case r.rc == 0 && !strings.Contains(r.stdout, "\nPASS ") && !strings.HasPrefix(r.stdout, "PASS "):
		t.Errorf("%s exited with 0 without its PASS line", r.argv[0])
	}
	for _, f := range fails {
		name, detail, _ := strings.Cut(f, " ")
		t.Errorf("check %s failed: %s", name, detail)
	}
	if t.Failed() {
		t.Logf("%s", r)
	}
}

// abortHint explains a SIGABRT: HIP and ROCR abort on GPU faults they
// have no handler for.
func abortHint(r result) string {
	if r.signal != syscall.SIGABRT {
		return ""
	}
	for _, s := range []string{"Memory access fault", "HW Exception", "aborting with error", "Callback: Queue"} {
		if strings.Contains(r.stderr, s) {
			return fmt.Sprintf(": the runtime aborted after %q on standard error", s)
		}
	}
	return ""
}
