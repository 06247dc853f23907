package codeobj

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

func corpus(t testing.TB) []string {
	dir := projectpath.MustShared(t, "corpus", "aiter")
	files, err := filepath.Glob(filepath.Join(dir, "gfx9*", "*.co"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus objects in %s: %v", dir, err)
	}
	return files
}

func TestParseCorpus(t *testing.T) {
	for _, f := range corpus(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		o, err := Parse(b)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		want := filepath.Base(filepath.Dir(f))
		if p, _ := ProcessorOf(o.Mach()); p != want {
			t.Errorf("%s: machine %#x is %q, want %s", f, o.Mach(), p, want)
		}
		if len(o.Kernels) == 0 {
			t.Errorf("%s: no kernels", f)
		}
		for _, k := range o.Kernels {
			if !strings.HasSuffix(k.Name, ".kd") || k.Desc.KernelCodeEntryOffset == 0 {
				t.Errorf("%s: odd kernel %+v", f, k)
			}
		}
	}
}

// The fmha forward kernel's descriptor fields as llvm-readelf/objdump print
// them (.amdhsa_kernarg_size and friends); checked once by hand.
func TestParseKnownKernel(t *testing.T) {
	p := projectpath.MustShared(t, "corpus", "aiter", "gfx950", "fmha_v3_fwd_fwd_hd128_bf16.co")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	o, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	k, ok := o.Kernel("_ZN5aiter19fmha_fwd_hd128_bf16E.kd")
	if !ok {
		t.Fatalf("kernel missing; have %+v", o.Kernels)
	}
	if k.Offset != 0x2200 {
		t.Errorf("descriptor offset %#x, want 0x2200", k.Offset)
	}
	if o.EFlags != 0x54f {
		t.Errorf("e_flags %#x, want 0x54f", o.EFlags)
	}
}

func TestSetMach(t *testing.T) {
	p := projectpath.MustShared(t, "corpus", "aiter", "gfx950", "fmha_v3_fwd_fwd_hd128_bf16.co")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := MachOf("gfx942")
	if err := SetMach(b, m); err != nil {
		t.Fatal(err)
	}
	o, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if o.EFlags != 0x54c {
		t.Errorf("e_flags %#x after retarget, want 0x54c (feature bits kept)", o.EFlags)
	}
}

func TestParseErrors(t *testing.T) {
	p := projectpath.MustShared(t, "corpus", "aiter", "gfx950", "fmha_v3_fwd_fwd_hd128_bf16.co")
	good, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		mut  func([]byte) []byte
		want string
	}{
		{"short", func(b []byte) []byte { return b[:10] }, "at least 64"},
		{"magic", func(b []byte) []byte { b[1] = 'X'; return b }, "offset 0: e_ident magic"},
		{"class", func(b []byte) []byte { b[4] = 1; return b }, "offset 4: EI_CLASS"},
		{"machine", func(b []byte) []byte { b[18] = 3; return b }, "offset 18: e_machine"},
		{"truncated", func(b []byte) []byte { return b[:len(b)-100] }, "section header table"},
	} {
		b := append([]byte(nil), good...)
		_, err := Parse(c.mut(b))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, p := range corpus(f)[:3] {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("\x7fELF\x02\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzguard.Run(t, b, func() {
			o, err := Parse(b)
			if err != nil {
				return
			}
			for _, k := range o.Kernels {
				if k.Offset < 0 || k.Offset+DescriptorSize > len(b) {
					t.Fatalf("kernel %s offset %d outside %d bytes", k.Name, k.Offset, len(b))
				}
			}
		})
	})
}
