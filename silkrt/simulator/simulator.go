// Package simulator is the simulator provider of silkrt: the generic AQL
// provider (silkrt.AQL) on a simulated agent from hsa/sim, so that Silk
// bundle entries run without a GPU.
package simulator

import (
	"fmt"
	"strings"

	"github.com/rocjitsu/rocjitsu/hsa/aql"
	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/silkrt"
)

// simDevice adapts a simulated agent (hsa/sim) to silkrt.AQLDevice. Dispatch runs
// the kernel to completion before it returns.
type simDevice struct {
	agent   *sim.Agent
	kernels map[uint64]*sim.Kernel // by descriptor address
}

// New returns the simulator provider: an AQL provider called "sim" on a
// new hsa/sim agent for target ("gfx942" or "gfx950"). It needs no GPU.
func New(target string) (*silkrt.AQL, error) {
	a, err := sim.NewAgent(target)
	if err != nil {
		return nil, fmt.Errorf("silkrt: sim: %w", err)
	}
	return silkrt.NewAQL("sim", &simDevice{agent: a, kernels: map[uint64]*sim.Kernel{}}), nil
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
	d.kernels[k.KD] = k
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

// Wait returns nil: Dispatch runs each kernel to completion.
func (d *simDevice) Wait() error { return nil }

// Dispatch decodes the packet, reads its kernarg segment from device memory
// and runs the kernel on the agent.
func (d *simDevice) Dispatch(packet []byte) error {
	p, err := aql.DecodeKernelDispatchPacket(packet)
	if err != nil {
		return err
	}
	k, ok := d.kernels[p.KernelObject]
	if !ok {
		return fmt.Errorf("sim: kernel_object %#x is not a loaded kernel descriptor", p.KernelObject)
	}
	var kernarg []byte
	if p.KernargAddress != 0 && k.KernargSegmentSize > 0 {
		kernarg = make([]byte, k.KernargSegmentSize)
		if err := d.agent.CopyOut(p.KernargAddress, kernarg); err != nil {
			return fmt.Errorf("sim: kernarg segment: %w", err)
		}
	}
	dyn := uint32(0)
	if p.GroupSegmentSize > k.Desc.GroupSegmentFixedSize {
		dyn = p.GroupSegmentSize - k.Desc.GroupSegmentFixedSize
	}
	grid := [3]uint32{p.GridSizeX, p.GridSizeY, p.GridSizeZ}
	block := [3]uint32{uint32(p.WorkgroupSizeX), uint32(p.WorkgroupSizeY), uint32(p.WorkgroupSizeZ)}
	return d.agent.DispatchExt(k, grid, block, kernarg, dyn, p.PrivateSegmentSize)
}
