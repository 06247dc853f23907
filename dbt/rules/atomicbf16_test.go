package rules

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// TestAtomicPkAddBF16Code: the CAS-loop expansion decodes under llvm-mc-19
// for gfx942, keeps the guest's addressing (offen, offset, srsrc, soffset,
// sc1/nt), returns the old value only with sc0, branches back to the loop
// head, and writes neither VCC nor SCC (only s_mov_b64, s_waitcnt and
// s_cbranch_execnz among scalar instructions).
func TestAtomicPkAddBF16Code(t *testing.T) {
	for _, c := range []struct {
		w0, w1 uint32
		ret    bool
		addr   string
	}{
		// buffer_atomic_pk_add_bf16 v5, v1, s[8:11], s3 offen offset:12 sc0
		{0xe1485000 | 12, 0x03020501, true, "v1, s[8:11], s3 offen offset:12"},
		// buffer_atomic_pk_add_bf16 v5, off, s[8:11], s3 sc1 nt
		{0xe14a8000, 0x03020500, false, "off, s[8:11], s3"},
	} {
		code, err := AtomicPkAddBF16Code(c.w0, c.w1, 100, []uint16{102, 103, 104, 105}, 40)
		if err != nil {
			t.Fatal(err)
		}
		lines := disasm(t, code)
		text := strings.Join(lines, "\n")
		for _, want := range []string{
			"s_mov_b64 s[40:41], exec",
			"buffer_load_dword v102, " + c.addr,
			"buffer_atomic_cmpswap v[100:101], " + c.addr,
			"v_cmp_ne_u32_e64 exec, v100, v102",
			"s_cbranch_execnz",
			"s_mov_b64 exec, s[40:41]",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("%#x: no %q in\n%s", c.w0, want, text)
			}
		}
		if !c.ret && strings.Contains(lines[len(lines)-1], "v_mov_b32") {
			t.Errorf("%#x: no-return form writes vdata: %s", c.w0, lines[len(lines)-1])
		}
		if c.ret && !strings.HasPrefix(lines[len(lines)-1], "v_mov_b32_e32 v5, v102") {
			t.Errorf("%#x: sc0 form does not return the old value: %s", c.w0, lines[len(lines)-1])
		}
		if c.w0&(1<<15) != 0 {
			for _, l := range lines {
				if strings.HasPrefix(l, "buffer_") && !strings.Contains(l, "sc1") {
					t.Errorf("%#x: sc1 dropped: %s", c.w0, l)
				}
			}
		}
		for _, l := range lines {
			if strings.Contains(l, "vcc") {
				t.Errorf("%#x: writes VCC: %s", c.w0, l)
			}
			if strings.HasPrefix(l, "s_") && !strings.HasPrefix(l, "s_mov_b64") && !strings.HasPrefix(l, "s_waitcnt") && !strings.HasPrefix(l, "s_cbranch_execnz") {
				t.Errorf("%#x: unexpected scalar instruction (may write SCC): %s", c.w0, l)
			}
		}
		// The loop branch lands on the first instruction after the initial
		// load's wait: rel = loop head - (branch + 1) in dwords.
		ws := words(code)
		for i, w := range ws {
			if w>>16 == 0xbf89 {
				head := i + 1 + int(int16(uint16(w)))
				if ws[head-1] != waitVMCnt0 || ws[head-3]>>18&0x7f != mubufOpLoadDword {
					t.Errorf("%#x: loop head at dword %d does not follow the initial load", c.w0, head)
				}
			}
		}
	}
	if _, err := AtomicPkAddBF16Code(0xe1480000, 0x03020500, 100, []uint16{1, 2}, 40); err == nil {
		t.Fatal("too few temporaries accepted")
	}
	if r := For(isa.GFX950, isa.GFX942, "buffer_atomic_pk_add_bf16"); r == nil || r.Fidelity != "approximate" || r.Bound == "" {
		t.Fatalf("rule %+v", r)
	}
}

// TestRoundBF16Code runs the VGPR-only f32 -> bf16 rounding on the rules
// one-lane interpreter runRoundOps against BF16 (round to nearest even,
// NaN quieted) over all classes and 100000 random patterns; the NaN inputs
// are quiet, as v_add_f32 makes them.
func TestRoundBF16Code(t *testing.T) {
	in := append(bf16Inputs(), 0x7fc00001, 0xffffffff, 0x7fffffff, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0x00000000, 0x80000000, 0x0000ffff, 0x00018000, 0x00008000, 0x3f808000, 0x3f818000)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 100000; i++ {
		in = append(in, r.Uint32())
	}
	for _, x := range in {
		if x&0x7fffffff > 0x7f800000 && x&0x400000 == 0 {
			continue // signalling NaNs never reach the rounding
		}
		var v [256]uint32
		v[10] = x
		runRoundOps(t, &v, roundBF16Code(10, 11, 12))
		if got, want := uint16(v[10]>>16), BF16(x); got != want {
			t.Fatalf("round(%#08x) = %#04x, want %#04x", x, got, want)
		}
	}
}

// runRoundOps interprets the VOP2/VOP3 integer operations roundBF16Code
// emits on one lane's VGPRs.
func runRoundOps(t *testing.T, v *[256]uint32, ws []uint32) {
	src := func(code uint32, lit uint32) uint32 {
		switch {
		case code >= srcVGPR:
			return v[code-srcVGPR]
		case code == srcLit:
			return lit
		case code >= 128 && code <= 192:
			return code - 128
		}
		t.Fatalf("source code %d", code)
		return 0
	}
	for i := 0; i < len(ws); {
		w := ws[i]
		if w>>26 == 0x34 { // VOP3
			w1 := ws[i+1]
			i += 2
			if op := w >> 16 & 0x3ff; op != op3BfeU32 {
				t.Fatalf("VOP3 opcode %#x", op)
			}
			a, b, c := src(w1&0x1ff, 0), src(w1>>9&0x1ff, 0), src(w1>>18&0x1ff, 0)
			v[w&0xff] = a >> (b & 31) & (1<<(c&31) - 1)
			continue
		}
		lit := uint32(0)
		i++
		if w&0x1ff == srcLit {
			lit = ws[i]
			i++
		}
		a, b := src(w&0x1ff, lit), v[w>>9&0xff]
		var r uint32
		switch op := w >> 25; op {
		case op2AddU32:
			r = a + b
		case op2AndB32:
			r = a & b
		case op2OrB32:
			r = a | b
		case op2MinU32:
			r = min(a, b)
		case op2MaxU32:
			r = max(a, b)
		default:
			t.Fatalf("VOP2 opcode %#x", op)
		}
		v[w>>17&0xff] = r
	}
}
