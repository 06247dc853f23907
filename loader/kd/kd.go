// Package kd decodes and encodes AMDHSA kernel descriptors (code object v3
// and later): the 64-byte record a dispatch packet's kernel_object points
// at. Field names follow the AMDGPU ABI documentation
// (COMPUTE_PGM_RSRC1.GRANULATED_WORKITEM_VGPR_COUNT and so on); the layout
// of the bit fields depends on the processor family, see Fields.
//
//	d, err := kd.Decode(raw)
//	vgprs := d.NextFreeVGPR(proc)      // derived from the granule
//	d.Set(kd.RSRC3_ACCUM_OFFSET, 63)   // checked against the field width
//	out := d.Encode()
package kd

import (
	"encoding/binary"
	"fmt"

	"github.com/rocjitsu/rocjitsu/loader/target"
)

// Size is the size of a kernel descriptor in bytes.
const Size = 64

// Alignment is the required alignment of a kernel descriptor in memory.
const Alignment = 64

// Byte offsets of the descriptor members.
const (
	GROUP_SEGMENT_FIXED_SIZE_OFFSET      = 0
	PRIVATE_SEGMENT_FIXED_SIZE_OFFSET    = 4
	KERNARG_SIZE_OFFSET                  = 8
	RESERVED0_OFFSET                     = 12
	KERNEL_CODE_ENTRY_BYTE_OFFSET_OFFSET = 16
	RESERVED1_OFFSET                     = 24
	COMPUTE_PGM_RSRC3_OFFSET             = 44
	COMPUTE_PGM_RSRC1_OFFSET             = 48
	COMPUTE_PGM_RSRC2_OFFSET             = 52
	KERNEL_CODE_PROPERTIES_OFFSET        = 56
	KERNARG_PRELOAD_OFFSET               = 58
	RESERVED3_OFFSET                     = 60
)

// Descriptor is a kernel descriptor, member by member. The bit-field
// members (the RSRC words, KernelCodeProperties, KernargPreload) are read
// and written through Get and Set with the Field values of this package.
type Descriptor struct {
	GroupSegmentFixedSize     uint32
	PrivateSegmentFixedSize   uint32
	KernargSize               uint32
	Reserved0                 [4]byte
	KernelCodeEntryByteOffset int64
	Reserved1                 [20]byte
	ComputePgmRsrc3           uint32
	ComputePgmRsrc1           uint32
	ComputePgmRsrc2           uint32
	KernelCodeProperties      uint16
	KernargPreload            uint16
	Reserved3                 [4]byte
}

// Decode reads a descriptor from the first 64 bytes of b.
func Decode(b []byte) (Descriptor, error) {
	var d Descriptor
	if len(b) < Size {
		return d, fmt.Errorf("kd: descriptor needs %d bytes, have %d", Size, len(b))
	}
	le := binary.LittleEndian
	d.GroupSegmentFixedSize = le.Uint32(b[GROUP_SEGMENT_FIXED_SIZE_OFFSET:])
	d.PrivateSegmentFixedSize = le.Uint32(b[PRIVATE_SEGMENT_FIXED_SIZE_OFFSET:])
	d.KernargSize = le.Uint32(b[KERNARG_SIZE_OFFSET:])
	copy(d.Reserved0[:], b[RESERVED0_OFFSET:])
	d.KernelCodeEntryByteOffset = int64(le.Uint64(b[KERNEL_CODE_ENTRY_BYTE_OFFSET_OFFSET:]))
	copy(d.Reserved1[:], b[RESERVED1_OFFSET:])
	d.ComputePgmRsrc3 = le.Uint32(b[COMPUTE_PGM_RSRC3_OFFSET:])
	d.ComputePgmRsrc1 = le.Uint32(b[COMPUTE_PGM_RSRC1_OFFSET:])
	d.ComputePgmRsrc2 = le.Uint32(b[COMPUTE_PGM_RSRC2_OFFSET:])
	d.KernelCodeProperties = le.Uint16(b[KERNEL_CODE_PROPERTIES_OFFSET:])
	d.KernargPreload = le.Uint16(b[KERNARG_PRELOAD_OFFSET:])
	copy(d.Reserved3[:], b[RESERVED3_OFFSET:RESERVED3_OFFSET+4])
	return d, nil
}

