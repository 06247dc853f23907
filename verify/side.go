package verify

import (
	"encoding/binary"
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt/cost"
	"github.com/rocjitsu/rocjitsu/dbt/vlds"
	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/hsa/sim/mem"
	"github.com/rocjitsu/rocjitsu/loader/kd"
)

// side is one run: an agent over its own paged memory, the loaded object
// and kernel, and what the run wrote.
type side struct {
	agent *sim.Agent
	mem   *mem.Memory
	pager *mem.Pager
	ex    *sim.Executable
	k     *sim.Kernel
	// writer maps every pager-window word written to the code-object
	// offset of the instruction that last wrote it.
	writer map[uint64]uint64
	// executed, classes and passes are what the last dispatch ran: its
	// instructions, those by dbt/cost class and their weight in the
	// issue-cycle model (sim.Stats).
	executed uint64
	classes  cost.Counts
	passes   uint64
}

// newSide loads image on a new agent for target whose memory is paged by
// p, with an instruction budget per dispatch.
func newSide(target string, image []byte, kernel string, p *mem.Pager, budget uint64) (*side, error) {
	m := mem.New()
	m.SetPager(p)
	a, err := sim.NewAgentOn(target, m)
	if err != nil {
		return nil, err
	}
	a.Budget = budget
	ex, err := a.LoadCodeObject(image)
	if err != nil {
		return nil, err
	}
	k, err := ex.Kernel(kernel)
	if err != nil {
		return nil, err
	}
	s := &side{agent: a, mem: m, pager: p, ex: ex, k: k, writer: map[uint64]uint64{}}
	a.WriteLog = func(pc, addr uint64, size int) {
		if addr < PagerLo || addr >= PagerHi {
			return
		}
		for w := addr &^ 3; w < addr+uint64(size); w += 4 {
			s.writer[w] = pc
		}
	}
	return s, nil
}

// sidecarRun asks a host dispatch to run the kernel's virtual-LDS sidecar.
type sidecarRun struct {
	entry vlds.Entry
}

// dispatch runs the kernel over grid in workgroups of block with the
// explicit arguments ka (through the sidecar sc when set).
func (s *side) dispatch(grid, block [3]uint32, ka []byte, dyn uint32, sc *sidecarRun) error {
	before := s.agent.Stats
	defer func() {
		after := s.agent.Stats
		s.executed, s.passes = after.Instructions-before.Instructions, after.Passes-before.Passes
		for c := range s.classes {
			s.classes[c] = after.Classes[c] - before.Classes[c]
		}
	}()
	if sc == nil {
		return s.agent.DispatchExt(s.k, grid, block, ka, dyn, 0)
	}
	return s.dispatchSidecar(grid, block, ka, dyn, sc.entry)
}

// dispatchSidecar runs the sidecar of entry e: the original kernarg
// segment in memory, a backing store of one LDS slice per workgroup and
// the kernarg wrapper the sidecar's prologue reads.
func (s *side) dispatchSidecar(grid, block [3]uint32, ka []byte, dyn uint32, e vlds.Entry) error {
	a, ex, k := s.agent, s.ex, s.k
	raw := make([]byte, kd.Size)
	if err := a.CopyOut(ex.Base+e.Sidecar, raw); err != nil {
		return fmt.Errorf("sidecar descriptor: %w", err)
	}
	d, err := kd.Decode(raw)
	if err != nil {
		return fmt.Errorf("sidecar descriptor: %w", err)
	}
	le := binary.LittleEndian
	sk := &sim.Kernel{Name: k.Name + ".vlds", KD: ex.Base + e.Sidecar, KernargSegmentSize: int(e.Wrapper.Size), Exec: ex, Desc: sim.Descriptor{
		GroupSegmentFixedSize: d.GroupSegmentFixedSize, PrivateSegmentFixedSize: d.PrivateSegmentFixedSize,
		KernargSize: d.KernargSize, EntryOffset: d.KernelCodeEntryByteOffset,
		RSRC1: le.Uint32(raw[48:]), RSRC2: le.Uint32(raw[52:]), RSRC3: le.Uint32(raw[44:]),
		CodeProperties: le.Uint16(raw[56:]), KernargPreload: le.Uint16(raw[58:]),
	}}
	seg := k.KernargSegment(ka, grid, block)
	for _, arg := range k.Args {
		if arg.ValueKind == "hidden_dynamic_lds_size" && arg.Offset+4 <= len(seg) {
			le.PutUint32(seg[arg.Offset:], dyn)
		}
	}
	orig, err := a.Alloc(uint64(len(seg)))
	if err != nil {
		return err
	}
	if err := a.CopyIn(orig, seg); err != nil {
		return err
	}
	stride := (max(e.StaticLDS, k.Desc.GroupSegmentFixedSize+dyn) + 255) &^ 255
	var strides [3]uint32
	n := uint64(1)
	for i := range strides {
		groups := (grid[i] + block[i] - 1) / block[i]
		if groups > 1 {
			if e.Flags&(vlds.FlagWorkgroupIDX<<i) == 0 {
				return fmt.Errorf("sidecar: dimension %d has %d workgroups but the sidecar does not read its workgroup ID", i, groups)
			}
			strides[i] = uint32(n) * stride
		}
		n *= uint64(groups)
	}
	backing, err := a.Alloc(n * uint64(stride))
	if err != nil {
		return err
	}
	w := make([]byte, e.Wrapper.Size)
	copy(w, seg[:min(len(seg), int(e.Wrapper.Prefix))])
	le.PutUint64(w[e.Wrapper.OrigPtr:], orig)
	le.PutUint64(w[e.Wrapper.State:], backing)
	for i := range strides {
		le.PutUint32(w[e.Wrapper.State+8+4*uint32(i):], strides[i])
	}
	return a.Dispatch(sk, grid, block, w)
}
