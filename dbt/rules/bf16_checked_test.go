package rules

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/sim/mem"
	simwave "github.com/rocjitsu/rocjitsu/hsa/sim/wave"
)

// runCvtWave runs code (s_endpgm appended) on one simulated wave of target
// with EXEC exec, VGPRs v1..v8 from src, v10..v13 from old, VCC and SCC
// set, and returns the wave.
func runCvtWave(t *testing.T, target simwave.Target, code []byte, exec uint64, src [8][64]uint32, old [64]uint32) *simwave.Wave {
	t.Helper()
	m := mem.New()
	code = binary.LittleEndian.AppendUint32(append([]byte(nil), code...), 0xbf810000)
	addr, err := m.Alloc(uint64(len(code)+64), 256)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Write(addr, code); err != nil {
		t.Fatal(err)
	}
	w := &simwave.Wave{}
	w.Reset(simwave.NewProgram(m, target), m, &simwave.Group{LDS: make([]byte, 4096)}, target, addr, 256, 256)
	w.SetExec(exec)
	for i := range src {
		w.V[1+i] = src[i]
	}
	for r := 10; r < 14; r++ {
		w.V[r] = old
	}
	w.S[simwave.RegVCCLo], w.S[simwave.RegVCCLo+1] = 0x12345678, 0x9abcdef0
	w.SCC = true
	if err := w.Run(100000); err != nil {
		t.Fatalf("%v: %v", target, err)
	}
	return w
}

// cvtPkBF16Guest encodes v_cvt_pk_bf16_f32 for each triple (VGPR numbers
// as 9-bit codes).
func cvtPkBF16Guest(triples [][3]uint16) []byte {
	var w []uint32
	for _, tr := range triples {
		w = append(w, 0xd2680000|uint32(tr[0]-srcVGPR), uint32(tr[1])|uint32(tr[2])<<9)
	}
	return appendWords(nil, w...)
}

// bf16BoundaryInputs are f32 bit patterns of every sign and exponent with
// the mantissas at the rounding and NaN boundaries (0, 1, the tie below,
// at and above 0x8000 with both upper lsbs, the quiet bit alone and with
// payload, all ones), plus random bits.
func bf16BoundaryInputs() []uint32 {
	mants := []uint32{0, 1, 0x7fff, 0x8000, 0x8001, 0xffff, 0x10000, 0x17fff, 0x18000, 0x18001, 0x1ffff,
		0x3fffff, 0x400000, 0x400001, 0x408000, 0x40ffff, 0x7f0000, 0x7f8000, 0x7fffff, 0x7fff7fff & 0x7fffff}
	var in []uint32
	for s := uint32(0); s < 2; s++ {
		for e := uint32(0); e < 256; e++ {
			for _, m := range mants {
				in = append(in, s<<31|e<<23|m)
			}
		}
	}
	r := rand.New(rand.NewPCG(15, 950))
	for i := 0; i < 4096; i++ {
		in = append(in, r.Uint32())
	}
	return in
}

// TestCvtPkBF16CheckedAgainstGFX950Simulator checks the checked form of
// one to four conversions against the gfx950 simulator (testCvtPkBF16Run)
// and its size.
func TestCvtPkBF16CheckedAgainstGFX950Simulator(t *testing.T) {
	all := [][3]uint16{{256 + 10, 256 + 1, 256 + 2}, {256 + 11, 256 + 3, 256 + 4}, {256 + 12, 256 + 5, 256 + 6}, {256 + 13, 256 + 7, 256 + 8}}
	for n := 1; n <= 4; n++ {
		host, ok := cvtPkBF16CheckedCode(all[:n], 20, 40)
		if !ok {
			t.Fatalf("%d triples: the checked form does not apply", n)
		}
		if want := 4 + 40*n + 4 + 8*(n-1) + 8 + 4 + 16*2*n + 4*(2*n-1) + 4 + 4; len(host) != want {
			t.Fatalf("%d triples: %d bytes, want %d", n, len(host), want)
		}
		if lines, want := disasm(t, host), 1+5*n+1+(n-1)+1+1+(4*n+2*n-1)+2; len(lines) != want {
			t.Fatalf("%d triples: llvm-mc decoded %d instructions, want %d: %q", n, len(lines), want, lines)
		}
		testCvtPkBF16Run(t, "checked", all[:n], host, 6*n+5)
	}
}

