package gfx950gfx12

import (
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
)

// gfx12 has neither s_memtime nor s_memrealtime (research note §3.1,
// §5.5). s_memtime reads the 64-bit SHADER_CYCLES counter through its two
// hwregs as LLVM lowers readcyclecounter for gfx12 (HI, LO, HI again; the
// low word is 0 when HI moved in between, so the pair is a time between the
// reads); s_memrealtime is s_sendmsg_rtn_b64 MSG_RTN_GET_REALTIME waited
// for with s_wait_kmcnt 0. Both are approximate: the host's counters, not
// the guest's (other frequency and origin).

const (
	hwregCyclesLo  = 29 | 31<<11 // hwreg(SHADER_CYCLES_LO, 0, 32)
	hwregCyclesHi  = 30 | 31<<11 // hwreg(SHADER_CYCLES_HI, 0, 32)
	msgRtnRealtime = 0x83
)

const timerBound = "the host's counter: SHADER_CYCLES for s_memtime, the real-time message for s_memrealtime (frequency and origin differ from gfx9)"

// addTimerRules adds its rules to m (handRules).
func addTimerRules(m map[string]*rule) {
	m["s_memtime"] = &rule{name: "gfx12-memtime", fidelity: report.Approximate, bound: timerBound, emit: memtime}
	m["s_memrealtime"] = &rule{name: "gfx12-memrealtime", fidelity: report.Approximate, bound: timerBound, emit: memrealtime}
}

// timerDst returns the guest's destination SGPR pair.
func timerDst(in *isa.Inst, site pair.Site) (uint16, error) {
	ops, err := hostOperands(in, site)
	if err != nil {
		return 0, err
	}
	if len(ops) != 1 || ops[0].Kind != isa.KindReg || ops[0].Class != isa.SGPR || ops[0].Width != 2 {
		return 0, fmt.Errorf("%s: destination is not an SGPR pair", in.Name())
	}
	return ops[0].Reg, nil
}

// memtime emits HI, LO, HI, then LO := HI unchanged ? LO : 0 and HI := the
// second HI, with SCC saved in a scratch SGPR around the compare.
func memtime(ctx rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	d, err := timerDst(in, site)
	if err != nil {
		return nil, err
	}
	t, err := ctx.TempSGPRPair()
	if err != nil {
		return nil, err
	}
	return seq(
		host{mnem: "s_cselect_b32", ops: []isa.Operand{sr(t+1, 1), inl(1), inl(0)}},
		host{mnem: "s_getreg_b32", ops: []isa.Operand{sr(d+1, 1), imm(hwregCyclesHi)}},
		host{mnem: "s_getreg_b32", ops: []isa.Operand{sr(d, 1), imm(hwregCyclesLo)}},
		host{mnem: "s_getreg_b32", ops: []isa.Operand{sr(t, 1), imm(hwregCyclesHi)}},
		host{mnem: "s_cmp_eq_u32", ops: []isa.Operand{sr(d+1, 1), sr(t, 1)}},
		host{mnem: "s_cselect_b32", ops: []isa.Operand{sr(d, 1), sr(d, 1), inl(0)}},
		host{mnem: "s_mov_b32", ops: []isa.Operand{sr(d+1, 1), sr(t, 1)}},
		host{mnem: "s_cmp_lg_u32", ops: []isa.Operand{sr(t+1, 1), inl(0)}})
}

// memrealtime emits s_sendmsg_rtn_b64 MSG_RTN_GET_REALTIME and waits for
// it.
func memrealtime(_ rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	d, err := timerDst(in, site)
	if err != nil {
		return nil, err
	}
	return seq(
		host{mnem: "s_sendmsg_rtn_b64", ops: []isa.Operand{sr(d, 2), imm(msgRtnRealtime)}},
		host{mnem: "s_wait_kmcnt", ops: []isa.Operand{imm(0)}})
}
