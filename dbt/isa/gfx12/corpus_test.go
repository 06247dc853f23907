package gfx12

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
func runObjdump(tool, path, mcpu string, extra ...string) ([]objdumpLine, error) {
	out, err := exec.Command(tool, append([]string{"-d", "--mcpu=" + mcpu, path}, extra...)...).Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", tool, path, err)
	}
	return objdumptext.Parse(out), nil
}

// normalize collapses white space.
func normalize(s string) string { return objdumptext.Normalize(s) }

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
	var extra []string
	if target&isa.Wave64 != 0 {
		extra = []string{"--mattr=+wavefrontsize64"}
	}
	lines, err := runObjdump(tool, path, mcpu, extra...)
	if err != nil {
		t.Errorf("%v", err)
		return r
	}
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
			got = normalize(Print(&in))
		}
		if got == l.Text || strings.HasPrefix(l.Text, ".long ") && err != nil {
			// objdump prints .long for a word it cannot decode.
			r.match++
		} else {
			r.mismatches = append(r.mismatches, fmt.Sprintf("%s@%x %08X: want %q got %q", filepath.Base(path), l.Addr, l.Words, l.Text, got))
		}
		if err != nil && strings.HasPrefix(l.Text, ".long ") {
			r.roundTrip++
		}
		if err == nil {
			enc, eerr := Encode(&in)
			want := b[:in.Size]
			if eerr == nil && bytes.Equal(enc, want) {
				r.roundTrip++
			} else {
				r.mismatches = append(r.mismatches, fmt.Sprintf("%s@%x: re-encode %x want %x (%v) [%s]", filepath.Base(path), l.Addr, enc, want, eerr, l.Text))
			}
			if len(l.Words)*4 != int(in.Size) {
				r.mismatches = append(r.mismatches, fmt.Sprintf("%s@%x: size %d, objdump %d words [%s]", filepath.Base(path), l.Addr, in.Size, len(l.Words), l.Text))
			}
		}
	}
	return r
}

// TestCorpusKernels compares Print with live llvm-objdump-19 output and
// checks Encode(Decode(x)) == x for every instruction of the gfx1200 and
// gfx1201 kernel objects (wave32, LLVM's default for both).
func TestCorpusKernels(t *testing.T) {
	tool := llvmtool.Require(t, llvmtool.Objdump)
	root := projectpath.MustRoot(t)
	for _, tc := range []struct {
		cpu    string
		target isa.Target
	}{{"gfx1200", isa.GFX1200}, {"gfx1201", isa.GFX1201}} {
		files, _ := filepath.Glob(filepath.Join(root, "testdata", "kernels", tc.cpu, "*.co"))
		if len(files) == 0 {
			t.Fatalf("no %s kernel objects", tc.cpu)
		}
		var total corpusResult
		for _, f := range files {
			r := checkObject(t, tool, f, tc.cpu, tc.target)
			total.total += r.total
			total.match += r.match
			total.roundTrip += r.roundTrip
			total.mismatches = append(total.mismatches, r.mismatches...)
		}
		t.Logf("%s kernels: %d objects, %d instructions, text match %d (%.3f%%), round trip %d (%.3f%%)",
			tc.cpu, len(files), total.total, total.match, 100*float64(total.match)/float64(max(total.total, 1)),
			total.roundTrip, 100*float64(total.roundTrip)/float64(max(total.total, 1)))
		if total.total == 0 {
			t.Fatal("llvm-objdump printed no instructions")
		}
		if d := os.Getenv("ISA_MISMATCH_FILE"); d != "" {
			os.WriteFile(d+"."+tc.cpu, []byte(strings.Join(total.mismatches, "\n")), 0o644)
		}
		for i, m := range total.mismatches {
			if i >= 40 {
				t.Errorf("... and %d more", len(total.mismatches)-i)
				break
			}
			t.Error(m)
		}
	}
}

// TestCorpusKernelsWave64 prints the gfx1201 kernels as wave64 code
// (llvm-objdump-19 --mattr=+wavefrontsize64: vcc, s[0:1], ...) and compares.
// VOPD, which wave64 lacks, must fail to decode where objdump prints
// <unknown>.
func TestCorpusKernelsWave64(t *testing.T) {
	tool := llvmtool.Require(t, llvmtool.Objdump)
	root := projectpath.MustRoot(t)
	files, _ := filepath.Glob(filepath.Join(root, "testdata", "kernels", "gfx1201", "*.co"))
	if len(files) == 0 {
		t.Fatal("no gfx1201 kernel objects")
	}
	var total corpusResult
	for _, f := range files {
		r := checkObject(t, tool, f, "gfx1201", isa.GFX1201|isa.Wave64)
		total.total += r.total
		total.match += r.match
		total.roundTrip += r.roundTrip
		total.mismatches = append(total.mismatches, r.mismatches...)
	}
	t.Logf("gfx1201 kernels as wave64: %d instructions, text match %d (%.3f%%), round trip %d",
		total.total, total.match, 100*float64(total.match)/float64(max(total.total, 1)), total.roundTrip)
	for i, m := range total.mismatches {
		if i >= 40 {
			t.Errorf("... and %d more", len(total.mismatches)-i)
			break
		}
		t.Error(m)
	}
}
