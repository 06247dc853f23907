package dbt

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// accMoves counts the v_accvgpr_read_b32 and v_accvgpr_write_b32 of a
// gfx942 object's .text.
func accMoves(t *testing.T, obj []byte) int {
	t.Helper()
	text := textOf(t, obj)
	n := 0
	for off := 0; off < len(text); {
		in, err := gfx9DecodeForTest(text[off:], uint64(off))
		if err != nil || in.Size == 0 {
			off += 4
			continue
		}
		if strings.HasPrefix(in.Name(), "v_accvgpr_") {
			n++
		}
		off += int(in.Size)
	}
	return n
}

// TestRenameAGPRs: the FP8 block-scale kernel's AGPRs (loads into them,
// FP8 MFMA A/B reads, one v_accvgpr_write of zero) become arch VGPRs for
// gfx942, so its translation moves nothing through AGPRs, says so in the
// report and leaves the caller's bytes alone; without the renaming the
// FP8 clearing reads and writes AGPRs; gfx1201 (AGPRs mapped to VGPRs
// anyway) is not renamed. Where not all fit (x128), some are. The translations run alike on the simulator in
// verify's TestAiterCorpus and the dbt simulator tests.
func TestRenameAGPRs(t *testing.T) {
	guest, err := os.ReadFile(projectpath.MustShared(t, "corpus", "aiter", "gfx950", "f8_block_scale_mi350_x32.co"))
	if err != nil {
		t.Fatal(err)
	}
	orig := slices.Clone(guest)
	res, err := Translate(guest, Options{Name: "x32"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(guest, orig) {
		t.Fatal("the translation changed the guest's bytes")
	}
	notes := strings.Join(res.Report.Kernels[0].Notes, "; ")
	if !strings.Contains(notes, "AGPRs renamed to arch VGPRs from v") {
		t.Errorf("no renaming note in %q", notes)
	}
	if n := accMoves(t, res.Object); n != 0 {
		t.Errorf("renamed: %d AGPR moves in the translation", n)
	}
	keep, err := Translate(guest, Options{Name: "x32", noAGPRRename: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := accMoves(t, keep.Object); n < 100 {
		t.Errorf("not renamed: only %d AGPR moves in the translation", n)
	}
	if a, b := len(textOf(t, res.Object)), len(textOf(t, keep.Object)); a >= b {
		t.Errorf("renamed translation's .text %d bytes, not shorter than %d", a, b)
	}
	// x128's 160 AGPRs do not all fit beside its 192 VGPRs: some groups
	// are renamed, the rest stay AGPRs.
	x128, err := os.ReadFile(projectpath.MustShared(t, "corpus", "aiter", "gfx950", "f8_block_scale_mi350_x128.co"))
	if err != nil {
		t.Fatal(err)
	}
	part, err := Translate(x128, Options{Name: "x128"})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := Translate(x128, Options{Name: "x128", noAGPRRename: true})
	if err != nil {
		t.Fatal(err)
	}
	if p, w := accMoves(t, part.Object), accMoves(t, whole.Object); p == 0 || p >= w {
		t.Errorf("x128: %d AGPR moves renamed in part, %d not renamed", p, w)
	}
	g12, err := Translate(guest, Options{Name: "x32", Host: isa.GFX1201})
	if err != nil {
		t.Fatal(err)
	}
	if notes := strings.Join(g12.Report.Kernels[0].Notes, "; "); strings.Contains(notes, "renamed") {
		t.Errorf("gfx1201: %q", notes)
	}
}
