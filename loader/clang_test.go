package loader

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/loader/kd"
)

// clangKernels uses scratch memory (a volatile local array), LDS and the
// second work-item id, so descriptors carry private-segment, LDS and VGPR
// work-item fields.
const clangKernels = `
__kernel void scratchy(__global int *o, int n) {
  volatile int a[64];
  for (int i = 0; i < 64; i++) a[i] = i * n;
  o[__builtin_amdgcn_workitem_id_x()] = a[(n + __builtin_amdgcn_workitem_id_x()) & 63];
}
__kernel void ldsy(__global float *o, float s) {
  __local float t[512];
  unsigned i = __builtin_amdgcn_workitem_id_x();
  t[i] = o[i] * s;
  __builtin_amdgcn_s_barrier();
  o[i] = t[511 - i] + __builtin_amdgcn_workitem_id_y();
}
`

// TestClangDescriptors compiles kernels with clang-19 for processors of
// every descriptor family (and with kernarg preloading on gfx942), links
// them with ld.lld-19, and compares the loader's descriptor directives
// with llvm-objdump-19's, field by field.
func TestClangDescriptors(t *testing.T) {
	clang := llvmtool.Require(t, llvmtool.Clang)
	lld := llvmtool.Require(t, llvmtool.LLD)
	objdump := llvmtool.Require(t, llvmtool.Objdump)
	dir := t.TempDir()
	src := filepath.Join(dir, "k.cl")
	if err := os.WriteFile(src, []byte(clangKernels), 0o644); err != nil {
		t.Fatal(err)
	}
	type cfg struct {
		name, mcpu string
		extra      []string
	}
	checked := 0
	for _, c := range []cfg{
		{"gfx900", "gfx900", nil},
		{"gfx90a", "gfx90a", nil},
		{"gfx942-preload", "gfx942", []string{"-mllvm", "-amdgpu-kernarg-preload-count=2"}},
		{"gfx1030", "gfx1030", nil},
		{"gfx1100-wave64", "gfx1100", []string{"-mwavefrontsize64"}},
		{"gfx1100", "gfx1100", nil},
		{"gfx1201-cov6", "gfx1201", []string{"-mcode-object-version=6"}},
	} {
		obj := filepath.Join(dir, c.name+".o")
		co := filepath.Join(dir, c.name+".co")
		args := append([]string{"-x", "cl", "-target", "amdgcn-amd-amdhsa", "-mcpu=" + c.mcpu, "-nogpulib", "-O1"}, c.extra...)
		if out, err := exec.Command(clang, append(args, "-c", src, "-o", obj)...).CombinedOutput(); err != nil {
			t.Fatalf("%s: clang: %v\n%s", c.name, err, out)
		}
		if out, err := exec.Command(lld, "-shared", obj, "-o", co).CombinedOutput(); err != nil {
			t.Fatalf("%s: lld: %v\n%s", c.name, err, out)
		}
		f, err := Parse(readFile(t, co))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if f.Processor.Name != c.mcpu || len(f.Kernels()) != 2 {
			t.Fatalf("%s: processor %s, %d kernels", c.name, f.Processor.Name, len(f.Kernels()))
		}
		out, err := exec.Command(objdump, "-D", "-j", ".rodata", "--disassemble-symbols=scratchy.kd,ldsy.kd", co).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: objdump: %v\n%s", c.name, err, out)
		}
		kds := parseObjdumpKDs(string(out))
		for _, k := range f.Kernels() {
			o := kds[k.Symbol]
			if o == nil {
				t.Errorf("%s: objdump printed nothing for %s", c.name, k.Symbol)
				continue
			}
			if o.err != "" {
				if k.Descriptor.Check(f.Processor) == nil {
					t.Errorf("%s %s: LLVM refuses (%s) but Check accepts", c.name, k.Symbol, o.err)
				}
				t.Logf("%s %s: LLVM 19 refuses: %s", c.name, k.Symbol, o.err)
				continue
			}
			var names []string
			for _, d := range k.Descriptor.Directives(f.Processor, f.CodeObjectVersion()) {
				names = append(names, d.Name)
				if w, ok := o.directives[d.Name]; !ok || w != d.Value {
					t.Errorf("%s %s %s: objdump %d (present %v), loader %d", c.name, k.Symbol, d.Name, w, ok, d.Value)
				}
				checked++
			}
			if strings.Join(names, " ") != strings.Join(o.order, " ") {
				t.Errorf("%s %s: directives differ:\n  objdump %v\n  loader  %v", c.name, k.Symbol, o.order, names)
			}
			md := k.Metadata
			if uint64(k.Descriptor.PrivateSegmentFixedSize) != md.PrivateSegmentFixedSize || uint64(k.Descriptor.WavefrontSize(f.Processor)) != md.WavefrontSize {
				t.Errorf("%s %s: descriptor scratch %d wave %d, metadata %d %d", c.name, k.Symbol, k.Descriptor.PrivateSegmentFixedSize,
					k.Descriptor.WavefrontSize(f.Processor), md.PrivateSegmentFixedSize, md.WavefrontSize)
			}
		}
		// The feature each configuration is there for.
		sk, _ := f.Kernel("scratchy")
		lk, _ := f.Kernel("ldsy")
		switch {
		case sk.Descriptor.PrivateSegmentFixedSize == 0:
			t.Errorf("%s: scratchy uses no scratch", c.name)
		case lk.Descriptor.GroupSegmentFixedSize != 2048:
			t.Errorf("%s: ldsy LDS %d", c.name, lk.Descriptor.GroupSegmentFixedSize)
		case c.name == "gfx942-preload" && lk.Descriptor.Get(kd.KERNARG_PRELOAD_SPEC_LENGTH) == 0:
			t.Errorf("%s: no kernarg preload", c.name)
		case c.name == "gfx1100-wave64" && lk.Descriptor.Wave32(f.Processor):
			t.Errorf("%s: wave32", c.name)
		case c.name == "gfx1100" && !lk.Descriptor.Wave32(f.Processor):
			t.Errorf("%s: wave64", c.name)
		}
	}
	t.Logf("%d descriptor directives of clang-19 objects agree with llvm-objdump-19", checked)
}

