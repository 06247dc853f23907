package wave

import "testing"

// TestGFX12BarrierIsFirst: two waves of one group; in each barrier phase
// only the first wave to signal sees SCC = 1 from s_barrier_signal_isfirst.
func TestGFX12BarrierIsFirst(t *testing.T) {
	code := assemble12(t, `s_barrier_signal_isfirst -1
s_cselect_b32 s0, 1, 2
s_barrier_wait -1
s_barrier_signal_isfirst -1
s_cselect_b32 s1, 1, 2
s_barrier_wait -1`, false)
	w1, _ := newWave12(t, code, false)
	w2, _ := newWave12(t, code, false)
	w2.group = w1.group
	step := func(ws ...*Wave) {
		for _, w := range ws {
			if err := w.Run(100); err != nil {
				t.Fatal(err)
			}
		}
		for _, w := range ws {
			w.AtBarrier = false
		}
	}
	step(w1, w2) // phase 1: w1 signals first
	step(w2, w1) // phase 2: w2 first
	step(w1, w2)
	if w1.S[0] != 1 || w2.S[0] != 2 || w2.S[1] != 1 || w1.S[1] != 2 {
		t.Errorf("isfirst: w1 %d,%d w2 %d,%d; want 1,2 and 2,1", w1.S[0], w1.S[1], w2.S[0], w2.S[1])
	}
	w, _ := newWave12(t, assemble12(t, "s_barrier_signal -2", false), false)
	if err := w.Run(10); err == nil {
		t.Error("s_barrier_signal -2 (trap barrier) ran")
	}
}