// TestCvtPkBF16StagedAgainstGFX950Simulator is the same for the staged
// checked form of runs whose destinations are sources of the same or an
// earlier conversion (v1 <- v1,v2; v2 <- v3,v4; ...), and of a run whose
// two conversions write one destination.
func TestCvtPkBF16StagedAgainstGFX950Simulator(t *testing.T) {
	all := [][3]uint16{{256 + 1, 256 + 1, 256 + 2}, {256 + 2, 256 + 3, 256 + 4}, {256 + 3, 256 + 5, 256 + 6}, {256 + 4, 256 + 7, 256 + 8}}
	stage := []uint16{21, 22, 23, 24}
	for n := 1; n <= 4; n++ {
		if _, ok := cvtPkBF16CheckedCode(all[:n], 20, 40); ok {
			t.Fatalf("%d triples: the checked form applies", n)
		}
		host, ok := cvtPkBF16StagedCode(all[:n], 20, stage[:n], 40)
		if !ok {
			t.Fatalf("%d triples: the staged form does not apply", n)
		}
		nop := 1
		if n >= 3 {
			nop = 0
		}
		if lines, want := disasm(t, host), 1+5*n+1+(n-1)+1+1+(4*n+2*n-1)+1+n+nop; len(lines) != want {
			t.Fatalf("%d triples: llvm-mc decoded %d instructions, want %d: %q", n, len(lines), want, lines)
		}
		testCvtPkBF16Run(t, "staged", all[:n], host, 7*n+4+nop)
	}
	twice := [][3]uint16{{256 + 10, 256 + 1, 256 + 2}, {256 + 10, 256 + 3, 256 + 4}}
	host, ok := cvtPkBF16StagedCode(twice, 20, stage[:2], 40)
	if !ok {
		t.Fatal("one destination twice: the staged form does not apply")
	}
	testCvtPkBF16Run(t, "staged, one destination twice", twice, host, 19)
	for _, c := range []struct {
		name    string
		triples [][3]uint16
		stage   []uint16
	}{
		{"a triple reading an earlier destination", [][3]uint16{{256 + 1, 256 + 1, 256 + 2}, {256 + 2, 256 + 1, 256 + 3}}, stage[:2]},
		{"an SGPR source", [][3]uint16{{256 + 1, 7, 256 + 2}}, stage[:1]},
		{"a staging register among the operands", [][3]uint16{{256 + 1, 256 + 21, 256 + 2}}, stage[:1]},
		{"too few staging registers", [][3]uint16{{256 + 1, 256 + 1, 256 + 2}, {256 + 2, 256 + 3, 256 + 4}}, stage[:1]},
		{"the temporary as a staging register", [][3]uint16{{256 + 1, 256 + 1, 256 + 2}}, []uint16{20}},
	} {
		if _, ok := cvtPkBF16StagedCode(c.triples, 20, c.stage, 40); ok {
			t.Errorf("the staged form applies to %s", c.name)
		}
	}
}

