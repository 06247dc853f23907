package wave

import (
	"fmt"
	"math"
	"strings"
	"sync"
)

// gfx12 typed VBUFFER: buffer_{load,store}[_d16[_hi]]_format_* take the
// unified FORMAT of the V# (w3[17:12]), tbuffer_* the FORMAT field of the
// instruction. The unified format table (the gfx11/gfx12 one, the same ids
// dbt/isa/gfx12 prints as format:[BUF_FMT_...]) lists, per id, the
// component widths and the numeric format. Loads convert each component to
// 32 bits (UNORM/SNORM/SCALED/FLOAT formats to f32, UINT/SINT zero/sign
// extended); components the format lacks read 0, and W reads 1 (1.0 for
// the float-valued formats). d16 loads write f16 halves (16-bit integers
// for UINT/SINT; 16_FLOAT bits unchanged), two per register. Stores convert back (UNORM/SNORM clamp
// and round to nearest even, SCALED convert to integers with saturation,
// UINT/SINT keep the low bits) and write only the components the
// instruction carries. The V#'s DST_SEL is not applied. The packed formats
// (10_11_11, 11_11_10, 10_10_10_2, 2_10_10_10; ids 30-41), INVALID (0)
// and ids above 63 fault as unsupported.

// numFmt12 is the numeric format of a unified buffer format.
type numFmt12 uint8

const (
	nfUnorm numFmt12 = iota
	nfSnorm
	nfUscaled
	nfSscaled
	nfUint
	nfSint
	nfFloat
)

// bufFmt12 is one unified buffer format: n components of bits each.
type bufFmt12 struct {
	name string
	n    int
	bits int
	num  numFmt12
}

// bufFormats12 is the unified format table, indexed by FORMAT; entries with
// n == 0 are unsupported. Built on first use; every call returns the same
// table.
var bufFormats12 = sync.OnceValue(func() *[64]bufFmt12 {
	names := []string{1: "8_UNORM", "8_SNORM", "8_USCALED", "8_SSCALED", "8_UINT", "8_SINT",
		"16_UNORM", "16_SNORM", "16_USCALED", "16_SSCALED", "16_UINT", "16_SINT", "16_FLOAT",
		"8_8_UNORM", "8_8_SNORM", "8_8_USCALED", "8_8_SSCALED", "8_8_UINT", "8_8_SINT",
		"32_UINT", "32_SINT", "32_FLOAT",
		"16_16_UNORM", "16_16_SNORM", "16_16_USCALED", "16_16_SSCALED", "16_16_UINT", "16_16_SINT", "16_16_FLOAT",
		"10_11_11_FLOAT", "11_11_10_FLOAT",
		"10_10_10_2_UNORM", "10_10_10_2_SNORM", "10_10_10_2_UINT", "10_10_10_2_SINT",
		"2_10_10_10_UNORM", "2_10_10_10_SNORM", "2_10_10_10_USCALED", "2_10_10_10_SSCALED", "2_10_10_10_UINT", "2_10_10_10_SINT",
		"8_8_8_8_UNORM", "8_8_8_8_SNORM", "8_8_8_8_USCALED", "8_8_8_8_SSCALED", "8_8_8_8_UINT", "8_8_8_8_SINT",
		"32_32_UINT", "32_32_SINT", "32_32_FLOAT",
		"16_16_16_16_UNORM", "16_16_16_16_SNORM", "16_16_16_16_USCALED", "16_16_16_16_SSCALED", "16_16_16_16_UINT",
		"16_16_16_16_SINT", "16_16_16_16_FLOAT",
		"32_32_32_UINT", "32_32_32_SINT", "32_32_32_FLOAT",
		"32_32_32_32_UINT", "32_32_32_32_SINT", "32_32_32_32_FLOAT"}
	nums := map[string]numFmt12{"UNORM": nfUnorm, "SNORM": nfSnorm, "USCALED": nfUscaled, "SSCALED": nfSscaled,
		"UINT": nfUint, "SINT": nfSint, "FLOAT": nfFloat}
	var t [64]bufFmt12
	for id, name := range names {
		if name == "" {
			continue
		}
		t[id].name = name
		parts := strings.Split(name, "_")
		bits := parts[0]
		uniform := true
		for _, p := range parts[1 : len(parts)-1] {
			uniform = uniform && p == bits
		}
		if !uniform {
			continue // packed formats: unsupported
		}
		t[id].n = len(parts) - 1
		fmt.Sscan(bits, &t[id].bits)
		t[id].num = nums[parts[len(parts)-1]]
	}
	return &t
})

// bufFormat12 returns the supported format id or an error naming it.
func bufFormat12(id uint32, from string) (bufFmt12, error) {
	if id < 64 && bufFormats12()[id].n != 0 {
		return bufFormats12()[id], nil
	}
	name := "INVALID"
	if id < 64 && bufFormats12()[id].name != "" {
		name = bufFormats12()[id].name
	} else if id >= 64 {
		name = fmt.Sprint(id)
	}
	return bufFmt12{}, fmt.Errorf("buffer format %d (BUF_FMT_%s, from the %s) is not supported", id, name, from)
}

// decode returns component raw (bits wide) as the 32-bit register value.
func (f *bufFmt12) decode(raw uint32) uint32 {
	max := float64(uint64(1)<<f.bits - 1)
	sext := func() int64 { return int64(int32(raw<<(32-f.bits)) >> (32 - f.bits)) }
	switch f.num {
	case nfUnorm:
		return math.Float32bits(float32(float64(raw) / max))
	case nfSnorm:
		return math.Float32bits(float32(math.Max(float64(sext())/float64(uint64(1)<<(f.bits-1)-1), -1)))
	case nfUscaled:
		return math.Float32bits(float32(raw))
	case nfSscaled:
		return math.Float32bits(float32(sext()))
	case nfSint:
		return uint32(sext())
	case nfFloat:
		if f.bits == 16 {
			return math.Float32bits(h2f(raw))
		}
	}
	return raw
}

