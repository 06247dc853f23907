package rules

import (
	"math/rand"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
)

// TestFP8RecentMatchesScopeWaits checks fp8Graph.recent against the whole
// scope's fixpoint (fp8ScopeWaits) on random scopes of blocks (some
// longer than fp8DScratchWindow): for
// every block and budget, the registers of v[40:43] some path reaches
// within the budget are those whose entry wait states are below it.
func TestFP8RecentMatchesScopeWaits(t *testing.T) {
	pool := [][]uint32{
		{0xbf800000},                                           // s_nop 0
		{0x7e500280}, {0x7e520280}, {0x7e540280}, {0x7e560280}, // v_mov_b32 v40..v43, 0
		{0xd3800000 | 0x35<<16 | 40, (256 + 10) | (256+12)<<9 | srcZero<<18},  // bf16 MFMA, D v[40:43]
		{0xd3800000 | 0x35<<16 | 48, (256 + 10) | (256+12)<<9 | (256+40)<<18}, // bf16 MFMA reading v[40:43] as C
		{0xd3800000 | 0x73<<16 | 40, (256 + 10) | (256+12)<<9 | srcZero<<18},  // FP8 MFMA, zero C, D v[40:43]
		{0xd3800000 | 0x73<<16 | 40, (256 + 10) | (256+12)<<9 | (256+40)<<18}, // FP8 MFMA chained on v[40:43]
	}
	rng := rand.New(rand.NewSource(15))
	pc := uint64(0)
	dec := func(w []uint32) *isa.Inst {
		in, err := gfx9.Decode(appendWords(nil, w...), pc, isa.GFX950)
		if err != nil {
			t.Fatal(err)
		}
		pc += uint64(in.Size)
		return &in
	}
	for iter := 0; iter < 1000; iter++ {
		n := 1 + rng.Intn(7)
		blocks := make([][]*isa.Inst, n)
		succs := make([][]int, n)
		entry := make([]bool, n)
		for b := range blocks {
			// Every scope tracks v[40:43]: one zero-C FP8 MFMA somewhere.
			if b == 0 {
				blocks[b] = append(blocks[b], dec(pool[7]))
			}
			for k := rng.Intn([]int{6, 6, 30}[rng.Intn(3)]); k >= 0; k-- { // some longer than the window
				blocks[b] = append(blocks[b], dec(pool[rng.Intn(len(pool))]))
			}
			for k := rng.Intn(3); k > 0; k-- {
				succs[b] = append(succs[b], rng.Intn(n+1)-rng.Intn(2)) // -1 and n: out of the list
			}
			entry[b] = rng.Intn(5) == 0
		}
		scope := func(fn func([]*isa.Inst, []int, bool)) {
			for b := range blocks {
				fn(blocks[b], succs[b], entry[b])
			}
		}
		ref := &fp8ScopeState{blocks: map[*isa.Inst]*fp8BlockState{}}
		fp8ScopeWaits(scope, ref)
		st := &fp8ScopeState{blocks: map[*isa.Inst]*fp8BlockState{}}
		g := st.graphOf(scope)
		for b := range blocks {
			in := ref.block(blocks[b]).waits
			for budget := 1; budget <= fp8DScratchWindow; budget++ {
				var want uint32
				for k := 0; k < 4; k++ {
					if int(in[40+k]) < budget {
						want |= 1 << uint(k)
					}
				}
				if got := g.recent(st, g.index[blocks[b][0]], 40, 0xf, budget, nil); got != want {
					t.Fatalf("scope %d block %d budget %d: recent %04b, fixpoint %04b (entry waits %v)", iter, b, budget, got, want, in[40:44])
				}
			}
		}
	}
}
