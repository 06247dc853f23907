package loader

import (
	"fmt"
	"hash/fnv"

	"github.com/rocjitsu/rocjitsu/loader/kd"
	"github.com/rocjitsu/rocjitsu/loader/metadata"
	"github.com/rocjitsu/rocjitsu/loader/target"
)

// KernelConfig describes one kernel of a code object made by Build.
type KernelConfig struct {
	// Name is the kernel name; its descriptor symbol is Name + ".kd".
	Name string
	// TextOffset is the kernel's entry point as an offset into .text. It
	// must be a multiple of 256.
	TextOffset uint64
	// CodeSize is the size of the kernel's function symbol; 0 means up to
	// the next kernel or the end of .text.
	CodeSize uint64
	// VGPRCount is the number of architectural VGPRs the code uses,
	// AGPRCount the number of AGPRs (gfx90a-class only).
	VGPRCount, AGPRCount int
	// SGPRCount is the number of SGPRs including VCC and the other
	// reserved SGPRs (what metadata .sgpr_count reports).
	SGPRCount int
	// GroupSegmentFixedSize and PrivateSegmentFixedSize are the LDS and
	// scratch bytes per work-group and work-item.
	GroupSegmentFixedSize, PrivateSegmentFixedSize uint32
	// WavefrontSize is 32 or 64; 0 picks 64 on gfx9 and 32 on gfx10+.
	WavefrontSize int
	// MaxFlatWorkgroupSize defaults to 1024.
	MaxFlatWorkgroupSize int
	// UsesDynamicStack sets the dynamic-stack property.
	UsesDynamicStack bool
	// ExplicitU64Args is the number of u64 by-value arguments at offsets
	// 0, 8, ... when Args is nil; the code object v5 hidden arguments
	// follow them.
	ExplicitU64Args int
	// Args, when not nil, is the full .args list; KernargSegmentSize then
	// defaults to the end of the last argument rounded up to 8.
	Args []metadata.Arg
	// KernargSegmentSize overrides the kernarg segment size.
	KernargSegmentSize uint32
	// Descriptor, when not nil, is used instead of the descriptor derived
	// from the fields above (its entry offset is still set by Build).
	Descriptor *kd.Descriptor
}

// BuildSpec describes a code object to make from scratch.
type BuildSpec struct {
	// Target is the target id ("gfx942", "amdgcn-amd-amdhsa--gfx950:xnack-").
	Target string
	// Text is the machine code.
	Text []byte
	// Kernels lists the kernels in Text.
	Kernels []KernelConfig
	// CodeObjectVersion is 4, 5 or 6 (default 6).
	CodeObjectVersion int
	// Comment is the .comment producer string (default "rocjitsu").
	Comment string
}

// hiddenArgs is the code object v5 hidden kernarg layout (offsets relative
// to the first hidden byte) that the ROCm runtime fills in.
var hiddenArgs = []struct {
	kind string
	off  uint64
	size uint64
}{
	{"hidden_block_count_x", 0, 4}, {"hidden_block_count_y", 4, 4}, {"hidden_block_count_z", 8, 4},
	{"hidden_group_size_x", 12, 2}, {"hidden_group_size_y", 14, 2}, {"hidden_group_size_z", 16, 2},
	{"hidden_remainder_x", 18, 2}, {"hidden_remainder_y", 20, 2}, {"hidden_remainder_z", 22, 2},
	{"hidden_global_offset_x", 40, 8}, {"hidden_global_offset_y", 48, 8}, {"hidden_global_offset_z", 56, 8},
	{"hidden_grid_dims", 64, 2},
	{"hidden_hostcall_buffer", 80, 8}, {"hidden_multigrid_sync_arg", 88, 8}, {"hidden_heap_v1", 96, 8},
	{"hidden_default_queue", 104, 8}, {"hidden_completion_action", 112, 8},
	{"hidden_queue_ptr", 200, 8},
}

// HiddenArgsSize is the size of the code object v5 hidden kernarg block.
const HiddenArgsSize = 256

