package rules

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/bitop3"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/mfma"
	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
)

// disasm decodes host code with llvm-mc-19 --disassemble for gfx942 and
// returns one line per instruction.
func disasm(t *testing.T, code []byte) []string {
	t.Helper()
	mc := llvmtool.Require(t, llvmtool.MC)
	var in strings.Builder
	for _, b := range code {
		fmt.Fprintf(&in, "0x%02x ", b)
	}
	cmd := exec.Command(mc, "--disassemble", "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942")
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "invalid") || strings.Contains(string(out), "warning") {
		t.Fatalf("llvm-mc --disassemble: %v\n%s", err, out)
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, ".") {
			continue
		}
		lines = append(lines, l)
	}
	return lines
}

// machine interprets the VOP3 bit operations rules emit (one lane; every
// register is a 32-bit word). It is the reference the expansions are
// checked against.
type machine struct {
	v [256]uint32
	s [106]uint32
}

func (m *machine) src(code uint32) uint32 {
	switch {
	case code >= 256:
		return m.v[code-256]
	case code < 106:
		return m.s[code]
	case code >= 128 && code <= 192:
		return code - 128
	case code >= 193 && code <= 208:
		return uint32(int32(192 - int32(code)))
	case code == srcHalf:
		return math.Float32bits(0.5)
	}
	panic(fmt.Sprintf("source code %d", code))
}

func (m *machine) run(t *testing.T, code []byte) {
	w := func(i int) uint32 { return binary.LittleEndian.Uint32(code[i:]) }
	for i := 0; i < len(code); {
		w0 := w(i)
		if w0>>26 == 0x34 { // VOP3
			w1 := w(i + 4)
			i += 8
			s0, s1, s2 := w1&0x1ff, w1>>9&0x1ff, w1>>18&0x1ff
			a, b := m.src(s0), m.src(s1)
			var r uint32
			switch op := w0 >> 16 & 0x3ff; op {
			case op3LshlrevB32:
				r = b << (a & 31)
			case op3LshrrevB32:
				r = b >> (a & 31)
			case op3MulF32:
				if w0>>8&1 != 0 {
					a &^= 1 << 31
				}
				if w0>>9&1 != 0 {
					b &^= 1 << 31
				}
				r = math.Float32bits(math.Float32frombits(a) * math.Float32frombits(b))
			case op3CvtPkFP8F32: // gfx942: FNUZ, low half written, high half kept
				lo := uint32(fp.E4M3FNUZ.Encode(math.Float32frombits(a), false)) | uint32(fp.E4M3FNUZ.Encode(math.Float32frombits(b), false))<<8
				r = m.v[w0&0xff]&0xffff0000 | lo
			case opMovB32:
				r = a
			case opNotB32:
				r = ^a
			case opAndB32:
				r = a & b
			case opOrB32:
				r = a | b
			case opXorB32:
				r = a ^ b
			case opBfiB32:
				r = a&b | ^a&m.src(s2)
			case op3BfeU32:
				r = a >> (b & 31) & (1<<(m.src(s2)&31) - 1)
			case op3Add3U32:
				r = a + b + m.src(s2)
			case op3PermB32: // byte selects 0-7 only
				src, sel := uint64(a)<<32|uint64(b), m.src(s2)
				for k := 0; k < 4; k++ {
					c := sel >> (8 * k) & 0xff
					if c > 7 {
						t.Fatalf("v_perm_b32 selector %#x", sel)
					}
					r |= uint32(src>>(8*c)&0xff) << (8 * k)
				}
			case op3BfeI32:
				n := m.src(s2) & 31
				r = uint32(int32(a>>(b&31)<<(32-n)) >> (32 - n))
			case op3CndmaskB32:
				r = a
				if m.s[s2]&1 != 0 {
					r = b
				}
			case op3CmpUF32:
				fa, fb := math.Float32frombits(a), math.Float32frombits(b)
				m.s[w0&0x7f], m.s[w0&0x7f+1] = 0, 0
				if fa != fa || fb != fb {
					m.s[w0&0x7f] = 1
				}
				continue
			default:
				t.Fatalf("unexpected VOP3 opcode %#x", op)
			}
			m.v[w0&0xff] = r
			continue
		}
		if w0>>28 == 0xb && w0>>23&0x1f == 0 { // s_movk_i32
			i += 4
			m.s[w0>>16&0x7f] = uint32(int32(int16(w0)))
			continue
		}
		if w0&^(0x7f<<16) == 0xbe8000ff { // s_mov_b32 sdst, literal
			m.s[w0>>16&0x7f] = w(i + 4)
			i += 8
			continue
		}
		if w0>>25 == 0x3f { // VOP1
			i += 4
			var a uint32
			if w0&0x1ff == srcLit {
				a = binary.LittleEndian.Uint32(code[i:])
				i += 4
			} else {
				a = m.src(w0 & 0x1ff)
			}
			var r uint32
			switch op := w0 >> 9 & 0xff; op {
			case op1CvtF32FP8:
				r = math.Float32bits(fp.E4M3FNUZ.Decode(uint8(a)))
			case op1CvtF32BF8:
				r = math.Float32bits(fp.E5M2FNUZ.Decode(uint8(a)))
			case op1MovB32:
				r = a
			default:
				t.Fatalf("unexpected VOP1 opcode %#x", op)
			}
			m.v[w0>>17&0xff] = r
			continue
		}
		if w0>>31 != 0 {
			t.Fatalf("unexpected word %#x", w0)
		}
		i += 4
		var a uint32
		if w0&0x1ff == srcLit {
			a = w(i)
			i += 4
		} else {
			a = m.src(w0 & 0x1ff)
		}
		b := m.v[w0>>9&0xff]
		var r uint32
		switch op := w0 >> 25 & 0x3f; op {
		case op2LshlrevB32:
			r = b << (a & 31)
		case op2LshrrevB32:
			r = b >> (a & 31)
		case op2AndB32:
			r = a & b
		case op2OrB32:
			r = a | b
		case op2AddU32:
			r = a + b
		case op2SubU32:
			r = a - b
		case op2AddF32:
			r = math.Float32bits(math.Float32frombits(a) + math.Float32frombits(b))
		case op2MulU32U24:
			r = (a & 0xffffff) * (b & 0xffffff)
		default:
			t.Fatalf("unexpected VOP2 opcode %#x", op)
		}
		m.v[w0>>17&0xff] = r
	}
}

