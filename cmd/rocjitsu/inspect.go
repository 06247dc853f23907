package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/loader/kd"
	"github.com/rocjitsu/rocjitsu/loader/metadata"
	"github.com/rocjitsu/rocjitsu/loader/target"
)

func init() {
	register(command{
		name:    "inspect",
		summary: "show a code object's header, target, kernels, sections and segments",
		run:     runInspect,
	})
}

// inspectReport is the JSON form of `rocjitsu inspect --json`; the README
// documents it.
type inspectReport struct {
	File     string           `json:"file"`
	Header   inspectHeader    `json:"header"`
	Target   inspectTarget    `json:"target"`
	Kernels  []map[string]any `json:"kernels"`
	Sections []inspectSection `json:"sections"`
	Segments []inspectSegment `json:"segments"`
}

type inspectHeader struct {
	Class             string `json:"class"`
	Type              string `json:"type"`
	Machine           uint16 `json:"machine"`
	OSABI             uint8  `json:"os_abi"`
	ABIVersion        uint8  `json:"abi_version"`
	CodeObjectVersion int    `json:"code_object_version"`
	EFlags            uint32 `json:"e_flags"`
	Entry             uint64 `json:"entry"`
}

type inspectTarget struct {
	ID             string `json:"id"`
	Processor      string `json:"processor"`
	Mach           uint8  `json:"mach"`
	Family         string `json:"family"`
	XNACK          string `json:"xnack"`
	SRAMECC        string `json:"sramecc"`
	GenericVersion uint8  `json:"generic_version"`
	MetadataTarget string `json:"metadata_target,omitempty"`
}

type inspectSection struct {
	Index   int    `json:"index"`
	Name    string `json:"name"`
	Type    string `json:"type"`
	Flags   string `json:"flags"`
	Addr    uint64 `json:"addr"`
	Offset  uint64 `json:"offset"`
	Size    uint64 `json:"size"`
	Align   uint64 `json:"align"`
	Entsize uint64 `json:"entsize"`
	Link    uint32 `json:"link"`
	Info    uint32 `json:"info"`
}

type inspectSegment struct {
	Type   string `json:"type"`
	Flags  string `json:"flags"`
	Offset uint64 `json:"offset"`
	Vaddr  uint64 `json:"vaddr"`
	Paddr  uint64 `json:"paddr"`
	Filesz uint64 `json:"filesz"`
	Memsz  uint64 `json:"memsz"`
	Align  uint64 `json:"align"`
}

func runInspect(args []string, stdout, stderr io.Writer) int {
	asJSON := false
	var files []string
	for _, a := range args {
		switch a {
		case "--json", "-json":
			asJSON = true
		case "-h", "-help", "--help":
			fmt.Fprintln(stdout, "usage: rocjitsu inspect FILE [--json]")
			fmt.Fprintln(stdout, "Shows the ELF header, target, kernels (descriptor fields and metadata),")
			fmt.Fprintln(stdout, "sections and segments of an AMDGPU code object. --json prints the")
			fmt.Fprintln(stdout, "stable machine-readable form documented in the README.")
			return 0
		default:
			if strings.HasPrefix(a, "-") {
				fmt.Fprintf(stderr, "rocjitsu inspect: unknown option %s\n", a)
				return 2
			}
			files = append(files, a)
		}
	}
	if len(files) != 1 {
		fmt.Fprintln(stderr, "usage: rocjitsu inspect FILE [--json]")
		return 2
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu inspect: %v\n", err)
		return 1
	}
	f, err := loader.Parse(b)
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu inspect: %s: %v\n", files[0], err)
		return 1
	}
	rep := buildInspectReport(files[0], f)
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "rocjitsu inspect: %v\n", err)
			return 1
		}
		return 0
	}
	printInspect(stdout, f, rep)
	return 0
}

// stripDots renames metadata keys ".name" -> "name", recursively.
func stripDots(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[strings.TrimPrefix(k, ".")] = stripDots(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = stripDots(e)
		}
		return l
	}
	return v
}

