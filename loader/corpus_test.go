package loader

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// corpusFiles returns the shared aiter objects plus the project's own
// test kernels (testdata/kernels, when present).
func corpusFiles(t testing.TB) []string {
	t.Helper()
	dir := projectpath.MustShared(t, "corpus", "aiter")
	var files []string
	for _, pat := range []string{"*/*.co", "*/*.hsaco"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		files = append(files, m...)
	}
	root := projectpath.MustRoot(t)
	for _, pat := range []string{"*.co", "*.hsaco", "*/*.co", "*/*.hsaco"} {
		m, _ := filepath.Glob(filepath.Join(root, "testdata", "kernels", pat))
		files = append(files, m...)
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatalf("no code objects found under %s", dir)
	}
	return files
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCorpusParseAndRoundTrip(t *testing.T) {
	files := corpusFiles(t)
	kernels := 0
	for _, path := range files {
		b := readFile(t, path)
		f, err := Parse(b)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if f.Processor.Name == "" {
			t.Errorf("%s: unknown processor for e_flags 0x%x", path, f.Header.Flags)
		}
		if len(f.Kernels()) == 0 {
			t.Errorf("%s: no kernels", path)
		}
		for _, k := range f.Kernels() {
			kernels++
			if k.Metadata == nil {
				t.Errorf("%s: kernel %s has no metadata", path, k.Name)
			}
			if k.EntrySymbol == "" {
				t.Errorf("%s: kernel %s: no function symbol at entry 0x%x", path, k.Name, k.EntryAddr)
			}
			if s, ok := f.LookupSymbol(k.Symbol); !ok || s.Value != k.DescriptorAddr {
				t.Errorf("%s: LookupSymbol(%s) = %v, %v", path, k.Symbol, s, ok)
			}
			if s, ok := f.SymbolAt(k.DescriptorAddr + 8); !ok || s.Name != k.Symbol {
				t.Errorf("%s: SymbolAt(kd+8) = %v", path, s)
			}
			if s, ok := f.SymbolAt(k.EntryAddr); !ok || s.Value != k.EntryAddr {
				t.Errorf("%s: SymbolAt(entry 0x%x) = %v", path, k.EntryAddr, s)
			}
		}
		img, err := f.LoadImage()
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		for _, k := range f.Kernels() {
			if string(img[k.DescriptorAddr:k.DescriptorAddr+64]) != string(k.Descriptor.Encode()) {
				t.Errorf("%s: image holds no descriptor at 0x%x", path, k.DescriptorAddr)
			}
		}
		if tx := f.Section(".text"); string(img[tx.Addr:tx.Addr+tx.Size]) != string(tx.Data) {
			t.Errorf("%s: image .text differs", path)
		}
		out, err := Write(f)
		if err != nil {
			t.Errorf("%s: write: %v", path, err)
			continue
		}
		if !bytes.Equal(out, b) {
			t.Errorf("%s: Write(Parse(b)) differs from b", path)
		}
	}
	t.Logf("%d objects, %d kernels parsed and written back byte-identically", len(files), kernels)
}
