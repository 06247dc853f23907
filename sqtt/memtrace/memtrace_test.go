package memtrace

import (
	"bytes"
	"testing"
)

// TestPyQuote checks Python json.dumps string escaping (ensure_ascii, no
// HTML escaping).
func TestPyQuote(t *testing.T) {
	for in, want := range map[string]string{
		"k.hip:10":      `"k.hip:10"`,
		"a<b>&\"\\\n\t": `"a<b>&\"\\\n\t"`,
		"é\x01":         `"\u00e9\u0001"`,
		"😀":             `"\ud83d\ude00"`,
	} {
		if got := pyQuote(in); got != want {
			t.Errorf("pyQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestEmpty: no traces give "[]" and the upstream message.
func TestEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, nil); err != nil || b.String() != "[]\n" {
		t.Errorf("WriteJSON(nil) = %q %v", b.String(), err)
	}
	b.Reset()
	WriteSummary(&b, nil)
	if b.String() != "No address traces found.\n" {
		t.Errorf("summary %q", b.String())
	}
	tr := Trace{Kind: "load"}
	b.Reset()
	if err := WriteJSON(&b, []Trace{tr}); err != nil || !bytes.Contains(b.Bytes(), []byte(`"addresses": []`)) {
		t.Errorf("struct buffer JSON %s", b.String())
	}
}

// TestDeltas: distinct consecutive differences, ascending, exact beyond
// the int64 range (as Python's integers are).
func TestDeltas(t *testing.T) {
	for _, c := range []struct {
		in   []uint64
		want string
	}{
		{nil, "-"},
		{[]uint64{5}, "-"},
		{[]uint64{0, 4, 8, 4}, "-4,4"},
		{[]uint64{0xffffffffffffffff, 0, 0xffffffffffffffff}, "-18446744073709551615,18446744073709551615"},
		{[]uint64{10, 10, 7, 1 << 63}, "-3,0,9223372036854775801"},
	} {
		if got := deltas(c.in); got != c.want {
			t.Errorf("deltas(%#x) = %s, want %s", c.in, got, c.want)
		}
	}
}
