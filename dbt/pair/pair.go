// Package pair is the interface between the translator's shared pipeline
// (dbt: CFG, scopes, liveness, placement, branch repair, resource feedback,
// commit, sidecars, report) and what is specific to one guest -> host ISA
// pair: the host decoder, the legalization decision per instruction (its
// renames and rules), the host's control-flow words, the host descriptor and
// the entry prologue, and how borrowed scratch registers are spilled.
//
// Each pair lives in its own package under dbt/pair (gfx950_gfx942,
// gfx950_gfx12); adding a pair means writing one such package and listing
// it in dbt's pair table. A newcomer implements Pair and nothing else.
package pair

import (
	"github.com/rocjitsu/rocjitsu/dbt/cfg"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/legalize"
	"github.com/rocjitsu/rocjitsu/dbt/place"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
	"github.com/rocjitsu/rocjitsu/dbt/vlds"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/loader/kd"
	"github.com/rocjitsu/rocjitsu/loader/target"
)

// Pair is one directed guest -> host translation.
type Pair interface {
	// Guests is the set of guest targets the pair accepts; Host is the
	// host target.
	Guests() isa.Target
	Host() isa.Target
	// HostProcessor is the host's processor (descriptor rules, e_flags).
	HostProcessor() target.Processor
	// HostDecode decodes one host instruction (dead-code tiling, checks).
	HostDecode(code []byte, pc uint64) (isa.Inst, error)
	// HostPrint prints a host instruction in LLVM's syntax.
	HostPrint(in *isa.Inst) string
	// Decide returns the legalization decision for one guest instruction
	// of a guest target (raw are its bytes). A decision with a Rule emits
	// through the rule whatever its action (a re-encoding is a Rule too).
	Decide(in *isa.Inst, raw []byte, guest isa.Target, site Site) legalize.Decision
	// Relocated returns the host form of a control-flow instruction the
	// pipeline keeps in place (a validated return's s_setpc_b64, a
	// canonical builder's s_swappc_b64, s_getpc_b64 before its fixup).
	Relocated(in *isa.Inst, raw []byte) ([]byte, error)
	// Words are the host's control-flow encodings for placement.
	Words() *place.Words
	// Descriptor derives the host descriptor of one kernel.
	Descriptor(p Plan) (kd.Descriptor, []string, error)
	// Prologue returns the host code to run at the descriptor entry before
	// the translated entry block (nil when the host delivers the guest's
	// initial state unchanged), or an error when the state cannot be
	// rebuilt.
	Prologue(p Plan) ([]byte, error)
	// Spill returns the code that saves the borrowed VGPRs regs to the
	// per-lane private slots starting at byte base, and the code that
	// restores them; ok is false when the host has no spill path.
	Spill(base uint32, regs []uint16) (save, restore []byte, ok bool)
	// UnifiedVGPRs reports whether guest AGPRs live in the host's VGPR
	// file above the guest's arch VGPRs (so scratch VGPRs must come from
	// above both).
	UnifiedVGPRs() bool
}

// SharedForms is implemented by a pair whose own rules (not the rules
// registry's) have subroutine forms (rules.Shared): SharedForm returns the
// form of in's rule, the same pointer for every instruction of a kernel
// that shares its plan (agprBase is the host VGPR of guest a0 when
// UnifiedVGPRs), or nil. Decide's rule for in carries the same form in
// rules.Rule.Shared. It is called for every instruction of a scope, so it
// must be cheap.
type SharedForms interface {
	SharedForm(in *isa.Inst, agprBase int) *rules.Shared
}

// Site is where an instruction is: its kernel, and its basic block with
// the instruction's index (rules that look at the instructions before it,
// such as a wait-counter split, read them here).
type Site struct {
	Kernel *loader.Kernel
	Block  []*isa.Inst
	Index  int
	// AGPRBase is the host VGPR of guest a0 when UnifiedVGPRs.
	AGPRBase int
	// Flat is true when the scope has FLAT (generic-address) memory
	// instructions.
	Flat bool
	// Graph and Scope are the kernel's control-flow graph and scope, for
	// rules that need a whole-scope analysis (a pair computes it once per
	// scope and keeps it in Memo, which lives as long as the scope's
	// translation and is used by one goroutine).
	Graph *cfg.Graph
	Scope *cfg.Scope
	Memo  map[string]any
	// InlineLDS says rules whose subroutine form accesses LDS are emitted
	// inline here (a virtual-LDS sidecar, or subroutines turned off).
	InlineLDS bool
	// Legalize, when set, is the caller's pass-through cache for
	// legalize.DecideCached (held by the goroutine deciding).
	Legalize *legalize.Cache
}

// Plan is what the shared pipeline knows about one kernel when the host
// descriptor is derived.
type Plan struct {
	// Kernel is the guest kernel; GuestProc its processor.
	Kernel    *loader.Kernel
	GuestProc target.Processor
	// Arch and AGPRs are the guest's arch VGPR and AGPR counts; NeedArch
	// the arch VGPRs the translation needs (scratch registers included).
	Arch, AGPRs, NeedArch int
	// NeedAGPRs is the AGPRs the translation uses itself (a0 up) in a
	// kernel whose guest allocates none; 0 when none.
	NeedAGPRs int
	// NamedArch and NamedAGPRs are one past the highest arch VGPR and AGPR
	// the scope names.
	NamedArch, NamedAGPRs int
	// AGPRBase is the host VGPR of guest a0 when the pair's UnifiedVGPRs.
	AGPRBase int
	// SpillSlots per-lane dword slots start at private offset SpillBase.
	SpillSlots int
	SpillBase  uint32
}

// VirtualLDS is implemented by a pair whose host code can run virtual-LDS
// sidecars built from its normal translation (dbt's sidecars): the shared
// pipeline emits the scope through the pair as usual and then hands every
// host instruction to LowerLDS. A pair without it gets no sidecars for
// its host (the gfx950 -> gfx942 pair lowers guest DS words directly with
// package vlds instead).
type VirtualLDS interface {
	// LowerLDS returns the host code for host instruction h of a sidecar
	// body with LDS storage at the 64-bit address in SGPRs base, base+1:
	// h unchanged (lowered false) when it does not access LDS storage,
	// its global-memory form (lowered true), or an error when it accesses
	// LDS storage without a lowering (the sidecar fails closed).
	LowerLDS(ctx vlds.Context, h []byte, base uint16) (out []byte, lowered bool, err error)
	// TouchesLDS reports whether host instruction h accesses LDS storage
	// (LowerLDS lowers it or refuses it).
	TouchesLDS(h []byte) bool
	// SidecarPrologue returns the host encoding of the sidecar entry
	// prologue; it runs before the pair's own Prologue.
	SidecarPrologue(spec vlds.PrologueSpec) ([]byte, error)
	// SidecarSGPRs makes the sidecar descriptor d allocate SGPRs below
	// top, or says why it cannot.
	SidecarSGPRs(d *kd.Descriptor, top int) error
	// SpillStoreBase and SpillAround are the host's spill-per-use
	// sequences (package vlds describes the mode): the prologue's store
	// of virtual_lds_base to every lane's persistent slot, and the
	// borrowing of an SGPR pair around one lowered access.
	SpillStoreBase(base, execSave, tmp uint16, s vlds.SpillSlots) ([]byte, error)
	SpillAround(access []byte, borrow, tmp uint16, s vlds.SpillSlots) ([]byte, error)
}
