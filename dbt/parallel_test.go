package dbt

import (
	"bytes"
	"reflect"
	"testing"
)

// TestParallelKernelsDeterministic: emitting the kernels of one object on
// several goroutines gives the same object and report as emitting them in
// order (run with -race to check they share no mutable state).
func TestParallelKernelsDeterministic(t *testing.T) {
	guest := buildGuest(t, "shared_helper")
	seq, err := Translate(guest, Options{Name: "shared_helper", Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(seq.Report.Kernels) < 2 {
		t.Fatalf("%d kernels: the test needs several", len(seq.Report.Kernels))
	}
	for rep := 0; rep < 4; rep++ {
		par, err := Translate(guest, Options{Name: "shared_helper", Workers: 4})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(par.Object, seq.Object) {
			t.Fatal("parallel translation differs from the sequential one")
		}
		if !reflect.DeepEqual(par.Report, seq.Report) {
			t.Fatalf("reports differ:\n%+v\n%+v", par.Report, seq.Report)
		}
	}
}
