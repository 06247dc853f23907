// Package roundtrip holds the decode/print/encode round-trip check that the
// GFX9 and GFX12 fuzz targets run on every input.
package roundtrip

import (
	"bytes"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// Family is the part of an ISA family package the check exercises.
type Family struct {
	Decode func(b []byte, pc uint64, t isa.Target) (isa.Inst, error)
	Print  func(in *isa.Inst) string
	Encode func(in *isa.Inst) ([]byte, error)
}

// Check decodes b at pc 0x1000 for target. Bytes that do not decode pass;
// an instruction that does must have a size in 1..len(b), print, and encode
// back to exactly its bytes, or Check fails t.
func (fam Family) Check(t testing.TB, b []byte, target isa.Target) {
	t.Helper()
	in, err := fam.Decode(b, 0x1000, target)
	if err != nil {
		return
	}
	if int(in.Size) > len(b) || in.Size == 0 {
		t.Fatalf("size %d for %d bytes", in.Size, len(b))
	}
	_ = fam.Print(&in)
	out, err := fam.Encode(&in)
	if err != nil {
		t.Fatalf("%x decodes as %q but does not encode: %v", b[:in.Size], fam.Print(&in), err)
	}
	if !bytes.Equal(out, b[:in.Size]) {
		t.Fatalf("%x decodes as %q, re-encodes as %x", b[:in.Size], fam.Print(&in), out)
	}
}
