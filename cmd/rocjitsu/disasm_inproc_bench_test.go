package main

import (
	"io"
	"testing"
)

// BenchmarkDisasmInProcess runs `rocjitsu disasm` over the 300-object
// listing of BenchmarkDisasmListing in this process, its output discarded,
// for CPU and allocation profiles of the disassembler alone
// (-cpuprofile, -memprofile).
func BenchmarkDisasmInProcess(b *testing.B) {
	files := disasmListing(b, 300)
	args := append([]string{"disasm"}, files...)
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		if code := runDisasm(args[1:], io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
