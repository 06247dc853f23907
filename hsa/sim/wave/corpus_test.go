package wave

import (
	"debug/elf"
	"path/filepath"
	"sort"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// TestAiterCoverage decodes the .text of every real code object in the
// shared aiter corpus (gfx942 and gfx950) and requires that every
// instruction decodes to a known mnemonic the interpreter implements.
func TestAiterCoverage(t *testing.T) {
	for _, tc := range []struct {
		dir    string
		target Target
	}{{"gfx942", GFX942}, {"gfx950", GFX950}} {
		dir := projectpath.MustShared(t, "corpus", "aiter", tc.dir)
		files, err := filepath.Glob(filepath.Join(dir, "*.co"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no code objects (%v)", dir, err)
		}
		missing := map[string]int{}
		total := 0
		for _, f := range files {
			ef, err := elf.Open(f)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			sec := ef.Section(".text")
			if sec == nil {
				ef.Close()
				continue
			}
			data, err := sec.Data()
			ef.Close()
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			words := make([]uint32, len(data)/4)
			for i := range words {
				words[i] = le.Uint32(data[4*i:])
			}
			for i := 0; i < len(words); {
				in, err := Decode(words[i:], tc.target)
				if err != nil {
					t.Fatalf("%s word %d: %v", filepath.Base(f), i, err)
				}
				total++
				switch {
				case in.Name == "":
					missing["unknown "+in.Fmt.String()]++
				case !Supported(in.Name):
					missing[in.Name]++
				}
				i += in.Size / 4
			}
		}
		if len(missing) > 0 {
			var ks []string
			for k := range missing {
				ks = append(ks, k)
			}
			sort.Strings(ks)
			t.Errorf("%s: %d of %d instructions lack semantics: %v", tc.dir, len(missing), total, ks)
		}
		t.Logf("%s: %d files, %d instructions", tc.dir, len(files), total)
	}
}
