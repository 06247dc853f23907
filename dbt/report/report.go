// Package report holds the translator's fidelity report: for each code
// object, kernel and instruction kind, whether the translation is exact,
// approximate (with its bound) or rejected (with the reason and the source
// address), and whether a kernel needs a virtual-LDS sidecar because its
// guest LDS exceeds the host's.
//
// The report is plain data with a stable JSON form (field order fixed, lists
// sorted), so two translations of the same input produce the same report.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Fidelity says how faithfully the host code reproduces the guest code.
type Fidelity string

// The fidelity levels, from best to worst. A kernel's fidelity is the worst
// of its instructions'.
const (
	Exact       Fidelity = "exact"
	Approximate Fidelity = "approximate"
	Rejected    Fidelity = "rejected"
)

// rank orders fidelities from best (0) to worst.
func (f Fidelity) rank() int {
	switch f {
	case Exact:
		return 0
	case Approximate:
		return 1
	default:
		return 2
	}
}

// Worse returns the worse of f and g.
func (f Fidelity) Worse(g Fidelity) Fidelity {
	if g.rank() > f.rank() {
		return g
	}
	return f
}

// Action is the legalization decision taken for one guest instruction.
type Action string

// The legalization actions of the DBT design.
const (
	// Identity: the host form is encoding-compatible; the bytes are kept.
	Identity Action = "identity"
	// Substitute: the encoding is compatible but the opcode changes.
	Substitute Action = "substitute"
	// Lower: the same semantics in a different encoding layout.
	Lower Action = "lower"
	// Expand: a hand-written semantic rule emits a host sequence.
	Expand Action = "expand"
	// Reject: no proven rule; the kernel fails closed.
	Reject Action = "reject"
	// Relocate: a control-flow instruction re-targeted through a patch
	// window (its semantics are unchanged).
	Relocate Action = "relocate"
)

// Kind is the tally of one instruction kind (guest mnemonic) in a kernel.
type Kind struct {
	// Mnemonic is the guest mnemonic (LLVM spelling).
	Mnemonic string `json:"mnemonic"`
	// Action is the legalization decision.
	Action Action `json:"action"`
	// Rule names the hand-written rule for Expand (empty otherwise).
	Rule string `json:"rule,omitempty"`
	// Fidelity of this kind's translation.
	Fidelity Fidelity `json:"fidelity"`
	// Bound describes the error bound of an approximate rule.
	Bound string `json:"bound,omitempty"`
	// Count is how many instances the kernel scope contains.
	Count int `json:"count"`
}

// Rejection is one instruction that made a kernel fail closed.
type Rejection struct {
	// Offset is the source .text-relative ELF virtual address of the
	// instruction.
	Offset uint64 `json:"offset"`
	// Mnemonic is the guest mnemonic, or "" when the word did not decode.
	Mnemonic string `json:"mnemonic,omitempty"`
	// Reason says why no rule applies.
	Reason string `json:"reason"`
}

// Resources are descriptor resource figures before and after translation.
type Resources struct {
	// VGPRs is the architected VGPR count (granule-rounded, AGPRs excluded).
	VGPRs int `json:"vgprs"`
	// SGPRs is the SGPR count the descriptor reserves.
	SGPRs int `json:"sgprs"`
	// PrivateSegment is the per-lane private segment size in bytes.
	PrivateSegment uint32 `json:"private_segment"`
	// GroupSegment is the static LDS size in bytes.
	GroupSegment uint32 `json:"group_segment"`
}

