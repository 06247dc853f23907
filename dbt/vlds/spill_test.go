package vlds

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// TestSpillPerUseMatchesLLVM checks the spill-per-use prologue tail and
// the sequence around a lowered access word for word against llvm-mc-19.
func TestSpillPerUseMatchesLLVM(t *testing.T) {
	s := SpillSlots{Base: 256, Save: 264}
	got, err := StoreBase(40, 42, 3, s)
	if err != nil {
		t.Fatal(err)
	}
	want := join(assemble(t, `s_mov_b64 s[42:43], exec
s_mov_b64 exec, -1
v_mov_b32 v3, s40
scratch_store_dword off, v3, off offset:256
v_mov_b32 v3, s41
scratch_store_dword off, v3, off offset:260
s_mov_b64 exec, s[42:43]
s_waitcnt vmcnt(0)
`))
	if !bytes.Equal(got, want) {
		t.Fatalf("StoreBase\n ours % x\nllvm % x", got, want)
	}
	access := join(assemble(t, "global_load_dword v7, v5, s[10:11] offset:16\ns_waitcnt vmcnt(0)\n"))
	got, err = AroundAccess(access, 10, 9, s)
	if err != nil {
		t.Fatal(err)
	}
	body := `v_mov_b32 v9, s10
scratch_store_dword off, v9, off offset:264
v_mov_b32 v9, s11
scratch_store_dword off, v9, off offset:268
scratch_load_dword v9, off, off offset:256
s_waitcnt vmcnt(0)
v_readfirstlane_b32 s10, v9
scratch_load_dword v9, off, off offset:260
s_waitcnt vmcnt(0)
v_readfirstlane_b32 s11, v9
s_nop 4
global_load_dword v7, v5, s[10:11] offset:16
s_waitcnt vmcnt(0)
scratch_load_dword v9, off, off offset:264
s_waitcnt vmcnt(0)
v_readfirstlane_b32 s10, v9
scratch_load_dword v9, off, off offset:268
s_waitcnt vmcnt(0)
v_readfirstlane_b32 s11, v9
s_nop 4
`
	words := len(join(assemble(t, body))) / 4
	want = join(assemble(t, "s_cbranch_execz "+strconv.Itoa(words)+"\n"+body))
	if !bytes.Equal(got, want) {
		t.Fatalf("AroundAccess\n ours % x\nllvm % x", got, want)
	}
}

// TestSpillPerUseRejects: bad slots and registers are errors.
func TestSpillPerUseRejects(t *testing.T) {
	for _, c := range []struct {
		s    SpillSlots
		base uint16
		want string
	}{
		{SpillSlots{Base: 0, Save: 4}, 10, "overlap"},
		{SpillSlots{Base: 4092, Save: 0}, 10, "13-bit"},
		{SpillSlots{Base: 2, Save: 16}, 10, "dword"},
		{SpillSlots{Base: 0, Save: 8}, 11, "aligned"},
		{SpillSlots{Base: 0, Save: 8}, 102, "aligned"},
	} {
		if _, err := AroundAccess(nil, c.base, 1, c.s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v s%d: %v, want %q", c.s, c.base, err, c.want)
		}
	}
	if _, err := StoreBase(10, 10, 3, SpillSlots{Base: 0, Save: 8}); err == nil {
		t.Error("StoreBase with base == EXEC save accepted")
	}
	if _, err := AroundAccess([]byte{1, 2}, 10, 1, SpillSlots{Base: 0, Save: 8}); err == nil {
		t.Error("a partial access word accepted")
	}
}

func join(bs [][]byte) []byte { return bytes.Join(bs, nil) }
