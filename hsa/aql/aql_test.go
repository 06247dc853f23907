package aql

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
)

// TestKernelDispatchFieldOffsets sets one field at a time to a value whose
// bytes are all nonzero and checks that exactly the field's bytes change, at
// the field's HSA offset.
func TestKernelDispatchFieldOffsets(t *testing.T) {
	tests := []struct {
		name   string
		offset int
		size   int
		set    func(p *KernelDispatchPacket)
		value  uint64
	}{
		{"header", OffsetHeader, 2, func(p *KernelDispatchPacket) { p.Header = 0xa1b2 }, 0xa1b2},
		{"setup", OffsetSetup, 2, func(p *KernelDispatchPacket) { p.Setup = 0xc3d4 }, 0xc3d4},
		{"workgroup_size_x", OffsetWorkgroupSizeX, 2, func(p *KernelDispatchPacket) { p.WorkgroupSizeX = 0x1112 }, 0x1112},
		{"workgroup_size_y", OffsetWorkgroupSizeY, 2, func(p *KernelDispatchPacket) { p.WorkgroupSizeY = 0x2122 }, 0x2122},
		{"workgroup_size_z", OffsetWorkgroupSizeZ, 2, func(p *KernelDispatchPacket) { p.WorkgroupSizeZ = 0x3132 }, 0x3132},
		{"reserved0", OffsetReserved0, 2, func(p *KernelDispatchPacket) { p.Reserved0 = 0x4142 }, 0x4142},
		{"grid_size_x", OffsetGridSizeX, 4, func(p *KernelDispatchPacket) { p.GridSizeX = 0x51525354 }, 0x51525354},
		{"grid_size_y", OffsetGridSizeY, 4, func(p *KernelDispatchPacket) { p.GridSizeY = 0x61626364 }, 0x61626364},
		{"grid_size_z", OffsetGridSizeZ, 4, func(p *KernelDispatchPacket) { p.GridSizeZ = 0x71727374 }, 0x71727374},
		{"private_segment_size", OffsetPrivateSegmentSize, 4, func(p *KernelDispatchPacket) { p.PrivateSegmentSize = 0x81828384 }, 0x81828384},
		{"group_segment_size", OffsetGroupSegmentSize, 4, func(p *KernelDispatchPacket) { p.GroupSegmentSize = 0x91929394 }, 0x91929394},
		{"kernel_object", OffsetKernelObject, 8, func(p *KernelDispatchPacket) { p.KernelObject = 0xa1a2a3a4a5a6a7a8 }, 0xa1a2a3a4a5a6a7a8},
		{"kernarg_address", OffsetKernargAddress, 8, func(p *KernelDispatchPacket) { p.KernargAddress = 0xb1b2b3b4b5b6b7b8 }, 0xb1b2b3b4b5b6b7b8},
		{"reserved2", OffsetReserved2, 8, func(p *KernelDispatchPacket) { p.Reserved2 = 0xc1c2c3c4c5c6c7c8 }, 0xc1c2c3c4c5c6c7c8},
		{"completion_signal", OffsetCompletionSignal, 8, func(p *KernelDispatchPacket) { p.CompletionSignal = 0xd1d2d3d4d5d6d7d8 }, 0xd1d2d3d4d5d6d7d8},
	}
	covered := 0
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p KernelDispatchPacket
			tc.set(&p)
			b := p.Bytes()
			want := make([]byte, PacketSize)
			var v [8]byte
			binary.LittleEndian.PutUint64(v[:], tc.value)
			copy(want[tc.offset:tc.offset+tc.size], v[:tc.size])
			if !bytes.Equal(b[:], want) {
				t.Fatalf("encoding with only %s set:\n got %x\nwant %x", tc.name, b, want)
			}
			// Decoding needs the header type; patch it in and compare back.
			if tc.name != "header" {
				p.Header = MakeHeader(PacketTypeKernelDispatch, false, 0, 0)
				p.Encode(b[:])
				got, err := DecodeKernelDispatchPacket(b[:])
				if err != nil {
					t.Fatal(err)
				}
				if got != p {
					t.Fatalf("decode: got %+v want %+v", got, p)
				}
			}
		})
		covered += tc.size
	}
	if covered != PacketSize {
		t.Fatalf("fields cover %d bytes, want %d", covered, PacketSize)
	}
}

