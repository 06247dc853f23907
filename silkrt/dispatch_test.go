package silkrt

import (
	"encoding/binary"
	"errors"
	"testing"
	"unsafe"

	"github.com/rocjitsu/rocjitsu/hsa/aql"
	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
)

func valid3D() DispatchConfig {
	return DispatchConfig{
		Dimensions:     3,
		WorkgroupSizeX: 8, WorkgroupSizeY: 4, WorkgroupSizeZ: 2,
		GridSizeX: 64, GridSizeY: 16, GridSizeZ: 6,
		PrivateSegmentSize: 0x11223344,
		GroupSegmentSize:   0x55667788,
		KernelObject:       0x0102030405060708,
		KernargAddress:     0x1112131415161718,
		CompletionSignal:   0x2122232425262728,
		Barrier:            true,
		AcquireFenceScope:  aql.FenceScopeSystem,
		ReleaseFenceScope:  aql.FenceScopeAgent,
	}
}

// TestDispatchPacketFieldOffsets checks every field of the built packet at
// its HSA byte offset.
func TestDispatchPacketFieldOffsets(t *testing.T) {
	c := valid3D()
	var b [64]byte
	for i := range b {
		b[i] = 0xee // must be overwritten or zeroed
	}
	if err := EncodeDispatchPacket(&c, b[:]); err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	header := uint16(aql.PacketTypeKernelDispatch) | 1<<8 | 2<<9 | 1<<11
	tests := []struct {
		name   string
		offset int
		size   int
		want   uint64
	}{
		{"header", 0, 2, uint64(header)},
		{"setup", 2, 2, 3},
		{"workgroup_size_x", 4, 2, 8},
		{"workgroup_size_y", 6, 2, 4},
		{"workgroup_size_z", 8, 2, 2},
		{"reserved0", 10, 2, 0},
		{"grid_size_x", 12, 4, 64},
		{"grid_size_y", 16, 4, 16},
		{"grid_size_z", 20, 4, 6},
		{"private_segment_size", 24, 4, 0x11223344},
		{"group_segment_size", 28, 4, 0x55667788},
		{"kernel_object", 32, 8, 0x0102030405060708},
		{"kernarg_address", 40, 8, 0x1112131415161718},
		{"reserved2", 48, 8, 0},
		{"completion_signal", 56, 8, 0x2122232425262728},
	}
	total := 0
	for _, tc := range tests {
		var got uint64
		switch tc.size {
		case 2:
			got = uint64(le.Uint16(b[tc.offset:]))
		case 4:
			got = uint64(le.Uint32(b[tc.offset:]))
		case 8:
			got = le.Uint64(b[tc.offset:])
		}
		if got != tc.want {
			t.Errorf("%s at %d: got %#x want %#x", tc.name, tc.offset, got, tc.want)
		}
		total += tc.size
	}
	if total != 64 {
		t.Fatalf("table covers %d bytes", total)
	}
}

