// Package verify checks translations by execution: it runs each kernel of
// a guest code object on a simulated guest agent and its translation on a
// simulated host agent with identical synthesized inputs over demand-paged
// deterministic memory (hsa/sim/mem.Pager), and compares how each run
// ended and the final image of every page either side touched.
//
//	rs, err := verify.Object("k.co", guest, verify.Options{Host: "gfx942"})
//	for _, r := range rs { fmt.Println(r.Name, r.Outcome) }
//	fmt.Println(verify.Summarize(rs))
//
// Outcomes are Identical, WithinBound, Different, FaultAlike,
// FaultDiffers, Timeout and NotRun; see Outcome.
package verify

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/hsa/sim/mem"
	"github.com/rocjitsu/rocjitsu/hsa/sim/wave"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/loader/metadata"
)

// Outcome is how a kernel's guest and host runs compare.
type Outcome string

// Outcomes.
const (
	// Identical: both completed and every byte of every touched page is
	// equal.
	Identical Outcome = "identical"
	// WithinBound: both completed; the differing words are all within the
	// bound of approximate rules the kernel uses (Result.MaxError).
	WithinBound Outcome = "within-bound"
	// Different: both completed and some word differs beyond any bound.
	Different Outcome = "different"
	// FaultAlike: both faulted at the same guest instruction for the same
	// cause.
	FaultAlike Outcome = "fault-alike"
	// FaultDiffers: one side faulted and the other did not, or they
	// faulted at different guest instructions or for different causes.
	FaultDiffers Outcome = "fault-differs"
	// Timeout: a side reached its instruction budget.
	Timeout Outcome = "timeout"
	// NotRun: the translation rejected the kernel, or the simulator lacks
	// an instruction or feature the kernel needs (named in Reason).
	NotRun Outcome = "not-run"
)

// Options configure a verification.
type Options struct {
	// Host is the host target (default gfx942).
	Host string
	// Kernel, when set, verifies only the kernel of that name.
	Kernel string
	// Workgroups is the number of workgroups along x (default 2); a
	// kernel that reads its workgroup ID y also gets 2 rows.
	Workgroups int
	// Seed varies the memory content and the by-value arguments.
	Seed uint64
	// Fill is the content of the paged memory.
	Fill mem.Fill
	// MaxInstructions is the guest's instruction budget per dispatch
	// (default 2,000,000); the host gets BudgetFactor times as many.
	MaxInstructions uint64
	// BudgetFactor multiplies the host's budget (default
	// HostBudgetFactor); address-traced instrumentation runs some 80
	// times the plain instruction count.
	BudgetFactor uint64
	// MaxBlock caps the workgroup size of kernels without a required size
	// (default 256).
	MaxBlock int
	// NoProfiles turns the argument profiles off: every kernel gets the
	// plain synthesis (for before/after measurements).
	NoProfiles bool
	// Hot attributes the translation's executed host instructions to the
	// guest instructions they translate (Result.Hot); it slows the runs.
	Hot bool
}

// MaxSamples bounds Result.Samples.
const MaxSamples = 8

// HostBudgetFactor is how many more instructions the host side may run
// than the guest: expansions make translated code longer.
const HostBudgetFactor = 4

