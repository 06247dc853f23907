package silkrt

import (
	"os"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/silkrt/internal/fixture"
)

func TestMain(m *testing.M) {
	code := m.Run()
	fixture.Cleanup()
	os.Exit(code)
}

func TestInspectCodeObject(t *testing.T) {
	code := fixture.KernelBytes(t)
	info, err := InspectCodeObject(code)
	if err != nil {
		t.Fatal(err)
	}
	if info.Processor != "gfx942" || info.Target != 942 {
		t.Fatalf("processor %q tag %d", info.Processor, info.Target)
	}
	fill, ok := info.Kernel("fill")
	if !ok || fill.ExplicitKernargSize != 12 {
		t.Fatalf("fill: %+v %v", fill, ok)
	}
	sz, ok := info.Kernel("sizes")
	if !ok || sz.ExplicitKernargSize != 8 || sz.KernargSegmentSize != 264 || len(sz.HiddenArgs) != 13 ||
		sz.HiddenArgs[0] != (HiddenArg{Kind: "hidden_block_count_x", Offset: 8, Size: 4}) ||
		sz.HiddenArgs[12] != (HiddenArg{Kind: "hidden_grid_dims", Offset: 72, Size: 2}) {
		t.Fatalf("sizes: %+v %v", sz, ok)
	}
	nop, ok := info.Kernel("nop")
	if !ok || nop.ExplicitKernargSize != 0 {
		t.Fatalf("nop: %+v %v", nop, ok)
	}
	if _, _, err := EntryFromCodeObject("missing", code); err == nil || !strings.Contains(err.Error(), "no kernel \"missing\"") {
		t.Fatalf("missing kernel: %v", err)
	}
}
