package gfx9

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/internal/objdumptext"
	"github.com/rocjitsu/rocjitsu/dbt/isa/objfile"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// objdumpLine is one instruction as llvm-objdump printed it.
type objdumpLine = objdumptext.Line

// runObjdump disassembles path with llvm-objdump-19 and returns its
// instruction lines.
func runObjdump(tool, path, mcpu string) ([]objdumpLine, error) {
	out, err := exec.Command(tool, "-d", "--mcpu="+mcpu, path).Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", tool, path, err)
	}
	return objdumptext.Parse(out), nil
}

// normalize collapses white space.
func normalize(s string) string { return objdumptext.Normalize(s) }

// symbolizer returns the names objdump uses for branch targets.
func symbolizer(f *objfile.File) Symbolizer {
	m := map[uint64]string{}
	for _, s := range f.Symbols {
		if s.Func {
			continue
		}
		if old, ok := m[s.Addr]; !ok || s.Name < old {
			m[s.Addr] = s.Name
		}
	}
	return func(a uint64) (string, bool) { s, ok := m[a]; return s, ok }
}

type corpusResult struct {
	total, match, roundTrip int
	mismatches              []string
}

// checkObject compares every instruction of one object with llvm-objdump.
func checkObject(t *testing.T, tool, path, mcpu string, target isa.Target) corpusResult {
	var r corpusResult
	f, err := objfile.Open(path)
	if err != nil {
		t.Errorf("%v", err)
		return r
	}
	lines, err := runObjdump(tool, path, mcpu)
	if err != nil {
		t.Errorf("%v", err)
		return r
	}
	sym := symbolizer(f)
	var in isa.Inst
	for _, l := range lines {
		r.total++
		sec := f.SectionAt(l.Addr)
		if sec == nil {
			r.mismatches = append(r.mismatches, fmt.Sprintf("%s@%x: no section", filepath.Base(path), l.Addr))
			continue
		}
		b := sec.Data[l.Addr-sec.Addr:]
		err := DecodeInto(&in, b, l.Addr, target)
		var got string
		if err != nil {
			got = "ERROR " + err.Error()
		} else {
			got = normalize(PrintWith(&in, sym))
		}
		if got == l.Text {
			r.match++
		} else if len(r.mismatches) < 1000 {
			r.mismatches = append(r.mismatches, fmt.Sprintf("%s@%x %08X: want %q got %q", filepath.Base(path), l.Addr, l.Words, l.Text, got))
		}
		if err == nil {
			if _, serr := DecodeStrict(b, l.Addr, target); serr != nil && len(r.mismatches) < 1000 {
				r.mismatches = append(r.mismatches, fmt.Sprintf("%s@%x: DecodeStrict: %v", filepath.Base(path), l.Addr, serr))
			}
			enc, eerr := Encode(&in)
			want := b[:in.Size]
			if eerr == nil && bytes.Equal(enc, want) {
				r.roundTrip++
			} else if len(r.mismatches) < 1000 {
				r.mismatches = append(r.mismatches, fmt.Sprintf("%s@%x: re-encode %x want %x (%v) [%s]", filepath.Base(path), l.Addr, enc, want, eerr, l.Text))
			}
			// Objdump's word count must equal the decoded size.
			if len(l.Words)*4 != int(in.Size) && len(r.mismatches) < 1000 {
				r.mismatches = append(r.mismatches, fmt.Sprintf("%s@%x: size %d, objdump %d words [%s]", filepath.Base(path), l.Addr, in.Size, len(l.Words), l.Text))
			}
		}
	}
	return r
}

func corpusFiles(t *testing.T) []string {
	dir := projectpath.MustShared(t, "corpus", "aiter", "gfx942")
	files, _ := filepath.Glob(filepath.Join(dir, "*.co"))
	root := projectpath.MustRoot(t)
	for _, pat := range []string{"testdata/kernels/gfx942/*.co", "testdata/kernels/*gfx942*.co", "testdata/kernels/gfx942/*.o", "testdata/kernels/*gfx942*.hsaco"} {
		more, _ := filepath.Glob(filepath.Join(root, pat))
		files = append(files, more...)
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatal("no gfx942 corpus objects")
	}
	return files
}

