package silkrt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
)

func sampleBundle() *Bundle {
	return &Bundle{
		Provider: ProviderHIP,
		Target:   942,
		Entries: []Entry{
			{Name: "fill", KernargSize: 16, CodeObject: append([]byte("\x7fELF"), bytes.Repeat([]byte{1}, 13)...)},
			{Name: "scale_é", KernargSize: 0, CodeObject: []byte("\x7fELF\x02\x01\x01\x40")},
			{Name: strings.Repeat("k", MaxEntryNameLen), KernargSize: 256, CodeObject: bytes.Repeat([]byte{0xab}, 1001)},
		},
	}
}

func TestBundleRoundTrip(t *testing.T) {
	for _, exeLen := range []int{0, 1, 7, 8, 4097} {
		exe := bytes.Repeat([]byte{0x55}, exeLen)
		in := sampleBundle()
		out, err := AppendBundle(exe, in)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out[:exeLen], exe) {
			t.Fatal("executable bytes changed")
		}
		got, loc, err := ParseBundle(out)
		if err != nil {
			t.Fatalf("exe %d bytes: %v", exeLen, err)
		}
		if loc.Start != int64(align8(exeLen)) || loc.End() != int64(len(out)) {
			t.Fatalf("location %+v for exe %d bytes, file %d", loc, exeLen, len(out))
		}
		if got.Provider != in.Provider || got.Target != in.Target || len(got.Entries) != len(in.Entries) {
			t.Fatalf("header: got %+v", got)
		}
		for i := range in.Entries {
			g, w := got.Entries[i], in.Entries[i]
			if g.Name != w.Name || g.KernargSize != w.KernargSize || !bytes.Equal(g.CodeObject, w.CodeObject) {
				t.Fatalf("entry %d: got %q %d %d bytes", i, g.Name, g.KernargSize, len(g.CodeObject))
			}
		}
		if e, ok := got.Entry("fill"); !ok || e.KernargSize != 16 {
			t.Fatal("Entry(fill)")
		}
		// Deterministic: writing the parsed bundle gives the same bytes.
		again, err := AppendBundle(exe, got)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("rewrite differs: %v", err)
		}
		if _, err := AppendBundle(out, in); err == nil {
			t.Fatal("appending a second bundle succeeded")
		}
	}
}

// TestBundleLayout pins the documented byte layout of a one-entry bundle.
func TestBundleLayout(t *testing.T) {
	b := &Bundle{Provider: ProviderCUDA, Target: 80, Entries: []Entry{{Name: "abc", KernargSize: 24, CodeObject: []byte{9, 8, 7}}}}
	img, err := b.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	want := []byte{}
	want = append(want, "SLKGPU\x00\x00"...)
	want = le.AppendUint32(want, 3)  // version
	want = le.AppendUint32(want, 2)  // provider cuda
	want = le.AppendUint32(want, 80) // target
	want = le.AppendUint32(want, 1)  // count
	want = le.AppendUint64(want, 0)  // reserved
	want = le.AppendUint32(want, 64) // name offset
	want = le.AppendUint32(want, 3)  // name size
	want = le.AppendUint32(want, 24) // kernarg size
	want = le.AppendUint32(want, 0)  // reserved
	want = le.AppendUint64(want, 72) // code offset
	want = le.AppendUint64(want, 3)  // code size
	want = append(want, "abc\x00\x00\x00\x00\x00"...)
	want = append(want, 9, 8, 7, 0, 0, 0, 0, 0)
	want = le.AppendUint64(want, 80) // trailing length
	want = append(want, "SLKGPEND"...)
	if !bytes.Equal(img, want) {
		t.Fatalf("layout:\n got %x\nwant %x", img, want)
	}
}