func descriptorReport(f *loader.File, k *loader.Kernel) map[string]any {
	d := &k.Descriptor
	p := f.Processor
	fields := map[string]uint32{}
	for _, fl := range kd.Fields(p.Family) {
		fields[fl.String()] = d.Get(fl)
	}
	directives := map[string]int64{}
	for _, dir := range d.Directives(p, f.CodeObjectVersion()) {
		directives[dir.Name] = dir.Value
	}
	r := map[string]any{
		"group_segment_fixed_size":      d.GroupSegmentFixedSize,
		"private_segment_fixed_size":    d.PrivateSegmentFixedSize,
		"kernarg_size":                  d.KernargSize,
		"kernel_code_entry_byte_offset": d.KernelCodeEntryByteOffset,
		"compute_pgm_rsrc1":             d.ComputePgmRsrc1,
		"compute_pgm_rsrc2":             d.ComputePgmRsrc2,
		"compute_pgm_rsrc3":             d.ComputePgmRsrc3,
		"kernel_code_properties":        d.KernelCodeProperties,
		"kernarg_preload":               d.KernargPreload,
		"next_free_vgpr":                d.NextFreeVGPR(p),
		"next_free_sgpr":                d.NextFreeSGPR(),
		"wavefront_size":                d.WavefrontSize(p),
		"fields":                        fields,
		"directives":                    directives,
	}
	if p.Family == target.FamilyGFX90A {
		r["accum_offset"] = d.AccumOffset()
	}
	if err := d.Check(p); err != nil {
		r["check"] = err.Error()
	}
	return r
}

func buildInspectReport(path string, f *loader.File) *inspectReport {
	h := &f.Header
	rep := &inspectReport{
		File: path,
		Header: inspectHeader{
			Class: "ELF64", Type: elfTypeName(h.Type), Machine: h.Machine, OSABI: h.OSABI(), ABIVersion: h.ABIVersion(),
			CodeObjectVersion: f.CodeObjectVersion(), EFlags: h.Flags, Entry: h.Entry,
		},
		Target: inspectTarget{
			Processor: f.Processor.Name, Mach: uint8(f.Flags.Mach), Family: f.Processor.Family.String(),
			XNACK: f.Flags.XNACK.String(), SRAMECC: f.Flags.SRAMECC.String(), GenericVersion: f.Flags.GenericVersion,
		},
		Kernels:  []map[string]any{},
		Sections: []inspectSection{},
		Segments: []inspectSegment{},
	}
	if f.Processor.Name != "" {
		rep.Target.ID = f.Target.String()
	}
	if f.Metadata != nil {
		rep.Target.MetadataTarget = f.Metadata.Target
	}
	for _, k := range f.Kernels() {
		m := map[string]any{}
		if k.Metadata != nil {
			m = stripDots(k.Metadata.Map()).(map[string]any)
		}
		m["name"] = k.Name
		m["symbol"] = k.Symbol
		m["descriptor_address"] = k.DescriptorAddr
		m["descriptor_offset"] = k.DescriptorOffset
		m["entry_address"] = k.EntryAddr
		m["entry_symbol"] = k.EntrySymbol
		m["descriptor"] = descriptorReport(f, &k)
		rep.Kernels = append(rep.Kernels, m)
	}
	for i, s := range f.Sections {
		rep.Sections = append(rep.Sections, inspectSection{
			Index: i, Name: s.Name, Type: sectionTypeName(s.Type), Flags: sectionFlags(s.Flags),
			Addr: s.Addr, Offset: s.Offset, Size: s.Size, Align: s.Align, Entsize: s.Entsize, Link: s.Link, Info: s.Info,
		})
	}
	for _, g := range f.Segments {
		rep.Segments = append(rep.Segments, inspectSegment{
			Type: segmentTypeName(g.Type), Flags: segmentFlags(g.Flags), Offset: g.Offset, Vaddr: g.Vaddr, Paddr: g.Paddr,
			Filesz: g.Filesz, Memsz: g.Memsz, Align: g.Align,
		})
	}
	return rep
}