// Result is the verification of one kernel.
type Result struct {
	// Object is the guest object's name, Name the kernel's, Host the host
	// target.
	Object  string  `json:"object"`
	Name    string  `json:"name"`
	Host    string  `json:"host"`
	Outcome Outcome `json:"outcome"`
	// Seed and Fill are the inputs' seed and memory fill.
	Seed uint64 `json:"seed"`
	Fill string `json:"fill"`
	// Reason explains not-run, timeout and fault outcomes.
	Reason string `json:"reason,omitempty"`
	// Grid and Block are the dispatch's sizes in work-items.
	Grid  [3]uint32 `json:"grid"`
	Block [3]uint32 `json:"block"`
	// Profile names the argument profile applied (Profiles); empty for
	// the plain synthesis. ProfileSkipped says why a profile whose kernel
	// name matched was not applied.
	Profile        string `json:"profile,omitempty"`
	ProfileSkipped string `json:"profile_skipped,omitempty"`
	// DynamicLDS is the dynamic group segment given to kernels that take
	// one.
	DynamicLDS uint32 `json:"dynamic_lds,omitempty"`
	// GuestInstructions and HostInstructions are the instructions each
	// side ran.
	GuestInstructions uint64 `json:"guest_instructions"`
	HostInstructions  uint64 `json:"host_instructions"`
	// GuestClasses and HostClasses are those instructions by execution
	// class (dbt/cost: MFMA/WMMA, VALU, memory, SALU, other).
	GuestClasses report.ClassCounts `json:"guest_classes"`
	HostClasses  report.ClassCounts `json:"host_classes"`
	// GuestPasses and HostPasses weigh them in dbt/cost's issue-cycle
	// model, a model and not a cycle count: each MFMA counts its passes
	// on its ISA (LLVM's scheduling model for gfx942 and gfx950), every
	// other instruction one.
	GuestPasses uint64 `json:"guest_passes"`
	HostPasses  uint64 `json:"host_passes"`
	// Pages is the number of pages compared; WrittenWords the words
	// either side wrote; DifferingWords those that differ.
	Pages          int `json:"pages"`
	WrittenWords   int `json:"written_words"`
	DifferingWords int `json:"differing_words,omitempty"`
	// First is the first differing word (Different, WithinBound).
	First *Difference `json:"first,omitempty"`
	// Samples are the first MaxSamples differing words (First included),
	// without writers.
	Samples []Difference `json:"samples,omitempty"`
	// MaxError is the largest relative error of a differing word
	// (WithinBound, Different).
	MaxError float64 `json:"max_error,omitempty"`
	// NonFinite is set when some differing word has no reading that is
	// finite on both sides (MaxError then covers the others).
	NonFinite bool `json:"non_finite,omitempty"`
	// Approximate lists the kernel's approximate rules (with their
	// mnemonics) that justify a WithinBound.
	Approximate []string `json:"approximate,omitempty"`
	// GuestFault and HostFault describe the faults of fault outcomes.
	GuestFault string `json:"guest_fault,omitempty"`
	HostFault  string `json:"host_fault,omitempty"`
	// Sidecar is set when the host ran the kernel's virtual-LDS sidecar.
	Sidecar bool `json:"sidecar,omitempty"`
	// Hot attributes the host's executed instructions to guest
	// instructions (Options.Hot, translations with a PC map only).
	Hot *Hot `json:"hot,omitempty"`
}

// Difference is one differing word.
type Difference struct {
	// Addr is the word's address.
	Addr uint64 `json:"addr"`
	// Guest and Host are the final values.
	Guest uint32 `json:"guest"`
	Host  uint32 `json:"host"`
	// GuestPC and GuestInst name the guest instruction that last wrote
	// the word on the guest side (absent if it did not write it).
	GuestPC   uint64 `json:"guest_pc,omitempty"`
	GuestInst string `json:"guest_inst,omitempty"`
	// HostPC and HostInst name the host instruction that last wrote it on
	// the host side; HostGuestPC is the guest instruction it translates.
	HostPC      uint64 `json:"host_pc,omitempty"`
	HostInst    string `json:"host_inst,omitempty"`
	HostGuestPC uint64 `json:"host_guest_pc,omitempty"`
}

// Summarize returns the summary line of results: "N kernels: I identical,
// W within bound, D different, F faulted alike, X fault differs, T timed
// out, R not run".
func Summarize(rs []Result) string {
	c := map[Outcome]int{}
	for _, r := range rs {
		c[r.Outcome]++
	}
	return fmt.Sprintf("%d kernels: %d identical, %d within bound, %d different, %d faulted alike, %d fault differs, %d timed out, %d not run",
		len(rs), c[Identical], c[WithinBound], c[Different], c[FaultAlike], c[FaultDiffers], c[Timeout], c[NotRun])
}

func (o *Options) defaults() {
	if o.Host == "" {
		o.Host = "gfx942"
	}
	if o.Workgroups <= 0 {
		o.Workgroups = 2
	}
	if o.MaxInstructions == 0 {
		o.MaxInstructions = 2_000_000
	}
	if o.BudgetFactor == 0 {
		o.BudgetFactor = HostBudgetFactor
	}
	if o.MaxBlock <= 0 {
		o.MaxBlock = 256
	}
}

