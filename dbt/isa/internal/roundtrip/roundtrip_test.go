package roundtrip

import (
	"errors"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// recorder is a testing.TB whose Fatalf records the failure and stops the
// check by panicking with errFatal.
type recorder struct {
	testing.TB
	failed bool
}

var errFatal = errors.New("fatal")

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(string, ...any) {
	r.failed = true
	panic(errFatal)
}

// run calls fam.Check with r and stops at a Fatalf.
func (r *recorder) run(fam Family, b []byte) {
	defer func() {
		if v := recover(); v != nil && v != errFatal {
			panic(v)
		}
	}()
	fam.Check(r, b, isa.GFX942)
}

// fake decodes a 4-byte instruction whose first byte is its size field and
// encodes it back as the first 4 bytes with byte 0 replaced by enc0.
func fake(size uint8, enc0 byte, encErr error) Family {
	return Family{
		Decode: func(b []byte, pc uint64, t isa.Target) (isa.Inst, error) {
			if len(b) < 4 {
				return isa.Inst{}, errors.New("short")
			}
			return isa.Inst{Size: size}, nil
		},
		Print: func(*isa.Inst) string { return "x" },
		Encode: func(in *isa.Inst) ([]byte, error) {
			return []byte{enc0, 2, 3, 4}[:in.Size], encErr
		},
	}
}

func TestCheck(t *testing.T) {
	in := []byte{1, 2, 3, 4, 5}
	tests := []struct {
		name string
		fam  Family
		b    []byte
		fail bool
	}{
		{"round trip", fake(4, 1, nil), in, false},
		{"does not decode", fake(4, 1, nil), in[:3], false},
		{"zero size", fake(0, 1, nil), in, true},
		{"size past input", fake(8, 1, nil), []byte{1, 2, 3, 4}, true},
		{"exact size", fake(4, 1, nil), []byte{1, 2, 3, 4}, false},
		{"encode error", fake(4, 1, errors.New("no")), in, true},
		{"different bytes", fake(4, 9, nil), in, true},
	}
	for _, tc := range tests {
		r := &recorder{TB: t}
		r.run(tc.fam, tc.b)
		if r.failed != tc.fail {
			t.Errorf("%s: failed = %v, want %v", tc.name, r.failed, tc.fail)
		}
	}
}
