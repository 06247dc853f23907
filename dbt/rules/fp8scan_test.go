package rules

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader"
)

// fp8CorpusBlocks decodes the .text of every aiter gfx950 object linearly
// and cuts it into blocks after each branch and waitcnt and every 97
// instructions: instruction sequences of the kernels the FP8 scans see,
// with their FP8 MFMAs, chains, loads and EXEC writes.
func fp8CorpusBlocks(t *testing.T) [][]*isa.Inst {
	t.Helper()
	dir := projectpath.MustShared(t, "corpus", "aiter", "gfx950")
	files, err := filepath.Glob(filepath.Join(dir, "*.co"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no aiter gfx950 objects in %s (%v)", dir, err)
	}
	var blocks [][]*isa.Inst
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := loader.Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sec := f.Section(".text")
		if sec == nil {
			t.Fatalf("%s: no .text", name)
		}
		text := raw[sec.Offset : sec.Offset+sec.Size]
		var cur []*isa.Inst
		for off := 0; off+4 <= len(text); {
			in, err := gfx9.Decode(text[off:], sec.Addr+uint64(off), isa.GFX950)
			if err != nil || in.Size == 0 {
				// Undecodable words: an undescribed instruction.
				cur = append(cur, &isa.Inst{})
				off += 4
				continue
			}
			off += int(in.Size)
			cur = append(cur, &in)
			if in.Info != nil && (in.Info.Branch != isa.BranchNone || in.Info.Flags&isa.FlagWaitcnt != 0) || len(cur) == 97 {
				blocks = append(blocks, cur)
				cur = nil
			}
		}
		if len(cur) > 0 {
			blocks = append(blocks, cur)
		}
	}
	return blocks
}

// fp8ScopeReadsByWalks is fp8ScopeReads as it was before the block
// transfers: every pass of the fixpoint walks every block.
func fp8ScopeReadsByWalks(blocks [][]*isa.Inst, succs [][]int, entry []bool) *fp8ReadSet {
	n := len(blocks)
	entry = append([]bool(nil), entry...)
	preds := make([][]int, n)
	for b, ss := range succs {
		for _, t := range ss {
			if t < 0 || t >= n {
				entry[b] = true
				continue
			}
			preds[t] = append(preds[t], b)
		}
	}
	in := make([]fp8Killed, n)
	out := make([]fp8Killed, n)
	for b := range out {
		out[b] = fp8KilledAll
	}
	s := &fp8ReadSet{}
	for changed := true; changed; {
		changed = false
		for b := 0; b < n; b++ {
			k := fp8Killed{}
			if !entry[b] && len(preds[b]) > 0 {
				k = out[preds[b][0]]
				for _, p := range preds[b][1:] {
					for i := range k {
						k[i] &= out[p][i]
					}
				}
			}
			in[b] = k
			fp8WalkBlock(blocks[b], &k, nil)
			if k != out[b] {
				out[b] = k
				changed = true
			}
		}
	}
	for b := 0; b < n; b++ {
		k := in[b]
		fp8WalkBlock(blocks[b], &k, s)
	}
	return s
}