// DescriptorFor derives a kernel descriptor for cfg on processor p with
// the AMDHSA assembler defaults (FP32 and FP16/FP64 denormals kept, DX10
// clamp and IEEE mode on before gfx12, memory ordering and WGP mode on
// gfx10+), the code object v5 user SGPRs (dispatch pointer, queue
// pointer, kernarg pointer, dispatch id), work-group ids X/Y/Z and
// work-item ids X/Y/Z. The entry offset is left 0.
func DescriptorFor(p target.Processor, cfg KernelConfig, kernargSize uint32) (kd.Descriptor, error) {
	var d kd.Descriptor
	wave32 := p.Family >= target.FamilyGFX10 && cfg.WavefrontSize != 64
	if cfg.WavefrontSize != 0 && cfg.WavefrontSize != 32 && cfg.WavefrontSize != 64 {
		return d, fmt.Errorf("loader: kernel %s: wavefront size %d", cfg.Name, cfg.WavefrontSize)
	}
	if cfg.WavefrontSize == 32 && p.Family < target.FamilyGFX10 {
		return d, fmt.Errorf("loader: kernel %s: %s has no wave32", cfg.Name, p.Name)
	}
	d.GroupSegmentFixedSize = cfg.GroupSegmentFixedSize
	d.PrivateSegmentFixedSize = cfg.PrivateSegmentFixedSize
	d.KernargSize = kernargSize
	vgprs := cfg.VGPRCount
	if p.Family == target.FamilyGFX90A {
		acc := int(kd.AccumOffsetField(vgprs))
		if err := d.Set(kd.RSRC3_ACCUM_OFFSET, uint32(acc)); err != nil {
			return d, err
		}
		vgprs = (acc+1)*4 + cfg.AGPRCount
	} else if cfg.AGPRCount != 0 {
		return d, fmt.Errorf("loader: kernel %s: %s has no AGPRs", cfg.Name, p.Name)
	}
	limit := 256
	if p.Family == target.FamilyGFX90A {
		limit = 512
	}
	if vgprs > limit || cfg.SGPRCount > 106 {
		return d, fmt.Errorf("loader: kernel %s: %d VGPRs / %d SGPRs exceed %s's limits", cfg.Name, vgprs, cfg.SGPRCount, p.Name)
	}
	set := func(f kd.Field, v uint32) {
		if err := d.Set(f, v); err != nil {
			panic(err) // values below are in range by construction
		}
	}
	set(kd.RSRC1_GRANULATED_WORKITEM_VGPR_COUNT, kd.VGPRGranules(p, wave32, vgprs))
	set(kd.RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT, kd.SGPRGranules(p, cfg.SGPRCount))
	set(kd.RSRC1_FLOAT_DENORM_MODE_32, 3)
	set(kd.RSRC1_FLOAT_DENORM_MODE_16_64, 3)
	if p.Family < target.FamilyGFX12 {
		set(kd.RSRC1_ENABLE_DX10_CLAMP, 1)
		set(kd.RSRC1_ENABLE_IEEE_MODE, 1)
	}
	if p.Family >= target.FamilyGFX10 {
		set(kd.RSRC1_WGP_MODE, 1)
		set(kd.RSRC1_MEM_ORDERED, 1)
		if p.Family < target.FamilyGFX12 {
			set(kd.RSRC1_FWD_PROGRESS, 1)
		}
	}
	userSGPRs := 0
	for _, f := range []kd.Field{kd.KCP_ENABLE_SGPR_DISPATCH_PTR, kd.KCP_ENABLE_SGPR_QUEUE_PTR, kd.KCP_ENABLE_SGPR_KERNARG_SEGMENT_PTR, kd.KCP_ENABLE_SGPR_DISPATCH_ID} {
		set(f, 1)
		userSGPRs += 2
	}
	if !p.ArchitectedFlatScratch && (cfg.PrivateSegmentFixedSize > 0 || cfg.UsesDynamicStack) {
		set(kd.KCP_ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER, 1)
		userSGPRs += 4
	}
	if cfg.PrivateSegmentFixedSize > 0 || cfg.UsesDynamicStack {
		set(kd.RSRC2_ENABLE_PRIVATE_SEGMENT, 1)
	}
	if cfg.UsesDynamicStack {
		set(kd.KCP_USES_DYNAMIC_STACK, 1)
	}
	if wave32 {
		set(kd.KCP_ENABLE_WAVEFRONT_SIZE32, 1)
	}
	set(kd.RSRC2_USER_SGPR_COUNT, uint32(userSGPRs))
	set(kd.RSRC2_ENABLE_SGPR_WORKGROUP_ID_X, 1)
	set(kd.RSRC2_ENABLE_SGPR_WORKGROUP_ID_Y, 1)
	set(kd.RSRC2_ENABLE_SGPR_WORKGROUP_ID_Z, 1)
	set(kd.RSRC2_ENABLE_VGPR_WORKITEM_ID, 2)
	return d, nil
}

