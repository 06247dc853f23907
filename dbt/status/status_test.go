package status

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// readmeBlock returns the text between the corpus-status markers of the
// README (inside its ```text fence).
func readmeBlock(t *testing.T, readme string) string {
	t.Helper()
	const begin, end = "<!-- BEGIN corpus-status -->\n```text\n", "```\n<!-- END corpus-status -->"
	i := strings.Index(readme, begin)
	j := strings.Index(readme, end)
	if i < 0 || j < i {
		t.Fatal("README has no corpus-status block")
	}
	return readme[i+len(begin) : j]
}

// TestCorpusStatusInREADME computes the status (the output of `rocjitsu
// corpus status`) and compares it with the block the README pastes: a
// change of the translator's figures must come with the README's.
func TestCorpusStatusInREADME(t *testing.T) {
	if testing.Short() {
		t.Skip("translates both corpora")
	}
	root := projectpath.MustRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := Compute(Sources(root), isa.GFX942)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := st.WriteText(&got); err != nil {
		t.Fatal(err)
	}
	if want := readmeBlock(t, string(readme)); got.String() != want {
		t.Fatalf("README corpus-status block is stale; paste `make corpus-status`:\n--- README\n%s--- computed\n%s", want, got.String())
	}
	// The figures are consistent with themselves.
	for _, g := range st.Groups {
		if g.Translated+g.Rejected != g.Objects || g.Exact+g.Approximate != g.Translated || g.Sidecars > g.NeedSidecar {
			t.Fatalf("%s: inconsistent figures %+v", g.Name, g)
		}
		n := 0
		for _, c := range g.Rejections {
			n += c.N
		}
		if n != g.Rejected {
			t.Fatalf("%s: %d rejections in the histogram, %d rejected", g.Name, n, g.Rejected)
		}
	}
}

// TestStatusBadInput: an empty directory, and objects that are not code
// objects, give an error or a rejection with a reason, never a panic.
func TestStatusBadInput(t *testing.T) {
	dir := t.TempDir()
	if _, err := Compute([]Source{{Name: "empty", Dir: dir}}, isa.GFX942); err == nil || !strings.Contains(err.Error(), "no *.co") {
		t.Fatalf("empty directory: %v", err)
	}
	for i, b := range [][]byte{nil, []byte("\x7fELF garbage"), bytes.Repeat([]byte{0xff}, 100)} {
		if err := os.WriteFile(filepath.Join(dir, string(rune('a'+i))+".co"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := Compute([]Source{{Name: "bad", Dir: dir}}, isa.GFX942)
	if err != nil {
		t.Fatal(err)
	}
	g := st.Groups[0]
	if g.Objects != 3 || g.Rejected != 3 || g.Translated != 0 || len(g.Rejections) == 0 {
		t.Fatalf("bad objects: %+v", g)
	}
	var out bytes.Buffer
	if err := st.WriteText(&out); err != nil || !strings.Contains(out.String(), "bad -> gfx942: 3 objects, 0 translate (0 exact, 0 approximate), 3 rejected") {
		t.Fatalf("text %q, %v", out.String(), err)
	}
	out.Reset()
	if err := st.WriteJSON(&out); err != nil || !strings.Contains(out.String(), `"rejected": 3`) {
		t.Fatalf("json %q, %v", out.String(), err)
	}
}

// TestShorten keeps reasons on one bounded line.
func TestShorten(t *testing.T) {
	if got := shorten("a\n  b\tc"); got != "a b c" {
		t.Fatalf("%q", got)
	}
	if got := shorten(strings.Repeat("x", 300)); len(got) != 120 || !strings.HasSuffix(got, "...") {
		t.Fatalf("%d %q", len(got), got)
	}
}

// TestHistogramGroupsByShape: reasons differing only in standalone
// numbers are one row shown by the first; digits inside words (dwordx4,
// a127) keep rows apart.
func TestHistogramGroupsByShape(t *testing.T) {
	h := histogram{}
	for _, r := range []string{"needs 384 VGPRs (a127)", "needs 412 VGPRs (a127)", "needs 412 VGPRs (a255)", "load_dwordx4 at 0x10", "load_dwordx2 at 0x20"} {
		h.add(r)
	}
	h.add("needs 384 VGPRs (a127)")
	got := h.counts()
	want := []Count{{"needs 384 VGPRs (a127)", 3, 2}, {"load_dwordx2 at 0x20", 1, 1}, {"load_dwordx4 at 0x10", 1, 1}, {"needs 412 VGPRs (a255)", 1, 1}}
	if len(got) != len(want) {
		t.Fatalf("%+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
