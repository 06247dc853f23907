package codeobj

import (
	"encoding/binary"
	"fmt"
)

// ELF program header types whose file ranges a loader reads.
const (
	ptLoad    = 1
	ptDynamic = 2
	ptNote    = 4
)

// CheckBounds reports the first place where an ELF64 image points outside
// itself: the header, the program and section header tables, and the file
// range of every segment a loader reads (PT_LOAD, PT_DYNAMIC, PT_NOTE). A
// code object that fails it would make the runtime's loader read past the
// end of the bytes it was given (a truncated file does: its section header
// table, at the end, is cut); the shim refuses such an object with an HSA
// error instead of handing it on. It checks nothing else: a damaged
// section the loader does not need is the runtime's to judge (fail open).
func CheckBounds(b []byte) error {
	le := binary.LittleEndian
	if len(b) < 64 {
		return fmt.Errorf("ELF header: %d bytes, need 64", len(b))
	}
	if string(b[:4]) != "\x7fELF" || b[4] != 2 || b[5] != 1 {
		return fmt.Errorf("offset 0: not a little-endian ELF64 image")
	}
	size := uint64(len(b))
	within := func(what string, off, n uint64) error {
		if off > size || n > size-off {
			return fmt.Errorf("%s: bytes %#x..%#x are beyond the end of the %d-byte image", what, off, off+n, size)
		}
		return nil
	}
	phoff, shoff := le.Uint64(b[32:]), le.Uint64(b[40:])
	phentsize, phnum := uint64(le.Uint16(b[54:])), uint64(le.Uint16(b[56:]))
	shentsize, shnum := uint64(le.Uint16(b[58:])), uint64(le.Uint16(b[60:]))
	if phnum > 0 {
		if phentsize < 56 {
			return fmt.Errorf("offset 54 (e_phentsize): %d, need 56", phentsize)
		}
		if err := within("program header table (e_phoff)", phoff, phnum*phentsize); err != nil {
			return err
		}
		for i := uint64(0); i < phnum; i++ {
			p := b[phoff+i*phentsize:]
			switch le.Uint32(p) {
			case ptLoad, ptDynamic, ptNote:
				if err := within(fmt.Sprintf("program header %d (offset %#x): segment", i, phoff+i*phentsize), le.Uint64(p[8:]), le.Uint64(p[32:])); err != nil {
					return err
				}
			}
		}
	}
	if shnum > 0 {
		if shentsize < 64 {
			return fmt.Errorf("offset 58 (e_shentsize): %d, need 64", shentsize)
		}
		if err := within("section header table (e_shoff)", shoff, shnum*shentsize); err != nil {
			return err
		}
	}
	return nil
}
