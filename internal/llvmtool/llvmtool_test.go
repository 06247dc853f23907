package llvmtool

import (
	"os/exec"
	"strings"
	"testing"
)

func TestOraclesPresent(t *testing.T) {
	for _, tool := range []string{Objdump, MC, Readelf, Clang, LLD} {
		p := Require(t, tool)
		out, err := exec.Command(p, "--version").CombinedOutput()
		if err != nil {
			t.Fatalf("%s --version: %v\n%s", p, err, out)
		}
		if !strings.Contains(string(out), "19.") {
			t.Errorf("%s is not LLVM 19: %s", p, out)
		}
	}
}

func TestFindMissing(t *testing.T) {
	_, err := Find("no-such-tool-19")
	if err == nil || !strings.Contains(err.Error(), "make deps") {
		t.Fatalf("Find of a missing tool: %v", err)
	}
}