// TestBitop3AllTables runs the emitted host code of every truth table, in
// several operand configurations (distinct VGPRs, destination aliasing a
// source, an SGPR source, an inline constant), against Eval.
func TestBitop3AllTables(t *testing.T) {
	type cfg struct {
		vdst uint16
		src  [3]uint16
	}
	cfgs := []cfg{
		{5, [3]uint16{256 + 1, 256 + 2, 256 + 3}},
		{1, [3]uint16{256 + 1, 256 + 2, 256 + 3}},
		{3, [3]uint16{256 + 1, 256 + 2, 256 + 3}},
		{7, [3]uint16{256 + 7, 256 + 7, 256 + 2}},
		{5, [3]uint16{256 + 1, 256 + 2, 3}},
		{5, [3]uint16{9, 256 + 2, 256 + 5}},
		{6, [3]uint16{256 + 1, 200, 256 + 2}}, // -8
	}
	r := rand.New(rand.NewPCG(3, 4))
	for lut := 0; lut < 256; lut++ {
		for _, c := range cfgs {
			n := Bitop3Temps(uint8(lut), c.vdst, c.src)
			temps := []uint16{100, 101}[:n]
			code, err := Bitop3Code(uint8(lut), c.vdst, c.src, temps)
			if err != nil {
				t.Fatalf("lut %#x: %v", lut, err)
			}
			for trial := 0; trial < 8; trial++ {
				var m machine
				for i := range m.v {
					m.v[i] = r.Uint32()
				}
				for i := range m.s {
					m.s[i] = r.Uint32()
				}
				if trial == 0 {
					m.v[1], m.v[2], m.v[3] = 0xf0f0f0f0, 0xcccccccc, 0xaaaaaaaa
				}
				a, b, cc := m.src(uint32(c.src[0])), m.src(uint32(c.src[1])), m.src(uint32(c.src[2]))
				want := bitop3.Eval(uint8(lut), a, b, cc)
				before := m
				m.run(t, code)
				if m.v[c.vdst] != want {
					t.Fatalf("lut %#x cfg %+v: got %#x want %#x", lut, c, m.v[c.vdst], want)
				}
				// Only vdst and the temporaries may change.
				for i := range m.v {
					if m.v[i] != before.v[i] && uint16(i) != c.vdst && !(len(temps) > 0 && uint16(i) == temps[0]) && !(len(temps) > 1 && uint16(i) == temps[1]) {
						t.Fatalf("lut %#x cfg %+v: clobbered v%d", lut, c, i)
					}
				}
			}
		}
	}
}

// TestBitop3CodeDisassembles checks the host words of every table are
// valid gfx942 instructions.
func TestBitop3CodeDisassembles(t *testing.T) {
	var all []byte
	count := 0
	for lut := 0; lut < 256; lut++ {
		src := [3]uint16{256 + 1, 256 + 2, 3}
		code, err := Bitop3Code(uint8(lut), 5, src, []uint16{100, 101})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, code...)
		count += len(code) / 8
	}
	lines := disasm(t, all)
	if len(lines) != count {
		t.Fatalf("llvm-mc decoded %d instructions, want %d", len(lines), count)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "v_") {
			t.Fatalf("unexpected line %q", l)
		}
	}
}

