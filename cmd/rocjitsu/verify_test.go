package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// TestVerifyCommand: two objects, two seeds; the last line has the issue's
// form and counts, and --json lists every kernel with its outcome.
func TestVerifyCommand(t *testing.T) {
	dir := filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "gfx950")
	js := filepath.Join(t.TempDir(), "v.json")
	var out, errb bytes.Buffer
	code := runMain([]string{"verify", filepath.Join(dir, "vector_add.co"), filepath.Join(dir, "indirect_call.co"), "--seeds", "2", "--fill", "int", "--json", js}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := lines[len(lines)-1]
	if !regexp.MustCompile(`^\d+ kernels: \d+ identical, \d+ within bound, \d+ different, \d+ faulted alike, \d+ fault differs, \d+ timed out, \d+ not run$`).MatchString(last) {
		t.Fatalf("last line %q", last)
	}
	if last != "4 kernels: 2 identical, 0 within bound, 0 different, 0 faulted alike, 0 fault differs, 0 timed out, 2 not run" {
		t.Fatalf("summary %q", last)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Kernels []struct {
			Object, Name, Host, Outcome, Reason string
			Seed                                uint64
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Kernels) != 4 || doc.Kernels[0].Outcome != "identical" || doc.Kernels[0].Host != "gfx942" || doc.Kernels[1].Seed != 1 {
		t.Fatalf("json %+v", doc.Kernels)
	}
	if doc.Kernels[2].Outcome != "not-run" || !strings.Contains(doc.Kernels[2].Reason, "s_swappc_b64") {
		t.Fatalf("indirect_call: %+v", doc.Kernels[2])
	}
	if code := runMain([]string{"verify"}, &out, &errb); code != 2 {
		t.Fatalf("no input: exit %d", code)
	}
	if code := runMain([]string{"verify", filepath.Join(dir, "vector_add.co"), "--fill", "bogus"}, &out, &errb); code != 2 {
		t.Fatalf("bad fill: exit %d", code)
	}
}
