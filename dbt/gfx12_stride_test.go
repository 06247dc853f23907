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

// TestGFX12BufferStride translates testdata/gfx12_stride.s for gfx1201: a
// V# whose word1 sets STRIDE 4 gets the structured gfx12 check
// (OOB_SELECT 0: word3 0x20000 -> 0x00004000, llvm-objdump-19 shows it),
// the guest on the simulated gfx950 loads what the gfx9 range check says
// (even lanes in[2], odd lanes 0), and the translation on the simulated
// gfx1201 stores the same bytes. The V# of gfx12_stride_unknown.s, whose
// word1 comes from memory, is rejected (its STRIDE is unknown).
func TestGFX12BufferStride(t *testing.T) {
	unknown := buildGuestFrom(t, filepath.Join("testdata", "gfx12_stride_unknown.s"))
	res, err := Translate(unknown, Options{Name: "gfx12_stride_unknown", Host: isa.GFX1201})
	if err == nil {
		t.Fatal("a V# with word1 from memory translated")
	}
	if !rejectedFor(res, "V# word1 STRIDE in s5 is not known") {
		t.Fatalf("rejected for another reason: %v", err)
	}
	guest := buildGuestFrom(t, filepath.Join("testdata", "gfx12_stride.s"))
	res, err = Translate(guest, Options{Name: "gfx12_stride", Host: isa.GFX1201})
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
	if !bytes.Contains(dis, []byte("s_mov_b32 s7, 0x4000")) {
		t.Errorf("the STRIDE-4 V# does not get word3 0x4000 (OOB_SELECT 0):\n%s", dis)
	}
	in := make([]byte, 64)
	for i := range 16 {
		binary.LittleEndian.PutUint32(in[4*i:], uint32(0x100+i))
	}
	want := make([]byte, 256)
	for l := 0; l < 64; l += 2 {
		binary.LittleEndian.PutUint32(want[4*l:], 0x102)
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
