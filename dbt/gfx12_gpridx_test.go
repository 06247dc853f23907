package dbt

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// gpridxWant is what testdata/gfx12_gpridx.s stores, from the gfx9 ISA
// meaning of VGPR indexing: the write goes to v[vD + M0[7:0]], lane
// lane[5:0], whatever EXEC is; s_set_gpr_idx_on sets M0[7:0] and M0[15:12]
// and keeps the other M0 bits; SCC is untouched.
func gpridxWant() []byte {
	var v [8][64]uint32
	for k := range v {
		for l := range v[k] {
			v[k][l] = uint32(l + 100*k)
		}
	}
	v[5-2][5] = 0xfffffffb // idx 3: v2 -> v5, lane 0x45 & 63, -5
	v[7-2][63] = 7         // idx 1: v6 -> v7, lane 63 (inactive)
	v[4-2][6] = 0x2222     // idx 1: v3 -> v4, lane 6
	v[9-2][0] = 0x11111111 // idx 0
	m0 := func(old, idx uint32) uint32 { return old&^0xf0ff | idx | 8<<12 }
	s21 := m0(0xabcdf7ff, 3)
	s23 := m0(s21, 1)
	s24 := m0(s23, 0)
	var v11, v13 [64]uint32
	for l := range 64 {
		v11[l] = v[4-2][l] // SRC0, idx 2: v2 -> v4
		if l >= 8 && l < 16 {
			v[5-2][l] = 0x11111111 // DST, idx 2, EXEC 0xff00: v3 -> v5
		}
		v13[l] = v[7-2][l] // SRC0|DST, idx 1: v13 = v7
	}
	out := make([]byte, 4096)
	for l := range 64 {
		for k := range v {
			binary.LittleEndian.PutUint32(out[k*256+4*l:], v[k][l])
		}
		for i, s := range []uint32{1, s21, 0, s23, s24} {
			binary.LittleEndian.PutUint32(out[2048+i*256+4*l:], s)
		}
		binary.LittleEndian.PutUint32(out[3328+4*l:], v11[l])
		binary.LittleEndian.PutUint32(out[3840+4*l:], v13[l])
	}
	return out
}

// TestGFX12GPRIdx translates testdata/gfx12_gpridx.s (gfx9 DST-indexed
// v_writelane_b32 regions, v_mov_b32 with SRC0, DST, SRC0|DST) for
// gfx1201: llvm-objdump-19 shows the v_movreld/movrels/movrelsd_b32
// lowering and no gfx9 indexing instruction, the guest on
// the simulated gfx950 stores what the ISA meaning computed here says, and
// the translation on the simulated gfx1201 stores the same bytes. The
// region shapes without a rule are rejected with their reasons.
func TestGFX12GPRIdx(t *testing.T) {
	guest, res, dis := translate12(t, "gfx12_gpridx")
	for mn, want := range map[string]int{"v_movreld_b32": 5, "v_movrels_b32": 1, "v_movrelsd_b32": 1} {
		if n := bytes.Count(dis, []byte(mn+" ")) + bytes.Count(dis, []byte(mn+"_e32")); n != want {
			t.Errorf("%d %s in the translation, want %d:\n%s", n, mn, want, dis)
		}
	}
	for _, want := range []string{"s_bitset1_b64 exec, s12", "s_bitset1_b64 exec, 63", "s_and_b32 m0, m0, 0xffff0f00", "s_or_b32 m0, m0, 0x8000"} {
		if !bytes.Contains(dis, []byte(want)) {
			t.Errorf("the translation lacks %q:\n%s", want, dis)
		}
	}
	if bytes.Contains(dis, []byte("gpr_idx")) {
		t.Errorf("a gfx9 indexing instruction survives:\n%s", dis)
	}
	run := func(image []byte, target string) []byte {
		return runBuffers(t, image, target, "kidx", make([]byte, 4096))[0]
	}
	want := gpridxWant()
	if got := run(guest, "gfx950"); !bytes.Equal(got, want) {
		i := firstDiff(got, want)
		t.Fatalf("the guest on the simulated gfx950 differs from the ISA meaning at byte %d: %x, want %x", i, got[i&^3:i&^3+4], want[i&^3:i&^3+4])
	}
	if got := run(res.Object, "gfx1201"); !bytes.Equal(got, want) {
		i := firstDiff(got, want)
		t.Errorf("the translation on the simulated gfx1201 differs from the guest at byte %d: %x, want %x", i, got[i&^3:i&^3+4], want[i&^3:i&^3+4])
	}

	bad := buildGuestFrom(t, filepath.Join("testdata", "gfx12_gpridx_bad.s"))
	res, err := Translate(bad, Options{Name: "gfx12_gpridx_bad", Host: isa.GFX1201})
	if err == nil {
		t.Fatal("unproven VGPR-indexing regions translated")
	}
	for _, why := range []string{"mode 0x2 has no rule", "v_add_u32 at", "does not end with s_set_gpr_idx_off", "s_set_gpr_idx_off without an s_set_gpr_idx_on"} {
		if !rejectedFor(res, why) {
			var b strings.Builder
			res.Report.WriteText(&b)
			t.Errorf("no rejection for %q:\n%s", why, b.String())
		}
	}
}
