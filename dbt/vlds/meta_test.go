package vlds

import (
	"encoding/binary"
	"errors"
	"reflect"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
)

func sampleSection() *Section {
	return &Section{HostLDS: 65536, Entries: []Entry{
		{Normal: 0x1000, Sidecar: 0x5040, StaticLDS: 163840, Private: 16, Wrapper: Layout(20), Flags: FlagWorkgroupIDX},
		{Normal: 0x1040, Sidecar: 0x5080, StaticLDS: 98304, Wrapper: Layout(264), Flags: FlagWorkgroupIDX | FlagWorkgroupIDZ},
	}}
}

func TestSectionRoundTrip(t *testing.T) {
	s := sampleSection()
	b := s.Marshal()
	if len(b) != HeaderSize+2*EntrySize {
		t.Fatalf("%d bytes", len(b))
	}
	got, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, s)
	}
	e, ok := got.Lookup(0x1040)
	if !ok || e.Sidecar != 0x5080 {
		t.Fatalf("Lookup = %+v %v", e, ok)
	}
	if _, ok := got.Lookup(0x2000); ok {
		t.Fatal("Lookup of an unmapped descriptor succeeded")
	}
	empty, err := Parse((&Section{HostLDS: 65536}).Marshal())
	if err != nil || len(empty.Entries) != 0 {
		t.Fatalf("empty section: %v %+v", err, empty)
	}
}

// TestParseErrors corrupts one field at a time; each must be reported at
// its offset with its name.
func TestParseErrors(t *testing.T) {
	le := binary.LittleEndian
	cases := []struct {
		name  string
		edit  func(b []byte) []byte
		off   int
		field string
	}{
		{"short", func(b []byte) []byte { return b[:10] }, 0, "header"},
		{"magic", func(b []byte) []byte { b[0] ^= 1; return b }, 0, "magic"},
		{"version", func(b []byte) []byte { le.PutUint16(b[4:], 2); return b }, 4, "version"},
		{"header size", func(b []byte) []byte { le.PutUint16(b[6:], 32); return b }, 6, "header_size"},
		{"entry size", func(b []byte) []byte { le.PutUint16(b[8:], 48); return b }, 8, "entry_size"},
		{"reserved16", func(b []byte) []byte { b[10] = 1; return b }, 10, "reserved"},
		{"count", func(b []byte) []byte { le.PutUint32(b[12:], 3); return b }, 12, "count"},
		{"truncated", func(b []byte) []byte { return b[:len(b)-1] }, 12, "count"},
		{"huge count", func(b []byte) []byte { le.PutUint32(b[12:], 0xffffffff); return b }, 12, "count"},
		{"host lds", func(b []byte) []byte { le.PutUint32(b[16:], 0); return b }, 16, "host_lds"},
		{"reserved32", func(b []byte) []byte { b[21] = 1; return b }, 20, "reserved"},
		{"normal", func(b []byte) []byte { le.PutUint64(b[24:], 0x1001); return b }, 24, "normal_kd"},
		{"duplicate", func(b []byte) []byte { le.PutUint64(b[88:], 0x1000); return b }, 88, "normal_kd"},
		{"sidecar", func(b []byte) []byte { le.PutUint64(b[32:], 0); return b }, 32, "sidecar_kd"},
		{"orig ptr", func(b []byte) []byte { le.PutUint32(b[52:], 16); return b }, 52, "orig_kernarg_offset"},
		{"state", func(b []byte) []byte { le.PutUint32(b[56:], 40); return b }, 56, "state_offset"},
		{"wrapper size", func(b []byte) []byte { le.PutUint32(b[60:], 40); return b }, 60, "wrapper_size"},
		{"flags", func(b []byte) []byte { le.PutUint32(b[64:], 8); return b }, 64, "flags"},
		{"entry reserved", func(b []byte) []byte { b[24+63] = 1; return b }, 87, "reserved"},
	}
	for _, c := range cases {
		b := c.edit(sampleSection().Marshal())
		_, err := Parse(b)
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Errorf("%s: error %v, want a FieldError", c.name, err)
			continue
		}
		if fe.Offset != c.off || fe.Field != c.field {
			t.Errorf("%s: got offset %d field %s (%v), want offset %d field %s", c.name, fe.Offset, fe.Field, err, c.off, c.field)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(sampleSection().Marshal())
	f.Add((&Section{HostLDS: 65536}).Marshal())
	f.Add([]byte("RJVL"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzguard.Run(t, b, func() {
			s, err := Parse(b)
			if err != nil {
				var fe *FieldError
				if !errors.As(err, &fe) || fe.Offset < 0 || fe.Offset > len(b) {
					t.Fatalf("error %v has no valid field offset", err)
				}
				return
			}
			// A parsed section re-encodes to the same bytes.
			if got := s.Marshal(); string(got) != string(b) {
				t.Fatalf("re-encoding differs")
			}
		})
	})
}
