package disasm

import (
	"bytes"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/objfile"
	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// compareListing disassembles path with Write and with llvm-objdump-19
// (args) and reports the first differing line; it returns whether the
// listings are byte-identical, and the counts of matching and all lines.
func compareListing(t *testing.T, tool, path string, opt Options, args ...string) (same bool, okLines, lines int) {
	t.Helper()
	want, err := exec.Command(tool, append(append([]string{"-d"}, args...), path)...).Output()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	f, err := objfile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if _, err := Write(&got, f, path, opt); err != nil {
		t.Fatal(err)
	}
	wl := strings.Split(string(want), "\n")
	gl := strings.Split(got.String(), "\n")
	reported := false
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		lines++
		if w == g {
			okLines++
			continue
		}
		if !reported {
			t.Errorf("%s line %d:\nwant %q\ngot  %q", filepath.Base(path), i+1, w, g)
			reported = true
		}
	}
	return bytes.Equal(got.Bytes(), want), okLines, lines
}

// TestGFX12ListingMatchesObjdump requires the whole listing of every
// gfx1200 and gfx1201 test kernel to be byte-identical to
// llvm-objdump-19 -d --mcpu=gfx1200|gfx1201 (wave32, objdump's default).
func TestGFX12ListingMatchesObjdump(t *testing.T) {
	tool := llvmtool.Require(t, llvmtool.Objdump)
	root := projectpath.MustRoot(t)
	for _, arch := range []string{"gfx1200", "gfx1201"} {
		files, _ := filepath.Glob(filepath.Join(root, "testdata", "kernels", arch, "*.co"))
		if len(files) == 0 {
			t.Fatalf("no %s objects", arch)
		}
		same, ok, all := 0, 0, 0
		for _, path := range files {
			f, err := objfile.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if f.Target.String() != arch {
				t.Errorf("%s: target %v, want %s", path, f.Target, arch)
			}
			s, o, a := compareListing(t, tool, path, Options{}, "--mcpu="+arch)
			if s {
				same++
			}
			ok += o
			all += a
		}
		t.Logf("%s: %d of %d listings byte-identical to llvm-objdump-19 -d --mcpu=%s (%d of %d lines)", arch, same, len(files), arch, ok, all)
	}
}

// TestGFX12Wave64ListingMatchesObjdump decodes the gfx1201 kernels as
// wave64 (Options.Wave64) and compares with llvm-objdump-19
// --mattr=+wavefrontsize64: lane masks widen, and VOPD words, which wave64
// lacks, are printed as .long on both sides.
func TestGFX12Wave64ListingMatchesObjdump(t *testing.T) {
	tool := llvmtool.Require(t, llvmtool.Objdump)
	files, _ := filepath.Glob(filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "gfx1201", "*.co"))
	if len(files) == 0 {
		t.Fatal("no gfx1201 objects")
	}
	same, ok, all := 0, 0, 0
	for _, path := range files {
		s, o, a := compareListing(t, tool, path, Options{Wave64: true}, "--mcpu=gfx1201", "--mattr=+wavefrontsize64")
		if s {
			same++
		}
		ok += o
		all += a
	}
	t.Logf("gfx1201 wave64: %d of %d listings byte-identical (%d of %d lines)", same, len(files), ok, all)
}

// TestGFX12Stats counts the gfx1201 kernels: every word decodes as wave32,
// and the histogram names GFX12 mnemonics.
func TestGFX12Stats(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "gfx1201", "*.co"))
	total := &Stats{}
	for _, path := range files {
		f, err := objfile.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		st, err := Write(&bytes.Buffer{}, f, path, Options{NoListing: true})
		if err != nil {
			t.Fatal(err)
		}
		total.Add(st)
	}
	if total.Unknown != 0 || total.Instructions == 0 {
		t.Errorf("%d instructions, %d unknown words", total.Instructions, total.Unknown)
	}
	for _, m := range []string{"s_wait_kmcnt", "s_endpgm", "global_load_b32"} {
		if total.ByMnemonic[m] == 0 {
			t.Errorf("histogram lacks %s", m)
		}
	}
	// Forcing a GFX9 target on GFX12 code leaves words undecoded.
	f, err := objfile.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	st, err := Write(&bytes.Buffer{}, f, files[0], Options{NoListing: true, Target: isa.GFX942})
	if err != nil {
		t.Fatal(err)
	}
	if st.Unknown == 0 {
		t.Errorf("gfx1201 code decoded as gfx942 without unknown words")
	}
}

