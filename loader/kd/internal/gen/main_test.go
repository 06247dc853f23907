package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestGeneratedUpToDate regenerates fields_gen.go from fields.tab and
// compares it with the committed file.
func TestGeneratedUpToDate(t *testing.T) {
	f, err := os.Open("../../fields.tab")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := parse(f)
	if err != nil {
		t.Fatal(err)
	}
	src, err := Generate(rows)
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("../../fields_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(src, have) {
		t.Fatal("fields_gen.go is stale: run go generate ./loader/kd")
	}
}

func TestOverlapRejected(t *testing.T) {
	rows, err := parse(strings.NewReader("A X COMPUTE_PGM_RSRC1 0 6 GFX9Plus\nB Y COMPUTE_PGM_RSRC1 5 2 GFX12\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(rows); err == nil || !strings.Contains(err.Error(), "overlap") {
		t.Fatalf("overlap not reported: %v", err)
	}
	rows[1].Families = "AllGFX9|GFX10"
	if _, err := Generate(rows); err == nil {
		t.Fatal("overlap on gfx9 not reported")
	}
	rows[1].Shift = 6
	if _, err := Generate(rows); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"A X W 0 6\n", "A X W 30 6 GFX9\n", "A X W 0 6 GFX13\n"} {
		if _, err := parse(strings.NewReader(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
