package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/shim/internal/codeobj"
)

// built is what every test runs: binaries and code objects in one temporary
// folder, built once per test binary.
type built struct {
	dir       string
	shim      string // librocjitsu.so
	app       string // hiplike
	chaintool string
	other     string // a second Go c-shared library
	host      string // scale.co for gfx942
	guest     string // the same with the gfx950 machine (a guest object)
	kernarg   uint32 // the guest descriptor's sizes, as HIP reads them from metadata
	group     uint32
	private   uint32
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

func runCmd(dir string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

func setup(t testing.TB) *built {
	t.Helper()
	clang := llvmtool.Require(t, llvmtool.Clang)
	lld := llvmtool.Require(t, llvmtool.LLD)
	root := projectpath.MustRoot(t)
	buildOnce.Do(func() {
		buildErr = doBuild(root, clang, lld)
	})
	if buildErr != nil {
		t.Fatalf("build: %v", buildErr)
	}
	return &b
}

func doBuild(root, clang, lld string) error {
	var err error
	tmpRoot, err = os.MkdirTemp("", "rocjitsu-e2e-")
	if err != nil {
		return err
	}
	d := tmpRoot
	inc := filepath.Join(root, "c", "include")
	steps := [][]string{
		{"gcc", "-O2", "-g", "-fPIC", "-shared", "-fvisibility=hidden", "-Wall", "-Wextra", "-Werror", "-Wno-cast-function-type",
			"-I" + inc, "-o", filepath.Join(d, "libhsa-runtime64.so.1"), filepath.Join(root, "c", "hsart", "standin.c"),
			"-Wl,-soname,libhsa-runtime64.so.1", "-Wl,--version-script=" + filepath.Join(root, "c", "hsart", "standin.map"), "-ldl", "-lpthread"},
		{"ln", "-sf", "libhsa-runtime64.so.1", filepath.Join(d, "libhsa-runtime64.so")},
		{"gcc", "-O2", "-g", "-Wall", "-Wextra", "-Werror", "-I" + inc, "-o", filepath.Join(d, "hiplike"),
			filepath.Join(root, "c", "apps", "hiplike.c"), "-L" + d, "-lhsa-runtime64", "-lpthread"},
		{"gcc", "-O2", "-g", "-fPIC", "-shared", "-fvisibility=hidden", "-Wall", "-Wextra", "-Werror", "-I" + inc,
			"-o", filepath.Join(d, "chaintool.so"), filepath.Join(root, "c", "apps", "chaintool.c")},
		{clang, "-x", "cl", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib", "-O2", "-c",
			filepath.Join(root, "c", "apps", "scale.cl"), "-o", filepath.Join(d, "scale.o")},
		{lld, "-shared", filepath.Join(d, "scale.o"), "-o", filepath.Join(d, "scale.co")},
		{filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-buildmode=c-shared", "-o", filepath.Join(d, "librocjitsu.so"), "./shim"},
		{filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-buildmode=c-shared", "-o", filepath.Join(d, "otherruntime.so"), "./shim/e2e/testdata/otherruntime"},
	}
	for _, s := range steps {
		if err := runCmd(root, s[0], s[1:]...); err != nil {
			return err
		}
	}
	host, err := os.ReadFile(filepath.Join(d, "scale.co"))
	if err != nil {
		return err
	}
	o, err := codeobj.Parse(host)
	if err != nil {
		return err
	}
	k, ok := o.Kernel("scale.kd")
	if !ok {
		return fmt.Errorf("scale.co has no scale.kd: %+v", o.Kernels)
	}
	guest := append([]byte(nil), host...)
	m, _ := codeobj.MachOf("gfx950")
	if err := codeobj.SetMach(guest, m); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(d, "guest-gfx950.co"), guest, 0o644); err != nil {
		return err
	}
	b = built{
		dir: d, shim: filepath.Join(d, "librocjitsu.so"), app: filepath.Join(d, "hiplike"), chaintool: filepath.Join(d, "chaintool.so"), other: filepath.Join(d, "otherruntime.so"),
		host: filepath.Join(d, "scale.co"), guest: filepath.Join(d, "guest-gfx950.co"),
		kernarg: k.Desc.KernargSize, group: k.Desc.GroupSegmentFixedSize, private: k.Desc.PrivateSegmentFixedSize,
	}
	return nil
}

// result is one run of the application.
type result struct {
	stdout, stderr, log string
	rc                  int
}

// run runs the HIP-like app with env (on top of a clean rocjitsu
// environment) and the given arguments. The shim's log goes to a file that
// is returned in result.log.
func (bt *built) run(t testing.TB, env map[string]string, args ...string) result {
	t.Helper()
	dir := t.TempDir()
	logPath := filepath.Join(dir, "rocjitsu.log")
	cmd := exec.Command(bt.app, args...)
	base := []string{
		"LD_LIBRARY_PATH=" + bt.dir,
		"ROCJITSU_CACHE_DIR=" + filepath.Join(dir, "cache"),
		"ROCJITSU_LOG_FILE=" + logPath,
		"ROCJITSU_LOG=info",
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
	}
	for k, v := range env {
		base = append(base, k+"="+v)
	}
	cmd.Env = base
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s %v timed out (hang)\nstdout:\n%s\nstderr:\n%s", bt.app, args, so.String(), se.String())
	}
	rc := 0
	if ee, ok := err.(*exec.ExitError); ok {
		rc = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	logData, _ := os.ReadFile(logPath)
	return result{stdout: so.String(), stderr: se.String(), log: string(logData), rc: rc}
}

// kargs are the app arguments for the scale kernel with the guest's sizes.
func (bt *built) kargs(extra ...string) []string {
	a := []string{"-k", "scale", "-kernarg", fmt.Sprint(bt.kernarg), "-group", fmt.Sprint(bt.group), "-private", fmt.Sprint(bt.private)}
	return append(a, extra...)
}

func (r result) String() string {
	return fmt.Sprintf("rc=%d\nstdout:\n%s\nstderr:\n%s\nlog:\n%s", r.rc, r.stdout, r.stderr, r.log)
}

// want fails unless every string is in the text.
func want(t testing.TB, r result, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(text, s) {
			t.Fatalf("missing %q in output\n%s", s, r)
		}
	}
}

func wantNot(t testing.TB, r result, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if strings.Contains(text, s) {
			t.Fatalf("unexpected %q in output\n%s", s, r)
		}
	}
}

func ok(t testing.TB, r result) {
	t.Helper()
	if r.rc != 0 {
		t.Fatalf("application failed\n%s", r)
	}
}
