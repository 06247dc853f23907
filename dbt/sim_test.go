package dbt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// runOnSim runs one kernelref case from image on a simulated agent for
// target and returns the buffers.
func runOnSim(t *testing.T, c *kernelref.Case, image []byte, target string) (map[int][]byte, error) {
	t.Helper()
	a, err := sim.NewAgent(target)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := a.LoadCodeObject(image)
	if err != nil {
		return nil, err
	}
	k, err := ex.Kernel(c.Name)
	if err != nil {
		return nil, err
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
	if err := a.Dispatch(k, c.Grid, c.Block, ka); err != nil {
		return nil, err
	}
	out := map[int][]byte{}
	for i, addr := range addrs {
		b := make([]byte, len(c.Args[i].Init))
		if err := a.CopyOut(addr, b); err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out, nil
}

// TestTranslatedKernelsOnSimulator translates every gfx950 test kernel
// (including the gfx950_* kernels that exercise the expansion rules:
// v_bitop3, v_cvt_pk_bf16_f32, v_cvt_f32_bf16, the MFMA splits and the
// permlane swaps) and runs the result on the simulated gfx942 agent; the
// memory image must match the CPU reference of internal/kernelref.
func TestTranslatedKernelsOnSimulator(t *testing.T) {
	testOnSimulator(t, Options{})
}

// TestSpilledExpansionsOnSimulator is the same with every scratch register
// borrowed from live registers and saved to per-lane private memory around
// its expansion: the results must not change.
func TestSpilledExpansionsOnSimulator(t *testing.T) {
	testOnSimulator(t, Options{forceSpill: true})
}

// TestSharedExpansionsOnSimulator is the same with every expansion that
// has a subroutine form (v_cvt_pk_bf16_f32, the transposed LDS reads, the
// scaled MFMAs) called as a per-kernel subroutine even from its only use.
func TestSharedExpansionsOnSimulator(t *testing.T) {
	if n := testOnSimulator(t, Options{forceShared: true}); n < 1 {
		t.Fatalf("%d test kernels call a subroutine", n)
	}
}

// testOnSimulator runs the cases with the translation options opt and
// returns how many translations call subroutines.
func testOnSimulator(t *testing.T, opt Options) int {
	root := projectpath.MustRoot(t)
	cases := kernelref.AllCases()
	ran, shared := 0, 0
	for i := range cases {
		c := &cases[i]
		if !c.HasTarget("gfx950") || c.DynamicLDS() != 0 {
			continue // dynamic LDS needs a group-segment request runOnSim does not make
		}
		t.Run(c.Name, func(t *testing.T) {
			guest, err := os.ReadFile(filepath.Join(root, c.Object("gfx950")))
			if err != nil {
				t.Fatal(err)
			}
			o := opt
			o.Name = c.Name
			res, err := Translate(guest, o)
			if checkExpectedRejection(t, c.Object("gfx950"), res, err) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			out, err := runOnSim(t, c, res.Object, "gfx942")
			if err != nil {
				t.Fatalf("running the translation on gfx942: %v", err)
			}
			if err := c.Check(out); err != nil {
				t.Fatalf("translated %s on gfx942: %v", c.Name, err)
			}
			ran++
			if strings.Contains(fmt.Sprint(res.Report), "per-kernel subroutines") {
				shared++
			}
		})
	}
	if ran == 0 {
		t.Fatal("no kernel ran")
	}
	return shared
}
