// Package kernelcorpus holds the build helpers of rocjitsu's own test-kernel
// corpus (testdata/kernels): retargeting a gfx942 code object to gfx950 so
// the translator has small guest objects whose meaning is known.
package kernelcorpus

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"

	"github.com/rocjitsu/rocjitsu/internal/elfcheck"
)

// Machine numbers of the AMDGPU e_flags EF_AMDGPU_MACH field (e_flags & 0xff).
const (
	MachGFX942 = 0x4c // EF_AMDGPU_MACH_AMDGCN_GFX942
	MachGFX950 = 0x4f // EF_AMDGPU_MACH_AMDGCN_GFX950
)

// efAMDGPUMach masks the machine bits of e_flags.
const efAMDGPUMach = 0xff

// ntAMDGPUMetadata is the note type of the MessagePack metadata note
// (NT_AMDGPU_METADATA), owned by "AMDGPU".
const ntAMDGPUMetadata = 32

// eFlagsOffset is the byte offset of e_flags in an ELF64 header.
const eFlagsOffset = 48

// RetargetGFX942ToGFX950 returns a copy of a gfx942 AMDHSA code object
// whose e_flags machine field says gfx950 (0x4f) and whose metadata note's
// amdhsa.target names gfx950 instead of gfx942. Everything else is
// unchanged byte for byte: the target string keeps its length
// ("gfx942" and "gfx950" are both six bytes), so it is patched in place
// inside the MessagePack note and no offsets move. The XNACK and SRAMECC
// bits of e_flags and the target-id feature suffixes are kept.
func RetargetGFX942ToGFX950(obj []byte) ([]byte, error) {
	if err := elfcheck.Bounds(obj); err != nil {
		return nil, fmt.Errorf("kernelcorpus: parse ELF: %w", err)
	}
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		return nil, fmt.Errorf("kernelcorpus: parse ELF: %w", err)
	}
	if f.Class != elf.ELFCLASS64 || f.Data != elf.ELFDATA2LSB {
		return nil, fmt.Errorf("kernelcorpus: ELF header offset 4: class %v data %v, want ELFCLASS64 little-endian", f.Class, f.Data)
	}
	if f.Machine != elf.EM_AMDGPU {
		return nil, fmt.Errorf("kernelcorpus: ELF header offset 18 (e_machine): %v, want EM_AMDGPU", f.Machine)
	}
	if len(obj) < eFlagsOffset+4 {
		return nil, fmt.Errorf("kernelcorpus: ELF header offset %d (e_flags): file has %d bytes", eFlagsOffset, len(obj))
	}
	flags := binary.LittleEndian.Uint32(obj[eFlagsOffset:])
	if flags&efAMDGPUMach != MachGFX942 {
		return nil, fmt.Errorf("kernelcorpus: ELF header offset %d (e_flags): machine 0x%x, want gfx942 (0x%x)", eFlagsOffset, flags&efAMDGPUMach, MachGFX942)
	}
	out := bytes.Clone(obj)
	binary.LittleEndian.PutUint32(out[eFlagsOffset:], flags&^efAMDGPUMach|MachGFX950)

	patched := 0
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOTE {
			continue
		}
		n, err := patchNotes(out, s)
		if err != nil {
			return nil, err
		}
		patched += n
	}
	if patched != 1 {
		return nil, fmt.Errorf("kernelcorpus: found %d NT_AMDGPU_METADATA notes, want 1", patched)
	}
	return out, nil
}

