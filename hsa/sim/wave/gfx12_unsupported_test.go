package wave

import (
	"strings"
	"testing"
)

// TestGFX12UnsupportedNamed: instructions whose gfx12 semantics the simulator
// lacks the facts for (the transposed loads' lane mapping, the ordered
// add's ordering, the named-barrier state) fault as "not supported",
// naming the instruction, instead of running a guess.
func TestGFX12UnsupportedNamed(t *testing.T) {
	for _, c := range []struct{ src, name string }{
		{"global_load_tr_b128 v[0:3], v[4:5], off", "global_load_tr_b128"},
		{"global_load_tr_b64 v[0:1], v[4:5], off", "global_load_tr_b64"},
		{"global_atomic_ordered_add_b64 v[0:1], v0, v[2:3], s[0:1] th:TH_ATOMIC_RETURN", "global_atomic_ordered_add_b64"},
		{"s_get_barrier_state s0, -1", "s_get_barrier_state"},
	} {
		w, _ := newWave12(t, assemble12(t, c.src, false), false)
		err := w.Run(10)
		if err == nil || !strings.Contains(err.Error(), c.name) || !strings.Contains(err.Error(), "not supported") {
			t.Errorf("%s: %v, want a \"not supported\" fault naming %s", c.src, err, c.name)
		}
	}
}
