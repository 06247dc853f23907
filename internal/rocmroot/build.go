package rocmroot

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// CacheDir is the folder inside the root where HIPCC and GCC keep what
// they build, one subfolder per content hash.
const CacheDir = "/var/cache/rocjitsu-build"

// OffloadArch is the GPU that HIPCC compiles device code for.
const OffloadArch = "gfx942"

// HIPCC compiles the HIP source src (a host path) with hipcc inside the
// root for --offload-arch=gfx942, adding flags, and returns the path of the
// program inside the root (run it with Command). The headers (*.h) in src's
// folder are copied beside it, so `#include "x.h"` works. The result is
// cached by the hash of the compiler command, the sources and the root's
// stamp: a second call with the same inputs compiles nothing.
func HIPCC(ctx context.Context, src string, flags ...string) (string, error) {
	cmd := append([]string{"hipcc", "--offload-arch=" + OffloadArch, "-O2", "-Wall", "-Werror"}, flags...)
	return build(ctx, cmd, src, []string{"-lpthread"})
}

// GCC compiles the C source src (a host path) with gcc inside the root
// against ROCR's headers (/usr/include/hsa) and libhsa-runtime64, adding
// flags, and returns the program's path inside the root. Headers and the
// cache work as for HIPCC.
func GCC(ctx context.Context, src string, flags ...string) (string, error) {
	cmd := append([]string{"gcc", "-O2", "-g", "-Wall", "-Wextra", "-Werror"}, flags...)
	return build(ctx, cmd, src, []string{"-lhsa-runtime64", "-lpthread"})
}

// build runs compiler ... -o NAME SRC libs... in a fresh folder of the
// cache inside the root and renames the folder to its content hash when the
// compiler succeeds.
func build(ctx context.Context, compiler []string, src string, libs []string) (string, error) {
	root, err := Root()
	if err != nil {
		return "", err
	}
	files, err := sources(src)
	if err != nil {
		return "", err
	}
	stamp, err := os.ReadFile(filepath.Join(root, StampName))
	if err != nil {
		return "", fmt.Errorf("rocmroot: %w", err)
	}
	base := filepath.Base(src)
	name := strings.TrimSuffix(base, filepath.Ext(base))
	argv := append(append(append([]string{}, compiler...), "-o", name, base), libs...)

	h := sha256.New()
	fmt.Fprintf(h, "rocmroot build v1\x00%s\x00%q\x00", stamp, argv)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(files[n]))
		h.Write(files[n])
	}
	sum := hex.EncodeToString(h.Sum(nil))[:24]
	inRoot := filepath.Join(CacheDir, sum)
	hostDir := filepath.Join(root, inRoot)
	if _, err := os.Stat(filepath.Join(hostDir, name)); err == nil {
		return filepath.Join(inRoot, name), nil
	}

	cacheHost := filepath.Join(root, CacheDir)
	if err := os.MkdirAll(cacheHost, 0o755); err != nil {
		return "", fmt.Errorf("rocmroot: %w", err)
	}
	tmpHost, err := os.MkdirTemp(cacheHost, "tmp-")
	if err != nil {
		return "", fmt.Errorf("rocmroot: %w", err)
	}
	defer os.RemoveAll(tmpHost)
	if err := os.Chmod(tmpHost, 0o755); err != nil {
		return "", fmt.Errorf("rocmroot: %w", err)
	}
	for n, data := range files {
		if err := os.WriteFile(filepath.Join(tmpHost, n), data, 0o644); err != nil {
			return "", fmt.Errorf("rocmroot: %w", err)
		}
	}
	c := Command(ctx, Options{Dir: filepath.Join(CacheDir, filepath.Base(tmpHost))}, argv...)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Run(); err != nil {
		return "", fmt.Errorf("rocmroot: %s (in the ROCm root): %v\n%s", strings.Join(argv, " "), err, out.String())
	}
	if err := os.Rename(tmpHost, hostDir); err != nil {
		// Another build of the same inputs may have won the race.
		if _, serr := os.Stat(filepath.Join(hostDir, name)); serr != nil {
			return "", fmt.Errorf("rocmroot: %w", err)
		}
	}
	return filepath.Join(inRoot, name), nil
}

// sources reads src and the headers in its folder, by base name.
func sources(src string) (map[string][]byte, error) {
	data, err := os.ReadFile(src)
	if err != nil {
		return nil, fmt.Errorf("rocmroot: %w", err)
	}
	files := map[string][]byte{filepath.Base(src): data}
	hdrs, err := filepath.Glob(filepath.Join(filepath.Dir(src), "*.h"))
	if err != nil {
		return nil, fmt.Errorf("rocmroot: %w", err)
	}
	for _, p := range hdrs {
		d, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("rocmroot: %w", err)
		}
		files[filepath.Base(p)] = d
	}
	return files, nil
}
