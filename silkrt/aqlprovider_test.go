package silkrt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/aql"
	"github.com/rocjitsu/rocjitsu/silkrt/internal/fixture"
)

// fakeAQLDevice is an in-memory AQLDevice that records what reaches it.
type fakeAQLDevice struct {
	mem      map[uint64][]byte
	next     uint64
	loaded   []string
	packets  [][]byte
	waits    int
	waitErr  error
	dispatch error
}

func newFakeAQLDevice() *fakeAQLDevice {
	return &fakeAQLDevice{mem: map[uint64][]byte{}, next: 0x10000}
}

func (d *fakeAQLDevice) LoadKernel(code []byte, symbol string) (uint64, error) {
	if !bytes.HasPrefix(code, []byte("\x7fELF")) {
		return 0, errors.New("not an ELF")
	}
	d.loaded = append(d.loaded, symbol)
	return 0x7000_0000 + uint64(len(d.loaded))*0x40, nil
}

func (d *fakeAQLDevice) Alloc(size uint64) (uint64, error) {
	p := d.next
	d.mem[p] = make([]byte, size)
	d.next += (size + 0xfff) &^ 0xfff
	return p, nil
}

func (d *fakeAQLDevice) Free(addr uint64) error {
	if _, ok := d.mem[addr]; !ok {
		return fmt.Errorf("free of unmapped %#x", addr)
	}
	delete(d.mem, addr)
	return nil
}

func (d *fakeAQLDevice) region(addr uint64, n int) ([]byte, error) {
	for base, b := range d.mem {
		if addr >= base && addr+uint64(n) <= base+uint64(len(b)) {
			return b[addr-base : addr-base+uint64(n)], nil
		}
	}
	return nil, fmt.Errorf("fault at %#x+%d", addr, n)
}

func (d *fakeAQLDevice) Write(addr uint64, p []byte) error {
	r, err := d.region(addr, len(p))
	if err == nil {
		copy(r, p)
	}
	return err
}

func (d *fakeAQLDevice) Read(addr uint64, p []byte) error {
	r, err := d.region(addr, len(p))
	if err == nil {
		copy(p, r)
	}
	return err
}

func (d *fakeAQLDevice) Dispatch(packet []byte) error {
	if d.dispatch != nil {
		return d.dispatch
	}
	p, err := aql.DecodeKernelDispatchPacket(packet)
	if err != nil {
		return err
	}
	// Snapshot the kernarg segment as the packet processor would read it.
	seg := []byte(nil)
	if p.KernargAddress != 0 {
		for base, b := range d.mem {
			if base == p.KernargAddress {
				seg = bytes.Clone(b)
			}
		}
		if seg == nil {
			return fmt.Errorf("kernarg_address %#x is not an allocation", p.KernargAddress)
		}
	}
	d.packets = append(d.packets, append(bytes.Clone(packet), seg...))
	return nil
}

func (d *fakeAQLDevice) Wait() error { d.waits++; return d.waitErr }

