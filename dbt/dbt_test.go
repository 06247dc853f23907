package dbt

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

func testKernels(t testing.TB, arch string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", arch, "*.co"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no test kernels for %s: %v", arch, err)
	}
	return files
}

func corpus(t testing.TB, arch string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(projectpath.MustShared(t, "corpus", "aiter", arch), "*.co"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus objects for %s: %v", arch, err)
	}
	return files
}

// expectedRejections lists the test kernels the translator must refuse,
// with a fragment of the reason: calls through a function-pointer table
// loaded from memory have no statically recovered target set, and the
// specification says such transfers fail closed rather than be guessed.
var expectedRejections = map[string]string{
	"indirect_call.co": "unrecovered indirect transfer",
}

// checkExpectedRejection fails unless err is the documented rejection of p.
func checkExpectedRejection(t *testing.T, p string, res *Result, err error) bool {
	t.Helper()
	want, ok := expectedRejections[filepath.Base(p)]
	if !ok {
		return false
	}
	if err == nil {
		t.Fatalf("%s: expected a rejection (%s), got a translation: update expectedRejections", p, want)
	}
	found := false
	for _, k := range res.Report.Kernels {
		for _, r := range k.Rejections {
			if strings.Contains(r.Reason, want) {
				found = true
			}
		}
	}
	if !errors.Is(err, ErrRejected) || !found {
		t.Fatalf("%s: rejected for another reason than %q: %v", p, want, err)
	}
	return true
}

// TestRetargetedKernels translates every gfx950-retargeted test kernel:
// none may be rejected (except the documented ones), every output passes
// the LLVM oracles.
func TestRetargetedKernels(t *testing.T) {
	for _, p := range testKernels(t, "gfx950") {
		src := readFile(t, p)
		res, err := Translate(src, Options{Name: filepath.Base(p)})
		if checkExpectedRejection(t, p, res, err) {
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if !res.Report.Committed || res.Report.Fidelity == report.Rejected {
			t.Fatalf("%s: report %+v", p, res.Report)
		}
		// Kernels whose code the host runs as it is (no non-identity
		// instruction) must be exact; the others go through rules.
		counts, err := GuestOnly(src, isa.GFX942)
		if err != nil {
			t.Fatal(err)
		}
		if len(counts) == 0 && res.Report.Fidelity != report.Exact {
			t.Fatalf("%s: fidelity %s for gfx942-compatible code", p, res.Report.Fidelity)
		}
		verifyObject(t, filepath.Base(p), src, res.Object)
	}
}

// TestCorpus translates every gfx950 object of the aiter corpus. Each one
// is either committed and valid under the oracles, or rejected with every
// rejected kernel naming at least one instruction, its address and reason.
func TestCorpus(t *testing.T) {
	committed, rejected := 0, 0
	for _, p := range corpus(t, "gfx950") {
		src := readFile(t, p)
		res, err := Translate(src, Options{Name: filepath.Base(p)})
		rep := res.Report
		if err != nil {
			if !errors.Is(err, ErrRejected) {
				t.Fatalf("%s: %v", p, err)
			}
			rejected++
			if rep.Committed || res.Object != nil {
				t.Fatalf("%s: rejected but committed", p)
			}
			for _, k := range rep.Rejected() {
				if len(k.Rejections) == 0 || k.Rejections[0].Reason == "" || k.Rejections[0].Offset == 0 {
					t.Fatalf("%s: kernel %s rejected without a reason: %+v", p, k.Name, k)
				}
			}
			continue
		}
		committed++
		verifyObject(t, filepath.Base(p), src, res.Object)
		for _, k := range rep.Kernels {
			if k.Before.GroupSegment > 65536 && !k.NeedsVirtualLDS {
				t.Fatalf("%s: kernel %s uses %d bytes of LDS but is not marked as needing virtual LDS", p, k.Name, k.Before.GroupSegment)
			}
		}
	}
	t.Logf("aiter gfx950 corpus: %d committed, %d rejected", committed, rejected)
	// 19 of the 28 objects translate today; fewer is a regression.
	if committed < 19 {
		t.Fatalf("only %d corpus objects translated, want at least 19", committed)
	}
}

// TestDeterministic translates objects twice and compares the bytes.
func TestDeterministic(t *testing.T) {
	paths := append(testKernels(t, "gfx950")[:3], corpus(t, "gfx950")[:2]...)
	for _, p := range paths {
		src := readFile(t, p)
		a, errA := Translate(src, Options{})
		b, errB := Translate(src, Options{})
		if (errA == nil) != (errB == nil) || !bytes.Equal(a.Object, b.Object) {
			t.Fatalf("%s: two translations differ", p)
		}
		ja, _ := report.MarshalIndent([]report.Object{a.Report})
		jb, _ := report.MarshalIndent([]report.Object{b.Report})
		if !bytes.Equal(ja, jb) {
			t.Fatalf("%s: two reports differ", p)
		}
	}
}

// TestGFX942Identity: translating gfx942 objects for gfx942 keeps .text
// byte for byte.
func TestGFX942Identity(t *testing.T) {
	paths := append(testKernels(t, "gfx942"), corpus(t, "gfx942")...)
	for _, p := range paths {
		src := readFile(t, p)
		res, err := Translate(src, Options{Host: isa.GFX942})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if !bytes.Equal(textOf(t, src), textOf(t, res.Object)) {
			t.Fatalf("%s: gfx942 -> gfx942 changed .text", p)
		}
	}
}

// TestBadInput: garbage is an error, not a panic.
func TestBadInput(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("\x7fELF"), bytes.Repeat([]byte{0xff}, 200)} {
		res, err := Translate(b, Options{})
		if err == nil || res.Object != nil {
			t.Fatalf("garbage translated: %v", err)
		}
	}
}

func FuzzTranslate(f *testing.F) {
	f.Add([]byte("\x7fELF\x02\x01\x01\x40"))
	if files, _ := filepath.Glob("../testdata/kernels/gfx950/*.co"); len(files) > 0 {
		for _, p := range files[:2] {
			if b, err := readFileErr(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzguard.Run(t, b, func() {
			res, err := Translate(b, Options{})
			if err == nil && res.Object == nil {
				t.Fatal("success without an object")
			}
		})
	})
}
