package silkrt_test

import (
	"fmt"

	"github.com/rocjitsu/rocjitsu/hsa/aql"
	"github.com/rocjitsu/rocjitsu/silkrt"
)

func ExampleEncodeDispatchPacket() {
	c := silkrt.DispatchConfig{
		Dimensions:     1,
		WorkgroupSizeX: 64, WorkgroupSizeY: 1, WorkgroupSizeZ: 1,
		GridSizeX: 256, GridSizeY: 1, GridSizeZ: 1,
		KernelObject:      0x7f0000001000,
		KernargAddress:    0x7f0000200000,
		AcquireFenceScope: aql.FenceScopeSystem,
		ReleaseFenceScope: aql.FenceScopeSystem,
	}
	var pkt [aql.PacketSize]byte
	if err := silkrt.EncodeDispatchPacket(&c, pkt[:]); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%x\n", pkt[:16])
	c.GridSizeX = 32
	fmt.Println(silkrt.EncodeDispatchPacket(&c, pkt[:]))
	// Output:
	// 02140100400001000100000000010000
	// silkrt: dispatch: grid_size_x = 32 is smaller than the workgroup size 64
}

func ExampleAppendBundle() {
	b := &silkrt.Bundle{Provider: silkrt.ProviderHIP, Target: 942, Entries: []silkrt.Entry{
		{Name: "fill", KernargSize: 12, CodeObject: []byte("\x7fELF...")},
	}}
	exe, err := silkrt.AppendBundle([]byte("host executable"), b)
	if err != nil {
		fmt.Println(err)
		return
	}
	got, loc, err := silkrt.ParseBundle(exe)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("bundle at %d, %d bytes, ends with %q\n", loc.Start, loc.Length+silkrt.TrailerSize, exe[len(exe)-8:])
	fmt.Println(got.Provider, got.Target, got.Entries[0].Name, got.Entries[0].KernargSize)
	// Output:
	// bundle at 16, 96 bytes, ends with "SLKGPEND"
	// hip 942 fill 12
}
