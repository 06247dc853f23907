// Package sqtt implements the data formats of SQTT instrument markers: the
// 32-bit marker word written by s_ttracedata, the gfx12 packed header layout
// that carries a truncated shader clock, the .sqtt_funcmap section that maps
// marker ids to names, its extraction from AMDGPU code objects, and the
// marker tables that rocprofv3 and att_tool write into code.json.
//
// The trace reader, clock correction, stack reconstruction and the
// flamegraph and Perfetto writers live in the sub-packages attdir, clock,
// waves, flame and perfetto.
package sqtt

import "fmt"

// Marker word flag bits (bits 1:0 of every marker word).
const (
	// FlagExitPrev pops the innermost open scope.
	FlagExitPrev uint32 = 1 << 0
	// FlagEnter pushes the scope named by the marker id.
	FlagEnter uint32 = 1 << 1
)

// MaxMarkerID is the largest id the legacy layout can carry (30 bits).
const MaxMarkerID = 1<<30 - 1

// Marker is one decoded marker word.
type Marker struct {
	// ID is the marker id; its kind (function, user scope, point) comes
	// from the funcmap only.
	ID uint32
	// Enter is bit 1: push scope ID.
	Enter bool
	// ExitPrev is bit 0: pop the innermost scope first.
	ExitPrev bool
	// Clock is the right-aligned packed shader-clock field of a gfx12
	// packed header; 0 for the legacy layout.
	Clock uint32
	// Packed reports whether the word was decoded with a packed layout.
	Packed bool
}

// Flags returns the two flag bits of m as they appear in the marker word.
func (m Marker) Flags() uint32 {
	var f uint32
	if m.ExitPrev {
		f |= FlagExitPrev
	}
	if m.Enter {
		f |= FlagEnter
	}
	return f
}

// IsBareExit reports whether m is the plain exit word (id 0, exit_prev set,
// enter clear): pop the innermost scope.
func (m Marker) IsBareExit() bool { return m.ID == 0 && m.ExitPrev && !m.Enter }

// IsNoop reports whether m changes nothing: id 0 without exit_prev.
func (m Marker) IsNoop() bool { return m.ID == 0 && !m.ExitPrev }

// Legacy returns the legacy (no-clock) word for m: (id << 2) | flags.
func (m Marker) Legacy() uint32 { return m.ID<<2 | m.Flags() }

// String formats m for diagnostics, e.g. "enter 42" or "exit+enter 9".
func (m Marker) String() string {
	switch {
	case m.IsBareExit():
		return "exit"
	case m.IsNoop():
		return "noop"
	case m.Enter && m.ExitPrev:
		return fmt.Sprintf("exit+enter %d", m.ID)
	case m.Enter:
		return fmt.Sprintf("enter %d", m.ID)
	case m.ExitPrev:
		return fmt.Sprintf("exit %d", m.ID)
	}
	return fmt.Sprintf("point %d", m.ID)
}

// Encode returns the legacy marker word (id << 2) | flags. Ids above
// MaxMarkerID lose their top bits, as on the hardware.
func Encode(id uint32, enter, exitPrev bool) uint32 {
	return Marker{ID: id, Enter: enter, ExitPrev: exitPrev}.Legacy()
}

// Decode decodes a marker word with the legacy layout: id = v >> 2.
func Decode(v uint32) Marker {
	return Marker{ID: v >> 2, Enter: v&FlagEnter != 0, ExitPrev: v&FlagExitPrev != 0}
}

// MarkerEncoding is the header layout declared by a funcmap M: row
// (M:shader_clock_bits=N;shader_clock_shift=S). The zero value is the
// legacy no-clock layout. With N clock bits the clock field occupies bits
// 31..32-N and the id bits 31-N..2.
type MarkerEncoding struct {
	// ShaderClockBits is N, the width of the packed clock field.
	ShaderClockBits uint32
	// ShaderClockShift is S, the lowest SHADER_CYCLES bit the field holds.
	ShaderClockShift uint32
}