// Encode returns the 64 bytes of the descriptor.
func (d *Descriptor) Encode() []byte {
	b := make([]byte, Size)
	d.EncodeTo(b)
	return b
}

// EncodeTo writes the descriptor into the first 64 bytes of b.
func (d *Descriptor) EncodeTo(b []byte) {
	_ = b[Size-1]
	le := binary.LittleEndian
	le.PutUint32(b[GROUP_SEGMENT_FIXED_SIZE_OFFSET:], d.GroupSegmentFixedSize)
	le.PutUint32(b[PRIVATE_SEGMENT_FIXED_SIZE_OFFSET:], d.PrivateSegmentFixedSize)
	le.PutUint32(b[KERNARG_SIZE_OFFSET:], d.KernargSize)
	copy(b[RESERVED0_OFFSET:], d.Reserved0[:])
	le.PutUint64(b[KERNEL_CODE_ENTRY_BYTE_OFFSET_OFFSET:], uint64(d.KernelCodeEntryByteOffset))
	copy(b[RESERVED1_OFFSET:], d.Reserved1[:])
	le.PutUint32(b[COMPUTE_PGM_RSRC3_OFFSET:], d.ComputePgmRsrc3)
	le.PutUint32(b[COMPUTE_PGM_RSRC1_OFFSET:], d.ComputePgmRsrc1)
	le.PutUint32(b[COMPUTE_PGM_RSRC2_OFFSET:], d.ComputePgmRsrc2)
	le.PutUint16(b[KERNEL_CODE_PROPERTIES_OFFSET:], d.KernelCodeProperties)
	le.PutUint16(b[KERNARG_PRELOAD_OFFSET:], d.KernargPreload)
	copy(b[RESERVED3_OFFSET:], d.Reserved3[:])
}

// Word names the descriptor member a bit field lives in.
type Word uint8

// Descriptor members that hold bit fields.
const (
	COMPUTE_PGM_RSRC1 Word = iota + 1
	COMPUTE_PGM_RSRC2
	COMPUTE_PGM_RSRC3
	KERNEL_CODE_PROPERTIES
	KERNARG_PRELOAD
)

func (w Word) String() string {
	switch w {
	case COMPUTE_PGM_RSRC1:
		return "COMPUTE_PGM_RSRC1"
	case COMPUTE_PGM_RSRC2:
		return "COMPUTE_PGM_RSRC2"
	case COMPUTE_PGM_RSRC3:
		return "COMPUTE_PGM_RSRC3"
	case KERNEL_CODE_PROPERTIES:
		return "KERNEL_CODE_PROPERTIES"
	case KERNARG_PRELOAD:
		return "KERNARG_PRELOAD"
	}
	return fmt.Sprintf("Word(%d)", uint8(w))
}

func (w Word) offset() int {
	switch w {
	case COMPUTE_PGM_RSRC1:
		return COMPUTE_PGM_RSRC1_OFFSET
	case COMPUTE_PGM_RSRC2:
		return COMPUTE_PGM_RSRC2_OFFSET
	case COMPUTE_PGM_RSRC3:
		return COMPUTE_PGM_RSRC3_OFFSET
	case KERNEL_CODE_PROPERTIES:
		return KERNEL_CODE_PROPERTIES_OFFSET
	case KERNARG_PRELOAD:
		return KERNARG_PRELOAD_OFFSET
	}
	return -1
}

// Families is a set of processor families.
type Families uint8

// Family sets used by the field table.
const (
	GFX9   Families = 1 << iota // gfx900..gfx90c
	GFX90A                      // gfx90a, gfx940..gfx942, gfx950
	GFX10
	GFX11
	GFX12

	GFX9Plus  = GFX9 | GFX90A | GFX10 | GFX11 | GFX12
	GFX10Plus = GFX10 | GFX11 | GFX12
	AllGFX9   = GFX9 | GFX90A
	PreGFX12  = GFX9 | GFX90A | GFX10 | GFX11
)

// Has reports whether the set holds family f.
func (s Families) Has(f target.Family) bool {
	switch f {
	case target.FamilyGFX9:
		return s&GFX9 != 0
	case target.FamilyGFX90A:
		return s&GFX90A != 0
	case target.FamilyGFX10:
		return s&GFX10 != 0
	case target.FamilyGFX11:
		return s&GFX11 != 0
	case target.FamilyGFX12:
		return s&GFX12 != 0
	}
	return false
}

