// Package target names AMDGPU processors and decodes the AMDGPU fields of
// an ELF header: the machine number and feature bits of e_flags, the OS ABI
// version, and target id strings such as
// "amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-".
package target

import (
	"fmt"
	"strings"
)

// ELF constants of the AMDGPU code-object ABI.
const (
	// EM_AMDGPU is the ELF machine number of AMDGPU code objects.
	EM_AMDGPU = 224
	// ELFOSABI_AMDGPU_HSA is e_ident[EI_OSABI] of an AMDHSA code object.
	ELFOSABI_AMDGPU_HSA = 64
	// ELFABIVERSION_AMDGPU_HSA_V4 is e_ident[EI_ABIVERSION] of code object v4.
	ELFABIVERSION_AMDGPU_HSA_V4 = 2
	// ELFABIVERSION_AMDGPU_HSA_V5 is e_ident[EI_ABIVERSION] of code object v5.
	ELFABIVERSION_AMDGPU_HSA_V5 = 3
	// ELFABIVERSION_AMDGPU_HSA_V6 is e_ident[EI_ABIVERSION] of code object v6.
	ELFABIVERSION_AMDGPU_HSA_V6 = 4
)

// e_flags fields (code object v4 and later).
const (
	EF_AMDGPU_MACH                   = 0x0ff
	EF_AMDGPU_FEATURE_XNACK_V4       = 0x300
	EF_AMDGPU_FEATURE_XNACK_ANY_V4   = 0x100
	EF_AMDGPU_FEATURE_XNACK_OFF_V4   = 0x200
	EF_AMDGPU_FEATURE_XNACK_ON_V4    = 0x300
	EF_AMDGPU_FEATURE_SRAMECC_V4     = 0xc00
	EF_AMDGPU_FEATURE_SRAMECC_ANY_V4 = 0x400
	EF_AMDGPU_FEATURE_SRAMECC_OFF_V4 = 0x800
	EF_AMDGPU_FEATURE_SRAMECC_ON_V4  = 0xc00
	EF_AMDGPU_GENERIC_VERSION        = 0xff000000
	// EF_AMDGPU_GENERIC_VERSION_OFFSET is the shift of the generic version.
	EF_AMDGPU_GENERIC_VERSION_OFFSET = 24
)

// Mach is the AMDGPU machine number held in e_flags & EF_AMDGPU_MACH.
type Mach uint8

// Machine numbers of the processors rocjitsu cares about, plus their
// relatives (values from the AMDGPU ELF ABI).
const (
	MachNone    Mach = 0x000
	MachGFX900  Mach = 0x02c
	MachGFX906  Mach = 0x02f
	MachGFX908  Mach = 0x030
	MachGFX90A  Mach = 0x03f
	MachGFX940  Mach = 0x040
	MachGFX941  Mach = 0x04b
	MachGFX942  Mach = 0x04c
	MachGFX950  Mach = 0x04f
	MachGFX1030 Mach = 0x036
	MachGFX1100 Mach = 0x041
	MachGFX1101 Mach = 0x046
	MachGFX1102 Mach = 0x047
	MachGFX1103 Mach = 0x044
	MachGFX1150 Mach = 0x043
	MachGFX1151 Mach = 0x04a
	MachGFX1200 Mach = 0x048
	MachGFX1201 Mach = 0x04e
)

// Family groups processors whose kernel descriptors share a layout.
type Family int

// Descriptor families.
const (
	// FamilyUnknown is a processor this package does not classify.
	FamilyUnknown Family = iota
	// FamilyGFX9 is gfx900..gfx90c without COMPUTE_PGM_RSRC3.
	FamilyGFX9
	// FamilyGFX90A is gfx90a, gfx940..gfx942 and gfx950: gfx9 with
	// unified VGPR/AGPR files, ACCUM_OFFSET and TG_SPLIT.
	FamilyGFX90A
	// FamilyGFX10 is gfx10xx.
	FamilyGFX10
	// FamilyGFX11 is gfx11xx.
	FamilyGFX11
	// FamilyGFX12 is gfx12xx.
	FamilyGFX12
)

func (f Family) String() string {
	switch f {
	case FamilyGFX9:
		return "gfx9"
	case FamilyGFX90A:
		return "gfx90a"
	case FamilyGFX10:
		return "gfx10"
	case FamilyGFX11:
		return "gfx11"
	case FamilyGFX12:
		return "gfx12"
	}
	return "unknown"
}