// Valid reports whether the layout is usable: no clock, or
// N <= 29, S < 32 and N <= 32-S.
func (e MarkerEncoding) Valid() bool {
	b, s := e.ShaderClockBits, e.ShaderClockShift
	return b == 0 || (b <= 29 && s < 32 && b <= 32-s)
}

// HasShaderClock reports whether the layout packs a clock field.
func (e MarkerEncoding) HasShaderClock() bool { return e.ShaderClockBits != 0 }

// Packed reports whether headers use the packed layout (clock present and
// the layout valid).
func (e MarkerEncoding) Packed() bool { return e.HasShaderClock() && e.Valid() }

func bitMask(n uint32) uint32 {
	if n >= 32 {
		return ^uint32(0)
	}
	return 1<<n - 1
}

// MarkerIDMask is the mask of the id bits in the raw word: 0xFFFFFFFC for
// the legacy layout (and for invalid layouts), else bits 31-N..2.
func (e MarkerEncoding) MarkerIDMask() uint32 {
	if !e.Packed() {
		return 0xFFFFFFFC
	}
	return bitMask(30-e.ShaderClockBits) << 2
}

// PackedShaderClockMask is the mask of the clock field in the raw word
// (bits 31..32-N); 0 without a clock.
func (e MarkerEncoding) PackedShaderClockMask() uint32 {
	if !e.Packed() {
		return 0
	}
	return bitMask(e.ShaderClockBits) << (32 - e.ShaderClockBits)
}

// ShaderClockSourceMask is the window of SHADER_CYCLES_LO that the field
// samples (bits S+N-1..S); 0 without a clock.
func (e MarkerEncoding) ShaderClockSourceMask() uint32 {
	if !e.Packed() {
		return 0
	}
	return bitMask(e.ShaderClockBits) << e.ShaderClockShift
}

// DecodeShaderClock returns the right-aligned packed clock field of raw; 0
// without a clock. It is meaningful only for a known packed header.
func (e MarkerEncoding) DecodeShaderClock(raw uint32) uint32 {
	if !e.Packed() {
		return 0
	}
	return (raw >> (32 - e.ShaderClockBits)) & bitMask(e.ShaderClockBits)
}

// SampledWindow returns the clock field of raw shifted back to its source
// bit position (field << S), comparable with the low shader-clock bits.
func (e MarkerEncoding) SampledWindow(raw uint32) uint64 {
	return uint64(e.DecodeShaderClock(raw)) << e.ShaderClockShift
}

// Decode decodes raw with this layout, for a word known to be a packed
// header. Without a valid clock layout it is the legacy Decode.
func (e MarkerEncoding) Decode(raw uint32) Marker {
	if !e.Packed() {
		return Decode(raw)
	}
	m := Decode(raw)
	m.ID = (raw >> 2) & bitMask(30-e.ShaderClockBits)
	m.Clock = e.DecodeShaderClock(raw)
	m.Packed = true
	return m
}

// Encode builds a packed header word for id with the given flags and clock
// field (right-aligned). Without a clock it is the legacy Encode.
func (e MarkerEncoding) Encode(id uint32, enter, exitPrev bool, clock uint32) uint32 {
	if !e.Packed() {
		return Encode(id, enter, exitPrev)
	}
	w := (id & bitMask(30-e.ShaderClockBits)) << 2
	if exitPrev {
		w |= FlagExitPrev
	}
	if enter {
		w |= FlagEnter
	}
	return w | (clock&bitMask(e.ShaderClockBits))<<(32-e.ShaderClockBits)
}

// String returns the M: row payload, "shader_clock_bits=N;shader_clock_shift=S".
func (e MarkerEncoding) String() string {
	return fmt.Sprintf("shader_clock_bits=%d;shader_clock_shift=%d", e.ShaderClockBits, e.ShaderClockShift)
}
