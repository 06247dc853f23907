package dbt

import (
	"encoding/binary"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/bitop3"
	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/loader"
)

// TestSharedHelperDuplicated: two kernels call one helper through
// s_getpc_b64/s_add/s_addc/s_swappc; the helper holds a gfx950-only
// v_bitop3. Each kernel scope gets its own translated copy of the helper,
// the calls are repaired, and both kernels compute the right value on the
// simulated gfx942 agent.
func TestSharedHelperDuplicated(t *testing.T) {
	guest := buildGuest(t, "shared_helper")
	res, err := Translate(guest, Options{Name: "shared_helper", Diff: true})
	if err != nil {
		t.Fatalf("%v\n%+v", err, res.Report)
	}
	verifyObject(t, "shared_helper", guest, res.Object)
	// The bitop3 is translated once per scope.
	n := 0
	for _, c := range res.Changes {
		if c.Guest[:12] == "v_bitop3_b32" {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("helper's v_bitop3 translated %d times, want 2 (one copy per kernel scope)", n)
	}
	for _, k := range res.Report.Kernels {
		if k.RecoveredIndirect != 1 {
			t.Fatalf("kernel %s: %d recovered indirect transfers, want 1", k.Name, k.RecoveredIndirect)
		}
	}
	w0, w1 := uint32(0xd2340405), uint32(0x340a0501)
	lut := bitop3.LUT(uint8(w1>>29), uint8(w0>>8&7), uint8(w1>>27&3))
	want := map[string]uint32{
		"k0": bitop3.Eval(lut, 0x0f0f0f0f, 0x00ff00ff, 0x00ff00ff),
		"k1": bitop3.Eval(lut, 0x12345678, 0x0000ffff, 0x0000ffff),
	}
	f, _ := loader.Parse(res.Object)
	if len(f.Kernels()) != 2 {
		t.Fatalf("%d kernels", len(f.Kernels()))
	}
	for name, w := range want {
		a, err := sim.NewAgent("gfx942")
		if err != nil {
			t.Fatal(err)
		}
		ex, err := a.LoadCodeObject(res.Object)
		if err != nil {
			t.Fatal(err)
		}
		k, err := ex.Kernel(name)
		if err != nil {
			t.Fatal(err)
		}
		buf, err := a.Alloc(4)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Dispatch(k, [3]uint32{64, 1, 1}, [3]uint32{64, 1, 1}, binary.LittleEndian.AppendUint64(nil, buf)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := make([]byte, 4)
		if err := a.CopyOut(buf, got); err != nil {
			t.Fatal(err)
		}
		if g := binary.LittleEndian.Uint32(got); g != w {
			t.Fatalf("%s stored %#x, want %#x", name, g, w)
		}
	}
}
