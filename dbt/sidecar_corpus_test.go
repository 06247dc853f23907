package dbt

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/vlds"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader"
)

// TestSidecarsCorpus translates every aiter gfx950 object with sidecars:
// every kernel of a committed object whose static LDS exceeds 64 KiB must
// get a sidecar, and the committed section must parse and point at
// descriptors with no hardware LDS.
func TestSidecarsCorpus(t *testing.T) {
	dir := projectpath.MustShared(t, "corpus", "aiter", "gfx950")
	paths, err := filepath.Glob(filepath.Join(dir, "*.co"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("corpus: %v", err)
	}
	sort.Strings(paths)
	need, made := 0, 0
	for _, p := range paths {
		guest, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := TranslateWithSidecars(guest, Options{Name: filepath.Base(p)}, SidecarOptions{})
		if err != nil {
			continue // rejected by the normal translation
		}
		for _, s := range res.Sidecars {
			need++
			if !s.Made {
				t.Errorf("%s %s: no sidecar: %s", filepath.Base(p), s.Kernel, s.Reason)
				continue
			}
			made++
			t.Logf("%s %s: static LDS %d, %d accesses lowered, %d bytes", filepath.Base(p), s.Kernel, s.StaticLDS, s.Lowered, s.Bytes)
		}
		if res.LDS == nil {
			continue
		}
		f, err := loader.Parse(res.Object)
		if err != nil {
			t.Fatal(err)
		}
		oracleCheck(t, filepath.Base(p), res.Object)
		sec, err := vlds.Parse(f.Section(vlds.SectionName).Data)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(p), err)
		}
		for _, e := range sec.Entries {
			tail := f.Section(".rocjitsu.kd")
			if tail == nil || e.Sidecar < tail.Addr || e.Sidecar >= tail.Addr+tail.Size {
				t.Fatalf("%s: sidecar descriptor %#x outside the descriptor tail", filepath.Base(p), e.Sidecar)
			}
			d := tail.Data[e.Sidecar-tail.Addr:]
			if d[0]|d[1]|d[2]|d[3] != 0 {
				t.Errorf("%s: sidecar descriptor %#x requests hardware LDS", filepath.Base(p), e.Sidecar)
			}
		}
	}
	t.Logf("%d of %d kernels needing virtual LDS (in committed objects) have sidecars", made, need)
	if need == 0 {
		t.Fatal("no corpus kernel needs virtual LDS")
	}
}

// oracleCheck runs llvm-readelf-19 -a (no warnings) and llvm-objdump-19 -d
// --mcpu=gfx942 (no undecodable word) on a translated object.
func oracleCheck(t *testing.T, name string, obj []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "o.co")
	if err := os.WriteFile(path, obj, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(llvmtool.Require(t, llvmtool.Readelf), "-a", path).CombinedOutput()
	if err != nil || strings.Contains(string(out), "warning") {
		t.Errorf("%s: llvm-readelf-19: %v\n%s", name, err, out)
	}
	out, err = exec.Command(llvmtool.Require(t, llvmtool.Objdump), "-d", "--mcpu=gfx942", path).CombinedOutput()
	if err != nil || strings.Contains(string(out), "<unknown>") {
		t.Errorf("%s: llvm-objdump-19: %v (undecodable words: %d)", name, err, strings.Count(string(out), "<unknown>"))
	}
}
