package silkrt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bundle v3 byte layout (all integers little-endian). bundle-v3.md in this
// directory is the prose version of the same definition.
//
// The bundle is appended to a host executable at an 8-byte-aligned file
// offset S (the writer pads the executable with zero bytes up to S):
//
//	S+0                  header, HeaderSize bytes
//	S+HeaderSize         entry table, EntrySize bytes per entry
//	...                  names and code objects, anywhere below S+L,
//	                     non-overlapping; code objects 8-byte aligned
//	S+L                  trailer, TrailerSize bytes: u64 L, "SLKGPEND"
//
// L (the trailing length) counts the bytes from S up to, not including, the
// trailer, so S = file size - TrailerSize - L.
const (
	// BundleVersion is the only bundle version this package reads and writes.
	BundleVersion = 3
	// BundleMagic starts the bundle header.
	BundleMagic = "SLKGPU\x00\x00"
	// BundleFooter ends the executable.
	BundleFooter = "SLKGPEND"
	// BundleAlign is the alignment of the bundle start and of every code
	// object, in file offsets.
	BundleAlign = 8
	// MaxEntryNameLen is the longest entry name in bytes.
	MaxEntryNameLen = 255

	// HeaderSize is the size of the bundle header.
	HeaderSize = 32
	// EntrySize is the size of one entry-table record.
	EntrySize = 32
	// TrailerSize is the size of the trailer (length and footer).
	TrailerSize = 16
)

// Offsets in the bundle header.
const (
	headerMagic    = 0  // [8]byte BundleMagic
	headerVersion  = 8  // u32 BundleVersion
	headerProvider = 12 // u32 ProviderID
	headerTarget   = 16 // u32 target tag
	headerCount    = 20 // u32 number of entries
	headerReserved = 24 // u64, must be 0
)

// Offsets in one entry-table record.
const (
	entryNameOffset = 0  // u32 name offset from S
	entryNameSize   = 4  // u32 name length in bytes, 1..255
	entryKernarg    = 8  // u32 explicit kernarg bytes
	entryReserved   = 12 // u32, must be 0
	entryCodeOffset = 16 // u64 code object offset from S, multiple of 8
	entryCodeSize   = 24 // u64 code object size, > 0
)

// ProviderID identifies the GPU runtime a bundle's code objects are for.
type ProviderID uint32

// Provider identities.
const (
	// ProviderHIP marks AMDHSA code objects, loaded through HIP.
	ProviderHIP ProviderID = 1
	// ProviderCUDA marks NVIDIA PTX modules, loaded through CUDA.
	ProviderCUDA ProviderID = 2
)

// String returns "hip", "cuda" or provider(N).
func (p ProviderID) String() string {
	switch p {
	case ProviderHIP:
		return "hip"
	case ProviderCUDA:
		return "cuda"
	}
	return fmt.Sprintf("provider(%d)", uint32(p))
}

// ParseProviderID parses "hip" or "cuda".
func ParseProviderID(s string) (ProviderID, error) {
	switch s {
	case "hip":
		return ProviderHIP, nil
	case "cuda":
		return ProviderCUDA, nil
	}
	return 0, fmt.Errorf("silkrt: unknown provider %q (want hip or cuda)", s)
}

// ParseTargetTag returns the numeric processor tag of an AMDGPU processor
// name, for example 942 for "gfx942" or "amdgcn-amd-amdhsa--gfx942:xnack-",
// and the CUDA tag of "sm_80" (80). Processors whose number is not decimal
// (gfx90a) have no tag.
func ParseTargetTag(s string) (uint32, error) {
	name := s
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[:i]
	}
	if i := strings.LastIndex(name, "-"); i >= 0 && strings.HasPrefix(name, "amdgcn") {
		name = name[i+1:]
	}
	var digits string
	switch {
	case strings.HasPrefix(name, "gfx"):
		digits = name[3:]
	case strings.HasPrefix(name, "sm_"):
		digits = name[3:]
	default:
		digits = name
	}
	v, err := strconv.ParseUint(digits, 10, 32)
	if err != nil || v == 0 {
		return 0, fmt.Errorf("silkrt: processor %q has no numeric target tag", s)
	}
	return uint32(v), nil
}

// Entry is one launchable kernel in a bundle.
type Entry struct {
	// Name is the kernel name (the AMDHSA metadata .name; the descriptor
	// symbol is Name+".kd"), 1 to 255 bytes of UTF-8 without NUL.
	Name string
	// KernargSize is the byte count of the explicit kernel arguments; a
	// launch must pass exactly this many bytes.
	KernargSize uint32
	// CodeObject is the code object (an AMDHSA ELF for HIP, PTX for CUDA).
	CodeObject []byte
}

