package kernelcorpus

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// corpusObject reads testdata/kernels/TARGET/NAME.co from the project.
func corpusObject(t testing.TB, target, name string) []byte {
	t.Helper()
	root, err := projectpath.Root()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "testdata", "kernels", target, name+".co"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRetargetChangesOnlyMachineAndTarget(t *testing.T) {
	readelf := llvmtool.Require(t, llvmtool.Readelf)
	in := corpusObject(t, "gfx942", "vector_add")
	out, err := RetargetGFX942ToGFX950(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(in) {
		t.Fatalf("length changed: %d -> %d", len(in), len(out))
	}
	if got := binary.LittleEndian.Uint32(out[eFlagsOffset:]); got&0xff != MachGFX950 || got&^0xff != binary.LittleEndian.Uint32(in[eFlagsOffset:])&^0xff {
		t.Fatalf("e_flags 0x%x", got)
	}
	var diffs []int
	for i := range in {
		if in[i] != out[i] {
			diffs = append(diffs, i)
		}
	}
	// One byte of e_flags and the two differing characters of the target.
	if len(diffs) != 3 || diffs[0] != eFlagsOffset {
		t.Fatalf("changed bytes at %v, want e_flags byte and 2 target bytes", diffs)
	}
	if !bytes.Contains(out, []byte("amdgcn-amd-amdhsa--gfx950")) || bytes.Contains(out, []byte("gfx942")) {
		t.Fatal("target string not rewritten")
	}
	p := filepath.Join(t.TempDir(), "k.co")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := exec.Command(readelf, "-h", "-S", "-l", "-s", "--notes", p).CombinedOutput()
	if err != nil {
		t.Fatalf("llvm-readelf-19: %v\n%s", err, o)
	}
	s := string(o)
	if !strings.Contains(s, "0x54F") || !strings.Contains(s, "amdhsa.target:   amdgcn-amd-amdhsa--gfx950") || !strings.Contains(s, "vector_add.kd") {
		t.Fatalf("llvm-readelf-19 output lacks gfx950 flags/target/kernel:\n%s", s)
	}
	if strings.Contains(strings.ToLower(s), "warning") || strings.Contains(strings.ToLower(s), "error") {
		t.Fatalf("llvm-readelf-19 complains:\n%s", s)
	}
}

func TestRetargetRejects(t *testing.T) {
	in := corpusObject(t, "gfx942", "vector_add")
	gfx12 := corpusObject(t, "gfx1200", "vector_add")
	done, err := RetargetGFX942ToGFX950(in)
	if err != nil {
		t.Fatal(err)
	}
	trunc := in[:40]
	badMach := bytes.Clone(in)
	binary.LittleEndian.PutUint16(badMach[18:], 62) // EM_X86_64
	for name, b := range map[string][]byte{
		"gfx1200":   gfx12,
		"gfx950":    done,
		"truncated": trunc,
		"x86-64":    badMach,
		"empty":     nil,
	} {
		if _, err := RetargetGFX942ToGFX950(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func FuzzRetarget(f *testing.F) {
	in := corpusObject(f, "gfx942", "vector_add")
	f.Add(in)
	f.Add(in[:64])
	f.Add(corpusObject(f, "gfx942", "call_noinline"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzguard.Run(t, b, func() {
			out, err := RetargetGFX942ToGFX950(b)
			if err == nil && len(out) != len(b) {
				t.Fatalf("length changed")
			}
		})
	})
}

// TestRetargetNoteAgreesWithMsgpack decodes the metadata of every gfx942
// object and its gfx950 copy with a full MessagePack decoder: the maps are
// equal except amdhsa.target.
func TestRetargetNoteAgreesWithMsgpack(t *testing.T) {
	root, err := projectpath.Root()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "testdata", "kernels", "gfx942", "*.co"))
	if len(files) < 20 {
		t.Fatalf("only %d gfx942 objects", len(files))
	}
	for _, f := range files {
		in, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out, err := RetargetGFX942ToGFX950(in)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		before, after := noteMap(t, in), noteMap(t, out)
		if before["amdhsa.target"] != "amdgcn-amd-amdhsa--gfx942" || after["amdhsa.target"] != "amdgcn-amd-amdhsa--gfx950" {
			t.Fatalf("%s: targets %v -> %v", f, before["amdhsa.target"], after["amdhsa.target"])
		}
		delete(before, "amdhsa.target")
		delete(after, "amdhsa.target")
		if !reflect.DeepEqual(before, after) {
			t.Fatalf("%s: metadata changed beyond the target", f)
		}
	}
}

func noteMap(t *testing.T, obj []byte) map[string]any {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Section(".note")
	if s == nil {
		t.Fatal("no .note")
	}
	b, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	namesz := binary.LittleEndian.Uint32(b)
	descsz := binary.LittleEndian.Uint32(b[4:])
	desc := b[12+align4(uint64(namesz)):][:descsz]
	var m map[string]any
	if err := msgpack.Unmarshal(desc, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestFindTargetHostile(t *testing.T) {
	for name, b := range map[string][]byte{
		"empty":        {},
		"not a map":    {0x91, 0xc0},
		"huge map":     {0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1, 'a'},
		"huge array":   {0x81, 0xa1, 'a', 0xdd, 0xff, 0xff, 0xff, 0xff},
		"huge string":  {0x81, 0xa1, 'a', 0xdb, 0x7f, 0xff, 0xff, 0xff},
		"deep nesting": append([]byte{0x81, 0xa1, 'a'}, bytes.Repeat([]byte{0x91}, 200)...),
		"no target":    {0x81, 0xa1, 'a', 0x01},
		"target int":   append(append([]byte{0x81, 0xad}, "amdhsa.target"...), 0x01),
	} {
		if _, _, err := findTarget(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