func TestMFMASplitDisassembles(t *testing.T) {
	want := map[string][]string{
		"v_mfma_f32_16x16x32_f16":  {"v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[8:9], v[12:15]", "v_mfma_f32_16x16x16_f16 v[0:3], v[6:7], v[10:11], v[0:3]"},
		"v_mfma_f32_32x32x16_bf16": {"v_mfma_f32_32x32x8_bf16 v[0:15], v[20:21], v[24:25], v[12:27]", "v_mfma_f32_32x32x8_bf16 v[0:15], v[22:23], v[26:27], v[0:15]"},
		"v_mfma_i32_16x16x64_i8":   {"v_mfma_i32_16x16x32_i8 v[0:3], v[4:5], v[8:9], v[12:15]", "v_mfma_i32_16x16x32_i8 v[0:3], v[6:7], v[10:11], v[0:3]"},
	}
	for guest, lines := range want {
		s, ok := mfma.Lookup(guest)
		if !ok {
			t.Fatalf("no split for %s", guest)
		}
		a, b, c := uint32(4), uint32(8), uint32(12)
		if s.M == 32 {
			a, b = 20, 24
		}
		w0 := uint32(0xd3800000)
		w1 := (256 + a) | (256+b)<<9 | (256+c)<<18
		code, err := MFMASplitCode(s, w0, w1)
		if err != nil {
			t.Fatal(err)
		}
		got := disasm(t, code)
		for i := range lines {
			if i >= len(got) || !strings.HasPrefix(got[i], lines[i]) {
				t.Fatalf("%s: got %q, want %q", guest, got, lines)
			}
		}
	}
	// Accumulator in AGPRs, operands in AGPRs: the acc bits survive.
	s, _ := mfma.Lookup("v_mfma_f32_16x16x32_f16")
	code, err := MFMASplitCode(s, 0xd3808000, (256+4)|(256+8)<<9|(256+0)<<18|3<<27)
	if err != nil {
		t.Fatal(err)
	}
	got := disasm(t, code)
	if !strings.HasPrefix(got[1], "v_mfma_f32_16x16x16_f16 a[0:3], a[6:7], a[10:11], a[0:3]") {
		t.Fatalf("AGPR split: %q", got)
	}
	// D overlapping a later part's A operand is refused.
	if _, err := MFMASplitCode(s, 0xd3800006, (256+4)|(256+8)<<9|(256+0)<<18); err == nil {
		t.Fatal("overlap accepted")
	}
	// Broadcast controls are refused.
	if _, err := MFMASplitCode(s, 0xd3800100, (256+4)|(256+8)<<9); err == nil {
		t.Fatal("cbsz accepted")
	}
}

func TestRegistry(t *testing.T) {
	if r := For(isa.GFX950, isa.GFX942, "v_bitop3_b32"); r == nil || r.Fidelity != "exact" {
		t.Fatalf("bitop3 rule %+v", r)
	}
	if r := For(isa.GFX950, isa.GFX942, "v_mfma_f32_32x32x16_f16"); r == nil || r.Fidelity != "approximate" || r.Bound == "" {
		t.Fatalf("mfma rule %+v", r)
	}
	if r := For(isa.GFX950, isa.GFX942, "v_mfma_i32_32x32x32_i8"); r == nil || r.Fidelity != "exact" {
		t.Fatalf("int mfma rule %+v", r)
	}
	if For(isa.GFX950, isa.GFX942, "v_prng_b32") != nil {
		t.Fatal("unexpected rule")
	}
	if len(All(isa.GFX950, isa.GFX942)) < 3 {
		t.Fatal("rules missing from All")
	}
}

// bf16Inputs covers zeros, denormals, rounding ties (even and odd), the
// largest finite values, infinities, quiet and signalling NaNs and random
// bit patterns.
func bf16Inputs() []uint32 {
	in := []uint32{0, 0x80000000, 1, 0x807fffff, 0x3f808000, 0x3f818000, 0x3f808001, 0x3f80ffff,
		0x7f7fffff, 0xff7fffff, 0x7f7f8000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001,
		0x7f800001, 0x7fffffff, 0xff800001, 0x3f800000, 0x40490fdb}
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 2000; i++ {
		in = append(in, r.Uint32())
	}
	return in
}

func TestBF16ReferenceMatchesSimulator(t *testing.T) {
	for _, x := range bf16Inputs() {
		f := math.Float32frombits(x)
		if f != f {
			if got := BF16(x); got&0x7fc0 != 0x7fc0 || got>>15 != uint16(x>>31) {
				t.Fatalf("BF16(%#x) = %#x: not a quiet NaN of the same sign", x, got)
			}
			continue
		}
		if got, want := BF16(x), fp.F32ToBF16(f); got != want {
			t.Fatalf("BF16(%#x) = %#x, simulator's F32ToBF16 = %#x", x, got, want)
		}
	}
}

// TestCvtPkBF16Expansion runs the emitted host code on every input pair
// shape (VGPR and SGPR sources, destination aliasing a source).
func TestCvtPkBF16Expansion(t *testing.T) {
	in := bf16Inputs()
	cfgs := []struct{ vdst, s0, s1 uint16 }{
		{5, 256 + 1, 256 + 2},
		{1, 256 + 1, 256 + 2},
		{2, 256 + 1, 256 + 2},
		{5, 7, 256 + 2},
		{5, 256 + 1, 7},
		{5, srcHalf, 256 + 2},
		{2, 256 + 2, 256 + 2},
		{5, 256 + 1, 256 + 1},
	}
	for _, c := range cfgs {
		code := CvtPkBF16Code(c.vdst, c.s0, c.s1, 100, 101, 102, 40)
		for i := 0; i+1 < len(in); i++ {
			var m machine
			m.v[1], m.v[2], m.s[7] = in[i], in[i+1], in[i+1]
			x0, x1 := m.src(uint32(c.s0)), m.src(uint32(c.s1))
			m.run(t, code)
			want := uint32(BF16(x0)) | uint32(BF16(x1))<<16
			if m.v[c.vdst] != want {
				t.Fatalf("cfg %+v inputs %#x %#x: got %#x want %#x", c, x0, x1, m.v[c.vdst], want)
			}
		}
	}
	lines := disasm(t, CvtPkBF16Code(5, 7, 256+2, 100, 101, 102, 40))
	if len(lines) != 15 { // 13, and two more for the SGPR source (one constant-bus read each)
		t.Fatalf("llvm-mc decoded %d instructions: %q", len(lines), lines)
	}
	code := CvtPkBF16Code(5, 256+1, 256+2, 100, 101, 102, 40)
	if lines := disasm(t, code); len(lines) != 13 || len(code) != 100 {
		t.Fatalf("VGPR sources: %d instructions, %d bytes: %q", len(lines), len(code), lines)
	}
}

