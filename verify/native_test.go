package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/sim/mem"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader/metadata"
)

// TestNative pairs test kernels built for gfx950 and for gfx942: the
// native build runs on gfx942 with the guest's inputs and ends alike, its
// guest run is the one Object makes beside the translation, and its
// executed instructions are the native build's own (for these kernels the
// translation is the identity and executes as many). A native object for
// another target is an error, a kernel the native object lacks NotRun.
func TestNative(t *testing.T) {
	root := filepath.Join(projectpath.MustRoot(t), "testdata", "kernels")
	read := func(target, name string) []byte {
		b, err := os.ReadFile(filepath.Join(root, target, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	opt := Options{Host: "gfx942", Fill: mem.FillInt}
	for _, name := range []string{"vector_add.co", "mfma_f32_32x32x8f16.co", "reduce_sum_f32.co"} {
		guest, nat := read("gfx950", name), read("gfx942", name)
		ns, err := Native(name, guest, nat, opt)
		if err != nil {
			t.Fatal(err)
		}
		ts, err := Object(name, guest, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(ns) != 1 || len(ts) != 1 {
			t.Fatalf("%s: %d native and %d translated results", name, len(ns), len(ts))
		}
		n, tr := ns[0], ts[0]
		if n.Outcome != Identical || !Counted(tr) {
			t.Fatalf("%s: native %s (%s), translation %s", name, n.Outcome, n.Reason, tr.Outcome)
		}
		if n.GuestInstructions != tr.GuestInstructions || n.GuestPasses != tr.GuestPasses {
			t.Errorf("%s: guest %d/%d instructions beside the native build and the translation", name, n.GuestInstructions, tr.GuestInstructions)
		}
		if n.HostInstructions == 0 || n.HostClasses.Total() != n.HostInstructions {
			t.Errorf("%s: native %d instructions, classes %+v", name, n.HostInstructions, n.HostClasses)
		}
		t.Logf("%s: guest %d, native %d, translated %d", name, n.GuestInstructions, n.HostInstructions, tr.HostInstructions)
	}
	if _, err := Native("vector_add.co", read("gfx950", "vector_add.co"), read("gfx950", "vector_add.co"), opt); err == nil {
		t.Error("a gfx950 object was taken as the gfx942 native build")
	}
	rs, err := Native("vector_add.co", read("gfx950", "vector_add.co"), read("gfx942", "saxpy.co"), opt)
	if err != nil || len(rs) != 1 || rs[0].Outcome != NotRun || !strings.Contains(rs[0].Reason, "no kernel vector_add") {
		t.Errorf("missing native kernel: %+v, %v", rs, err)
	}
}

// TestLayoutDiffers: a native kernel whose arguments or workgroup differ
// from the guest's is not paired.
func TestLayoutDiffers(t *testing.T) {
	g := metadata.Kernel{KernargSegmentSize: 16, Args: []metadata.Arg{{Offset: 0, Size: 8, ValueKind: "global_buffer"}, {Offset: 8, Size: 4, ValueKind: "by_value"}}, MaxFlatWorkgroupSize: 256}
	same := g
	if why := layoutDiffers(g, same, 256); why != "" {
		t.Errorf("same layout: %s", why)
	}
	n := g
	n.Args = []metadata.Arg{g.Args[0], {Offset: 12, Size: 4, ValueKind: "by_value"}}
	if why := layoutDiffers(g, n, 256); !strings.Contains(why, "argument 1") {
		t.Errorf("moved argument: %q", why)
	}
	n = g
	n.KernargSegmentSize = 24
	if why := layoutDiffers(g, n, 256); !strings.Contains(why, "segment") {
		t.Errorf("segment size: %q", why)
	}
	n = g
	n.Args = g.Args[:1]
	if why := layoutDiffers(g, n, 256); !strings.Contains(why, "1 kernel arguments") {
		t.Errorf("argument count: %q", why)
	}
	n = g
	n.MaxFlatWorkgroupSize = 64
	if why := layoutDiffers(g, n, 256); !strings.Contains(why, "workgroup") {
		t.Errorf("workgroup: %q", why)
	}
}
