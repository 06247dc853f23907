package cfg

import "fmt"

// Scope is the set of blocks reachable from one kernel's entries.
type Scope struct {
	// Kernel is the kernel index; Roots its entry addresses (the
	// descriptor entry first, then the preload entry if any).
	Kernel int
	Roots  []uint64
	// Blocks lists the scope's leaders in ascending source order.
	Blocks []uint64
	// Errors lists problems inside the scope (address -> reason): decode
	// failures, unresolved indirect transfers, edges into another
	// kernel's entry.
	Errors map[uint64]string
}

// Scope returns the scope of kernel k. Traversal follows branch,
// fallthrough and call edges and stops at other kernels' entries.
func (g *Graph) Scope(k int) *Scope {
	sc := &Scope{Kernel: k, Errors: map[uint64]string{}}
	stop := map[uint64]bool{}
	for _, r := range g.Roots {
		if r.Kernel == k {
			sc.Roots = append(sc.Roots, r.Addr)
		}
	}
	for _, r := range g.Roots {
		if r.Kernel != k && !contains(sc.Roots, r.Addr) {
			stop[r.Addr] = true
		}
	}
	sc.Blocks = g.reachable(sc.Roots, stop)
	in := map[uint64]bool{}
	for _, l := range sc.Blocks {
		in[l] = true
	}
	for _, l := range sc.Blocks {
		b := g.Blocks[l]
		targets := append([]uint64(nil), b.Succs...)
		for _, c := range b.Calls {
			targets = append(targets, c.Callee)
		}
		for _, t := range targets {
			if stop[t] {
				sc.Errors[b.Last().PC] = fmt.Sprintf("control flow reaches another kernel's entry %#x", t)
			} else if msg, bad := g.Errors[t]; bad {
				sc.Errors[t] = msg
			} else if _, ok := g.Blocks[t]; !ok {
				sc.Errors[b.Last().PC] = fmt.Sprintf("edge to %#x, which is not a decoded instruction start", t)
			}
		}
		if ind, ok := g.Indirect[b.Last().PC]; ok && ind.Kind == Unresolved {
			sc.Errors[ind.Addr] = "unrecovered indirect transfer: " + ind.Reason
		}
		for _, x := range b.Insts {
			if len(g.Errors) == 0 {
				break
			}
			if msg, bad := g.Errors[x.PC]; bad {
				sc.Errors[x.PC] = msg
			}
		}
	}
	return sc
}

func contains(s []uint64, a uint64) bool {
	for _, x := range s {
		if x == a {
			return true
		}
	}
	return false
}