// one is the value of a W component the format lacks.
func (f *bufFmt12) one() uint32 {
	if f.num == nfUint || f.num == nfSint {
		return 1
	}
	return math.Float32bits(1)
}

// encode converts a 32-bit register value to a raw component.
func (f *bufFmt12) encode(v uint32) uint32 {
	mask := uint32(uint64(1)<<f.bits - 1)
	x := float64(math.Float32frombits(v))
	sat := func(x, lo, hi float64) float64 {
		if x != x {
			return 0
		}
		return math.Max(lo, math.Min(hi, x))
	}
	smax := float64(uint64(1)<<(f.bits-1) - 1)
	switch f.num {
	case nfUnorm:
		return uint32(math.RoundToEven(sat(x, 0, 1)*float64(mask))) & mask
	case nfSnorm:
		return uint32(int64(math.RoundToEven(sat(x, -1, 1)*smax))) & mask
	case nfUscaled:
		return uint32(math.Trunc(sat(x, 0, float64(mask)))) & mask
	case nfSscaled:
		return uint32(int64(math.Trunc(sat(x, -smax-1, smax)))) & mask
	case nfFloat:
		if f.bits == 16 {
			return f2h(float32(x))
		}
	}
	return v & mask
}

// fmtOp12 is a typed buffer access: comps components, d16 (1 low halves,
// 2 the high half of one register), and whether the format comes from the
// instruction (tbuffer).
type fmtOp12 struct {
	comps int
	d16   int
	store bool
	inst  bool
}

// bufferFormatOp12 runs a typed VBUFFER load or store.
func bufferFormatOp12(op fmtOp12) func(*Wave, *Inst) error {
	return func(w *Wave, in *Inst) error {
		r, err := w.vsharp12(in)
		if err != nil {
			return err
		}
		id, from := r.format, "V# word 3"
		if op.inst {
			id, from = uint32(in.Ufmt), "instruction"
		}
		f, err := bufFormat12(id, from)
		if err != nil {
			return err
		}
		cb := f.bits / 8
		esize := uint64(f.n * cb)
		vd := (in.Dst - opVGPR) & 511
		// reg returns the register and half (-1: whole) of component c.
		reg := func(c int) (uint16, int) {
			switch op.d16 {
			case 1:
				return (vd + uint16(c/2)) & 511, c % 2
			case 2:
				return vd, 1
			}
			return (vd + uint16(c)) & 511, -1
		}
		exec := w.Exec()
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			w.Lanes++
			addr, ok := r.lane(w, in, l, esize)
			var b []byte
			if ok {
				n := min(op.comps, f.n) * cb
				if b, err = w.slice(spaceGlobal, addr, l, n, op.store); err != nil {
					return err
				}
			}
			if op.store && !ok {
				continue
			}
			for c := 0; c < op.comps; c++ {
				rr, half := reg(c)
				if op.store {
					if c >= f.n {
						break
					}
					v := w.V[rr][l]
					if half >= 0 {
						v = v >> (16 * half) & 0xffff
						if f.num == nfFloat && f.bits == 16 {
							putComp(b[c*cb:], cb, v)
							continue
						}
						if f.num != nfUint && f.num != nfSint {
							v = math.Float32bits(h2f(v))
						}
					}
					putComp(b[c*cb:], cb, f.encode(v))
					continue
				}
				var v uint32
				switch {
				case ok && c < f.n && half >= 0 && f.num == nfFloat && f.bits == 16:
					v = getComp(b[c*cb:], cb) // f16 to f16: the bits as they are (NaNs too)
				case ok && c < f.n:
					v = f.decode(getComp(b[c*cb:], cb))
					if half >= 0 && f.num != nfUint && f.num != nfSint {
						v = f2h(math.Float32frombits(v))
					}
				case c == 3 && ok:
					v = f.one()
					if half >= 0 && f.num != nfUint && f.num != nfSint {
						v = f2h(1)
					}
				}
				if half < 0 {
					w.V[rr][l] = v
					continue
				}
				sh := 16 * half
				w.V[rr][l] = w.V[rr][l]&^(0xffff<<sh) | v&0xffff<<sh
			}
		}
		return nil
	}
}

// getComp reads a little-endian component of n bytes.
func getComp(b []byte, n int) uint32 {
	switch n {
	case 1:
		return uint32(b[0])
	case 2:
		return uint32(le.Uint16(b))
	}
	return le.Uint32(b)
}

// putComp writes a little-endian component of n bytes.
func putComp(b []byte, n int, v uint32) {
	switch n {
	case 1:
		b[0] = byte(v)
	case 2:
		le.PutUint16(b, uint16(v))
	default:
		le.PutUint32(b, v)
	}
}

func registerGfx12Bufformat() {
	for _, pre := range []string{"buffer", "tbuffer"} {
		for _, dir := range []string{"load", "store"} {
			for _, d16 := range []string{"", "d16_", "d16_hi_"} {
				for n, sfx := range []string{"x", "xy", "xyz", "xyzw"} {
					name := pre + "_" + dir + "_" + d16 + "format_" + sfx
					if d16 == "d16_hi_" && (n > 0 || pre == "tbuffer") {
						continue // only buffer_{load,store}_d16_hi_format_x exist
					}
					op := fmtOp12{comps: n + 1, store: dir == "store", inst: pre == "tbuffer"}
					switch d16 {
					case "d16_":
						op.d16 = 1
					case "d16_hi_":
						op.d16 = 2
					}
					def12(name, bufferFormatOp12(op))
				}
			}
		}
	}
}
