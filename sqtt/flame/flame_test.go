package flame

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var sample = []Stack{
	{[]string{"code_object_7", "kernel<int>", "outer"}, 32, 2},
	{[]string{"code_object_7", "kernel<int>", "outer", "inner&co"}, 16, 1},
	{[]string{"code_object_7", "kernel<int>", "epilogue"}, 8, 4},
	{[]string{"code_object_7", "kernel<int>", "outer", "tiny"}, 0, 1},
}

func TestFoldedFormats(t *testing.T) {
	var b bytes.Buffer
	WriteFolded(&b, sample, Standard)
	want := "code_object_7;kernel<int>;epilogue 8\ncode_object_7;kernel<int>;outer 32\ncode_object_7;kernel<int>;outer;inner&co 16\ncode_object_7;kernel<int>;outer;tiny 0\n"
	if b.String() != want {
		t.Errorf("standard:\n%s", b.String())
	}
	b.Reset()
	WriteFolded(&b, sample, Upstream)
	want = "code_object_7;kernel<int>;outer 32 2 16\ncode_object_7;kernel<int>;outer;inner&co 16 1 16\ncode_object_7;kernel<int>;epilogue 8 4 2\ncode_object_7;kernel<int>;outer;tiny 0 1 0\n"
	if b.String() != want {
		t.Errorf("upstream:\n%s", b.String())
	}
	// Python's %.0f rounds half to even.
	b.Reset()
	WriteFolded(&b, []Stack{{[]string{"a"}, 5, 2}, {[]string{"b"}, 3, 2}}, Upstream)
	if b.String() != "a 5 2 2\nb 3 2 2\n" {
		t.Errorf("rounding: %q", b.String())
	}
	merged := Merge([]Stack{{[]string{"a"}, 1, 1}, {[]string{"b"}, 2, 1}, {[]string{"a"}, 3, 2}})
	if len(merged) != 2 || merged[0].Cycles != 4 || merged[0].Execs != 3 {
		t.Errorf("Merge: %+v", merged)
	}
}

func writeSample(t *testing.T) (string, []byte) {
	var b bytes.Buffer
	if err := WriteSVG(&b, sample, SVGOptions{Title: "test <flame>"}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "flame.svg")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, b.Bytes()
}

func TestSVGWellFormed(t *testing.T) {
	_, data := writeSample(t)
	d := xml.NewDecoder(bytes.NewReader(data))
	frames, titles := 0, []string{}
	inTitle := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if e.Name.Local == "g" {
				for _, a := range e.Attr {
					if a.Name.Local == "class" && a.Value == "fr" {
						frames++
					}
				}
			}
			inTitle = e.Name.Local == "title"
		case xml.CharData:
			if inTitle {
				titles = append(titles, string(e))
			}
		case xml.EndElement:
			inTitle = false
		}
	}
	// all, code_object_7, kernel<int>, outer, inner&co, epilogue (tiny has
	// no weight).
	if frames != 6 {
		t.Errorf("%d frames, want 6", frames)
	}
	found := false
	for _, ti := range titles {
		if ti == "inner&co (16 cycles, 28.6%, 1 execs, avg 16 cycles)" {
			found = true
		}
	}
	if !found {
		t.Errorf("tooltip missing; titles %q", titles)
	}
	if !bytes.Contains(data, []byte(`id="search"`)) {
		t.Error("no search box")
	}
}

// chromium finds the browser; the test fails (never skips) without it.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium not found: install it with 'apt-get install chromium' (make deps does)")
	return ""
}

// dumpDOM loads url in headless Chromium and returns the DOM after the
// page's scripts ran.
func dumpDOM(t *testing.T, url string) string {
	t.Helper()
	bin := chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--dump-dom", url)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, errb.String())
	}
	return out.String()
}

func TestSVGInChromium(t *testing.T) {
	path, _ := writeSample(t)
	dom := dumpDOM(t, "file://"+path+"#search=inner|epi&zoom=outer")
	root := regexp.MustCompile(`<svg[^>]*>`).FindString(dom)
	attr := func(name string) string {
		m := regexp.MustCompile(name + `="([^"]*)"`).FindStringSubmatch(root)
		if m == nil {
			return ""
		}
		return m[1]
	}
	if attr("data-ready") != "1" {
		t.Fatalf("the SVG script did not finish (JavaScript error?); root element: %s", root)
	}
	if attr("data-frames") != "6" {
		t.Errorf("browser sees %s frames, want 6", attr("data-frames"))
	}
	if attr("data-matches") != "2" {
		t.Errorf("search matched %s frames, want 2 (inner&co, epilogue)", attr("data-matches"))
	}
	// Zooming to "outer" hides the sibling "epilogue" only.
	if attr("data-hidden") != "1" {
		t.Errorf("zoom hid %s frames, want 1", attr("data-hidden"))
	}
	if !strings.Contains(dom, `id="search"`) || !strings.Contains(dom, "<input") {
		t.Error("search box missing from the rendered DOM")
	}
	if n := strings.Count(dom, `class="fr`); n != 6 {
		t.Errorf("%d frames in the DOM, want 6", n)
	}
}