// TestFP8BlockTransferMatchesWalk checks, for every block of the aiter
// corpus, that the block's summarized transfer gives the killed set the
// walk gives, from the empty, the full and random sets, and that the
// scope read sets of the fixpoint over transfers equal those of the
// fixpoint that walks every block in every pass, on scopes of 40
// consecutive blocks with fall-through edges, a back edge and an exit.
func TestFP8BlockTransferMatchesWalk(t *testing.T) {
	blocks := fp8CorpusBlocks(t)
	r := rand.New(rand.NewPCG(15, 8))
	for bi, b := range blocks {
		tf := fp8BlockTransfer(b)
		starts := []fp8Killed{{}, fp8KilledAll}
		for j := 0; j < 3; j++ {
			var k fp8Killed
			for i := range k {
				k[i] = r.Uint64()
			}
			starts = append(starts, k)
		}
		for _, k0 := range starts {
			k := k0
			fp8WalkBlock(b, &k, nil)
			if got := tf.apply(k0); got != k {
				t.Fatalf("block %d (%d instructions, first %s): transfer %x, walk %x", bi, len(b), b[0].Name(), got, k)
			}
		}
	}
	scopes := 0
	for lo := 0; lo < len(blocks); lo += 40 {
		hi := min(lo+40, len(blocks))
		sb := blocks[lo:hi]
		n := len(sb)
		succs := make([][]int, n)
		entry := make([]bool, n)
		entry[0] = true
		for i := 0; i+1 < n; i++ {
			succs[i] = append(succs[i], i+1)
		}
		if n > 4 {
			succs[n-2] = append(succs[n-2], n/2) // a loop
			succs[n/3] = append(succs[n/3], n)   // an edge out of the scope
		}
		scope := func(fn func([]*isa.Inst, []int, bool)) {
			for i := range sb {
				fn(sb[i], succs[i], entry[i])
			}
		}
		got, want := fp8ScopeReads(scope), fp8ScopeReadsByWalks(sb, succs, entry)
		if *got != *want {
			t.Fatalf("scope of blocks %d..%d: read sets differ (all %v/%v)", lo, hi, got.all, want.all)
		}
		scopes++
	}
	if scopes < 10 {
		t.Fatalf("only %d scopes checked", scopes)
	}
}

// TestFP8ChainLinksMatchChain checks that the chain links of one walk of
// a block are FP8MFMAChain's at every instruction, for every block of
// the aiter corpus, and that the corpus has chains (links both ways).
func TestFP8ChainLinksMatchChain(t *testing.T) {
	links := 0
	for bi, b := range fp8CorpusBlocks(t) {
		got := fp8ChainLinks(b)
		for i := range b {
			in, out := FP8MFMAChain(b, i)
			if got[i] != [2]bool{in, out} {
				t.Fatalf("block %d instruction %d (%s): links %v, FP8MFMAChain %v %v", bi, i, b[i].Name(), got[i], in, out)
			}
			if in {
				links++
			}
		}
	}
	if links == 0 {
		t.Fatal("no chained FP8 MFMA in the corpus")
	}
}

// TestFP8ShapeKeyFormat checks the shape key against its definition (the
// index, then "/v" or "/a", first register, "+", count per group cleared
// ahead) for every index and random groups.
func TestFP8ShapeKeyFormat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < len(fp8Shaped); i++ {
		sh := FP8MFMAShape{ScaledIn: i/9%2 != 0, ScaledOut: i/18%2 != 0, TailFree: i/36%2 != 0, DScratch: i/72 != 0, A: OperandMode(i % 9 / 3), B: OperandMode(i % 3)}
		want := fmt.Sprint(i)
		for g := 0; g < r.IntN(4); g++ {
			x := FP8Regs{AGPR: r.IntN(2) == 0, Reg: uint16(r.IntN(256)), N: uint8(1 + r.IntN(16))}
			sh.Ahead = append(sh.Ahead, x)
			f := "v"
			if x.AGPR {
				f = "a"
			}
			want += fmt.Sprintf("/%s%d+%d", f, x.Reg, x.N)
		}
		if got := sh.key(); got != want {
			t.Fatalf("shape %d: key %q, want %q", i, got, want)
		}
	}
}

// regPoolRunByDelete is regPool.run as it was written first (a bool set
// and slices.DeleteFunc), the reference for the bitset form.
func regPoolRunByDelete(p *regPool, n, align int) (uint16, bool) {
	var in [256]bool
	for _, r := range p.free {
		if r < 256 {
			in[r] = true
		}
	}
	for _, r := range p.free {
		if int(r)%align != 0 || int(r)+n > 256 {
			continue
		}
		ok := true
		for i := 1; i < n && ok; i++ {
			ok = in[int(r)+i]
		}
		if !ok {
			continue
		}
		for i := 0; i < n; i++ {
			p.used = append(p.used, r+uint16(i))
		}
		p.free = slices.DeleteFunc(p.free, func(x uint16) bool { return x >= r && x < r+uint16(n) })
		return r, true
	}
	return 0, false
}

