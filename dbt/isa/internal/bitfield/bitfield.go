// Package bitfield reads and writes the bit fields of 32-bit instruction
// words. The GFX9 and GFX12 encoding descriptions (dbt/isa/gfx9/internal/enc
// and dbt/isa/gfx12/internal/enc) both place their operand and modifier
// fields with it.
package bitfield

// Mask returns the mask of the n bits starting at bit lo.
func Mask(lo, n uint8) uint32 { return uint32(1<<n-1) << lo }

// Get returns the n bits of w starting at bit lo, shifted down to bit 0.
func Get(w uint32, lo, n uint8) uint32 { return (w >> lo) & (1<<n - 1) }

// Set returns w with the n bits starting at bit lo replaced by the low n
// bits of v; the bits of v above n are dropped.
func Set(w uint32, lo, n uint8, v uint32) uint32 {
	m := Mask(lo, n)
	return w&^m | (v<<lo)&m
}
