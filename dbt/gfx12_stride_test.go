package dbt

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
)

// TestGFX12BufferStride translates testdata/gfx12_stride.s (a raw V# with
// STRIDE 4, offen loads) for gfx1201: word3 becomes the raw gfx12 constant
// 0x30004000 (OOB_SELECT 3) as for STRIDE 0, since gfx9 range-checks an
// offen-only access by its byte offset; the guest on the simulated gfx950
// loads what that check says (lanes 0-3 in range), and the translation on
// the simulated gfx1201 stores the same bytes.
func TestGFX12BufferStride(t *testing.T) {
	guest := buildGuestFrom(t, filepath.Join("testdata", "gfx12_stride.s"))
	res, err := Translate(guest, Options{Name: "gfx12_stride", Host: isa.GFX1201})
	if err != nil {
		t.Fatal(err)
	}
	verifyObject12(t, "gfx12_stride", isa.GFX1201, guest, res.Object)
	path := filepath.Join(t.TempDir(), "out.co")
	if err := os.WriteFile(path, res.Object, 0o644); err != nil {
		t.Fatal(err)
	}
	dis, err := exec.Command(llvmtool.Require(t, llvmtool.Objdump), "-d", "--mcpu=gfx1201", "--mattr=+wavefrontsize64", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(dis, []byte("s_mov_b32 s7, 0x30004000")) {
		t.Errorf("the STRIDE-4 raw V# does not get word3 0x30004000:\n%s", dis)
	}
	in := make([]byte, 64)
	for i := range 16 {
		binary.LittleEndian.PutUint32(in[4*i:], uint32(0x100+i))
	}
	want := make([]byte, 256)
	for l := range 4 {
		binary.LittleEndian.PutUint32(want[4*l:], uint32(0x102+l))
	}
	run := func(image []byte, target string) []byte {
		a, err := sim.NewAgent(target)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := a.LoadCodeObject(image)
		if err != nil {
			t.Fatal(err)
		}
		k, err := ex.Kernel("kstride")
		if err != nil {
			t.Fatal(err)
		}
		ib, err := a.Alloc(64)
		if err != nil {
			t.Fatal(err)
		}
		ob, err := a.Alloc(256)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.CopyIn(ib, in); err != nil {
			t.Fatal(err)
		}
		if err := a.CopyIn(ob, make([]byte, 256)); err != nil {
			t.Fatal(err)
		}
		ka := binary.LittleEndian.AppendUint64(nil, uint64(ib))
		ka = binary.LittleEndian.AppendUint64(ka, uint64(ob))
		if err := a.Dispatch(k, [3]uint32{64, 1, 1}, [3]uint32{64, 1, 1}, ka); err != nil {
			t.Fatalf("kstride on %s: %v", target, err)
		}
		b := make([]byte, 256)
		if err := a.CopyOut(ob, b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	if got := run(guest, "gfx950"); !bytes.Equal(got, want) {
		t.Fatalf("the guest on the simulated gfx950 differs from the gfx9 range check at byte %d", firstDiff(got, want))
	}
	if got := run(res.Object, "gfx1201"); !bytes.Equal(got, want) {
		t.Errorf("the translation on the simulated gfx1201 differs from the guest at byte %d", firstDiff(got, want))
	}
}
