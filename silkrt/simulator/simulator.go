// Package simulator is the simulator provider of silkrt: the generic AQL
// provider (silkrt.AQL) on a simulated agent from hsa/sim, so that Silk
// bundle entries run without a GPU.
package simulator

import (
	"fmt"
	"strings"

	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/silkrt"
)

// simDevice adapts a simulated agent (hsa/sim) to silkrt.AQLDevice: packets
// go through one of the agent's AQL queues, which runs each kernel to
// completion when the packet is submitted.
type simDevice struct {
	agent *sim.Agent
	queue *sim.Queue
}

// queueSize is the ring size of the simulator queue, in packets.
const queueSize = 64

// New returns the simulator provider: an AQL provider called "sim" on a
// new hsa/sim agent for target ("gfx942" or "gfx950"). It needs no GPU.
func New(target string) (*silkrt.AQL, error) {
	a, err := sim.NewAgent(target)
	if err != nil {
		return nil, fmt.Errorf("silkrt: sim: %w", err)
	}
	q, err := a.NewQueue(queueSize)
	if err != nil {
		return nil, fmt.Errorf("silkrt: sim: %w", err)
	}
	return silkrt.NewAQL("sim", &simDevice{agent: a, queue: q}), nil
}

// Agent returns the simulated agent behind a provider made by New (for
// statistics), or nil for any other provider.
func Agent(p silkrt.Provider) *sim.Agent {
	if a, ok := p.(*silkrt.AQL); ok {
		if d, ok := a.Device().(*simDevice); ok {
			return d.agent
		}
	}
	return nil
}

// LoadKernel loads the code object on the agent and returns the
// descriptor address of the kernel named by symbol.
func (d *simDevice) LoadKernel(code []byte, symbol string) (uint64, error) {
	ex, err := d.agent.LoadCodeObject(code)
	if err != nil {
		return 0, err
	}
	k, err := ex.Kernel(strings.TrimSuffix(symbol, ".kd"))
	if err != nil {
		return 0, err
	}
	return k.KD, nil
}

// Alloc allocates zeroed, 256-byte-aligned agent memory.
func (d *simDevice) Alloc(size uint64) (uint64, error) { return d.agent.Alloc(size) }

// Free releases agent memory.
func (d *simDevice) Free(addr uint64) error { return d.agent.Free(addr) }

// Write copies p to agent memory.
func (d *simDevice) Write(addr uint64, p []byte) error { return d.agent.CopyIn(addr, p) }

// Read copies agent memory into p.
func (d *simDevice) Read(addr uint64, p []byte) error { return d.agent.CopyOut(addr, p) }

// Dispatch submits the packet to the agent's queue; the kernel reads the
// kernarg segment the provider wrote, hidden arguments included. A packet
// that fails leaves its queue stopped at that packet, as a faulted HSA
// queue is, so the device replaces the queue with a new one.
func (d *simDevice) Dispatch(packet []byte) error {
	err := d.queue.Submit(packet)
	if err != nil {
		if q, qerr := d.agent.NewQueue(queueSize); qerr == nil {
			d.queue = q
		}
	}
	return err
}

// Wait returns nil: a submitted packet has completed when Dispatch returns.
func (d *simDevice) Wait() error { return nil }
