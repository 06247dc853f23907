// Package fuzzbench times the slowest input found for each parser that
// untrusted bytes enter (code objects, metadata, bundles, traces,
// .rocjitsu.lds, packets). Its tests and benchmarks have no library code:
// the inputs are the slowest-* files of each fuzz target's
// testdata/fuzz/FuzzXxx directory, kept there as seeds.
//
//	go test -run '^$' -bench SlowestInput ./internal/fuzzbench   # ms per input
//	go test -run SlowestInput ./internal/fuzzbench               # each under 10 ms
//
// To pick new slowest inputs, fuzz with ROCJITSU_FUZZ_SLOW=DIR (see
// internal/fuzzguard) and run the test with ROCJITSU_FUZZ_SLOW=DIR: it
// re-times every recorded input alone and lists the slowest per target.
package fuzzbench
