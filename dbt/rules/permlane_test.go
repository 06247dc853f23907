package rules

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
)

// TestPermlane16NopChoice: the 16-row swap drops its s_nop only when the
// block's instructions just before it give the two wait states the
// expansion lacks after a VALU write of EXEC, with no EXEC write among
// them; the form without it is 4 bytes shorter.
func TestPermlane16NopChoice(t *testing.T) {
	const (
		swap    = 0x7e20b312 // v_permlane16_swap_b32_e32 v16, v18 (gfx950)
		cmpx    = 0x7db40501 // v_cmpx_eq_u32_e32 vcc, v1, v2
		nop1    = 0xbf800001 // s_nop 1
		nop0    = 0xbf800000 // s_nop 0
		add     = 0x68020702 // v_add_u32_e32 v1, v2, v3
		smovExe = 0xbefe0102 // s_mov_b64 exec, s[2:3]
	)
	block := func(ws ...uint32) []*isa.Inst {
		var out []*isa.Inst
		for i, w := range ws {
			in, err := gfx9.Decode(binary.LittleEndian.AppendUint32(nil, w), uint64(4*i), isa.GFX950)
			if err != nil {
				t.Fatalf("%#x: %v", w, err)
			}
			out = append(out, &in)
		}
		return out
	}
	for _, c := range []struct {
		name  string
		words []uint32
		noNop bool
	}{
		{"block start", []uint32{swap}, false},
		{"one VALU", []uint32{add, swap}, false},
		{"s_nop 1", []uint32{nop1, swap}, true},
		{"two VALU", []uint32{add, add, swap}, true},
		{"s_nop 1 after v_cmpx", []uint32{cmpx, nop1, swap}, true},
		{"s_nop 0 after v_cmpx", []uint32{cmpx, nop0, swap}, false},
		{"v_cmpx just before", []uint32{add, add, cmpx, swap}, false},
		{"s_mov_b64 exec", []uint32{add, smovExe, swap}, false},
	} {
		b := block(c.words...)
		r := Permlane16RuleAt(b, len(b)-1)
		if got := r != nil; got != c.noNop {
			t.Fatalf("%s: without s_nop %v, want %v", c.name, got, c.noNop)
		}
		if r == nil {
			continue
		}
		base := For(isa.GFX950, isa.GFX942, "v_permlane16_swap_b32")
		raw := binary.LittleEndian.AppendUint32(nil, swap)
		ctx := &fixedTemps{v: []uint16{100, 101}}
		with, err1 := base.Emit(ctx, b[len(b)-1], raw)
		without, err2 := r.Emit(ctx, b[len(b)-1], raw)
		if err1 != nil || err2 != nil || len(with) != len(without)+4 || r.Name != base.Name {
			t.Fatalf("%s: %d bytes with s_nop (%v), %d without (%v), rule %q", c.name, len(with), err1, len(without), err2, r.Name)
		}
	}
}

// fixedTemps is a Context handing out the same scratch registers.
type fixedTemps struct{ v []uint16 }

func (f *fixedTemps) TempVGPRs(n int) ([]uint16, error) { return f.v[:n], nil }
func (f *fixedTemps) TempVGPRRange(n, align int) (uint16, error) {
	return f.v[0], nil
}
func (f *fixedTemps) TempSGPRPair() (uint16, error) { return 40, nil }

// TestPermlane32Partner: the 32-row swap reads lane l^32 through the
// ds_bpermute_b32 offset (4l+128 wraps at 256), with no v_xor_b32 of the
// lane id: 56 bytes (the self swap 36).
func TestPermlane32Partner(t *testing.T) {
	for _, c := range []struct {
		code []byte
		n    int
	}{
		{PermlaneSwapCode(32, 5, 6, 100, 101, 102), 56},
		{PermlaneSelfSwapCode(32, 5, 100, 102), 36},
	} {
		lines := disasm(t, c.code)
		for _, l := range lines {
			if strings.HasPrefix(l, "v_xor") || strings.HasPrefix(l, "ds_bpermute_b32") && !strings.HasSuffix(strings.TrimSpace(l), "offset:128") {
				t.Fatalf("%q in %q", l, lines)
			}
		}
		if len(c.code) != c.n {
			t.Fatalf("%d bytes, want %d: %q", len(c.code), c.n, lines)
		}
	}
}
