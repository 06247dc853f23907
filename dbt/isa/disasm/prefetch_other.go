//go:build !amd64

package disasm

import "unsafe"

// prefetch does nothing where the package has no prefetch instruction.
func prefetch(p unsafe.Pointer) {}
