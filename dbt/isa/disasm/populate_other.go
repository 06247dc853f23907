//go:build !linux

package disasm

// populate does nothing where pages cannot be faulted in ahead (their
// first touch faults them in).
func populate(b []byte) {}
