// Package simcost measures the dynamic cost of a kernel: it runs one
// internal/kernelref case on a simulated agent and counts the wave
// instructions executed, by execution class (dbt/cost). Running a guest
// and its translation on the same inputs gives the host/guest executed
// instruction ratio the translator's benchmarks and `rocjitsu translate
// --stats` report.
package simcost

import (
	"bytes"
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt/cost"
	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/internal/kernelref"
)

// Run loads image on a new simulated agent for target ("gfx942",
// "gfx950", ...), dispatches case c with its inputs and returns the
// executed wave instructions by class and the case's buffers after the
// dispatch (keyed by argument index, as kernelref.Case.Check takes them).
// Cases with dynamic LDS are not supported (the dispatch makes no
// group-segment request).
func Run(c *kernelref.Case, image []byte, target string) (cost.Counts, map[int][]byte, error) {
	var counts cost.Counts
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
	tc := &traceCounter{counts: &counts}
	a.Trace = tc
	if err := a.Dispatch(k, c.Grid, c.Block, ka); err != nil {
		return counts, nil, fmt.Errorf("simcost: case %s on %s: %w", c.Name, target, err)
	}
	if tc.bad > 0 {
		return counts, nil, fmt.Errorf("simcost: case %s on %s: %d trace lines did not parse", c.Name, target, tc.bad)
	}
	if n := counts.Total(); n != a.Stats.Instructions {
		return counts, nil, fmt.Errorf("simcost: case %s on %s: counted %d instructions, the agent executed %d", c.Name, target, n, a.Stats.Instructions)
	}
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

// traceCounter receives the agent's trace lines ("wave N OFFSET exec MASK
// MNEMONIC ...") and counts the mnemonics by class.
type traceCounter struct {
	counts *cost.Counts
	bad    int
	rest   []byte
}

// Write implements io.Writer; it accepts partial lines.
func (t *traceCounter) Write(p []byte) (int, error) {
	n := len(p)
	if len(t.rest) > 0 {
		p = append(t.rest, p...)
		t.rest = nil
	}
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if len(p) > 0 {
				t.rest = append([]byte(nil), p...)
			}
			return n, nil
		}
		t.line(p[:i])
		p = p[i+1:]
	}
}

func (t *traceCounter) line(l []byte) {
	// wave <id> <offset> exec <mask> <mnemonic>...
	f := bytes.Fields(l)
	if len(f) < 6 || string(f[0]) != "wave" || string(f[3]) != "exec" {
		t.bad++
		return
	}
	t.counts.Add(cost.Of(string(f[5])), 1)
}
