package sim

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader"
)

// TestFaultNamesKernel runs vector_add with a null output pointer: the
// dispatch must fail with the kernel, wave, PC and instruction.
func TestFaultNamesKernel(t *testing.T) {
	c, ok := kernelref.Lookup("vector_add")
	if !ok {
		t.Fatal("no vector_add case")
	}
	image, err := os.ReadFile(filepath.Join(projectpath.MustRoot(t), c.Object("gfx942")))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := NewAgent("gfx942")
	ex, err := a.LoadCodeObject(image)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ex.Kernel("vector_add")
	if err != nil {
		t.Fatal(err)
	}
	ka := make([]byte, k.KernargSegmentSize) // all pointers null
	ka[24] = 64                              // n
	err = a.Dispatch(k, [3]uint32{64, 1, 1}, [3]uint32{64, 1, 1}, ka)
	var de *DispatchError
	if !errors.As(err, &de) {
		t.Fatalf("got %v, want a *DispatchError", err)
	}
	msg := err.Error()
	for _, want := range []string{"kernel vector_add", "wave 0", "pc 0x", "global_load"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %q", msg, want)
		}
	}
	if _, err := ex.Kernel("nope"); err == nil {
		t.Error("unknown kernel must fail")
	}
	if _, err := NewAgent("gfx1100"); err == nil {
		t.Error("gfx1100 is not a simulator target")
	}
	// A gfx12 agent refuses gfx9 code (and the other way round).
	a12, err := NewAgent("gfx1201")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a12.LoadCodeObject(image); err == nil || !strings.Contains(err.Error(), "cannot run on the simulated gfx1201") {
		t.Errorf("gfx942 object on a gfx1201 agent: got %v", err)
	}
	// gfx12 faults name the kernel, wave, PC and gfx12 instruction too.
	image12, err := os.ReadFile(filepath.Join(projectpath.MustRoot(t), c.Object("gfx1201")))
	if err != nil {
		t.Fatal(err)
	}
	ex12, err := a12.LoadCodeObject(image12)
	if err != nil {
		t.Fatal(err)
	}
	k12, err := ex12.Kernel("vector_add")
	if err != nil {
		t.Fatal(err)
	}
	ka12 := make([]byte, k12.KernargSegmentSize)
	ka12[24] = 64
	err = a12.Dispatch(k12, [3]uint32{64, 1, 1}, [3]uint32{64, 1, 1}, ka12)
	if !errors.As(err, &de) {
		t.Fatalf("gfx1201: got %v, want a *DispatchError", err)
	}
	for _, want := range []string{"kernel vector_add", "wave 0", "pc 0x", "global_load_b32", "code object offset"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("gfx1201 error %q does not mention %q", err, want)
		}
	}
}

// maxFuzzImage bounds the memory image of a FuzzLoadCodeObject input.
const maxFuzzImage = 1 << 20

// FuzzLoadCodeObject feeds arbitrary bytes to the code-object loader: it
// must return an error or an executable, never panic. Images over 1 MiB
// (a mutated p_memsz; the limit is loader.MaxImageSize, 1 GiB) take the
// same path as smaller ones and are skipped: the simulator zeroes the
// memory it allocates, so their cost follows p_memsz (about 1 ms per
// 1.5 MiB), not the input.
func FuzzLoadCodeObject(f *testing.F) {
	root, err := projectpath.Root()
	if err == nil {
		if b, err := os.ReadFile(filepath.Join(root, "testdata/kernels/gfx942/vector_add.co")); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("\x7fELF\x02\x01\x01\x40"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzguard.Run(t, b, func() {
			if f, err := loader.Parse(b); err == nil {
				if size, err := f.ImageSize(); err == nil && size > maxFuzzImage {
					return
				}
			}
			a, _ := NewAgent("gfx942")
			_, _ = a.LoadCodeObject(b)
		})
	})
}

// TestLDSLimit checks that a group segment beyond the target's LDS fails
// on gfx942 (64 KiB) and runs on gfx950 (160 KiB).
func TestLDSLimit(t *testing.T) {
	c, ok := kernelref.Lookup("vector_add")
	if !ok {
		t.Fatal("no vector_add case")
	}
	image, err := os.ReadFile(filepath.Join(projectpath.MustRoot(t), c.Object("gfx942")))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		target string
		ok     bool
	}{{"gfx942", false}, {"gfx950", true}} {
		a, _ := NewAgent(tc.target)
		ex, err := a.LoadCodeObject(image)
		if err != nil {
			t.Fatal(err)
		}
		k, _ := ex.Kernel("vector_add")
		ka := make([]byte, k.KernargSegmentSize) // n = 0: no work-item touches memory
		err = a.DispatchExt(k, [3]uint32{64, 1, 1}, [3]uint32{64, 1, 1}, ka, 100<<10, 0)
		if (err == nil) != tc.ok {
			t.Errorf("%s with 100 KiB of LDS: %v", tc.target, err)
		}
	}
}