func TestBufferLoadLDSCode(t *testing.T) {
	// buffer_load_dwordx4 v210, s[16:19], 0 offen offset:32 lds (gfx950).
	code := BufferLoadLDSCode(0xe05d1020, 0x800400d2, 4, 100, 104)
	got := disasm(t, code)
	want := []string{
		"buffer_load_dwordx4 v[100:103], v210, s[16:19], 0 offen offset:32",
		"s_waitcnt vmcnt(0)",
		"v_mbcnt_lo_u32_b32 v104, -1, 0",
		"v_mbcnt_hi_u32_b32 v104, -1, v104",
		"v_lshl_add_u32 v104, v104, 4, m0",
		"ds_write_b128 v104, v[100:103] offset:32",
		"s_waitcnt lgkmcnt(0)",
	}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Fatalf("line %d: got %q want %q", i, got[i], want[i])
		}
	}
	r := ForInst(isa.GFX950, isa.GFX942, &isa.Inst{Info: &isa.OpInfo{Name: "buffer_load_dwordx4"}})
	if r != nil {
		t.Fatal("rule applies to the plain (non-LDS) load")
	}
	r = ForInst(isa.GFX950, isa.GFX942, &isa.Inst{Info: &isa.OpInfo{Name: "buffer_load_dwordx4"}, Mod: isa.Modifiers{LDS: true}})
	if r == nil || r.Name != "buffer-load-lds-wide" {
		t.Fatal("rule missing for the LDS form")
	}
}

// wave is a 64-lane model of the instructions the permlane expansion
// emits.
type wave struct {
	v [256][64]uint32
	a [256][64]uint32
	s [106]uint32
}

func (wv *wave) src(code uint32, l int) uint32 {
	switch {
	case code >= 256:
		return wv.v[code-256][l]
	case code < 106:
		return wv.s[code]
	case code >= 128 && code <= 192:
		return code - 128
	case code == srcOnes:
		return 0xffffffff
	case code == srcF4:
		return math.Float32bits(4)
	}
	panic(fmt.Sprintf("code %d", code))
}

