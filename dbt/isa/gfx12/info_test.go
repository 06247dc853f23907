package gfx12

import (
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// TestOpInfoFacts checks the generated per-operation facts of a few
// instructions from LLVM's golden encodings.
func TestOpInfoFacts(t *testing.T) {
	for _, tc := range []struct {
		bytes  []byte
		name   string
		branch isa.BranchKind
		mem    isa.MemKind
		memop  isa.MemOp
		wait   isa.WaitCounter
		reads  isa.ImplicitRegs
		writes isa.ImplicitRegs
		defs   int
	}{
		{[]byte{0x41, 0x01, 0x00, 0xf4, 0x10, 0x00, 0x00, 0xf8}, "s_load_b32", isa.BranchNone, isa.MemScalar, isa.MemLoad, isa.WaitKM, 0, 0, 1},
		{[]byte{0x7c, 0x00, 0x05, 0xee, 0x05, 0x00, 0x00, 0x00, 0x02, 0x10, 0x00, 0x00}, "global_load_b32", isa.BranchNone, isa.MemGlobal, isa.MemLoad, isa.WaitLoad, 0, 0, 1},
		{[]byte{0x02, 0x80, 0x06, 0xee, 0x00, 0x00, 0x00, 0x01, 0x01, 0x10, 0x00, 0x00}, "global_store_b32", isa.BranchNone, isa.MemGlobal, isa.MemStore, isa.WaitStore, 0, 0, 0},
		{[]byte{0x10, 0x00, 0xd8, 0xd8, 0x01, 0x00, 0x00, 0x05}, "ds_load_b32", isa.BranchNone, isa.MemLDS, isa.MemLoad, isa.WaitDS, 0, 0, 1},
		{[]byte{0x01, 0x00, 0xa1, 0xbf}, "s_cbranch_scc0", isa.BranchCond, isa.MemNone, 0, 0, isa.ImpSCC, 0, 0},
		{[]byte{0x01, 0x00, 0xa5, 0xbf}, "s_cbranch_execz", isa.BranchCond, isa.MemNone, 0, 0, isa.ImpEXEC, 0, 0},
		{[]byte{0x00, 0x00, 0xb0, 0xbf}, "s_endpgm", isa.BranchEnd, isa.MemNone, 0, 0, 0, 0, 0},
		{[]byte{0x02, 0x03, 0x01, 0x80}, "s_add_co_u32", isa.BranchNone, isa.MemNone, 0, 0, 0, isa.ImpSCC, 1},
		{[]byte{0x01, 0x05, 0x94, 0x7c}, "v_cmp_eq_u32", isa.BranchNone, isa.MemNone, 0, 0, isa.ImpEXEC, isa.ImpVCC, 1},
		{[]byte{0x02, 0x07, 0x02, 0x02}, "v_cndmask_b32", isa.BranchNone, isa.MemNone, 0, 0, isa.ImpEXEC | isa.ImpVCC, 0, 1},
		{[]byte{0x0f, 0x08, 0x00, 0xf8, 0x01, 0x02, 0x03, 0x04}, "export", isa.BranchNone, isa.MemNone, 0, isa.WaitEXP, 0, 0, 0},
	} {
		in, err := Decode(tc.bytes, 0x100, isa.GFX1200)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		i := in.Info
		if i.Name != tc.name || i.Branch != tc.branch || i.Mem != tc.mem || i.MemOp != tc.memop || i.Wait != tc.wait ||
			i.ImplicitReads != tc.reads || i.ImplicitWrites != tc.writes {
			t.Errorf("%s: got %+v", tc.name, *i)
		}
		if n := len(in.Defs(nil)); n != tc.defs {
			t.Errorf("%s (%s): %d register definitions, want %d", tc.name, Print(&in), n, tc.defs)
		}
		if !i.Targets.Has(isa.GFX1200) || !i.Targets.Has(isa.GFX1201) {
			t.Errorf("%s: targets %v", tc.name, i.Targets)
		}
		if tc.branch == isa.BranchCond {
			if tgt, ok := in.BranchTarget(); !ok || tgt != 0x100+4+4 {
				t.Errorf("%s: branch target %#x %v", tc.name, tgt, ok)
			}
		}
	}
}
