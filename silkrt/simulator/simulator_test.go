package simulator

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/silkrt"
	"github.com/rocjitsu/rocjitsu/silkrt/internal/fixture"
)

func TestMain(m *testing.M) {
	code := m.Run()
	fixture.Cleanup()
	os.Exit(code)
}

// TestSimProvider runs the clang-built test kernels on the hsa/sim
// simulator through the AQL provider and checks the memory they write.
func TestSimProvider(t *testing.T) {
	code := fixture.KernelBytes(t)
	var entries []silkrt.Entry
	for _, n := range []string{"fill", "sizes"} {
		e, _, err := silkrt.EntryFromCodeObject(n, code)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, e)
	}
	exe, err := silkrt.AppendBundle([]byte("host"), &silkrt.Bundle{Provider: silkrt.ProviderHIP, Target: 942, Entries: entries})
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := silkrt.ParseBundle(exe)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New("gfx942")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Load(b); err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian

	// fill: out[i] = value + i for 256 work-items.
	out, err := p.Alloc(1024)
	if err != nil {
		t.Fatal(err)
	}
	args := le.AppendUint64(nil, uint64(out))
	args = le.AppendUint32(args, 1000)
	if err := p.Launch("fill", silkrt.D3(256, 1, 1), silkrt.D3(64, 1, 1), args); err != nil {
		t.Fatal(err)
	}
	if err := p.Synchronize(); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 1024)
	if err := p.CopyOut(got, out); err != nil {
		t.Fatal(err)
	}
	for i := range 256 {
		if v := le.Uint32(got[4*i:]); v != 1000+uint32(i) {
			t.Fatalf("out[%d] = %d, want %d", i, v, 1000+i)
		}
	}

	// sizes: the kernel reads the hidden arguments the provider wrote.
	res, err := p.Alloc(32)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Launch("sizes", silkrt.D3(200, 3, 1), silkrt.D3(64, 1, 1), le.AppendUint64(nil, uint64(res))); err != nil {
		t.Fatal(err)
	}
	if err := p.Synchronize(); err != nil {
		t.Fatal(err)
	}
	got = make([]byte, 32)
	if err := p.CopyOut(got, res); err != nil {
		t.Fatal(err)
	}
	want := []uint32{3, 3, 1, 64, 1, 1, 8, 2} // block counts, group sizes, remainder x, grid dims
	for i, w := range want {
		if v := le.Uint32(got[4*i:]); v != w {
			t.Errorf("sizes out[%d] = %d, want %d", i, v, w)
		}
	}
	// A kernel that faults makes Launch fail with the simulator's report.
	bad := le.AppendUint64(nil, 0x10)
	bad = le.AppendUint32(bad, 1)
	if err := p.Launch("fill", silkrt.D3(64, 1, 1), silkrt.D3(64, 1, 1), bad); err == nil || !strings.Contains(err.Error(), "fill") {
		t.Fatalf("faulting kernel: %v", err)
	} else {
		t.Logf("faulting kernel: %v", err)
	}
	// The provider stays usable after a fault.
	if err := p.Launch("fill", silkrt.D3(64, 1, 1), silkrt.D3(64, 1, 1), args); err != nil {
		t.Fatalf("launch after a fault: %v", err)
	}
	if a := Agent(p); a == nil || a.Stats.Waves == 0 {
		t.Fatal("no simulator statistics")
	}
	if _, err := New("gfx1100"); err == nil || !strings.Contains(err.Error(), "gfx1100") {
		t.Fatalf("unsupported target: %v", err)
	}
}