// Kernel is the report for one kernel scope.
type Kernel struct {
	// Name is the kernel symbol (the descriptor symbol without ".kd").
	Name string `json:"name"`
	// Fidelity is the worst fidelity of the kernel's instructions.
	Fidelity Fidelity `json:"fidelity"`
	// SourceEntry is the guest entry's ELF virtual address.
	SourceEntry uint64 `json:"source_entry"`
	// HostEntry is the translated entry's ELF virtual address (0 if
	// rejected).
	HostEntry uint64 `json:"host_entry,omitempty"`
	// SourceBytes and HostBytes are the scope's code size before and after.
	SourceBytes int `json:"source_bytes"`
	HostBytes   int `json:"host_bytes,omitempty"`
	// Instructions is the number of guest instructions in the scope.
	Instructions int `json:"instructions"`
	// Before and After are the descriptor resources.
	Before Resources `json:"before"`
	After  Resources `json:"after"`
	// NeedsVirtualLDS is set when the guest's static LDS exceeds the host
	// limit; the normal body is still produced, a sidecar is required to
	// run it.
	NeedsVirtualLDS bool `json:"needs_virtual_lds,omitempty"`
	// LongBranches counts branches repaired through a long window or
	// inverted conditional.
	LongBranches int `json:"long_branches,omitempty"`
	// IslandBranches counts branches routed through branch-island pools
	// (no scratch SGPR pair for a long window).
	IslandBranches int `json:"island_branches,omitempty"`
	// IslandHops counts the island stubs on those branches' routes (more
	// than one per branch: a chain of pools).
	IslandHops int `json:"island_hops,omitempty"`
	// RecoveredIndirect counts recovered s_setpc/s_swappc transfers.
	RecoveredIndirect int `json:"recovered_indirect,omitempty"`
	// Kinds tallies instruction kinds, sorted by mnemonic.
	Kinds []Kind `json:"kinds"`
	// Rejections lists the instructions without a rule, by offset.
	Rejections []Rejection `json:"rejections,omitempty"`
	// Notes carries other diagnostics (one sentence each).
	Notes []string `json:"notes,omitempty"`
	// Static counts the scope's instructions by class, guest and host
	// (only when the translation was asked for statistics).
	Static *Cost `json:"static,omitempty"`
	// Dynamic counts the instructions a simulator executed, by class,
	// running the guest and the translation on the same inputs (set by
	// callers that ran both).
	Dynamic *Cost `json:"dynamic,omitempty"`
}

// ClassCounts are instruction counts by execution class.
type ClassCounts struct {
	MFMA   uint64 `json:"mfma"`
	VALU   uint64 `json:"valu"`
	Memory uint64 `json:"memory"`
	SALU   uint64 `json:"salu"`
	Other  uint64 `json:"other"`
}

// Total is the sum over all classes.
func (c ClassCounts) Total() uint64 { return c.MFMA + c.VALU + c.Memory + c.SALU + c.Other }

// Cost compares guest and host instruction counts by class.
type Cost struct {
	Guest ClassCounts `json:"guest"`
	Host  ClassCounts `json:"host"`
	// GuestPasses and HostPasses weigh executed instructions in
	// dbt/cost's issue-cycle model (MFMA passes on each side's ISA, one
	// per other instruction; a model, not a cycle count). Zero for
	// static counts and when the caller did not measure them.
	GuestPasses uint64 `json:"guest_passes,omitempty"`
	HostPasses  uint64 `json:"host_passes,omitempty"`
}

// Ratio is the host/guest ratio of the totals (0 when the guest has no
// instructions).
func (c *Cost) Ratio() float64 {
	if c == nil || c.Guest.Total() == 0 {
		return 0
	}
	return float64(c.Host.Total()) / float64(c.Guest.Total())
}

// writeCost writes one line per class: guest, host and their ratio.
func writeCost(b *strings.Builder, what string, c *Cost) {
	fmt.Fprintf(b, "    %s instructions: guest %d, host %d (%.2fx)\n", what, c.Guest.Total(), c.Host.Total(), c.Ratio())
	g := []uint64{c.Guest.MFMA, c.Guest.VALU, c.Guest.Memory, c.Guest.SALU, c.Guest.Other}
	h := []uint64{c.Host.MFMA, c.Host.VALU, c.Host.Memory, c.Host.SALU, c.Host.Other}
	for i, name := range []string{"mfma", "valu", "memory", "salu", "other"} {
		if g[i] == 0 && h[i] == 0 {
			continue
		}
		r := "-"
		if g[i] > 0 {
			r = fmt.Sprintf("%.2fx", float64(h[i])/float64(g[i]))
		}
		fmt.Fprintf(b, "      %-7s %10d -> %10d  %s\n", name, g[i], h[i], r)
	}
	if c.GuestPasses > 0 {
		fmt.Fprintf(b, "      issue-cycle model (MFMA passes, 1 per other instruction): %d -> %d  %.2fx\n",
			c.GuestPasses, c.HostPasses, float64(c.HostPasses)/float64(c.GuestPasses))
	}
}

