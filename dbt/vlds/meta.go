package vlds

import (
	"encoding/binary"
	"fmt"
)

// SectionName is the name of the non-ALLOC metadata section.
const SectionName = ".rocjitsu.lds"

// The .rocjitsu.lds section, version 1, little-endian:
//
//	header (24 bytes)
//	  0  u32 magic "RJVL"
//	  4  u16 version (1)
//	  6  u16 header size (24)
//	  8  u16 entry size (64)
//	  10 u16 reserved (0)
//	  12 u32 entry count
//	  16 u32 host LDS bytes per workgroup
//	  20 u32 reserved (0)
//	entries (64 bytes each)
//	  0  u64 normal descriptor ELF virtual address (64-aligned)
//	  8  u64 sidecar descriptor ELF virtual address (64-aligned)
//	  16 u32 static LDS: the guest descriptor's group_segment_fixed_size
//	  20 u32 the sidecar's private_segment_fixed_size
//	  24 u32 preserved guest kernarg bytes (wrapper prefix)
//	  28 u32 wrapper offset of the original kernarg pointer (8-aligned, >= prefix)
//	  32 u32 wrapper offset of VirtualLdsDispatchState (pointer offset + 8)
//	  36 u32 wrapper size (>= state offset + 24)
//	  40 u32 flags: bit i (i = 0, 1, 2) set when the sidecar reads the
//	         workgroup ID of dimension x, y, z; other bits zero
//	  44 20 bytes reserved (0)
const (
	Magic      = 0x4c564a52 // "RJVL"
	Version    = 1
	HeaderSize = 24
	EntrySize  = 64
)

// Entry flags.
const (
	// FlagWorkgroupIDX (and Y, Z) mark a dimension whose workgroup ID the
	// sidecar prologue reads; a dispatch with more than one workgroup in a
	// dimension without the flag cannot use the sidecar.
	FlagWorkgroupIDX = 1 << iota
	FlagWorkgroupIDY
	FlagWorkgroupIDZ
	flagsKnown = FlagWorkgroupIDX | FlagWorkgroupIDY | FlagWorkgroupIDZ
)

// Section is the decoded .rocjitsu.lds section.
type Section struct {
	// HostLDS is the host's LDS bytes per workgroup the sidecars were
	// made for.
	HostLDS uint32
	// Entries map normal descriptors to sidecars.
	Entries []Entry
}

// Entry is one normal-descriptor-to-sidecar mapping.
type Entry struct {
	// Normal and Sidecar are descriptor ELF virtual addresses.
	Normal, Sidecar uint64
	// StaticLDS is the guest's group_segment_fixed_size.
	StaticLDS uint32
	// Private is the sidecar's private_segment_fixed_size.
	Private uint32
	// Wrapper is the kernarg wrapper layout.
	Wrapper WrapperLayout
	// Flags are FlagWorkgroupID* bits.
	Flags uint32
}

// Lookup returns the entry whose normal descriptor is at vaddr.
func (s *Section) Lookup(vaddr uint64) (Entry, bool) {
	for _, e := range s.Entries {
		if e.Normal == vaddr {
			return e, true
		}
	}
	return Entry{}, false
}

// Marshal encodes the section.
func (s *Section) Marshal() []byte {
	le := binary.LittleEndian
	b := make([]byte, HeaderSize+EntrySize*len(s.Entries))
	le.PutUint32(b[0:], Magic)
	le.PutUint16(b[4:], Version)
	le.PutUint16(b[6:], HeaderSize)
	le.PutUint16(b[8:], EntrySize)
	le.PutUint32(b[12:], uint32(len(s.Entries)))
	le.PutUint32(b[16:], s.HostLDS)
	for i, e := range s.Entries {
		p := b[HeaderSize+EntrySize*i:]
		le.PutUint64(p[0:], e.Normal)
		le.PutUint64(p[8:], e.Sidecar)
		le.PutUint32(p[16:], e.StaticLDS)
		le.PutUint32(p[20:], e.Private)
		le.PutUint32(p[24:], e.Wrapper.Prefix)
		le.PutUint32(p[28:], e.Wrapper.OrigPtr)
		le.PutUint32(p[32:], e.Wrapper.State)
		le.PutUint32(p[36:], e.Wrapper.Size)
		le.PutUint32(p[40:], e.Flags)
	}
	return b
}

