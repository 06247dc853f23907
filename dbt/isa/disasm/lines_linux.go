package disasm

import (
	"runtime"
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on Linux x86-64 and
// arm64 (4 KB base pages).
const hugePage = 2 << 20

// madvHugepage is MADV_HUGEPAGE.
const madvHugepage = 14

// mapRegion returns n bytes of zeroed memory for owner's use (a memo's
// lines, entries and successor links: no Go pointers may be stored in
// it), or nil, for the caller to allocate them on the Go heap. For a memo of at least memoHugeEntries entries and from one huge
// page up, the memory is mapped apart from the Go heap,
// aligned to a huge page and marked for transparent huge pages
// (MADV_HUGEPAGE): the lines of the distinct listing of
// BenchmarkDisasmListing fill 3 MB, about 800 page faults in 4 KB pages
// and two in 2 MB pages. The mapping is released once owner is
// unreachable. Smaller regions (a small object's memo would zero a whole
// huge page for a few lines), or where the mapping fails, get nil.
func mapRegion[T any](owner *T, n, entries int) []byte {
	if n < hugePage || entries < memoHugeEntries {
		return nil
	}
	raw, err := syscall.Mmap(-1, 0, n+hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil
	}
	skip := 0
	if rem := int(uintptr(unsafe.Pointer(unsafe.SliceData(raw))) % hugePage); rem != 0 {
		skip = hugePage - rem
	}
	region := raw[skip : skip+n : skip+n]
	// Without transparent huge pages (or with them off), the region
	// faults in 4 KB pages as heap memory does.
	_ = syscall.Madvise(region, madvHugepage)
	runtime.AddCleanup(owner, func(raw []byte) { _ = syscall.Munmap(raw) }, raw)
	return region
}
