package metadata

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

func encodeMap(t *testing.T, m map[string]any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetSortMapKeys(true)
	if err := enc.Encode(m); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sample() map[string]any {
	return map[string]any{
		"amdhsa.version": []any{1, 2},
		"amdhsa.target":  "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-",
		"amdhsa.future":  map[string]any{"x": 1},
		"amdhsa.kernels": []any{map[string]any{
			".name": "k", ".symbol": "k.kd", ".vgpr_count": 12, ".sgpr_count": 20, ".agpr_count": 4,
			".kernarg_segment_size": 272, ".kernarg_segment_align": 8, ".wavefront_size": 64,
			".group_segment_fixed_size": 0, ".private_segment_fixed_size": 16, ".max_flat_workgroup_size": 256,
			".uses_dynamic_stack": false, ".reqd_workgroup_size": []any{256, 1, 1}, ".vendor_key": "kept",
			".args": []any{
				map[string]any{".name": "out", ".offset": 0, ".size": 8, ".value_kind": "global_buffer", ".address_space": "global", ".is_const": true, ".arg_vendor": 7},
				map[string]any{".offset": 8, ".size": 4, ".value_kind": "hidden_block_count_x"},
			},
		}},
	}
}

func TestDecodeTyped(t *testing.T) {
	md, err := Decode(encodeMap(t, sample()))
	if err != nil {
		t.Fatal(err)
	}
	if md.Target != "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-" || !reflect.DeepEqual(md.Version, []uint64{1, 2}) || len(md.Kernels) != 1 {
		t.Fatalf("root: %+v", md)
	}
	k := md.Kernels[0]
	if k.Name != "k" || k.VGPRCount != 12 || k.AGPRCount != 4 || k.KernargSegmentSize != 272 || k.PrivateSegmentFixedSize != 16 || k.WavefrontSize != 64 || !reflect.DeepEqual(k.ReqdWorkgroupSize, []uint64{256, 1, 1}) {
		t.Errorf("kernel: %+v", k)
	}
	if k.Extra[".vendor_key"] != "kept" || md.Extra["amdhsa.future"] == nil {
		t.Errorf("unknown keys lost: %v %v", k.Extra, md.Extra)
	}
	if len(k.Args) != 2 || k.Args[0].ValueKind != "global_buffer" || !k.Args[0].IsConst || k.Args[0].Hidden() || !k.Args[1].Hidden() || k.Args[0].Extra[".arg_vendor"] == nil {
		t.Errorf("args: %+v", k.Args)
	}
	if !k.Has(".uses_dynamic_stack") || k.Has(".language") {
		t.Error("presence tracking wrong")
	}
}

func TestEncodeKeepsEverything(t *testing.T) {
	in := encodeMap(t, sample())
	md, err := Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := md.Encode()
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	msgpack.Unmarshal(in, &a)
	msgpack.Unmarshal(out, &b)
	// Compare through a neutral rendering (integer widths may differ).
	if render(a) != render(b) {
		t.Errorf("re-encoded metadata differs:\n%s\n%s", render(a), render(b))
	}
	md.Kernels[0].VGPRCount = 40
	out2, _ := md.Encode()
	md2, _ := Decode(out2)
	if md2.Kernels[0].VGPRCount != 40 {
		t.Error("edit lost")
	}
	again, _ := md2.Encode()
	if !bytes.Equal(again, out2) {
		t.Error("encoding is not deterministic")
	}
}

// render prints a decoded value with sorted map keys and integers
// normalised, so that two encodings of the same metadata compare equal.
func render(v any) string {
	switch x := v.(type) {
	case map[string]any:
		var parts []string
		for _, k := range Keys(x) {
			parts = append(parts, k+":"+render(x[k]))
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []any:
		var parts []string
		for _, e := range x {
			parts = append(parts, render(e))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	rv := reflect.ValueOf(v)
	switch {
	case rv.CanInt():
		return fmt.Sprint(rv.Int())
	case rv.CanUint():
		return fmt.Sprint(rv.Uint())
	}
	return fmt.Sprintf("%v", v)
}

func TestRequiredKeysAlwaysWritten(t *testing.T) {
	md := &Metadata{Version: []uint64{1, 2}, Kernels: []Kernel{{Name: "k", Symbol: "k.kd", Args: []Arg{{Size: 8, ValueKind: ValueKindByValue}}}}}
	m := md.Map()
	k := m["amdhsa.kernels"].([]any)[0].(map[string]any)
	for _, key := range []string{".group_segment_fixed_size", ".private_segment_fixed_size", ".sgpr_count", ".kernarg_segment_size"} {
		if _, ok := k[key]; !ok {
			t.Errorf("%s missing", key)
		}
	}
	a := k[".args"].([]any)[0].(map[string]any)
	if _, ok := a[".offset"]; !ok {
		t.Error(".offset missing")
	}
	if _, ok := a[".name"]; ok {
		t.Error("empty .name written for an argument")
	}
}

func TestDecodeErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		b    []byte
		want string
	}{
		"empty":           {nil, "offset 0"},
		"huge array":      {[]byte{0x81, 0xa1, 'x', 0xdd, 0xff, 0xff, 0xff, 0xff}, "offset 3"},
		"huge string":     {[]byte{0x81, 0xa1, 'x', 0xdb, 0x7f, 0xff, 0xff, 0xff}, "offset 3"},
		"bad type byte":   {[]byte{0x81, 0xa1, 'x', 0xc1}, "0xc1"},
		"trailing":        {[]byte{0x80, 0x01}, "after the metadata"},
		"not a map":       {[]byte{0x01}, "want a map"},
		"wrong type":      {encodeMapBytes(map[string]any{"amdhsa.target": 5}), `"amdhsa.target"`},
		"kernel not map":  {encodeMapBytes(map[string]any{"amdhsa.kernels": []any{1}}), "amdhsa.kernels[0]"},
		"negative count":  {encodeMapBytes(map[string]any{"amdhsa.kernels": []any{map[string]any{".vgpr_count": -1}}}), ".vgpr_count"},
		"too deep nested": {bytes.Repeat([]byte{0x91}, 40), "nesting"},
	} {
		_, err := Decode(tc.b)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to mention %q", name, err, tc.want)
		}
	}
}

func encodeMapBytes(m map[string]any) []byte {
	b, _ := msgpack.Marshal(m)
	return b
}
