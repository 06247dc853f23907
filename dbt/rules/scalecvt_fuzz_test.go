package rules

import (
	"encoding/binary"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/hsa/sim/mem"
	simwave "github.com/rocjitsu/rocjitsu/hsa/sim/wave"
	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
)

// scaleCvtFuzzOps are the VOP3 opcodes of the scaled conversions with
// rules (index by the fuzzed selector).
var scaleCvtFuzzOps = []uint32{0x23d, 0x235, 0x236, 0x241, 0x245, 0x23f, 0x239, 0x23a, 0x23b, 0x23c, 0x248, 0x249, 0x250, 0x251, 0x269, 0x26a, 0x24c, 0x24d, 0x240, 0x244}

// runScaleCvtWave runs code (s_endpgm appended) on one simulated wave of
// target with v1..v3 set per lane from x, y, s and v4/v5 from old.
func runScaleCvtWave(t *testing.T, target simwave.Target, code []byte, x, y, s, old [64]uint32) *simwave.Wave {
	m := mem.New()
	code = binary.LittleEndian.AppendUint32(code, 0xbf810000)
	addr, err := m.Alloc(uint64(len(code)+64), 256)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Write(addr, code); err != nil {
		t.Fatal(err)
	}
	w := &simwave.Wave{}
	w.Reset(simwave.NewProgram(m, target), m, &simwave.Group{LDS: make([]byte, 4096)}, target, addr, 256, 256)
	w.SetExec(^uint64(0))
	w.V[1], w.V[2], w.V[3], w.V[4], w.V[5] = x, y, s, old, old
	if err := w.Run(100000); err != nil {
		t.Fatalf("%v: %v", target, err)
	}
	return w
}

type fuzzCtx struct{ next uint16 }

func (c *fuzzCtx) TempVGPRs(n int) ([]uint16, error) {
	out := make([]uint16, n)
	for i := range out {
		out[i] = c.next
		c.next++
	}
	return out, nil
}

func (c *fuzzCtx) TempVGPRRange(n, align int) (uint16, error) {
	for int(c.next)%align != 0 {
		c.next++
	}
	r := c.next
	c.next += uint16(n)
	return r, nil
}

func (c *fuzzCtx) TempSGPRPair() (uint16, error) { return 40, nil }

// FuzzScaleCvtCode is a differential fuzz of the scaled-conversion rules:
// a fuzzed gfx950 instruction (opcode from the table, fuzzed op_sel and
// modifier bits, sources v1..v3, destination v4) runs on a simulated gfx950
// wave, and, when its rule accepts the fields, the rule's gfx942 code runs
// on a simulated gfx942 wave; lanes hold the fuzzed values and their
// neighbours (x+lane*0x11111111, y^lane<<k, s+lane<<23). Results must match, NaN payloads aside.
func FuzzScaleCvtCode(f *testing.F) {
	f.Add(uint8(0), uint8(0), uint32(0x3fc00000), uint32(0x40a00000), uint32(127<<23))   // pk_fp4_f32 1.5, 5 (tie)
	f.Add(uint8(0), uint8(0xc), uint32(0x7fc00000), uint32(0xff800000), uint32(126<<23)) // NaN, -inf, byte 3
	f.Add(uint8(1), uint8(8), uint32(0x43e00000), uint32(0x80000001), uint32(0))         // pk_fp8_f32 448, -denormal, scale 2^-127
	f.Add(uint8(5), uint8(3), uint32(0x9abcdef0), uint32(0), uint32(0x3f800000))         // pk_f32_fp4 byte 3
	f.Add(uint8(14), uint8(1), uint32(0x7f7e0180), uint32(0), uint32(254<<23))           // pk_bf16_fp8 NaN codes, huge scale
	f.Add(uint8(16), uint8(4), uint32(0x3c00bc00), uint32(0), uint32(125<<23))           // pk_fp4_f16
	f.Add(uint8(2), uint8(8), uint32(0x477fe000), uint32(0x7fc00001), uint32(128<<23))   // pk_bf8_f32 near 65536, NaN, byte pair 1
	f.Fuzz(func(t *testing.T, sel, opsel uint8, x, y, s uint32) {
		fuzzguard.RunArgs(t, []any{sel, opsel, x, y, s}, func() {
			op := scaleCvtFuzzOps[int(sel)%len(scaleCvtFuzzOps)]
			mods := uint32(sel>>5) & 3 // abs/neg bits for the f32 sources
			w0 := 0xd2000000 | op<<16 | uint32(opsel&0xf)<<11 | mods<<8 | 4
			w1 := uint32(257) | 258<<9 | 259<<18 | mods<<29
			raw := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, w0), w1)
			in, err := gfx9.Decode(raw, 0, isa.GFX950)
			if err != nil {
				return
			}
			r := ForInst(isa.GFX950, isa.GFX942, &in)
			if r == nil {
				t.Fatalf("%s has no rule", in.Name())
			}
			host, err := r.Emit(&fuzzCtx{next: 20}, &in, raw)
			if err != nil {
				return // fields the rule rejects (fail closed)
			}
			var xs, ys, ss, old [64]uint32
			for l := uint32(0); l < 64; l++ {
				xs[l], ys[l], ss[l], old[l] = x+l*0x11111111, y^l<<(l%24), s+l<<23, 0x5a5a5a5a*l
			}
			gw := runScaleCvtWave(t, simwave.GFX950, raw, xs, ys, ss, old)
			hw := runScaleCvtWave(t, simwave.GFX942, host, xs, ys, ss, old)
			for l := 0; l < 64; l++ {
				for _, v := range []int{4, 5} {
					g, h := gw.V[v][l], hw.V[v][l]
					if g != h && !nanBytes(g, h) {
						t.Fatalf("%s (op_sel %#x) lane %d v%d: gfx950 %#x, translation %#x (x %#x y %#x s %#x)", in.Name(), opsel&0xf, l, v, g, h, xs[l], ys[l], ss[l])
					}
				}
			}
		})
	})
}

// nanBytes reports whether g and h differ only where both hold NaNs: f32,
// both halves as f16 or bf16, or bytes as E4M3 or E5M2.
func nanBytes(g, h uint32) bool {
	f32nan := func(u uint32) bool { return u&0x7f800000 == 0x7f800000 && u&0x7fffff != 0 }
	if f32nan(g) && f32nan(h) {
		return true
	}
	half := func(u uint32) bool {
		return u&0x7c00 == 0x7c00 && u&0x3ff != 0 || u&0x7f80 == 0x7f80 && u&0x7f != 0
	}
	ok := true
	for _, sh := range []uint{0, 16} {
		a, b := g>>sh&0xffff, h>>sh&0xffff
		if a != b && !(half(a) && half(b)) {
			ok = false
		}
	}
	if ok {
		return true
	}
	for b := 0; b < 4; b++ {
		a, c := uint8(g>>(8*b)), uint8(h>>(8*b))
		if a != c && !(a&0x7f == 0x7f && c&0x7f == 0x7f || a&0x7f > 0x7c && c&0x7f > 0x7c) {
			return false
		}
	}
	return true
}
