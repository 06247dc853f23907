package rules

import (
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// fp8DeadAfterByWalks is fp8DeadAfter's definition as a walk per
// register: a depth-first search over the scope from the end of block k,
// a block met again counting as dead (a cycle without a read).
func fp8DeadAfterByWalks(blocks [][]*isa.Inst, succs [][]int, k, r int) bool {
	seen := map[int]bool{}
	var exitDead, entryDead func(b int) bool
	exitDead = func(b int) bool {
		blk := blocks[b]
		switch n := blk[len(blk)-1].Name(); {
		case n == "s_endpgm":
			return true
		case n == "s_setpc_b64" || n == "s_swappc_b64" || n == "s_call_b64" || len(succs[b]) == 0:
			return false
		}
		for _, t := range succs[b] {
			if t < 0 || t >= len(blocks) || !entryDead(t) {
				return false
			}
		}
		return true
	}
	entryDead = func(b int) bool {
		if seen[b] {
			return true
		}
		seen[b] = true
		for _, x := range blocks[b] {
			if x.Info == nil || fp8WalkStop(x) || x.Info.ImplicitWrites&isa.ImpEXEC != 0 || writesExec(x) {
				return false
			}
			wide := fp8Wide(x)
			rd, wr := fp8Names(x, isa.VGPR, r, wide)
			if rd {
				return false
			}
			if wr {
				return !wide && x.Format != isa.DPP && x.Format != isa.SDWA
			}
		}
		return exitDead(b)
	}
	return exitDead(k)
}

// TestFP8DeadExitsMatchWalks checks the fixpoint's dead sets against the
// walk per register for every block end and VGPR of scopes made of the
// aiter corpus's blocks (runs of 40 with a loop, a join and, in every
// other scope, an edge out of the scope), and that both dead and live
// answers occur.
func TestFP8DeadExitsMatchWalks(t *testing.T) {
	blocks := fp8CorpusBlocks(t)
	var dead, live, scopes int
	for lo := 0; lo < len(blocks); lo += 40 {
		hi := min(lo+40, len(blocks))
		sb := blocks[lo:hi]
		n := len(sb)
		succs := make([][]int, n)
		for i := 0; i+1 < n; i++ {
			succs[i] = append(succs[i], i+1)
		}
		if n > 4 {
			succs[n-2] = append(succs[n-2], n/2) // a loop
			succs[n/3] = append(succs[n/3], n)   // an edge out of the scope
			if scopes%2 == 1 {
				succs[n/3] = succs[n/3][:1]
			}
			succs[n/4] = append(succs[n/4], n-1) // a join
		}
		exit := fp8DeadExits(sb, succs)
		for k := range sb {
			for r := 0; r < 256; r++ {
				want := fp8DeadAfterByWalks(sb, succs, k, r)
				if got := exit[k].has(r); got != want {
					t.Fatalf("scope of blocks %d..%d, block %d (ends %s), v%d: fixpoint %v, walk %v", lo, hi, k, sb[k][len(sb[k])-1].Name(), r, got, want)
				}
				if want {
					dead++
				} else {
					live++
				}
			}
		}
		scopes++
	}
	if scopes < 10 || dead == 0 || live == 0 {
		t.Fatalf("%d scopes, %d dead and %d live answers", scopes, dead, live)
	}
	t.Logf("%d scopes: %d dead, %d live", scopes, dead, live)
}
