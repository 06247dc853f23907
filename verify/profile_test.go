package verify

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/hsa/sim/mem"
	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// TestProfileApply: a profile writes its fields when the layout matches
// and is refused, leaving the arguments as they were, when the segment
// size, an argument's name, offset or size, or its kind differs.
func TestProfileApply(t *testing.T) {
	args := []sim.Arg{
		{Name: "out", Offset: 0, Size: 8, ValueKind: "global_buffer"},
		{Name: "n", Offset: 8, Size: 4, ValueKind: "by_value"},
		{Name: "scale", Offset: 12, Size: 4, ValueKind: "by_value"},
		{Name: "raw", Offset: 16, Size: 16, ValueKind: "by_value"},
		{Offset: 32, Size: 8, ValueKind: "hidden_block_count_x"},
	}
	p := Profile{Name: "t", Kernel: regexp.MustCompile(`^k$`), KernargSize: 40, Fields: []Field{
		u32("n", 8, 256), f32("scale", 12, 0.5), raw(20, 7),
	}, Data: []Data{{Arg: "out", Offset: 4, Words: []uint32{3, 4}}}}
	ka := make([]byte, 40)
	if err := p.Apply(args, 40, ka); err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	if le.Uint32(ka[8:]) != 256 || math.Float32frombits(le.Uint32(ka[12:])) != 0.5 || le.Uint32(ka[20:]) != 7 {
		t.Fatalf("kernarg %x", ka)
	}
	le.PutUint64(ka, 0x1000)
	got := map[uint64][]byte{}
	if err := p.store(args, ka, func(a uint64, b []byte) error { got[a] = b; return nil }); err != nil {
		t.Fatal(err)
	}
	if b := got[0x1004]; len(b) != 8 || le.Uint32(b) != 3 || le.Uint32(b[4:]) != 4 {
		t.Fatalf("data %v", got)
	}
	bad := func(what string, q Profile, args []sim.Arg, size int) {
		t.Helper()
		ka := make([]byte, size)
		if err := q.Apply(args, size, ka); err == nil {
			t.Errorf("%s: applied", what)
		} else if !strings.Contains(err.Error(), "profile t") {
			t.Errorf("%s: error %q does not name the profile", what, err)
		}
		if !bytes.Equal(ka, make([]byte, size)) {
			t.Errorf("%s: kernarg written: %x", what, ka)
		}
	}
	bad("segment size", p, args, 48)
	moved := append([]sim.Arg(nil), args...)
	moved[1].Offset, moved[2].Offset = 12, 8
	bad("moved argument", p, moved, 40)
	renamed := append([]sim.Arg(nil), args...)
	renamed[1].Name = "m"
	bad("renamed argument", p, renamed, 40)
	q := p
	q.Fields = []Field{u32("out", 0, 1)}
	bad("field over a pointer", q, args, 40)
	q.Fields = []Field{raw(8, 1)}
	bad("unnamed field outside a struct", q, args, 40)
	q.Fields = []Field{raw(36, 1)}
	bad("field in a hidden argument", q, args, 40)
	q.Fields = []Field{{Name: "n", Offset: 8, Size: 3}}
	bad("odd field size", q, args, 40)
	q.Fields, q.Data = nil, []Data{{Arg: "n"}}
	bad("data for a by-value argument", q, args, 40)
}

// TestProfilesFitCorpus: every profile matches at least one aiter corpus
// kernel and applies to each kernel whose name it matches (the layout
// checks pass), no kernel matches two profiles, and a kernel of another
// family matches none.
func TestProfilesFitCorpus(t *testing.T) {
	files := objects(t, projectpath.MustShared(t, "corpus", "aiter", "gfx950"))
	used := map[string]int{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		a, err := sim.NewAgentOn("gfx950", mem.New())
		if err != nil {
			t.Fatal(err)
		}
		ex, err := a.LoadCodeObject(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for name, k := range ex.Kernels {
			size := max(k.KernargSegmentSize, int(k.Desc.KernargSize))
			n := 0
			profiles := Profiles()
			for i := range profiles {
				p := &profiles[i]
				if !p.Kernel.MatchString(name) {
					continue
				}
				n++
				if err := p.Apply(k.Args, size, make([]byte, size)); err != nil {
					t.Errorf("%s: %v", filepath.Base(f), err)
				}
				used[p.Name]++
			}
			if n > 1 {
				t.Errorf("%s: %d profiles match", name, n)
			}
		}
	}
	for _, p := range Profiles() {
		if used[p.Name] == 0 {
			t.Errorf("profile %s matches no corpus kernel", p.Name)
		}
	}
}

// FuzzProfileApply: a profile with arbitrary field and argument layouts
// never panics, and writes the kernarg only when it accepts.
func FuzzProfileApply(f *testing.F) {
	f.Add(8, 4, 8, 4, "n", "n", 16, 16)
	f.Add(12, 8, 8, 16, "", "raw", 32, 32)
	f.Add(-4, 4, 0, 8, "x", "x", 8, 8)
	f.Add(60, 8, 56, 8, "a", "a", 64, 40)
	f.Fuzz(func(t *testing.T, foff, fsize, aoff, asize int, fname, aname string, size, seg int) {
		fuzzguard.RunArgs(t, []any{foff, fsize, aoff, asize, fname, aname, size, seg}, func() {
			if seg < 0 || seg > 1<<12 {
				return
			}
			p := Profile{Name: "f", KernargSize: size, Fields: []Field{{Name: fname, Offset: foff, Size: fsize, Value: 0x0102030405060708}}}
			args := []sim.Arg{{Name: aname, Offset: aoff, Size: asize, ValueKind: "by_value"}}
			ka := make([]byte, seg)
			if err := p.Apply(args, seg, ka); err != nil && !bytes.Equal(ka, make([]byte, seg)) {
				t.Fatalf("refused (%v) but wrote %x", err, ka)
			}
		})
	})
}
