// Package simcost measures the dynamic cost of a kernel: it runs one
// internal/kernelref case on a simulated agent and counts the wave
// instructions executed, by execution class (dbt/cost). Running a guest
// and its translation on the same inputs gives the host/guest executed
// instruction ratio the translator's benchmarks and `rocjitsu translate
// --stats` report. The counts come from the simulated agent's counters
// (sim.Stats.Classes and Passes), not from its text trace.
package simcost

import (
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt/cost"
	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/internal/kernelref"
)

// Cost is what one run executed: the wave instructions by class and
// their weight in dbt/cost's issue-cycle model (MFMA passes on the run's
// target, one per other instruction; a model, not a cycle count).
type Cost struct {
	// Counts are the executed wave instructions by class.
	Counts cost.Counts
	// Passes is their weight in the issue-cycle model.
	Passes uint64
}

// Run is Measure without the issue-cycle weight.
func Run(c *kernelref.Case, image []byte, target string) (cost.Counts, map[int][]byte, error) {
	m, out, err := Measure(c, image, target)
	return m.Counts, out, err
}

// Measure loads image on a new simulated agent for target ("gfx942",
// "gfx950", ...), dispatches case c with its inputs and returns what it
// executed and the case's buffers after the dispatch (keyed by argument
// index, as kernelref.Case.Check takes them). Cases with dynamic LDS are
// not supported (the dispatch makes no group-segment request).
func Measure(c *kernelref.Case, image []byte, target string) (Cost, map[int][]byte, error) {
	var counts Cost
	if c.DynamicLDS() != 0 {
		return counts, nil, fmt.Errorf("simcost: case %s: dynamic LDS is not supported", c.Name)
	}
	a, err := sim.NewAgent(target)
	if err != nil {
		return counts, nil, fmt.Errorf("simcost: %w", err)
	}
	ex, err := a.LoadCodeObject(image)
	if err != nil {
		return counts, nil, fmt.Errorf("simcost: case %s on %s: %w", c.Name, target, err)
	}
	k, err := ex.Kernel(c.Name)
	if err != nil {
		return counts, nil, fmt.Errorf("simcost: case %s on %s: %w", c.Name, target, err)
	}
	addrs := map[int]uint64{}
	for _, i := range c.Buffers() {
		arg := c.Args[i]
		addr, err := a.Alloc(uint64(len(arg.Init)))
		if err != nil {
			return counts, nil, fmt.Errorf("simcost: case %s: argument %d: %w", c.Name, i, err)
		}
		if err := a.CopyIn(addr, arg.Init); err != nil {
			return counts, nil, fmt.Errorf("simcost: case %s: argument %d: %w", c.Name, i, err)
		}
		addrs[i] = addr
	}
	ka, err := c.Kernarg(addrs)
	if err != nil {
		return counts, nil, fmt.Errorf("simcost: case %s: %w", c.Name, err)
	}
	if err := a.Dispatch(k, c.Grid, c.Block, ka); err != nil {
		return counts, nil, fmt.Errorf("simcost: case %s on %s: %w", c.Name, target, err)
	}
	counts = Cost{Counts: a.Stats.Classes, Passes: a.Stats.Passes}
	out := map[int][]byte{}
	for i, addr := range addrs {
		b := make([]byte, len(c.Args[i].Init))
		if err := a.CopyOut(addr, b); err != nil {
			return counts, nil, fmt.Errorf("simcost: case %s: argument %d: %w", c.Name, i, err)
		}
		out[i] = b
	}
	return counts, out, nil
}
