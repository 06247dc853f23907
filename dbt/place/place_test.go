package place

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
)

// mcWords assembles src for gfx942 with llvm-mc-19 and returns each
// instruction's encoding.
func mcWords(t *testing.T, src string) [][]byte {
	return mcWordsFor(t, src, "-mcpu=gfx942")
}

// mcWordsFor is mcWords with other llvm-mc target options.
func mcWordsFor(t *testing.T, src string, opts ...string) [][]byte {
	t.Helper()
	mc := llvmtool.Require(t, llvmtool.MC)
	cmd := exec.Command(mc, append([]string{"-triple=amdgcn-amd-amdhsa", "-show-encoding"}, opts...)...)
	cmd.Stdin = strings.NewReader(src)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("llvm-mc: %v\n%s", err, out)
	}
	re := regexp.MustCompile(`encoding: \[([^\]]*)\]`)
	var res [][]byte
	for _, m := range re.FindAllStringSubmatch(string(out), -1) {
		var b []byte
		for _, x := range strings.Split(m[1], ",") {
			v, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(x), "0x"), 16, 8)
			if err != nil {
				t.Fatal(err)
			}
			b = append(b, byte(v))
		}
		res = append(res, b)
	}
	return res
}

func le(words ...uint32) []byte {
	var b []byte
	for _, w := range words {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	return b
}

func TestEncodingsMatchLLVM(t *testing.T) {
	a := addLit(6, false, 0x12345678)
	c := addLit(7, true, 0x7ffffffe)
	cases := []struct {
		asm  string
		want []byte
	}{
		{"s_nop 0", le(NopWord)},
		{"s_branch 5", le(sopp(OpBranch, 5))},
		{"s_branch -3", le(sopp(OpBranch, -3))},
		{"s_cbranch_scc0 7", le(sopp(OpCbranchSCC0, 7))},
		{"s_cbranch_scc1 7", le(sopp(OpCbranchSCC1, 7))},
		{"s_cbranch_vccz 7", le(sopp(OpCbranchVCCZ, 7))},
		{"s_cbranch_vccnz 7", le(sopp(OpCbranchVCCNZ, 7))},
		{"s_cbranch_execz 7", le(sopp(OpCbranchEXECZ, 7))},
		{"s_cbranch_execnz -7", le(sopp(OpCbranchEXECNZ, -7))},
		{"s_call_b64 s[30:31], 16", le(callWord(30, 16))},
		{"s_getpc_b64 s[6:7]", le(getpcWord(6))},
		{"s_setpc_b64 s[6:7]", le(setpcWord(6))},
		{"s_swappc_b64 s[30:31], s[6:7]", le(swappcWord(30, 6))},
		{"s_add_u32 s6, s6, 0x12345678", le(a[0], a[1])},
		{"s_addc_u32 s7, s7, 0x7ffffffe", le(c[0], c[1])},
		{"s_cselect_b32 s40, 1, 0", le(cselectWord(40))},
		{"s_cmp_lg_u32 s40, 0", le(cmpLgWord(40))},
	}
	var src strings.Builder
	for _, c := range cases {
		fmt.Fprintln(&src, c.asm)
	}
	got := mcWords(t, src.String())
	if len(got) != len(cases) {
		t.Fatalf("llvm-mc returned %d encodings for %d lines", len(got), len(cases))
	}
	for i, c := range cases {
		if !bytes.Equal(got[i], c.want) {
			t.Errorf("%s: llvm-mc % x, ours % x", c.asm, got[i], c.want)
		}
	}
}

func TestInvert(t *testing.T) {
	for _, op := range []uint8{OpCbranchSCC0, OpCbranchSCC1, OpCbranchVCCZ, OpCbranchVCCNZ, OpCbranchEXECZ, OpCbranchEXECNZ} {
		inv, ok := Invert(op)
		back, ok2 := Invert(inv)
		if !ok || !ok2 || back != op || inv == op {
			t.Fatalf("Invert(%d) = %d, %v", op, inv, ok)
		}
	}
	if _, ok := Invert(OpBranch); ok {
		t.Fatal("s_branch inverted")
	}
}

// body builds a body of n NOP words with a branch fixup at offset 0 to
// source address target (mapped to body offset mapTo).
func body(name string, entry uint64, n int, fx ...Fixup) *Body {
	b := &Body{Name: name, Entry: entry, Map: map[uint64]int{entry: 0}}
	b.Code = make([]byte, 4*n)
	for i := 0; i < n; i++ {
		put(b.Code[4*i:], NopWord)
	}
	b.Fixups = fx
	return b
}

func TestLayoutIdentityAndResidue(t *testing.T) {
	b1 := body("a", 0x1000, 8, Fixup{Kind: Branch, Op: OpCbranchSCC1, Off: 0, Size: 4, Target: 0x1010})
	b1.Map[0x1010] = 0x10
	b2 := body("b", 0x1100, 4)
	text, pl, err := Layout(0x1000, 0x200, []*Body{b1, b2})
	if err != nil {
		t.Fatal(err)
	}
	if pl[0].Entry != 0x1000 || pl[1].Entry != 0x1100 {
		t.Fatalf("entries %#x %#x, want source addresses", pl[0].Entry, pl[1].Entry)
	}
	if len(text) != 0x200 {
		t.Fatalf("text %d bytes, want padded to 0x200", len(text))
	}
	if w := binary.LittleEndian.Uint32(text); w != sopp(OpCbranchSCC1, 3) {
		t.Fatalf("branch word %#x", w)
	}
	// A grown first body pushes the second to the next 256 residue.
	b1.Code = append(b1.Code, make([]byte, 0x100)...)
	_, pl, err = Layout(0x1000, 0x200, []*Body{b1, b2})
	if err != nil {
		t.Fatal(err)
	}
	if pl[1].Entry%256 != 0 || pl[1].Entry <= 0x1100 {
		t.Fatalf("second entry %#x lost its residue or overlaps", pl[1].Entry)
	}
}

func TestLongBranchWindow(t *testing.T) {
	// A branch 200 KiB away does not fit a SOPP offset.
	far := 200 * 1024 / 4
	b := body("k", 0x1000, far+8, Fixup{Kind: Branch, Op: OpCbranchEXECZ, Off: 0, Size: 4, Target: 0x1000 + uint64(4*far), Src: 0x1000})
	b.Map[0x1000+uint64(4*far)] = 4 * far
	_, _, err := Layout(0x1000, 0, []*Body{b})
	if _, ok := err.(*OutOfRange); !ok {
		t.Fatalf("want OutOfRange, got %v", err)
	}
	b.Fixups[0].Long = true
	b.Fixups[0].Size = LongSize(OpCbranchEXECZ, false)
	b.Fixups[0].Pair = 40
	text, pl, err := Layout(0x1000, 0, []*Body{b})
	if err != nil {
		t.Fatal(err)
	}
	if pl[0].Long != 1 {
		t.Fatalf("long count %d", pl[0].Long)
	}
	// Simulate the window: inverted branch, then getpc (PC of next
	// instruction) + delta must equal the target.
	w := func(i int) uint32 { return binary.LittleEndian.Uint32(text[4*i:]) }
	if w(0) != sopp(OpCbranchEXECNZ, 6) {
		t.Fatalf("inverted branch %#x", w(0))
	}
	if w(1) != getpcWord(40) || w(6) != setpcWord(40) {
		t.Fatalf("long window shape % x", text[:28])
	}
	pc := uint64(0x1000 + 8)
	delta := uint64(w(3)) | uint64(w(5))<<32
	if pc+delta != 0x1000+uint64(4*far) {
		t.Fatalf("long window reaches %#x, want %#x", pc+delta, 0x1000+4*far)
	}
	// Skip distance of the inverted branch lands right after the window.
	if 4+6*4 != LongSize(OpCbranchEXECZ, false) {
		t.Fatal("inverted skip does not cover the long window")
	}
}

func TestPreloadStub(t *testing.T) {
	b := body("k", 0x1000, 80)
	b.Preload = 0x1100
	b.Map[0x1100] = 0x40 // the translated preamble shrank: stub needed
	text, pl, err := Layout(0x1000, 0, []*Body{b})
	if err != nil {
		t.Fatal(err)
	}
	if !pl[0].Stub || pl[0].Entry != 0x1000 {
		t.Fatalf("placement %+v", pl[0])
	}
	at := func(a uint64) uint32 { return binary.LittleEndian.Uint32(text[a-0x1000:]) }
	tgt := func(a uint64) uint64 { return uint64(int64(a) + 4 + 4*int64(int16(at(a)))) }
	if tgt(0x1000) != pl[0].Base || tgt(0x1100) != pl[0].Base+0x40 {
		t.Fatalf("stub branches go to %#x and %#x (base %#x)", tgt(0x1000), tgt(0x1100), pl[0].Base)
	}
}

func TestLongBranchSavesSCC(t *testing.T) {
	far := 200 * 1024 / 4
	b := body("k", 0x1000, far+16, Fixup{Kind: Branch, Op: OpCbranchSCC1, Off: 0, Size: LongSize(OpCbranchSCC1, true), Target: 0x1000 + uint64(4*far), Src: 0x1000, Long: true, Pair: 40, SaveSCC: true, SCCReg: 42})
	b.Map[0x1000+uint64(4*far)] = 4 * far
	text, _, err := Layout(0x1000, 0, []*Body{b})
	if err != nil {
		t.Fatal(err)
	}
	w := func(i int) uint32 { return binary.LittleEndian.Uint32(text[4*i:]) }
	// Inverted branch skips the 32-byte window: lands right after it.
	if w(0) != sopp(OpCbranchSCC0, 8) || 4+4*8 != LongSize(OpCbranchSCC1, true) {
		t.Fatalf("inverted branch %#x", w(0))
	}
	if w(1) != cselectWord(42) || w(2) != getpcWord(40) || w(7) != cmpLgWord(42) || w(8) != setpcWord(40) {
		t.Fatalf("window % x", text[:36])
	}
	pc := uint64(0x1000 + 12) // after s_getpc_b64
	if pc+(uint64(w(4))|uint64(w(6))<<32) != 0x1000+uint64(4*far) {
		t.Fatal("window target wrong")
	}
}

func TestLongCall(t *testing.T) {
	far := 200 * 1024 / 4
	f := Fixup{Kind: Call, Off: 0, Size: 4, Target: 0x1000 + uint64(4*far), Src: 0x1000, Pair: 30}
	b := body("k", 0x1000, far+16, f)
	b.Map[0x1000+uint64(4*far)] = 4 * far
	if _, _, err := Layout(0x1000, 0, []*Body{b}); err == nil {
		t.Fatal("out-of-range s_call_b64 accepted")
	} else if _, ok := err.(*OutOfRange); !ok {
		t.Fatalf("want OutOfRange, got %v", err)
	}
	b.Fixups[0].Long, b.Fixups[0].Via, b.Fixups[0].Size = true, 4, LongSize(OpBranch, false)
	text, _, err := Layout(0x1000, 0, []*Body{b})
	if err != nil {
		t.Fatal(err)
	}
	w := func(i int) uint32 { return binary.LittleEndian.Uint32(text[4*i:]) }
	if w(0) != getpcWord(4) || w(5) != swappcWord(30, 4) {
		t.Fatalf("long call window % x", text[:24])
	}
	if 0x1004+(uint64(w(2))|uint64(w(4))<<32) != 0x1000+uint64(4*far) {
		t.Fatal("long call reaches the wrong address")
	}
}

// TestGFX12WordsMatchLLVM checks every word of place.GFX12 against
// llvm-mc-19 for gfx1201 in wave64.
func TestGFX12WordsMatchLLVM(t *testing.T) {
	w := GFX12
	a := w.AddLit(6, false, 0x12345678)
	c := w.AddLit(7, true, 0x7ffffffe)
	cases := []struct {
		asm  string
		want []byte
	}{
		{"s_nop 0", le(NopWord)},
		{"s_branch 5", le(w.SOPP(OpBranch, 5))},
		{"s_branch -3", le(w.SOPP(OpBranch, -3))},
		{"s_cbranch_scc0 7", le(w.SOPP(OpCbranchSCC0, 7))},
		{"s_cbranch_scc1 7", le(w.SOPP(OpCbranchSCC1, 7))},
		{"s_cbranch_vccz 7", le(w.SOPP(OpCbranchVCCZ, 7))},
		{"s_cbranch_vccnz 7", le(w.SOPP(OpCbranchVCCNZ, 7))},
		{"s_cbranch_execz 7", le(w.SOPP(OpCbranchEXECZ, 7))},
		{"s_cbranch_execnz -7", le(w.SOPP(OpCbranchEXECNZ, -7))},
		{"s_call_b64 s[30:31], 16", le(w.Call(30, 16))},
		{"s_getpc_b64 s[6:7]", le(w.Getpc(6))},
		{"s_setpc_b64 s[6:7]", le(w.Setpc(6))},
		{"s_swappc_b64 s[30:31], s[6:7]", le(w.Swappc(30, 6))},
		{"s_add_co_u32 s6, s6, 0x12345678", le(a[0], a[1])},
		{"s_add_co_ci_u32 s7, s7, 0x7ffffffe", le(c[0], c[1])},
		{"s_cselect_b32 s40, 1, 0", le(w.Cselect(40))},
		{"s_cmp_lg_u32 s40, 0", le(w.CmpLg(40))},
	}
	var src strings.Builder
	for _, c := range cases {
		fmt.Fprintln(&src, c.asm)
	}
	got := mcWordsFor(t, src.String(), "-mcpu=gfx1201", "-mattr=+wavefrontsize64")
	if len(got) != len(cases) {
		t.Fatalf("llvm-mc returned %d encodings for %d lines", len(got), len(cases))
	}
	for i, c := range cases {
		if !bytes.Equal(got[i], c.want) {
			t.Errorf("%s: llvm-mc % x, ours % x", c.asm, got[i], c.want)
		}
	}
	if w.HasBranch(0x0a) { // s_cbranch_cdbgsys has no gfx12 form
		t.Error("GFX12 claims a form for SOPP 0x0a")
	}
}

// TestTextMapSorted checks the slice form of the text map against the
// map form at every offset around mapped, unmapped and duplicated
// addresses (the first pair of a duplicated address counts).
func TestTextMapSorted(t *testing.T) {
	const base, newLen = 0x1000, 0x90
	srcs := []uint64{0x1000, 0x1004, 0x1004, 0x1010, 0x1020, 0x1020}
	hosts := []uint64{0x1000, 0x1008, 0x1100, 0x1030, 0x1050, 0x1000}
	m := map[uint64]uint64{}
	for i, a := range srcs {
		if _, dup := m[a]; !dup {
			m[a] = hosts[i]
		}
	}
	want := TextMap(base, m, newLen)
	got := TextMapSorted(base, slices.Clone(srcs), slices.Clone(hosts), newLen)
	for off := uint64(0); off < 0x80; off++ {
		w, wok := want(off)
		g, gok := got(off)
		if w != g || wok != gok {
			t.Fatalf("offset %#x: got %#x %v, want %#x %v", off, g, gok, w, wok)
		}
	}
	if g, _ := got(4); g != 8 {
		t.Fatalf("duplicated address: got %#x, want the first pair's 0x8", g)
	}
}

// TestOffsetsMatchMap lays out bodies whose branches target random
// instructions once with Body.Map and once with the same offsets as
// Body.Offsets: the text and placements must be equal, and a target
// missing from both must fail the same way.
func TestOffsetsMatchMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 15))
	const n = 1 << 14 // words per body (every branch in SOPP range)
	mk := func(name string, entry uint64, asList bool) *Body {
		r := rand.New(rand.NewPCG(entry, 7))
		b := body(name, entry, n)
		for len(b.Fixups) < 48 {
			from, to := r.IntN(n), r.IntN(n)
			if from == to || from == 0 {
				continue
			}
			tgt := entry + uint64(4*to)
			b.Map[tgt] = 4 * to
			f := Fixup{Kind: Branch, Op: OpCbranchSCC0, Off: 4 * from, Size: 4, Target: tgt, Src: entry + uint64(4*from)}
			if len(b.Fixups)%4 == 0 {
				f.Op = OpBranch
			}
			b.Fixups = append(b.Fixups, f)
		}
		if asList {
			for src, off := range b.Map {
				b.Offsets = append(b.Offsets, SourceOffset{Src: src, Off: off})
			}
			slices.SortFunc(b.Offsets, func(x, y SourceOffset) int { return cmp.Compare(x.Src, y.Src) })
			b.Map = nil
		}
		return b
	}
	layout := func(asList bool, missing uint64) ([]byte, []Placed, error) {
		bodies := []*Body{mk("a", 0x1000, asList), mk("b", 0x1000+4*n+0x100, asList)}
		if missing != 0 {
			bodies[1].Fixups = append(bodies[1].Fixups, Fixup{Kind: Branch, Op: OpBranch, Off: 4, Size: 4, Target: missing, Src: bodies[1].Entry + 4})
		}
		return Layout(0x1000, 0, bodies)
	}
	text, pl, err := layout(false, 0)
	if err != nil {
		t.Fatal(err)
	}
	text2, pl2, err := layout(true, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(text, text2) || !slices.Equal(pl, pl2) {
		t.Fatal("the layout with Offsets differs from the one with Map")
	}
	miss := 0x1000 + 4*uint64(rng.IntN(n)) + 2 // no instruction starts there
	_, _, errMap := layout(false, miss)
	_, _, errList := layout(true, miss)
	if errMap == nil || errList == nil || errMap.Error() != errList.Error() {
		t.Fatalf("missing target: %v / %v", errMap, errList)
	}
	b := mk("c", 0x2000, true)
	if _, ok := b.Offset(0x2002); ok || b.Mapped() != len(b.Offsets) {
		t.Fatal("Offset found an unmapped source or Mapped miscounts")
	}
	if o, ok := b.Offset(b.Entry); !ok || o != 0 {
		t.Fatalf("entry offset %d %v", o, ok)
	}
}
