package metadata

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// sameDecode reports whether two decodes are the same value: equal as Go
// values (types of generic values, nil against empty maps and slices,
// presence sets included), or, where a NaN makes that impossible, equal
// in every printed detail.
func sameDecode(a, b *Metadata) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	sa, sb := fmt.Sprintf("%#v", a), fmt.Sprintf("%#v", b)
	return strings.Contains(sa, "NaN") && sa == sb
}

// checkDirect fails t when the direct decode of the validated note b
// differs from the general one, or succeeds where the general one fails.
// It returns whether the direct decode applied.
func checkDirect(t *testing.T, name string, b []byte) bool {
	t.Helper()
	if Validate(b) != nil {
		return false
	}
	want, werr := decodeGeneric(b)
	got, ok := decodeDirect(b)
	if !ok {
		return false
	}
	if werr != nil {
		t.Fatalf("%s: the direct decode succeeds where the general one fails (%v)", name, werr)
	}
	if !sameDecode(got, want) {
		t.Fatalf("%s: direct decode differs:\n%#v\nwant\n%#v", name, got, want)
	}
	return true
}

// metadataNotes returns the NT_AMDGPU_METADATA descriptors of every code
// object under dir.
func metadataNotes(t testing.TB, dir string) map[string][]byte {
	notes := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".co") {
			return err
		}
		f, err := elf.Open(p)
		if err != nil {
			return nil // not an ELF file the standard reader takes
		}
		defer f.Close()
		for _, s := range f.Sections {
			if s.Type != elf.SHT_NOTE {
				continue
			}
			b, err := s.Data()
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			for len(b) >= 12 {
				namesz, descsz, typ := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:]), binary.LittleEndian.Uint32(b[8:])
				nameEnd := 12 + (uint64(namesz)+3)&^3
				descEnd := nameEnd + (uint64(descsz)+3)&^3
				if descEnd > uint64(len(b)) {
					break
				}
				if typ == 32 && bytes.HasPrefix(b[12:], []byte("AMDGPU\x00")) {
					notes[p] = b[nameEnd : nameEnd+uint64(descsz)]
				}
				b = b[descEnd:]
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return notes
}

// TestDirectDecodeMatchesGeneral decodes the metadata note of every
// committed and shared code object both ways: the direct decode must apply
// to each (they are what translation reads) and give the general decode's
// value.
func TestDirectDecodeMatchesGeneral(t *testing.T) {
	notes := metadataNotes(t, filepath.Join(projectpath.MustRoot(t), "testdata"))
	for p, b := range metadataNotes(t, projectpath.MustShared(t, "corpus")) {
		notes[p] = b
	}
	if len(notes) < 100 {
		t.Fatalf("only %d metadata notes found", len(notes))
	}
	for p, b := range notes {
		if !checkDirect(t, p, b) {
			t.Errorf("%s: the direct decode does not apply", p)
		}
	}
	t.Logf("%d notes", len(notes))
}