// Bundle is a Silk GPU bundle, version 3.
type Bundle struct {
	// Provider says which runtime may load the code objects.
	Provider ProviderID
	// Target is the numeric processor tag (942 for gfx942, 80 for sm_80).
	Target uint32
	// Entries are the kernels, in bundle order.
	Entries []Entry
}

// Entry returns the entry with the given name.
func (b *Bundle) Entry(name string) (*Entry, bool) {
	for i := range b.Entries {
		if b.Entries[i].Name == name {
			return &b.Entries[i], true
		}
	}
	return nil, false
}

// FormatError reports a malformed bundle, naming the file offset and field.
type FormatError struct {
	// Offset is the byte offset in the executable (or in the buffer given to
	// the reader) where the bad field is.
	Offset int64
	// Field names the field, for example "entry[2].code_offset".
	Field string
	// Msg says what is wrong.
	Msg string
}

// Error formats the error as "silkrt: bundle: offset N (field): message".
func (e *FormatError) Error() string {
	return fmt.Sprintf("silkrt: bundle: offset %d (%s): %s", e.Offset, e.Field, e.Msg)
}

// ErrNoBundle is returned (wrapped in a *FormatError) when the executable
// does not end with the SLKGPEND footer.
var ErrNoBundle = errors.New("no Silk GPU bundle")

// Unwrap returns ErrNoBundle for a missing footer.
func (e *FormatError) Unwrap() error {
	if e.Field == "footer" {
		return ErrNoBundle
	}
	return nil
}

func (b *Bundle) check() error {
	if b.Provider != ProviderHIP && b.Provider != ProviderCUDA {
		return fmt.Errorf("silkrt: bundle: unknown provider %v", b.Provider)
	}
	if b.Target == 0 {
		return errors.New("silkrt: bundle: target tag is 0")
	}
	if len(b.Entries) == 0 {
		return errors.New("silkrt: bundle: no entries")
	}
	seen := map[string]bool{}
	for i, e := range b.Entries {
		if err := checkName(e.Name); err != nil {
			return fmt.Errorf("silkrt: bundle: entry[%d]: %v", i, err)
		}
		if seen[e.Name] {
			return fmt.Errorf("silkrt: bundle: entry[%d]: duplicate name %q", i, e.Name)
		}
		seen[e.Name] = true
		if len(e.CodeObject) == 0 {
			return fmt.Errorf("silkrt: bundle: entry[%d] %q: empty code object", i, e.Name)
		}
	}
	return nil
}

func checkName(n string) error {
	switch {
	case n == "":
		return errors.New("empty name")
	case len(n) > MaxEntryNameLen:
		return fmt.Errorf("name is %d bytes, limit %d", len(n), MaxEntryNameLen)
	case !utf8.ValidString(n):
		return fmt.Errorf("name %q is not UTF-8", n)
	case strings.IndexByte(n, 0) >= 0:
		return fmt.Errorf("name %q contains NUL", n)
	}
	return nil
}

func align8(n int) int { return (n + BundleAlign - 1) &^ (BundleAlign - 1) }

// MarshalBinary returns the bundle image including its trailer. The image
// must be placed at an 8-byte-aligned file offset (AppendBundle does that).
func (b *Bundle) MarshalBinary() ([]byte, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	n := len(b.Entries)
	size := HeaderSize + EntrySize*n
	nameOff := make([]int, n)
	for i, e := range b.Entries {
		nameOff[i] = size
		size += len(e.Name)
	}
	codeOff := make([]int, n)
	for i, e := range b.Entries {
		size = align8(size)
		codeOff[i] = size
		size += len(e.CodeObject)
	}
	size = align8(size)
	out := make([]byte, size+TrailerSize)
	le := binary.LittleEndian
	copy(out[headerMagic:], BundleMagic)
	le.PutUint32(out[headerVersion:], BundleVersion)
	le.PutUint32(out[headerProvider:], uint32(b.Provider))
	le.PutUint32(out[headerTarget:], b.Target)
	le.PutUint32(out[headerCount:], uint32(n))
	for i, e := range b.Entries {
		r := out[HeaderSize+EntrySize*i:]
		le.PutUint32(r[entryNameOffset:], uint32(nameOff[i]))
		le.PutUint32(r[entryNameSize:], uint32(len(e.Name)))
		le.PutUint32(r[entryKernarg:], e.KernargSize)
		le.PutUint64(r[entryCodeOffset:], uint64(codeOff[i]))
		le.PutUint64(r[entryCodeSize:], uint64(len(e.CodeObject)))
		copy(out[nameOff[i]:], e.Name)
		copy(out[codeOff[i]:], e.CodeObject)
	}
	le.PutUint64(out[size:], uint64(size))
	copy(out[size+8:], BundleFooter)
	return out, nil
}

