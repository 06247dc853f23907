package dbt

import (
	"encoding/binary"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/bitop3"
	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/loader/target"
)

// buildGuest assembles a gfx942 kernel from testdata/NAME.s with clang-19
// and ld.lld-19 and retargets it to gfx950 (machine bits only).
func buildGuest(t *testing.T, name string) []byte {
	t.Helper()
	return buildGuestFrom(t, filepath.Join("testdata", name+".s"))
}

// buildGuestFrom is buildGuest for an assembly file path.
func buildGuestFrom(t *testing.T, path string) []byte {
	t.Helper()
	clang := llvmtool.Require(t, llvmtool.Clang)
	lld := llvmtool.Require(t, llvmtool.LLD)
	dir := t.TempDir()
	obj, co := filepath.Join(dir, "k.o"), filepath.Join(dir, "k.co")
	if out, err := exec.Command(clang, "-x", "assembler", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-c", path, "-o", obj).CombinedOutput(); err != nil {
		t.Fatalf("clang: %v\\n%s", err, out)
	}
	if out, err := exec.Command(lld, "-shared", obj, "-o", co).CombinedOutput(); err != nil {
		t.Fatalf("ld.lld: %v\\n%s", err, out)
	}
	host, err := loader.Parse(readFile(t, co))
	if err != nil {
		t.Fatal(err)
	}
	gf, err := loader.Patch(host, loader.PatchSpec{Mach: target.MachGFX950})
	if err != nil {
		t.Fatal(err)
	}
	return gf.Raw()
}

// TestGetPCDataAfterText: a kernel reads a global in .data (after .text)
// through s_getpc_b64 + rel32 literals, and a gfx950 v_bitop3 expansion
// grows .text, which moves .data. The translated kernel, run on the
// simulated gfx942 agent, must still read the global.
func TestGetPCDataAfterText(t *testing.T) {
	guest := buildGuest(t, "global")
	res, err := Translate(guest, Options{Name: "global"})
	if err != nil {
		t.Fatalf("%v\\n%+v", err, res.Report)
	}
	verifyObject(t, "global", guest, res.Object)
	src, _ := loader.Parse(guest)
	out, _ := loader.Parse(res.Object)
	if out.Section(".data").Addr == src.Section(".data").Addr {
		t.Fatal(".data did not move; the test does not exercise the re-bias")
	}
	a, err := sim.NewAgent("gfx942")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := a.LoadCodeObject(res.Object)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ex.Kernel("k")
	if err != nil {
		t.Fatal(err)
	}
	buf, err := a.Alloc(4)
	if err != nil {
		t.Fatal(err)
	}
	ka := binary.LittleEndian.AppendUint64(nil, buf)
	if err := a.Dispatch(k, [3]uint32{64, 1, 1}, [3]uint32{64, 1, 1}, ka); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4)
	if err := a.CopyOut(buf, got); err != nil {
		t.Fatal(err)
	}
	// global.s: v1 = 0x0f0f0f0f, v2 = 0x00ff00ff, then the raw
	// v_bitop3_b32 words 0xd2340405 0x340a0501 (v5 = bitop3(v1, v2, v2),
	// table from ABS/NEG/OMOD), and the kernel stores gvar ^ v5.
	w0, w1 := uint32(0xd2340405), uint32(0x340a0501)
	lut := bitop3.LUT(uint8(w1>>29), uint8(w0>>8&7), uint8(w1>>27&3))
	v := map[uint32]uint32{257: 0x0f0f0f0f, 258: 0x00ff00ff}
	want := 0x12345678 ^ bitop3.Eval(lut, v[w1&0x1ff], v[w1>>9&0x1ff], v[w1>>18&0x1ff])
	if w := binary.LittleEndian.Uint32(got); w != want {
		t.Fatalf("stored %#x, want %#x", w, want)
	}
}