// TestDirectDecodeCases covers the value forms the corpus does not have:
// every integer width and sign, floats, nil, binaries, repeated keys,
// empty lists and maps, and forms the direct decode leaves to the general
// path (extension types, non-string keys, rejected values).
func TestDirectDecodeCases(t *testing.T) {
	enc := func(v any) []byte {
		var buf bytes.Buffer
		e := msgpack.NewEncoder(&buf)
		e.SetSortMapKeys(true)
		if err := e.Encode(v); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	kernel := func(extra map[string]any) map[string]any {
		k := map[string]any{".name": "k", ".symbol": "k.kd", ".vgpr_count": uint8(12)}
		for key, v := range extra {
			k[key] = v
		}
		return map[string]any{"amdhsa.version": []any{1, 2}, "amdhsa.kernels": []any{k}}
	}
	direct := []map[string]any{
		sample(),
		{},
		{"amdhsa.kernels": []any{}},
		{"amdhsa.kernels": []any{map[string]any{".args": []any{}}}},
		kernel(map[string]any{".sgpr_count": int8(5), ".agpr_count": int16(300), ".kernarg_segment_size": int32(70000), ".private_segment_fixed_size": int64(1 << 40)}),
		kernel(map[string]any{".sgpr_count": uint16(5), ".agpr_count": uint32(1 << 20), ".kernarg_segment_size": uint64(1 << 50), ".uses_dynamic_stack": int8(1), ".uniform_work_group_size": true}),
		kernel(map[string]any{".vendor": map[string]any{"f32": float32(1.5), "f64": 2.25, "nan": math.NaN(), "nil": nil, "neg": int8(-3), "big": int64(-1 << 40), "u": uint64(1 << 63), "list": []any{}, "m": map[string]any{}, "bin": []byte("xy")}}),
		kernel(map[string]any{".language_version": []any{}, ".reqd_workgroup_size": []any{uint16(256), int8(1), true}}),
		kernel(map[string]any{".args": []any{map[string]any{".size": 8, ".offset": 0, ".value_kind": "global_buffer", ".is_const": uint8(1), ".x": []any{nil}}}}),
	}
	for i, m := range direct {
		if !checkDirect(t, fmt.Sprint("case ", i), enc(m)) {
			t.Errorf("case %d: the direct decode does not apply", i)
		}
	}
	// A repeated key: the last value wins, on both paths.
	rep := []byte{0x82, 0xae}
	rep = append(rep, "amdhsa.kernels"...)
	rep = append(rep, 0x91, 0x80, 0xae)
	rep = append(rep, "amdhsa.kernels"...)
	rep = append(rep, 0x90)
	if !checkDirect(t, "repeated key", rep) {
		t.Error("repeated key: the direct decode does not apply")
	}
	if md, err := Decode(rep); err != nil || len(md.Kernels) != 0 {
		t.Errorf("repeated key: %v %v", md, err)
	}
	general := [][]byte{
		enc(map[string]any{"amdhsa.target": 5}),                                         // a string field holding a number
		enc(kernel(map[string]any{".vgpr_count": int8(-1)})),                            // negative count
		enc(kernel(map[string]any{".vgpr_count": 1.5})),                                 // float count
		enc(map[string]any{"amdhsa.kernels": map[string]any{}}),                         // not a list
		enc(map[string]any{"amdhsa.kernels": []any{5}}),                                 // an entry that is not a map
		enc(map[any]any{1: 2}),                                                          // a non-string key
		enc([]any{1}),                                                                   // root not a map
		{0x81, 0xa1, 'x', 0xd4, 0x01, 0x02},                                             // an extension type
		{0x81, 0xc0, 0x01},                                                              // a nil key
		enc(map[string]any{"amdhsa.version": []any{"a"}}),                               // list element of the wrong type
		enc(kernel(map[string]any{".reqd_workgroup_size": nil})),                        // nil for a list
		enc(map[string]any{"amdhsa.kernels": []any{map[string]any{".args": []any{1}}}}), // an argument that is not a map
	}
	for i, b := range general {
		if checkDirect(t, fmt.Sprint("general case ", i), b) {
			t.Errorf("general case %d: the direct decode applied", i)
		}
	}
}

// TestDecodeTakesDirectPath checks that Decode returns the direct decode
// where it applies: a note whose direct decode succeeds gives a value
// equal to decodeDirect's, and the general path's errors still reach the
// caller.
func TestDecodeTakesDirectPath(t *testing.T) {
	b := encodeMapBytes(sample())
	md, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := decodeDirect(b)
	if !ok || !reflect.DeepEqual(md, d) {
		t.Fatal("Decode does not give the direct decode")
	}
	if _, err := Decode(encodeMapBytes(map[string]any{"amdhsa.target": 5})); err == nil || !strings.Contains(err.Error(), "amdhsa.target") {
		t.Fatalf("error %v does not name the key", err)
	}
}

// BenchmarkDecodeNotes decodes the metadata notes of the aiter gfx950
// objects by the direct path (Decode) and by the general one, in the same
// run: the ratio of the two is the direct decode's gain.
func BenchmarkDecodeNotes(b *testing.B) {
	var notes [][]byte
	for _, n := range metadataNotes(b, projectpath.MustShared(b, "corpus", "aiter", "gfx950")) {
		notes = append(notes, n)
	}
	size := 0
	for _, n := range notes {
		size += len(n)
	}
	for _, c := range []struct {
		name   string
		decode func([]byte) (*Metadata, error)
	}{{"direct", Decode}, {"general", func(n []byte) (*Metadata, error) {
		if err := Validate(n); err != nil {
			return nil, err
		}
		return decodeGeneric(n)
	}}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for range b.N {
				for _, n := range notes {
					if _, err := c.decode(n); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// TestPresenceBits checks that every tagged field of the three structs has
// a presence bit below listBit, and that Has and MarkPresent agree for
// tagged keys, the list key and any other key.
func TestPresenceBits(t *testing.T) {
	for _, v := range []any{Metadata{}, Kernel{}, Arg{}} {
		if n := len(fieldsOf(reflect.TypeOf(v)).keys); n >= 63 {
			t.Fatalf("%T has %d tagged fields; presence bits hold 63", v, n)
		}
	}
	var k Kernel
	keys := []string{".name", ".vgpr_count", ".args", ".vendor", ""}
	for i, key := range keys {
		if k.Has(key) {
			t.Fatalf("%q present before MarkPresent", key)
		}
		k.MarkPresent(key)
		for _, prev := range keys[:i+1] {
			if !k.Has(prev) {
				t.Fatalf("%q not present after MarkPresent", prev)
			}
		}
		for _, next := range keys[i+1:] {
			if k.Has(next) {
				t.Fatalf("%q present after MarkPresent(%q)", next, key)
			}
		}
	}
	m := k.Map()
	if _, ok := m[".vgpr_count"]; !ok {
		t.Fatal("a zero field marked present is not written")
	}
	if _, ok := m[".args"]; !ok {
		t.Fatal("an empty .args list marked present is not written")
	}
}

// checkEncode fails t when the direct encoding of md differs from the
// general one (or fails where it succeeds); it returns whether the direct
// encoding applied.
func checkEncode(t *testing.T, name string, md *Metadata) bool {
	t.Helper()
	got, ok := encodeDirect(md)
	if !ok {
		return false
	}
	want, err := md.encodeGeneric()
	if err != nil {
		t.Fatalf("%s: the direct encoding succeeds where the general one fails (%v)", name, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: direct encoding differs:\n% x\nwant\n% x", name, got, want)
	}
	// The decoded form worked out without decoding must be the decode.
	b, d, err := md.EncodeDecoded()
	dec, decErr := Decode(want)
	if decErr != nil {
		if _, ok := decodedForm(md); ok || err != nil || d != nil {
			t.Fatalf("%s: a decoded form for bytes that do not decode (%v)", name, decErr)
		}
		return true
	}
	if err != nil || !bytes.Equal(b, want) {
		t.Fatalf("%s: EncodeDecoded: %v", name, err)
	}
	if !sameDecode(d, dec) {
		t.Fatalf("%s: EncodeDecoded's value differs from the decode:\n%#v\nwant\n%#v", name, d, dec)
	}
	if f, ok := decodedForm(md); ok && !sameDecode(f, dec) {
		t.Fatalf("%s: decoded form differs from the decode:\n%#v\nwant\n%#v", name, f, dec)
	}
	return true
}

// TestDirectEncodeMatchesGeneral encodes every corpus note's metadata,
// and each again with the changes translation makes (a new target, a
// grown VGPR count marked present), both ways: the bytes must be the
// same and the direct encoding must apply.
func TestDirectEncodeMatchesGeneral(t *testing.T) {
	notes := metadataNotes(t, filepath.Join(projectpath.MustRoot(t), "testdata"))
	for p, b := range metadataNotes(t, projectpath.MustShared(t, "corpus")) {
		notes[p] = b
	}
	for p, b := range notes {
		md, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if !checkEncode(t, p, md) {
			t.Errorf("%s: the direct encoding does not apply", p)
		}
		md.Target = "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"
		for i := range md.Kernels {
			md.Kernels[i].VGPRCount = 300
			md.Kernels[i].AGPRCount = 0
			md.Kernels[i].MarkPresent(".vgpr_count", ".agpr_count", ".workgroup_processor_mode")
		}
		if !checkEncode(t, p+" (changed)", md) {
			t.Errorf("%s (changed): the direct encoding does not apply", p)
		}
	}
}

// TestDirectEncodeCases covers the value forms and sizes the corpus does
// not have, and the forms left to the general encoder.
func TestDirectEncodeCases(t *testing.T) {
	long := strings.Repeat("x", 300)
	huge := strings.Repeat("y", 70000)
	md := &Metadata{
		Version: []uint64{1, 2, 127, 128, 255, 256, 65535, 65536, 1<<32 - 1, 1 << 32},
		Target:  long,
		Printf:  []string{"", "a", strings.Repeat("z", 31), strings.Repeat("z", 32), huge},
		Extra: map[string]any{
			"ints":   []any{int64(0), int64(-1), int64(-32), int64(-33), int64(-128), int64(-129), int64(-32768), int64(-32769), int64(math.MinInt32), int64(math.MinInt32) - 1, int64(math.MaxInt64)},
			"uints":  []any{uint64(0), uint64(127), uint64(128), uint64(math.MaxUint64), int64(127), int64(128)},
			"floats": []any{0.5, math.Inf(-1), math.NaN()},
			"misc":   []any{nil, true, false, "s", []any{}, map[string]any{}, []any(nil), map[string]any(nil)},
			"nested": map[string]any{"b": map[string]any{"z": int64(1), "a": []any{"q"}}, "a": long},
		},
	}
	for i := range 20 {
		md.Kernels = append(md.Kernels, Kernel{Name: fmt.Sprint("k", i), Symbol: fmt.Sprint("k", i, ".kd"), ReqdWorkgroupSize: []uint64{}, UsesDynamicStack: i%2 == 0})
	}
	wide := map[string]any{}
	for i := range 70 {
		wide[fmt.Sprint("key", i)] = int64(i)
	}
	md.Extra["wide"] = wide
	md.Kernels[3].Args = []Arg{{Name: "a", Size: 8, IsConst: true, Extra: map[string]any{".x": "y"}}, {}}
	md.Kernels[4].MarkPresent(".args", ".language")
	if !checkEncode(t, "cases", md) {
		t.Fatal("the direct encoding does not apply")
	}
	for name, extra := range map[string]any{"int": 5, "float32": float32(1), "bytes": []byte("b"), "map[any]any": map[any]any{1: 2}, "in a list": []any{int32(1)}} {
		c := *md
		c.Extra = map[string]any{"v": extra}
		if checkEncode(t, name, &c) {
			t.Errorf("%s: the direct encoding applied", name)
		}
		if _, err := c.Encode(); err != nil {
			t.Errorf("%s: Encode: %v", name, err)
		}
	}
	// Nesting at and beyond what Validate allows.
	for n := 25; n <= 33; n++ {
		var v any = int64(1)
		for range n {
			v = []any{v}
		}
		deep := map[string]any{"deep": v}
		for where, c := range map[string]*Metadata{
			"root":     {Extra: deep},
			"kernel":   {Kernels: []Kernel{{Name: "k", Extra: deep}}},
			"argument": {Kernels: []Kernel{{Name: "k", Args: []Arg{{Extra: deep}}}}},
		} {
			checkEncode(t, fmt.Sprint("depth ", n, " in ", where), c)
			_, ok := decodedForm(c)
			if _, err := Decode(encodeMapBytes(c.Map())); (err == nil) != ok {
				t.Errorf("depth %d in %s: decoded form %v, decode error %v", n, where, ok, err)
			}
		}
	}
	// The decoded form shares nothing with md.
	if _, d, err := md.EncodeDecoded(); err != nil {
		t.Fatal(err)
	} else {
		d.Version[0]++
		d.Kernels[3].Args[0].Extra[".x"] = "changed"
		d.Extra["nested"].(map[string]any)["a"] = "changed"
		if md.Version[0] != 1 || md.Kernels[3].Args[0].Extra[".x"] != "y" || md.Extra["nested"].(map[string]any)["a"] != long {
			t.Fatal("changing the decoded form changed md")
		}
	}
	c := *md
	c.Extra = map[string]any{"amdhsa.target": "shadow"}
	if checkEncode(t, "shadowing key", &c) {
		t.Error("shadowing key: the direct encoding applied")
	}
}

// BenchmarkEncodeNotes encodes the decoded metadata of the aiter gfx950
// objects by the direct path (Encode) and by the general one, in the same
// run.
func BenchmarkEncodeNotes(b *testing.B) {
	var mds []*Metadata
	for _, n := range metadataNotes(b, projectpath.MustShared(b, "corpus", "aiter", "gfx950")) {
		md, err := Decode(n)
		if err != nil {
			b.Fatal(err)
		}
		mds = append(mds, md)
	}
	for _, c := range []struct {
		name   string
		encode func(*Metadata) ([]byte, error)
	}{{"direct", (*Metadata).Encode}, {"general", (*Metadata).encodeGeneric}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				for _, md := range mds {
					if _, err := c.encode(md); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