// Object verifies every kernel of the guest code object guest (named name
// in the results). It returns an error only when the object cannot be read
// at all; kernels that cannot run are NotRun results.
func Object(name string, guest []byte, opt Options) ([]Result, error) {
	opt.defaults()
	host, err := isa.ParseTarget(opt.Host)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	gf, err := loader.Parse(guest)
	if err != nil {
		return nil, fmt.Errorf("verify: %s: %w", name, err)
	}
	gt, err := isa.TargetFromMach(uint32(gf.Flags.Mach))
	if err != nil {
		return nil, fmt.Errorf("verify: %s: e_flags machine: %w", name, err)
	}
	md := kernelMetadata(gf)
	names, err := kernelNames(name, gf, opt.Kernel)
	if err != nil {
		return nil, err
	}
	base := func(k string) Result {
		return Result{Object: name, Name: k, Host: opt.Host, Seed: opt.Seed, Fill: opt.Fill.String()}
	}

	tr, terr := dbt.TranslateWithSidecars(guest, dbt.Options{Host: host, Name: name}, dbt.SidecarOptions{AllLDS: true})
	if terr != nil || tr == nil || tr.Object == nil {
		why := map[string]string{}
		if tr != nil && tr.Result != nil {
			for _, k := range tr.Report.Kernels {
				if len(k.Rejections) > 0 {
					r := k.Rejections[0]
					why[k.Name] = fmt.Sprintf("translation rejected: %#x %s: %s", r.Offset, r.Mnemonic, r.Reason)
				}
			}
		}
		var out []Result
		for _, k := range names {
			r := base(k)
			r.Outcome = NotRun
			r.Reason = why[k]
			if r.Reason == "" {
				r.Reason = fmt.Sprintf("translation rejected: %v", terr)
			}
			out = append(out, r)
		}
		return out, nil
	}
	hf, err := loader.Parse(tr.Object)
	if err != nil {
		return nil, fmt.Errorf("verify: %s: translated object: %w", name, err)
	}
	reps := map[string]report.Kernel{}
	for _, k := range tr.Report.Kernels {
		reps[k.Name] = k
	}
	code := codeNames{guest: gf, guestISA: gt, host: hf, hostISA: host}
	var out []Result
	for _, k := range names {
		r := base(k)
		kernelRun(&r, guest, tr, md[k], reps[k], code, gt, opt)
		out = append(out, r)
	}
	return out, nil
}

// kernelMetadata returns the code object metadata of f's kernels by name
// (none when the note is absent or unreadable).
func kernelMetadata(f *loader.File) map[string]metadata.Kernel {
	md := map[string]metadata.Kernel{}
	if f.MetadataNote != nil {
		if m, err := metadata.Decode(f.MetadataNote.Desc); err == nil {
			for _, k := range m.Kernels {
				md[k.Name] = k
			}
		}
	}
	return md
}

// kernelNames returns the sorted kernel names of f (only kernel when set).
func kernelNames(name string, f *loader.File, kernel string) ([]string, error) {
	var names []string
	for _, k := range f.Kernels() {
		if kernel == "" || k.Name == kernel {
			names = append(names, k.Name)
		}
	}
	if len(names) == 0 {
		if kernel != "" {
			return nil, fmt.Errorf("verify: %s: no kernel %q", name, kernel)
		}
		return nil, fmt.Errorf("verify: %s: no kernels", name)
	}
	sort.Strings(names)
	return names, nil
}

// blockOf returns the workgroup size from the metadata: the required size,
// else the largest flat size capped at maxBlock.
func blockOf(m metadata.Kernel, maxBlock int) [3]uint32 {
	if len(m.ReqdWorkgroupSize) == 3 && m.ReqdWorkgroupSize[0]*m.ReqdWorkgroupSize[1]*m.ReqdWorkgroupSize[2] > 0 {
		return [3]uint32{uint32(m.ReqdWorkgroupSize[0]), uint32(m.ReqdWorkgroupSize[1]), uint32(m.ReqdWorkgroupSize[2])}
	}
	n := uint64(maxBlock)
	if m.MaxFlatWorkgroupSize > 0 && m.MaxFlatWorkgroupSize < n {
		n = m.MaxFlatWorkgroupSize
	}
	return [3]uint32{uint32(n), 1, 1}
}