// TestCorpusGFX942 compares Print with live llvm-objdump-19 output and
// checks Encode(Decode(x)) == x for every instruction of the gfx942 corpus.
func TestCorpusGFX942(t *testing.T) {
	tool := llvmtool.Require(t, llvmtool.Objdump)
	files := corpusFiles(t)
	results := make([]corpusResult, len(files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = checkObject(t, tool, f, "gfx942", isa.GFX942)
		}()
	}
	wg.Wait()
	var total corpusResult
	for _, r := range results {
		total.total += r.total
		total.match += r.match
		total.roundTrip += r.roundTrip
		total.mismatches = append(total.mismatches, r.mismatches...)
	}
	t.Logf("gfx942 corpus: %d objects, %d instructions, text match %d (%.3f%%), round trip %d (%.3f%%)",
		len(files), total.total, total.match, 100*float64(total.match)/float64(max(total.total, 1)),
		total.roundTrip, 100*float64(total.roundTrip)/float64(max(total.total, 1)))
	if total.total == 0 {
		t.Fatal("llvm-objdump printed no instructions")
	}
	if d := os.Getenv("ISA_MISMATCH_FILE"); d != "" {
		os.WriteFile(d, []byte(strings.Join(total.mismatches, "\n")), 0o644)
	}
	for i, m := range total.mismatches {
		if i >= 40 {
			t.Errorf("... and %d more", len(total.mismatches)-i)
			break
		}
		t.Error(m)
	}
}

// TestCorpusGFX950CommonWords decodes the gfx950 corpus for gfx950 and
// compares every instruction that gfx942 also has with llvm-objdump-19
// --mcpu=gfx942 (LLVM 19 does not know gfx950). gfx950-only words are
// covered by TestGFX950MCData.
func TestCorpusGFX950CommonWords(t *testing.T) {
	tool := llvmtool.Require(t, llvmtool.Objdump)
	dir := projectpath.MustShared(t, "corpus", "aiter", "gfx950")
	files, _ := filepath.Glob(filepath.Join(dir, "*.co"))
	more, _ := filepath.Glob(filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "gfx950", "*.co"))
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatal("no gfx950 corpus objects")
	}
	compared, match, only950 := 0, 0, 0
	var bad []string
	for _, path := range files {
		f, err := objfile.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		lines, err := runObjdump(tool, path, "gfx942")
		if err != nil {
			t.Fatal(err)
		}
		byAddr := map[uint64]string{}
		for _, l := range lines {
			byAddr[l.Addr] = l.Text
		}
		sym := symbolizer(f)
		var in isa.Inst
		for _, sec := range f.Sections {
			for off := 0; off+4 <= len(sec.Data); {
				pc := sec.Addr + uint64(off)
				if err := DecodeInto(&in, sec.Data[off:], pc, isa.GFX950); err != nil {
					t.Errorf("%s@%x: %v", filepath.Base(path), pc, err)
					off += 4
					continue
				}
				off += int(in.Size)
				if !in.Info.Targets.Has(isa.GFX942) {
					only950++
					continue
				}
				want, ok := byAddr[pc]
				if !ok || strings.Contains(want, "<unknown>") {
					continue
				}
				compared++
				got := normalize(PrintWith(&in, sym))
				if got == want {
					match++
				} else if len(bad) < 20 {
					bad = append(bad, fmt.Sprintf("%s@%x: want %q got %q", filepath.Base(path), pc, want, got))
				}
			}
		}
	}
	t.Logf("gfx950 corpus: %d common instructions compared with llvm-objdump --mcpu=gfx942, %d match; %d gfx950-only", compared, match, only950)
	for _, b := range bad {
		t.Error(b)
	}
	if compared == 0 {
		t.Fatal("nothing compared")
	}
}