// AppendBundle returns exe padded with zeros to an 8-byte boundary followed
// by the bundle image. It fails if exe already ends with a bundle footer.
func AppendBundle(exe []byte, b *Bundle) ([]byte, error) {
	if len(exe) >= 8 && string(exe[len(exe)-8:]) == BundleFooter {
		return nil, errors.New("silkrt: executable already ends with a Silk GPU bundle")
	}
	img, err := b.MarshalBinary()
	if err != nil {
		return nil, err
	}
	out := make([]byte, align8(len(exe)), align8(len(exe))+len(img))
	copy(out, exe)
	return append(out, img...), nil
}

// Location is where a bundle sits in an executable.
type Location struct {
	// Start is the file offset of the bundle header (S).
	Start int64
	// Length is the trailing length L: bytes from Start to the trailer.
	Length int64
}

// End returns the file offset just past the trailer.
func (l Location) End() int64 { return l.Start + l.Length + TrailerSize }

// ParseBundle reads the bundle at the end of an executable image.
func ParseBundle(exe []byte) (*Bundle, Location, error) {
	return ReadBundle(bytes.NewReader(exe), int64(len(exe)))
}

// ReadBundle locates the bundle from the end of an executable of the given
// size, bounds-checks every field and returns the bundle and its location.
// Errors are *FormatError values naming the file offset and field; a file
// without the footer gives an error that matches ErrNoBundle.
func ReadBundle(r io.ReaderAt, size int64) (*Bundle, Location, error) {
	var loc Location
	if size < TrailerSize {
		return nil, loc, &FormatError{Offset: 0, Field: "footer", Msg: fmt.Sprintf("file is %d bytes, shorter than the %d-byte trailer", size, TrailerSize)}
	}
	var tr [TrailerSize]byte
	if _, err := r.ReadAt(tr[:], size-TrailerSize); err != nil {
		return nil, loc, fmt.Errorf("silkrt: bundle: reading trailer: %w", err)
	}
	if string(tr[8:]) != BundleFooter {
		return nil, loc, &FormatError{Offset: size - 8, Field: "footer", Msg: fmt.Sprintf("found %q, want %q", tr[8:], BundleFooter)}
	}
	le := binary.LittleEndian
	length := le.Uint64(tr[:8])
	lenOff := size - TrailerSize
	if length > uint64(lenOff) {
		return nil, loc, &FormatError{Offset: lenOff, Field: "length", Msg: fmt.Sprintf("bundle length %d exceeds the %d bytes before the trailer", length, lenOff)}
	}
	if length < HeaderSize {
		return nil, loc, &FormatError{Offset: lenOff, Field: "length", Msg: fmt.Sprintf("bundle length %d is shorter than the %d-byte header", length, HeaderSize)}
	}
	loc = Location{Start: lenOff - int64(length), Length: int64(length)}
	if loc.Start%BundleAlign != 0 {
		return nil, loc, &FormatError{Offset: lenOff, Field: "length", Msg: fmt.Sprintf("bundle starts at offset %d, not %d-byte aligned", loc.Start, BundleAlign)}
	}
	img := make([]byte, length)
	if _, err := r.ReadAt(img, loc.Start); err != nil {
		return nil, loc, fmt.Errorf("silkrt: bundle: reading %d bytes at %d: %w", length, loc.Start, err)
	}
	b, err := parseImage(img, loc.Start)
	return b, loc, err
}

type region struct {
	start, end uint64
	field      string
	off        int64 // file offset of the field that defines the region
}

