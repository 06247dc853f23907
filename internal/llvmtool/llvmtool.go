// Package llvmtool finds the LLVM 19 tools that serve as test oracles
// (llvm-objdump-19, llvm-mc-19, llvm-readelf-19, clang-19, ld.lld-19) and
// fails tests with an actionable message when one is missing.
package llvmtool

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Tool names of the oracles, as Debian's llvm-19, clang-19 and lld-19
// packages install them.
const (
	Objdump = "llvm-objdump-19"
	MC      = "llvm-mc-19"
	Readelf = "llvm-readelf-19"
	Clang   = "clang-19"
	LLD     = "ld.lld-19"
)

// debianPackage maps a tool to the Debian package that installs it.
var debianPackage = map[string]string{
	Objdump: "llvm-19",
	MC:      "llvm-19",
	Readelf: "llvm-19",
	Clang:   "clang-19",
	LLD:     "lld-19",
}

// Find returns the absolute path of tool. It looks on PATH, then in
// /usr/lib/llvm-19/bin under the unsuffixed name.
func Find(tool string) (string, error) {
	if p, err := exec.LookPath(tool); err == nil {
		return p, nil
	}
	base := tool
	if n := len(base); n > 3 && base[n-3:] == "-19" {
		base = base[:n-3]
	}
	alt := filepath.Join("/usr/lib/llvm-19/bin", base)
	if st, err := os.Stat(alt); err == nil && !st.IsDir() {
		return alt, nil
	}
	pkg := debianPackage[tool]
	if pkg == "" {
		pkg = "llvm-19"
	}
	return "", fmt.Errorf("llvmtool: %s not found on PATH or in /usr/lib/llvm-19/bin; run 'make deps' (installs the Debian package %s)", tool, pkg)
}

// TB is the subset of testing.TB used here.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Require returns the path of tool or fails the test with the install hint.
// Oracle tests are never skipped: make test installs the tools.
func Require(t TB, tool string) string {
	t.Helper()
	p, err := Find(tool)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return p
}