// kernelArgs returns the .args list and kernarg size for cfg.
func kernelArgs(cfg KernelConfig) ([]metadata.Arg, uint32) {
	if cfg.Args != nil {
		var end uint64
		for _, a := range cfg.Args {
			end = max(end, a.Offset+a.Size)
		}
		size := uint32(align(end, 8))
		if cfg.KernargSegmentSize != 0 {
			size = cfg.KernargSegmentSize
		}
		return cfg.Args, size
	}
	var args []metadata.Arg
	for i := 0; i < cfg.ExplicitU64Args; i++ {
		args = append(args, metadata.Arg{Name: fmt.Sprintf("arg%d", i), Offset: uint64(8 * i), Size: 8, ValueKind: metadata.ValueKindByValue})
	}
	base := uint64(8 * cfg.ExplicitU64Args)
	for _, h := range hiddenArgs {
		args = append(args, metadata.Arg{Offset: base + h.off, Size: h.size, ValueKind: h.kind})
	}
	size := uint32(base + HiddenArgsSize)
	if cfg.KernargSegmentSize != 0 {
		size = cfg.KernargSegmentSize
	}
	return args, size
}

// Build makes a loadable ET_DYN code object from scratch with the section
// and segment inventory of an lld-linked ROCm object: .note, .dynsym,
// .gnu.hash, .hash, .dynstr, .rodata (descriptors), .text, .dynamic,
// .relro_padding, .bss, .AMDGPU.gpr_maximums, .comment, .symtab,
// .shstrtab, .strtab; PT_PHDR, three PT_LOADs for read-only data, code and
// .dynamic, a PT_LOAD for .bss, PT_DYNAMIC, PT_GNU_RELRO, PT_GNU_STACK and
// PT_NOTE. Descriptors and metadata are derived from the kernel configs.
func Build(spec BuildSpec) (*File, error) {
	id, err := target.ParseID(spec.Target)
	if err != nil {
		return nil, fmt.Errorf("loader: build: %w", err)
	}
	proc, _ := target.ByName(id.Processor)
	cov := spec.CodeObjectVersion
	if cov == 0 {
		cov = 6
	}
	if cov < 4 || cov > 6 {
		return nil, fmt.Errorf("loader: build: code object version %d (want 4, 5 or 6)", cov)
	}
	if len(spec.Kernels) == 0 {
		return nil, fmt.Errorf("loader: build: no kernels")
	}
	if len(spec.Text)%4 != 0 || len(spec.Text) == 0 {
		return nil, fmt.Errorf("loader: build: .text is %d bytes, want a non-empty multiple of 4", len(spec.Text))
	}
	flags, _ := id.Flags()

	// Metadata and descriptors (entry offsets later).
	md := &metadata.Metadata{Target: id.String(), Version: []uint64{1, 2}}
	if cov == 4 {
		md.Version = []uint64{1, 1}
	}
	descs := make([]kd.Descriptor, len(spec.Kernels))
	seen := map[string]bool{}
	for i, cfg := range spec.Kernels {
		if cfg.Name == "" || seen[cfg.Name] {
			return nil, fmt.Errorf("loader: build: kernel %d: empty or repeated name %q", i, cfg.Name)
		}
		seen[cfg.Name] = true
		if cfg.TextOffset%256 != 0 || cfg.TextOffset >= uint64(len(spec.Text)) {
			return nil, fmt.Errorf("loader: build: kernel %s: entry offset 0x%x must be 256-byte aligned and inside .text", cfg.Name, cfg.TextOffset)
		}
		args, kernarg := kernelArgs(cfg)
		var d kd.Descriptor
		if cfg.Descriptor != nil {
			d = *cfg.Descriptor
		} else {
			d, err = DescriptorFor(proc, cfg, kernarg)
			if err != nil {
				return nil, err
			}
		}
		descs[i] = d
		wave := d.WavefrontSize(proc)
		maxFlat := cfg.MaxFlatWorkgroupSize
		if maxFlat == 0 {
			maxFlat = 1024
		}
		mk := metadata.Kernel{
			Name: cfg.Name, Symbol: cfg.Name + ".kd", Args: args,
			KernargSegmentSize: uint64(kernarg), KernargSegmentAlign: 8,
			GroupSegmentFixedSize: uint64(cfg.GroupSegmentFixedSize), PrivateSegmentFixedSize: uint64(cfg.PrivateSegmentFixedSize),
			WavefrontSize: uint64(wave), SGPRCount: uint64(cfg.SGPRCount), VGPRCount: uint64(cfg.VGPRCount),
			MaxFlatWorkgroupSize: uint64(maxFlat), UsesDynamicStack: cfg.UsesDynamicStack, UniformWorkGroupSize: 1,
		}
		if proc.Family == target.FamilyGFX90A {
			mk.VGPRCount = uint64(d.NextFreeVGPR(proc))
			if cfg.Descriptor == nil {
				mk.VGPRCount = uint64(d.AccumOffset() + cfg.AGPRCount)
			}
			mk.AGPRCount = uint64(cfg.AGPRCount)
		}
		if proc.Family >= target.FamilyGFX10 {
			mk.WorkgroupProcessorMode = uint64(d.Get(kd.RSRC1_WGP_MODE))
		}
		mk.MarkPresent(".sgpr_spill_count", ".vgpr_spill_count", ".uses_dynamic_stack", ".workgroup_processor_mode")
		if proc.Family == target.FamilyGFX90A {
			mk.MarkPresent(".agpr_count")
		}
		md.Kernels = append(md.Kernels, mk)
	}
	mdBytes, err := md.Encode()
	if err != nil {
		return nil, err
	}

	// Symbols. Dynamic: kernels (FUNC), descriptors (OBJECT), cuid (OBJECT).
	h := fnv.New64a()
	h.Write(spec.Text)
	cuid := fmt.Sprintf("__hip_cuid_%016x", h.Sum64())
	type symDef struct {
		name        string
		info, other uint8
		sec         string
		value, size uint64
	}
	var dyn []symDef
	for i, cfg := range spec.Kernels {
		size := cfg.CodeSize
		if size == 0 {
			end := uint64(len(spec.Text))
			for _, o := range spec.Kernels {
				if o.TextOffset > cfg.TextOffset && o.TextOffset < end {
					end = o.TextOffset
				}
			}
			size = end - cfg.TextOffset
		}
		dyn = append(dyn, symDef{name: cfg.Name, info: STB_GLOBAL<<4 | STT_FUNC, other: STV_PROTECTED, sec: ".text", value: cfg.TextOffset, size: size})
		dyn = append(dyn, symDef{name: cfg.Name + ".kd", info: STB_GLOBAL<<4 | STT_OBJECT, other: STV_PROTECTED, sec: ".rodata", value: uint64(i) * kd.Size, size: kd.Size})
	}
	dyn = append(dyn, symDef{name: cuid, info: STB_GLOBAL<<4 | STT_OBJECT, other: STV_DEFAULT, sec: ".bss", size: 1})

	dynstr := []byte{0}
	dynNames := make([]uint32, len(dyn))
	for i, s := range dyn {
		dynNames[i] = uint32(len(dynstr))
		dynstr = append(dynstr, s.name...)
		dynstr = append(dynstr, 0)
	}
	nd := len(dyn) + 1

	// Layout.
	const page = 0x1000
	const nPhdr = 9
	b := &builder{}
	off := uint64(ehdrSize + nPhdr*phdrSize)
	place := func(name string, typ uint32, flags uint64, al, entsize uint64, data []byte) int {
		off = align(off, al)
		b.secs = append(b.secs, Section{Name: name, Type: typ, Flags: flags, Addr: off, Offset: off, Size: uint64(len(data)), Align: al, Entsize: entsize, Data: data})
		off += uint64(len(data))
		return len(b.secs)
	}
	b.secs = []Section{{}}
	noteRec := noteRecord("AMDGPU", NT_AMDGPU_METADATA, mdBytes)
	iNote := place(".note", SHT_NOTE, SHF_ALLOC, 4, 0, noteRec) - 1
	iDynsym := place(".dynsym", SHT_DYNSYM, SHF_ALLOC, 8, symSize, make([]byte, nd*symSize)) - 1
	gnuHash := make([]byte, 16+8+4+4*(nd-1))
	iGnu := place(".gnu.hash", SHT_GNU_HASH, SHF_ALLOC, 8, 0, gnuHash) - 1
	sysv := make([]byte, 8+4+4*nd)
	iHash := place(".hash", SHT_HASH, SHF_ALLOC, 4, 4, sysv) - 1
	iDynstr := place(".dynstr", SHT_STRTAB, SHF_ALLOC, 1, 0, dynstr) - 1
	rodata := make([]byte, kd.Size*len(spec.Kernels))
	iRodata := place(".rodata", SHT_PROGBITS, SHF_ALLOC, 64, 0, rodata) - 1
	roEnd := off
	// .text: next page in memory, same offset modulo the page.
	off = align(off, 256)
	textAddr := align(roEnd, page) + off%page
	if textAddr < roEnd {
		textAddr += page
	}
	textAddr = align(textAddr, 256)
	b.secs = append(b.secs, Section{Name: ".text", Type: SHT_PROGBITS, Flags: SHF_ALLOC | SHF_EXECINSTR, Addr: textAddr, Offset: off, Size: uint64(len(spec.Text)), Align: 256, Data: append([]byte(nil), spec.Text...)})
	iText := len(b.secs) - 1
	off += uint64(len(spec.Text))
	textEndAddr := textAddr + uint64(len(spec.Text))
	// .dynamic + .relro_padding.
	off = align(off, 8)
	dynAddr := align(textEndAddr, page) + off%page
	dynamic := make([]byte, 7*dynSize)
	b.secs = append(b.secs, Section{Name: ".dynamic", Type: SHT_DYNAMIC, Flags: SHF_WRITE | SHF_ALLOC, Addr: dynAddr, Offset: off, Size: uint64(len(dynamic)), Link: uint32(iDynstr), Align: 8, Entsize: dynSize, Data: dynamic})
	iDynamic := len(b.secs) - 1
	off += uint64(len(dynamic))
	dynEnd := dynAddr + uint64(len(dynamic))
	relroEnd := align(dynEnd, page)
	b.secs = append(b.secs, Section{Name: ".relro_padding", Type: SHT_NOBITS, Flags: SHF_WRITE | SHF_ALLOC, Addr: dynEnd, Offset: off, Size: relroEnd - dynEnd, Align: 1})
	// .bss: one byte on the next page.
	bssAddr := relroEnd + off%page
	if bssAddr < relroEnd {
		bssAddr += page
	}
	b.secs = append(b.secs, Section{Name: ".bss", Type: SHT_NOBITS, Flags: SHF_WRITE | SHF_ALLOC, Addr: bssAddr, Offset: off, Size: 1, Align: 1})
	iBss := len(b.secs) - 1
	allocEnd := off

	secIndex := map[string]int{".text": iText, ".rodata": iRodata, ".bss": iBss}
	// Dynamic symbols.
	var hashes []uint32
	ds := b.secs[iDynsym].Data
	for i, s := range dyn {
		v := s.value + b.secs[secIndex[s.sec]].Addr
		e := ds[(i+1)*symSize:]
		le.PutUint32(e[0:], dynNames[i])
		e[4], e[5] = s.info, s.other
		le.PutUint16(e[6:], uint16(secIndex[s.sec]))
		le.PutUint64(e[8:], v)
		le.PutUint64(e[16:], s.size)
		hashes = append(hashes, gnuHashOf(s.name))
	}
	writeGNUHash(b.secs[iGnu].Data, hashes)
	writeSysVHash(b.secs[iHash].Data, nd)
	for i, k := range spec.Kernels {
		d := descs[i]
		kdAddr := b.secs[iRodata].Addr + uint64(i)*kd.Size
		d.KernelCodeEntryByteOffset = int64(textAddr+k.TextOffset) - int64(kdAddr)
		d.EncodeTo(b.secs[iRodata].Data[i*kd.Size:])
	}
	dents := []DynEntry{
		{DT_SYMTAB, b.secs[iDynsym].Addr}, {DT_SYMENT, symSize}, {DT_STRTAB, b.secs[iDynstr].Addr},
		{DT_STRSZ, uint64(len(dynstr))}, {DT_GNU_HASH, b.secs[iGnu].Addr}, {DT_HASH, b.secs[iHash].Addr}, {DT_NULL, 0},
	}
	for i, e := range dents {
		le.PutUint64(dynamic[i*dynSize:], uint64(e.Tag))
		le.PutUint64(dynamic[i*dynSize+8:], e.Val)
	}
	b.secs[iDynsym].Link = uint32(iDynstr)
	b.secs[iDynsym].Info = 1
	b.secs[iGnu].Link = uint32(iDynsym)
	b.secs[iHash].Link = uint32(iDynsym)

	// Non-ALLOC sections.
	comment := spec.Comment
	if comment == "" {
		comment = "rocjitsu"
	}
	b.secs = append(b.secs, Section{Name: ".AMDGPU.gpr_maximums", Type: SHT_PROGBITS, Align: 1, Data: []byte{}})
	b.secs = append(b.secs, Section{Name: ".comment", Type: SHT_PROGBITS, Flags: SHF_MERGE | SHF_STRINGS, Align: 1, Entsize: 1, Data: append([]byte(comment), 0)})
	// .symtab: null, _DYNAMIC (local), then the dynamic symbols.
	strtab := []byte{0}
	addStr := func(s string) uint32 {
		o := uint32(len(strtab))
		strtab = append(strtab, s...)
		strtab = append(strtab, 0)
		return o
	}
	symtab := make([]byte, (nd+1)*symSize)
	e := symtab[symSize:]
	le.PutUint32(e[0:], addStr("_DYNAMIC"))
	e[4], e[5] = STB_LOCAL<<4|STT_NOTYPE, STV_HIDDEN
	le.PutUint16(e[6:], uint16(iDynamic))
	le.PutUint64(e[8:], dynAddr)
	for i := range dyn {
		src := ds[(i+1)*symSize : (i+2)*symSize]
		dst := symtab[(i+2)*symSize:]
		copy(dst, src)
		le.PutUint32(dst[0:], addStr(dyn[i].name))
	}
	iSymtab := len(b.secs)
	b.secs = append(b.secs, Section{Name: ".symtab", Type: SHT_SYMTAB, Align: 8, Entsize: symSize, Info: 2, Data: symtab})
	iShstr := len(b.secs)
	b.secs = append(b.secs, Section{Name: ".shstrtab", Type: SHT_STRTAB, Align: 1})
	iStrtab := len(b.secs)
	b.secs = append(b.secs, Section{Name: ".strtab", Type: SHT_STRTAB, Align: 1, Data: strtab})
	b.secs[iSymtab].Link = uint32(iStrtab)
	shstr := []byte{0}
	for i := 1; i < len(b.secs); i++ {
		b.secs[i].NameOff = uint32(len(shstr))
		shstr = append(shstr, b.secs[i].Name...)
		shstr = append(shstr, 0)
	}
	b.secs[iShstr].Data = shstr
	off = allocEnd
	for i := iBss + 1; i < len(b.secs); i++ {
		s := &b.secs[i]
		off = align(off, s.Align)
		s.Offset = off
		s.Size = uint64(len(s.Data))
		off += s.Size
	}
	shoff := align(off, 8)

	text := b.secs[iText]
	note := b.secs[iNote]
	segs := []Segment{
		{Type: PT_PHDR, Flags: PF_R, Offset: ehdrSize, Vaddr: ehdrSize, Paddr: ehdrSize, Filesz: nPhdr * phdrSize, Memsz: nPhdr * phdrSize, Align: 8},
		{Type: PT_LOAD, Flags: PF_R, Offset: 0, Vaddr: 0, Paddr: 0, Filesz: roEnd, Memsz: roEnd, Align: page},
		{Type: PT_LOAD, Flags: PF_R | PF_X, Offset: text.Offset, Vaddr: text.Addr, Paddr: text.Addr, Filesz: text.Size, Memsz: text.Size, Align: page},
		{Type: PT_LOAD, Flags: PF_R | PF_W, Offset: b.secs[iDynamic].Offset, Vaddr: dynAddr, Paddr: dynAddr, Filesz: uint64(len(dynamic)), Memsz: relroEnd - dynAddr, Align: page},
		{Type: PT_LOAD, Flags: PF_R | PF_W, Offset: allocEnd, Vaddr: bssAddr, Paddr: bssAddr, Filesz: 0, Memsz: 1, Align: page},
		{Type: PT_DYNAMIC, Flags: PF_R | PF_W, Offset: b.secs[iDynamic].Offset, Vaddr: dynAddr, Paddr: dynAddr, Filesz: uint64(len(dynamic)), Memsz: uint64(len(dynamic)), Align: 8},
		{Type: PT_GNU_RELRO, Flags: PF_R, Offset: b.secs[iDynamic].Offset, Vaddr: dynAddr, Paddr: dynAddr, Filesz: uint64(len(dynamic)), Memsz: relroEnd - dynAddr, Align: 1},
		{Type: PT_GNU_STACK, Flags: PF_R | PF_W},
		{Type: PT_NOTE, Flags: PF_R, Offset: note.Offset, Vaddr: note.Addr, Paddr: note.Addr, Filesz: note.Size, Memsz: note.Size, Align: 4},
	}
	hdr := Header{
		Type: ET_DYN, Machine: target.EM_AMDGPU, Version: EV_CURRENT, Phoff: ehdrSize, Shoff: shoff, Flags: flags,
		Ehsize: ehdrSize, Phentsize: phdrSize, Phnum: nPhdr, Shentsize: shdrSize, Shnum: uint16(len(b.secs)), Shstrndx: uint16(iShstr),
	}
	copy(hdr.Ident[:], "\x7fELF")
	hdr.Ident[4], hdr.Ident[5], hdr.Ident[6] = ELFCLASS64, ELFDATA2LSB, EV_CURRENT
	hdr.Ident[7] = target.ELFOSABI_AMDGPU_HSA
	hdr.Ident[8] = uint8(cov - 2)
	img := make([]byte, shoff+uint64(len(b.secs))*shdrSize)
	hdr.encode(img)
	for i := range segs {
		segs[i].encode(img[ehdrSize+i*phdrSize:])
	}
	for i := range b.secs {
		s := &b.secs[i]
		if s.Type != SHT_NOBITS && s.Type != SHT_NULL {
			copy(img[s.Offset:], s.Data)
		}
		s.encode(img[shoff+uint64(i)*shdrSize:])
	}
	f, err := Parse(img)
	if err != nil {
		return nil, fmt.Errorf("loader: build produced an unreadable object: %w", err)
	}
	if err := f.CheckLayout(); err != nil {
		return nil, fmt.Errorf("loader: build: %w", err)
	}
	return f, nil
}

