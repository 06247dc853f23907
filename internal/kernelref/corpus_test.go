package kernelref

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

func root(t *testing.T) string {
	t.Helper()
	r, err := projectpath.Root()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCasesMatchSources: one case per src/*.cl, with the targets the
// source's "// targets:" line names (plus gfx950 wherever gfx942 is).
func TestCasesMatchSources(t *testing.T) {
	srcs, err := filepath.Glob(filepath.Join(root(t), "testdata", "kernels", "src", "*.cl"))
	if err != nil {
		t.Fatal(err)
	}
	cases := AllCases()
	if len(cases) < 25 || len(srcs) != len(cases) {
		t.Fatalf("%d sources, %d cases (want equal, at least 25)", len(srcs), len(cases))
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.Name] {
			t.Errorf("duplicate case %s", c.Name)
		}
		seen[c.Name] = true
		if got, ok := Lookup(c.Name); !ok || got.Name != c.Name {
			t.Errorf("Lookup(%q) failed", c.Name)
		}
		src, err := os.ReadFile(filepath.Join(root(t), c.Source))
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		want := []string{"gfx942", "gfx1200", "gfx1201"}
		for _, line := range strings.Split(string(src), "\n") {
			if rest, ok := strings.CutPrefix(line, "// targets:"); ok {
				want = strings.Fields(rest)
				break
			}
		}
		if slices.Contains(want, "gfx942") && !strings.Contains(string(src), "\n// retarget: none\n") {
			want = append(want, "gfx950")
		}
		got := slices.Clone(c.Targets)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: targets %v, source says %v", c.Name, got, want)
		}
		defines := strings.Contains(string(src), "__kernel") && strings.Contains(string(src), " "+c.Name+"(") ||
			strings.Contains(string(src), "_KERNEL("+c.Name+")") // a shared body macro
		if !defines {
			t.Errorf("%s: source does not define kernel %s", c.Name, c.Name)
		}
	}
	if _, ok := Lookup("no_such_kernel"); ok {
		t.Error("Lookup found a kernel that does not exist")
	}
}

// kernelMeta is what the test reads back from llvm-readelf-19 --notes.
type kernelMeta struct {
	name, symbol   string
	kernargSize    int
	wavefrontSize  int
	reqd           []int
	args           []metaArg
	target         string
	privateSegment int
	groupSegment   int
}

type metaArg struct {
	offset, size int
	valueKind    string
	isConst      bool
	typeName     string
}

// parseNotes reads the YAML that llvm-readelf-19 --notes prints for an
// AMDGPU metadata note holding one kernel.
func parseNotes(t *testing.T, out string) kernelMeta {
	t.Helper()
	var m kernelMeta
	var cur *metaArg
	inArgs, inReqd := false, false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		trim := strings.TrimSpace(line)
		key, val, _ := strings.Cut(strings.TrimPrefix(trim, "- "), ":")
		val = strings.Trim(strings.TrimSpace(val), "'")
		indent := len(line) - len(strings.TrimLeft(line, " -"))
		switch {
		case key == ".args":
			inArgs, inReqd = true, false
			continue
		case key == ".reqd_workgroup_size":
			inReqd, inArgs = true, false
			continue
		case inReqd && strings.HasPrefix(trim, "- ") && !strings.Contains(trim, ":"):
			n, _ := strconv.Atoi(strings.TrimPrefix(trim, "- "))
			m.reqd = append(m.reqd, n)
			continue
		case indent <= 4:
			inArgs, inReqd = false, false
		}
		if inArgs {
			if strings.HasPrefix(trim, "- ") {
				m.args = append(m.args, metaArg{})
				cur = &m.args[len(m.args)-1]
			}
			switch key {
			case ".offset":
				cur.offset, _ = strconv.Atoi(val)
			case ".size":
				cur.size, _ = strconv.Atoi(val)
			case ".value_kind":
				cur.valueKind = val
			case ".is_const":
				cur.isConst = val == "true"
			case ".type_name":
				cur.typeName = val
			}
			continue
		}
		switch key {
		case ".name":
			m.name = val
		case ".symbol":
			m.symbol = val
		case ".kernarg_segment_size":
			m.kernargSize, _ = strconv.Atoi(val)
		case ".wavefront_size":
			m.wavefrontSize, _ = strconv.Atoi(val)
		case ".group_segment_fixed_size":
			m.groupSegment, _ = strconv.Atoi(val)
		case ".private_segment_fixed_size":
			m.privateSegment, _ = strconv.Atoi(val)
		case "amdhsa.target":
			m.target = val
		}
	}
	return m
}

// TestObjectsMatchCases checks every object against its case with the
// oracle llvm-readelf-19: the kernel and its descriptor are exported
// symbols, the metadata names the target, and the argument list (count,
// offsets, sizes, buffer vs by-value, constness) and kernarg size agree.
func TestObjectsMatchCases(t *testing.T) {
	readelf := llvmtool.Require(t, llvmtool.Readelf)
	r := root(t)
	// One llvm-readelf-19 run over every object; its output has a
	// "File: PATH" header per object.
	var paths []string
	for _, c := range AllCases() {
		for _, target := range c.Targets {
			paths = append(paths, c.Object(target))
		}
	}
	cmd := exec.Command(readelf, append([]string{"-h", "--dyn-syms", "--notes"}, paths...)...)
	cmd.Dir = r
	all, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("llvm-readelf-19: %v\n%s", err, all)
	}
	perFile := map[string]string{}
	for _, part := range strings.Split("\n"+string(all), "\nFile: ")[1:] {
		name, body, _ := strings.Cut(part, "\n")
		perFile[name] = body
	}
	objects := 0
	for _, c := range AllCases() {
		for _, target := range c.Targets {
			s, ok := perFile[c.Object(target)]
			if !ok {
				t.Errorf("%s %s: no llvm-readelf-19 output", c.Name, target)
				continue
			}
			objects++
			if strings.Contains(strings.ToLower(s), "warning") {
				t.Errorf("%s %s: llvm-readelf-19 warns:\n%s", c.Name, target, s)
			}
			for _, sym := range []string{" " + c.Name + "\n", " " + c.Name + ".kd\n"} {
				if !strings.Contains(s, sym) {
					t.Errorf("%s %s: no dynamic symbol %q", c.Name, target, strings.TrimSpace(sym))
				}
			}
			m := parseNotes(t, s)
			if m.name != c.Name || m.symbol != c.Name+".kd" {
				t.Errorf("%s %s: metadata names kernel %q symbol %q", c.Name, target, m.name, m.symbol)
			}
			if m.target != "amdgcn-amd-amdhsa--"+target {
				t.Errorf("%s %s: amdhsa.target %q", c.Name, target, m.target)
			}
			wantWave := 64
			if strings.HasPrefix(target, "gfx12") {
				wantWave = 32
			}
			if m.wavefrontSize != wantWave {
				t.Errorf("%s %s: wavefront size %d, want %d", c.Name, target, m.wavefrontSize, wantWave)
			}
			if m.kernargSize != c.KernargSize {
				t.Errorf("%s %s: kernarg_segment_size %d, case says %d", c.Name, target, m.kernargSize, c.KernargSize)
			}
			if m.reqd != nil && (len(m.reqd) != 3 || uint32(m.reqd[0]) != c.Block[0] || uint32(m.reqd[1]) != c.Block[1] || uint32(m.reqd[2]) != c.Block[2]) {
				t.Errorf("%s %s: reqd_workgroup_size %v, case block %v", c.Name, target, m.reqd, c.Block)
			}
			if c.DynamicLDS() != 0 && m.groupSegment != 0 {
				t.Errorf("%s %s: dynamic LDS with %d bytes of static LDS (offsets assume 0)", c.Name, target, m.groupSegment)
			}
			if len(m.args) != len(c.Args) {
				t.Errorf("%s %s: metadata has %d args, case %d", c.Name, target, len(m.args), len(c.Args))
				continue
			}
			for i, a := range c.Args {
				ma := m.args[i]
				kind := "by_value"
				switch a.Kind {
				case BufferIn, BufferOut, BufferInOut:
					kind = "global_buffer"
				case Hidden:
					kind = a.Name
				case DynamicLDS:
					kind = "dynamic_shared_pointer"
				}
				if ma.offset != a.Offset || ma.size != a.Size || ma.valueKind != kind {
					t.Errorf("%s %s: arg %d (%s): metadata offset %d size %d %s, case offset %d size %d %s",
						c.Name, target, i, a.Name, ma.offset, ma.size, ma.valueKind, a.Offset, a.Size, kind)
				}
				if a.Kind.IsBuffer() && ma.isConst != (a.Kind == BufferIn) {
					t.Errorf("%s %s: arg %d (%s): is_const %v but kind %s", c.Name, target, i, a.Name, ma.isConst, a.Kind)
				}
			}
		}
	}
	if objects < 100 {
		t.Errorf("checked only %d objects", objects)
	}
}

// TestObjectSetComplete: the four target folders hold exactly the objects
// the cases name.
func TestObjectSetComplete(t *testing.T) {
	r := root(t)
	want := map[string]bool{}
	for _, c := range AllCases() {
		for _, target := range c.Targets {
			want[c.Object(target)] = true
		}
	}
	for _, target := range Targets {
		files, _ := filepath.Glob(filepath.Join(r, "testdata", "kernels", target, "*.co"))
		for _, f := range files {
			rel, _ := filepath.Rel(r, f)
			if !want[filepath.ToSlash(rel)] {
				t.Errorf("%s is not named by any case", rel)
			}
			delete(want, filepath.ToSlash(rel))
		}
	}
	for p := range want {
		t.Errorf("%s is missing", p)
	}
}

// TestRebuildIsByteIdentical runs testdata/kernels/build.sh into a
// temporary folder and compares every object with the committed one.
func TestRebuildIsByteIdentical(t *testing.T) {
	clang := llvmtool.Require(t, llvmtool.Clang)
	lld := llvmtool.Require(t, llvmtool.LLD)
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	r := root(t)
	dir := t.TempDir()
	cmd := exec.Command("bash", filepath.Join(r, "testdata", "kernels", "build.sh"), dir)
	cmd.Env = append(os.Environ(), "CLANG="+clang, "LLD="+lld, "GO="+goTool)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build.sh: %v\n%s", err, out)
	}
	compared := 0
	for _, target := range Targets {
		committed, _ := filepath.Glob(filepath.Join(r, "testdata", "kernels", target, "*.co"))
		rebuilt, _ := filepath.Glob(filepath.Join(dir, target, "*.co"))
		if len(committed) != len(rebuilt) {
			t.Errorf("%s: %d committed objects, %d rebuilt", target, len(committed), len(rebuilt))
		}
		for _, f := range committed {
			want, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dir, target, filepath.Base(f)))
			if err != nil {
				t.Errorf("%s/%s: %v", target, filepath.Base(f), err)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s/%s: rebuilt object differs from the committed one (run 'make corpus')", target, filepath.Base(f))
			}
			compared++
		}
	}
	if compared < 100 {
		t.Errorf("compared only %d objects", compared)
	}
}

// TestManifestUpToDate: testdata/kernels/kernels.json is what Manifest
// generates.
func TestManifestUpToDate(t *testing.T) {
	got, err := os.ReadFile(filepath.Join(root(t), ManifestPath))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, Manifest()) {
		t.Fatalf("%s is stale: run 'go generate ./internal/kernelref'", ManifestPath)
	}
}

// TestReadmeListsEveryKernel: testdata/kernels/README.md has a table row
// per kernel.
func TestReadmeListsEveryKernel(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root(t), "testdata", "kernels", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range AllCases() {
		if !strings.Contains(string(b), "| `"+c.Name+"` |") {
			t.Errorf("README.md has no row for %s", c.Name)
		}
	}
}