func printInspect(w io.Writer, f *loader.File, rep *inspectReport) {
	h := rep.Header
	fmt.Fprintf(w, "%s: ELF64 %s, EM_AMDGPU, OS ABI %d (AMDGPU HSA), ABI version %d (code object v%d)\n",
		rep.File, h.Type, h.OSABI, h.ABIVersion, h.CodeObjectVersion)
	t := rep.Target
	proc := t.Processor
	if proc == "" {
		proc = fmt.Sprintf("unknown machine 0x%02x", t.Mach)
	}
	fmt.Fprintf(w, "e_flags 0x%x: %s (mach 0x%02x, family %s), xnack %s, sramecc %s", h.EFlags, proc, t.Mach, t.Family, t.XNACK, t.SRAMECC)
	if t.GenericVersion != 0 {
		fmt.Fprintf(w, ", generic version %d", t.GenericVersion)
	}
	fmt.Fprintln(w)
	if t.ID != "" {
		fmt.Fprintf(w, "target: %s\n", t.ID)
	}
	if t.MetadataTarget != "" {
		fmt.Fprintf(w, "metadata target: %s\n", t.MetadataTarget)
	}
	if f.Metadata != nil && len(f.Metadata.Version) > 0 {
		fmt.Fprintf(w, "metadata version: %v\n", f.Metadata.Version)
	}
	fmt.Fprintf(w, "\nkernels (%d):\n", len(f.Kernels()))
	for _, k := range f.Kernels() {
		fmt.Fprintf(w, "  %s\n", k.Name)
		fmt.Fprintf(w, "    descriptor %s at 0x%x (file offset 0x%x), entry 0x%x", k.Symbol, k.DescriptorAddr, k.DescriptorOffset, k.EntryAddr)
		if k.EntrySymbol != "" {
			fmt.Fprintf(w, " <%s>", k.EntrySymbol)
		}
		fmt.Fprintln(w)
		if m := k.Metadata; m != nil {
			fmt.Fprintf(w, "    metadata: lds %d, scratch %d, kernarg %d (align %d), vgpr %d, agpr %d, sgpr %d, wave%d, max flat workgroup %d\n",
				m.GroupSegmentFixedSize, m.PrivateSegmentFixedSize, m.KernargSegmentSize, m.KernargSegmentAlign,
				m.VGPRCount, m.AGPRCount, m.SGPRCount, m.WavefrontSize, m.MaxFlatWorkgroupSize)
			printExtra(w, "      ", m.Map())
			if len(m.Args) > 0 {
				fmt.Fprintf(w, "    args (%d):\n", len(m.Args))
				for _, a := range m.Args {
					name := a.Name
					if name == "" {
						name = "-"
					}
					extra := ""
					if a.AddressSpace != "" {
						extra += " " + a.AddressSpace
					}
					if a.ValueType != "" {
						extra += " " + a.ValueType
					}
					fmt.Fprintf(w, "      %4d +%-3d %-28s %s%s\n", a.Offset, a.Size, a.ValueKind, name, extra)
				}
			}
		}
		d := &k.Descriptor
		fmt.Fprintf(w, "    descriptor: rsrc1 0x%08x rsrc2 0x%08x rsrc3 0x%08x properties 0x%04x kernarg_preload 0x%04x entry offset %d\n",
			d.ComputePgmRsrc1, d.ComputePgmRsrc2, d.ComputePgmRsrc3, d.KernelCodeProperties, d.KernargPreload, d.KernelCodeEntryByteOffset)
		for _, dir := range d.Directives(f.Processor, f.CodeObjectVersion()) {
			fmt.Fprintf(w, "      %-52s %d\n", dir.Name, dir.Value)
		}
		var nonzero []string
		for _, fl := range kd.Fields(f.Processor.Family) {
			if v := d.Get(fl); v != 0 {
				nonzero = append(nonzero, fmt.Sprintf("%s=%d", fl, v))
			}
		}
		fmt.Fprintf(w, "      fields: %s\n", strings.Join(nonzero, " "))
		if err := d.Check(f.Processor); err != nil {
			fmt.Fprintf(w, "      check: %v\n", err)
		}
	}
	fmt.Fprintf(w, "\nsections (%d):\n", len(rep.Sections))
	fmt.Fprintf(w, "  %3s %-22s %-10s %-5s %18s %10s %10s %5s\n", "nr", "name", "type", "flags", "addr", "offset", "size", "align")
	for _, s := range rep.Sections {
		fmt.Fprintf(w, "  %3d %-22s %-10s %-5s %#18x %#10x %#10x %5d\n", s.Index, s.Name, s.Type, s.Flags, s.Addr, s.Offset, s.Size, s.Align)
	}
	fmt.Fprintf(w, "\nsegments (%d):\n", len(rep.Segments))
	fmt.Fprintf(w, "  %-12s %-5s %10s %18s %10s %10s %8s\n", "type", "flags", "offset", "vaddr", "filesz", "memsz", "align")
	for _, g := range rep.Segments {
		fmt.Fprintf(w, "  %-12s %-5s %#10x %#18x %#10x %#10x %#8x\n", g.Type, g.Flags, g.Offset, g.Vaddr, g.Filesz, g.Memsz, g.Align)
	}
}