// TestDispatchValidation has one case per way a config can break a rule;
// each must produce the rule and the field named.
func TestDispatchValidation(t *testing.T) {
	d1 := DispatchConfig{Dimensions: 1, WorkgroupSizeX: 64, WorkgroupSizeY: 1, WorkgroupSizeZ: 1, GridSizeX: 256, GridSizeY: 1, GridSizeZ: 1}
	d2 := DispatchConfig{Dimensions: 2, WorkgroupSizeX: 16, WorkgroupSizeY: 16, WorkgroupSizeZ: 1, GridSizeX: 64, GridSizeY: 64, GridSizeZ: 1}
	tests := []struct {
		name  string
		base  DispatchConfig
		mod   func(c *DispatchConfig)
		rule  Rule
		field string
	}{
		{"ok 1D", d1, func(c *DispatchConfig) {}, RuleOK, ""},
		{"ok 2D", d2, func(c *DispatchConfig) {}, RuleOK, ""},
		{"ok 3D", valid3D(), func(c *DispatchConfig) {}, RuleOK, ""},
		{"ok grid not a multiple", d1, func(c *DispatchConfig) { c.GridSizeX = 65 }, RuleOK, ""},
		{"ok flat exactly 1024", d1, func(c *DispatchConfig) { c.WorkgroupSizeX = 1024; c.GridSizeX = 1024 }, RuleOK, ""},
		{"ok flat at explicit max", d1, func(c *DispatchConfig) { c.WorkgroupSizeX = 256; c.MaxFlatWorkgroupSize = 256 }, RuleOK, ""},
		{"ok flat above default with larger max", d1, func(c *DispatchConfig) { c.WorkgroupSizeX = 2048; c.GridSizeX = 2048; c.MaxFlatWorkgroupSize = 2048 }, RuleOK, ""},
		{"dimensions 0", d1, func(c *DispatchConfig) { c.Dimensions = 0 }, RuleDimensions, "dimensions"},
		{"dimensions 4", d1, func(c *DispatchConfig) { c.Dimensions = 4 }, RuleDimensions, "dimensions"},
		{"dimensions 0xffff", d1, func(c *DispatchConfig) { c.Dimensions = 0xffff }, RuleDimensions, "dimensions"},
		{"zero workgroup x", d1, func(c *DispatchConfig) { c.WorkgroupSizeX = 0 }, RuleZeroWorkgroupSize, "workgroup_size_x"},
		{"zero workgroup y", d2, func(c *DispatchConfig) { c.WorkgroupSizeY = 0 }, RuleZeroWorkgroupSize, "workgroup_size_y"},
		{"zero workgroup z", valid3D(), func(c *DispatchConfig) { c.WorkgroupSizeZ = 0 }, RuleZeroWorkgroupSize, "workgroup_size_z"},
		{"zero workgroup z unused", d1, func(c *DispatchConfig) { c.WorkgroupSizeZ = 0 }, RuleZeroWorkgroupSize, "workgroup_size_z"},
		{"zero grid x", d1, func(c *DispatchConfig) { c.GridSizeX = 0 }, RuleZeroGridSize, "grid_size_x"},
		{"zero grid y", d2, func(c *DispatchConfig) { c.GridSizeY = 0 }, RuleZeroGridSize, "grid_size_y"},
		{"zero grid z", valid3D(), func(c *DispatchConfig) { c.GridSizeZ = 0 }, RuleZeroGridSize, "grid_size_z"},
		{"grid < workgroup x", d1, func(c *DispatchConfig) { c.GridSizeX = 63 }, RuleGridSmallerThanWorkgroup, "grid_size_x"},
		{"grid < workgroup y", d2, func(c *DispatchConfig) { c.GridSizeY = 15 }, RuleGridSmallerThanWorkgroup, "grid_size_y"},
		{"grid < workgroup z", valid3D(), func(c *DispatchConfig) { c.GridSizeZ = 1 }, RuleGridSmallerThanWorkgroup, "grid_size_z"},
		{"unused workgroup y", d1, func(c *DispatchConfig) { c.WorkgroupSizeY = 2; c.GridSizeY = 2 }, RuleUnusedDimension, "workgroup_size_y"},
		{"unused grid y", d1, func(c *DispatchConfig) { c.GridSizeY = 2 }, RuleUnusedDimension, "grid_size_y"},
		{"unused workgroup z", d2, func(c *DispatchConfig) { c.WorkgroupSizeZ = 2; c.GridSizeZ = 4 }, RuleUnusedDimension, "workgroup_size_z"},
		{"unused grid z", d2, func(c *DispatchConfig) { c.GridSizeZ = 3 }, RuleUnusedDimension, "grid_size_z"},
		{"flat above default", d2, func(c *DispatchConfig) { c.WorkgroupSizeX = 64; c.WorkgroupSizeY = 32 }, RuleFlatWorkgroupSize, "workgroup_size_x*y*z"},
		{"flat 1025", d1, func(c *DispatchConfig) { c.WorkgroupSizeX = 1025; c.GridSizeX = 2048 }, RuleFlatWorkgroupSize, "workgroup_size_x*y*z"},
		{"flat above explicit max", d1, func(c *DispatchConfig) { c.MaxFlatWorkgroupSize = 32 }, RuleFlatWorkgroupSize, "workgroup_size_x*y*z"},
		{"acquire scope 3", d1, func(c *DispatchConfig) { c.AcquireFenceScope = 3 }, RuleFenceScope, "acquire_fence_scope"},
		{"release scope 3", d1, func(c *DispatchConfig) { c.ReleaseFenceScope = 3 }, RuleFenceScope, "release_fence_scope"},
	}
	seen := map[Rule]bool{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.base
			tc.mod(&c)
			var out [64]byte
			out[0] = 0xff
			err := EncodeDispatchPacket(&c, out[:])
			if got := RuleOf(err); got != tc.rule {
				t.Fatalf("rule = %v (%v), want %v", got, err, tc.rule)
			}
			seen[tc.rule] = true
			if tc.rule == RuleOK {
				p, err := aql.DecodeKernelDispatchPacket(out[:])
				if err != nil {
					t.Fatal(err)
				}
				if p.Dimensions() != int(c.Dimensions) || p.GridSizeX != c.GridSizeX {
					t.Fatalf("decoded %+v", p)
				}
				return
			}
			var de *DispatchError
			if !errors.As(err, &de) || de.Field != tc.field {
				t.Fatalf("error %v: field %q, want %q", err, de.Field, tc.field)
			}
			if out != [64]byte{} {
				t.Fatalf("packet not zeroed on failure: %x", out)
			}
		})
	}
	for r := RuleDimensions; r <= RuleFenceScope; r++ {
		if !seen[r] {
			t.Errorf("no case for rule %v", r)
		}
	}
	var short [63]byte
	if RuleOf(EncodeDispatchPacket(&d1, short[:])) != RuleBufferSize {
		t.Error("short output accepted")
	}
}

