package live

import (
	"encoding/binary"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/cfg"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
)

func build(t *testing.T, words ...uint32) (*cfg.Graph, *cfg.Scope) {
	t.Helper()
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	g, err := cfg.Build(cfg.Text{Addr: 0x100, Data: b}, []cfg.Root{{Addr: 0x100}}, func(c []byte, pc uint64) (isa.Inst, error) {
		return gfx9.Decode(c, pc, isa.GFX942)
	}, cfg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g, g.Scope(0)
}

func TestReachableReads(t *testing.T) {
	// 0x100 v_add_u32 v1, v2, v3
	// 0x104 s_cbranch_scc0 +1 -> 0x10c
	// 0x108 v_mov_b32 v4, v5    (one path reads v5)
	// 0x10c v_mov_b32 v2, v6    (both paths read v6, write v2)
	// 0x110 v_mov_b32 v7, v2
	// 0x114 s_endpgm
	g, sc := build(t, 0x68020702, 0xbf840001, 0x7e080305, 0x7e040306, 0x7e0e0302, 0xbf810000)
	info := Analyze(g, sc, nil)
	after := info.After(0x100)
	for _, r := range []int{5, 6, 2} {
		if !after.V.Has(r) {
			t.Fatalf("v%d not live after 0x100", r)
		}
	}
	for _, r := range []int{1, 3, 4, 7, 8} {
		if after.V.Has(r) {
			t.Fatalf("v%d live after 0x100", r)
		}
	}
	// Writes never end a life: v2 is written at 0x10c but read at 0x110,
	// and it stays live before the write too (EXEC may mask the write).
	if !info.After(0x108).V.Has(2) {
		t.Fatal("v2 not live across a masked write")
	}
	in, _ := g.Inst(0x100)
	free := info.FreeVGPRs(in, 10, 3)
	if len(free) != 3 || free[0] != 0 || free[1] != 4 || free[2] != 7 {
		t.Fatalf("free VGPRs %v, want [0 4 7] (v1..v3 are named by the instruction, v2/v5/v6 live)", free)
	}
	// Extra uses make registers live.
	info = Analyze(g, sc, func(x *isa.Inst) []isa.Operand {
		if x.PC == 0x114 {
			return []isa.Operand{{Kind: isa.KindReg, Class: isa.VGPR, Reg: 9, Width: 1}}
		}
		return nil
	})
	if !info.After(0x100).V.Has(9) {
		t.Fatal("extra use ignored")
	}
	if p, ok := info.FreeSGPRPair(in, 20); !ok || p != 0 {
		t.Fatalf("free SGPR pair %d %v", p, ok)
	}
}

// TestSetAdd compares Add with a register-by-register version for every
// range that touches the set's bounds or a word boundary.
func TestSetAdd(t *testing.T) {
	for first := -70; first < 530; first++ {
		for _, n := range []int{0, 1, 2, 3, 4, 8, 16, 32, 63, 64, 65, 100, 600} {
			var got, want Set
			got.Add(first, n)
			for r := first; r < first+n && r < 64*len(want); r++ {
				if r >= 0 {
					want[r/64] |= 1 << (r % 64)
				}
			}
			if got != want {
				t.Fatalf("Add(%d, %d) = %x, want %x", first, n, got, want)
			}
		}
	}
}