// FieldError is a malformed field of a .rocjitsu.lds section.
type FieldError struct {
	// Offset is the field's byte offset in the section.
	Offset int
	// Field names the field.
	Field string
	// Reason says what is wrong.
	Reason string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("vlds: %s offset %d: field %s: %s", SectionName, e.Offset, e.Field, e.Reason)
}

// Parse decodes a .rocjitsu.lds section.
func Parse(b []byte) (*Section, error) {
	le := binary.LittleEndian
	bad := func(off int, field, format string, args ...any) (*Section, error) {
		return nil, &FieldError{Offset: off, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	if len(b) < HeaderSize {
		return bad(0, "header", "section is %d bytes, header needs %d", len(b), HeaderSize)
	}
	if m := le.Uint32(b); m != Magic {
		return bad(0, "magic", "%#08x, want %#08x", m, Magic)
	}
	if v := le.Uint16(b[4:]); v != Version {
		return bad(4, "version", "%d, this parser reads version %d", v, Version)
	}
	if h := le.Uint16(b[6:]); h != HeaderSize {
		return bad(6, "header_size", "%d, want %d", h, HeaderSize)
	}
	if e := le.Uint16(b[8:]); e != EntrySize {
		return bad(8, "entry_size", "%d, want %d", e, EntrySize)
	}
	if r := le.Uint16(b[10:]); r != 0 {
		return bad(10, "reserved", "%#x, want 0", r)
	}
	n := le.Uint32(b[12:])
	if uint64(n)*EntrySize != uint64(len(b)-HeaderSize) {
		return bad(12, "count", "%d entries need %d bytes after the header, section has %d", n, uint64(n)*EntrySize, len(b)-HeaderSize)
	}
	s := &Section{HostLDS: le.Uint32(b[16:])}
	if s.HostLDS == 0 {
		return bad(16, "host_lds", "zero")
	}
	if r := le.Uint32(b[20:]); r != 0 {
		return bad(20, "reserved", "%#x, want 0", r)
	}
	seen := map[uint64]bool{}
	for i := 0; i < int(n); i++ {
		o := HeaderSize + EntrySize*i
		p := b[o:]
		e := Entry{
			Normal: le.Uint64(p[0:]), Sidecar: le.Uint64(p[8:]),
			StaticLDS: le.Uint32(p[16:]), Private: le.Uint32(p[20:]),
			Wrapper: WrapperLayout{Prefix: le.Uint32(p[24:]), OrigPtr: le.Uint32(p[28:]), State: le.Uint32(p[32:]), Size: le.Uint32(p[36:])},
			Flags:   le.Uint32(p[40:]),
		}
		switch {
		case e.Normal == 0 || e.Normal%64 != 0:
			return bad(o, "normal_kd", "%#x is not a 64-aligned descriptor address", e.Normal)
		case seen[e.Normal]:
			return bad(o, "normal_kd", "%#x has two entries", e.Normal)
		case e.Sidecar == 0 || e.Sidecar%64 != 0 || e.Sidecar == e.Normal:
			return bad(o+8, "sidecar_kd", "%#x is not a 64-aligned descriptor address distinct from the normal one", e.Sidecar)
		case e.Wrapper.OrigPtr%8 != 0 || e.Wrapper.OrigPtr < e.Wrapper.Prefix || e.Wrapper.OrigPtr-e.Wrapper.Prefix >= 8:
			return bad(o+28, "orig_kernarg_offset", "%d is not the 8-aligned end of the %d-byte prefix", e.Wrapper.OrigPtr, e.Wrapper.Prefix)
		case e.Wrapper.State != e.Wrapper.OrigPtr+8:
			return bad(o+32, "state_offset", "%d, want %d", e.Wrapper.State, e.Wrapper.OrigPtr+8)
		case uint64(e.Wrapper.Size) < uint64(e.Wrapper.State)+StateSize:
			return bad(o+36, "wrapper_size", "%d cannot hold the state at %d", e.Wrapper.Size, e.Wrapper.State)
		case e.Flags&^flagsKnown != 0:
			return bad(o+40, "flags", "unknown bits %#x", e.Flags&^flagsKnown)
		}
		for j := 44; j < EntrySize; j++ {
			if p[j] != 0 {
				return bad(o+j, "reserved", "byte %#x, want 0", p[j])
			}
		}
		seen[e.Normal] = true
		s.Entries = append(s.Entries, e)
	}
	return s, nil
}
