package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestFidelityWorse(t *testing.T) {
	cases := []struct{ a, b, want Fidelity }{
		{Exact, Exact, Exact},
		{Exact, Approximate, Approximate},
		{Approximate, Exact, Approximate},
		{Approximate, Rejected, Rejected},
		{Rejected, Exact, Rejected},
	}
	for _, c := range cases {
		if got := c.a.Worse(c.b); got != c.want {
			t.Errorf("%s.Worse(%s) = %s, want %s", c.a, c.b, got, c.want)
		}
	}
}

func TestTallyMergesAndRanks(t *testing.T) {
	var k Kernel
	k.Name = "k"
	k.Tally(Kind{Mnemonic: "v_add_u32", Action: Identity, Fidelity: Exact, Count: 2})
	k.Tally(Kind{Mnemonic: "v_add_u32", Action: Identity, Fidelity: Exact, Count: 3})
	if k.Fidelity != Exact || len(k.Kinds) != 1 || k.Kinds[0].Count != 5 {
		t.Fatalf("after identity tallies: %+v", k)
	}
	k.Tally(Kind{Mnemonic: "v_mfma_f32_16x16x32_f16", Action: Expand, Rule: "mfma-split", Fidelity: Approximate, Bound: "order", Count: 1})
	if k.Fidelity != Approximate {
		t.Fatalf("fidelity %s, want approximate", k.Fidelity)
	}
	k.Reject(Rejection{Offset: 0x20, Mnemonic: "v_prng_b32", Reason: "no rule"})
	k.Reject(Rejection{Offset: 0x10, Mnemonic: "v_prng_b32", Reason: "no rule"})
	k.Reject(Rejection{Offset: 0x10, Mnemonic: "v_prng_b32", Reason: "a reason"})
	k.Reject(Rejection{Offset: 0x10, Mnemonic: "v_prng_b32", Reason: "no rule"})
	k.Finish()
	if len(k.Rejections) != 3 || k.Rejections[0].Reason != "a reason" {
		t.Fatalf("rejections not sorted by offset and reason, or duplicates kept: %+v", k.Rejections)
	}
	if k.Fidelity != Rejected {
		t.Fatalf("fidelity %s, want rejected", k.Fidelity)
	}
	if k.Rejections[0].Offset != 0x10 {
		t.Fatalf("rejections not sorted: %+v", k.Rejections)
	}
	if k.Kinds[0].Mnemonic != "v_add_u32" {
		t.Fatalf("kinds not sorted: %+v", k.Kinds)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	o := Object{Name: "a.co", Guest: "gfx950", Host: "gfx942", Committed: true, SourceText: 100, HostText: 120}
	o.Kernels = []Kernel{{Name: "z"}, {Name: "a", NeedsVirtualLDS: true, Before: Resources{GroupSegment: 163840}}}
	o.Kernels[0].Tally(Kind{Mnemonic: "v_bitop3_b32", Action: Expand, Rule: "bitop3", Fidelity: Exact, Count: 4})
	o.Finish()
	if o.Kernels[0].Name != "a" {
		t.Fatalf("kernels not sorted")
	}
	b, err := MarshalIndent([]Object{o})
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := MarshalIndent(back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, b2) {
		t.Fatalf("round trip differs:\n%s\n%s", b, b2)
	}
	if !strings.Contains(string(b), `"needs_virtual_lds": true`) {
		t.Fatalf("missing needs_virtual_lds in %s", b)
	}
	var text bytes.Buffer
	if err := o.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "needs virtual LDS") || !strings.Contains(text.String(), "rule=bitop3") {
		t.Fatalf("text summary lacks details:\n%s", text.String())
	}
	if _, err := Unmarshal([]byte("{")); err == nil {
		t.Fatal("bad JSON accepted")
	}
}
