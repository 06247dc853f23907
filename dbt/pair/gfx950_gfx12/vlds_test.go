package gfx950gfx12

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12"
	"github.com/rocjitsu/rocjitsu/dbt/vlds"
)

// tempCtx hands out scratch VGPRs from v200 up.
type tempCtx struct{ next uint16 }

func (c *tempCtx) TempVGPRs(n int) ([]uint16, error) {
	var out []uint16
	for i := 0; i < n; i++ {
		out = append(out, 200+c.next)
		c.next++
	}
	return out, nil
}

func (c *tempCtx) TempVGPRRange(n, align int) (uint16, error) {
	for (200+c.next)%uint16(align) != 0 {
		c.next++
	}
	r := 200 + c.next
	c.next += uint16(n)
	return r, nil
}

// dsWord encodes gfx12 DS instruction m with VGPR operands v10, v20, ...
// (each of its template's width) and offset field off.
func dsWord(t *testing.T, m string, off int32) ([]byte, []isa.Operand) {
	t.Helper()
	ts := templates(m)
	if len(ts) == 0 {
		t.Fatalf("gfx12 has no %s", m)
	}
	h := host{mnem: m}
	for i, o := range ts[0].Operands {
		h.ops = append(h.ops, vr(uint16(10*(i+1)), o.Width))
	}
	h.mod.Offset, h.mod.Offset1 = off, uint8(off>>8) // the encoder takes offset1 from Offset1
	b, err := h.encode()
	if err != nil {
		t.Fatalf("%s: %v", m, err)
	}
	return b, h.ops
}

// decodeAll decodes a gfx12 instruction sequence.
func decodeAll(t *testing.T, b []byte) []isa.Inst {
	t.Helper()
	var out []isa.Inst
	for off := 0; off < len(b); {
		in, err := gfx12.Decode(b[off:], 0, isa.GFX1201|isa.Wave64)
		if err != nil || in.Size == 0 {
			t.Fatalf("+%d does not decode: %v", off, err)
		}
		out = append(out, in)
		off += int(in.Size)
	}
	return out
}

// TestLowerLDSEveryForm lowers every gfx12 DS storage operation of the
// table and checks the global form: the table's mnemonic (which the
// encoder proves exists), the DS address VGPR as vaddr, the base pair as
// saddr, the byte offset (each half of a two-address form scaled), the
// data and destination registers (compare-and-swap operands reordered into
// {new value, compare}), the return bit, and the wait that completes it.
func TestLowerLDSEveryForm(t *testing.T) {
	const base = 40
	for m, l := range dsLowerings() {
		t.Run(m, func(t *testing.T) {
			off := int32(0x1234)
			if l.class == dsLoad2 || l.class == dsStore2 {
				off = 3<<8 | 2
			}
			raw, ops := dsWord(t, m, off)
			out, lowered, err := Pair{}.LowerLDS(&tempCtx{}, raw, base)
			if err != nil || !lowered {
				t.Fatalf("lowered %v: %v", lowered, err)
			}
			seq := decodeAll(t, out)
			var globals []isa.Inst
			for _, in := range seq {
				n := gfx12.Mnemonic(&in)
				switch {
				case strings.HasPrefix(n, "global_"):
					globals = append(globals, in)
				case n == "v_mov_b32_e32" && l.cmp:
				case n == "s_wait_loadcnt" || n == "s_wait_storecnt":
				default:
					t.Fatalf("unexpected %s in the lowering", gfx12.Print(&in))
				}
			}
			last := gfx12.Mnemonic(&seq[len(seq)-1])
			wantWait := "s_wait_storecnt"
			if l.class == dsLoad || l.class == dsLoad2 || l.ret {
				wantWait = "s_wait_loadcnt"
			}
			if last != wantWait {
				t.Errorf("ends with %s, want %s", last, wantWait)
			}
			want := 1
			if l.class == dsLoad2 || l.class == dsStore2 {
				want = 2
			}
			if len(globals) != want {
				t.Fatalf("%d global accesses, want %d", len(globals), want)
			}
			for i, g := range globals {
				if n := gfx12.Mnemonic(&g); n != l.global {
					t.Errorf("access %d is %s, want %s", i, n, l.global)
				}
				wantOff := off
				if want == 2 {
					wantOff = []int32{2, 3}[i] * l.scale
				}
				if g.Mod.Offset != wantOff {
					t.Errorf("access %d offset %d, want %d", i, g.Mod.Offset, wantOff)
				}
				if v := gfx12.VariantOf(&g); v.Return != l.ret {
					t.Errorf("access %d: return %v, want %v", i, v.Return, l.ret)
				}
				text := gfx12.Print(&g)
				addr := ops[0]
				if l.class == dsLoad || l.class == dsLoad2 || l.ret {
					addr = ops[1]
				}
				if !strings.Contains(text, fmt.Sprintf(", v%d, ", addr.Reg)) && !strings.HasPrefix(text, fmt.Sprintf("%s v%d, ", l.global, addr.Reg)) {
					t.Errorf("access %d %q does not address through v%d", i, text, addr.Reg)
				}
				if !strings.Contains(text, fmt.Sprintf("s[%d:%d]", base, base+1)) {
					t.Errorf("access %d %q does not use the base s[%d:%d]", i, text, base, base+1)
				}
			}
		})
	}
}

