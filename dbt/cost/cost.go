// Package cost classifies AMDGPU instructions by the unit that executes
// them (MFMA, VALU, memory, SALU, other) and tallies instruction counts per
// class, so the translator's output can be compared with its input: the
// static count of a code object and the dynamic count a simulator executes.
// It also holds the issue-cycle model (passes.go): the MFMA passes of
// gfx942 and gfx950 from LLVM's scheduling model, with every other
// instruction weighing one pass.
package cost

import (
	"fmt"
	"strings"
)

// Class is the unit class of an instruction.
type Class int

// The classes, in report order.
const (
	// MFMA: matrix instructions (v_mfma*, v_smfmac* and gfx12's v_wmma*,
	// v_swmmac*).
	MFMA Class = iota
	// VALU: other vector ALU instructions (v_*).
	VALU
	// Memory: vector and scalar memory and LDS (global, buffer, flat,
	// scratch, ds, s_load/s_store/s_buffer, s_*atomic*).
	Memory
	// SALU: scalar ALU and program control (s_* that are not memory).
	SALU
	// Other: anything else (export, image, unknown names).
	Other
	// NumClasses is the number of classes.
	NumClasses
)

var classNames = [NumClasses]string{"mfma", "valu", "memory", "salu", "other"}

// String returns the class name ("mfma", "valu", "memory", "salu",
// "other").
func (c Class) String() string {
	if c < 0 || c >= NumClasses {
		return fmt.Sprintf("class(%d)", int(c))
	}
	return classNames[c]
}

var memPrefixes = []string{"global_", "buffer_", "flat_", "scratch_", "ds_", "tbuffer_", "s_load", "s_store", "s_buffer_", "s_scratch_", "s_atomic", "s_dcache", "image_"}

// Of returns the class of the instruction with LLVM mnemonic name (an
// encoding suffix such as _e32 or _e64 does not matter).
func Of(name string) Class {
	for _, p := range memPrefixes {
		if strings.HasPrefix(name, p) {
			return Memory
		}
	}
	switch {
	case strings.HasPrefix(name, "v_mfma") || strings.HasPrefix(name, "v_smfmac") ||
		strings.HasPrefix(name, "v_wmma") || strings.HasPrefix(name, "v_swmmac"):
		return MFMA
	case strings.HasPrefix(name, "v_"):
		return VALU
	case strings.HasPrefix(name, "s_"):
		return SALU
	}
	return Other
}

// Counts is a tally of instructions per class.
type Counts [NumClasses]uint64

// Add counts n instructions of class c.
func (c *Counts) Add(cl Class, n uint64) {
	if cl >= 0 && cl < NumClasses {
		c[cl] += n
	}
}

// AddCounts adds every class of o to c.
func (c *Counts) AddCounts(o Counts) {
	for i := range c {
		c[i] += o[i]
	}
}

// Total is the sum over all classes.
func (c Counts) Total() uint64 {
	var t uint64
	for _, n := range c {
		t += n
	}
	return t
}

// Ratio returns host/guest per class and in total; a class the guest does
// not execute has ratio 0 (the host's extra instructions of that class are
// still in the total).
func Ratio(guest, host Counts) (perClass [NumClasses]float64, total float64) {
	for i := range guest {
		if guest[i] > 0 {
			perClass[i] = float64(host[i]) / float64(guest[i])
		}
	}
	if g := guest.Total(); g > 0 {
		total = float64(host.Total()) / float64(g)
	}
	return perClass, total
}

// WeightedBy returns sum(w[c]*host[c]) / sum(w[c]*guest[c]): the cost
// ratio when one instruction of class c costs w[c] (for example MFMA
// passes against one VALU cycle). It returns 0 when the guest costs
// nothing.
func WeightedBy(guest, host Counts, w [NumClasses]float64) float64 {
	var g, h float64
	for i := range guest {
		g += w[i] * float64(guest[i])
		h += w[i] * float64(host[i])
	}
	if g == 0 {
		return 0
	}
	return h / g
}

// DefaultWeights are relative issue costs per wave64 instruction used to
// weight the classes: an assumption of this package, not a hardware
// table. An MFMA counts 16 (a 16x16 f16/bf16 MFMA occupies the matrix
// unit for several passes), a VALU or memory instruction 4 (wave64 issues
// over four cycles), an SALU or other instruction 1.
var DefaultWeights = [NumClasses]float64{MFMA: 16, VALU: 4, Memory: 4, SALU: 1, Other: 1}
