package sim

import (
	"fmt"
	"strings"

	"github.com/rocjitsu/rocjitsu/hsa/sim/wave"
)

// The gfx1200/gfx1201 (RDNA4) mode of the agent: each kernel runs as wave32
// or wave64 as its descriptor says, with the gfx12 launch state (research
// notes gfx950-to-gfx12.md §1 and §7): user SGPRs as on gfx9, the workgroup
// ids in TTMP9 (X) and TTMP7 (Y, and Z in [31:16] when the kernel uses Z)
// instead of SGPRs, the wave's number in its group in TTMP8[29:25],
// work-item ids packed in v0, architected flat scratch (each lane's private
// segment), no AGPRs and no kernarg preloading.

// codePropWave32 is kernel_code_properties bit 10, ENABLE_WAVEFRONT_SIZE32.
const codePropWave32 = 1 << 10

// gfx12Target maps a processor name to the interpreter's gfx12 target.
func gfx12Target(name string) (wave.Target, bool) {
	switch name {
	case "gfx1200":
		return wave.GFX1200, true
	case "gfx1201":
		return wave.GFX1201, true
	}
	return 0, false
}

// waveISA returns the interpreter target a kernel runs with and its wave
// size: the agent's target, with wave.Wave64 for gfx12 wave64 kernels.
func (a *Agent) waveISA(k *Kernel) (wave.Target, int) {
	if !a.isa.GFX12() {
		return a.isa, 64
	}
	if k.Desc.CodeProperties&codePropWave32 != 0 {
		return a.isa, 32
	}
	return a.isa | wave.Wave64, 64
}

// program returns the decoded-instruction cache for target t (gfx12 wave32
// and wave64 code decode differently, so each has its own).
func (a *Agent) program(t wave.Target) *wave.Program {
	p := a.progs[t]
	if p == nil {
		p = wave.NewProgram(a.Mem, t)
		a.progs[t] = p
	}
	return p
}

// gfx12VGPRs returns the VGPRs a gfx12 descriptor allocates: granule 8 in
// wave32, 4 in wave64 (GRANULATED_WORKITEM_VGPR_COUNT); there are no AGPRs.
func gfx12VGPRs(d Descriptor, lanes int) int {
	g := 8
	if lanes == 64 {
		g = 4
	}
	return min((int(d.RSRC1&0x3f)+1)*g, 256)
}

// checkFamily rejects a code object of the other ISA family: gfx9 code
// cannot run on a gfx12 agent nor the other way round.
func (a *Agent) checkFamily(obj string) error {
	objGFX12 := strings.HasPrefix(obj, "gfx12")
	if objGFX12 != a.isa.GFX12() {
		return fmt.Errorf("code object: a %s object cannot run on the simulated %s", obj, a.Target)
	}
	return nil
}

// initWave12 sets the gfx12 initial register state of wave wi of a group.
func (a *Agent) initWave12(w *wave.Wave, l *launch, wi, threads int, bs, gid [3]uint32) {
	k, private := l.k, l.private
	d := k.Desc
	_, lanes := a.waveISA(k)
	initLanes(w, d, wi, lanes, threads, bs, private)
	s := 0
	put := func(v uint32) {
		if s < 106 {
			w.S[s] = v
		}
		s++
	}
	// The private segment buffer is not used with architected flat scratch.
	putUserSGPRs(put, d.CodeProperties, l, private, lanes, 0x31004000)
	// Architected SGPRs: the workgroup ids are in trap temporaries.
	w.S[wave.RegTTMP0+9] = gid[0]
	ttmp7 := gid[1]
	if d.RSRC2>>9&1 != 0 { // Z is used: Y and Z share TTMP7
		ttmp7 = gid[1]&0xffff | gid[2]<<16
	}
	w.S[wave.RegTTMP0+7] = ttmp7
	w.S[wave.RegTTMP0+8] = uint32(wi&31) << 25
}