// TestLowerLDSCmpstoreOrder: gfx12 ds_cmpstore takes the new value in
// data0 and the compare value in data1; the global form reads both from
// one range in the order {new value, compare}.
func TestLowerLDSCmpstoreOrder(t *testing.T) {
	raw, _ := dsWord(t, "ds_cmpstore_rtn_b32", 0) // v10, v20 (addr), v30 (new), v40 (cmp)
	out, _, err := Pair{}.LowerLDS(&tempCtx{}, raw, 2)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range decodeAll(t, out) {
		got = append(got, gfx12.Print(&in))
	}
	want := []string{"v_mov_b32_e32 v200, v30", "v_mov_b32_e32 v201, v40", "global_atomic_cmpswap_b32 v10, v20, v[200:201], s[2:3] th:TH_ATOMIC_RETURN", "s_wait_loadcnt 0x0"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLowerLDSNativeAndRejected: cross-lane DS operations stay as they
// are, other instructions pass unchanged, and LDS operations without a
// proven global form are errors naming the operation.
func TestLowerLDSNativeAndRejected(t *testing.T) {
	for _, m := range []string{"ds_bpermute_b32", "ds_swizzle_b32", "ds_permute_b32"} {
		raw, _ := dsWord(t, m, 0)
		out, lowered, err := Pair{}.LowerLDS(&tempCtx{}, raw, 2)
		if err != nil || lowered || string(out) != string(raw) {
			t.Errorf("%s: lowered %v err %v", m, lowered, err)
		}
	}
	for _, m := range []string{"ds_add_f32", "ds_add_rtn_f32", "ds_append", "ds_rsub_u32", "ds_min_num_f32"} {
		raw, _ := dsWord(t, m, 0)
		_, _, err := Pair{}.LowerLDS(&tempCtx{}, raw, 2)
		if err == nil || !strings.Contains(err.Error(), m) || !strings.Contains(err.Error(), "no gfx12 virtual-LDS lowering") {
			t.Errorf("%s: error %v, want a refusal naming it", m, err)
		}
	}
	if _, _, err := (Pair{}).LowerLDS(&tempCtx{}, []byte{1, 2}, 2); err == nil {
		t.Error("two bytes lowered without an error")
	}
}

// TestSidecarPrologueGFX12 checks the gfx12 prologue's instructions: the
// four loads from the wrapper, the wait, and per enabled dimension the
// 64-bit product of the id (TTMP9, TTMP7 or its halves) and the stride.
func TestSidecarPrologueGFX12(t *testing.T) {
	spec := vlds.PrologueSpec{Kernarg: 4, Wrapper: vlds.Layout(20), WorkgroupID: [3]int{8, 9, 10}, Base: 12, Temps: [4]uint16{14, 15, 16, 17}}
	out, err := Pair{}.SidecarPrologue(spec)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range decodeAll(t, out) {
		got = append(got, gfx12.Print(&in))
	}
	text := strings.Join(got, "\n")
	for _, want := range []string{
		"s_load_b64 s[12:13], s[4:5], 0x20", "s_load_b64 s[14:15], s[4:5], 0x28", "s_load_b32 s16, s[4:5], 0x30", "s_load_b64 s[4:5], s[4:5], 0x18", "s_wait_kmcnt 0x0",
		"s_mul_hi_u32 s17, s14, ttmp9", "s_and_b32 s14, ttmp7, 0xffff", "s_mul_i32 s15, s15, s14", "s_lshr_b32 s14, ttmp7, 16", "s_mul_i32 s16, s16, s14", "s_add_co_ci_u32 s13, s13, s17",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("prologue lacks %q:\n%s", want, text)
		}
	}
	spec.WorkgroupID = [3]int{8, 9, -1}
	out, err = Pair{}.SidecarPrologue(spec)
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, in := range decodeAll(t, out) {
		got = append(got, gfx12.Print(&in))
	}
	if text := strings.Join(got, "\n"); !strings.Contains(text, "s_mul_i32 s15, s15, ttmp7") || strings.Contains(text, "s_and_b32") {
		t.Errorf("without Z, Y is all of TTMP7:\n%s", text)
	}
	spec.Base = 13
	if _, err := (Pair{}).SidecarPrologue(spec); err == nil {
		t.Error("an odd base pair was accepted")
	}
}

// FuzzLowerLDS: arbitrary bytes never panic the lowering; whatever it
// lowers decodes.
func FuzzLowerLDS(f *testing.F) {
	for _, m := range []string{"ds_load_b32", "ds_store_2addr_stride64_b64", "ds_cmpstore_b64", "ds_add_rtn_u32", "ds_bpermute_b32"} {
		ts := templates(m)
		h := host{mnem: m}
		for i, o := range ts[0].Operands {
			h.ops = append(h.ops, vr(uint16(i), o.Width))
		}
		b, err := h.encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0, 0, 0, 0xd8})
	f.Fuzz(func(t *testing.T, b []byte) {
		out, lowered, err := Pair{}.LowerLDS(&tempCtx{}, b, 2)
		if err != nil || !lowered {
			return
		}
		for off := 0; off < len(out); {
			in, err := gfx12.Decode(out[off:], 0, isa.GFX1201|isa.Wave64)
			if err != nil || in.Size == 0 {
				t.Fatalf("lowering of % x does not decode at +%d", b, off)
			}
			off += int(in.Size)
		}
	})
}

