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
	for i := range Profiles {
		p := &Profiles[i]
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