// patchNotes walks the notes of section s inside out and retargets each
// AMDGPU metadata note in place. It returns the number of notes patched.
func patchNotes(out []byte, s *elf.Section) (int, error) {
	if s.Offset > uint64(len(out)) || s.Size > uint64(len(out))-s.Offset {
		return 0, fmt.Errorf("kernelcorpus: section %s at offset 0x%x size 0x%x runs past the end of the file (%d bytes)", s.Name, s.Offset, s.Size, len(out))
	}
	sec := out[s.Offset : s.Offset+s.Size]
	patched := 0
	for off := uint64(0); off < uint64(len(sec)); {
		if uint64(len(sec))-off < 12 {
			return 0, fmt.Errorf("kernelcorpus: note header at file offset 0x%x: %d bytes left, want 12", s.Offset+off, uint64(len(sec))-off)
		}
		namesz := uint64(binary.LittleEndian.Uint32(sec[off:]))
		descsz := uint64(binary.LittleEndian.Uint32(sec[off+4:]))
		typ := binary.LittleEndian.Uint32(sec[off+8:])
		nameOff := off + 12
		descOff := nameOff + align4(namesz)
		end := descOff + align4(descsz)
		if namesz > uint64(len(sec)) || descsz > uint64(len(sec)) || descOff+descsz > uint64(len(sec)) {
			return 0, fmt.Errorf("kernelcorpus: note at file offset 0x%x: namesz %d descsz %d overrun section %s (%d bytes)", s.Offset+off, namesz, descsz, s.Name, len(sec))
		}
		name := string(bytes.TrimRight(sec[nameOff:nameOff+namesz], "\x00"))
		if name == "AMDGPU" && typ == ntAMDGPUMetadata {
			if err := patchMetadata(sec[descOff:descOff+descsz], s.Offset+descOff); err != nil {
				return 0, err
			}
			patched++
		}
		if end <= off {
			break
		}
		off = end
	}
	return patched, nil
}

func align4(n uint64) uint64 { return (n + 3) &^ 3 }

// patchMetadata rewrites amdhsa.target from ...gfx942... to ...gfx950...
// inside the MessagePack map desc (at file offset fileOff) without changing
// its length.
func patchMetadata(desc []byte, fileOff uint64) error {
	off, n, err := findTarget(desc)
	if err != nil {
		return fmt.Errorf("kernelcorpus: metadata note at file offset 0x%x: %w", fileOff, err)
	}
	target := string(desc[off : off+n])
	const prefix = "amdgcn-amd-amdhsa--gfx942"
	if len(target) < len(prefix) || target[:len(prefix)] != prefix || (len(target) > len(prefix) && target[len(prefix)] != ':') {
		return fmt.Errorf("kernelcorpus: metadata note at file offset 0x%x: amdhsa.target %q (at note offset %d) is not gfx942", fileOff, target, off)
	}
	copy(desc[off+len(prefix)-3:], "950")
	return nil
}

// findTarget walks the MessagePack map desc and returns the offset and
// length of the amdhsa.target string value. Every length is checked
// against the bytes left, so hostile input cannot make it allocate or loop.
func findTarget(desc []byte) (int, int, error) {
	d := &mpReader{b: desc}
	n, err := d.mapHeader()
	if err != nil {
		return 0, 0, err
	}
	found, off, size := false, 0, 0
	for i := 0; i < n; i++ {
		koff, klen, kerr := d.str()
		if kerr != nil {
			return 0, 0, fmt.Errorf("key %d: %w", i, kerr)
		}
		if string(desc[koff:koff+klen]) == "amdhsa.target" {
			if found {
				return 0, 0, fmt.Errorf("amdhsa.target at offset %d appears twice", koff)
			}
			voff, vlen, verr := d.str()
			if verr != nil {
				return 0, 0, fmt.Errorf("amdhsa.target value: %w", verr)
			}
			found, off, size = true, voff, vlen
			continue
		}
		if err := d.skip(0); err != nil {
			return 0, 0, fmt.Errorf("value of %q: %w", desc[koff:koff+klen], err)
		}
	}
	if !found {
		return 0, 0, fmt.Errorf("no amdhsa.target in the metadata map")
	}
	return off, size, nil
}

// mpReader is a bounds-checked MessagePack walker over b.
type mpReader struct {
	b   []byte
	off int
}

func (d *mpReader) need(n int) error {
	if n < 0 || n > len(d.b)-d.off {
		return fmt.Errorf("offset %d: need %d bytes, %d left", d.off, n, len(d.b)-d.off)
	}
	return nil
}

func (d *mpReader) uint(n int) (int, error) {
	if err := d.need(n); err != nil {
		return 0, err
	}
	v := 0
	for i := 0; i < n; i++ {
		v = v<<8 | int(d.b[d.off+i])
	}
	d.off += n
	return v, nil
}