// testCvtPkBF16Run runs host, the code of form for the triples (sources
// among v1..v8, destinations among v1..v13), on a simulated gfx942 wave
// and the guest conversions on a simulated gfx950 wave, over every
// sign/exponent class with boundary mantissas and random bits (NaNs in
// some lanes, in every lane, or none), under full and partial EXEC: v1..v13,
// EXEC, VCC and SCC must be as on gfx950. Without a NaN the form executes
// fastCount instructions.
func testCvtPkBF16Run(t *testing.T, form string, triples [][3]uint16, host []byte, fastCount int) {
	t.Helper()
	n := len(triples)
	guest := cvtPkBF16Guest(triples)
	in := bf16BoundaryInputs()
	r := rand.New(rand.NewPCG(3, uint64(n)))
	finite := func() uint32 {
		for {
			x := r.Uint32()
			if x&0x7f800000 != 0x7f800000 {
				return x
			}
		}
	}
	var old [64]uint32
	for l := range old {
		old[l] = r.Uint32()
	}
	check := func(what string, exec uint64, src [8][64]uint32, wantFast bool) {
		t.Helper()
		g := runCvtWave(t, simwave.GFX950, guest, exec, src, old)
		h := runCvtWave(t, simwave.GFX942, host, exec, src, old)
		for reg := 1; reg < 14; reg++ {
			for l := 0; l < 64; l++ {
				if g.V[reg][l] != h.V[reg][l] {
					t.Fatalf("%s, %d triples, %s, exec %#x: v%d lane %d: gfx942 %#x, gfx950 %#x", form, n, what, exec, reg, l, h.V[reg][l], g.V[reg][l])
				}
			}
		}
		if h.Exec() != exec || h.S[simwave.RegVCCLo] != 0x12345678 || h.S[simwave.RegVCCLo+1] != 0x9abcdef0 || !h.SCC {
			t.Fatalf("%s, %d triples, %s: EXEC %#x (want %#x), VCC %#x:%#x, SCC %v", form, n, what, h.Exec(), exec, h.S[simwave.RegVCCLo+1], h.S[simwave.RegVCCLo], h.SCC)
		}
		if fast := h.Count == uint64(fastCount)+1; wantFast && !fast {
			t.Fatalf("%s, %d triples, %s: %d instructions executed without a NaN, want %d", form, n, what, h.Count-1, fastCount)
		}
	}
	execs := []uint64{^uint64(0), 0x5a5a_f0f0_1234_8001, 1 << 63}
	// The boundary classes, NaNs among them in some lanes.
	for off := 0; off < len(in); off += 64 * 2 * n {
		var src [8][64]uint32
		for l := 0; l < 64; l++ {
			for s := 0; s < 2*n; s++ {
				src[s][l] = in[(off+l*2*n+s)%len(in)]
			}
		}
		for _, e := range execs {
			check("boundary inputs", e, src, false)
		}
	}
	// No NaN: the fast path alone; then one NaN source in one lane, for
	// each source (signalling and quiet, both signs), active or not.
	var src [8][64]uint32
	for l := 0; l < 64; l++ {
		for s := 0; s < 8; s++ {
			src[s][l] = finite()
		}
	}
	src[0][3], src[1][5] = 0x7f800000, 0xff800000 // infinities are not NaNs
	src[0][7], src[2*n-1][9] = 0x3f808000, 0x3f818000
	for _, e := range execs {
		check("no NaN", e, src, true)
	}
	for s := 0; s < 2*n; s++ {
		for _, nan := range []uint32{0x7f800001, 0xffbfffff, 0x7fc00000, 0xffffffff, 0x7fbf8000} {
			one := src
			one[s][17] = nan
			check("one NaN", ^uint64(0), one, false)
			check("one inactive NaN", ^uint64(0)&^(1<<17), one, true)
		}
	}
}

// TestCvtPkBF16CheckedApplies: the checked form refuses SGPR and constant
// sources, a destination that is a source of the run, the temporary, and
// two conversions into one destination.
func TestCvtPkBF16CheckedApplies(t *testing.T) {
	for _, c := range []struct {
		triples [][3]uint16
		ok      bool
	}{
		{[][3]uint16{{256 + 10, 256 + 1, 256 + 2}}, true},
		{[][3]uint16{{256 + 10, 7, 256 + 2}}, false},
		{[][3]uint16{{256 + 10, 256 + 1, 242}}, false},
		{[][3]uint16{{256 + 1, 256 + 1, 256 + 2}}, false},
		{[][3]uint16{{256 + 10, 256 + 1, 256 + 2}, {256 + 11, 256 + 10, 256 + 3}}, false},
		{[][3]uint16{{256 + 10, 256 + 1, 256 + 2}, {256 + 2, 256 + 3, 256 + 4}}, false},
		{[][3]uint16{{256 + 10, 256 + 1, 256 + 2}, {256 + 10, 256 + 3, 256 + 4}}, false},
		{[][3]uint16{{256 + 20, 256 + 1, 256 + 2}}, false},
		{[][3]uint16{{256 + 10, 256 + 20, 256 + 2}}, false},
	} {
		if _, ok := cvtPkBF16CheckedCode(c.triples, 20, 40); ok != c.ok {
			t.Errorf("%v: applies %v, want %v", c.triples, ok, c.ok)
		}
	}
}

