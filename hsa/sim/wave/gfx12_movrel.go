package wave

import "fmt"

// gfx12 M0-relative VGPR moves (the RDNA replacement of gfx9's VGPR
// indexing mode): v_movreld_b32 writes VGPR[vdst + M0] = src0,
// v_movrels_b32 reads vdst = VGPR[src0 + M0] and v_movrelsd_b32 does both,
// in the active lanes. M0 is added whole (32 bits); an address past v255
// faults here (the hardware's out-of-range behaviour is not modelled).
func registerGfx12Movrel() {
	rel := func(name string, w *Wave, code uint16, off uint32) (uint16, error) {
		r := uint32(code-opVGPR) + off
		if code < opVGPR || r > 255 {
			return 0, fmt.Errorf("%s: VGPR %d + M0 %d is past v255", name, code-opVGPR, off)
		}
		return opVGPR + uint16(r), nil
	}
	for _, c := range []struct {
		name     string
		src, dst bool // which operand M0 offsets
	}{{"v_movreld_b32", false, true}, {"v_movrels_b32", true, false}, {"v_movrelsd_b32", true, true}} {
		def12(c.name, func(w *Wave, in *Inst) error {
			m0 := w.S[RegM0]
			src, dst := in.Src[0], in.Dst
			var err error
			if c.src {
				if src, err = rel(c.name, w, src, m0); err != nil {
					return err
				}
			}
			if c.dst {
				if dst, err = rel(c.name, w, dst, m0); err != nil {
					return err
				}
			}
			s := *w.vsrc(src, in, kB32, 0)
			d := w.vreg(dst)
			exec := w.Exec()
			for l := 0; l < w.laneCount(); l++ {
				if exec>>l&1 != 0 {
					d[l] = s[l]
				}
			}
			return nil
		})
	}
}
