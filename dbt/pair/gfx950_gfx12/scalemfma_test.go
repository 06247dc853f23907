package gfx950gfx12

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
	"github.com/rocjitsu/rocjitsu/loader"
)

// fakeCtx hands out scratch registers from v160 up and the pair s[90:91].
type fakeCtx struct{ next uint16 }

func (c *fakeCtx) TempVGPRs(n int) ([]uint16, error) {
	var out []uint16
	for i := 0; i < n; i++ {
		out = append(out, c.next)
		c.next++
	}
	if c.next > 256 {
		return nil, fmt.Errorf("out of scratch VGPRs")
	}
	return out, nil
}

func (c *fakeCtx) TempVGPRRange(n, align int) (uint16, error) {
	for c.next%uint16(align) != 0 {
		c.next++
	}
	r, err := c.TempVGPRs(n)
	if err != nil {
		return 0, err
	}
	return r[0], nil
}

func (c *fakeCtx) TempSGPRPair() (uint16, error) { return 90, nil }

// f8f6f4Words returns the guest words of an f8f6f4 MFMA (m = 16 or 32),
// with v_mfma_ld_scale_b32 v30, v31 first when scaled: D v[40:..], A
// v[10:..], B v[20:..] (bits 0/1 of agpr: A/B in AGPRs), C src2.
func f8f6f4Words(m, cbsz, blgp int, scaled bool, src2 uint32, agpr int) []uint32 {
	op := uint32(0x2d)
	if m == 32 {
		op = 0x2e
	}
	w0 := 0xd3800000 | op<<16 | 1<<11 | uint32(cbsz)<<8 | 40
	w1 := uint32(256+10) | uint32(256+20)<<9 | src2<<18 | uint32(blgp)<<29 | uint32(agpr)<<27
	if !scaled {
		return []uint32{w0, w1}
	}
	return []uint32{0xd3ac0000, uint32(256+30) | uint32(256+31)<<9, w0, w1}
}

