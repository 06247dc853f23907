package dbt

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// TestBufferReuseSameOutput: translations decode and emit into the
// buffers of the objects translated before them (cfg.Graph.Release,
// releaseEmitBuffers); translating the inputs in one order and then in
// the reverse order, so that each reuses what different objects left,
// must give the same objects and reports.
func TestBufferReuseSameOutput(t *testing.T) {
	paths := append(testKernels(t, "gfx950"), corpus(t, "gfx950")...)
	type out struct {
		obj    []byte
		report []byte
	}
	run := func(order []int) []out {
		res := make([]out, len(paths))
		for _, i := range order {
			r, _ := Translate(readFile(t, paths[i]), Options{Stats: true})
			rep, err := json.Marshal(r.Report)
			if err != nil {
				t.Fatal(err)
			}
			res[i] = out{r.Object, rep}
		}
		return res
	}
	order := make([]int, len(paths))
	for i := range order {
		order[i] = i
	}
	first := run(order)
	slices.Reverse(order)
	second := run(order)
	for i := range paths {
		if !bytes.Equal(first[i].obj, second[i].obj) {
			t.Errorf("%s: object differs when translated after other objects", paths[i])
		}
		if !bytes.Equal(first[i].report, second[i].report) {
			t.Errorf("%s: report differs when translated after other objects", paths[i])
		}
	}
}