// TestRegPoolRunMatchesReference draws free lists (shuffled, with
// registers past 255 and duplicates, or, half of them, without repeats,
// where run keeps its register set between requests) and requests (runs,
// and single registers taken between them), and checks that run takes the
// reference's registers and leaves the same lists.
func TestRegPoolRunMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	for c := 0; c < 6000; c++ {
		var free []uint16
		for i := 0; i < r.IntN(300); i++ {
			free = append(free, uint16(r.IntN(270)))
		}
		if c%2 == 1 {
			seen := map[uint16]bool{}
			free = slices.DeleteFunc(free, func(x uint16) bool { d := seen[x]; seen[x] = true; return d })
		}
		a := newRegPool(free)
		b := &regPool{free: slices.Clone(free)}
		for q := 0; q < 8; q++ {
			if r.IntN(4) == 0 {
				got, err := a.one()
				want, werr := b.one()
				if got != want || (err == nil) != (werr == nil) {
					t.Fatalf("case %d request %d (one): got %d %v, want %d %v", c, q, got, err, want, werr)
				}
				continue
			}
			n, align := 1+r.IntN(8), []int{1, 2, 4}[r.IntN(3)]
			got, err := a.run(n, align)
			want, ok := regPoolRunByDelete(b, n, align)
			if (err == nil) != ok || got != want || !slices.Equal(a.free, b.free) || !slices.Equal(a.used, b.used) {
				t.Fatalf("case %d request %d (run %d align %d): got %d %v free %v used %v, want %d %v free %v used %v", c, q, n, align, got, err, a.free, a.used, want, ok, b.free, b.used)
			}
		}
	}
}

// TestCvtPkFP8CodeMatchesOCPCode runs the rule's short v_cvt_pk_fp8_f32
// expansion and CvtPkFP8OCPCode on the wave model, for both halves, on
// the special values (zeros, the E4M3 limits and overflow, infinities,
// NaNs of both signs, subnormal results) in every pairing and on random
// f32 pairs over the whole exponent range, with VGPR, SGPR and
// inline-constant sources, and requires identical destinations (the kept half
// included) and, apart from NaN codes, the OCP E4M3 encoding of each
// input.
func TestCvtPkFP8CodeMatchesOCPCode(t *testing.T) {
	special := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 448, -448, 450, 463.9, 464, -464, 470, 480, 500, -1e6, 1e38,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), math.Float32frombits(0xffc00001), math.Float32frombits(0x7f800001),
		0.001953125, -0.001953125, 0.0009765625, 0.0009765626, -0.0009765626, 0.0029296875, -0.0001, 1e-30, -1e-30, 1e-45, -1e-45,
		3.14159, 0.3, 17.5, 18.5, 240, 241, -0.5, 0.015625}
	var pairs [][2]float32
	for _, a := range special {
		for _, b := range special {
			pairs = append(pairs, [2]float32{a, b})
		}
	}
	r := rand.New(rand.NewPCG(23, 24))
	for i := 0; i < 40000; i++ {
		x := func() float32 {
			if r.IntN(8) == 0 {
				return math.Float32frombits(r.Uint32())
			}
			return float32(math.Ldexp(r.Float64()*2-1, r.IntN(32)-18))
		}
		pairs = append(pairs, [2]float32{x(), x()})
	}
	tmp := [5]uint16{100, 101, 102, 103, 104}
	for _, hi := range []bool{false, true} {
		for _, src := range [][2]uint16{{256 + 1, 256 + 2}, {256 + 2, 256 + 2}, {256 + 1, 10}, {240, 256 + 2}} {
			short, long := cvtPkFP8Code(5, src[0], src[1], hi, tmp), CvtPkFP8OCPCode(5, src[0], src[1], hi, tmp)
			for _, pr := range pairs {
				var a, b machine
				for _, m := range []*machine{&a, &b} {
					m.v[1], m.v[2], m.s[10] = math.Float32bits(pr[0]), math.Float32bits(pr[1]), math.Float32bits(pr[1])
					m.v[5] = 0xa5c3e1f7
					m.v[102] = 0x5a5a1234 // stale high half of the conversion's temporary
				}
				a.run(t, short)
				b.run(t, long)
				if a.v[5] != b.v[5] {
					t.Fatalf("hi=%v sources %v x=%v,%v (%#x,%#x): short %#x, CvtPkFP8OCPCode %#x", hi, src, pr[0], pr[1], math.Float32bits(pr[0]), math.Float32bits(pr[1]), a.v[5], b.v[5])
				}
				got := a.v[5]
				if hi {
					if got&0xffff != 0xe1f7 {
						t.Fatalf("low half clobbered: %#x", got)
					}
					got >>= 16
				} else if got>>16 != 0xa5c3 {
					t.Fatalf("high half clobbered: %#x", got)
				}
				for k, s := range src {
					x := math.Float32frombits(a.src(uint32(s)))
					g, want := uint8(got>>(8*k)), fp.E4M3FN.Encode(x, false)
					if g != want && !(fp.E4M3FN.IsNaN(want) && fp.E4M3FN.IsNaN(g)) {
						t.Fatalf("hi=%v x=%v (%#x): got %#x want %#x", hi, x, math.Float32bits(x), g, want)
					}
				}
			}
		}
	}
	if n := len(disasm(t, cvtPkFP8Code(5, 256+1, 7, true, tmp))); n != 12 {
		t.Fatalf("llvm-mc decoded %d instructions", n)
	}
}

