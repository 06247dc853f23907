package gfx950gfx12

import (
	"fmt"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/dbt/report"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
)

// gfx950 16x16 SMFMACs -> chained gfx12 wave64 SWMMACs:
// v_smfmac_f32_16x16x128_{fp8,bf8}_{fp8,bf8} (OCP, as gfx12) and
// v_smfmac_i32_16x16x128_i8 -> four v_swmmac_*_16x16x32_{fp8..,iu8},
// v_smfmac_f32_16x16x64_{f16,bf16} -> two v_swmmac_f32_16x16x32_*. The
// 8-bit layouts:
//
//   - SMFMAC (the gfx9 simulator's, after MLIR's amdgpu.sparse_mfma): lane
//     l has row/column l%16 and the dense K segment 32*(l/16)..+31; A holds
//     its 16 stored values (two per group of four k) in 4 VGPRs, byte e of
//     the lane = stored value e; B holds the 32 dense values, byte e = k
//     32*(l/16)+e; the index VGPR holds 2 bits per stored value, lowest
//     first. So A register n, B registers 2n, 2n+1 and index byte n of a
//     lane all cover k = 32*(l/16)+8n..+7.
//   - SWMMAC 16x16x32 fp8, wave64 (research note §3.8, AMD's matrix
//     calculator; the gfx12 simulator): lane group G = l/16 holds one block
//     of eight dense k (G 0, 1, 2, 3: k 0-7, 16-23, 8-15, 24-31) for A
//     (one VGPR: the block's four stored values), B (two VGPRs, four k
//     each) and the index (window index_key, 8 bits: a nibble per group of
//     four, bit pairs in stored-value order).
//
// Within a lane both pack one block of eight k the same way, so SWMMAC n
// takes A register n, B registers 2n..2n+1 and index_key n unchanged: the
// k assignment differs from the SMFMAC's but is one bijection for A, B
// and the index (research note §3.8, K-split shapes). C/D are the 16x16
// MFMA/WMMA layouts: lane groups 1 and 2 swapped in and out through
// ds_bpermute_b32, as for the dense rule (wmma.go).

// swmmacShape is an SMFMAC with an SWMMAC rule: steps chained SWMMACs,
// each taking a A and b B registers of the guest's; sets index sets in the
// guest's index VGPR (abid picks one), each steps windows of the SWMMAC's.
type swmmacShape struct {
	op     string
	steps  int
	a, b   uint16
	sets   int
	signed bool // iu8: neg_lo[0] and [1] make A and B signed
}

// smfmacSWMMAC maps the SMFMACs with a rule to their SWMMAC. The 16-bit
// shapes pack two stored values and two k per VGPR, and a lane's dense
// segment is 16 k (SMFMAC) and a block of 8 k (SWMMAC A: two VGPRs, B:
// four), so SWMMAC n takes A registers 2n..2n+1 and B registers 4n..4n+3;
// their index set is 16 bits, two SWMMAC windows of 8, so index_key is
// 2*abid + n.
var smfmacSWMMAC = map[string]swmmacShape{
	"v_smfmac_f32_16x16x128_fp8_fp8": {op: "v_swmmac_f32_16x16x32_fp8_fp8", steps: 4, a: 1, b: 2, sets: 1},
	"v_smfmac_f32_16x16x128_fp8_bf8": {op: "v_swmmac_f32_16x16x32_fp8_bf8", steps: 4, a: 1, b: 2, sets: 1},
	"v_smfmac_f32_16x16x128_bf8_fp8": {op: "v_swmmac_f32_16x16x32_bf8_fp8", steps: 4, a: 1, b: 2, sets: 1},
	"v_smfmac_f32_16x16x128_bf8_bf8": {op: "v_swmmac_f32_16x16x32_bf8_bf8", steps: 4, a: 1, b: 2, sets: 1},
	"v_smfmac_i32_16x16x128_i8":      {op: "v_swmmac_i32_16x16x32_iu8", steps: 4, a: 1, b: 2, sets: 1, signed: true},
	"v_smfmac_f32_16x16x64_f16":      {op: "v_swmmac_f32_16x16x32_f16", steps: 2, a: 2, b: 4, sets: 2},
	"v_smfmac_f32_16x16x64_bf16":     {op: "v_swmmac_f32_16x16x32_bf16", steps: 2, a: 2, b: 4, sets: 2},
}

const dupIndexBound = "index sets naming one position twice in a group of four (invalid 2:4 data) are read differently by the two simulators"

const swmmacBound = wmmaBound + "; " + dupIndexBound

// addSMFMACRules adds its rules to m (handRules).
func addSMFMACRules(m map[string]*rule) {
	for n, sh := range smfmacSWMMAC {
		bound := swmmacBound
		if sh.signed {
			bound = "int32 sums wrap on both (exact); " + dupIndexBound
		}
		m[n] = &rule{name: "gfx12-smfmac-swmmac", fidelity: report.Approximate, bound: bound, emit: smfmacRule}
	}
}

// smfmacRule emits the group swap of D into a scratch accumulator, the
// chained SWMMACs (a v_nop between dependent ones) and the swap back.
func smfmacRule(ctx rules.Context, in *isa.Inst, site pair.Site) ([]byte, error) {
	sh := smfmacSWMMAC[in.Name()]
	m := in.Mod
	if m.CBSZ != 0 || int(m.ABID) >= sh.sets || m.BLGP != 0 || m.NegLo != 0 || m.NegHi != 0 || m.Clamp {
		return nil, fmt.Errorf("%s with cbsz/blgp/neg/clamp or abid %d (of %d index sets) has no SWMMAC form", in.Name(), m.ABID, sh.sets)
	}
	ops, err := hostOperands(in, site)
	if err != nil {
		return nil, err
	}
	if len(ops) != 4 {
		return nil, fmt.Errorf("%s operands", in.Name())
	}
	d, a, b, idx := ops[0], ops[1], ops[2], ops[3]
	for i, want := range []uint8{4, 4, 8, 1} {
		if o := ops[i]; o.Kind != isa.KindReg || o.Class != isa.VGPR || o.Width != want {
			return nil, fmt.Errorf("%s operand %d must be %d VGPRs", in.Name(), i, want)
		}
	}
	addr, err := ctx.TempVGPRs(2)
	if err != nil {
		return nil, err
	}
	acc, err := ctx.TempVGPRRange(4, 1)
	if err != nil {
		return nil, err
	}
	hs := groupSwapAddr(addr[0], addr[1])
	t := addr[0]
	hs = append(hs, groupSwap(acc, d.Reg, t)...)
	for n := 0; n < sh.steps; n++ {
		w := host{mnem: sh.op, ops: []isa.Operand{vr(acc, 4), vr(a.Reg+uint16(n)*sh.a, uint8(sh.a)), vr(b.Reg+uint16(n)*sh.b, uint8(sh.b)), idx}}
		w.mod.OpSel = uint8(int(m.ABID)*sh.steps + n)
		w.mod.OpSelHi = 7 // LLVM's canonical encoding
		if sh.signed {
			w.mod.NegLo = 3
		}
		if n > 0 {
			hs = append(hs, host{mnem: "v_nop"})
		}
		hs = append(hs, w)
	}
	hs = append(hs, host{mnem: "v_nop"})
	hs = append(hs, groupSwap(d.Reg, acc, t)...)
	return seq(hs...)
}
