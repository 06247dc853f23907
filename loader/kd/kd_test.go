package kd

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/loader/target"
)

var families = []target.Family{target.FamilyGFX9, target.FamilyGFX90A, target.FamilyGFX10, target.FamilyGFX11, target.FamilyGFX12}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 1000; i++ {
		b := make([]byte, Size)
		r.Read(b)
		d, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(d.Encode(), b) {
			t.Fatalf("round trip differs for % x", b)
		}
	}
	if _, err := Decode(make([]byte, 63)); err == nil {
		t.Fatal("63 bytes decoded")
	}
}

func TestFieldsDisjointAndComplete(t *testing.T) {
	for _, fam := range families {
		used := map[Word]uint32{}
		for _, f := range Fields(fam) {
			if used[f.Word]&f.Mask() != 0 {
				t.Errorf("%s: %s overlaps another field", fam, f)
			}
			used[f.Word] |= f.Mask()
		}
		for w, want := range map[Word]uint32{COMPUTE_PGM_RSRC1: 0xffffffff, COMPUTE_PGM_RSRC2: 0xffffffff, KERNEL_CODE_PROPERTIES: 0xffff, KERNARG_PRELOAD: 0xffff} {
			if used[w] != want {
				t.Errorf("%s: %s fields cover 0x%x, want 0x%x", fam, w, used[w], want)
			}
		}
		if fam == target.FamilyGFX90A && used[COMPUTE_PGM_RSRC3] != 0xffffffff {
			t.Errorf("gfx90a: RSRC3 fields cover 0x%x", used[COMPUTE_PGM_RSRC3])
		}
	}
}

func TestSetGet(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, fam := range families {
		for _, f := range Fields(fam) {
			var d Descriptor
			b := make([]byte, Size)
			r.Read(b)
			d, _ = Decode(b)
			before := d
			v := uint32(r.Int63()) & f.Max()
			if err := d.Set(f, v); err != nil {
				t.Fatal(err)
			}
			if d.Get(f) != v {
				t.Errorf("%s: Get %d after Set %d", f, d.Get(f), v)
			}
			// Nothing outside the field changed.
			if (d.word(f.Word)^before.word(f.Word))&^f.Mask() != 0 {
				t.Errorf("%s: Set touched other bits", f)
			}
			if err := d.Set(f, f.Max()+1); err == nil && f.Width < 32 {
				t.Errorf("%s: Set accepted %d", f, f.Max()+1)
			}
		}
	}
}

func TestGranules(t *testing.T) {
	for _, name := range []string{"gfx900", "gfx942", "gfx950", "gfx1100", "gfx1200", "gfx1201"} {
		p, _ := target.ByName(name)
		for _, wave32 := range []bool{false, true} {
			if wave32 && p.Family < target.FamilyGFX10 {
				continue
			}
			for n := 1; n <= 256; n++ {
				var d Descriptor
				if wave32 {
					d.Set(KCP_ENABLE_WAVEFRONT_SIZE32, 1)
				}
				if err := d.Set(RSRC1_GRANULATED_WORKITEM_VGPR_COUNT, VGPRGranules(p, wave32, n)); err != nil {
					t.Fatal(err)
				}
				got := d.NextFreeVGPR(p)
				g := VGPREncodingGranule(p, wave32)
				if got < n || got >= n+g {
					t.Errorf("%s wave32=%v: %d VGPRs -> %d allocated (granule %d)", name, wave32, n, got, g)
				}
			}
		}
		if p.Family < target.FamilyGFX10 {
			for n := 1; n <= 104; n++ {
				var d Descriptor
				d.Set(RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT, SGPRGranules(p, n))
				if got := d.NextFreeSGPR(); got < n || got >= n+8 {
					t.Errorf("%s: %d SGPRs -> %d", name, n, got)
				}
			}
		} else if SGPRGranules(p, 100) != 0 {
			t.Errorf("%s: SGPR granules must be 0 on gfx10+", name)
		}
	}
	gfx950, _ := target.ByName("gfx950")
	var d Descriptor
	d.Set(RSRC1_GRANULATED_WORKITEM_VGPR_COUNT, 63)
	d.Set(RSRC3_ACCUM_OFFSET, AccumOffsetField(256))
	if d.NextFreeVGPR(gfx950) != 512 || d.AccumOffset() != 256 {
		t.Errorf("gfx950: %d VGPRs, accum offset %d; want 512, 256", d.NextFreeVGPR(gfx950), d.AccumOffset())
	}
}

func TestCheckAndDirectives(t *testing.T) {
	gfx942, _ := target.ByName("gfx942")
	gfx1200, _ := target.ByName("gfx1200")
	var d Descriptor
	if err := d.Check(gfx942); err != nil {
		t.Fatal(err)
	}
	d.Reserved1[3] = 1
	if err := d.Check(gfx942); err == nil || !strings.Contains(err.Error(), "byte 27") {
		t.Errorf("reserved byte: %v", err)
	}
	d = Descriptor{}
	d.Set(RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT, 2)
	if d.Check(gfx942) != nil || d.Check(gfx1200) == nil {
		t.Error("SGPR granule check wrong")
	}
	d = Descriptor{}
	d.Set(RSRC3_GFX90A_RESERVED1, 1)
	if err := d.Check(gfx942); err == nil || !strings.Contains(err.Error(), "COMPUTE_PGM_RSRC3.RESERVED1") {
		t.Errorf("rsrc3 reserved: %v", err)
	}
	// Directive sets differ by family.
	names := func(p target.Processor) string {
		var s []string
		for _, x := range (&Descriptor{}).Directives(p, 5) {
			s = append(s, x.Name)
		}
		return strings.Join(s, " ")
	}
	if n := names(gfx942); !strings.Contains(n, ".amdhsa_accum_offset") || strings.Contains(n, ".amdhsa_wavefront_size32") || strings.Contains(n, ".amdhsa_reserve_flat_scratch") {
		t.Errorf("gfx942 directives: %s", n)
	}
	if n := names(gfx1200); strings.Contains(n, ".amdhsa_ieee_mode") || !strings.Contains(n, ".amdhsa_round_robin_scheduling") || !strings.Contains(n, ".amdhsa_wavefront_size32") {
		t.Errorf("gfx1200 directives: %s", n)
	}
}
