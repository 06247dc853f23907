package place

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"
)

// soppTarget decodes a branch word at addr (GFX9 or GFX12 SOPP) and
// returns its opcode field and target.
func soppTarget(t *testing.T, w uint32, addr uint64) (uint32, uint64) {
	t.Helper()
	if w>>23 != 0x17f {
		t.Fatalf("word %#x at %#x is not SOPP", w, addr)
	}
	simm := int64(int16(uint16(w)))
	return w >> 16 & 0x7f, uint64(int64(addr) + 4 + 4*simm)
}

// islandBody is a body of n NOP words with a pool of the given targets
// every spacing words (not at 0), an island branch at offset 0 to the
// last word and one at the last word (conditional) back to offset 4.
func islandBody(n, spacing int, op uint8) *Body {
	const entry = 0x1000
	far, back := uint64(entry+4*(n-1)), uint64(entry+4)
	b := body("k", entry, n,
		Fixup{Kind: Branch, Op: OpBranch, Off: 0, Size: 4, Target: far, Island: true, Src: entry},
		Fixup{Kind: Branch, Op: op, Off: 4 * (n - 1), Size: 4, Target: back, Island: true, Src: far})
	b.Map[far] = 4 * (n - 1)
	b.Map[back] = 4
	for w := spacing; w+3 < n-1; w += spacing {
		b.Islands = append(b.Islands, Island{Off: 4 * w, Targets: []uint64{back, far}})
	}
	return b
}

// TestBranchIslandsChain lays out a 1 MiB body whose first word branches
// to its last and whose last word branches (conditionally) back to its
// second, with pools every 64 KiB, for GFX9 and GFX12 words, and follows
// both routes word by word: each hop is a SOPP branch of the host's set,
// every intermediate address is a stub of a pool, each route ends at its
// target, and every pool starts with an s_branch over itself.
func TestBranchIslandsChain(t *testing.T) {
	for _, ws := range []*Words{GFX9, GFX12} {
		t.Run(ws.Name, func(t *testing.T) {
			const n = 1 << 18 // words
			b := islandBody(n, 1<<14, OpCbranchSCC0)
			b.Words = ws
			text, pl, err := Layout(0x1000, 0, []*Body{b})
			if err != nil {
				t.Fatal(err)
			}
			w := func(a uint64) uint32 { return binary.LittleEndian.Uint32(text[a-0x1000:]) }
			stub := map[uint64]bool{}
			for _, is := range b.Islands {
				at := pl[0].Base + uint64(is.Off)
				if w(at) != ws.SOPP(OpBranch, int16(len(is.Targets))) {
					t.Fatalf("pool at %#x starts with %#x, want a skip over %d stubs", at, w(at), len(is.Targets))
				}
				for j := range is.Targets {
					stub[at+4+4*uint64(j)] = true
				}
			}
			for _, c := range []struct {
				from, to uint64
				op       uint8
			}{{0x1000, 0x1000 + 4*(n-1), OpBranch}, {0x1000 + 4*(n-1), 0x1004, OpCbranchSCC0}} {
				op, cur := soppTarget(t, w(c.from), c.from)
				if want := ws.SOPP(c.op, 0) >> 16 & 0x7f; op != want {
					t.Fatalf("branch at %#x has op %#x, want %#x (the condition is kept)", c.from, op, want)
				}
				hops := 0
				for stub[cur] {
					if w(cur) != ws.SOPP(OpBranch, int16(uint16(w(cur)))) {
						t.Fatalf("stub at %#x is %#x, not an s_branch", cur, w(cur))
					}
					_, cur = soppTarget(t, w(cur), cur)
					hops++
				}
				if cur != c.to {
					t.Fatalf("route from %#x ends at %#x, want %#x", c.from, cur, c.to)
				}
				// 1 MiB at up to 128 KiB per hop: at least 7 stubs.
				if hops < 7 || hops > 16 {
					t.Fatalf("route from %#x takes %d stubs", c.from, hops)
				}
			}
			if pl[0].IslandHops < 14 {
				t.Fatalf("IslandHops %d", pl[0].IslandHops)
			}
		})
	}
}

// TestBranchIslandsInRange: an island branch whose target is in range is
// an ordinary SOPP branch and takes no stub.
func TestBranchIslandsInRange(t *testing.T) {
	b := islandBody(1<<10, 1<<8, OpCbranchVCCZ)
	text, pl, err := Layout(0x1000, 0, []*Body{b})
	if err != nil {
		t.Fatal(err)
	}
	if _, to := soppTarget(t, binary.LittleEndian.Uint32(text), 0x1000); to != 0x1000+4*(1<<10-1) {
		t.Fatalf("in-range island branch goes to %#x", to)
	}
	if pl[0].IslandHops != 0 {
		t.Fatalf("IslandHops %d, want 0", pl[0].IslandHops)
	}
}