// TestGFX12AlignWarnings assembles testdata/gfx12_unaligned.s (raw words
// with unaligned SGPR/TTMP tuples: SOP1, VOP3 lane masks in wave64, SMEM
// sdata and sbase) with llvm-mc-19 and requires the listing, warnings
// included, to equal llvm-objdump-19's in wave32 and wave64.
func TestGFX12AlignWarnings(t *testing.T) {
	tool := llvmtool.Require(t, llvmtool.Objdump)
	mc := llvmtool.Require(t, llvmtool.MC)
	obj := filepath.Join(t.TempDir(), "unaligned.o")
	if out, err := exec.Command(mc, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx1201", "-filetype=obj", filepath.Join("testdata", "gfx12_unaligned.s"), "-o", obj).CombinedOutput(); err != nil {
		t.Fatalf("llvm-mc: %v\n%s", err, out)
	}
	same, _, _ := compareListing(t, tool, obj, Options{}, "--mcpu=gfx1201")
	same64, _, _ := compareListing(t, tool, obj, Options{Wave64: true}, "--mcpu=gfx1201", "--mattr=+wavefrontsize64")
	if !same || !same64 {
		t.Errorf("listing differs (wave32 same=%v, wave64 same=%v)", same, same64)
	}
	want, _ := exec.Command(tool, "-d", "--mcpu=gfx1201", obj).Output()
	if n := strings.Count(string(want), "Warning:"); n < 6 {
		t.Errorf("objdump printed %d warnings; the test words no longer exercise them", n)
	}
}

// TestGFX12Wave64KernelsDefault compiles test kernels as wave64
// (clang-19 -mwavefrontsize64: .wavefront_size 64 in the metadata) and
// requires the default listing to equal llvm-objdump-19 -d's, which
// decodes them as wave32 all the same, and the --wave64 listing to equal
// llvm-objdump-19 --mattr=+wavefrontsize64.
func TestGFX12Wave64KernelsDefault(t *testing.T) {
	tool := llvmtool.Require(t, llvmtool.Objdump)
	clang := llvmtool.Require(t, llvmtool.Clang)
	lld := llvmtool.Require(t, llvmtool.LLD)
	src := filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "src")
	dir := t.TempDir()
	for _, name := range []string{"early_exit_loop", "reduce_sum_f32", "divergence", "matmul_tiled"} {
		for _, arch := range []string{"gfx1200", "gfx1201"} {
			obj := filepath.Join(dir, name+"."+arch+".o")
			co := filepath.Join(dir, name+"."+arch+".co")
			cmd := exec.Command(clang, "-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu="+arch,
				"-mwavefrontsize64", "-nogpulib", "-O2", "-ffp-contract=off", "-I.", "-c", name+".cl", "-o", obj)
			cmd.Dir = src
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", name, err, out)
			}
			if out, err := exec.Command(lld, "-shared", "--build-id=none", obj, "-o", co).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", name, err, out)
			}
			if same, _, _ := compareListing(t, tool, co, Options{}, "--mcpu="+arch); !same {
				t.Errorf("%s %s wave64 kernel: default listing differs", name, arch)
			}
			if same, _, _ := compareListing(t, tool, co, Options{Wave64: true}, "--mcpu="+arch, "--mattr=+wavefrontsize64"); !same {
				t.Errorf("%s %s wave64 kernel: --wave64 listing differs", name, arch)
			}
		}
	}
}

// FuzzWriteGFX12 lists arbitrary bytes as gfx1201 code (wave32 and
// wave64): no panic, and the listing covers every word.
func FuzzWriteGFX12(f *testing.F) {
	f.Add([]byte{0x01, 0x01, 0x81, 0xbe, 0x01, 0x00, 0x4c, 0xd4, 0x05, 0x0d, 0x02, 0x00}, false)
	f.Add([]byte{0x01, 0x00, 0x02, 0xf4, 0x00, 0x00, 0x00, 0xf8, 0x80, 0x00, 0x10, 0xca, 0x80, 0x00, 0x02, 0x03}, true)
	f.Add([]byte{0xff, 0x00, 0x00, 0x8b}, false) // truncated literal
	f.Fuzz(func(t *testing.T, code []byte, wave64 bool) {
		fuzzguard.RunArgs(t, []any{code, wave64}, func() {
			file := &objfile.File{Target: isa.GFX1201, Sections: []objfile.Section{{Name: ".text", Addr: 0x1000, Data: code}},
				Symbols: []objfile.Symbol{{Name: "k", Addr: 0x1000, Func: true}}}
			var out bytes.Buffer
			st, err := Write(&out, file, "fuzz.co", Options{Wave64: wave64})
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(out.String(), "// 0000"); n != st.Instructions+st.Unknown {
				t.Errorf("%d listing lines for %d instructions and %d unknown words", n, st.Instructions, st.Unknown)
			}
		})
	})
}

// BenchmarkDisasmGFX12VsObjdump lists the gfx1201 test kernels with Write
// and with llvm-objdump-19 -d in the same run and reports the speed ratio.
func BenchmarkDisasmGFX12VsObjdump(b *testing.B) {
	tool := llvmtool.Require(b, llvmtool.Objdump)
	files, _ := filepath.Glob(filepath.Join(projectpath.MustRoot(b), "testdata", "kernels", "gfx1201", "*.co"))
	if len(files) == 0 {
		b.Fatal("no gfx1201 objects")
	}
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
			cmd := exec.Command(tool, "-d", "--mcpu=gfx1201", p)
			cmd.Stdout = io.Discard
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
		theirs += time.Since(t1)
	}
	b.ReportMetric(float64(theirs)/float64(ours), "x-vs-llvm-objdump")
}
