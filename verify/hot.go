package verify

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/hsa/sim/wave"
)

// Hot attributes a translated kernel's executed host instructions to the
// guest instructions they translate (Options.Hot): each guest instruction
// gets the host instructions of its own code (the translator's PC map),
// those of the subroutines its code calls (s_call_b64 or s_swappc_b64 up
// to the s_setpc_b64 that returns) and those of unmapped code reached
// from it (branch islands, long-branch stubs); host code run before any
// guest instruction's (a sidecar prologue) is Prologue. The excess of a
// guest instruction is its host instructions minus its own executions.
type Hot struct {
	// Mnemonics ranks the guest mnemonics by excess, largest first.
	Mnemonics []HotMnemonic `json:"mnemonics"`
	// PCs ranks the guest instructions by excess, largest first.
	PCs []HotPC `json:"pcs"`
	// Prologue counts host instructions run before any guest
	// instruction's code.
	Prologue uint64 `json:"prologue"`
}

// HotCount is what the host executed for guest instructions: Guest is how
// often the guest executed them; Host all host instructions attributed to
// them, of which Called ran in subroutines and Stub in unmapped code
// (islands, stubs); Excess is Host minus Guest.
type HotCount struct {
	// Guest is the guest's executions.
	Guest uint64 `json:"guest"`
	// Host is every host execution attributed.
	Host uint64 `json:"host"`
	// Called is the part of Host run in subroutines.
	Called uint64 `json:"called,omitempty"`
	// Stub is the part of Host run in unmapped code (islands, stubs).
	Stub uint64 `json:"stub,omitempty"`
	// Excess is Host minus Guest.
	Excess int64 `json:"excess"`
}

// HotMnemonic is the attribution summed over one guest mnemonic.
type HotMnemonic struct {
	// Mnemonic is the guest mnemonic; Rules the translator's rules for it
	// in this kernel (report kinds); Sites the executed guest
	// instructions of it.
	Mnemonic string   `json:"mnemonic"`
	Rules    []string `json:"rules,omitempty"`
	Sites    int      `json:"sites"`
	HotCount
}

// HotPC is the attribution of one guest instruction.
type HotPC struct {
	// PC is the guest instruction's address and Inst its text.
	PC   uint64 `json:"pc"`
	Inst string `json:"inst"`
	HotCount
}

// hotMaxPCs bounds Hot.PCs.
const hotMaxPCs = 64

// guestCounter counts a side's executions per code-object offset.
type guestCounter map[uint64]uint64

func (c guestCounter) executed(_ int, pc uint64, _ *wave.Inst) { c[pc]++ }

// hostAttr attributes host executions to guest instructions as they run.
type hostAttr struct {
	pcmap *dbt.PCMap
	// guestCall reports whether the guest instruction at an address is
	// a call (its translation's call is the guest's, not a subroutine);
	// calls caches it.
	guestCall func(pc uint64) bool
	calls     map[uint64]bool
	// lookup caches pcmap answers by host offset.
	lookup map[uint64]hostLookup
	// waves holds each wave's state.
	waves map[int]*waveAttr
	// own, called and stub count host instructions by guest address.
	own, called, stub map[uint64]uint64
	prologue          uint64
}

type hostLookup struct {
	guest uint64
	ok    bool
}

// waveAttr is a wave's attribution state: the guest instruction whose
// code ran last at call depth 0, whether there was one, and the guest
// instruction of each open call.
type waveAttr struct {
	last   uint64
	seen   bool
	callAt []uint64
}

func newHostAttr(pcmap *dbt.PCMap, guestCall func(uint64) bool) *hostAttr {
	return &hostAttr{pcmap: pcmap, guestCall: guestCall, calls: map[uint64]bool{}, lookup: map[uint64]hostLookup{}, waves: map[int]*waveAttr{},
		own: map[uint64]uint64{}, called: map[uint64]uint64{}, stub: map[uint64]uint64{}}
}

func (h *hostAttr) executed(id int, pc uint64, in *wave.Inst) {
	w := h.waves[id]
	if w == nil {
		w = &waveAttr{}
		h.waves[id] = w
	}
	var at uint64
	switch {
	case len(w.callAt) > 0:
		at = w.callAt[len(w.callAt)-1]
		h.called[at]++
		if in.Name == "s_setpc_b64" {
			// The return: what follows is the caller's again.
			w.callAt = w.callAt[:len(w.callAt)-1]
		}
	default:
		l, ok := h.lookup[pc]
		if !ok {
			l.guest, l.ok = h.pcmap.Guest(pc)
			h.lookup[pc] = l
		}
		switch {
		case l.ok:
			at, w.last, w.seen = l.guest, l.guest, true
			h.own[at]++
		case w.seen:
			at = w.last
			h.stub[at]++
		default:
			h.prologue++
			return
		}
	}
	if in.Name == "s_call_b64" || in.Name == "s_swappc_b64" {
		call, ok := h.calls[at]
		if !ok {
			call = h.guestCall(at)
			h.calls[at] = call
		}
		if len(w.callAt) > 0 || !call {
			w.callAt = append(w.callAt, at)
		}
	}
}