// Field is one bit field of a descriptor word.
type Field struct {
	// Name is the ABI name of the field without the word prefix.
	Name string
	// Word is the member holding the field.
	Word Word
	// Shift and Width locate the field in the member.
	Shift, Width uint8
	// Families lists where the field has this meaning; elsewhere the bits
	// are reserved or mean something else.
	Families Families
}

// String returns "WORD.NAME".
func (f Field) String() string { return f.Word.String() + "." + f.Name }

// Mask returns the mask of the field within its word.
func (f Field) Mask() uint32 { return (uint32(1)<<f.Width - 1) << f.Shift }

// Max returns the largest value the field holds.
func (f Field) Max() uint32 { return uint32(1)<<f.Width - 1 }

//go:generate go run ./internal/gen -in fields.tab -out fields_gen.go

// Fields returns the bit fields that exist on family fam, in member and
// bit order. On gfx9 (without gfx90a) COMPUTE_PGM_RSRC3 has no fields.
func Fields(fam target.Family) []Field {
	var out []Field
	for _, f := range fieldTable {
		if f.Families.Has(fam) {
			out = append(out, f)
		}
	}
	return out
}

func (d *Descriptor) word(w Word) uint32 {
	switch w {
	case COMPUTE_PGM_RSRC1:
		return d.ComputePgmRsrc1
	case COMPUTE_PGM_RSRC2:
		return d.ComputePgmRsrc2
	case COMPUTE_PGM_RSRC3:
		return d.ComputePgmRsrc3
	case KERNEL_CODE_PROPERTIES:
		return uint32(d.KernelCodeProperties)
	case KERNARG_PRELOAD:
		return uint32(d.KernargPreload)
	}
	return 0
}

func (d *Descriptor) setWord(w Word, v uint32) {
	switch w {
	case COMPUTE_PGM_RSRC1:
		d.ComputePgmRsrc1 = v
	case COMPUTE_PGM_RSRC2:
		d.ComputePgmRsrc2 = v
	case COMPUTE_PGM_RSRC3:
		d.ComputePgmRsrc3 = v
	case KERNEL_CODE_PROPERTIES:
		d.KernelCodeProperties = uint16(v)
	case KERNARG_PRELOAD:
		d.KernargPreload = uint16(v)
	}
}

// Get returns the value of field f.
func (d *Descriptor) Get(f Field) uint32 {
	return (d.word(f.Word) & f.Mask()) >> f.Shift
}

// Set stores v in field f. It fails when v does not fit the field.
func (d *Descriptor) Set(f Field, v uint32) error {
	if v > f.Max() {
		return fmt.Errorf("kd: value %d does not fit %s (%d bits)", v, f, f.Width)
	}
	w := d.word(f.Word)&^f.Mask() | v<<f.Shift
	d.setWord(f.Word, w)
	return nil
}

// Flag returns Get(f) != 0.
func (d *Descriptor) Flag(f Field) bool { return d.Get(f) != 0 }

// Wave32 reports whether the descriptor selects wavefront size 32 (gfx10+).
func (d *Descriptor) Wave32(p target.Processor) bool {
	return p.Family >= target.FamilyGFX10 && d.Flag(KCP_ENABLE_WAVEFRONT_SIZE32)
}

// WavefrontSize returns 32 or 64.
func (d *Descriptor) WavefrontSize(p target.Processor) int {
	if d.Wave32(p) {
		return 32
	}
	return 64
}

// VGPREncodingGranule returns the number of VGPRs one unit of
// GRANULATED_WORKITEM_VGPR_COUNT stands for: 8 on gfx90a-class processors
// (unified VGPR+AGPR file) and on gfx10+ in wave32, 4 otherwise.
func VGPREncodingGranule(p target.Processor, wave32 bool) int {
	switch {
	case p.Family == target.FamilyGFX90A:
		return 8
	case p.Family >= target.FamilyGFX10 && wave32:
		return 8
	}
	return 4
}

// SGPREncodingGranule is the number of SGPRs one unit of
// GRANULATED_WAVEFRONT_SGPR_COUNT stands for.
const SGPREncodingGranule = 8

