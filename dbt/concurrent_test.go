package dbt

import (
	"bytes"
	"sync"
	"testing"
)

// TestConcurrentTranslate: the shim translates code objects from several
// threads at once; concurrent translations must give the same bytes as
// sequential ones (no shared mutable state). Run it with -race too.
func TestConcurrentTranslate(t *testing.T) {
	paths := append(testKernels(t, "gfx950")[:6], corpus(t, "gfx950")[:2]...)
	want := make([][]byte, len(paths))
	for i, p := range paths {
		res, _ := Translate(readFile(t, p), Options{})
		want[i] = res.Object
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4*len(paths))
	for rep := 0; rep < 4; rep++ {
		for i, p := range paths {
			wg.Add(1)
			go func(i int, src []byte) {
				defer wg.Done()
				res, _ := Translate(src, Options{})
				if !bytes.Equal(res.Object, want[i]) {
					errs <- paths[i]
				}
			}(i, readFile(t, p))
		}
	}
	wg.Wait()
	close(errs)
	for p := range errs {
		t.Fatalf("%s: concurrent translation differs from the sequential one", p)
	}
}
