package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/rocjitsu/rocjitsu/dbt"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// isDir reports whether p names an existing directory.
func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// batchResult is one input's outcome in batch mode.
type batchResult struct {
	rep  *report.Object
	err  error // translation error (rejection or bad input)
	werr error // I/O error (reading the input or writing the output)
}

// runBatch translates every input into dir/BASENAME, up to jobs objects at
// once, printing each report in input order. It returns 0 when every
// object was translated, 3 when any was rejected (the others are still
// written), 1 on an I/O error and 2 on a usage error.
func runBatch(ins []string, dir, repPath string, host isa.Target, stats bool, jobs int, stderr io.Writer) int {
	if len(ins) == 0 {
		fmt.Fprintln(stderr, "rocjitsu translate: no inputs")
		return 2
	}
	seen := map[string]string{}
	for _, in := range ins {
		b := filepath.Base(in)
		if prev, dup := seen[b]; dup {
			fmt.Fprintf(stderr, "rocjitsu translate: %s and %s would both be written to %s\n", prev, in, filepath.Join(dir, b))
			return 2
		}
		seen[b] = in
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "rocjitsu translate: %v\n", err)
		return 1
	}
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	jobs = min(jobs, len(ins))
	// Objects run in parallel; the kernels of one object then run one
	// after another unless there are fewer objects than workers.
	workers := 1
	if jobs < runtime.GOMAXPROCS(0) {
		workers = 0
	}
	start := time.Now()
	res := make([]batchResult, len(ins))
	done := make([]chan struct{}, len(ins))
	for i := range done {
		done[i] = make(chan struct{})
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer // this worker's input buffer, reused per object
			for i := range next {
				res[i] = translateOne(ins[i], dir, host, stats, workers, &buf)
				close(done[i])
			}
		}()
	}
	go func() {
		for _, i := range largestFirst(ins) {
			next <- i
		}
		close(next)
	}()
	var reps []report.Object
	rc, ok, text := 0, 0, 0
	for i := range ins {
		<-done[i]
		r := res[i]
		if r.rep != nil {
			_ = r.rep.WriteText(stderr)
			reps = append(reps, *r.rep)
			text += r.rep.SourceText
		}
		switch {
		case r.werr != nil:
			fmt.Fprintf(stderr, "rocjitsu translate: %v\n", r.werr)
			rc = 1
		case r.err != nil:
			fmt.Fprintf(stderr, "rocjitsu translate: %s: %v\n", ins[i], r.err)
			if rc == 0 {
				rc = 3
			}
			if !errors.Is(r.err, dbt.ErrRejected) {
				rc = max(rc, 1)
			}
		default:
			ok++
		}
	}
	wg.Wait()
	el := time.Since(start)
	fmt.Fprintf(stderr, "rocjitsu translate: %d of %d objects translated in %v (%d jobs, %.1f MB/s of guest .text)\n",
		ok, len(ins), el.Round(time.Millisecond), jobs, float64(text)/el.Seconds()/1e6)
	if repPath != "" {
		j, err := report.MarshalIndent(reps)
		if err == nil {
			err = os.WriteFile(repPath, j, 0o644)
		}
		if err != nil {
			fmt.Fprintf(stderr, "rocjitsu translate: report: %v\n", err)
			return 1
		}
	}
	return rc
}

// largestFirst returns the indexes of ins by decreasing file size (ties
// and unreadable files in input order): started first, the largest
// objects do not leave one worker translating alone at the end.
func largestFirst(ins []string) []int {
	order := make([]int, len(ins))
	size := make([]int64, len(ins))
	for i, in := range ins {
		order[i] = i
		if st, err := os.Stat(in); err == nil {
			size[i] = st.Size()
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return size[order[a]] > size[order[b]] })
	return order
}

// translateOne reads in into buf (this worker's, reused from object to
// object), translates it and writes dir/BASENAME. Nothing the outcome
// holds refers to the input bytes (the translation and the report are
// copies), so buf may take the next object.
func translateOne(in, dir string, host isa.Target, stats bool, workers int, buf *bytes.Buffer) batchResult {
	b, err := readInto(in, buf)
	if err != nil {
		return batchResult{werr: err}
	}
	res, terr := dbt.Translate(b, dbt.Options{Host: host, Name: filepath.Base(in), Stats: stats, Workers: workers, NoPCMap: true})
	if res == nil {
		return batchResult{err: terr}
	}
	if terr == nil && stats {
		addDynamicCost(&res.Report, b, res.Object)
	}
	out := batchResult{rep: &res.Report, err: terr}
	if terr == nil {
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(in)), res.Object, 0o644); err != nil {
			out.werr = err
		}
	}
	return out
}

// readInto reads the file name into buf, emptied first, and returns its
// bytes (buf's storage). The error, like os.ReadFile's, names the file.
func readInto(name string, buf *bytes.Buffer) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf.Reset()
	if st, err := f.Stat(); err == nil {
		buf.Grow(int(st.Size()) + bytes.MinRead) // one read to the end, as os.ReadFile
	}
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return buf.Bytes(), nil
}