func TestBarrierFieldOffsets(t *testing.T) {
	p := BarrierPacket{
		Header:           MakeHeader(PacketTypeBarrierOr, true, FenceScopeAgent, FenceScopeSystem),
		Reserved0:        0x0201,
		Reserved1:        0x06050403,
		DepSignal:        [5]uint64{0x0f0e0d0c0b0a0908, 0x1716151413121110, 0x1f1e1d1c1b1a1918, 0x2726252423222120, 0x2f2e2d2c2b2a2928},
		Reserved2:        0x3736353433323130,
		CompletionSignal: 0x3f3e3d3c3b3a3938,
	}
	b := p.Bytes()
	want := []struct {
		off  int
		size int
		v    uint64
	}{
		{OffsetHeader, 2, uint64(p.Header)},
		{OffsetBarrierReserved0, 2, 0x0201},
		{OffsetBarrierReserved1, 4, 0x06050403},
		{OffsetBarrierDepSignal, 8, p.DepSignal[0]},
		{OffsetBarrierDepSignal + 8, 8, p.DepSignal[1]},
		{OffsetBarrierDepSignal + 16, 8, p.DepSignal[2]},
		{OffsetBarrierDepSignal + 24, 8, p.DepSignal[3]},
		{OffsetBarrierDepSignal + 32, 8, p.DepSignal[4]},
		{OffsetBarrierReserved2, 8, p.Reserved2},
		{OffsetBarrierCompletionSignal, 8, p.CompletionSignal},
	}
	for _, w := range want {
		var got uint64
		for i := w.size - 1; i >= 0; i-- {
			got = got<<8 | uint64(b[w.off+i])
		}
		if got != w.v {
			t.Errorf("offset %d: got %#x want %#x", w.off, got, w.v)
		}
	}
	d, err := DecodeBarrierPacket(b[:])
	if err != nil {
		t.Fatal(err)
	}
	if d != p {
		t.Fatalf("round trip: got %+v want %+v", d, p)
	}
	p.Header = MakeHeader(PacketTypeBarrierAnd, false, 0, 0)
	b = p.Bytes()
	if d, err = DecodeBarrierPacket(b[:]); err != nil || d != p {
		t.Fatalf("barrier-AND round trip: %+v %v", d, err)
	}
}

func TestAgentDispatchRoundTrip(t *testing.T) {
	p := AgentDispatchPacket{
		Header:           MakeHeader(PacketTypeAgentDispatch, false, FenceScopeSystem, FenceScopeNone),
		Type:             0x8001,
		Reserved0:        7,
		ReturnAddress:    0x7fff00001000,
		Arg:              [4]uint64{1, 2, 3, 0xffffffffffffffff},
		Reserved2:        9,
		CompletionSignal: 0x1234,
	}
	var b [PacketSize]byte
	p.Encode(b[:])
	if got := binary.LittleEndian.Uint64(b[OffsetAgentArg+24:]); got != 0xffffffffffffffff {
		t.Fatalf("arg[3] at %d: %#x", OffsetAgentArg+24, got)
	}
	d, err := DecodeAgentDispatchPacket(b[:])
	if err != nil || d != p {
		t.Fatalf("round trip: %+v %v", d, err)
	}
}