// parseImage parses a bundle image img (without trailer) that starts at file
// offset base.
func parseImage(img []byte, base int64) (*Bundle, error) {
	le := binary.LittleEndian
	ferr := func(off int, field, format string, args ...any) error {
		return &FormatError{Offset: base + int64(off), Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if string(img[headerMagic:headerMagic+8]) != BundleMagic {
		return nil, ferr(headerMagic, "magic", "found %q, want %q", img[:8], BundleMagic)
	}
	if v := le.Uint32(img[headerVersion:]); v != BundleVersion {
		return nil, ferr(headerVersion, "version", "unsupported bundle version %d (this reader knows %d)", v, BundleVersion)
	}
	b := &Bundle{Provider: ProviderID(le.Uint32(img[headerProvider:])), Target: le.Uint32(img[headerTarget:])}
	if b.Provider != ProviderHIP && b.Provider != ProviderCUDA {
		return nil, ferr(headerProvider, "provider", "unknown provider %d (1 hip, 2 cuda)", uint32(b.Provider))
	}
	if b.Target == 0 {
		return nil, ferr(headerTarget, "target", "target tag is 0")
	}
	if r := le.Uint64(img[headerReserved:]); r != 0 {
		return nil, ferr(headerReserved, "reserved", "reserved header field is %#x, want 0", r)
	}
	count := uint64(le.Uint32(img[headerCount:]))
	if count == 0 {
		return nil, ferr(headerCount, "entry_count", "bundle has no entries")
	}
	length := uint64(len(img))
	tableEnd := HeaderSize + EntrySize*count
	if tableEnd > length {
		return nil, ferr(headerCount, "entry_count", "%d entries need a %d-byte table ending at %d, past the bundle length %d", count, EntrySize*count, tableEnd, length)
	}
	regions := []region{{0, tableEnd, "header and entry table", base}}
	names := map[string]int{}
	b.Entries = make([]Entry, count)
	for i := range int(count) {
		ro := HeaderSize + EntrySize*i
		rec := img[ro : ro+EntrySize]
		fld := func(s string) string { return fmt.Sprintf("entry[%d].%s", i, s) }
		nameOff := uint64(le.Uint32(rec[entryNameOffset:]))
		nameSize := uint64(le.Uint32(rec[entryNameSize:]))
		codeOff := le.Uint64(rec[entryCodeOffset:])
		codeSize := le.Uint64(rec[entryCodeSize:])
		if r := le.Uint32(rec[entryReserved:]); r != 0 {
			return nil, ferr(ro+entryReserved, fld("reserved"), "reserved field is %#x, want 0", r)
		}
		if nameSize == 0 || nameSize > MaxEntryNameLen {
			return nil, ferr(ro+entryNameSize, fld("name_size"), "name size %d, want 1..%d", nameSize, MaxEntryNameLen)
		}
		if nameOff < tableEnd || nameOff+nameSize > length {
			return nil, ferr(ro+entryNameOffset, fld("name_offset"), "name [%d,%d) outside the data area [%d,%d)", nameOff, nameOff+nameSize, tableEnd, length)
		}
		name := string(img[nameOff : nameOff+nameSize])
		if err := checkName(name); err != nil {
			return nil, ferr(int(nameOff), fld("name"), "%v", err)
		}
		if j, dup := names[name]; dup {
			return nil, ferr(int(nameOff), fld("name"), "duplicate name %q (also entry[%d])", name, j)
		}
		names[name] = i
		if codeSize == 0 {
			return nil, ferr(ro+entryCodeSize, fld("code_size"), "empty code object")
		}
		if (uint64(base)+codeOff)%BundleAlign != 0 {
			return nil, ferr(ro+entryCodeOffset, fld("code_offset"), "code object at file offset %d is not %d-byte aligned", uint64(base)+codeOff, BundleAlign)
		}
		if codeOff < tableEnd || codeOff > length || codeSize > length-codeOff {
			return nil, ferr(ro+entryCodeOffset, fld("code_offset"), "code object [%d,+%d) outside the data area [%d,%d)", codeOff, codeSize, tableEnd, length)
		}
		regions = append(regions,
			region{nameOff, nameOff + nameSize, fld("name"), base + int64(ro+entryNameOffset)},
			region{codeOff, codeOff + codeSize, fld("code_object"), base + int64(ro+entryCodeOffset)})
		b.Entries[i] = Entry{
			Name:        name,
			KernargSize: le.Uint32(rec[entryKernarg:]),
			CodeObject:  img[codeOff : codeOff+codeSize : codeOff+codeSize],
		}
	}
	sort.SliceStable(regions, func(i, j int) bool { return regions[i].start < regions[j].start })
	for i := 1; i < len(regions); i++ {
		p, q := regions[i-1], regions[i]
		if q.start < p.end {
			return nil, &FormatError{Offset: q.off, Field: q.field, Msg: fmt.Sprintf("[%d,%d) overlaps %s [%d,%d)", q.start, q.end, p.field, p.start, p.end)}
		}
	}
	return b, nil
}
