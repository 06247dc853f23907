package simcost

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/cost"
	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

func TestRunVectorAdd(t *testing.T) {
	root := projectpath.MustRoot(t)
	c, ok := kernelref.Lookup("vector_add")
	if !ok {
		t.Skip("no vector_add case")
	}
	img, err := os.ReadFile(filepath.Join(root, c.Object("gfx942")))
	if err != nil {
		t.Fatal(err)
	}
	counts, out, err := Run(&c, img, "gfx942")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Check(out); err != nil {
		t.Fatal(err)
	}
	if counts[cost.Memory] == 0 || counts[cost.VALU] == 0 || counts[cost.SALU] == 0 {
		t.Fatalf("counts %v: expected memory, VALU and SALU instructions", counts)
	}
	if _, _, err := Run(&c, []byte("not an object"), "gfx942"); err == nil {
		t.Fatal("a bad image ran")
	}
}

// TestMeasureMFMA: the 32x32x8 f16 MFMA kernel's one MFMA per wave weighs
// its 8 gfx942 passes, every other instruction one; the case's results
// match the reference.
func TestMeasureMFMA(t *testing.T) {
	c, ok := kernelref.Lookup("mfma_f32_32x32x8f16")
	if !ok {
		t.Fatal("no mfma_f32_32x32x8f16 case")
	}
	img, err := os.ReadFile(filepath.Join(projectpath.MustRoot(t), c.Object("gfx942")))
	if err != nil {
		t.Fatal(err)
	}
	m, out, err := Measure(&c, img, "gfx942")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Check(out); err != nil {
		t.Fatal(err)
	}
	n, mfma := m.Counts.Total(), m.Counts[cost.MFMA]
	if mfma == 0 || m.Passes != n-mfma+8*mfma {
		t.Fatalf("%v: %d passes, want %d", m.Counts, m.Passes, n-mfma+8*mfma)
	}
}