// hotOf builds the attribution from the guest's counts and the host's,
// naming guest instructions with code and rules from rep.
func hotOf(g guestCounter, h *hostAttr, code codeNames, rep report.Kernel) *Hot {
	pcs := map[uint64]*HotPC{}
	get := func(pc uint64) *HotPC {
		p := pcs[pc]
		if p == nil {
			p = &HotPC{PC: pc}
			pcs[pc] = p
		}
		return p
	}
	for pc, n := range g {
		get(pc).Guest = n
	}
	for pc, n := range h.own {
		get(pc).Host += n
	}
	for pc, n := range h.called {
		p := get(pc)
		p.Host += n
		p.Called += n
	}
	for pc, n := range h.stub {
		p := get(pc)
		p.Host += n
		p.Stub += n
	}
	rules := map[string][]string{}
	for _, k := range rep.Kinds {
		r := k.Rule
		if r == "" {
			r = string(k.Action)
		}
		if !slices.Contains(rules[k.Mnemonic], r) {
			rules[k.Mnemonic] = append(rules[k.Mnemonic], r)
		}
	}
	byMn := map[string]*HotMnemonic{}
	out := &Hot{Prologue: h.prologue}
	for _, p := range pcs {
		p.Excess = int64(p.Host) - int64(p.Guest)
		p.Inst = code.guestInst(p.PC)
		mn, _, _ := strings.Cut(p.Inst, " ")
		if mn == "" {
			mn = fmt.Sprintf("(%#x)", p.PC)
		}
		m := byMn[mn]
		if m == nil {
			m = &HotMnemonic{Mnemonic: mn, Rules: rulesOf(rules, mn)}
			byMn[mn] = m
		}
		m.Sites++
		m.Guest += p.Guest
		m.Host += p.Host
		m.Called += p.Called
		m.Stub += p.Stub
		m.Excess += p.Excess
		out.PCs = append(out.PCs, *p)
	}
	for _, m := range byMn {
		out.Mnemonics = append(out.Mnemonics, *m)
	}
	slices.SortFunc(out.Mnemonics, func(a, b HotMnemonic) int {
		if c := cmp.Compare(b.Excess, a.Excess); c != 0 {
			return c
		}
		return cmp.Compare(a.Mnemonic, b.Mnemonic)
	})
	slices.SortFunc(out.PCs, func(a, b HotPC) int {
		if c := cmp.Compare(b.Excess, a.Excess); c != 0 {
			return c
		}
		return cmp.Compare(a.PC, b.PC)
	})
	if len(out.PCs) > hotMaxPCs {
		out.PCs = out.PCs[:hotMaxPCs]
	}
	return out
}

// rulesOf returns the rules of mnemonic mn, whose printed form may carry
// an encoding suffix the report's mnemonics lack.
func rulesOf(rules map[string][]string, mn string) []string {
	if r, ok := rules[mn]; ok {
		return r
	}
	for _, suf := range []string{"_sdwa", "_e32", "_e64", "_dpp"} {
		if r, ok := rules[strings.TrimSuffix(mn, suf)]; ok {
			return r
		}
	}
	return nil
}

// isCall reports whether the instruction text inst is a call.
func isCall(inst string) bool {
	return strings.HasPrefix(inst, "s_swappc_b64 ") || strings.HasPrefix(inst, "s_call_b64 ")
}

// HotLines formats the n hottest mnemonics and guest instructions of h
// (all when n <= 0), one per line, indented for the CLI; those without
// excess are left out.
func HotLines(h *Hot, n int) []string {
	if h == nil {
		return nil
	}
	take := func(l int) int {
		if n <= 0 || n > l {
			return l
		}
		return n
	}
	var out []string
	for _, m := range h.Mnemonics[:take(len(h.Mnemonics))] {
		if m.Excess == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("    excess %6d  %-28s guest %6d host %6d (called %d, stub %d) at %d sites; %s",
			m.Excess, m.Mnemonic, m.Guest, m.Host, m.Called, m.Stub, m.Sites, strings.Join(m.Rules, ",")))
	}
	for _, p := range h.PCs[:take(len(h.PCs))] {
		if p.Excess == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("    excess %6d  %#06x %s: guest %d host %d (called %d, stub %d)",
			p.Excess, p.PC, p.Inst, p.Guest, p.Host, p.Called, p.Stub))
	}
	out = append(out, fmt.Sprintf("    prologue %d", h.Prologue))
	return out
}
