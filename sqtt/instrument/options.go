package instrument

import (
	"fmt"
	"strconv"
	"strings"
)

// Threshold selects which callees get function entry/exit markers.
type Threshold struct {
	// N is the size a function must exceed; 0 disables function markers.
	N int
	// Cost selects the weighted cost model (MFMA 16, global/flat/buffer
	// memory 10, LDS 4, waits/nops/barrier hints 0, everything else 1)
	// instead of the plain instruction count.
	Cost bool
}

// ParseThreshold parses "N" or "cost:N".
func ParseThreshold(s string) (Threshold, error) {
	var t Threshold
	v := s
	if rest, ok := strings.CutPrefix(s, "cost:"); ok {
		t.Cost, v = true, rest
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return t, fmt.Errorf("instrument: --functions %q: want N or cost:N with N >= 0", s)
	}
	t.N = n
	return t, nil
}

// MemGroup is the memory-op grouping N:M of the seed: one marker per N
// consecutive loads (or stores) whose gaps are at most M instructions.
type MemGroup struct{ N, M int }

// ParseMemGroup parses "N:M".
func ParseMemGroup(s string) (MemGroup, error) {
	a, b, ok := strings.Cut(s, ":")
	n, err1 := strconv.Atoi(a)
	m, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || m < 0 {
		return MemGroup{}, fmt.Errorf("instrument: --memory %q: want N:M with N >= 1, M >= 0", s)
	}
	return MemGroup{N: n, M: m}, nil
}

// Region names the code range [Start, End) of .text addresses: an enter
// marker before the instruction at Start, an exit before the one at End.
type Region struct {
	Name       string
	Start, End uint64
}

// ParseRegion parses NAME=START:END (addresses in hex with 0x, or decimal).
func ParseRegion(s string) (Region, error) {
	name, rng, ok := strings.Cut(s, "=")
	a, b, ok2 := strings.Cut(rng, ":")
	if !ok || !ok2 || name == "" || strings.ContainsAny(name, "\n\x00@:") {
		return Region{}, fmt.Errorf("instrument: --region %q: want NAME=START:END", s)
	}
	start, err1 := strconv.ParseUint(a, 0, 64)
	end, err2 := strconv.ParseUint(b, 0, 64)
	if err1 != nil || err2 != nil || end <= start {
		return Region{}, fmt.Errorf("instrument: --region %q: START and END must be addresses with START < END", s)
	}
	return Region{Name: name, Start: start, End: end}, nil
}

// Options select what the pass instruments.
type Options struct {
	// Barriers adds the seed's barrier point markers.
	Barriers bool
	// Functions instruments callees (targets of s_call_b64/s_swappc_b64)
	// larger than the threshold: enter at the entry, exit at each
	// s_setpc_b64 return.
	Functions Threshold
	// Memory, when N > 0, adds vmem_load/vmem_store group markers.
	Memory MemGroup
	// Loops makes each natural loop of the CFG a user scope.
	Loops bool
	// Regions are named code ranges made user scopes.
	Regions []Region
	// Scope holds the wave, SIMD, CU (WGP on gfx12) and workgroup masks;
	// a dimension that is nil or all ones is not filtered.
	Scope [4]*uint32
	// Addresses traces per-lane addresses (AddrMemory|AddrLDS).
	Addresses int
	// ShaderClockBits and ShaderClockShift select gfx12 shader-clock
	// packing of marker headers (0 bits: off).
	ShaderClockBits, ShaderClockShift uint32
}

// ScopeDims names the dimensions of Options.Scope.
var ScopeDims = [4]string{"wave", "simd", "cu", "wg"}

// scopeActive reports whether dimension d filters, given its field width.
func (o *Options) scopeActive(d int, width uint32) (uint32, bool) {
	m := o.Scope[d]
	if m == nil || *m == 0xffffffff {
		return 0, false
	}
	if width < 32 && *m&(1<<width-1) == 1<<width-1 {
		return 0, false
	}
	return *m, true
}
