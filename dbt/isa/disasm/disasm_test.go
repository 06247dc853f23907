package disasm

import (
	"bytes"
	"io"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/dbt/isa/objfile"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

func corpus(t testing.TB, arch string) []string {
	dir := projectpath.MustShared(t, "corpus", "aiter", arch)
	files, _ := filepath.Glob(filepath.Join(dir, "*.co"))
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatalf("no objects in %s", dir)
	}
	return files
}

// TestListingMatchesObjdump requires the whole listing (headers, text,
// addresses, encodings, branch notes) to be byte-identical to
// llvm-objdump-19 -d for every gfx942 object of the corpus.
func TestListingMatchesObjdump(t *testing.T) {
	tool := llvmtool.Require(t, llvmtool.Objdump)
	files := corpus(t, "gfx942")
	root := projectpath.MustRoot(t)
	more, _ := filepath.Glob(filepath.Join(root, "testdata", "kernels", "gfx942", "*.co"))
	files = append(files, more...)
	same := 0
	for _, path := range files {
		want, err := exec.Command(tool, "-d", "--mcpu=gfx942", path).Output()
		if err != nil {
			t.Fatal(err)
		}
		f, err := objfile.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if _, err := Write(&got, f, path, Options{}); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(got.Bytes(), want) {
			same++
			continue
		}
		wl := strings.Split(string(want), "\n")
		gl := strings.Split(got.String(), "\n")
		for i := 0; i < len(wl) || i < len(gl); i++ {
			var w, g string
			if i < len(wl) {
				w = wl[i]
			}
			if i < len(gl) {
				g = gl[i]
			}
			if w != g {
				t.Errorf("%s line %d:\nwant %q\ngot  %q", filepath.Base(path), i+1, w, g)
				break
			}
		}
	}
	t.Logf("%d of %d listings byte-identical to llvm-objdump-19 -d", same, len(files))
}

// TestGFX950CorpusDecodes requires that every word of every function in
// the gfx950 corpus decodes, and prints the instruction histogram.
func TestGFX950CorpusDecodes(t *testing.T) {
	total := &Stats{}
	files := corpus(t, "gfx950")
	more, _ := filepath.Glob(filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "gfx950", "*.co"))
	for _, path := range append(files, more...) {
		f, err := objfile.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if f.Target != isa.GFX950 {
			t.Errorf("%s: target %v, want gfx950", path, f.Target)
		}
		st, err := Write(io.Discard, f, path, Options{NoListing: true})
		if err != nil {
			t.Fatal(err)
		}
		if st.Unknown > 0 {
			t.Errorf("%s: %d unknown words", filepath.Base(path), st.Unknown)
		}
		total.Add(st)
	}
	var b strings.Builder
	total.WriteHistogram(&b)
	lines := strings.SplitN(b.String(), "\n", 41)
	t.Logf("gfx950 corpus histogram (top 40):\n%s", strings.Join(lines[:len(lines)-1], "\n"))
	if total.Instructions == 0 {
		t.Fatal("no instructions")
	}
}

type codeBlob struct {
	data []byte
	addr uint64
}

func loadText(b testing.TB, arch string) ([]codeBlob, int) {
	var blobs []codeBlob
	n := 0
	for _, p := range corpus(b, arch) {
		f, err := objfile.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range f.Sections {
			blobs = append(blobs, codeBlob{s.Data, s.Addr})
			n += len(s.Data)
		}
	}
	return blobs, n
}

// BenchmarkDecode measures decode-only throughput over the gfx942 corpus
// and reports instructions per second.
func BenchmarkDecode(b *testing.B) {
	blobs, nbytes := loadText(b, "gfx942")
	var in isa.Inst
	insts := 0
	b.SetBytes(int64(nbytes))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, bl := range blobs {
			for off := 0; off+4 <= len(bl.data); {
				if err := gfx9.DecodeInto(&in, bl.data[off:], bl.addr+uint64(off), isa.GFX942); err != nil {
					off += 4
					continue
				}
				off += int(in.Size)
				insts++
			}
		}
	}
	b.ReportMetric(float64(insts)/b.Elapsed().Seconds(), "insts/s")
}

// BenchmarkDisasmVsObjdump disassembles the gfx942 corpus with Write and
// with llvm-objdump-19 -d in the same run and reports the speed ratio.
func BenchmarkDisasmVsObjdump(b *testing.B) {
	tool := llvmtool.Require(b, llvmtool.Objdump)
	files := corpus(b, "gfx942")
	objs := make([]*objfile.File, len(files))
	for i, p := range files {
		f, err := objfile.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		objs[i] = f
	}
	var ours, theirs time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		for j, f := range objs {
			if _, err := Write(io.Discard, f, files[j], Options{}); err != nil {
				b.Fatal(err)
			}
		}
		ours += time.Since(t0)
		t1 := time.Now()
		for _, p := range files {
			cmd := exec.Command(tool, "-d", "--mcpu=gfx942", p)
			cmd.Stdout = io.Discard
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
		theirs += time.Since(t1)
	}
	b.ReportMetric(float64(theirs)/float64(ours), "x-vs-llvm-objdump")
	b.ReportMetric(ours.Seconds()/float64(b.N), "s/corpus")
}
