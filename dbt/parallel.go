package dbt

import (
	"runtime"
	"sort"
	"sync"
)

// emitAll emits every kernel scope, on up to workers goroutines (0:
// GOMAXPROCS). Scopes share only read-only state (the source graph, the
// parsed object, the pair), and each writes its own kernelT, so the result
// is the same as emitting them in order.
func emitAll(kts []*kernelT, workers int) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(kts))
	if workers <= 1 {
		for _, kt := range kts {
			kt.emit()
		}
		return
	}
	next := make(chan *kernelT)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for kt := range next {
				kt.emit()
			}
		}()
	}
	// Largest scopes first, so one long kernel does not finish last.
	for _, kt := range bySize(kts) {
		next <- kt
	}
	close(next)
	wg.Wait()
}

// bySize returns kts ordered by decreasing scope size (stable).
func bySize(kts []*kernelT) []*kernelT {
	out := append([]*kernelT(nil), kts...)
	size := make(map[*kernelT]int, len(out))
	for _, kt := range out {
		size[kt] = kt.scopeInsts()
	}
	sort.SliceStable(out, func(i, j int) bool { return size[out[i]] > size[out[j]] })
	return out
}