func decode950(t *testing.T, ws []uint32) *isa.Inst {
	t.Helper()
	var b []byte
	for _, w := range ws {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	in, err := gfx9.Decode(b, 0, isa.GFX950)
	if err != nil {
		t.Fatal(err)
	}
	return &in
}

// TestF8F6F4Expansions emits every shape and format pair, decodes the
// host code and checks its frame: MODE.FP_DENORM saved, set and restored,
// the WMMA kind and count (8 steps, times the K blocks of a scaled form,
// times the 32x32 tiles), every host instruction decodable for gfx1201
// wave64; and logs the expansion sizes (the README's figures).
func TestF8F6F4Expansions(t *testing.T) {
	site := pair.Site{AGPRBase: 128}
	for _, scaled := range []bool{true, false} {
		for _, m := range []int{16, 32} {
			var sizes []string
			for cb := 0; cb < 5; cb++ {
				for bl := 0; bl < 5; bl++ {
					in := decode950(t, f8f6f4Words(m, cb, bl, scaled, 256+60, 0))
					code, err := mfmaF8F6F4(&fakeCtx{next: 160}, in, site)
					if err != nil {
						t.Fatalf("%s cbsz %d blgp %d: %v", in.Name(), cb, bl, err)
					}
					text := hostText(t, code)
					lines := strings.Split(text, "; ")
					// E4M3 and E2M3 ride as fp8 (E4M3) bytes, the others as bf8.
					kind := []string{"fp8", "bf8", "fp8", "bf8", "bf8"}
					wmma := fmt.Sprintf("v_wmma_f32_16x16x16_%s_%s ", kind[cb], kind[bl])
					n := 0
					for _, l := range lines {
						if strings.HasPrefix(l, "v_wmma") {
							if !strings.HasPrefix(l, wmma) {
								t.Fatalf("%s cbsz %d blgp %d: %q, want %s", in.Name(), cb, bl, l, wmma)
							}
							n++
						}
					}
					want := 8 * (m / 16) * (m / 16)
					if scaled {
						want *= 64 / m
					}
					if n != want {
						t.Errorf("%s cbsz %d blgp %d: %d WMMAs, want %d", in.Name(), cb, bl, n, want)
					}
					if !strings.HasPrefix(lines[0], "s_getreg_b32 s90, hwreg(HW_REG_MODE, 4, 4)") || !strings.HasPrefix(lines[len(lines)-1], "s_setreg_b32 hwreg(HW_REG_MODE, 4, 4), s90") {
						t.Errorf("%s cbsz %d blgp %d: MODE not saved and restored: %q ... %q", in.Name(), cb, bl, lines[0], lines[len(lines)-1])
					}
					sizes = append(sizes, fmt.Sprintf("%d/%d:%d", cb, bl, len(lines)))
				}
			}
			t.Logf("scaled=%v %dx%d: instructions per cbsz/blgp: %s", scaled, m, m, strings.Join(sizes, " "))
		}
	}
}

// TestF8F6F4Refusals: forms the expansion cannot reproduce are refused
// with a reason, never emitted.
func TestF8F6F4Refusals(t *testing.T) {
	site := pair.Site{Kernel: &loader.Kernel{}, AGPRBase: 128}
	far := pair.Site{Kernel: &loader.Kernel{}, AGPRBase: 250}
	ok := f8f6f4Words(16, 0, 0, true, 256+50, 0)
	if _, err := mfmaF8F6F4(&fakeCtx{next: 160}, decode950(t, ok), site); err != nil {
		t.Fatalf("plain form refused: %v", err)
	}
	for _, c := range []struct {
		name string
		ws   []uint32
	}{
		{"cbsz 5", f8f6f4Words(16, 5, 0, true, 256+50, 0)},
		{"blgp 5", f8f6f4Words(16, 0, 5, true, 256+50, 0)},
		{"abid 2", func() []uint32 { w := f8f6f4Words(16, 0, 0, true, 256+50, 0); w[2] |= 2 << 11; return w }()},
		{"SGPR C", f8f6f4Words(16, 0, 0, true, 10, 0)},
		{"A AGPR past the file", f8f6f4Words(16, 0, 0, false, 128, 1)},
		{"D partly over C", f8f6f4Words(16, 0, 0, true, 256+42, 0)},
		{"32x32 D partly over C", f8f6f4Words(32, 4, 4, true, 256+48, 0)},
	} {
		in := decode950(t, c.ws)
		s := site
		if strings.HasPrefix(c.name, "A AGPR") {
			s = far
		}
		if _, err := mfmaF8F6F4(&fakeCtx{next: 160}, in, s); err == nil {
			t.Errorf("%s (%s) accepted", c.name, gfx9.Print(in))
		}
	}
	// C = D and AGPR operands are accepted.
	for _, ws := range [][]uint32{f8f6f4Words(32, 2, 3, true, 256+40, 0), f8f6f4Words(16, 4, 1, false, 128, 3)} {
		in := decode950(t, ws)
		if _, err := mfmaF8F6F4(&fakeCtx{next: 160}, in, site); err != nil {
			t.Errorf("%s refused: %v", gfx9.Print(in), err)
		}
	}
}

// FuzzF8F6F4: arbitrary f8f6f4 MFMA words (opcode kept, every field
// free) give an error or host code that decodes for gfx1201 wave64 and
// ends by restoring MODE, never a panic.
func FuzzF8F6F4(f *testing.F) {
	f.Add(uint32(0xd3ad0828), uint32(0x1c521904), uint32(0x0003118c), true, false)
	f.Add(uint32(0xd3ae8c30), uint32(0x84021148), uint32(0x0003d1b0), true, true)
	f.Add(uint32(0xd3ad0bff), uint32(0xffffffff), uint32(0), false, false)
	f.Fuzz(func(t *testing.T, w0, w1, l1 uint32, scaled, big bool) {
		fuzzguard.RunArgs(t, []any{w0, w1, l1, scaled, big}, func() {
			op := uint32(0x2d)
			if big {
				op = 0x2e
			}
			w0 = w0&^0xffff0000 | 0xd3800000 | op<<16
			ws := []uint32{w0, w1}
			if scaled {
				ws = []uint32{0xd3ac0000 | w0&0x7800, l1, w0, w1}
			}
			var b []byte
			for _, w := range ws {
				b = binary.LittleEndian.AppendUint32(b, w)
			}
			in, err := gfx9.Decode(b, 0, isa.GFX950)
			if err != nil {
				return
			}
			if _, ok := f8f6f4Shapes[in.Name()]; !ok {
				return
			}
			code, err := mfmaF8F6F4(&fakeCtx{next: 160}, &in, pair.Site{Kernel: &loader.Kernel{}, AGPRBase: 64})
			if err != nil {
				return
			}
			lines := strings.Split(hostText(t, code), "; ")
			if !strings.HasPrefix(lines[len(lines)-1], "s_setreg_b32") {
				t.Fatalf("%s: last host instruction %q", gfx9.Print(&in), lines[len(lines)-1])
			}
		})
	})
}
