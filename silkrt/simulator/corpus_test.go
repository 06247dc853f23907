package simulator

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/silkrt"
)

// TestCorpusThroughBundles puts every gfx942/gfx950 kernel of
// testdata/kernels in a Silk bundle, runs it through the provider
// interface on the simulator (the AQL provider writes the kernarg segment
// and its hidden arguments and builds the packet) and compares the
// buffers with the CPU references of internal/kernelref. Dynamic LDS and
// global offsets go through LaunchOptions.
func TestCorpusThroughBundles(t *testing.T) {
	root := projectpath.MustRoot(t)
	ran := 0
	cases := kernelref.AllCases()
	for _, target := range []string{"gfx942", "gfx950"} {
		for i := range cases {
			c := &cases[i]
			if !c.HasTarget(target) {
				continue
			}
			t.Run(target+"/"+c.Name, func(t *testing.T) {
				code, err := os.ReadFile(filepath.Join(root, c.Object(target)))
				if err != nil {
					t.Fatalf("%s: %v (run make corpus)", c.Object(target), err)
				}
				entry, tag, err := silkrt.EntryFromCodeObject(c.Name, code)
				if err != nil {
					t.Fatal(err)
				}
				exe, err := silkrt.AppendBundle([]byte("host"), &silkrt.Bundle{Provider: silkrt.ProviderHIP, Target: tag, Entries: []silkrt.Entry{entry}})
				if err != nil {
					t.Fatal(err)
				}
				b, _, err := silkrt.ParseBundle(exe)
				if err != nil {
					t.Fatal(err)
				}
				p, err := New(target)
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				if err := p.Load(b); err != nil {
					t.Fatal(err)
				}
				addrs := map[int]uint64{}
				for _, j := range c.Buffers() {
					init := c.Args[j].Init
					ptr, err := p.Alloc(uint64(max(len(init), 1)))
					if err != nil {
						t.Fatal(err)
					}
					if err := p.CopyIn(ptr, init); err != nil {
						t.Fatal(err)
					}
					addrs[j] = uint64(ptr)
				}
				ka, err := c.Kernarg(addrs)
				if err != nil {
					t.Fatal(err)
				}
				// Only the explicit part: the provider fills the hidden one.
				explicit := ka[:entry.KernargSize]
				grid := silkrt.D3(c.Grid[0], c.Grid[1], c.Grid[2])
				block := silkrt.D3(c.Block[0], c.Block[1], c.Block[2])
				opts := silkrt.LaunchOptions{DynamicGroupSegmentSize: c.DynamicLDS(), GlobalOffset: globalOffset(c)}
				if err := p.LaunchWith(c.Name, grid, block, explicit, opts); err != nil {
					t.Fatal(err)
				}
				if err := p.Synchronize(); err != nil {
					t.Fatal(err)
				}
				out := map[int][]byte{}
				for j, addr := range addrs {
					buf := make([]byte, len(c.Args[j].Init))
					if err := p.CopyOut(buf, silkrt.DevicePtr(addr)); err != nil {
						t.Fatal(err)
					}
					out[j] = buf
				}
				if err := c.Check(out); err != nil {
					t.Fatal(err)
				}
			})
			ran++
		}
	}
	t.Logf("%d corpus dispatches through bundles on the simulator match their references", ran)
	if ran == 0 {
		t.Fatal("no corpus kernels ran")
	}
}

// globalOffset returns the case's global offset (its
// hidden_global_offset_* values).
func globalOffset(c *kernelref.Case) [3]uint64 {
	var off [3]uint64
	for _, a := range c.Args {
		if a.Kind != kernelref.Hidden || len(a.Value) != 8 {
			continue
		}
		for i, ax := range []string{"x", "y", "z"} {
			if a.Name == "hidden_global_offset_"+ax {
				off[i] = binary.LittleEndian.Uint64(a.Value)
			}
		}
	}
	return off
}