func (wv *wave) run(t *testing.T, code []byte) {
	w := func(i int) uint32 { return binary.LittleEndian.Uint32(code[i:]) }
	for i := 0; i < len(code); {
		w0 := w(i)
		switch {
		case w0>>26 == 0x36: // DS
			w1 := w(i + 4)
			i += 8
			op, off := w0>>17&0xff, w0&0xffff
			addr, data, vdst := w1&0xff, w1>>8&0xff, w1>>24
			var out [64]uint32
			for l := 0; l < 64; l++ {
				switch op {
				case dsOpSwizzle:
					if off != 0x401f {
						t.Fatalf("swizzle offset %#x", off)
					}
					out[l] = wv.v[addr][l&^31|(l&31)^16]
				case dsOpBpermute:
					out[l] = wv.v[data][(wv.v[addr][l]+off)/4%64] // the offset is added; address bits 7:2 pick the lane
				default:
					t.Fatalf("DS op %#x", op)
				}
			}
			wv.v[vdst] = out
		case w0>>23 == 0x17d: // SOP1 s_mov_b32
			i += 4
			v := w0 & 0xff
			var val uint32
			if v == srcLit {
				val = w(i)
				i += 4
			} else {
				val = wv.src(v, 0)
			}
			wv.s[w0>>16&0x7f] = val
		case w0>>23 == 0x17f: // s_waitcnt, s_nop
			i += 4
		case w0>>23 == 0x1a7: // VOP3P: accvgpr moves and MFMA
			w1 := w(i + 4)
			i += 8
			switch op := w0 >> 16 & 0x7f; op {
			case op3PAccRead:
				wv.v[w0&0xff] = wv.a[w1&0x1ff-256]
			case op3PAccWrite:
				wv.a[w0&0xff] = wv.v[w1&0x1ff-256]
			case 0x73: // v_mfma_f32_16x16x32_fp8_fp8, FNUZ (gfx942)
				wv.mfmaFP8(t, w0, w1, fp.E4M3FNUZ, 32)
			default:
				t.Fatalf("VOP3P op %#x", op)
			}
		case w0>>26 == 0x34: // VOP3
			w1 := w(i + 4)
			i += 8
			if w0>>16&0x3ff == op3LshlAddU64 { // 64-bit: VGPR pairs S0, S2 and D
				d, s0, s2, sh := w0&0xff, w1&0x1ff-256, w1>>18&0x1ff-256, wv.src(w1>>9&0x1ff, 0)&7
				for l := 0; l < 64; l++ {
					r := (uint64(wv.v[s0][l])|uint64(wv.v[s0+1][l])<<32)<<sh + (uint64(wv.v[s2][l]) | uint64(wv.v[s2+1][l])<<32)
					wv.v[d][l], wv.v[d+1][l] = uint32(r), uint32(r>>32)
				}
				break
			}
			var out [64]uint32
			for l := 0; l < 64; l++ {
				a, b := wv.src(w1&0x1ff, l), wv.src(w1>>9&0x1ff, l)
				switch op := w0 >> 16 & 0x3ff; op {
				case op3MbcntLo:
					out[l] = b + uint32(bitsCount(uint64(a)&(1<<l-1)&0xffffffff))
				case op3MbcntHi:
					out[l] = b + uint32(bitsCount((uint64(a)<<32)&(1<<l-1)))
				case op3AndOrB32:
					out[l] = a&b | wv.src(w1>>18&0x1ff, l)
				case op3CndmaskB32:
					p := w1 >> 18 & 0x1ff
					mask := uint64(wv.s[p]) | uint64(wv.s[p+1])<<32
					out[l] = a
					if mask>>l&1 != 0 {
						out[l] = b
					}
				default:
					t.Fatalf("VOP3 op %#x", op)
				}
			}
			wv.v[w0&0xff] = out
		case w0>>25 == 0x3f && w0>>9&0xff == 1 && w0&0x1ff == dppSrc: // VOP1 v_mov_b32_dpp
			w1 := w(i + 4)
			i += 8
			if ctrl := w1 >> 8 & 0x1ff; ctrl != 0xe4 || w1>>19&0x1f != 0 {
				t.Fatalf("DPP word %#x: only an identity quad_perm without modifiers is modelled", w1)
			}
			rows, banks := w1>>28, w1>>24&0xf
			for l := 0; l < 64; l++ {
				if rows>>(l>>4)&1 != 0 && banks>>(l>>2&3)&1 != 0 {
					wv.v[w0>>17&0xff][l] = wv.v[w1&0xff][l]
				}
			}
		case w0>>25 == 0x3f && w0>>9&0xff == 1 && w0&0x1ff == srcLit: // VOP1 v_mov_b32 with a literal
			lit := w(i + 4)
			i += 8
			for l := 0; l < 64; l++ {
				wv.v[w0>>17&0xff][l] = lit
			}
		case w0>>25 == 0x3f && w0>>9&0xff == 1: // VOP1 v_mov_b32 of a register or inline constant
			i += 4
			var out [64]uint32
			for l := 0; l < 64; l++ {
				out[l] = wv.src(w0&0x1ff, l)
			}
			wv.v[w0>>17&0xff] = out
		case w0>>31 == 0: // VOP2
			i += 4
			lit, hasLit := uint32(0), w0&0x1ff == srcLit
			if hasLit {
				lit = w(i)
				i += 4
			}
			var out [64]uint32
			for l := 0; l < 64; l++ {
				var a uint32
				if hasLit {
					a = lit
				} else {
					a = wv.src(w0&0x1ff, l)
				}
				b := wv.v[w0>>9&0xff][l]
				switch op := w0 >> 25 & 0x3f; op {
				case op2XorB32:
					out[l] = a ^ b
				case op2LshlrevB32:
					out[l] = b << (a & 31)
				case op2AndB32:
					out[l] = a & b
				case op2OrB32:
					out[l] = a | b
				case op2AddU32:
					out[l] = a + b
				case op2MulF32:
					out[l] = math.Float32bits(math.Float32frombits(a) * math.Float32frombits(b))
				default:
					t.Fatalf("VOP2 op %#x", op)
				}
			}
			wv.v[w0>>17&0xff] = out
		default:
			t.Fatalf("word %#x", w0)
		}
	}
}

func bitsCount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

func TestPermlaneSwapExpansion(t *testing.T) {
	for _, rows := range []int{16, 32} {
		var wv wave
		for l := 0; l < 64; l++ {
			wv.v[3][l] = 0x1000 + uint32(l) // vdst
			wv.v[7][l] = 0x2000 + uint32(l) // vsrc
		}
		want3, want7 := wv.v[3], wv.v[7]
		for l := 0; l < 64; l++ {
			upper := l&rows != 0
			if upper {
				want3[l] = wv.v[7][l-rows]
				want7[l-rows] = wv.v[3][l]
			}
		}
		code := PermlaneSwapCode(rows, 3, 7, 100, 101, 102)
		wv.run(t, code)
		if wv.v[3] != want3 || wv.v[7] != want7 {
			t.Fatalf("permlane%d_swap:\nvdst %x\nwant %x\nvsrc %x\nwant %x", rows, wv.v[3], want3, wv.v[7], want7)
		}
		if len(disasm(t, code)) == 0 {
			t.Fatal("no instructions")
		}
		// A VALU write of EXEC just before the swap needs 5 wait states
		// before the first DPP move.
		states := 0
		for i := 0; i+4 <= len(code); {
			w0 := binary.LittleEndian.Uint32(code[i:])
			if w0>>25 == 0x3f && w0&0x1ff == dppSrc {
				break
			}
			states++
			if w0&^0xf == 0xbf800000 {
				states += int(w0 & 0xf)
			}
			switch {
			case w0>>26 == 0x36, w0>>26 == 0x34:
				i += 8
			default:
				i += 4
			}
		}
		if states < 5 {
			t.Errorf("permlane%d_swap: %d wait states before the first DPP move, want >= 5", rows, states)
		}
	}
}

