// Package projectpath locates the rocjitsu source tree and the shared data
// beside it (../shared relative to the project root), for tests and
// generators.
package projectpath

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Root returns the directory that holds rocjitsu's go.mod. It walks up from
// this source file, so it works from any package's test binary.
func Root() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("projectpath: cannot find own source file")
	}
	dir := filepath.Dir(file)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("projectpath: no go.mod above %s", filepath.Dir(file))
		}
		dir = parent
	}
}

// Shared returns the path of elem inside the shared data folder that sits
// beside the project root (../shared). It returns an error when the folder or
// the named path does not exist. ROCJITSU_SHARED overrides the location.
func Shared(elem ...string) (string, error) {
	base := os.Getenv("ROCJITSU_SHARED")
	if base == "" {
		root, err := Root()
		if err != nil {
			return "", err
		}
		base = filepath.Join(filepath.Dir(root), "shared")
	}
	p := filepath.Join(append([]string{base}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("projectpath: shared data %s: %w (set ROCJITSU_SHARED to the shared folder)", p, err)
	}
	return p, nil
}

// TB is the subset of testing.TB used here.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// MustShared is Shared for tests: it fails the test when the path is missing.
func MustShared(t TB, elem ...string) string {
	t.Helper()
	p, err := Shared(elem...)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return p
}

// MustRoot is Root for tests.
func MustRoot(t TB) string {
	t.Helper()
	r, err := Root()
	if err != nil {
		t.Fatalf("%v", err)
	}
	return r
}
