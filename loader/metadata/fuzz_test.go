package metadata

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// FuzzDecode checks that Decode never panics or over-allocates, that the
// direct decode and encoding, where they apply, give the general path's
// value and bytes, and that whatever decodes survives an Encode/Decode
// cycle unchanged.
func FuzzDecode(f *testing.F) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetSortMapKeys(true)
	if err := enc.Encode(sample()); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	// A few real notes (the kernels' own metadata) as seeds.
	n := 0
	for _, b := range metadataNotes(f, filepath.Join(projectpath.MustRoot(f), "testdata", "kernels", "gfx950")) {
		if n++; n <= 4 {
			f.Add(b)
		}
	}
	f.Add([]byte{0x80})
	f.Add([]byte{0x81, 0xae, 'a', 'm', 'd', 'h', 's', 'a', '.', 'k', 'e', 'r', 'n', 'e', 'l', 's', 0x90})
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzguard.Run(t, b, func() {
			checkDirect(t, "input", b)
			md, err := Decode(b)
			if err != nil {
				return
			}
			checkEncode(t, "input", md)
			out, err := md.Encode()
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			md2, err := Decode(out)
			if err != nil {
				t.Fatalf("re-decode: %v", err)
			}
			if render(md.Map()) != render(md2.Map()) {
				t.Fatalf("cycle changed the metadata:\n%s\n%s", render(md.Map()), render(md2.Map()))
			}
		})
	})
}