// TestFP8MFMAPairClearForms runs zero-C FP8 MFMAs whose expansions clear
// their operands in place by register pairs with D as scratch (DScratch),
// the 16x16x32 form and the four-part 16x16x128 one, VGPR and AGPR
// operands, in place, and cleared ahead by an earlier MFMA, on the wave
// model, and compares D with the OCP reference and checks that no 0x80
// byte is left in the operands.
func TestFP8MFMAPairClearForms(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	code := fp8Codes(r, 4)
	for _, parts := range []int{1, 4} {
		for _, accAB := range []bool{false, true} {
			for _, ahead := range []bool{false, true} {
				name := fmt.Sprintf("parts %d acc %v ahead %v", parts, accAB, ahead)
				var wv wave
				AB := &wv.v
				if accAB {
					AB = &wv.a
				}
				n := 2 * parts
				for l := 0; l < 64; l++ {
					for i := 0; i < 2*n; i++ {
						AB[10+i][l] = code()
					}
					for i := 0; i < 8; i++ {
						wv.v[40+i][l] = r.Uint32() // D's old value: dead
					}
				}
				op, K := uint32(0x73), 32
				if parts == 4 {
					op, K = 0x2d, 128
				}
				mk := func(d uint32) (uint32, uint32) {
					w0 := uint32(0xd3800000 | op<<16 | d)
					w1 := uint32(256+10) | uint32(256+10+n)<<9 | uint32(srcZero)<<18
					if accAB {
						w1 |= 3 << 27
					}
					return w0, w1
				}
				ref := wv
				var host []byte
				// The first MFMA (D v[40:43]) clears A and B in place, or
				// ahead of the second (D v[44:47]), which reads them clean.
				for s, d := range []uint32{40, 44} {
					w0, w1 := mk(d)
					ref.mfmaFP8(t, w0, w1, fp.E4M3FN, K)
					f := FP8MFMAForm{K: 105, A: InPlace, B: InPlace, Spare: 106, HasSpare: true, DScratch: true}
					switch {
					case s == 1:
						f.A, f.B = Clean, Clean
					case ahead:
						f.A, f.B = Clean, Clean
						f.Ahead = []FP8Regs{{AGPR: accAB, Reg: 10, N: uint8(n)}, {AGPR: accAB, Reg: uint16(10 + n), N: uint8(n)}}
					}
					if s == 0 && !fp8PairScratch(w1, uint16(d), 4, false, parts, f) {
						t.Fatalf("%s: the pair form is not chosen", name)
					}
					part, err := FP8MFMAFormCode(w0, w1, 0x73, 4, parts, 100, 102, 104, f)
					if err != nil {
						t.Fatal(err)
					}
					host = append(host, part...)
				}
				wv.run(t, host)
				for i := 0; i < 8; i++ {
					if wv.v[40+i] != ref.v[40+i] {
						t.Fatalf("%s: D[%d] = %x, want %x", name, i, wv.v[40+i][:4], ref.v[40+i][:4])
					}
				}
				for i := 0; i < 2*n; i++ {
					for l := 0; l < 64; l++ {
						for b := 0; b < 32; b += 8 {
							if AB[10+i][l]>>b&0xff == 0x80 {
								t.Fatalf("%s: register %d lane %d still has a -0 byte", name, 10+i, l)
							}
						}
					}
				}
			}
		}
	}
}

