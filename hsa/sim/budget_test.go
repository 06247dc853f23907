package sim

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// loadCase loads a kernelref case's gfx942 object on a new agent.
func loadCase(t *testing.T, name string) (*Agent, *Kernel, *kernelref.Case) {
	t.Helper()
	c, ok := kernelref.Lookup(name)
	if !ok {
		t.Fatalf("no case %s", name)
	}
	image, err := os.ReadFile(filepath.Join(projectpath.MustRoot(t), c.Object("gfx942")))
	if err != nil {
		t.Skip(err)
	}
	a, err := NewAgent("gfx942")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := a.LoadCodeObject(image)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ex.Kernel(c.Name)
	if err != nil {
		t.Fatal(err)
	}
	return a, k, &c
}

// TestBudgetAndWriteLog: a dispatch over its Budget stops with a
// *TimeoutError that counts the instructions run; WriteLog sees every
// store of the output buffer with the offset of a store instruction.
func TestBudgetAndWriteLog(t *testing.T) {
	a, k, c := loadCase(t, "vector_add")
	addrs := map[int]uint64{}
	for _, i := range c.Buffers() {
		addr, err := a.Alloc(uint64(len(c.Args[i].Init)))
		if err != nil || a.CopyIn(addr, c.Args[i].Init) != nil {
			t.Fatal(err)
		}
		addrs[i] = addr
	}
	ka, err := c.Kernarg(addrs)
	if err != nil {
		t.Fatal(err)
	}
	a.Budget = 5
	err = a.Dispatch(k, c.Grid, c.Block, ka)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Executed != 5 {
		t.Fatalf("want a timeout after 5 instructions, got %v", err)
	}
	a.Budget = 0
	pcs := map[uint64]bool{}
	bytes := 0
	a.WriteLog = func(pc, addr uint64, size int) { pcs[pc] = true; bytes += size }
	if err := a.Dispatch(k, c.Grid, c.Block, ka); err != nil {
		t.Fatal(err)
	}
	if len(pcs) != 1 || bytes == 0 {
		t.Fatalf("write log: pcs %v, %d bytes", pcs, bytes)
	}
	if a.Mem.WriteHooked() {
		t.Fatal("write hook left installed")
	}
}
