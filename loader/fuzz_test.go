package loader

import (
	"bytes"
	"errors"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
)

// maxSeed bounds the size of corpus objects used as fuzz seeds: the fuzzer
// minimizes every new interesting input, which takes long for the 70 KB
// objects.
const maxSeed = 16 << 10

// addSeeds adds the corpus objects up to maxSeed bytes (every
// testdata/kernels object and the smaller aiter ones) and a few built
// objects as fuzz seeds.
func addSeeds(f *testing.F) {
	n := 0
	for _, path := range corpusFiles(f) {
		b := readFile(f, path)
		if len(b) > maxSeed {
			continue
		}
		f.Add(b)
		n++
	}
	if n == 0 {
		f.Fatal("no corpus object small enough to seed the fuzzer")
	}
	for _, tgt := range []string{"gfx942", "gfx1201"} {
		endpgm := uint32(0xbf810000)
		if tgt == "gfx1201" {
			endpgm = 0xbfb00000
		}
		b, err := Build(BuildSpec{Target: tgt, Text: buildText(endpgm), Kernels: []KernelConfig{{Name: "k", VGPRCount: 4, SGPRCount: 16, ExplicitU64Args: 1}}})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b.Raw())
	}
}

// FuzzParse checks that Parse never panics, that every error is a
// *FormatError naming an offset and a field, and that whatever parses
// writes back byte for byte and yields usable kernels and metadata.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzguard.Run(t, b, func() {
			in := append([]byte(nil), b...)
			file, err := Parse(b)
			if err != nil {
				var fe *FormatError
				if !errors.As(err, &fe) || fe.Field == "" {
					t.Fatalf("error without offset and field: %v", err)
				}
				return
			}
			out, err := file.Write()
			if err != nil {
				t.Fatalf("write: %v", err)
			}
			if !bytes.Equal(out, in) {
				t.Fatalf("Write(Parse(b)) != b")
			}
			small := true
			for _, g := range file.Segments {
				small = small && g.Vaddr < 16<<20 && g.Memsz < 16<<20
			}
			if small { // keep the fuzzer from zeroing gigabytes per input
				_, _ = file.LoadImage()
			}
			for _, k := range file.Kernels() {
				_ = k.Descriptor.Check(file.Processor)
				_ = k.Descriptor.Directives(file.Processor, file.CodeObjectVersion())
				if string(k.Descriptor.Encode()) != string(b[k.DescriptorOffset:k.DescriptorOffset+64]) {
					t.Fatalf("descriptor %s does not re-encode", k.Symbol)
				}
			}
			if file.Metadata != nil {
				if _, err := file.Metadata.Encode(); err != nil {
					t.Fatalf("metadata encode: %v", err)
				}
			}
		})
	})
}

// FuzzPatch checks that Patch never panics on parseable input and that a
// successful patch gives a parseable object with a sound layout.
func FuzzPatch(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzguard.Run(t, b, func() {
			file, err := Parse(b)
			if err != nil || file.Section(".text") == nil || len(file.Kernels()) == 0 {
				return
			}
			spec := growSpec(file)
			nf, err := Patch(file, spec)
			if err != nil {
				return
			}
			if err := nf.CheckLayout(); err != nil {
				t.Fatalf("patched layout: %v", err)
			}
		})
	})
}
