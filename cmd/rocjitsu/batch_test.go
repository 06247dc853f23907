package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// TestTranslateBatch: batch mode writes DIR/BASENAME for every input, the
// same bytes as one translation per process, reports every object, and
// exits 3 when one is rejected while still writing the others.
func TestTranslateBatch(t *testing.T) {
	root := projectpath.MustRoot(t)
	k := func(n string) string { return filepath.Join(root, "testdata", "kernels", "gfx950", n+".co") }
	ins := []string{k("gfx950_bitop3"), k("vector_add"), k("gfx950_minmax3"), k("indirect_call")}
	dir := filepath.Join(t.TempDir(), "out")
	rep := filepath.Join(t.TempDir(), "r.json")
	var stdout, stderr bytes.Buffer
	args := append([]string{"translate", "--to", "gfx942", "-o", dir, "-j", "3", "--report", rep}, ins...)
	if rc := runMain(args, &stdout, &stderr); rc != 3 {
		t.Fatalf("exit %d, want 3 (indirect_call is rejected): %s", rc, stderr.String())
	}
	if !strings.Contains(stderr.String(), "3 of 4 objects translated") {
		t.Fatalf("no summary line:\n%s", stderr.String())
	}
	for _, in := range ins[:3] {
		got, err := os.ReadFile(filepath.Join(dir, filepath.Base(in)))
		if err != nil {
			t.Fatal(err)
		}
		single := filepath.Join(t.TempDir(), "one.co")
		var o, e bytes.Buffer
		if rc := runMain([]string{"translate", "--to", "gfx942", in, "-o", single}, &o, &e); rc != 0 {
			t.Fatalf("%s: exit %d: %s", in, rc, e.String())
		}
		want, err := os.ReadFile(single)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: batch output differs from the single translation", in)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "indirect_call.co")); err == nil {
		t.Fatal("the rejected object was written")
	}
	j, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := report.Unmarshal(j)
	if err != nil || len(objs) != 4 || objs[0].Name != "gfx950_bitop3.co" || objs[3].Committed {
		t.Fatalf("report: %v, %d objects", err, len(objs))
	}
	// Two inputs with one base name would overwrite each other.
	if rc := runMain([]string{"translate", "-o", dir, ins[0], ins[0]}, &stdout, &stderr); rc != 2 {
		t.Fatalf("duplicate base names: exit %d, want 2", rc)
	}
}

// TestLargestFirst checks the batch dispatch order: by decreasing size,
// equal sizes and missing files in input order.
func TestLargestFirst(t *testing.T) {
	dir := t.TempDir()
	var ins []string
	for i, n := range []int{3, 10, 1, 10} {
		p := filepath.Join(dir, fmt.Sprintf("o%d.co", i))
		if err := os.WriteFile(p, make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
		ins = append(ins, p)
	}
	ins = append(ins, filepath.Join(dir, "missing.co"))
	if got, want := largestFirst(ins), []int{1, 3, 0, 2, 4}; !slices.Equal(got, want) {
		t.Fatalf("largestFirst = %v, want %v", got, want)
	}
}