// Object is the report for one code object.
type Object struct {
	// Name identifies the input (a file name, or "" for in-memory input).
	Name string `json:"name,omitempty"`
	// Guest and Host are the processor names (e.g. "gfx950", "gfx942").
	Guest string `json:"guest"`
	Host  string `json:"host"`
	// Fidelity is the worst fidelity of the object's kernels.
	Fidelity Fidelity `json:"fidelity"`
	// Committed is true when a translated object was produced.
	Committed bool `json:"committed"`
	// SourceText and HostText are the .text sizes in bytes.
	SourceText int `json:"source_text"`
	HostText   int `json:"host_text,omitempty"`
	// Kernels is sorted by name.
	Kernels []Kernel `json:"kernels"`
	// Error is set when the object as a whole could not be translated.
	Error string `json:"error,omitempty"`
}

// Tally records count more instances of a kind in k, merging with an
// existing entry of the same mnemonic, action and rule, and lowers k's
// fidelity accordingly.
func (k *Kernel) Tally(kind Kind) { k.TallyAt(kind, -1) }

// TallyAt is Tally with a guess at where kind's entry is: when Kinds[at]
// is that entry, kind is counted there without a search. It returns the
// index of the entry kind was counted in, a guess for the next time.
func (k *Kernel) TallyAt(kind Kind, at int) int {
	k.worsen(kind.Fidelity)
	same := func(e *Kind) bool {
		return e.Mnemonic == kind.Mnemonic && e.Action == kind.Action && e.Rule == kind.Rule
	}
	if at >= 0 && at < len(k.Kinds) && same(&k.Kinds[at]) {
		k.Kinds[at].Count += kind.Count
		return at
	}
	for i := range k.Kinds {
		if e := &k.Kinds[i]; same(e) {
			e.Count += kind.Count
			return i
		}
	}
	k.Kinds = append(k.Kinds, kind)
	return len(k.Kinds) - 1
}

// CountAt counts one more instance in Kinds[at] when that entry is the
// kind of mnemonic, action and rule, lowering k's fidelity to f as
// TallyAt does, and reports whether it did (k is unchanged otherwise):
// TallyAt's common case without building a Kind.
func (k *Kernel) CountAt(at int, mnemonic string, action Action, rule string, f Fidelity) bool {
	if at < 0 || at >= len(k.Kinds) {
		return false
	}
	e := &k.Kinds[at]
	if e.Mnemonic != mnemonic || e.Action != action || e.Rule != rule {
		return false
	}
	k.worsen(f)
	e.Count++
	return true
}

// worsen lowers k's fidelity to f (an empty one is Exact first), storing
// it only when it changes.
func (k *Kernel) worsen(f Fidelity) {
	if k.Fidelity == "" {
		k.Fidelity = Exact
	}
	if f != k.Fidelity {
		if w := k.Fidelity.Worse(f); w != k.Fidelity {
			k.Fidelity = w
		}
	}
}

// Reject records a rejection and marks k rejected.
func (k *Kernel) Reject(r Rejection) {
	k.Fidelity = Rejected
	k.Rejections = append(k.Rejections, r)
}

// Finish sorts k's lists and fills an empty fidelity with Exact.
func (k *Kernel) Finish() {
	if k.Fidelity == "" {
		k.Fidelity = Exact
	}
	sort.Slice(k.Kinds, func(i, j int) bool {
		a, b := &k.Kinds[i], &k.Kinds[j]
		if a.Mnemonic != b.Mnemonic {
			return a.Mnemonic < b.Mnemonic
		}
		if a.Action != b.Action {
			return a.Action < b.Action
		}
		return a.Rule < b.Rule
	})
	sort.SliceStable(k.Rejections, func(i, j int) bool {
		a, b := &k.Rejections[i], &k.Rejections[j]
		if a.Offset != b.Offset {
			return a.Offset < b.Offset
		}
		if a.Mnemonic != b.Mnemonic {
			return a.Mnemonic < b.Mnemonic
		}
		return a.Reason < b.Reason
	})
	// Drop exact duplicates (the same problem found twice).
	out := k.Rejections[:0]
	for i, r := range k.Rejections {
		if i > 0 && r == k.Rejections[i-1] {
			continue
		}
		out = append(out, r)
	}
	k.Rejections = out
}

