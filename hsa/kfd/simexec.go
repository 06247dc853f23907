package kfd

import (
	"errors"
	"fmt"

	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/hsa/sim/mem"
)

// SimExecutor is the Executor of a simulated GPU: an hsa/sim agent whose
// address space is the GPU VM the driver builds over process memory.
type SimExecutor struct {
	// Agent runs the kernels.
	Agent *sim.Agent
	mem   *mem.Memory
}

// NewSimExecutor returns the simulator for target ("gfx942", "gfx950").
func NewSimExecutor(target string) (*SimExecutor, error) {
	m := mem.New()
	a, err := sim.NewAgentOn(target, m)
	if err != nil {
		return nil, err
	}
	return &SimExecutor{Agent: a, mem: m}, nil
}

// MapMemory implements Executor.
func (e *SimExecutor) MapMemory(va uint64, b []byte) error { return e.mem.Map(va, b) }

// UnmapMemory implements Executor.
func (e *SimExecutor) UnmapMemory(va uint64) error { return e.mem.Unmap(va) }

// Dispatch implements Executor: a memory fault comes back as a
// *MemoryFaultError.
func (e *SimExecutor) Dispatch(pkt []byte, pktAddr, queueAddr, dispatchID uint64) error {
	err := e.Agent.DispatchAQLOnQueue(pkt, pktAddr, queueAddr, dispatchID)
	if err == nil {
		return nil
	}
	var f *mem.Fault
	if errors.As(err, &f) {
		return &MemoryFaultError{Addr: f.Addr, Err: err}
	}
	return fmt.Errorf("kernel dispatch: %w", err)
}
