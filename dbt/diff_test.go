package dbt

import (
	"path/filepath"
	"reflect"
	"testing"
)

// TestChangesDeterministic translates every aiter gfx950 object with
// Options.Diff three times: the changes must be the same each time, in
// body order, and where instructions share a host offset (one whose code is
// emitted with a neighbour's) the code belongs to the last of them in guest
// order and the others list none.
func TestChangesDeterministic(t *testing.T) {
	shared := 0
	for _, p := range corpus(t, "gfx950") {
		guest := readFile(t, p)
		var first []Change
		for run := 0; run < 3; run++ {
			res, err := Translate(guest, Options{Name: filepath.Base(p), Diff: true})
			if err != nil {
				t.Fatalf("%s: %v", filepath.Base(p), err)
			}
			if run == 0 {
				first = res.Changes
				continue
			}
			if !reflect.DeepEqual(res.Changes, first) {
				t.Fatalf("%s: run %d lists other changes than run 0", filepath.Base(p), run)
			}
		}
		for i := 1; i < len(first); i++ {
			a, b := first[i-1], first[i]
			if a.Kernel != b.Kernel {
				continue
			}
			if b.Host < a.Host || b.Host == a.Host && b.Src <= a.Src {
				t.Fatalf("%s: change %#x -> %#x listed after %#x -> %#x", filepath.Base(p), b.Src, b.Host, a.Src, a.Host)
			}
			if b.Host == a.Host {
				shared++
				if len(a.HostCode) != 0 {
					t.Fatalf("%s: %#x and %#x share host %#x but the first lists host code", filepath.Base(p), a.Src, b.Src, a.Host)
				}
			}
		}
	}
	if shared == 0 {
		t.Fatal("no two changed instructions share a host offset: the ordering is not exercised")
	}
}
