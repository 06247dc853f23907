package main

import (
	"io"
	"testing"
)

// BenchmarkDisasmInProcess runs `rocjitsu disasm` over the listings of
// BenchmarkDisasmListing (objects=300, and distinct: each object once) in
// this process, its output discarded, for CPU and allocation profiles of
// the disassembler alone (-cpuprofile, -memprofile).
func BenchmarkDisasmInProcess(b *testing.B) {
	all := disasmListing(b, 300)
	distinct := all[:1]
	for _, p := range all[1:] {
		if p == all[0] {
			break
		}
		distinct = append(distinct, p)
	}
	for _, c := range []struct {
		name  string
		files []string
	}{{"objects=300", all}, {"distinct", distinct}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for n := 0; n < b.N; n++ {
				if code := runDisasm(c.files, io.Discard, io.Discard); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}