// printExtra prints kernel metadata keys the summary line does not show.
func printExtra(w io.Writer, indent string, m map[string]any) {
	shown := map[string]bool{".args": true, ".name": true, ".symbol": true, ".group_segment_fixed_size": true,
		".private_segment_fixed_size": true, ".kernarg_segment_size": true, ".kernarg_segment_align": true,
		".vgpr_count": true, ".agpr_count": true, ".sgpr_count": true, ".wavefront_size": true, ".max_flat_workgroup_size": true}
	keys := metadata.Keys(m)
	sort.Strings(keys)
	for _, k := range keys {
		if !shown[k] {
			fmt.Fprintf(w, "%s%s: %v\n", indent, k, m[k])
		}
	}
}

func elfTypeName(t uint16) string {
	switch t {
	case loader.ET_REL:
		return "REL"
	case loader.ET_DYN:
		return "DYN"
	case 2:
		return "EXEC"
	}
	return fmt.Sprintf("0x%x", t)
}

func sectionTypeName(t uint32) string {
	names := map[uint32]string{
		loader.SHT_NULL: "NULL", loader.SHT_PROGBITS: "PROGBITS", loader.SHT_SYMTAB: "SYMTAB", loader.SHT_STRTAB: "STRTAB",
		loader.SHT_RELA: "RELA", loader.SHT_HASH: "HASH", loader.SHT_DYNAMIC: "DYNAMIC", loader.SHT_NOTE: "NOTE",
		loader.SHT_NOBITS: "NOBITS", loader.SHT_REL: "REL", loader.SHT_DYNSYM: "DYNSYM", loader.SHT_GNU_HASH: "GNU_HASH",
	}
	if n, ok := names[t]; ok {
		return n
	}
	return fmt.Sprintf("0x%x", t)
}

func sectionFlags(fl uint64) string {
	s := ""
	for _, x := range []struct {
		bit uint64
		c   string
	}{{loader.SHF_WRITE, "W"}, {loader.SHF_ALLOC, "A"}, {loader.SHF_EXECINSTR, "X"}, {loader.SHF_MERGE, "M"}, {loader.SHF_STRINGS, "S"}} {
		if fl&x.bit != 0 {
			s += x.c
		}
	}
	if rest := fl &^ (loader.SHF_WRITE | loader.SHF_ALLOC | loader.SHF_EXECINSTR | loader.SHF_MERGE | loader.SHF_STRINGS); rest != 0 {
		s += fmt.Sprintf("+0x%x", rest)
	}
	return s
}

func segmentTypeName(t uint32) string {
	names := map[uint32]string{
		loader.PT_NULL: "NULL", loader.PT_LOAD: "LOAD", loader.PT_DYNAMIC: "DYNAMIC", loader.PT_NOTE: "NOTE",
		loader.PT_PHDR: "PHDR", loader.PT_GNU_STACK: "GNU_STACK", loader.PT_GNU_RELRO: "GNU_RELRO",
	}
	if n, ok := names[t]; ok {
		return n
	}
	return fmt.Sprintf("0x%x", t)
}

func segmentFlags(fl uint32) string {
	s := ""
	if fl&loader.PF_R != 0 {
		s += "R"
	}
	if fl&loader.PF_W != 0 {
		s += "W"
	}
	if fl&loader.PF_X != 0 {
		s += "X"
	}
	return s
}
