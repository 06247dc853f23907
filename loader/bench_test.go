package loader

import (
	"fmt"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
)

var (
	peerOnce sync.Once
	peerTime time.Duration
	// peerBatched is llvm-readelf-19 -a over 64 files per process.
	peerBatched time.Duration
	peerErr     error
)

// BenchmarkParseWrite parses and writes back every corpus object per
// iteration and reports the speed against llvm-readelf-19 -a over the same
// files, measured in the same run (x-vs-llvm-readelf = readelf time /
// loader time; above 1 means the loader is faster). readelf's time
// includes starting the process, which is what a caller pays for it;
// x-vs-llvm-readelf-batched runs readelf on 64 files per process to take
// most of the start-up cost out.
func BenchmarkParseWrite(b *testing.B) {
	readelf := llvmtool.Require(b, llvmtool.Readelf)
	files := corpusFiles(b)
	var data [][]byte
	var total int64
	for _, p := range files {
		d := readFile(b, p)
		data = append(data, d)
		total += int64(len(d))
	}
	// The peer: one llvm-readelf-19 -a run per file, measured once per
	// test binary (the benchmark function runs several times).
	peerOnce.Do(func() {
		start := time.Now()
		for _, p := range files {
			if out, err := exec.Command(readelf, "-a", p).CombinedOutput(); err != nil {
				peerErr = fmt.Errorf("%s: %v\n%s", p, err, out)
				return
			}
		}
		peerTime = time.Since(start)
		// The same work in as few processes as the command line allows.
		start = time.Now()
		for i := 0; i < len(files); i += 64 {
			chunk := files[i:min(i+64, len(files))]
			if out, err := exec.Command(readelf, append([]string{"-a"}, chunk...)...).CombinedOutput(); err != nil {
				peerErr = fmt.Errorf("batched: %v\n%s", err, out)
				return
			}
		}
		peerBatched = time.Since(start)
	})
	if peerErr != nil {
		b.Fatal(peerErr)
	}
	peer := peerTime

	b.SetBytes(total)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, d := range data {
			f, err := Parse(d)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := f.Write(); err != nil {
				b.Fatal(err)
			}
			_ = f.Kernels()
		}
	}
	b.StopTimer()
	per := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(peer)/float64(per), "x-vs-llvm-readelf")
	b.ReportMetric(float64(peerBatched)/float64(per), "x-vs-llvm-readelf-batched")
	b.ReportMetric(float64(len(files)), "objects")
}
