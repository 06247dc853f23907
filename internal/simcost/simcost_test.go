package simcost

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/cost"
	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

func TestTraceCounter(t *testing.T) {
	var c cost.Counts
	tc := &traceCounter{counts: &c}
	in := "wave 0 0x0000 exec ffffffffffffffff s_load_dwordx2 s[0:1]\nwave 0 0x0008 exec ffffffffffffffff v_mfma_f32_16x16x16_f16 v[0:3]\nwave 1 0x000c exec 00000000000000ff v_add"
	if _, err := tc.Write([]byte(in)); err != nil {
		t.Fatal(err)
	}
	if _, err := tc.Write([]byte("_f32_e32 v0, v1, v2\nnot a trace line\n")); err != nil {
		t.Fatal(err)
	}
	if c[cost.Memory] != 1 || c[cost.MFMA] != 1 || c[cost.VALU] != 1 || tc.bad != 1 {
		t.Fatalf("counts %v bad %d", c, tc.bad)
	}
}

func TestRunVectorAdd(t *testing.T) {
	root := projectpath.MustRoot(t)
	c, ok := kernelref.Lookup("vector_add")
	if !ok {
		t.Skip("no vector_add case")
	}
	img, err := os.ReadFile(filepath.Join(root, c.Object("gfx942")))
	if err != nil {
		t.Fatal(err)
	}
	counts, out, err := Run(&c, img, "gfx942")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Check(out); err != nil {
		t.Fatal(err)
	}
	if counts[cost.Memory] == 0 || counts[cost.VALU] == 0 || counts[cost.SALU] == 0 {
		t.Fatalf("counts %v: expected memory, VALU and SALU instructions", counts)
	}
	if _, _, err := Run(&c, []byte("not an object"), "gfx942"); err == nil {
		t.Fatal("a bad image ran")
	}
}

// FuzzTraceCounter: any byte stream, split anywhere, is accepted without
// a panic, and every complete line is either counted or reported bad.
func FuzzTraceCounter(f *testing.F) {
	f.Add([]byte("wave 0 0x0000 exec ffffffffffffffff s_endpgm\n"), 7)
	f.Add([]byte("wave 1 0x0010 exec 0000000000000001 v_mfma_f32_16x16x16_f16 v[0:3]\nbad\n"), 0)
	f.Add([]byte("\n\n\nwave"), 2)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		fuzzguard.RunArgs(t, []any{data, cut}, func() {
			var c cost.Counts
			tc := &traceCounter{counts: &c}
			if cut < 0 || cut > len(data) {
				cut = len(data) / 2
			}
			if n, err := tc.Write(data[:cut]); err != nil || n != cut {
				t.Fatalf("Write: %d, %v", n, err)
			}
			if n, err := tc.Write(data[cut:]); err != nil || n != len(data)-cut {
				t.Fatalf("Write: %d, %v", n, err)
			}
			lines := uint64(bytes.Count(data, []byte("\n")))
			if got := c.Total() + uint64(tc.bad); got != lines {
				t.Fatalf("%d lines, %d counted + %d bad", lines, c.Total(), tc.bad)
			}
		})
	})
}