// TestFP8DScratchAt checks when D may serve as scratch on decoded blocks:
// not at a scope entry or right after another MFMA wrote D (in the block
// or at the end of its predecessor) or read it as C, and yes after VALU
// instructions name
// every register of D, after an FP8 MFMA that scales the same D, or after
// fp8DScratchWindow instructions without a write of D.
func TestFP8DScratchAt(t *testing.T) {
	dec := func(words ...[]uint32) []*isa.Inst {
		var block []*isa.Inst
		pc := uint64(0)
		for _, w := range words {
			in, err := gfx9.Decode(appendWords(nil, w...), pc, isa.GFX950)
			if err != nil {
				t.Fatal(err)
			}
			pc += uint64(in.Size)
			block = append(block, &in)
		}
		return block
	}
	fp8 := func(d, c uint32) []uint32 {
		return []uint32{0xd3800000 | 0x73<<16 | d, (256 + 10) | (256+12)<<9 | c<<18}
	}
	bf16 := []uint32{0xd3800000 | 0x35<<16 | 40, (256 + 10) | (256+12)<<9 | srcZero<<18}        // v_mfma_f32_16x16x32_bf16 v[40:43]
	bf16ReadsD := []uint32{0xd3800000 | 0x35<<16 | 48, (256 + 10) | (256+12)<<9 | (256+40)<<18} // v[48:51], C = v[40:43]
	nop := []uint32{0xbf800000}
	movs := [][]uint32{{0x7e500280}, {0x7e520280}, {0x7e540280}, {0x7e560280}} // v_mov_b32 v40..v43, 0
	many := func(w []uint32, n int) [][]uint32 {
		var out [][]uint32
		for i := 0; i < n; i++ {
			out = append(out, w)
		}
		return out
	}
	cases := []struct {
		name  string
		pre   [][]uint32 // the predecessor block (none: the block is an entry)
		block [][]uint32 // ends with the zero-C FP8 MFMA on v[40:43]
		want  bool
	}{
		{"entry", nil, [][]uint32{fp8(40, srcZero)}, false},
		{"moves", nil, append(append([][]uint32{}, movs...), fp8(40, srcZero)), true},
		{"three moves", nil, append(append([][]uint32{}, movs[:3]...), fp8(40, srcZero)), false},
		{"bf16 MFMA", nil, append(append(append([][]uint32{}, movs...), bf16, nop), fp8(40, srcZero)), false},
		{"bf16 MFMA long ago", nil, append(append(append(append([][]uint32{}, movs...), bf16), many(nop, fp8DScratchWindow)...), fp8(40, srcZero)), true},
		{"window", nil, append(many(nop, fp8DScratchWindow), fp8(40, srcZero)), true},
		{"short window", nil, append(many(nop, fp8DScratchWindow-1), fp8(40, srcZero)), false},
		{"scaled FP8 MFMA", nil, append(append([][]uint32{}, movs...), fp8(40, srcZero), fp8(40, srcZero)), true},
		{"predecessor moves", append([][]uint32{}, movs...), [][]uint32{fp8(40, srcZero)}, true},
		{"predecessor MFMA", append(append([][]uint32{}, movs...), bf16), [][]uint32{nop, fp8(40, srcZero)}, false},
		{"MFMA reads D", nil, append(append(append([][]uint32{}, movs...), bf16ReadsD, nop), fp8(40, srcZero)), false},
		{"not zero C", nil, append(append([][]uint32{}, movs...), fp8(40, 256+40)), false},
	}
	for _, c := range cases {
		block := dec(c.block...)
		var pre []*isa.Inst
		if c.pre != nil {
			pre = dec(c.pre...)
		}
		scope := func(fn func([]*isa.Inst, []int, bool)) {
			if pre != nil {
				fn(pre, []int{1}, true)
				fn(block, nil, false)
				return
			}
			fn(block, nil, true)
		}
		i := len(block) - 1
		if got := FP8MFMAShapeAt(block, i, map[string]any{}, scope).DScratch; got != c.want {
			t.Errorf("%s: DScratch %v, want %v", c.name, got, c.want)
		}
	}
}