func TestHeaderBits(t *testing.T) {
	tests := []struct {
		typ      PacketType
		barrier  bool
		acq, rel FenceScope
		want     uint16
	}{
		{PacketTypeKernelDispatch, false, FenceScopeNone, FenceScopeNone, 0x0002},
		{PacketTypeKernelDispatch, true, FenceScopeNone, FenceScopeNone, 0x0102},
		{PacketTypeKernelDispatch, false, FenceScopeAgent, FenceScopeNone, 0x0202},
		{PacketTypeKernelDispatch, false, FenceScopeSystem, FenceScopeNone, 0x0402},
		{PacketTypeKernelDispatch, false, FenceScopeNone, FenceScopeAgent, 0x0802},
		{PacketTypeKernelDispatch, false, FenceScopeNone, FenceScopeSystem, 0x1002},
		// The usual ROCm dispatch header: system acquire and release.
		{PacketTypeKernelDispatch, false, FenceScopeSystem, FenceScopeSystem, 0x1402},
		{PacketTypeBarrierAnd, true, FenceScopeSystem, FenceScopeSystem, 0x1503},
		{PacketTypeBarrierOr, false, FenceScopeAgent, FenceScopeAgent, 0x0a05},
		{PacketTypeInvalid, false, 0, 0, 0x0001},
	}
	for _, tc := range tests {
		h := MakeHeader(tc.typ, tc.barrier, tc.acq, tc.rel)
		if uint16(h) != tc.want {
			t.Errorf("MakeHeader(%v,%v,%v,%v) = %#04x, want %#04x", tc.typ, tc.barrier, tc.acq, tc.rel, uint16(h), tc.want)
		}
		if h.Type() != tc.typ || h.Barrier() != tc.barrier || h.AcquireFenceScope() != tc.acq || h.ReleaseFenceScope() != tc.rel || h.Reserved() != 0 {
			t.Errorf("%#04x decodes to %v", tc.want, h)
		}
	}
	if s := Header(0x1502).String(); s != "KERNEL_DISPATCH barrier acquire=SYSTEM release=SYSTEM" {
		t.Errorf("String = %q", s)
	}
	if !FenceScopeSystem.Valid() || FenceScope(3).Valid() {
		t.Error("FenceScope.Valid")
	}
	if w := HeaderSetupWord(0x1402, 3); w != 0x00031402 {
		t.Errorf("HeaderSetupWord = %#x", w)
	}
	p := KernelDispatchPacket{Setup: 3 | 0xfffc}
	if p.Dimensions() != 3 {
		t.Errorf("Dimensions = %d", p.Dimensions())
	}
}

func TestDecodeErrors(t *testing.T) {
	var de *DecodeError
	_, err := DecodeKernelDispatchPacket(make([]byte, 63))
	if !errors.As(err, &de) || de.Offset != 63 || de.Field != "packet" {
		t.Fatalf("short: %v", err)
	}
	b := make([]byte, PacketSize)
	b[0] = byte(PacketTypeBarrierAnd)
	_, err = DecodeKernelDispatchPacket(b)
	if !errors.As(err, &de) || de.Offset != 0 || de.Field != "header.type" || !strings.Contains(err.Error(), "BARRIER_AND") {
		t.Fatalf("wrong type: %v", err)
	}
	b[0] = byte(PacketTypeKernelDispatch)
	if _, err = DecodeBarrierPacket(b); err == nil {
		t.Fatal("barrier decode accepted a kernel dispatch")
	}
	if _, err = DecodeAgentDispatchPacket(b); err == nil {
		t.Fatal("agent decode accepted a kernel dispatch")
	}
	if _, err = ReadHeader(b[:1]); err == nil {
		t.Fatal("ReadHeader accepted 1 byte")
	}
}