func TestBundleWriterRejects(t *testing.T) {
	tests := []struct {
		name string
		mod  func(b *Bundle)
		want string
	}{
		{"no entries", func(b *Bundle) { b.Entries = nil }, "no entries"},
		{"provider", func(b *Bundle) { b.Provider = 7 }, "unknown provider"},
		{"target", func(b *Bundle) { b.Target = 0 }, "target tag is 0"},
		{"empty name", func(b *Bundle) { b.Entries[0].Name = "" }, "empty name"},
		{"long name", func(b *Bundle) { b.Entries[0].Name = strings.Repeat("x", 256) }, "256 bytes"},
		{"NUL", func(b *Bundle) { b.Entries[0].Name = "a\x00b" }, "NUL"},
		{"utf8", func(b *Bundle) { b.Entries[0].Name = "\xff" }, "UTF-8"},
		{"duplicate", func(b *Bundle) { b.Entries[1].Name = "fill" }, "duplicate"},
		{"empty code", func(b *Bundle) { b.Entries[2].CodeObject = nil }, "empty code object"},
	}
	for _, tc := range tests {
		b := sampleBundle()
		tc.mod(b)
		_, err := b.MarshalBinary()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestBundleReaderErrors corrupts a valid file one field at a time; each
// corruption must be reported at the field's file offset.
func TestBundleReaderErrors(t *testing.T) {
	const exeLen = 100 // bundle starts at 104
	exe := bytes.Repeat([]byte{0x7f}, exeLen)
	good, err := AppendBundle(exe, sampleBundle())
	if err != nil {
		t.Fatal(err)
	}
	_, loc, err := ParseBundle(good)
	if err != nil {
		t.Fatal(err)
	}
	S := int(loc.Start)
	size := len(good)
	le := binary.LittleEndian
	rec := func(i, f int) int { return S + HeaderSize + EntrySize*i + f }
	entry0Name := int(le.Uint32(good[rec(0, entryNameOffset):]))
	entry1Code := le.Uint64(good[rec(1, entryCodeOffset):])
	tests := []struct {
		name   string
		mod    func(b []byte) []byte
		offset int
		field  string
		msg    string
	}{
		{"no footer", func(b []byte) []byte { return exe }, exeLen - 8, "footer", "want \"SLKGPEND\""},
		{"tiny file", func(b []byte) []byte { return b[:10] }, 0, "footer", "shorter than"},
		{"truncated front", func(b []byte) []byte { return b[S+8:] }, len(good) - S - 8 - 16, "length", "exceeds"},
		{"oversized length", func(b []byte) []byte { le.PutUint64(b[size-16:], 1<<40); return b }, size - 16, "length", "exceeds the"},
		{"length below header", func(b []byte) []byte { le.PutUint64(b[size-16:], 16); return b }, size - 16, "length", "shorter than the 32-byte header"},
		{"misaligned start", func(b []byte) []byte { return append([]byte{0}, b[:]...)[1:] }, -1, "", ""},
		{"length shifts start", func(b []byte) []byte { le.PutUint64(b[size-16:], le.Uint64(b[size-16:])+4); return b }, size - 16, "length", "not 8-byte aligned"},
		{"magic", func(b []byte) []byte { b[S] = 'X'; return b }, S, "magic", "want"},
		{"version 4", func(b []byte) []byte { le.PutUint32(b[S+8:], 4); return b }, S + 8, "version", "unsupported bundle version 4"},
		{"version 2", func(b []byte) []byte { le.PutUint32(b[S+8:], 2); return b }, S + 8, "version", "unsupported bundle version 2"},
		{"provider", func(b []byte) []byte { le.PutUint32(b[S+12:], 3); return b }, S + 12, "provider", "unknown provider 3"},
		{"target", func(b []byte) []byte { le.PutUint32(b[S+16:], 0); return b }, S + 16, "target", "target tag is 0"},
		{"count 0", func(b []byte) []byte { le.PutUint32(b[S+20:], 0); return b }, S + 20, "entry_count", "no entries"},
		{"count huge", func(b []byte) []byte { le.PutUint32(b[S+20:], 0xffffffff); return b }, S + 20, "entry_count", "past the bundle length"},
		{"header reserved", func(b []byte) []byte { b[S+24] = 1; return b }, S + 24, "reserved", "want 0"},
		{"entry reserved", func(b []byte) []byte { b[rec(1, entryReserved)] = 1; return b }, rec(1, entryReserved), "entry[1].reserved", "want 0"},
		{"name size 0", func(b []byte) []byte { le.PutUint32(b[rec(0, entryNameSize):], 0); return b }, rec(0, entryNameSize), "entry[0].name_size", "want 1..255"},
		{"name size 256", func(b []byte) []byte { le.PutUint32(b[rec(2, entryNameSize):], 256); return b }, rec(2, entryNameSize), "entry[2].name_size", "want 1..255"},
		{"name past end", func(b []byte) []byte { le.PutUint32(b[rec(0, entryNameOffset):], uint32(loc.Length)-2); return b }, rec(0, entryNameOffset), "entry[0].name_offset", "outside the data area"},
		{"name in table", func(b []byte) []byte { le.PutUint32(b[rec(0, entryNameOffset):], 4); return b }, rec(0, entryNameOffset), "entry[0].name_offset", "outside the data area"},
		{"name NUL", func(b []byte) []byte { b[S+entry0Name+1] = 0; return b }, S + entry0Name, "entry[0].name", "contains NUL"},
		{"duplicate name", func(b []byte) []byte { copy(b[rec(1, 0):rec(1, 8)], b[rec(0, 0):rec(0, 8)]); return b }, -1, "entry[1].name", "duplicate name \"fill\""},
		{"code size 0", func(b []byte) []byte { le.PutUint64(b[rec(1, entryCodeSize):], 0); return b }, rec(1, entryCodeSize), "entry[1].code_size", "empty code object"},
		{"code misaligned", func(b []byte) []byte { le.PutUint64(b[rec(1, entryCodeOffset):], entry1Code+1); return b }, rec(1, entryCodeOffset), "entry[1].code_offset", "not 8-byte aligned"},
		{"code oversized", func(b []byte) []byte { le.PutUint64(b[rec(2, entryCodeSize):], 1<<62); return b }, rec(2, entryCodeOffset), "entry[2].code_offset", "outside the data area"},
		{"code offset wraps", func(b []byte) []byte { le.PutUint64(b[rec(2, entryCodeOffset):], ^uint64(7)); return b }, rec(2, entryCodeOffset), "entry[2].code_offset", "outside the data area"},
		{"code overlaps code", func(b []byte) []byte {
			le.PutUint64(b[rec(1, entryCodeOffset):], le.Uint64(b[rec(0, entryCodeOffset):]))
			return b
		}, -1, "code_object", "overlaps entry"},
		{"code overlaps name", func(b []byte) []byte { le.PutUint64(b[rec(0, entryCodeOffset):], uint64(entry0Name)&^7); return b }, -1, "", "overlaps"},
		{"code overlaps table", func(b []byte) []byte { le.PutUint64(b[rec(0, entryCodeOffset):], 32); return b }, rec(0, entryCodeOffset), "entry[0].code_offset", "outside the data area"},
		{"names overlap", func(b []byte) []byte {
			le.PutUint32(b[rec(1, entryNameOffset):], uint32(entry0Name))
			le.PutUint32(b[rec(1, entryNameSize):], 2)
			b[S+entry0Name+1] = 'z'
			return b
		}, -1, "name", "overlaps entry[0].name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.mod(bytes.Clone(good))
			_, _, err := ParseBundle(b)
			if tc.name == "misaligned start" {
				// Shifting the whole file by one byte moves S off alignment.
				b = append([]byte{0}, good...)
				_, _, err = ParseBundle(b)
				var fe *FormatError
				if !errors.As(err, &fe) || fe.Field != "length" || !strings.Contains(fe.Msg, "not 8-byte aligned") {
					t.Fatalf("err %v", err)
				}
				return
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("err %v is not a *FormatError", err)
			}
			if tc.offset >= 0 && fe.Offset != int64(tc.offset) {
				t.Errorf("offset %d, want %d (%v)", fe.Offset, tc.offset, err)
			}
			if !strings.Contains(fe.Field, tc.field) || !strings.Contains(fe.Msg, tc.msg) {
				t.Errorf("err %v, want field %q msg %q", err, tc.field, tc.msg)
			}
		})
	}
	_, _, err = ParseBundle(exe)
	if !errors.Is(err, ErrNoBundle) {
		t.Fatalf("plain exe: %v", err)
	}
}

func TestParseTargetTag(t *testing.T) {
	for s, want := range map[string]uint32{"gfx942": 942, "gfx950": 950, "gfx1201": 1201, "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-": 942, "amdgcn-amd-amdhsa-gfx1151": 1151, "sm_80": 80, "942": 942} {
		if got, err := ParseTargetTag(s); err != nil || got != want {
			t.Errorf("%s: %d %v", s, got, err)
		}
	}
	for _, s := range []string{"gfx90a", "", "gfx", "gfx0"} {
		if _, err := ParseTargetTag(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

func FuzzParseBundle(f *testing.F) {
	good, _ := AppendBundle([]byte("\x7fELF exe"), sampleBundle())
	f.Add(good)
	one, _ := (&Bundle{Provider: ProviderHIP, Target: 950, Entries: []Entry{{Name: "k", CodeObject: []byte{1}}}}).MarshalBinary()
	f.Add(one)
	f.Add([]byte("SLKGPEND"))
	f.Add(append(make([]byte, 8), "SLKGPEND"...))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzguard.Run(t, data, func() {
			b, loc, err := ParseBundle(data)
			if err != nil {
				return
			}
			if loc.Start < 0 || loc.End() != int64(len(data)) {
				t.Fatalf("bad location %+v", loc)
			}
			// A bundle that parses must be writable and read back the same.
			out, err := AppendBundle(nil, b)
			if err != nil {
				t.Fatalf("parsed bundle does not re-marshal: %v", err)
			}
			b2, _, err := ParseBundle(out)
			if err != nil || len(b2.Entries) != len(b.Entries) {
				t.Fatalf("re-parse: %v", err)
			}
			for i := range b.Entries {
				if b.Entries[i].Name != b2.Entries[i].Name || !bytes.Equal(b.Entries[i].CodeObject, b2.Entries[i].CodeObject) {
					t.Fatalf("entry %d differs", i)
				}
			}
		})
	})
}