func TestCvtF32BF16(t *testing.T) {
	for _, c := range []struct {
		src uint16
		hi  bool
	}{{256 + 2, false}, {256 + 2, true}, {7, false}} {
		code, err := CvtF32BF16Code(5, c.src, c.hi)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range bf16Inputs() {
			var m machine
			m.v[2], m.s[7] = x, x
			m.run(t, code)
			h := uint16(x)
			if c.hi {
				h = uint16(x >> 16)
			}
			want := math.Float32bits(fp.BF16ToF32(h))
			if m.v[5] != want && !(math.IsNaN(float64(fp.BF16ToF32(h))) && m.v[5] == uint32(h)<<16) {
				t.Fatalf("src %d hi %v x %#x: got %#x want %#x", c.src, c.hi, x, m.v[5], want)
			}
		}
		if len(disasm(t, code)) != 1 {
			t.Fatal("not one instruction")
		}
	}
	if _, err := CvtF32BF16Code(5, 7, true); err == nil {
		t.Fatal("hi half of an SGPR accepted")
	}
}

// TestCvtF32FP8OCP checks every code in every byte position, for both
// formats, against the simulator's OCP decoders.
func TestCvtF32FP8OCP(t *testing.T) {
	for _, bf8 := range []bool{false, true} {
		ocp := fp.E4M3FN
		if bf8 {
			ocp = fp.E5M2
		}
		for sel := 0; sel < 4; sel++ {
			code := CvtF32FP8OCPCode(bf8, 5, 256+2, sel, 100, 101, 102)
			for c := 0; c < 256; c++ {
				var m machine
				m.v[2] = uint32(c)<<(8*sel) | 0x5a5a5a5a&^(0xff<<(8*sel))
				m.run(t, code)
				want := ocp.Decode(uint8(c))
				got := math.Float32frombits(m.v[5])
				if want != want {
					if got == got {
						t.Fatalf("bf8=%v sel %d code %#x: got %v, want NaN", bf8, sel, c, got)
					}
					continue
				}
				if math.Float32bits(want) != m.v[5] {
					t.Fatalf("bf8=%v sel %d code %#x: got %#x (%v), want %#x (%v)", bf8, sel, c, m.v[5], got, math.Float32bits(want), want)
				}
			}
		}
		if n := len(disasm(t, CvtF32FP8OCPCode(bf8, 5, 7, 2, 100, 101, 102))); n != 10 {
			t.Fatalf("llvm-mc decoded %d instructions", n)
		}
	}
}

// mfmaFP8 is a 16x16x32 FP8 MFMA on the wave model (layout: lane l holds
// row/column l%16 and k = 8*(l/16)+j in byte j of its register pair; D
// register r of lane l is element [4*(l/16)+r][l%16]).
func (wv *wave) mfmaFP8(t *testing.T, w0, w1 uint32, f fp.Format, K int) {
	file := func(acc bool) *[256][64]uint32 {
		if acc {
			return &wv.a
		}
		return &wv.v
	}
	A, B := file(w1>>27&1 != 0), file(w1>>28&1 != 0)
	CD := file(w0>>15&1 != 0)
	a0, b0 := w1&0x1ff-256, w1>>9&0x1ff-256
	c := w1 >> 18 & 0x1ff
	d0 := w0 & 0xff
	byteOf := func(reg *[256][64]uint32, base uint32, l, j int) uint8 {
		return uint8(reg[base+uint32(j/4)][l] >> (8 * (j % 4)))
	}
	var out [4][64]uint32
	for l := 0; l < 64; l++ {
		for r := 0; r < 4; r++ {
			row, col := 4*(l/16)+r, l%16
			var acc float64
			if c != srcZero {
				acc = float64(math.Float32frombits(CD[c-256+uint32(r)][l]))
			}
			e := K / 4 // bytes per lane
			for k := 0; k < K; k++ {
				la, lb := row+16*(k/e), col+16*(k/e)
				acc += float64(f.Decode(byteOf(A, a0, la, k%e))) * float64(f.Decode(byteOf(B, b0, lb, k%e)))
			}
			out[r][l] = math.Float32bits(float32(acc))
		}
	}
	for r := 0; r < 4; r++ {
		CD[d0+uint32(r)] = out[r]
	}
}