func TestAQLProvider(t *testing.T) {
	code := fixture.KernelBytes(t)
	sizes, tag, err := EntryFromCodeObject("sizes", code)
	if err != nil {
		t.Fatal(err)
	}
	fill, _, err := EntryFromCodeObject("fill", code)
	if err != nil {
		t.Fatal(err)
	}
	dev := newFakeAQLDevice()
	a := NewAQL("fake", dev)
	if err := a.Load(&Bundle{Provider: ProviderHIP, Target: tag, Entries: []Entry{fill, sizes}}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(dev.loaded, ",") != "fill.kd,sizes.kd" {
		t.Fatalf("loaded %v", dev.loaded)
	}
	out, err := a.Alloc(64)
	if err != nil {
		t.Fatal(err)
	}
	args := binary.LittleEndian.AppendUint64(nil, uint64(out))
	// 200 work-items in workgroups of 64: AQL allows a partial last group.
	if err := a.Launch("sizes", Dim3{200, 3, 1}, Dim3{64, 1, 1}, args); err != nil {
		t.Fatal(err)
	}
	if len(dev.packets) != 1 {
		t.Fatalf("%d packets", len(dev.packets))
	}
	pk := dev.packets[0]
	p, err := aql.DecodeKernelDispatchPacket(pk[:64])
	if err != nil {
		t.Fatal(err)
	}
	want := aql.KernelDispatchPacket{
		Header: aql.MakeHeader(aql.PacketTypeKernelDispatch, true, aql.FenceScopeSystem, aql.FenceScopeSystem),
		Setup:  2, WorkgroupSizeX: 64, WorkgroupSizeY: 1, WorkgroupSizeZ: 1,
		GridSizeX: 200, GridSizeY: 3, GridSizeZ: 1,
		KernelObject: 0x7000_0080, KernargAddress: p.KernargAddress,
	}
	if p != want || p.KernargAddress == 0 {
		t.Fatalf("packet %+v\nwant   %+v", p, want)
	}
	seg := pk[64:]
	if len(seg) != 512 {
		t.Fatalf("kernarg segment %d bytes, want the metadata's 264 padded to 512", len(seg))
	}
	if !bytes.Equal(seg[264:], make([]byte, 512-264)) {
		t.Fatal("kernarg padding is not zero")
	}
	le := binary.LittleEndian
	checks := []struct {
		name      string
		off, size int
		want      uint64
	}{
		{"out", 0, 8, uint64(out)},
		{"hidden_block_count_x", 8, 4, 3},
		{"hidden_block_count_y", 12, 4, 3},
		{"hidden_block_count_z", 16, 4, 1},
		{"hidden_group_size_x", 20, 2, 64},
		{"hidden_group_size_y", 22, 2, 1},
		{"hidden_group_size_z", 24, 2, 1},
		{"hidden_remainder_x", 26, 2, 8},
		{"hidden_remainder_y", 28, 2, 0},
		{"hidden_remainder_z", 30, 2, 0},
		{"hidden_global_offset_x", 48, 8, 0},
		{"hidden_grid_dims", 72, 2, 2},
	}
	for _, c := range checks {
		var got uint64
		switch c.size {
		case 2:
			got = uint64(le.Uint16(seg[c.off:]))
		case 4:
			got = uint64(le.Uint32(seg[c.off:]))
		case 8:
			got = le.Uint64(seg[c.off:])
		}
		if got != c.want {
			t.Errorf("%s at kernarg+%d = %d, want %d", c.name, c.off, got, c.want)
		}
	}
	if err := a.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if _, ok := dev.mem[p.KernargAddress]; ok || dev.waits != 1 {
		t.Fatalf("kernarg segment not freed after Synchronize (waits %d)", dev.waits)
	}
	// Geometry and argument errors are caught before the device sees them.
	if err := a.Launch("sizes", Dim3{64, 1, 1}, Dim3{64, 1, 1}, nil); err == nil || !strings.Contains(err.Error(), "takes 8 bytes") {
		t.Errorf("short kernargs: %v", err)
	}
	if err := a.Launch("sizes", Dim3{32, 1, 1}, Dim3{64, 1, 1}, args); RuleOf(err) != RuleGridSmallerThanWorkgroup {
		t.Errorf("grid < block: %v", err)
	}
	if err := a.Launch("fill", Dim3{64, 1, 1}, Dim3{64, 1, 1}, make([]byte, 12)); err != nil {
		t.Fatal(err)
	}
	p2, _ := aql.DecodeKernelDispatchPacket(dev.packets[1])
	if p2.KernelObject != 0x7000_0040 || len(dev.packets[1]) != 64+256 || p2.GroupSegmentSize != 0 {
		t.Errorf("fill packet %+v, %d kernarg bytes", p2, len(dev.packets[1])-64)
	}
	if err := a.LaunchWith("fill", D3(64, 1, 1), D3(64, 1, 1), make([]byte, 12), LaunchOptions{DynamicGroupSegmentSize: 4096}); err != nil {
		t.Fatal(err)
	}
	if p3, _ := aql.DecodeKernelDispatchPacket(dev.packets[2]); p3.GroupSegmentSize != 4096 {
		t.Errorf("dynamic LDS: group_segment_size %d, want 4096", p3.GroupSegmentSize)
	}
	dev.waitErr = errors.New("wave 3 faulted")
	if err := a.Synchronize(); err == nil || !strings.Contains(err.Error(), "wave 3 faulted") {
		t.Errorf("wait error: %v", err)
	}
	dev.waitErr = nil
	dev.dispatch = errors.New("queue full")
	if err := a.Launch("fill", Dim3{64, 1, 1}, Dim3{64, 1, 1}, make([]byte, 12)); err == nil || !strings.Contains(err.Error(), "queue full") {
		t.Errorf("dispatch error: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if len(dev.mem) != 0 {
		t.Errorf("%d allocations left after Close", len(dev.mem))
	}

	// A bundle whose kernarg size disagrees with the metadata is refused.
	bad := fill
	bad.KernargSize = 16
	if err := NewAQL("fake", newFakeAQLDevice()).Load(&Bundle{Provider: ProviderHIP, Target: tag, Entries: []Entry{bad}}); err == nil || !strings.Contains(err.Error(), "bundle says 16 kernarg bytes, the kernel's metadata 12") {
		t.Errorf("kernarg mismatch: %v", err)
	}
	if err := NewAQL("fake", newFakeAQLDevice()).Load(&Bundle{Provider: ProviderHIP, Target: 950, Entries: []Entry{fill}}); err == nil || !strings.Contains(err.Error(), "code object is for gfx942, bundle target is 950") {
		t.Errorf("target mismatch: %v", err)
	}
}