// TestAgainstHSAHeader compiles a C program against the system's
// /usr/include/hsa/hsa.h (Debian libhsa-runtime-dev) and compares every
// offsetof and enum value with the Go constants.
func TestAgainstHSAHeader(t *testing.T) {
	const hdr = "/usr/include/hsa/hsa.h"
	if _, err := os.Stat(hdr); err != nil {
		t.Fatalf("%s missing (install Debian package libhsa-runtime-dev): %v", hdr, err)
	}
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Fatalf("gcc missing (install Debian package gcc): %v", err)
	}
	items := []struct {
		expr string
		want int
	}{
		{"sizeof(hsa_kernel_dispatch_packet_t)", PacketSize},
		{"offsetof(hsa_kernel_dispatch_packet_t, header)", OffsetHeader},
		{"offsetof(hsa_kernel_dispatch_packet_t, setup)", OffsetSetup},
		{"offsetof(hsa_kernel_dispatch_packet_t, workgroup_size_x)", OffsetWorkgroupSizeX},
		{"offsetof(hsa_kernel_dispatch_packet_t, workgroup_size_y)", OffsetWorkgroupSizeY},
		{"offsetof(hsa_kernel_dispatch_packet_t, workgroup_size_z)", OffsetWorkgroupSizeZ},
		{"offsetof(hsa_kernel_dispatch_packet_t, reserved0)", OffsetReserved0},
		{"offsetof(hsa_kernel_dispatch_packet_t, grid_size_x)", OffsetGridSizeX},
		{"offsetof(hsa_kernel_dispatch_packet_t, grid_size_y)", OffsetGridSizeY},
		{"offsetof(hsa_kernel_dispatch_packet_t, grid_size_z)", OffsetGridSizeZ},
		{"offsetof(hsa_kernel_dispatch_packet_t, private_segment_size)", OffsetPrivateSegmentSize},
		{"offsetof(hsa_kernel_dispatch_packet_t, group_segment_size)", OffsetGroupSegmentSize},
		{"offsetof(hsa_kernel_dispatch_packet_t, kernel_object)", OffsetKernelObject},
		{"offsetof(hsa_kernel_dispatch_packet_t, kernarg_address)", OffsetKernargAddress},
		{"offsetof(hsa_kernel_dispatch_packet_t, reserved2)", OffsetReserved2},
		{"offsetof(hsa_kernel_dispatch_packet_t, completion_signal)", OffsetCompletionSignal},
		{"sizeof(hsa_barrier_and_packet_t)", PacketSize},
		{"offsetof(hsa_barrier_and_packet_t, reserved0)", OffsetBarrierReserved0},
		{"offsetof(hsa_barrier_and_packet_t, reserved1)", OffsetBarrierReserved1},
		{"offsetof(hsa_barrier_and_packet_t, dep_signal)", OffsetBarrierDepSignal},
		{"sizeof(((hsa_barrier_and_packet_t*)0)->dep_signal)/8", NumBarrierDepSignals},
		{"offsetof(hsa_barrier_and_packet_t, reserved2)", OffsetBarrierReserved2},
		{"offsetof(hsa_barrier_and_packet_t, completion_signal)", OffsetBarrierCompletionSignal},
		{"sizeof(hsa_barrier_or_packet_t)", PacketSize},
		{"offsetof(hsa_barrier_or_packet_t, dep_signal)", OffsetBarrierDepSignal},
		{"offsetof(hsa_barrier_or_packet_t, completion_signal)", OffsetBarrierCompletionSignal},
		{"sizeof(hsa_agent_dispatch_packet_t)", PacketSize},
		{"offsetof(hsa_agent_dispatch_packet_t, type)", OffsetAgentType},
		{"offsetof(hsa_agent_dispatch_packet_t, reserved0)", OffsetAgentReserved0},
		{"offsetof(hsa_agent_dispatch_packet_t, return_address)", OffsetAgentReturnAddress},
		{"offsetof(hsa_agent_dispatch_packet_t, arg)", OffsetAgentArg},
		{"offsetof(hsa_agent_dispatch_packet_t, reserved2)", OffsetAgentReserved2},
		{"offsetof(hsa_agent_dispatch_packet_t, completion_signal)", OffsetAgentCompletionSignal},
		{"HSA_PACKET_TYPE_VENDOR_SPECIFIC", int(PacketTypeVendorSpecific)},
		{"HSA_PACKET_TYPE_INVALID", int(PacketTypeInvalid)},
		{"HSA_PACKET_TYPE_KERNEL_DISPATCH", int(PacketTypeKernelDispatch)},
		{"HSA_PACKET_TYPE_BARRIER_AND", int(PacketTypeBarrierAnd)},
		{"HSA_PACKET_TYPE_AGENT_DISPATCH", int(PacketTypeAgentDispatch)},
		{"HSA_PACKET_TYPE_BARRIER_OR", int(PacketTypeBarrierOr)},
		{"HSA_FENCE_SCOPE_NONE", int(FenceScopeNone)},
		{"HSA_FENCE_SCOPE_AGENT", int(FenceScopeAgent)},
		{"HSA_FENCE_SCOPE_SYSTEM", int(FenceScopeSystem)},
		{"HSA_PACKET_HEADER_TYPE", HeaderType},
		{"HSA_PACKET_HEADER_BARRIER", HeaderBarrier},
		{"HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE", HeaderScacquireFenceScope},
		{"HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE", HeaderScreleaseFenceScope},
		{"HSA_PACKET_HEADER_WIDTH_TYPE", HeaderWidthType},
		{"HSA_PACKET_HEADER_WIDTH_BARRIER", HeaderWidthBarrier},
		{"HSA_PACKET_HEADER_WIDTH_SCACQUIRE_FENCE_SCOPE", HeaderWidthScacquireFenceScope},
		{"HSA_PACKET_HEADER_WIDTH_SCRELEASE_FENCE_SCOPE", HeaderWidthScreleaseFenceScope},
		{"HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS", KernelDispatchPacketSetupDimensions},
		{"HSA_KERNEL_DISPATCH_PACKET_SETUP_WIDTH_DIMENSIONS", KernelDispatchPacketSetupWidthDimensions},
	}
	var src strings.Builder
	src.WriteString("#include <stddef.h>\n#include <stdio.h>\n#include <hsa/hsa.h>\nint main(void) {\n")
	for _, it := range items {
		src.WriteString("  printf(\"%ld\\n\", (long)(" + it.expr + "));\n")
	}
	src.WriteString("  return 0;\n}\n")
	dir := t.TempDir()
	c := filepath.Join(dir, "offsets.c")
	if err := os.WriteFile(c, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "offsets")
	if out, err := exec.Command(gcc, "-DAMD_INTERNAL_BUILD", "-o", exe, c).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(out))
	if len(lines) != len(items) {
		t.Fatalf("got %d values for %d items", len(lines), len(items))
	}
	for i, it := range items {
		got, err := strconv.Atoi(lines[i])
		if err != nil {
			t.Fatal(err)
		}
		if got != it.want {
			t.Errorf("%s: hsa.h says %d, Go has %d", it.expr, got, it.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	k := KernelDispatchPacket{Header: MakeHeader(PacketTypeKernelDispatch, true, 2, 2), Setup: 1, WorkgroupSizeX: 64, WorkgroupSizeY: 1, WorkgroupSizeZ: 1, GridSizeX: 256, GridSizeY: 1, GridSizeZ: 1, KernelObject: 0x1000}
	kb := k.Bytes()
	f.Add(kb[:])
	bp := BarrierPacket{Header: MakeHeader(PacketTypeBarrierAnd, true, 2, 2), DepSignal: [5]uint64{1}}
	bb := bp.Bytes()
	f.Add(bb[:])
	f.Add([]byte{4, 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzguard.Run(t, b, func() {
			if p, err := DecodeKernelDispatchPacket(b); err == nil {
				if e := p.Bytes(); !bytes.Equal(e[:], b[:PacketSize]) {
					t.Fatalf("kernel dispatch re-encode differs")
				}
			}
			if p, err := DecodeBarrierPacket(b); err == nil {
				if e := p.Bytes(); !bytes.Equal(e[:], b[:PacketSize]) {
					t.Fatalf("barrier re-encode differs")
				}
			}
			if p, err := DecodeAgentDispatchPacket(b); err == nil {
				var e [PacketSize]byte
				p.Encode(e[:])
				if !bytes.Equal(e[:], b[:PacketSize]) {
					t.Fatalf("agent re-encode differs")
				}
			}
			if h, err := ReadHeader(b); err == nil {
				_ = h.String()
			}
		})
	})
}