// TestBuildDispatchPacketC exercises the C-ABI entry point on a Go-made
// image of the C struct, including NULL pointers.
func TestBuildDispatchPacketC(t *testing.T) {
	c := valid3D()
	img := make([]byte, CConfigSize)
	le := binary.LittleEndian
	le.PutUint16(img[CConfigOffsetDimensions:], c.Dimensions)
	le.PutUint16(img[CConfigOffsetWorkgroupSizeX:], c.WorkgroupSizeX)
	le.PutUint16(img[CConfigOffsetWorkgroupSizeY:], c.WorkgroupSizeY)
	le.PutUint16(img[CConfigOffsetWorkgroupSizeZ:], c.WorkgroupSizeZ)
	le.PutUint32(img[CConfigOffsetGridSizeX:], c.GridSizeX)
	le.PutUint32(img[CConfigOffsetGridSizeY:], c.GridSizeY)
	le.PutUint32(img[CConfigOffsetGridSizeZ:], c.GridSizeZ)
	le.PutUint32(img[CConfigOffsetPrivateSegmentSize:], c.PrivateSegmentSize)
	le.PutUint32(img[CConfigOffsetGroupSegmentSize:], c.GroupSegmentSize)
	le.PutUint64(img[CConfigOffsetKernelObject:], c.KernelObject)
	le.PutUint64(img[CConfigOffsetKernargAddress:], c.KernargAddress)
	le.PutUint64(img[CConfigOffsetCompletionSignal:], c.CompletionSignal)
	img[CConfigOffsetBarrier] = 1
	le.PutUint32(img[CConfigOffsetAcquireFenceScope:], uint32(c.AcquireFenceScope))
	le.PutUint32(img[CConfigOffsetReleaseFenceScope:], uint32(c.ReleaseFenceScope))
	if got := DecodeCConfig(img); got != c {
		t.Fatalf("DecodeCConfig = %+v, want %+v", got, c)
	}
	var out, want [64]byte
	if err := EncodeDispatchPacket(&c, want[:]); err != nil {
		t.Fatal(err)
	}
	if st := BuildDispatchPacketC(unsafe.Pointer(&img[0]), unsafe.Pointer(&out[0])); st != 0 || out != want {
		t.Fatalf("status %d packet %x want %x", st, out, want)
	}
	if st := BuildDispatchPacketC(nil, unsafe.Pointer(&out[0])); st != int32(RuleNullPointer) || out != [64]byte{} {
		t.Fatalf("NULL config: status %d packet %x", st, out)
	}
	if st := BuildDispatchPacketC(unsafe.Pointer(&img[0]), nil); st != int32(RuleNullPointer) {
		t.Fatalf("NULL out: status %d", st)
	}
	le.PutUint32(img[CConfigOffsetReleaseFenceScope:], 0xffffffff) // -1
	if st := BuildDispatchPacketC(unsafe.Pointer(&img[0]), unsafe.Pointer(&out[0])); st != int32(RuleFenceScope) {
		t.Fatalf("scope -1: status %d", st)
	}
	le.PutUint32(img[CConfigOffsetReleaseFenceScope:], 256)
	if st := BuildDispatchPacketC(unsafe.Pointer(&img[0]), unsafe.Pointer(&out[0])); st != int32(RuleFenceScope) {
		t.Fatalf("scope 256: status %d", st)
	}
}

