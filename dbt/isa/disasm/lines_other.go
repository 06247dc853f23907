//go:build !linux

package disasm

// mapRegion returns nil: the memory of a memo of entries entries comes
// from the Go heap (the Linux build maps large memos in huge pages).
func mapRegion[T any](owner *T, n, entries int) []byte { return nil }
