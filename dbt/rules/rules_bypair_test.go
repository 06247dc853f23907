package rules

import "testing"

// TestByPairMirrorsRegistry checks that ForInst's pair index holds every
// registered pair once, with the registry's own rule map.
func TestByPairMirrorsRegistry(t *testing.T) {
	if len(byPair) != len(registry) {
		t.Fatalf("byPair has %d pairs, registry %d", len(byPair), len(registry))
	}
	for _, e := range byPair {
		m, ok := registry[e.pair]
		if !ok {
			t.Fatalf("byPair has %v, registry does not", e.pair)
		}
		if len(m) != len(e.rules) {
			t.Fatalf("%v: byPair has %d ops, registry %d", e.pair, len(e.rules), len(m))
		}
		for op, r := range m {
			if e.rules[op] != r {
				t.Fatalf("%v %s: byPair rule differs from the registry's", e.pair, op)
			}
		}
	}
}
