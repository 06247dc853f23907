package loader

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"github.com/rocjitsu/rocjitsu/loader/metadata"
)

// TestMetadataCloneMatchesDecode checks, for every corpus object, that a
// clone of the parsed metadata equals a fresh decode of the note (the
// translator clones instead of decoding again) and encodes to the same
// bytes, and that changing the clone leaves the parsed metadata alone.
func TestMetadataCloneMatchesDecode(t *testing.T) {
	n := 0
	for _, p := range corpusFiles(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Parse(b)
		if err != nil || f.Metadata == nil {
			continue
		}
		n++
		fresh, err := metadata.Decode(f.MetadataNote.Desc)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		before, err := f.Metadata.Encode()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		c := f.Metadata.Clone()
		if !reflect.DeepEqual(c, fresh) {
			t.Fatalf("%s: clone differs from a fresh decode", p)
		}
		ce, err := c.Encode()
		if err != nil || !bytes.Equal(ce, before) {
			t.Fatalf("%s: clone encodes differently (%v)", p, err)
		}
		c.Target = "changed"
		for i := range c.Kernels {
			k := &c.Kernels[i]
			k.VGPRCount += 7
			k.MarkPresent(".vgpr_count", ".agpr_count", ".workgroup_processor_mode")
			if k.Extra == nil {
				k.Extra = map[string]any{}
			}
			k.Extra[".clone_probe"] = 1
			for j := range k.Args {
				k.Args[j].Offset++
			}
		}
		after, err := f.Metadata.Encode()
		if err != nil || !bytes.Equal(after, before) {
			t.Fatalf("%s: changing the clone changed the original (%v)", p, err)
		}
	}
	if n == 0 {
		t.Fatal("no corpus object with metadata")
	}
}
