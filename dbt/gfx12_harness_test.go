package dbt

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
)

// translate12 builds testdata/NAME.s as a gfx950 guest, translates it for
// gfx1201 (failing with the report when it is rejected), checks the output
// with verifyObject12 and returns the guest, the translation and
// llvm-objdump-19's wave64 listing of it.
func translate12(t *testing.T, name string) (guest []byte, res *Result, dis []byte) {
	t.Helper()
	guest = buildGuest(t, name)
	res, err := Translate(guest, Options{Name: name, Host: isa.GFX1201})
	if err != nil {
		var b strings.Builder
		if res != nil {
			res.Report.WriteText(&b)
		}
		t.Fatalf("%v\n%s", err, b.String())
	}
	verifyObject12(t, name, isa.GFX1201, guest, res.Object)
	path := filepath.Join(t.TempDir(), "out.co")
	if err := os.WriteFile(path, res.Object, 0o644); err != nil {
		t.Fatal(err)
	}
	dis, err = exec.Command(llvmtool.Require(t, llvmtool.Objdump), "-d", "--mcpu=gfx1201", "--mattr=+wavefrontsize64", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	return guest, res, dis
}

// runBuffers runs kernel of image on a simulated target as one workgroup of
// 64 lanes whose kernarg is one pointer per buffer of bufs, in order: each
// buffer is copied in before the dispatch and its content after it is
// returned in the same place.
func runBuffers(t *testing.T, image []byte, target, kernel string, bufs ...[]byte) [][]byte {
	t.Helper()
	a, err := sim.NewAgent(target)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := a.LoadCodeObject(image)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ex.Kernel(kernel)
	if err != nil {
		t.Fatal(err)
	}
	var ka []byte
	addrs := make([]uint64, len(bufs))
	for i, b := range bufs {
		p, err := a.Alloc(uint64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		if err := a.CopyIn(p, b); err != nil {
			t.Fatal(err)
		}
		addrs[i] = p
		ka = binary.LittleEndian.AppendUint64(ka, p)
	}
	if err := a.Dispatch(k, [3]uint32{64, 1, 1}, [3]uint32{64, 1, 1}, ka); err != nil {
		t.Fatalf("%s on %s: %v", kernel, target, err)
	}
	out := make([][]byte, len(bufs))
	for i, b := range bufs {
		out[i] = make([]byte, len(b))
		if err := a.CopyOut(addrs[i], out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
