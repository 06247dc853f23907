package instrument

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/sqtt"
)

// corpusObjects lists the aiter code objects (skipping when the shared
// corpus is absent).
func corpusObjects(t testing.TB) []string {
	t.Helper()
	root := projectpath.MustRoot(t)
	objs, _ := filepath.Glob(filepath.Join(root, "..", "shared", "corpus", "aiter", "gfx9*", "*.co"))
	if len(objs) == 0 {
		t.Skip("no aiter corpus under ../shared/corpus/aiter")
	}
	return objs
}

// TestAiterCorpus instruments every aiter object with --barriers
// --memory 4:8 --loops, and again with address tracing: each must succeed, pass llvm-readelf-19 -a without
// a warning, disassemble with llvm-objdump-19 without an unknown word
// (gfx942; LLVM 19 has no gfx950, where the CFG rebuild of the output
// decodes every reachable word instead), keep its markers nested on every
// path, and carry a funcmap the parser reads without diagnostics.
func TestAiterCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus run")
	}
	readelf := llvmtool.Require(t, llvmtool.Readelf)
	objdump := llvmtool.Require(t, llvmtool.Objdump)
	dir := t.TempDir()
	for _, set := range []struct {
		name string
		opt  Options
	}{
		{"--barriers --memory 4:8 --loops", Options{Barriers: true, Memory: MemGroup{4, 8}, Loops: true}},
		{"--barriers --loops --addresses memory,lds", Options{Barriers: true, Loops: true, Addresses: AddrMemory | AddrLDS}},
	} {
		corpusRun(t, set.name, set.opt, readelf, objdump, dir)
		objdump = "" // disassembling the address-traced objects (3x the code) adds a minute
	}
}

func corpusRun(t *testing.T, setName string, opt Options, readelf, objdump, dir string) {
	var markers, added, src, grown, payload int
	for _, p := range corpusObjects(t) {
		name := filepath.Base(filepath.Dir(p)) + "/" + filepath.Base(p)
		obj, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Instrument(obj, opt)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, n := range res.Notes {
			if strings.Contains(n, "not instrumented") {
				t.Errorf("%s: %s", name, n)
			}
		}
		out := filepath.Join(dir, "out.co")
		if err := os.WriteFile(out, res.Object, 0o644); err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd := exec.Command(readelf, "-a", out)
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			t.Errorf("%s: llvm-readelf-19 -a: %v %s", name, err, stderr.String())
		}
		if objdump != "" && strings.Contains(p, "gfx942") {
			dis, err := exec.Command(objdump, "-d", "--mcpu=gfx942", out).CombinedOutput()
			if err != nil || bytes.Contains(dis, []byte("<unknown>")) || bytes.Contains(dis, []byte("warning")) {
				t.Errorf("%s: llvm-objdump-19 -d: %v", name, err)
			}
		}
		checkBalanced(t, res.Object)
		co, err := sqtt.ParseCodeObject(res.Object)
		if err != nil || co.Funcmap == nil || len(co.Funcmap.Diagnostics) > 0 {
			t.Errorf("%s: funcmap: %v %v", name, err, co)
		}
		for _, s := range res.Sites {
			payload += s.Payload
		}
		markers += res.Stats.Markers
		added += res.Stats.AddedInsts
		src += res.Stats.SourceBytes
		grown += res.Stats.BodyBytes
	}
	t.Logf("aiter %s: %d markers (+%d payload records per pass), %d instructions added, code %d -> %d bytes (+%.1f%%)", setName, markers, payload, added, src, grown, 100*float64(grown-src)/float64(src))
}