// TestBranchIslandsTooSparse: pools farther apart than a SOPP offset
// reaches leave no route, and placement fails with a reason instead of
// writing a wrong branch.
func TestBranchIslandsTooSparse(t *testing.T) {
	b := islandBody(1<<18, 1<<16, OpBranch) // pools every 256 KiB
	_, _, err := Layout(0x1000, 0, []*Body{b})
	if err == nil || !strings.Contains(err.Error(), "island") {
		t.Fatalf("want an island routing error, got %v", err)
	}
}

// TestFarCallNeverThroughIslands: a call fixup asking for islands is an
// error, whatever the distance.
func TestFarCallNeverThroughIslands(t *testing.T) {
	b := islandBody(1<<18, 1<<14, OpBranch)
	b.Fixups[0] = Fixup{Kind: Call, Off: 0, Size: 4, Target: 0x1000 + 4*(1<<18-1), Pair: 30, Island: true, Src: 0x1000}
	_, _, err := Layout(0x1000, 0, []*Body{b})
	if err == nil || !strings.Contains(err.Error(), "direct call") {
		t.Fatalf("want a direct-call error, got %v", err)
	}
}

// TestBranchIslandsRandomRoutes places 64 island branches with random
// sources, targets and conditions in a 2 MiB body with pools every 64 KiB
// (the translator's spacing), in GFX9 and GFX12 words, and follows every
// route: it must end at its target through stubs only, and each pool must
// skip itself.
func TestBranchIslandsRandomRoutes(t *testing.T) {
	const entry, n, spacing = 0x1000, 1 << 19, 1 << 14 // words
	ops := []uint8{OpBranch, OpCbranchSCC0, OpCbranchSCC1, OpCbranchVCCZ, OpCbranchVCCNZ, OpCbranchEXECZ, OpCbranchEXECNZ}
	rng := rand.New(rand.NewPCG(14, 14))
	for _, ws := range []*Words{GFX9, GFX12} {
		t.Run(ws.Name, func(t *testing.T) {
			b := body("k", entry, n)
			b.Words = ws
			isPool := func(w int) bool { return w%spacing < 80 && w >= spacing }
			var targets []uint64
			var fx []Fixup
			for len(fx) < 64 {
				from, to := rng.IntN(n), rng.IntN(n)
				if isPool(from) || isPool(to) || from == to {
					continue
				}
				dup := false
				for _, f := range fx {
					dup = dup || f.Off == 4*from
				}
				if dup {
					continue
				}
				tgt := uint64(entry + 4*to)
				b.Map[tgt] = 4 * to
				targets = append(targets, tgt)
				fx = append(fx, Fixup{Kind: Branch, Op: ops[rng.IntN(len(ops))], Off: 4 * from, Size: 4, Target: tgt, Island: true, Src: uint64(entry + 4*from)})
			}
			b.Fixups = fx
			for w := spacing; w < n-80; w += spacing {
				b.Islands = append(b.Islands, Island{Off: 4 * w, Targets: targets})
			}
			text, pl, err := Layout(entry, 0, []*Body{b})
			if err != nil {
				t.Fatal(err)
			}
			w := func(a uint64) uint32 { return binary.LittleEndian.Uint32(text[a-entry:]) }
			stub := map[uint64]bool{}
			for _, is := range b.Islands {
				at := pl[0].Base + uint64(is.Off)
				if _, to := soppTarget(t, w(at), at); to != at+uint64(is.Size()) {
					t.Fatalf("pool at %#x skips to %#x", at, to)
				}
				for j := range is.Targets {
					stub[at+4+4*uint64(j)] = true
				}
			}
			for _, f := range fx {
				from := pl[0].Base + uint64(f.Off)
				op, cur := soppTarget(t, w(from), from)
				if want := ws.SOPP(f.Op, 0) >> 16 & 0x7f; op != want {
					t.Fatalf("branch at %#x: op %#x, want %#x", from, op, want)
				}
				for hops := 0; stub[cur]; hops++ {
					if hops > 64 {
						t.Fatalf("route from %#x loops", from)
					}
					_, cur = soppTarget(t, w(cur), cur)
				}
				if cur != pl[0].Base+uint64(b.Map[f.Target]) {
					t.Fatalf("route from %#x ends at %#x, want %#x", from, cur, f.Target)
				}
			}
		})
	}
}