type builder struct{ secs []Section }

// noteRecord encodes one ELF note with 4-byte padding.
func noteRecord(name string, typ uint32, desc []byte) []byte {
	nb := append([]byte(name), 0)
	rec := make([]byte, 12)
	le.PutUint32(rec[0:], uint32(len(nb)))
	le.PutUint32(rec[4:], uint32(len(desc)))
	le.PutUint32(rec[8:], typ)
	rec = append(rec, nb...)
	for len(rec)%4 != 0 {
		rec = append(rec, 0)
	}
	rec = append(rec, desc...)
	for len(rec)%4 != 0 {
		rec = append(rec, 0)
	}
	return rec
}

// gnuHashOf is the GNU symbol hash (h = h*33 + c, from 5381).
func gnuHashOf(s string) uint32 {
	h := uint32(5381)
	for i := 0; i < len(s); i++ {
		h = h*33 + uint32(s[i])
	}
	return h
}

// writeGNUHash fills a .gnu.hash table with one bucket, one bloom word
// and the chain for symbols 1..len(hashes) of .dynsym.
func writeGNUHash(b []byte, hashes []uint32) {
	const shift = 26
	le.PutUint32(b[0:], 1) // nbuckets
	le.PutUint32(b[4:], 1) // symoffset
	le.PutUint32(b[8:], 1) // bloom size (64-bit words)
	le.PutUint32(b[12:], shift)
	var bloom uint64
	for _, h := range hashes {
		bloom |= 1<<(h%64) | 1<<((h>>shift)%64)
	}
	le.PutUint64(b[16:], bloom)
	le.PutUint32(b[24:], 1) // bucket 0 starts at symbol 1
	for i, h := range hashes {
		v := h &^ 1
		if i == len(hashes)-1 {
			v |= 1
		}
		le.PutUint32(b[28+4*i:], v)
	}
}

// writeSysVHash fills a .hash table with one bucket whose chain visits
// symbols 1..n-1 of an n-entry .dynsym in order (with one bucket the hash
// values themselves are not needed).
func writeSysVHash(b []byte, n int) {
	le.PutUint32(b[0:], 1)         // nbucket
	le.PutUint32(b[4:], uint32(n)) // nchain
	le.PutUint32(b[8:], 1)         // bucket[0] -> symbol 1
	for i := 1; i < n; i++ {
		next := uint32(i + 1)
		if i == n-1 {
			next = 0
		}
		le.PutUint32(b[12+4*i:], next)
	}
}
