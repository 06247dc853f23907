package abi

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

func TestGeneratedFilesMatchLayouts(t *testing.T) {
	dir := projectpath.MustShared(t, "docs", "research", "layouts")
	goSrc, cSrc, err := GenerateTables(dir)
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("tables.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, goSrc) {
		t.Errorf("tables.go is stale: run go generate ./hsa/abi")
	}
	root, err := projectpath.Root()
	if err != nil {
		t.Fatal(err)
	}
	haveC, err := os.ReadFile(filepath.Join(root, "c", "include", "rocjitsu_hsa_tables.h"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(haveC, cSrc) {
		t.Errorf("c/include/rocjitsu_hsa_tables.h is stale: run go generate ./hsa/abi")
	}
}

// The offsets the shim relies on, as documented in hsa-interception.md §1.4.
func TestKnownOffsets(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"core queue_create", CoreQueueCreate, 72},
		{"core reader_create_from_memory", CoreCodeObjectReaderCreateFromMemory, 944},
		{"core load_agent_code_object", CoreExecutableLoadAgentCodeObject, 976},
		{"core size", CoreSize, 1016},
		{"amd52 intercept_create", Amd52AmdQueueInterceptCreate, 296},
		{"amd52 intercept_register", Amd52AmdQueueInterceptRegister, 304},
		{"amd70 intercept_create", Amd70AmdQueueInterceptCreate, 312},
		{"amd70 intercept_register", Amd70AmdQueueInterceptRegister, 320},
		{"amd52 size", Amd52Size, 400},
		{"amd70 size", Amd70Size, 608},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

func TestPickAmdLayout(t *testing.T) {
	for _, c := range []struct {
		size uint32
		want AmdLayout
		ok   bool
	}{
		{399, 0, false}, {400, AmdLayout52, true}, {424, AmdLayout52, true},
		{456, AmdLayout56, true}, {552, AmdLayout56, true}, {608, AmdLayout56, true},
	} {
		got, ok := PickAmdLayout(c.size)
		if got != c.want || ok != c.ok {
			t.Errorf("PickAmdLayout(%d) = %v,%v want %v,%v", c.size, got, ok, c.want, c.ok)
		}
	}
}