func (d *mpReader) byte() (byte, error) {
	if err := d.need(1); err != nil {
		return 0, err
	}
	c := d.b[d.off]
	d.off++
	return c, nil
}

func (d *mpReader) mapHeader() (int, error) {
	at := d.off
	c, err := d.byte()
	if err != nil {
		return 0, err
	}
	var n int
	switch {
	case c&0xf0 == 0x80:
		n = int(c & 0x0f)
	case c == 0xde:
		n, err = d.uint(2)
	case c == 0xdf:
		n, err = d.uint(4)
	default:
		return 0, fmt.Errorf("offset %d: type byte 0x%02x is not a map", at, c)
	}
	if err != nil {
		return 0, err
	}
	if n > (len(d.b)-d.off)/2 {
		return 0, fmt.Errorf("offset %d: map of %d pairs does not fit in %d bytes", at, n, len(d.b)-d.off)
	}
	return n, nil
}

// str reads a string and returns its payload offset and length.
func (d *mpReader) str() (int, int, error) {
	at := d.off
	c, err := d.byte()
	if err != nil {
		return 0, 0, err
	}
	var n int
	switch {
	case c&0xe0 == 0xa0:
		n = int(c & 0x1f)
	case c == 0xd9:
		n, err = d.uint(1)
	case c == 0xda:
		n, err = d.uint(2)
	case c == 0xdb:
		n, err = d.uint(4)
	default:
		return 0, 0, fmt.Errorf("offset %d: type byte 0x%02x is not a string", at, c)
	}
	if err != nil {
		return 0, 0, err
	}
	if err := d.need(n); err != nil {
		return 0, 0, err
	}
	off := d.off
	d.off += n
	return off, n, nil
}

// skip steps over one value of any type.
func (d *mpReader) skip(depth int) error {
	if depth > 64 {
		return fmt.Errorf("offset %d: nesting deeper than 64", d.off)
	}
	at := d.off
	c, err := d.byte()
	if err != nil {
		return err
	}
	payload, items := 0, 0 // bytes to skip, then values to skip
	switch {
	case c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3:
	case c&0xf0 == 0x80:
		items = 2 * int(c&0x0f)
	case c&0xf0 == 0x90:
		items = int(c & 0x0f)
	case c&0xe0 == 0xa0:
		payload = int(c & 0x1f)
	case c == 0xcc || c == 0xd0:
		payload = 1
	case c == 0xcd || c == 0xd1:
		payload = 2
	case c == 0xce || c == 0xd2 || c == 0xca:
		payload = 4
	case c == 0xcf || c == 0xd3 || c == 0xcb:
		payload = 8
	case c == 0xd9 || c == 0xc4:
		payload, err = d.uint(1)
	case c == 0xda || c == 0xc5:
		payload, err = d.uint(2)
	case c == 0xdb || c == 0xc6:
		payload, err = d.uint(4)
	case c == 0xdc:
		items, err = d.uint(2)
	case c == 0xdd:
		items, err = d.uint(4)
	case c == 0xde:
		items, err = d.uint(2)
		items *= 2
	case c == 0xdf:
		items, err = d.uint(4)
		items *= 2
	case c == 0xd4, c == 0xd5, c == 0xd6, c == 0xd7, c == 0xd8:
		payload = 1 + 1<<(c-0xd4)
	case c == 0xc7:
		payload, err = d.uint(1)
		payload++
	case c == 0xc8:
		payload, err = d.uint(2)
		payload++
	case c == 0xc9:
		payload, err = d.uint(4)
		payload++
	default:
		return fmt.Errorf("offset %d: unknown type byte 0x%02x", at, c)
	}
	if err != nil {
		return err
	}
	if err := d.need(payload); err != nil {
		return err
	}
	d.off += payload
	if items > len(d.b)-d.off {
		return fmt.Errorf("offset %d: %d elements do not fit in %d bytes", at, items, len(d.b)-d.off)
	}
	for i := 0; i < items; i++ {
		if err := d.skip(depth + 1); err != nil {
			return err
		}
	}
	return nil
}