// Processor describes one AMDGPU processor.
type Processor struct {
	// Name is the processor name, for example "gfx950".
	Name string
	// Mach is its e_flags machine number.
	Mach Mach
	// Family selects the kernel-descriptor layout.
	Family Family
	// XNACK and SRAMECC tell whether the processor supports the feature
	// (and so whether the target id may carry it).
	XNACK, SRAMECC bool
	// Wave64 is true when the default wavefront size is 64.
	Wave64 bool
	// ArchitectedFlatScratch is true when the hardware sets up flat
	// scratch itself (gfx940+, gfx11, gfx12): descriptors then have no
	// private segment buffer or flat-scratch-init user SGPRs.
	ArchitectedFlatScratch bool
}

var processors = []Processor{
	{"gfx900", MachGFX900, FamilyGFX9, true, false, true, false},
	{"gfx906", MachGFX906, FamilyGFX9, true, true, true, false},
	{"gfx908", MachGFX908, FamilyGFX9, true, true, true, false},
	{"gfx90a", MachGFX90A, FamilyGFX90A, true, true, true, false},
	{"gfx940", MachGFX940, FamilyGFX90A, true, true, true, true},
	{"gfx941", MachGFX941, FamilyGFX90A, true, true, true, true},
	{"gfx942", MachGFX942, FamilyGFX90A, true, true, true, true},
	{"gfx950", MachGFX950, FamilyGFX90A, true, true, true, true},
	{"gfx1030", MachGFX1030, FamilyGFX10, false, false, false, false},
	{"gfx1100", MachGFX1100, FamilyGFX11, false, false, false, true},
	{"gfx1101", MachGFX1101, FamilyGFX11, false, false, false, true},
	{"gfx1102", MachGFX1102, FamilyGFX11, false, false, false, true},
	{"gfx1103", MachGFX1103, FamilyGFX11, false, false, false, true},
	{"gfx1150", MachGFX1150, FamilyGFX11, false, false, false, true},
	{"gfx1151", MachGFX1151, FamilyGFX11, false, false, false, true},
	{"gfx1200", MachGFX1200, FamilyGFX12, false, false, false, true},
	{"gfx1201", MachGFX1201, FamilyGFX12, false, false, false, true},
}

// ByMach returns the processor with machine number m.
func ByMach(m Mach) (Processor, bool) {
	for _, p := range processors {
		if p.Mach == m {
			return p, true
		}
	}
	return Processor{}, false
}

// ByName returns the processor called name ("gfx942").
func ByName(name string) (Processor, bool) {
	for _, p := range processors {
		if p.Name == name {
			return p, true
		}
	}
	return Processor{}, false
}

// Feature is the state of a target feature (xnack, sramecc).
type Feature uint8

// Feature states, in the order of the v4 e_flags encoding.
const (
	FeatureUnsupported Feature = iota
	FeatureAny
	FeatureOff
	FeatureOn
)

func (f Feature) String() string {
	switch f {
	case FeatureAny:
		return "any"
	case FeatureOff:
		return "off"
	case FeatureOn:
		return "on"
	}
	return "unsupported"
}

// Flags is the decoded AMDGPU e_flags of a code object v4+.
type Flags struct {
	// Mach is the machine number.
	Mach Mach
	// XNACK and SRAMECC are the feature settings.
	XNACK, SRAMECC Feature
	// GenericVersion is the generic code-object version (v6, 0 if none).
	GenericVersion uint8
	// Other holds any e_flags bits not covered above.
	Other uint32
}

// DecodeFlags splits e_flags into its v4 fields.
func DecodeFlags(eflags uint32) Flags {
	return Flags{
		Mach:           Mach(eflags & EF_AMDGPU_MACH),
		XNACK:          Feature((eflags & EF_AMDGPU_FEATURE_XNACK_V4) >> 8),
		SRAMECC:        Feature((eflags & EF_AMDGPU_FEATURE_SRAMECC_V4) >> 10),
		GenericVersion: uint8(eflags >> EF_AMDGPU_GENERIC_VERSION_OFFSET),
		Other:          eflags &^ (EF_AMDGPU_MACH | EF_AMDGPU_FEATURE_XNACK_V4 | EF_AMDGPU_FEATURE_SRAMECC_V4 | EF_AMDGPU_GENERIC_VERSION),
	}
}

