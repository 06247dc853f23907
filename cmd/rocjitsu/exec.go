package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/rocjitsu/rocjitsu/hsa/kfd"
)

func init() {
	register(command{
		name:    "exec",
		summary: "run an unmodified ROCm application on the simulated GPU (librocjitsu.so preloaded)",
		run:     runExec,
	})
}

// libName is the shim library that exec preloads.
const libName = "librocjitsu.so"

// guests are the processors librocjitsu.so can advertise (ROCJITSU_GUEST).
var guests = []string{"gfx950", "gfx942", "gfx1200", "gfx1201"}

// execPlan is what exec runs: the program, its arguments and environment.
type execPlan struct {
	path string   // absolute path of the application
	argv []string // its argv (argv[0] as given)
	env  []string // its environment
}

func execUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "usage: rocjitsu exec [--gpu gfx942|gfx950|gfx1200|gfx1201[,...]] [--guest gfx950] -- APP [ARGS...]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Runs APP, an unmodified ROCm (HIP, HSA) application, on the simulated GPU of")
	fmt.Fprintln(w, "librocjitsu.so: sets LD_PRELOAD (prepended) and ROCJITSU_GPU, with --guest also")
	fmt.Fprintln(w, "ROCJITSU_GUEST and HSA_TOOLS_LIB, and replaces itself with APP (APP's exit status")
	fmt.Fprintln(w, "and signals are the command's). librocjitsu.so is found beside the rocjitsu")
	fmt.Fprintln(w, "executable, or at $ROCJITSU_LIB.")
	fmt.Fprintln(w)
	fs.PrintDefaults()
}

// planExec turns exec's arguments into what to run; self is the path of
// the rocjitsu executable, environ the current environment. A non-nil
// error is the message for standard error; help reports --help.
func planExec(args []string, environ []string, self string, stderr io.Writer) (plan execPlan, help bool, err error) {
	fs := flag.NewFlagSet("exec", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	gpu := fs.String("gpu", "gfx942", "the simulated GPU(s): gfx942, gfx950, gfx1200 or gfx1201, comma-separated for several (gfx12 needs a ROCR that knows it)")
	guest := fs.String("guest", "", "also advertise this guest processor (e.g. gfx950) and translate its code for the simulated GPU")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			execUsage(stderr, fs)
			return plan, true, nil
		}
		execUsage(stderr, fs)
		return plan, false, err
	}
	if fs.NArg() == 0 {
		execUsage(stderr, fs)
		return plan, false, errors.New("no application given")
	}
	var gpus []string
	for _, g := range strings.Split(*gpu, ",") {
		g = strings.TrimSpace(g)
		if _, err := kfd.KnownGPU(g); err != nil {
			return plan, false, fmt.Errorf("--gpu %s: %v", *gpu, err)
		}
		gpus = append(gpus, g)
	}
	if *guest != "" && !contains(guests, *guest) {
		return plan, false, fmt.Errorf("--guest %s: want one of %s", *guest, strings.Join(guests, ", "))
	}

	env := envMap(environ)
	lib, err := findLib(env["ROCJITSU_LIB"], self)
	if err != nil {
		return plan, false, err
	}
	app := fs.Arg(0)
	path, err := lookPath(app, env["PATH"])
	if err != nil {
		return plan, false, err
	}

	set := map[string]string{
		"LD_PRELOAD":   prependList(lib, env["LD_PRELOAD"], ":"),
		"ROCJITSU_GPU": strings.Join(gpus, ","),
	}
	if *guest != "" {
		set["ROCJITSU_GUEST"] = *guest
		set["HSA_TOOLS_LIB"] = prependList(lib, env["HSA_TOOLS_LIB"], " ")
	}
	out := make([]string, 0, len(environ)+len(set))
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok {
			out = append(out, kv)
		}
	}
	for _, k := range []string{"LD_PRELOAD", "ROCJITSU_GPU", "ROCJITSU_GUEST", "HSA_TOOLS_LIB"} {
		if v, ok := set[k]; ok {
			out = append(out, k+"="+v)
		}
	}
	return execPlan{path: path, argv: fs.Args(), env: out}, false, nil
}

func runExec(args []string, stdout, stderr io.Writer) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu exec: cannot find the rocjitsu executable: %v\n", err)
		return 1
	}
	plan, help, err := planExec(args, os.Environ(), self, stderr)
	if help {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu exec: %v\n", err)
		return 2
	}
	err = syscall.Exec(plan.path, plan.argv, plan.env)
	fmt.Fprintf(stderr, "rocjitsu exec: %s: %v\n", plan.path, err)
	return 126
}

// findLib returns librocjitsu.so: $ROCJITSU_LIB when set, else the file
// beside the rocjitsu executable (symlinks resolved).
func findLib(fromEnv, self string) (string, error) {
	if fromEnv != "" {
		abs, err := filepath.Abs(fromEnv)
		if err != nil {
			return "", fmt.Errorf("ROCJITSU_LIB=%s: %v", fromEnv, err)
		}
		if st, err := os.Stat(abs); err != nil || st.IsDir() {
			return "", fmt.Errorf("ROCJITSU_LIB=%s: no such library", fromEnv)
		}
		return abs, nil
	}
	dirs := []string{filepath.Dir(self)}
	if real, err := filepath.EvalSymlinks(self); err == nil && filepath.Dir(real) != dirs[0] {
		dirs = append(dirs, filepath.Dir(real))
	}
	for _, d := range dirs {
		p := filepath.Join(d, libName)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return filepath.Abs(p)
		}
	}
	return "", fmt.Errorf("%s not found beside %s (make build puts both in bin/; or set ROCJITSU_LIB)", libName, self)
}

// lookPath finds app as a shell would with the given PATH.
func lookPath(app, path string) (string, error) {
	if strings.Contains(app, "/") {
		st, err := os.Stat(app)
		if err != nil {
			return "", fmt.Errorf("%s: no such file", app)
		}
		if st.IsDir() || st.Mode()&0o111 == 0 {
			return "", fmt.Errorf("%s: not an executable file", app)
		}
		return filepath.Abs(app)
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, app)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return filepath.Abs(p)
		}
	}
	return "", fmt.Errorf("%s: %w", app, exec.ErrNotFound)
}

// prependList puts item first in a sep-separated list, dropping other
// copies of it.
func prependList(item, list, sep string) string {
	out := []string{item}
	for _, e := range strings.FieldsFunc(list, func(r rune) bool { return strings.ContainsRune(sep+" ", r) }) {
		if e != item {
			out = append(out, e)
		}
	}
	return strings.Join(out, sep)
}

func envMap(environ []string) map[string]string {
	m := map[string]string{}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
