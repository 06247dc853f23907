// Package kernelcorpus holds the build helpers of rocjitsu's own test-kernel
// corpus (testdata/kernels): retargeting a gfx942 code object to gfx950 so
// the translator has small guest objects whose meaning is known.
package kernelcorpus

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"

	"github.com/vmihailenco/msgpack/v5"
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
	var before map[string]any
	if err := msgpack.Unmarshal(desc, &before); err != nil {
		return fmt.Errorf("kernelcorpus: metadata note at file offset 0x%x: %w", fileOff, err)
	}
	target, ok := before["amdhsa.target"].(string)
	if !ok {
		return fmt.Errorf("kernelcorpus: metadata note at file offset 0x%x: amdhsa.target missing or not a string", fileOff)
	}
	const prefix = "amdgcn-amd-amdhsa--gfx942"
	if len(target) < len(prefix) || target[:len(prefix)] != prefix || (len(target) > len(prefix) && target[len(prefix)] != ':') {
		return fmt.Errorf("kernelcorpus: metadata note at file offset 0x%x: amdhsa.target %q is not gfx942", fileOff, target)
	}
	newTarget := "amdgcn-amd-amdhsa--gfx950" + target[len(prefix):]
	oldEnc, err := msgpack.Marshal(target)
	if err != nil {
		return fmt.Errorf("kernelcorpus: encode target: %w", err)
	}
	newEnc, err := msgpack.Marshal(newTarget)
	if err != nil {
		return fmt.Errorf("kernelcorpus: encode target: %w", err)
	}
	key, err := msgpack.Marshal("amdhsa.target")
	if err != nil {
		return fmt.Errorf("kernelcorpus: encode key: %w", err)
	}
	pair := append(bytes.Clone(key), oldEnc...)
	if c := bytes.Count(desc, pair); c != 1 {
		return fmt.Errorf("kernelcorpus: metadata note at file offset 0x%x: amdhsa.target key/value encoded %d times, want 1", fileOff, c)
	}
	i := bytes.Index(desc, pair) + len(key)
	copy(desc[i:], newEnc)

	// Check: the map decodes to the same content with only the target changed.
	var after map[string]any
	if err := msgpack.Unmarshal(desc, &after); err != nil {
		return fmt.Errorf("kernelcorpus: metadata note at file offset 0x%x after patch: %w", fileOff, err)
	}
	if after["amdhsa.target"] != newTarget {
		return fmt.Errorf("kernelcorpus: metadata note at file offset 0x%x: patch did not land on amdhsa.target", fileOff)
	}
	return nil
}
