package wave

import (
	"math"
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
)

// TestGFX12CvtPkFP8: gfx12's v_cvt_pk_fp8_f32 / v_cvt_pk_bf8_f32 write OCP
// codes (E4M3FN, E5M2, as gfx950; not gfx942's FNUZ) into the low half, or
// with op_sel[3] the high half, keeping the other half. Every finite code,
// decoded to f32, converts back to itself; 448 is E4M3FN's largest finite
// (0x7e; FNUZ would overflow it), 57344 E5M2's (0x7b).
func TestGFX12CvtPkFP8(t *testing.T) {
	src := `v_cvt_pk_fp8_f32 v3, v1, v2
v_cvt_pk_fp8_f32 v4, v1, v2 op_sel:[0,0,1]
v_cvt_pk_bf8_f32 v5, v1, v2
v_cvt_pk_bf8_f32 v6, v1, v2 op_sel:[0,0,1]`
	prog := assemble12(t, src, true)
	for _, c := range []struct {
		f    fp.Format
		lo   int
		name string
	}{{fp.E4M3FN, 3, "fp8"}, {fp.E5M2, 5, "bf8"}} {
		for base := 0; base < 256; base += 64 {
			w, _ := newWave12(t, prog, true)
			w.SetExec(^uint64(0))
			for l := 0; l < 64; l++ {
				w.V[1][l] = math.Float32bits(c.f.Decode(uint8(base + l)))
				w.V[2][l] = math.Float32bits(c.f.Decode(uint8(255 - base - l)))
				for r := 3; r <= 6; r++ {
					w.V[r][l] = 0xa5a5a5a5
				}
			}
			run(t, w)
			for l := 0; l < 64; l++ {
				a, b := uint32(base+l), uint32(255-base-l)
				if isNaN8(c.f, uint8(a)) || isNaN8(c.f, uint8(b)) {
					continue
				}
				p := a | b<<8
				if got, want := w.V[c.lo][l], 0xa5a50000|p; got != want {
					t.Fatalf("v_cvt_pk_%s_f32 codes %#x %#x: %#08x, want %#08x", c.name, a, b, got, want)
				}
				if got, want := w.V[c.lo+1][l], p<<16|0xa5a5; got != want {
					t.Fatalf("v_cvt_pk_%s_f32 op_sel:[0,0,1] codes %#x %#x: %#08x, want %#08x", c.name, a, b, got, want)
				}
			}
		}
	}
	w, _ := newWave12(t, prog, true)
	w.SetExec(^uint64(0))
	for l := 0; l < 64; l++ {
		w.V[1][l], w.V[2][l] = math.Float32bits(448), math.Float32bits(57344)
	}
	run(t, w)
	if got := w.V[3][0] & 0xffff; got&0xff != 0x7e {
		t.Errorf("448 as fp8: %#x, want 0x7e (OCP E4M3FN)", got&0xff)
	}
	if got := w.V[5][0] >> 8 & 0xff; got != 0x7b {
		t.Errorf("57344 as bf8: %#x, want 0x7b (E5M2)", got)
	}
}

func isNaN8(f fp.Format, c uint8) bool { return math.IsNaN(float64(f.Decode(c))) }
