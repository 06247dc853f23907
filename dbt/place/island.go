package place

import "fmt"

// Branch islands. A kernel with no dead SGPR pair at an out-of-range
// branch cannot build a long s_getpc/s_setpc window, so the translator
// inserts island pools into the body instead: an s_branch over the pool,
// then one 4-byte stub per far target. Execution never falls into a pool.
// An island branch keeps its 4-byte window (a conditional one keeps its
// condition: it is evaluated once, at the source, and only the taken path
// enters the pool) and jumps to the stub for its target in the pool
// farthest towards the target that a SOPP offset reaches; that stub is an
// s_branch to the target or, again, to the farthest reachable stub for the
// same target, so far targets are reached through a chain of pools. Stubs
// for one target are shared by every branch to it. Only the SOPP offsets
// change; SCC, EXEC and every SGPR are left alone.

// Island is one skipped pool of branch stubs.
type Island struct {
	// Off is the body offset of the pool's leading s_branch over it.
	Off int
	// Targets are the source addresses the pool has a stub for: the stub
	// of Targets[i] is at Off+4+4*i.
	Targets []uint64
}

// Size is the pool's size in bytes.
func (is Island) Size() int { return 4 + 4*len(is.Targets) }

// IslandSize is the size of a pool with n stubs.
func IslandSize(n int) int { return 4 + 4*n }

// inRange reports whether a SOPP branch at from reaches to.
func inRange(from, to uint64) bool {
	_, ok := simm16(from, to)
	return ok
}

// stubAddr returns the host address of island i's stub for target, if it
// has one.
func stubAddr(b *Body, p *Placed, i int, target uint64) (uint64, bool) {
	is := b.Islands[i]
	for j, t := range is.Targets {
		if t == target {
			return p.Base + uint64(is.Off+4+4*j), true
		}
	}
	return 0, false
}

// nextHop returns where a branch at cur to host address to (source target)
// jumps: to itself when in range, else the stub for target that lies
// between cur and to, is reachable from cur, and is nearest to to.
func nextHop(b *Body, p *Placed, cur, to, target uint64) (uint64, bool) {
	if inRange(cur, to) {
		return to, true
	}
	best, found := uint64(0), false
	for i := range b.Islands {
		s, ok := stubAddr(b, p, i, target)
		if !ok || !inRange(cur, s) {
			continue
		}
		between := (to > cur && s > cur && s < to) || (to < cur && s < cur && s > to)
		if !between {
			continue
		}
		if !found || dist(s, to) < dist(best, to) {
			best, found = s, true
		}
	}
	return best, found
}

func dist(a, b uint64) uint64 {
	if a > b {
		return a - b
	}
	return b - a
}

// islandHop returns the first address of an island branch's route from
// the window at from to host address to, and how many stubs the route
// passes. Every hop strictly approaches the target, so the route ends.
func islandHop(b *Body, p *Placed, from, to, target uint64) (uint64, int, error) {
	first, ok := nextHop(b, p, from, to, target)
	if !ok {
		return 0, 0, fmt.Errorf("target %#x is out of SOPP range and no island pool with a stub for it is reachable", target)
	}
	n := 0
	for cur := first; cur != to; n++ {
		next, ok := nextHop(b, p, cur, to, target)
		if !ok {
			return 0, 0, fmt.Errorf("island chain to %#x breaks at host %#x: no further pool is reachable", target, cur)
		}
		cur = next
	}
	return first, n, nil
}

// writeIslands fills the body's pools after placement: the skip branch of
// each pool and every stub whose route to its target exists (a stub with
// no route is left a NOP; no island branch can reach it, because
// islandHop follows the same routes and fails first).
func writeIslands(text []byte, textAddr uint64, b *Body, p *Placed) error {
	ws := b.words()
	for i, is := range b.Islands {
		if len(is.Targets) > 32767 {
			return fmt.Errorf("place: %s: island pool at body offset %#x has %d stubs, more than a SOPP offset skips", b.Name, is.Off, len(is.Targets))
		}
		if is.Off < 0 || is.Off+is.Size() > len(b.Code) {
			return fmt.Errorf("place: %s: island pool at body offset %#x (%d bytes) is outside the %d-byte body", b.Name, is.Off, is.Size(), len(b.Code))
		}
		at := int(p.Base-textAddr) + is.Off
		put(text[at:], ws.SOPP(OpBranch, int16(len(is.Targets))))
		for j, t := range is.Targets {
			o, ok := b.Offset(t)
			if !ok {
				return fmt.Errorf("place: %s: island pool at body offset %#x has a stub for %#x, which is not in the scope", b.Name, is.Off, t)
			}
			to := p.Base + uint64(o)
			s, _ := stubAddr(b, p, i, t)
			w := uint32(NopWord)
			if hop, ok := nextHop(b, p, s, to, t); ok {
				simm, _ := simm16(s, hop)
				w = ws.SOPP(OpBranch, simm)
			}
			put(text[at+4+4*j:], w)
		}
	}
	return nil
}