// TestSpillPerUseGFX12 checks the spill-per-use sequences: the prologue
// stores the base for every lane with EXEC restored after, and the
// wrapper around an access skips to its end when EXEC is zero, saves the
// borrowed pair, reads the base into it with v_readfirstlane_b32 and an
// s_wait_alu before use, and restores the pair after a store wait.
func TestSpillPerUseGFX12(t *testing.T) {
	slots := vlds.SpillSlots{Base: 16, Save: 24}
	st, err := Pair{}.SpillStoreBase(12, 14, 3, slots)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range decodeAll(t, st) {
		got = append(got, gfx12.Print(&in))
	}
	want := "s_mov_b64 s[14:15], exec\ns_mov_b64 exec, -1\nv_mov_b32_e32 v3, s12\nscratch_store_b32 off, v3, off offset:16\nv_mov_b32_e32 v3, s13\nscratch_store_b32 off, v3, off offset:20\ns_mov_b64 exec, s[14:15]\ns_wait_storecnt 0x0"
	if strings.Join(got, "\n") != want {
		t.Errorf("store base:\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	raw, _ := dsWord(t, "ds_load_b32", 0)
	access, _, err := Pair{}.LowerLDS(&tempCtx{}, raw, 6)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Pair{}.SpillAround(access, 6, 5, slots)
	if err != nil {
		t.Fatal(err)
	}
	seq := decodeAll(t, out)
	if m := gfx12.Mnemonic(&seq[0]); m != "s_cbranch_execz" {
		t.Fatalf("starts with %s", m)
	}
	if skip := int(int16(seq[0].Operands[0].Imm)); 4+4*skip != len(out) {
		t.Errorf("execz skips %d words, the sequence after it has %d", skip, (len(out)-4)/4)
	}
	text := ""
	for _, in := range seq[1:] {
		text += gfx12.Print(&in) + "\n"
	}
	for _, w := range []string{"scratch_store_b32 off, v5, off offset:24", "scratch_store_b32 off, v5, off offset:28", "scratch_load_b32 v5, off, off offset:16",
		"v_readfirstlane_b32 s6, v5", "v_readfirstlane_b32 s7, v5", "s_wait_alu depctr_va_sdst(0)", "global_load_b32 v10, v20, s[6:7]", "scratch_load_b32 v5, off, off offset:28"} {
		if !strings.Contains(text, w) {
			t.Errorf("spill-per-use sequence lacks %q:\n%s", w, text)
		}
	}
	if strings.Index(text, "global_load_b32") < strings.Index(text, "s_wait_alu") {
		t.Error("the access reads the borrowed pair before the s_wait_alu")
	}
	if _, err := (Pair{}).SpillAround(access, 7, 5, slots); err == nil {
		t.Error("odd borrowed pair accepted")
	}
	if _, err := (Pair{}).SpillStoreBase(12, 14, 3, vlds.SpillSlots{Base: 16, Save: 20}); err == nil {
		t.Error("overlapping slots accepted")
	}
}