// TestFP8MFMAExpansion runs the OCP FP8 MFMA expansion on the wave model
// (whose host MFMA reads FNUZ) and compares with the same MFMA reading OCP,
// with accumulators and operands in VGPRs and in AGPRs, including -0
// (0x80) codes.
func TestFP8MFMAExpansion(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	code := func() uint32 { // OCP E4M3FN codes with exponents 5..9, zeros and -0
		var x uint32
		for b := 0; b < 4; b++ {
			var c uint32
			switch r.IntN(8) {
			case 0:
				c = 0x80
			case 1:
				c = 0
			default:
				c = uint32(r.IntN(2))<<7 | uint32(5+r.IntN(5))<<3 | uint32(r.IntN(8))
			}
			x |= c << (8 * b)
		}
		return x
	}
	for _, acc := range []struct{ ab, cd bool }{{false, false}, {true, true}, {false, true}} {
		for _, zeroC := range []bool{false, true} {
			var wv wave
			A, B := &wv.v, &wv.v
			if acc.ab {
				A, B = &wv.a, &wv.a
			}
			CD := &wv.v
			if acc.cd {
				CD = &wv.a
			}
			for l := 0; l < 64; l++ {
				A[10][l], A[11][l] = code(), code()
				B[12][l], B[13][l] = code(), code()
				for i := 0; i < 4; i++ {
					CD[20+i][l] = math.Float32bits(float32(r.IntN(64)-32) / 4)
				}
			}
			w0 := uint32(0xd3800000 | 0x73<<16 | 20)
			if acc.cd {
				w0 |= 1 << 15
			}
			c := uint32(256 + 20)
			if zeroC {
				c = srcZero
			}
			w1 := (256 + 10) | (256+12)<<9 | c<<18
			if acc.ab {
				w1 |= 3 << 27
			}
			ref := wv
			ref.mfmaFP8(t, w0, w1, fp.E4M3FN, 32)
			exp, err := FP8MFMACode(w0, w1, 0x73, 4, 1, 100, 102, 104)
			if err != nil {
				t.Fatal(err)
			}
			wv.run(t, exp)
			for i := 0; i < 4; i++ {
				got, want := CD[20+i], (*map[bool]*[256][64]uint32{false: &ref.v, true: &ref.a}[acc.cd])[20+i]
				if got != want {
					t.Fatalf("acc %+v zeroC %v: D[%d] = %x, want %x", acc, zeroC, i, got[:4], want[:4])
				}
			}
			// The guest operands are untouched.
			if A[10] != ref.v[10] && A[10] != ref.a[10] {
				t.Fatal("A clobbered")
			}
			if len(disasm(t, exp)) == 0 {
				t.Fatal("no instructions")
			}
		}
	}
}

func TestCvtPkFP8OCP(t *testing.T) {
	in := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 448, -448, 450, 463.9, 464, 470, 480, 500, -1e6,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 0.001953125, 0.0009765625, 0.0009765626,
		-0.0001, 1e-30, -1e-30, 3.14159, 0.3, 17.5, 18.5, 240, 241}
	r := rand.New(rand.NewPCG(21, 22))
	for i := 0; i < 3000; i++ {
		in = append(in, float32(math.Ldexp(r.Float64()*2-1, r.IntN(24)-14)))
	}
	for _, hi := range []bool{false, true} {
		code := CvtPkFP8OCPCode(5, 256+1, 256+2, hi, [5]uint16{100, 101, 102, 103, 104})
		for i := 0; i+1 < len(in); i++ {
			var m machine
			m.v[1], m.v[2] = math.Float32bits(in[i]), math.Float32bits(in[i+1])
			m.v[5] = 0xa5a5a5a5
			m.run(t, code)
			got := m.v[5]
			if hi {
				if got&0xffff != 0xa5a5 {
					t.Fatalf("low half clobbered: %#x", got)
				}
				got >>= 16
			} else {
				if got>>16 != 0xa5a5 {
					t.Fatalf("high half clobbered: %#x", got)
				}
				got &= 0xffff
			}
			for b, x := range []float32{in[i], in[i+1]} {
				g := uint8(got >> (8 * b))
				want := fp.E4M3FN.Encode(x, false)
				if fp.E4M3FN.IsNaN(want) && fp.E4M3FN.IsNaN(g) {
					continue
				}
				if g != want {
					t.Fatalf("hi=%v x=%v (%#x): got %#x want %#x", hi, x, math.Float32bits(x), g, want)
				}
			}
		}
	}
	if n := len(disasm(t, CvtPkFP8OCPCode(5, 256+1, 7, true, [5]uint16{100, 101, 102, 103, 104}))); n != 22 {
		t.Fatalf("llvm-mc decoded %d instructions", n)
	}
}

func TestGlobalLoadLDSCode(t *testing.T) {
	// global_load_lds_dwordx4 v2, s[4:5] offset:4 (LLVM gfx950 MC test).
	got := disasm(t, GlobalLoadLDSCode(0xddf48004, 0x00040002, 100, 104))
	want := []string{"global_load_dwordx4 v[100:103], v2, s[4:5] offset:4", "s_waitcnt vmcnt(0)", "v_mbcnt_lo_u32_b32 v104, -1, 0",
		"v_mbcnt_hi_u32_b32 v104, -1, v104", "v_lshl_add_u32 v104, v104, 4, m0", "ds_write_b128 v104, v[100:103] offset:4", "s_waitcnt lgkmcnt(0)"}
	for i := range want {
		if i >= len(got) || !strings.HasPrefix(got[i], want[i]) {
			t.Fatalf("got %q\nwant %q", got, want)
		}
	}
	// A negative instruction offset moves the LDS address with an add.
	got = disasm(t, GlobalLoadLDSCode(0xddf49ff0, 0x007f0002, 100, 104))
	if !strings.HasPrefix(got[0], "global_load_dwordx4 v[100:103], v[2:3], off offset:-16") || !strings.HasPrefix(got[5], "v_add_u32_e32 v104, -16, v104") || !strings.HasPrefix(got[6], "ds_write_b128 v104, v[100:103]") {
		t.Fatalf("negative offset: %q", got)
	}
}