// Finish sorts o's kernels and computes the object fidelity.
func (o *Object) Finish() {
	o.Fidelity = Exact
	for i := range o.Kernels {
		o.Kernels[i].Finish()
		o.Fidelity = o.Fidelity.Worse(o.Kernels[i].Fidelity)
	}
	if o.Error != "" {
		o.Fidelity = Rejected
	}
	sort.SliceStable(o.Kernels, func(i, j int) bool { return o.Kernels[i].Name < o.Kernels[j].Name })
}

// Growth is HostText/SourceText (0 when nothing was committed).
func (o *Object) Growth() float64 {
	if !o.Committed || o.SourceText == 0 {
		return 0
	}
	return float64(o.HostText) / float64(o.SourceText)
}

// Rejected returns the kernels that were rejected.
func (o *Object) Rejected() []Kernel {
	var out []Kernel
	for _, k := range o.Kernels {
		if k.Fidelity == Rejected {
			out = append(out, k)
		}
	}
	return out
}

// MarshalIndent returns the JSON form of reports, indented, with a
// trailing newline.
func MarshalIndent(objs []Object) ([]byte, error) {
	b, err := json.MarshalIndent(objs, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return append(b, '\n'), nil
}

// Unmarshal parses the JSON form written by MarshalIndent.
func Unmarshal(data []byte) ([]Object, error) {
	var objs []Object
	if err := json.Unmarshal(data, &objs); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return objs, nil
}

// WriteText writes a human-readable summary of o to w.
func (o *Object) WriteText(w io.Writer) error {
	var b strings.Builder
	name := o.Name
	if name == "" {
		name = "(input)"
	}
	fmt.Fprintf(&b, "%s: %s -> %s: %s", name, o.Guest, o.Host, o.Fidelity)
	if o.Committed {
		fmt.Fprintf(&b, " (.text %d -> %d bytes, %.2fx)", o.SourceText, o.HostText, o.Growth())
	}
	b.WriteByte('\n')
	if o.Error != "" {
		fmt.Fprintf(&b, "  error: %s\n", o.Error)
	}
	for _, k := range o.Kernels {
		fmt.Fprintf(&b, "  kernel %s: %s, %d instructions", k.Name, k.Fidelity, k.Instructions)
		if k.NeedsVirtualLDS {
			fmt.Fprintf(&b, ", needs virtual LDS (%d bytes)", k.Before.GroupSegment)
		}
		b.WriteByte('\n')
		for _, kind := range k.Kinds {
			if kind.Action == Identity || kind.Action == Relocate {
				continue
			}
			fmt.Fprintf(&b, "    %-40s %-10s x%-5d %s", kind.Mnemonic, kind.Action, kind.Count, kind.Fidelity)
			if kind.Rule != "" {
				fmt.Fprintf(&b, " rule=%s", kind.Rule)
			}
			if kind.Bound != "" {
				fmt.Fprintf(&b, " bound=%q", kind.Bound)
			}
			b.WriteByte('\n')
		}
		shown := map[string]int{}
		var order []string // mnemonics in first-rejection order
		for _, r := range k.Rejections {
			if shown[r.Mnemonic] == 0 {
				order = append(order, r.Mnemonic)
			}
			if shown[r.Mnemonic]++; shown[r.Mnemonic] > 2 {
				continue
			}
			fmt.Fprintf(&b, "    rejected at %#x %s: %s\n", r.Offset, r.Mnemonic, r.Reason)
		}
		for _, m := range order {
			if n := shown[m]; n > 2 {
				fmt.Fprintf(&b, "    ... and %d more %s rejections\n", n-2, m)
			}
		}
		for _, n := range k.Notes {
			fmt.Fprintf(&b, "    note: %s\n", n)
		}
		if k.Static != nil {
			writeCost(&b, "static", k.Static)
		}
		if k.Dynamic != nil {
			writeCost(&b, "executed", k.Dynamic)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
