package rules

import (
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// The subroutine form of the FP8 MFMA rule (issue 15: in the aiter FP8
// GEMMs each distinct FP8 MFMA, encoding and block shape alike, occurs in
// the main loop and again in its tail, and its inline expansion is
// 100-200 bytes). The key is the guest encoding and the shape, so the
// body is the inline expansion itself, on the guest's own registers, with
// its scratch registers (the A and B copy pairs, the clearing temporary
// and the constant register) taken from the fixed VGPRs; a use is just
// the s_call_b64. The body computes exactly what the inline expansion
// computes, so the results are identical. Expansions shorter than
// fp8SharedMin bytes stay inline: two calls and the return cost about as
// much as a second copy (a chained MFMA whose operands are already
// cleared is 8 bytes, the host MFMA alone).

// fp8SharedMin is the shortest expansion worth a body.
const fp8SharedMin = 32

// fp8SharedHeadMin is the shortest head worth a call of its own (each
// use pays a call and the head a return; a clearing of two registers).
const fp8SharedHeadMin = 64

// fp8SharedRegs are the scratch registers of one body.
type fp8SharedRegs struct {
	ta, tb, u, k uint16
	spare        uint16
	hasSpare     bool
	used         []uint16
}

// fp8SharedForm returns the Shared form of the FP8 MFMA rule in shape sh.
func fp8SharedForm(sh FP8MFMAShape) *Shared {
	form := func(r fp8SharedRegs) FP8MFMAForm {
		return FP8MFMAForm{K: int(r.k), ScaledIn: sh.ScaledIn, ScaledOut: sh.ScaledOut, A: sh.A, B: sh.B, TailFree: sh.TailFree, Ahead: sh.Ahead, DScratch: sh.DScratch, Spare: r.spare, HasSpare: r.hasSpare}
	}
	headCode := func(in *isa.Inst, raw []byte, r fp8SharedRegs) ([]byte, int, error) {
		m, ok := fp8MFMA[in.Name()]
		if !ok || len(raw) != 8 {
			return nil, 0, fieldErr(in, "shape", uint32(len(raw)))
		}
		w := words(raw)
		return fp8MFMAFormCode(w[0], w[1], m.op, m.cd, m.parts, r.ta, r.tb, r.u, form(r))
	}
	code := func(in *isa.Inst, raw []byte, r fp8SharedRegs) ([]byte, error) {
		c, _, err := headCode(in, raw, r)
		return c, err
	}
	layout := func(regs SharedRegs) (fp8SharedRegs, error) {
		var r fp8SharedRegs
		p := newRegPool(regs.V)
		var err error
		if r.ta, err = p.run(2, 2); err != nil {
			return r, err
		}
		if r.tb, err = p.run(2, 2); err != nil {
			return r, err
		}
		if err := p.ones(&r.u, &r.k); err != nil {
			return r, err
		}
		if len(p.free) > 0 && p.ones(&r.spare) == nil {
			r.hasSpare = true
		}
		r.used = p.used
		return r, nil
	}
	keys := &fp8KeyCache{m: map[fp8KeyIn]fp8KeyOut{}}
	return &Shared{
		Key: func(in *isa.Inst, raw []byte) (string, bool) {
			ki := fp8KeyIn{name: in.Name(), n: len(raw)}
			copy(ki.raw[:], raw)
			cacheable := len(raw) <= len(ki.raw)
			if cacheable {
				if ko, ok := keys.get(ki); ok {
					return ko.key, ko.ok
				}
			}
			// The length does not depend on which registers are scratch.
			var ko fp8KeyOut
			c, err := code(in, raw, fp8SharedRegs{ta: 0, tb: 2, u: 4, k: 5, spare: 6, hasSpare: true})
			if err == nil && len(c) >= fp8SharedMin {
				ko = fp8KeyOut{key: fmt.Sprintf("mfma-fp8/%s/%s", hex.EncodeToString(raw), sh.key()), ok: true}
			}
			if cacheable {
				keys.put(ki, ko)
			}
			return ko.key, ko.ok
		},
		Site: func(in *isa.Inst, raw []byte, regs SharedRegs) (SharedSite, error) {
			r, err := layout(regs)
			if err != nil {
				return SharedSite{}, err
			}
			if _, err := code(in, raw, r); err != nil {
				return SharedSite{}, err
			}
			return SharedSite{Used: r.used}, nil
		},
		Body: func(in *isa.Inst, raw []byte, regs SharedRegs) ([]byte, error) {
			r, err := layout(regs)
			if err != nil {
				return nil, err
			}
			return code(in, raw, r)
		},
		Tail: func(in *isa.Inst, raw []byte, regs SharedRegs) int {
			// The scaling of D by 4 after the last host MFMA: equal in
			// the bodies of every FP8 MFMA with the same D and shape.
			m, ok := fp8MFMA[in.Name()]
			if !ok || len(raw) != 8 || sh.ScaledOut {
				return 0
			}
			r, err := layout(regs)
			if err != nil {
				return 0
			}
			w0 := words(raw)[0]
			return 4 * len(fp8ScaleOut(uint16(w0&0xff), m.cd, w0>>15&1 != 0, r.u, sh.TailFree))
		},
		Head: func(in *isa.Inst, raw []byte, regs SharedRegs) int {
			// The -0 clearing in place (and the scaling of C before
			// it): the same for every FP8 MFMA that clears the same
			// registers first (in the aiter FP8 GEMMs, the MFMAs of
			// the loop's two halves that read a register group just
			// loaded). It writes only the registers it clears and the
			// scratch ones, which the rest reads as it left them; a
			// return and a call between them only add wait states.
			r, err := layout(regs)
			if err != nil {
				return 0
			}
			_, n, err := headCode(in, raw, r)
			if err != nil || n < fp8SharedHeadMin {
				return 0
			}
			return n
		},
		Names: func(in *isa.Inst, raw []byte) ([]uint16, bool) {
			names, ok := fp8SharedNames(in, raw)
			for _, g := range sh.Ahead {
				for i := uint16(0); i < uint16(g.N); i++ {
					r := g.Reg + i
					if g.AGPR {
						r += 256
					}
					names = append(names, r)
				}
			}
			return names, ok
		},
	}
}

// fp8KeyCache remembers a shaped rule's subroutine keys by instruction
// (the key depends only on the operation and the encoding), up to
// fp8KeyCacheMax of them; the translator asks for a use's key several
// times while planning.
type fp8KeyCache struct {
	sync.Mutex
	m map[fp8KeyIn]fp8KeyOut
}

// fp8KeyCacheMax bounds a cache (distinct FP8 MFMA encodings of one
// shape; the aiter objects have a few hundred).
const fp8KeyCacheMax = 4096

// fp8KeyIn is what a key is computed from: the mnemonic and the
// instruction's bytes (n of them).
type fp8KeyIn struct {
	name string
	raw  [8]byte
	n    int
}

// fp8KeyOut is a computed key.
type fp8KeyOut struct {
	key string
	ok  bool
}

func (c *fp8KeyCache) get(k fp8KeyIn) (fp8KeyOut, bool) {
	c.Lock()
	defer c.Unlock()
	o, ok := c.m[k]
	return o, ok
}

func (c *fp8KeyCache) put(k fp8KeyIn, o fp8KeyOut) {
	c.Lock()
	defer c.Unlock()
	if len(c.m) < fp8KeyCacheMax {
		c.m[k] = o
	}
}

// fp8SharedNames lists the guest registers an FP8 MFMA reads or writes
// (AGPRs as 256+a): A and B (two per part), C and D.
func fp8SharedNames(in *isa.Inst, raw []byte) ([]uint16, bool) {
	m, ok := fp8MFMA[in.Name()]
	if !ok || len(raw) != 8 {
		return nil, false
	}
	w := words(raw)
	w0, w1 := w[0], w[1]
	var out []uint16
	span := func(first uint32, n int, acc bool) bool {
		if first+uint32(n) > 256 {
			return false
		}
		for i := 0; i < n; i++ {
			r := uint16(first) + uint16(i)
			if acc {
				r += 256
			}
			out = append(out, r)
		}
		return true
	}
	src0, src1, src2 := w1&0x1ff, w1>>9&0x1ff, w1>>18&0x1ff
	if src0 < srcVGPR || src1 < srcVGPR {
		return nil, false
	}
	accCD := w0>>15&1 != 0
	ok = span(src0-srcVGPR, 2*m.parts, w1>>27&1 != 0) && span(src1-srcVGPR, 2*m.parts, w1>>28&1 != 0) && span(w0&0xff, m.cd, accCD)
	if ok && src2 >= srcVGPR {
		ok = span(src2-srcVGPR, m.cd, accCD)
	}
	return out, ok
}