func TestCvtPkF16Code(t *testing.T) {
	got := disasm(t, CvtPkF16Code(5, 256+1, 7, 100, 101))
	want := []string{"v_cvt_f16_f32_e64 v100, v1", "v_cvt_f16_f32_e64 v101, s7", "v_and_b32_e32 v100, 0xffff, v100", "v_lshl_or_b32 v5, v101, 16, v100"}
	for i := range want {
		if i >= len(got) || !strings.HasPrefix(got[i], want[i]) {
			t.Fatalf("got %q\nwant %q", got, want)
		}
	}
}

// TestF8F6F4FP8Split runs v_mfma_f32_16x16x128_f8f6f4 with FP8 operands
// (8 AGPRs each, C = 0, D in VGPRs, as the corpus uses it) as four FNUZ
// MFMAs on the wave model and compares with the OCP K=128 reference.
func TestF8F6F4FP8Split(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	var wv wave
	for l := 0; l < 64; l++ {
		for i := 0; i < 8; i++ {
			var a, b uint32
			for k := 0; k < 4; k++ {
				ca := uint32(r.IntN(2))<<7 | uint32(6+r.IntN(3))<<3 | uint32(r.IntN(8))
				cb := uint32(r.IntN(2))<<7 | uint32(6+r.IntN(3))<<3 | uint32(r.IntN(8))
				if r.IntN(10) == 0 {
					ca = 0x80
				}
				a |= ca << (8 * k)
				b |= cb << (8 * k)
			}
			wv.a[40+i][l], wv.a[60+i][l] = a, b
		}
	}
	w0 := uint32(0xd3800000 | 0x2d<<16 | 20) // D = v[20:23]
	w1 := uint32(256+40) | (256+60)<<9 | srcZero<<18 | 3<<27
	ref := wv
	ref.mfmaFP8(t, w0, w1, fp.E4M3FN, 128)
	code, err := FP8MFMACode(w0, w1, 0x73, 4, 4, 100, 102, 104)
	if err != nil {
		t.Fatal(err)
	}
	wv.run(t, code)
	for i := 0; i < 4; i++ {
		if wv.v[20+i] != ref.v[20+i] {
			t.Fatalf("D[%d] = %x, want %x", i, wv.v[20+i][:4], ref.v[20+i][:4])
		}
	}
	if _, err := FP8MFMACode(w0|3<<8, w1, 0x73, 4, 4, 100, 102, 104); err == nil {
		t.Fatal("non-FP8 F8F6F4 format accepted")
	}
}

// packCtx hands out fixed temporaries.
type packCtx struct{}

func (packCtx) TempVGPRs(n int) ([]uint16, error)          { return []uint16{100, 101, 102, 103, 104}[:n], nil }
func (packCtx) TempVGPRRange(n, align int) (uint16, error) { return 100, nil }
func (packCtx) TempSGPRPair() (uint16, error)              { return 40, nil }

func TestCvtPkF32FP8OCP(t *testing.T) {
	cases := []struct {
		name string
		raw  []uint32
		word int
		vdst uint16
		src  uint16
	}{
		{"v_cvt_pk_f32_fp8", []uint32{0x7e04ad01}, 0, 2, 1},             // v[2:3], v1
		{"v_cvt_pk_f32_bf8", []uint32{0x7e04af01}, 0, 2, 1},             // v[2:3], v1
		{"v_cvt_pk_f32_fp8", []uint32{0x7e04acf9, 0x00050601}, 1, 2, 1}, // SDWA WORD_1
		{"v_cvt_pk_f32_fp8", []uint32{0x7e02ad01}, 0, 1, 1},             // v[1:2], v1: source is the first result
	}
	for _, c := range cases {
		ocp := fp.E4M3FN
		if c.name == "v_cvt_pk_f32_bf8" {
			ocp = fp.E5M2
		}
		in := &isa.Inst{Info: &isa.OpInfo{Name: c.name}}
		code, err := emitCvtPkF32FP8(packCtx{}, in, appendWords(nil, c.raw...))
		if err != nil {
			t.Fatalf("%s %x: %v", c.name, c.raw, err)
		}
		for x := 0; x < 1<<16; x += 257 {
			var m machine
			src := uint32(x)<<(16*c.word) | 0x5a5a0000>>(16*c.word)
			m.v[c.src] = src
			m.run(t, code)
			for b := 0; b < 2; b++ {
				code8 := uint8(src >> (16*c.word + 8*b))
				want := ocp.Decode(code8)
				got := math.Float32frombits(m.v[c.vdst+uint16(b)])
				if want != want && got != got {
					continue
				}
				if math.Float32bits(want) != m.v[c.vdst+uint16(b)] {
					t.Fatalf("%s %x: byte %d code %#x: got %v want %v", c.name, c.raw, b, code8, got, want)
				}
			}
		}
	}
}