// TestCvtPkBF16PrecheckedAgainstGFX950Simulator checks the prechecked
// form of in-place runs (v1 <- v1,v2; v2 <- v3,v4; ...: destinations that
// are first sources of the same or later sources of an earlier
// conversion), of a run writing one destination twice and of runs the
// checked form takes, against the gfx950 simulator (testCvtPkBF16Run), and
// that it refuses what it must.
func TestCvtPkBF16PrecheckedAgainstGFX950Simulator(t *testing.T) {
	tmp := [3]uint16{20, 21, 22}
	inPlace := [][3]uint16{{256 + 1, 256 + 1, 256 + 2}, {256 + 2, 256 + 3, 256 + 4}, {256 + 3, 256 + 5, 256 + 6}, {256 + 4, 256 + 7, 256 + 8}}
	apart := [][3]uint16{{256 + 10, 256 + 1, 256 + 2}, {256 + 11, 256 + 3, 256 + 4}, {256 + 12, 256 + 5, 256 + 6}, {256 + 13, 256 + 7, 256 + 8}}
	for n := 1; n <= 4; n++ {
		for name, triples := range map[string][][3]uint16{"in place": inPlace[:n], "apart": apart[:n]} {
			host, ok := cvtPkBF16PrecheckedCode(triples, tmp, 40)
			if !ok {
				t.Fatalf("%s, %d triples: the prechecked form does not apply", name, n)
			}
			if lines, want := disasm(t, host), 1+n+1+1+13*n+1+2+5*n; len(lines) != want {
				t.Fatalf("%s, %d triples: llvm-mc decoded %d instructions, want %d: %q", name, n, len(lines), want, lines)
			}
			testCvtPkBF16Run(t, "prechecked "+name, triples, host, 6*n+4)
		}
	}
	twice := [][3]uint16{{256 + 10, 256 + 1, 256 + 2}, {256 + 10, 256 + 3, 256 + 4}}
	host, ok := cvtPkBF16PrecheckedCode(twice, tmp, 40)
	if !ok {
		t.Fatal("one destination twice: the prechecked form does not apply")
	}
	testCvtPkBF16Run(t, "prechecked, one destination twice", twice, host, 16)
	for _, c := range []struct {
		name    string
		triples [][3]uint16
		t       [3]uint16
	}{
		{"a triple reading an earlier destination", [][3]uint16{{256 + 1, 256 + 1, 256 + 2}, {256 + 2, 256 + 1, 256 + 3}}, tmp},
		{"a triple reading an earlier destination second", [][3]uint16{{256 + 5, 256 + 1, 256 + 2}, {256 + 6, 256 + 3, 256 + 5}}, tmp},
		{"a destination that is its second source", [][3]uint16{{256 + 2, 256 + 1, 256 + 2}}, tmp},
		{"an SGPR source", [][3]uint16{{256 + 1, 7, 256 + 2}}, tmp},
		{"a constant source", [][3]uint16{{256 + 1, 256 + 1, 242}}, tmp},
		{"a scratch register among the operands", [][3]uint16{{256 + 1, 256 + 21, 256 + 2}}, tmp},
		{"a scratch destination", [][3]uint16{{256 + 22, 256 + 1, 256 + 2}}, tmp},
		{"scratch registers alike", [][3]uint16{{256 + 1, 256 + 1, 256 + 2}}, [3]uint16{20, 20, 22}},
	} {
		if _, ok := cvtPkBF16PrecheckedCode(c.triples, c.t, 40); ok {
			t.Errorf("the prechecked form applies to %s", c.name)
		}
	}
}
