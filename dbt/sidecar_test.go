package dbt

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/dbt/vlds"
	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/loader/kd"
)

// runSidecarOnSim runs a kernelref case through its sidecar on a simulated
// agent the way the runtime hook does: the normal kernarg segment is
// built, a wrapper holds its bytes, the original segment's address and a
// VirtualLdsDispatchState over a backing store of one requested_lds slice
// per workgroup, and the sidecar descriptor is dispatched with no
// group-segment request. It returns the buffers and the backing store.
func runSidecarOnSim(t *testing.T, c *kernelref.Case, image []byte, target string) (map[int][]byte, *backingStore, error) {
	t.Helper()
	f, err := loader.Parse(image)
	if err != nil {
		t.Fatal(err)
	}
	sec := f.Section(vlds.SectionName)
	if sec == nil {
		t.Fatalf("no %s section", vlds.SectionName)
	}
	meta, err := vlds.Parse(sec.Data)
	if err != nil {
		t.Fatal(err)
	}
	a, err := sim.NewAgent(target)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := a.LoadCodeObject(image)
	if err != nil {
		return nil, nil, err
	}
	k, err := ex.Kernel(c.Name)
	if err != nil {
		return nil, nil, err
	}
	e, ok := meta.Lookup(k.KD - ex.Base)
	if !ok {
		t.Fatalf("no sidecar entry for descriptor %#x", k.KD-ex.Base)
	}
	// The sidecar descriptor, loaded with the image.
	raw := make([]byte, kd.Size)
	if err := a.CopyOut(ex.Base+e.Sidecar, raw); err != nil {
		t.Fatal(err)
	}
	d, err := kd.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if d.GroupSegmentFixedSize != 0 || d.KernargSize != e.Wrapper.Size {
		t.Fatalf("sidecar descriptor: group %d kernarg %d", d.GroupSegmentFixedSize, d.KernargSize)
	}
	side := &sim.Kernel{Name: c.Name + ".vlds", KD: ex.Base + e.Sidecar, KernargSegmentSize: int(e.Wrapper.Size), Exec: ex, Desc: sim.Descriptor{
		GroupSegmentFixedSize: d.GroupSegmentFixedSize, PrivateSegmentFixedSize: d.PrivateSegmentFixedSize,
		KernargSize: d.KernargSize, EntryOffset: d.KernelCodeEntryByteOffset,
		RSRC1: binary.LittleEndian.Uint32(raw[48:]), RSRC2: binary.LittleEndian.Uint32(raw[52:]), RSRC3: binary.LittleEndian.Uint32(raw[44:]),
		CodeProperties: binary.LittleEndian.Uint16(raw[56:]), KernargPreload: binary.LittleEndian.Uint16(raw[58:]),
	}}
	ex.Kernels[side.Name] = side
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
	seg := k.KernargSegment(ka, c.Grid, c.Block)
	orig, err := a.Alloc(uint64(len(seg)))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.CopyIn(orig, seg); err != nil {
		t.Fatal(err)
	}
	requested := max(e.StaticLDS, c.DynamicLDS()+k.Desc.GroupSegmentFixedSize)
	stride := (requested + 255) &^ 255
	var groups [3]uint32
	var strides [3]uint32
	n := uint64(1)
	for i := range groups {
		groups[i] = (c.Grid[i] + c.Block[i] - 1) / c.Block[i]
		if groups[i] > 1 {
			if e.Flags&(vlds.FlagWorkgroupIDX<<i) == 0 {
				t.Fatalf("dimension %d has %d workgroups but the sidecar does not read its ID", i, groups[i])
			}
			strides[i] = uint32(n) * stride
		}
		n *= uint64(groups[i])
	}
	backing, err := a.Alloc(n * uint64(stride))
	if err != nil {
		t.Fatal(err)
	}
	w := make([]byte, e.Wrapper.Size)
	copy(w, seg[:min(len(seg), int(e.Wrapper.Prefix))])
	le := binary.LittleEndian
	le.PutUint64(w[e.Wrapper.OrigPtr:], orig)
	le.PutUint64(w[e.Wrapper.State:], backing)
	for i := range strides {
		le.PutUint32(w[e.Wrapper.State+8+4*uint32(i):], strides[i])
	}
	if err := a.Dispatch(side, c.Grid, c.Block, w); err != nil {
		return nil, nil, err
	}
	bs := &backingStore{Slices: int(n), Stride: int(stride), Data: make([]byte, n*uint64(stride))}
	if err := a.CopyOut(backing, bs.Data); err != nil {
		t.Fatal(err)
	}
	out := map[int][]byte{}
	for i, addr := range addrs {
		b := make([]byte, len(c.Args[i].Init))
		if err := a.CopyOut(addr, b); err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out, bs, nil
}

// backingStore is the virtual LDS after a sidecar run.
type backingStore struct {
	Slices, Stride int
	Data           []byte
}

// used counts the workgroup slices with a nonzero byte.
func (b *backingStore) used() int {
	n := 0
	for i := 0; i < b.Slices; i++ {
		for _, x := range b.Data[i*b.Stride : (i+1)*b.Stride] {
			if x != 0 {
				n++
				break
			}
		}
	}
	return n
}

// runGuestOnSim runs the guest with hardware LDS (and the case's dynamic
// LDS request).
func runGuestOnSim(t *testing.T, c *kernelref.Case, image []byte, target string) map[int][]byte {
	t.Helper()
	a, err := sim.NewAgent(target)
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
	addrs := map[int]uint64{}
	for _, i := range c.Buffers() {
		addr, err := a.Alloc(uint64(len(c.Args[i].Init)))
		if err != nil {
			t.Fatal(err)
		}
		if err := a.CopyIn(addr, c.Args[i].Init); err != nil {
			t.Fatal(err)
		}
		addrs[i] = addr
	}
	ka, err := c.Kernarg(addrs)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.DispatchExt(k, c.Grid, c.Block, ka, c.DynamicLDS(), 0); err != nil {
		t.Fatalf("guest on %s: %v", target, err)
	}
	out := map[int][]byte{}
	for i, addr := range addrs {
		b := make([]byte, len(c.Args[i].Init))
		if err := a.CopyOut(addr, b); err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out
}

// TestSidecarsOnSimulator makes a sidecar for every LDS-using gfx950 test
// kernel, runs it on the simulated gfx942 agent with a backing store and
// the wrapper, and compares the memory image with the guest run on the
// simulated gfx950 agent with hardware LDS and with the CPU reference.
func TestSidecarsOnSimulator(t *testing.T) {
	root := projectpath.MustRoot(t)
	cases := kernelref.AllCases()
	ran := 0
	for i := range cases {
		c := &cases[i]
		if !c.HasTarget("gfx950") {
			continue
		}
		guest, err := os.ReadFile(filepath.Join(root, c.Object("gfx950")))
		if err != nil {
			t.Fatal(err)
		}
		res, err := TranslateWithSidecars(guest, Options{Name: c.Name}, SidecarOptions{AllLDS: true})
		if err != nil {
			continue // the normal translation's rejections are tested elsewhere
		}
		var sc *Sidecar
		for j := range res.Sidecars {
			if res.Sidecars[j].Kernel == c.Name {
				sc = &res.Sidecars[j]
			}
		}
		if sc == nil {
			continue // no LDS
		}
		t.Run(c.Name, func(t *testing.T) {
			if !sc.Made {
				t.Fatalf("no sidecar: %s", sc.Reason)
			}
			if sc.Lowered == 0 {
				t.Fatal("sidecar lowered no LDS access")
			}
			assertNoHardwareLDS(t, res.Object, sc)
			out, bs, err := runSidecarOnSim(t, c, res.Object, "gfx942")
			if err != nil {
				t.Fatalf("sidecar on gfx942: %v", err)
			}
			// Every workgroup used its own slice of the backing store.
			if u := bs.used(); u != bs.Slices {
				t.Errorf("%d of %d workgroup slices of the backing store were written", u, bs.Slices)
			}
			if err := c.Check(out); err != nil {
				t.Errorf("sidecar vs CPU reference: %v", err)
			}
			want := runGuestOnSim(t, c, guest, "gfx950")
			for i, b := range want {
				if !bytes.Equal(out[i], b) {
					t.Errorf("buffer %d differs from the guest on gfx950", i)
				}
			}
			// The normal kernel of the same object still runs.
			if c.DynamicLDS() == 0 {
				norm, err := runOnSim(t, c, res.Object, "gfx942")
				if err != nil {
					t.Fatalf("normal kernel: %v", err)
				}
				if err := c.Check(norm); err != nil {
					t.Errorf("normal kernel: %v", err)
				}
			}
		})
		ran++
	}
	if ran < 8 {
		t.Fatalf("only %d LDS kernels had sidecars", ran)
	}
}

// assertNoHardwareLDS decodes the sidecar body (from its entry to the end
// of .text) and fails on any instruction that touches LDS storage.
func assertNoHardwareLDS(t *testing.T, obj []byte, sc *Sidecar) {
	t.Helper()
	f, err := loader.Parse(obj)
	if err != nil {
		t.Fatal(err)
	}
	ts := f.Section(".text")
	body := ts.Data[sc.Entry-ts.Addr:]
	body = body[:min(len(body), sc.Bytes+4)]
	for off := 0; off+4 <= len(body); {
		w0 := binary.LittleEndian.Uint32(body[off:])
		if vlds.TouchesLDS(w0) {
			t.Fatalf("sidecar +%#x: word %#08x accesses hardware LDS", off, w0)
		}
		size := 4
		if in, err := decodeHost(body[off:]); err == nil && in > 0 {
			size = in
		}
		off += size
	}
}

func decodeHost(b []byte) (int, error) {
	in, err := gfx9.Decode(b, 0, isa.GFX942)
	return int(in.Size), err
}