func TestBuildBarrierPacket(t *testing.T) {
	c := BarrierConfig{Or: true, DepSignals: []uint64{0x10, 0x20, 0x30}, CompletionSignal: 0x99, Barrier: true, AcquireFenceScope: aql.FenceScopeAgent, ReleaseFenceScope: aql.FenceScopeSystem}
	p, err := BuildBarrierPacket(&c)
	if err != nil {
		t.Fatal(err)
	}
	b := p.Bytes()
	le := binary.LittleEndian
	if h := le.Uint16(b[0:]); h != uint16(aql.PacketTypeBarrierOr)|1<<8|1<<9|2<<11 {
		t.Errorf("header %#x", h)
	}
	for i, want := range []uint64{0x10, 0x20, 0x30, 0, 0} {
		if got := le.Uint64(b[8+8*i:]); got != want {
			t.Errorf("dep_signal[%d] at %d = %#x want %#x", i, 8+8*i, got, want)
		}
	}
	if le.Uint64(b[56:]) != 0x99 || le.Uint16(b[2:]) != 0 || le.Uint32(b[4:]) != 0 || le.Uint64(b[48:]) != 0 {
		t.Errorf("packet %x", b)
	}
	c.Or = false
	if p, _ := BuildBarrierPacket(&c); p.Header.Type() != aql.PacketTypeBarrierAnd {
		t.Errorf("AND type %v", p.Header.Type())
	}
	c.DepSignals = make([]uint64, 6)
	if _, err := BuildBarrierPacket(&c); RuleOf(err) != RuleDepSignals {
		t.Errorf("6 deps: %v", err)
	}
	c.DepSignals = nil
	c.ReleaseFenceScope = 3
	if _, err := BuildBarrierPacket(&c); RuleOf(err) != RuleFenceScope {
		t.Errorf("scope 3: %v", err)
	}
}

// FuzzBuildDispatchPacketC feeds arbitrary C struct images to the C-ABI
// entry point: a success must decode back to the config, a failure must
// leave the packet zeroed, and nothing may panic.
func FuzzBuildDispatchPacketC(f *testing.F) {
	f.Add(make([]byte, CConfigSize))
	seed := make([]byte, CConfigSize)
	binary.LittleEndian.PutUint16(seed[CConfigOffsetDimensions:], 1)
	binary.LittleEndian.PutUint16(seed[CConfigOffsetWorkgroupSizeX:], 64)
	binary.LittleEndian.PutUint16(seed[CConfigOffsetWorkgroupSizeY:], 1)
	binary.LittleEndian.PutUint16(seed[CConfigOffsetWorkgroupSizeZ:], 1)
	binary.LittleEndian.PutUint32(seed[CConfigOffsetGridSizeX:], 256)
	binary.LittleEndian.PutUint32(seed[CConfigOffsetGridSizeY:], 1)
	binary.LittleEndian.PutUint32(seed[CConfigOffsetGridSizeZ:], 1)
	f.Add(seed)
	f.Fuzz(func(t *testing.T, img []byte) {
		fuzzguard.Run(t, img, func() {
			if len(img) < CConfigSize {
				img = append(img, make([]byte, CConfigSize-len(img))...)
			}
			var out [64]byte
			st := BuildDispatchPacketC(unsafe.Pointer(&img[0]), unsafe.Pointer(&out[0]))
			c := DecodeCConfig(img)
			if Rule(st) != RuleOf(c.Validate()) {
				t.Fatalf("status %d, Validate says %v", st, c.Validate())
			}
			if st != 0 {
				if out != [64]byte{} {
					t.Fatalf("status %d with nonzero packet", st)
				}
				return
			}
			p, err := aql.DecodeKernelDispatchPacket(out[:])
			if err != nil {
				t.Fatal(err)
			}
			if p.Dimensions() != int(c.Dimensions) || p.WorkgroupSizeZ != c.WorkgroupSizeZ || p.GridSizeY != c.GridSizeY ||
				p.KernelObject != c.KernelObject || p.CompletionSignal != c.CompletionSignal || p.Header.Barrier() != c.Barrier ||
				p.Header.ReleaseFenceScope() != c.ReleaseFenceScope || p.Reserved0 != 0 || p.Reserved2 != 0 {
				t.Fatalf("packet %+v from config %+v", p, c)
			}
		})
	})
}
