package dispatch

import (
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/shim/internal/codeobj"
)

func TestPlan(t *testing.T) {
	g := codeobj.Descriptor{GroupSegmentFixedSize: 512, PrivateSegmentFixedSize: 0, KernargSize: 36}
	for _, c := range []struct {
		name string
		host codeobj.Descriptor
		want string
	}{
		{"same", g, "pass-through"},
		{"smaller", codeobj.Descriptor{GroupSegmentFixedSize: 0, KernargSize: 8}, "pass-through"},
		{"grow", codeobj.Descriptor{GroupSegmentFixedSize: 1536, PrivateSegmentFixedSize: 16, KernargSize: 64},
			"group+1024 private>=16 kernarg 36->64 (original pointer at 40, 16 payload bytes)"},
		{"tight", codeobj.Descriptor{GroupSegmentFixedSize: 512, KernargSize: 40}, "group+0 private>=0 kernarg 36->40"},
	} {
		e, err := Plan(g, c.host)
		if err != nil {
			t.Fatal(err)
		}
		if e.String() != c.want {
			t.Errorf("%s: %s, want %s", c.name, e, c.want)
		}
	}
	if _, err := Plan(g, codeobj.Descriptor{KernargSize: MaxKernarg + 1}); err == nil || !strings.Contains(err.Error(), "pool slot") {
		t.Errorf("oversized kernarg: %v", err)
	}
}

// A hand-written kernel whose descriptor says kernarg_size 0 while HIP fills
// 64 bytes from the metadata: the wrapper copies all 64.
func TestPlanArgsMetadata(t *testing.T) {
	g := codeobj.Descriptor{KernargSize: 0}
	h := codeobj.Descriptor{KernargSize: 88}
	e, err := PlanArgs(g, h, 64)
	if err != nil {
		t.Fatal(err)
	}
	if e.CopySize != 64 || e.PtrOffset != 64 || len(e.Payload) != 16 || e.KernargSize != 88 {
		t.Errorf("%+v", e)
	}
	if e, _ := PlanArgs(g, codeobj.Descriptor{KernargSize: 64}, 64); !e.IsZero() {
		t.Errorf("translated kernarg equal to the app's buffer needs no wrapper: %s", e)
	}
}

func TestVirtualLDSEntry(t *testing.T) {
	e := Entry{VLDS: &VirtualLDS{KernelObject: 0x5000, HostLDS: 65536, StaticLDS: 163840, WrapperSize: 56}}
	if e.IsZero() {
		t.Fatal("an entry with only a sidecar is zero")
	}
	if s := e.String(); !strings.Contains(s, "virtual-LDS sidecar 0x5000 when LDS > 65536") {
		t.Fatalf("String() = %q", s)
	}
}
