package verify

import (
	"encoding/binary"
	"fmt"
	"math"
	"regexp"

	"github.com/rocjitsu/rocjitsu/hsa/sim"
)

// Profile is an argument profile of a kernel family: consistent small
// problem-size values for the by-value fields of its kernarg segment, so
// that the kernel's tiling accepts the problem and its main loop runs,
// instead of the 1-to-4 integers Synthesize guesses. Pointer arguments keep
// the paged regions Synthesize gives them. A profile applies only to a
// kernel whose name matches Kernel, whose kernarg segment is KernargSize
// bytes and whose metadata has every named field at its offset and size
// (see Apply); otherwise the kernel keeps the plain synthesis.
type Profile struct {
	// Name identifies the profile in results (Result.Profile).
	Name string
	// Kernel matches the kernel symbol names of the family.
	Kernel *regexp.Regexp
	// KernargSize is the family's explicit kernarg segment size.
	KernargSize int
	// Fields are the values the profile sets.
	Fields []Field
	// Data are words written into pointer arguments' regions before the
	// dispatch, on both sides alike: the index tables (context lengths,
	// block tables, sorted token IDs) a kernel reads from memory and
	// would otherwise take from the pager's fill.
	Data []Data
}

// Data is content a profile gives a pointer argument's region.
type Data struct {
	// Arg names the global_buffer argument.
	Arg string
	// Offset is the byte offset from the pointer.
	Offset uint64
	// Words are stored little-endian from Offset on.
	Words []uint32
}

// seq returns the words from, from+1, ..., from+n-1.
func seq(from, n uint32) []uint32 {
	w := make([]uint32, n)
	for i := range w {
		w[i] = from + uint32(i)
	}
	return w
}

// Field is one kernarg slot a profile sets.
type Field struct {
	// Name is the metadata argument at Offset; empty for a slot inside a
	// struct argument (which must then be by-value and cover the slot).
	Name string
	// Offset and Size (4 or 8) place the slot in the kernarg segment.
	Offset, Size int
	// Value is the slot's little-endian value.
	Value uint64
}

// u32 is a 4-byte integer field named name at off.
func u32(name string, off int, v uint32) Field {
	return Field{Name: name, Offset: off, Size: 4, Value: uint64(v)}
}

// f32 is a 4-byte float field named name at off.
func f32(name string, off int, v float32) Field {
	return Field{Name: name, Offset: off, Size: 4, Value: uint64(math.Float32bits(v))}
}

// Apply checks that p fits the kernel with arguments args and a kernarg
// segment of size bytes and, when it does, writes its fields into kernarg.
// A mismatch (segment size, an argument missing, moved, resized or not
// by-value, a slot outside the segment) is an error naming the field and
// offset, and kernarg is left as it was.
func (p *Profile) Apply(args []sim.Arg, size int, kernarg []byte) error {
	if size != p.KernargSize || len(kernarg) != size {
		return fmt.Errorf("verify: profile %s: kernarg segment of %d bytes, want %d", p.Name, size, p.KernargSize)
	}
	for _, f := range p.Fields {
		if f.Size != 4 && f.Size != 8 || f.Offset < 0 || f.Offset+f.Size > size {
			return fmt.Errorf("verify: profile %s: field %q at offset %d of %d bytes outside the %d-byte segment", p.Name, f.Name, f.Offset, f.Size, size)
		}
		var cover *sim.Arg
		for i := range args {
			a := &args[i]
			if !a.Hidden() && a.Offset <= f.Offset && f.Offset+f.Size <= a.Offset+a.Size {
				cover = a
				break
			}
		}
		switch {
		case cover == nil:
			return fmt.Errorf("verify: profile %s: no argument covers field %q at offset %d", p.Name, f.Name, f.Offset)
		case cover.ValueKind != "by_value":
			return fmt.Errorf("verify: profile %s: field %q at offset %d falls in %s argument %q", p.Name, f.Name, f.Offset, cover.ValueKind, cover.Name)
		case f.Name != "" && (cover.Name != f.Name || cover.Offset != f.Offset || cover.Size != f.Size):
			return fmt.Errorf("verify: profile %s: field %q at offset %d: the metadata has %q at offset %d of %d bytes", p.Name, f.Name, f.Offset, cover.Name, cover.Offset, cover.Size)
		case f.Name == "" && cover.Size <= 8:
			return fmt.Errorf("verify: profile %s: unnamed field at offset %d is not inside a struct argument (%q)", p.Name, f.Offset, cover.Name)
		}
	}
	for _, d := range p.Data {
		if _, err := p.pointer(args, d.Arg, kernarg); err != nil {
			return err
		}
	}
	le := binary.LittleEndian
	for _, f := range p.Fields {
		if f.Size == 4 {
			le.PutUint32(kernarg[f.Offset:], uint32(f.Value))
		} else {
			le.PutUint64(kernarg[f.Offset:], f.Value)
		}
	}
	return nil
}

// profileFor returns the profile of kernel (nil when none matches its
// name) and applies it to kernarg; a profile that matches the name but not
// the layout is not applied and its error returned.
func profileFor(kernel string, args []sim.Arg, size int, kernarg []byte) (*Profile, error) {
	profiles := Profiles()
	for i := range profiles {
		p := &profiles[i]
		if !p.Kernel.MatchString(kernel) {
			continue
		}
		if err := p.Apply(args, size, kernarg); err != nil {
			return nil, err
		}
		return p, nil
	}
	return nil, nil
}

// pointer returns the address the kernarg gives the global_buffer
// argument named name.
func (p *Profile) pointer(args []sim.Arg, name string, kernarg []byte) (uint64, error) {
	for _, a := range args {
		if a.Name == name && a.ValueKind == "global_buffer" && a.Size == 8 && a.Offset >= 0 && a.Offset+8 <= len(kernarg) {
			return binary.LittleEndian.Uint64(kernarg[a.Offset:]), nil
		}
	}
	return 0, fmt.Errorf("verify: profile %s: no 8-byte pointer argument %q for its data", p.Name, name)
}

// store writes p's data into memory through write (one call per Data),
// at the pointers kernarg gives.
func (p *Profile) store(args []sim.Arg, kernarg []byte, write func(addr uint64, b []byte) error) error {
	for _, d := range p.Data {
		base, err := p.pointer(args, d.Arg, kernarg)
		if err != nil {
			return err
		}
		b := make([]byte, 4*len(d.Words))
		for i, w := range d.Words {
			binary.LittleEndian.PutUint32(b[4*i:], w)
		}
		if err := write(base+d.Offset, b); err != nil {
			return fmt.Errorf("verify: profile %s: data of %q at offset %d: %w", p.Name, d.Arg, d.Offset, err)
		}
	}
	return nil
}
