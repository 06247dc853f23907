package kernelcorpus

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
		out, err := RetargetGFX942ToGFX950(b)
		if err == nil && len(out) != len(b) {
			t.Fatalf("length changed")
		}
	})
}
