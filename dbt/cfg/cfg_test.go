package cfg

import (
	"encoding/binary"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
)

const base = 0x1000

func text(words ...uint32) Text {
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return Text{Addr: base, Data: b}
}

func decode(code []byte, pc uint64) (isa.Inst, error) { return gfx9.Decode(code, pc, isa.GFX950) }

// A direct call through s_getpc/s_add/s_addc/s_swappc and its return.
func TestRecoveredCallAndReturn(t *testing.T) {
	tx := text(
		0xbe841c00,             // 0x00 s_getpc_b64 s[4:5]
		0x8004ff04, 0x0000001c, // 0x04 s_add_u32 s4, s4, 0x1c   -> 0x1020
		0x82058005, // 0x0c s_addc_u32 s5, s5, 0
		0xbe9e1e04, // 0x10 s_swappc_b64 s[30:31], s[4:5]
		0xbf840001, // 0x14 s_cbranch_scc0 0x1c
		0xbf800000, // 0x18 s_nop 0
		0xbf810000, // 0x1c s_endpgm
		0x7e000281, // 0x20 v_mov_b32 v0, 1 (callee)
		0xbe801d1e, // 0x24 s_setpc_b64 s[30:31]
	)
	g, err := Build(tx, []Root{{Kernel: 0, Addr: base}}, decode, Options{})
	if err != nil {
		t.Fatal(err)
	}
	call := g.Indirect[base+0x10]
	if call == nil || call.Kind != IndirectCall || len(call.Targets) != 1 || call.Targets[0] != base+0x20 || call.RetPair != 30 {
		t.Fatalf("swappc: %+v", call)
	}
	ret := g.Indirect[base+0x24]
	if ret == nil || ret.Kind != Return {
		t.Fatalf("setpc: %+v", ret)
	}
	for _, l := range []uint64{base, base + 0x14, base + 0x18, base + 0x1c, base + 0x20} {
		if g.Blocks[l] == nil {
			t.Fatalf("no block at %#x; leaders %x", l, g.Order)
		}
	}
	if cs := g.Blocks[base].Calls; len(cs) != 1 || cs[0].Callee != base+0x20 || cs[0].Cont != base+0x14 {
		t.Fatalf("call edges %+v", cs)
	}
	sc := g.Scope(0)
	if len(sc.Errors) != 0 || len(sc.Blocks) != len(g.Order) {
		t.Fatalf("scope %+v", sc)
	}
}

// A setpc through a pair loaded from memory is not guessed.
func TestUnresolvedIndirect(t *testing.T) {
	tx := text(
		0xc0060200, 0x00000000, // s_load_dwordx2 s[8:9], s[0:1], 0x0
		0xbf8cc07f, // s_waitcnt lgkmcnt(0)
		0xbe801d08, // s_setpc_b64 s[8:9]
	)
	g, err := Build(tx, []Root{{Addr: base}}, decode, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ind := g.Indirect[base+0xc]
	if ind == nil || ind.Kind != Unresolved || ind.Reason == "" {
		t.Fatalf("setpc: %+v", ind)
	}
	if sc := g.Scope(0); sc.Errors[base+0xc] == "" {
		t.Fatalf("scope has no error for the unresolved transfer: %+v", sc.Errors)
	}
}

// Two s_getpc builders joining at one s_setpc give a two-target set.
func TestTwoTargetJump(t *testing.T) {
	tx := text(
		0xbe841c00,             // 0x00 s_getpc_b64 s[4:5]   (s4 = 0x1004)
		0xbf850003,             // 0x04 s_cbranch_scc1 0x14
		0x8004ff04, 0x00000020, // 0x08 s_add_u32 s4, s4, 0x20 -> 0x1024
		0xbf820002,             // 0x10 s_branch 0x1c
		0x8004ff04, 0x00000024, // 0x14 s_add_u32 s4, s4, 0x24 -> 0x1028
		0xbe801d04, // 0x1c s_setpc_b64 s[4:5]
		0xbf810000, // 0x20 s_endpgm
		0xbf810000, // 0x24 s_endpgm
		0xbf810000, // 0x28 s_endpgm
	)
	g, err := Build(tx, []Root{{Addr: base}}, decode, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ind := g.Indirect[base+0x1c]
	if ind == nil || ind.Kind != IndirectJump || len(ind.Targets) != 2 || ind.Targets[0] != base+0x24 || ind.Targets[1] != base+0x28 {
		t.Fatalf("setpc: %+v", ind)
	}
	// With a one-target bound the set is refused, not truncated.
	g, err = Build(tx, []Root{{Addr: base}}, decode, Options{MaxTargets: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ind := g.Indirect[base+0x1c]; ind.Kind != Unresolved {
		t.Fatalf("bounded set accepted: %+v", ind)
	}
}

// Decoding errors and entries outside .text are reported, not panics.
func TestBadCode(t *testing.T) {
	if _, err := Build(text(0xbf810000), []Root{{Addr: base + 0x100}}, decode, Options{}); err == nil {
		t.Fatal("entry outside .text accepted")
	}
	g, err := Build(text(0xbf820005), []Root{{Addr: base}}, decode, Options{}) // s_branch past the end
	if err != nil {
		t.Fatal(err)
	}
	if sc := g.Scope(0); len(sc.Errors) == 0 {
		t.Fatal("branch outside .text not reported")
	}
}

func FuzzBuild(f *testing.F) {
	f.Add([]byte{0x00, 0x1c, 0x84, 0xbe, 0x04, 0x1d, 0x80, 0xbe})
	f.Add([]byte{0x05, 0x00, 0x82, 0xbf, 0x00, 0x00, 0x81, 0xbf})
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzguard.Run(t, b, func() {
			b = b[:len(b)&^3]
			if len(b) == 0 {
				return
			}
			g, err := Build(Text{Addr: base, Data: b}, []Root{{Addr: base}}, decode, Options{})
			if err != nil {
				return
			}
			_ = g.Scope(0)
		})
	})
}
