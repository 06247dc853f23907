// Package rocmroot gives tests the Debian 13 root that holds the real ROCm
// userland (ROCR 6.1, libhsakmt, HIP 5.7, hipcc 5.7 with clang-17,
// rocminfo), prepared by scripts/rocm-root.sh ensure (make deps): where it
// is, how to run a command in it (a private mount namespace with /proc, /sys,
// /dev, binds and a chosen environment), and how to compile HIP and C
// programs in it into a content-addressed cache.
//
// The root is an oracle: when it is missing, Root returns an error saying to
// run make deps, and tests fail rather than skip.
package rocmroot

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// DefaultPath is where scripts/rocm-root.sh puts the root unless
// ROCJITSU_ROCM_ROOT says otherwise.
const DefaultPath = "/var/cache/rocjitsu/debian13-rocm"

// EnvPath is the environment variable that overrides DefaultPath (for the
// script and for this package alike).
const EnvPath = "ROCJITSU_ROCM_ROOT"

// StampName is the file in the root's top folder that the script writes
// last, recording the suite and package list the root was made from; a
// root without it is incomplete.
const StampName = ".rocjitsu-root-stamp"

// SetupFailed is the exit status of scripts/rocm-root.sh run when the root
// is missing or the namespace cannot be set up (the command did not start).
const SetupFailed = 125

// required are files a usable root must hold, relative to its top.
var required = []string{
	StampName,
	"usr/bin/hipcc",
	"usr/bin/rocminfo",
	"usr/bin/gcc",
	"usr/include/hsa/hsa.h",
	"usr/include/hip/hip_runtime.h",
}

// Path returns the configured location of the root (ROCJITSU_ROCM_ROOT or
// DefaultPath), whether or not it exists.
func Path() string {
	if p := os.Getenv(EnvPath); p != "" {
		return p
	}
	return DefaultPath
}

// Root returns the root's location after checking that it is complete. The
// error names the missing file and the fix (make deps).
func Root() (string, error) {
	p := Path()
	for _, f := range required {
		if _, err := os.Stat(filepath.Join(p, f)); err != nil {
			return "", fmt.Errorf("rocmroot: no complete Debian 13 ROCm root at %s (%s: %v): run make deps (it runs scripts/rocm-root.sh ensure; %s sets another location)", p, f, errors.Unwrap(err), EnvPath)
		}
	}
	return p, nil
}

// TB is the subset of testing.TB used here.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// MustRoot is Root for tests: it fails the test (never skips it) when the
// root is missing.
func MustRoot(t TB) string {
	t.Helper()
	p, err := Root()
	if err != nil {
		t.Fatalf("%v", err)
	}
	return p
}

// Script returns the path of scripts/rocm-root.sh in the source tree.
func Script() (string, error) {
	root, err := projectpath.Root()
	if err != nil {
		return "", fmt.Errorf("rocmroot: %w", err)
	}
	p := filepath.Join(root, "scripts", "rocm-root.sh")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("rocmroot: %w", err)
	}
	return p, nil
}

// Bind makes a host file or folder visible inside the root.
type Bind struct {
	Host string // absolute path on the host
	Root string // absolute path inside the root (created when missing)
}

// Options say how Command runs a program in the root.
type Options struct {
	// Binds are mounted (bind mounts, private to the command) before it
	// starts.
	Binds []Bind
	// Env holds K=V entries added to the command's environment, which
	// otherwise holds only PATH, HOME, LANG and TERM: the caller's
	// ROCJITSU_*, HSA_*, HIP_*, AMD_* and LD_PRELOAD variables are not
	// passed on by Command, so a test states every one it wants.
	Env []string
	// Dir is the working directory inside the root ("/" when empty).
	Dir string
}

// passThrough reports whether the script would copy the host variable kv
// into the root.
func passThrough(kv string) bool {
	for _, p := range []string{"ROCJITSU_", "HSA_", "HIP_", "AMD_", "LD_PRELOAD="} {
		if strings.HasPrefix(kv, p) && !strings.HasPrefix(kv, EnvPath+"=") {
			return true
		}
	}
	return false
}

// Command returns a command that runs argv inside the root through
// scripts/rocm-root.sh run with opts. Its exit status is argv's (or
// SetupFailed). The command runs in its own process group, and cancelling
// ctx kills the whole group (the namespace's processes too). When the
// script cannot be found, Start returns the error.
func Command(ctx context.Context, opts Options, argv ...string) *exec.Cmd {
	script, err := Script()
	args := []string{script, "run"}
	for _, b := range opts.Binds {
		args = append(args, "--bind", b.Host+":"+b.Root)
	}
	for _, e := range opts.Env {
		args = append(args, "--env", e)
	}
	if opts.Dir != "" {
		args = append(args, "--cwd", opts.Dir)
	}
	args = append(args, "--")
	args = append(args, argv...)
	cmd := exec.CommandContext(ctx, "bash", args...)
	if err != nil {
		cmd.Err = err
	} else if len(argv) == 0 {
		cmd.Err = errors.New("rocmroot: Command without a program")
	}
	env := []string{EnvPath + "=" + Path()}
	for _, kv := range os.Environ() {
		if !passThrough(kv) && !strings.HasPrefix(kv, EnvPath+"=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// HostPath returns the host path of a path inside the root.
func HostPath(rootPath string) (string, error) {
	r, err := Root()
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(rootPath) {
		return "", fmt.Errorf("rocmroot: %q is not an absolute path inside the root", rootPath)
	}
	return filepath.Join(r, rootPath), nil
}