// NextFreeVGPR returns the VGPR count the descriptor allocates:
// (GRANULATED_WORKITEM_VGPR_COUNT + 1) * granule. On gfx90a-class
// processors this counts arch VGPRs and AGPRs together.
func (d *Descriptor) NextFreeVGPR(p target.Processor) int {
	return (int(d.Get(RSRC1_GRANULATED_WORKITEM_VGPR_COUNT)) + 1) * VGPREncodingGranule(p, d.Wave32(p))
}

// NextFreeSGPR returns (GRANULATED_WAVEFRONT_SGPR_COUNT + 1) * 8. The
// field is meant to be zero on gfx10+ where the hardware always allocates
// the full SGPR file.
func (d *Descriptor) NextFreeSGPR() int {
	return (int(d.Get(RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT)) + 1) * SGPREncodingGranule
}

// AccumOffset returns the first AGPR's index in the unified register file
// on gfx90a-class processors: (ACCUM_OFFSET + 1) * 4.
func (d *Descriptor) AccumOffset() int { return (int(d.Get(RSRC3_ACCUM_OFFSET)) + 1) * 4 }

// VGPRGranules returns the GRANULATED_WORKITEM_VGPR_COUNT value for a
// kernel that uses count VGPRs (AGPRs included on gfx90a-class).
func VGPRGranules(p target.Processor, wave32 bool, count int) uint32 {
	g := VGPREncodingGranule(p, wave32)
	if count < 1 {
		count = 1
	}
	return uint32((count+g-1)/g - 1)
}

// SGPRGranules returns the GRANULATED_WAVEFRONT_SGPR_COUNT value for a
// kernel that uses count SGPRs (including VCC, FLAT_SCRATCH and XNACK_MASK
// when reserved). gfx10+ processors take 0.
func SGPRGranules(p target.Processor, count int) uint32 {
	if p.Family >= target.FamilyGFX10 {
		return 0
	}
	if count < 1 {
		count = 1
	}
	return uint32((count+SGPREncodingGranule-1)/SGPREncodingGranule - 1)
}

// AccumOffsetField returns the ACCUM_OFFSET value that puts the first AGPR
// at index firstAGPR (rounded up to a multiple of 4).
func AccumOffsetField(firstAGPR int) uint32 {
	if firstAGPR < 4 {
		firstAGPR = 4
	}
	return uint32((firstAGPR+3)/4 - 1)
}

// EntryAddress returns the address of the kernel's first instruction for
// a descriptor placed at kdAddr.
func (d *Descriptor) EntryAddress(kdAddr uint64) uint64 {
	return kdAddr + uint64(d.KernelCodeEntryByteOffset)
}

// Check reports the first reserved bit or byte that is set for processor p,
// naming the member and field. LLVM's disassembler rejects such
// descriptors.
func (d *Descriptor) Check(p target.Processor) error {
	for i, b := range d.Reserved0 {
		if b != 0 {
			return fmt.Errorf("kd: reserved byte %d (RESERVED0) is 0x%02x", RESERVED0_OFFSET+i, b)
		}
	}
	for i, b := range d.Reserved1 {
		if b != 0 {
			return fmt.Errorf("kd: reserved byte %d (RESERVED1) is 0x%02x", RESERVED1_OFFSET+i, b)
		}
	}
	for i, b := range d.Reserved3 {
		if b != 0 {
			return fmt.Errorf("kd: reserved byte %d (RESERVED3) is 0x%02x", RESERVED3_OFFSET+i, b)
		}
	}
	for _, f := range fieldTable { // Fields(p.Family) without the slice
		if !f.Families.Has(p.Family) {
			continue
		}
		if len(f.Name) >= 8 && f.Name[:8] == "RESERVED" && d.Get(f) != 0 {
			return fmt.Errorf("kd: reserved field %s (byte %d, bits %d..%d) is %d", f, f.Word.offset(), f.Shift, f.Shift+f.Width-1, d.Get(f))
		}
	}
	if p.Family >= target.FamilyGFX10 && d.Get(RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT) != 0 {
		return fmt.Errorf("kd: %s is %d, must be zero on gfx10+", RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT, d.Get(RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT))
	}
	if p.Family < target.FamilyGFX90A && d.ComputePgmRsrc3 != 0 && p.Family != target.FamilyUnknown {
		return fmt.Errorf("kd: COMPUTE_PGM_RSRC3 is 0x%x, must be zero before gfx90a", d.ComputePgmRsrc3)
	}
	return nil
}
