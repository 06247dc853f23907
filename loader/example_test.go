package loader_test

import (
	"encoding/binary"
	"fmt"

	"github.com/rocjitsu/rocjitsu/loader"
)

// Example builds a gfx942 code object with one kernel, parses it back and
// reads the kernel's descriptor and metadata.
func Example() {
	text := make([]byte, 256)
	for i := 0; i < len(text); i += 4 {
		binary.LittleEndian.PutUint32(text[i:], 0xbf800000) // s_nop 0
	}
	binary.LittleEndian.PutUint32(text[4:], 0xbf810000) // s_endpgm
	built, err := loader.Build(loader.BuildSpec{
		Target:  "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-",
		Text:    text,
		Kernels: []loader.KernelConfig{{Name: "scale", VGPRCount: 10, SGPRCount: 24, ExplicitU64Args: 2}},
	})
	if err != nil {
		panic(err)
	}
	f, err := loader.Parse(built.Raw())
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Target, f.CodeObjectVersion())
	for _, k := range f.Kernels() {
		fmt.Println(k.Name, k.Symbol, k.EntryAddr == f.Section(".text").Addr)
		fmt.Println("vgprs", k.Descriptor.NextFreeVGPR(f.Processor), "accum offset", k.Descriptor.AccumOffset())
		fmt.Println("kernarg", k.Metadata.KernargSegmentSize, "args", len(k.Metadata.Args), "wave", k.Metadata.WavefrontSize)
	}
	out, _ := loader.Write(f)
	fmt.Println("round trip", string(out) == string(built.Raw()))
	// Output:
	// amdgcn-amd-amdhsa--gfx942:sramecc+:xnack- 6
	// scale scale.kd true
	// vgprs 16 accum offset 12
	// kernarg 272 args 21 wave 64
	// round trip true
}