// TestRelocatableEntries parses clang-19's relocatable output, where the
// entry offset is a relocation, and checks the entries against the
// linked object.
func TestRelocatableEntries(t *testing.T) {
	clang := llvmtool.Require(t, llvmtool.Clang)
	lld := llvmtool.Require(t, llvmtool.LLD)
	dir := t.TempDir()
	src := filepath.Join(dir, "k.cl")
	os.WriteFile(src, []byte(clangKernels), 0o644)
	obj, co := filepath.Join(dir, "k.o"), filepath.Join(dir, "k.co")
	if out, err := exec.Command(clang, "-x", "cl", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib", "-O1", "-c", src, "-o", obj).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if out, err := exec.Command(lld, "-shared", obj, "-o", co).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	rel, err := Parse(readFile(t, obj))
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := Parse(readFile(t, co))
	if err != nil {
		t.Fatal(err)
	}
	if rel.Header.Type != ET_REL || len(rel.Relocations) == 0 {
		t.Fatalf("type %d, %d relocations", rel.Header.Type, len(rel.Relocations))
	}
	rt, dt := rel.Section(".text"), dyn.Section(".text")
	for _, k := range rel.Kernels() {
		dk, ok := dyn.Kernel(k.Name)
		if !ok {
			t.Fatalf("%s missing after linking", k.Name)
		}
		if k.EntrySymbol != k.Name || k.EntryAddr-rt.Addr != dk.EntryAddr-dt.Addr {
			t.Errorf("%s: relocatable entry %s+0x%x, linked entry .text+0x%x", k.Name, k.EntrySymbol, k.EntryAddr, dk.EntryAddr-dt.Addr)
		}
		if k.Descriptor.ComputePgmRsrc1 != dk.Descriptor.ComputePgmRsrc1 || k.Descriptor.ComputePgmRsrc2 != dk.Descriptor.ComputePgmRsrc2 {
			t.Errorf("%s: descriptors differ", k.Name)
		}
	}
}
