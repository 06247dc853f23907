package metadata

import (
	"bytes"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
)

// FuzzDecode checks that Decode never panics or over-allocates and that
// whatever decodes survives an Encode/Decode cycle unchanged.
func FuzzDecode(f *testing.F) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetSortMapKeys(true)
	if err := enc.Encode(sample()); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte{0x80})
	f.Add([]byte{0x81, 0xae, 'a', 'm', 'd', 'h', 's', 'a', '.', 'k', 'e', 'r', 'n', 'e', 'l', 's', 0x90})
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzguard.Run(t, b, func() {
			md, err := Decode(b)
			if err != nil {
				return
			}
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
