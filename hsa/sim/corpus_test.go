package sim

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// runCase runs one kernelref case's object on an agent for target and
// returns every buffer's final bytes.
func runCase(t testing.TB, c *kernelref.Case, objTarget, target string) (map[int][]byte, *Agent, error) {
	root := projectpath.MustRoot(t)
	image, err := os.ReadFile(filepath.Join(root, c.Object(objTarget)))
	if err != nil {
		return nil, nil, err
	}
	return runImage(t, c, image, c.Object(objTarget), target)
}

// runImage runs one kernelref case's code object image (named name in
// messages) on an agent for target and returns every buffer's final bytes.
func runImage(t testing.TB, c *kernelref.Case, image []byte, name, target string) (map[int][]byte, *Agent, error) {
	a, err := NewAgent(target)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := a.LoadCodeObject(image)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	k, err := ex.Kernel(c.Name)
	if err != nil {
		t.Fatal(err)
	}
	addrs := map[int]uint64{}
	for _, i := range c.Buffers() {
		arg := c.Args[i]
		addr, err := a.Alloc(uint64(len(arg.Init)))
		if err != nil {
			t.Fatal(err)
		}
		if err := a.CopyIn(addr, arg.Init); err != nil {
			t.Fatal(err)
		}
		addrs[i] = addr
	}
	ka, err := c.Kernarg(addrs)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.DispatchExt(k, c.Grid, c.Block, ka, c.DynamicLDS(), 0); err != nil {
		return nil, a, err
	}
	out := map[int][]byte{}
	for i, addr := range addrs {
		b := make([]byte, len(c.Args[i].Init))
		if err := a.CopyOut(addr, b); err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out, a, nil
}

// TestCorpus runs every kernel of testdata/kernels built for a gfx9 target
// and compares its buffers with the Go CPU reference of internal/kernelref.
// The gfx950-retargeted objects and the gfx950-only guests run with
// gfx950 semantics.
func TestCorpus(t *testing.T) {
	cases := kernelref.AllCases()
	ran := 0
	for _, target := range []string{"gfx942", "gfx950"} {
		for i := range cases {
			c := &cases[i]
			if !c.HasTarget(target) {
				continue
			}
			t.Run(target+"/"+c.Name, func(t *testing.T) {
				out, _, err := runCase(t, c, target, target)
				if os.IsNotExist(err) {
					t.Skipf("%s is not built yet", c.Object(target))
				}
				if err != nil {
					t.Fatal(err)
				}
				if err := c.Check(out); err != nil {
					t.Fatal(err)
				}
				ran++
			})
		}
	}
	if ran == 0 {
		t.Fatal("no corpus kernel ran")
	}
}
