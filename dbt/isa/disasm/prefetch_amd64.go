package disasm

import "unsafe"

// prefetch asks the processor to bring the cache line of p into its
// caches (PREFETCHT0) without waiting for it.
//
//go:noescape
func prefetch(p unsafe.Pointer)