// Encode packs the fields back into e_flags.
func (f Flags) Encode() uint32 {
	return uint32(f.Mach) | uint32(f.XNACK&3)<<8 | uint32(f.SRAMECC&3)<<10 |
		uint32(f.GenericVersion)<<EF_AMDGPU_GENERIC_VERSION_OFFSET | f.Other
}

// ID is a parsed target id: processor plus feature settings.
type ID struct {
	// Processor is the processor name ("gfx950").
	Processor string
	// XNACK and SRAMECC are the feature settings; FeatureAny when the id
	// does not mention them and the processor supports them.
	XNACK, SRAMECC Feature
}

// String formats the id the way code-object metadata spells it:
// "amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-". Features in the "any"
// or "unsupported" state are omitted.
func (id ID) String() string {
	var b strings.Builder
	b.WriteString("amdgcn-amd-amdhsa--")
	b.WriteString(id.Processor)
	switch id.SRAMECC {
	case FeatureOn:
		b.WriteString(":sramecc+")
	case FeatureOff:
		b.WriteString(":sramecc-")
	}
	switch id.XNACK {
	case FeatureOn:
		b.WriteString(":xnack+")
	case FeatureOff:
		b.WriteString(":xnack-")
	}
	return b.String()
}

// ParseID parses a target id. It accepts the full form
// ("amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-"), the triple with a single
// hyphen ("amdgcn-amd-amdhsa-gfx942"), "amdgcn-gfx942" and a bare
// processor name ("gfx942:xnack-").
func ParseID(s string) (ID, error) {
	rest := s
	for _, prefix := range []string{"amdgcn-amd-amdhsa--", "amdgcn-amd-amdhsa-", "amdgcn-"} {
		if strings.HasPrefix(rest, prefix) {
			rest = rest[len(prefix):]
			break
		}
	}
	parts := strings.Split(rest, ":")
	p, ok := ByName(parts[0])
	if !ok {
		return ID{}, fmt.Errorf("target: unknown processor %q in target id %q", parts[0], s)
	}
	id := ID{Processor: p.Name}
	if p.XNACK {
		id.XNACK = FeatureAny
	}
	if p.SRAMECC {
		id.SRAMECC = FeatureAny
	}
	for _, f := range parts[1:] {
		if len(f) < 2 {
			return ID{}, fmt.Errorf("target: bad feature %q in target id %q", f, s)
		}
		var st Feature
		switch f[len(f)-1] {
		case '+':
			st = FeatureOn
		case '-':
			st = FeatureOff
		default:
			return ID{}, fmt.Errorf("target: feature %q in target id %q must end in + or -", f, s)
		}
		switch f[:len(f)-1] {
		case "xnack":
			if !p.XNACK {
				return ID{}, fmt.Errorf("target: %s does not support xnack (target id %q)", p.Name, s)
			}
			id.XNACK = st
		case "sramecc":
			if !p.SRAMECC {
				return ID{}, fmt.Errorf("target: %s does not support sramecc (target id %q)", p.Name, s)
			}
			id.SRAMECC = st
		default:
			return ID{}, fmt.Errorf("target: unknown feature %q in target id %q", f, s)
		}
	}
	return id, nil
}

// FromFlags builds the target id that e_flags describes. It fails for an
// unknown machine number.
func FromFlags(eflags uint32) (ID, error) {
	fl := DecodeFlags(eflags)
	p, ok := ByMach(fl.Mach)
	if !ok {
		return ID{}, fmt.Errorf("target: unknown AMDGPU machine 0x%03x in e_flags 0x%x", uint8(fl.Mach), eflags)
	}
	return ID{Processor: p.Name, XNACK: fl.XNACK, SRAMECC: fl.SRAMECC}, nil
}

// Flags returns the e_flags of the id (machine and v4 feature fields).
func (id ID) Flags() (uint32, error) {
	p, ok := ByName(id.Processor)
	if !ok {
		return 0, fmt.Errorf("target: unknown processor %q", id.Processor)
	}
	return Flags{Mach: p.Mach, XNACK: id.XNACK, SRAMECC: id.SRAMECC}.Encode(), nil
}