// kernelRun verifies one kernel and fills r.
func kernelRun(r *Result, guest []byte, tr *dbt.SidecarResult, m metadata.Kernel, rep report.Kernel, code codeNames, gt isa.Target, opt Options) {
	if rep.Fidelity == report.Rejected {
		r.Outcome, r.Reason = NotRun, "translation rejected"
		if len(rep.Rejections) > 0 {
			x := rep.Rejections[0]
			r.Reason = fmt.Sprintf("translation rejected: %#x %s: %s", x.Offset, x.Mnemonic, x.Reason)
		}
		return
	}
	for _, k := range rep.Kinds {
		if k.Fidelity == report.Approximate {
			r.Approximate = append(r.Approximate, k.Mnemonic+" ("+k.Rule+")")
		}
	}
	block := blockOf(m, opt.MaxBlock)
	pager := func() *mem.Pager {
		return &mem.Pager{Lo: PagerLo, Hi: PagerHi, Seed: opt.Seed, Fill: opt.Fill, MaxPages: 2048}
	}
	g, err := newSide(gt.String(), guest, r.Name, pager(), opt.MaxInstructions)
	if err != nil {
		r.Outcome, r.Reason = NotRun, "guest: "+err.Error()
		return
	}
	groups := [3]uint32{uint32(opt.Workgroups), 1, 1}
	if g.k.Desc.RSRC2>>8&1 != 0 && opt.Workgroups > 1 {
		groups[1] = 2
	}
	for i := range r.Grid {
		r.Grid[i] = groups[i] * block[i]
	}
	r.Block = block
	var slots map[int]bool
	if lk, ok := code.guest.Kernel(r.Name); ok {
		slots = pointerSlots(code.guest, lk, gt, g.k.Desc.CodeProperties)
	}
	kaSize := max(g.k.KernargSegmentSize, int(g.k.Desc.KernargSize))
	args, err := SynthesizeWith(g.k.Args, kaSize, opt.Seed, slots)
	if err != nil {
		r.Outcome, r.Reason = NotRun, err.Error()
		return
	}
	var prof *Profile
	if !opt.NoProfiles {
		p, err := profileFor(r.Name, g.k.Args, kaSize, args.Kernarg)
		if err != nil {
			r.ProfileSkipped = err.Error()
		} else if p != nil {
			prof, r.Profile = p, p.Name
		}
	}
	// Kernels with dynamic LDS get all the guest allows beyond the
	// static part.
	var dyn uint32
	for _, a := range g.k.Args {
		if a.ValueKind == "hidden_dynamic_lds_size" || a.ValueKind == "dynamic_shared_pointer" {
			dyn = g.agent.LDSSize() - min(g.agent.LDSSize(), g.k.Desc.GroupSegmentFixedSize)
		}
	}
	h, err := newSide(opt.Host, tr.Object, r.Name, pager(), opt.MaxInstructions*opt.BudgetFactor)
	if err != nil {
		r.Outcome, r.Reason = NotRun, "host: "+err.Error()
		return
	}
	var sc *sidecarRun
	if tr.LDS != nil {
		if e, ok := tr.LDS.Lookup(h.k.KD - h.ex.Base); ok {
			sc = &sidecarRun{entry: e}
		}
	}
	static := g.k.Desc.GroupSegmentFixedSize
	if sc == nil && dyn > 0 {
		// No sidecar: what the host's LDS holds.
		dyn = h.agent.LDSSize() - min(h.agent.LDSSize(), static)
	}
	r.DynamicLDS = dyn
	if static+dyn <= h.agent.LDSSize() {
		sc = nil
	}
	r.Sidecar = sc != nil
	if prof != nil {
		for _, s := range []*side{g, h} {
			if err := prof.store(g.k.Args, args.Kernarg, s.mem.Write); err != nil {
				r.Outcome, r.Reason = NotRun, err.Error()
				return
			}
		}
	}
	var gc guestCounter
	var ha *hostAttr
	if opt.Hot && tr.PCMap != nil {
		gc, ha = guestCounter{}, newHostAttr(tr.PCMap, func(pc uint64) bool { return isCall(code.guestInst(pc)) })
		g.agent.Executed, h.agent.Executed = gc.executed, ha.executed
	}
	gerr := g.dispatch(r.Grid, block, args.Kernarg, dyn, nil)
	herr := h.dispatch(r.Grid, block, args.Kernarg, dyn, sc)
	if ha != nil {
		r.Hot = hotOf(gc, ha, code, rep)
	}
	r.GuestInstructions, r.HostInstructions = g.executed, h.executed
	r.GuestClasses, r.HostClasses = dbt.ClassCounts(g.classes), dbt.ClassCounts(h.classes)
	r.GuestPasses, r.HostPasses = g.passes, h.passes
	classify(r, g, h, gerr, herr, tr.PCMap, code)
}

