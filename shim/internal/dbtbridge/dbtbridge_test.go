package dbtbridge

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/shim/internal/codeobj"
)

// Every corpus gfx950 object either translates to a gfx942 object with the
// same kernel symbols, or is rejected with a report; nothing panics.
func TestCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(projectpath.MustShared(t, "corpus", "aiter", "gfx950"), "*.co"))
	if len(files) == 0 {
		t.Fatal("no corpus")
	}
	committed := 0
	for _, f := range files {
		in, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		g, err := codeobj.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		out, rep, err := New().Translate(in, "gfx942")
		if err != nil {
			if rep == "" && !bytes.Contains([]byte(err.Error()), []byte("dbt")) {
				t.Errorf("%s: rejection without report: %v", f, err)
			}
			continue
		}
		committed++
		o, err := codeobj.Parse(out)
		if err != nil {
			t.Errorf("%s: translated object unreadable: %v", f, err)
			continue
		}
		if p, _ := codeobj.ProcessorOf(o.Mach()); p != "gfx942" {
			t.Errorf("%s: translated for %s", f, p)
		}
		for _, k := range g.Kernels {
			if _, ok := o.Kernel(k.Name); !ok {
				t.Errorf("%s: kernel %s lost in translation", f, k.Name)
			}
		}
	}
	t.Logf("%d of %d corpus objects committed", committed, len(files))
}
