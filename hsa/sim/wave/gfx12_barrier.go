package wave

import "fmt"

// gfx12 split barrier, signal side: s_barrier_signal -1 and
// s_barrier_signal_isfirst -1 signal the workgroup barrier (the wait is
// s_barrier_wait); isfirst sets SCC when the wave is the first of its group
// to signal this barrier phase. Waves run in lockstep phases (each stops at
// s_barrier_wait until all have arrived), so a phase is the wave's count of
// signals. Only the workgroup barrier (-1) exists in this model; other ids
// (named and trap barriers) fault.
func barrierSignal12(isFirst bool) func(*Wave, *Inst) error {
	return func(w *Wave, in *Inst) error {
		if id := int32(w.s32(in.Src[0], in)); id != -1 {
			return fmt.Errorf("barrier id %d: only the workgroup barrier (-1) is supported", id)
		}
		w.barrierPhase++
		first := w.group != nil && w.group.signaled < w.barrierPhase
		if first {
			w.group.signaled = w.barrierPhase
		}
		if isFirst {
			w.SCC = first
		}
		w.Lanes++
		return nil
	}
}

func registerGfx12Barrier() {
	def12("s_barrier_signal", barrierSignal12(false))
	def12("s_barrier_signal_isfirst", barrierSignal12(true))
}