// faultOf describes a dispatch error: its guest-side PC (for the host, the
// guest instruction its PC translates), a cause class and a description.
type faultOf struct {
	pc    uint64
	known bool // pc is known
	inst  string
	cause string
	desc  string
}

func describe(err error, pcmap *dbt.PCMap, host bool) faultOf {
	var de *sim.DispatchError
	if !errors.As(err, &de) || de.Fault == nil {
		return faultOf{cause: err.Error(), desc: err.Error()}
	}
	f := faultOf{pc: de.Offset, known: true, desc: fmt.Sprintf("%#x %s: %v", de.Offset, de.Fault.Inst, de.Fault.Err), inst: de.Fault.Inst}
	if host {
		f.pc, f.known = pcmap.Guest(de.Offset)
		if f.known {
			f.desc += fmt.Sprintf(" (guest %#x)", f.pc)
		}
	}
	var mf *mem.Fault
	switch {
	case errors.As(de.Fault.Err, &mf):
		f.cause = "memory read"
		if mf.Write {
			f.cause = "memory write"
		}
	case errors.Is(de.Fault.Err, wave.ErrTrap):
		f.cause = "trap"
	case strings.Contains(de.Fault.Err.Error(), ": LDS "):
		// An LDS access outside the group segment; a sidecar makes the
		// same access to its backing store, which faults as memory.
		f.cause = "LDS out of range"
	default:
		f.cause = de.Fault.Err.Error()
	}
	return f
}

// lacking reports whether err says the simulator lacks an instruction or
// feature, and names it.
func lacking(err error) (string, bool) {
	var de *sim.DispatchError
	if !errors.As(err, &de) || de.Fault == nil {
		return "", false
	}
	msg := de.Fault.Err.Error()
	if strings.Contains(msg, "not supported") || strings.Contains(msg, "unknown instruction") {
		return fmt.Sprintf("%s at %#x: %s", de.Fault.Inst, de.Offset, msg), true
	}
	return "", false
}

// classify sets r's outcome from how both runs ended and, when both
// completed, from the comparison of their memory images.
func classify(r *Result, g, h *side, gerr, herr error, pcmap *dbt.PCMap, code codeNames) {
	if what, ok := lacking(gerr); ok {
		r.Outcome, r.Reason = NotRun, "simulator (guest) lacks "+what
		return
	}
	if what, ok := lacking(herr); ok {
		r.Outcome, r.Reason = NotRun, "simulator (host) lacks "+what
		return
	}
	var gt, ht *sim.TimeoutError
	gto, hto := errors.As(gerr, &gt), errors.As(herr, &ht)
	if gto || hto {
		r.Outcome = Timeout
		r.Reason = fmt.Sprintf("guest ran %d instructions (%s), host %d (%s)", g.executed, ended(gerr), h.executed, ended(herr))
		return
	}
	if gerr != nil || herr != nil {
		if gerr != nil && !isDispatch(gerr) {
			r.Outcome, r.Reason = NotRun, "guest: "+gerr.Error()
			return
		}
		if herr != nil && !isDispatch(herr) {
			r.Outcome, r.Reason = NotRun, "host: "+herr.Error()
			return
		}
		var gf, hf faultOf
		if gerr != nil {
			gf = describe(gerr, pcmap, false)
			r.GuestFault = gf.desc
		}
		if herr != nil {
			hf = describe(herr, pcmap, true)
			r.HostFault = hf.desc
		}
		if r.Sidecar && gf.cause == "LDS out of range" && strings.HasPrefix(hf.cause, "memory") {
			hf.cause = gf.cause
		}
		samePlace := gf.known && hf.known && gf.pc == hf.pc
		if code.paired {
			// Two objects of one target without a PC map: the same
			// instruction text stands for the same place.
			samePlace = gf.inst != "" && gf.inst == hf.inst
		}
		if gerr != nil && herr != nil && samePlace && gf.cause == hf.cause {
			r.Outcome = FaultAlike
			r.Reason = gf.cause
			return
		}
		r.Outcome = FaultDiffers
		r.Reason = fmt.Sprintf("guest: %s; host: %s", ended(gerr), ended(herr))
		return
	}
	compare(r, g, h, pcmap, code)
}

func isDispatch(err error) bool {
	var de *sim.DispatchError
	return errors.As(err, &de) && de.Fault != nil
}

func ended(err error) string {
	if err == nil {
		return "completed"
	}
	return err.Error()
}
