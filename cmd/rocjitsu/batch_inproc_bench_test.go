package main

import (
	"fmt"
	"io"
	"path/filepath"
	"testing"
)

// BenchmarkTranslateBatchInProc runs the batch translation of
// BenchmarkTranslateBatch's inputs for gfx942 in this process (runMain, as
// `rocjitsu translate --to gfx942 -o DIR IN...`), so that -cpuprofile and
// -memprofile see the batch path. It reports allocations per object.
func BenchmarkTranslateBatchInProc(b *testing.B) {
	ins, _ := translateInputs(b)
	dir := b.TempDir()
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		args := append([]string{"translate", "--to", "gfx942", "-o", filepath.Join(dir, fmt.Sprintf("batch%d", n))}, ins...)
		if rc := runMain(args, io.Discard, io.Discard); rc != 0 && rc != 3 {
			b.Fatalf("rocjitsu translate: exit %d", rc)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(ins)), "objects")
}
