package gfx950gfx12

import (
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/loader"
)

// cvtWords is a gfx950 VOP3 scaled conversion: op, vdst, op_sel, abs,
// clamp, src0, src1, neg.
func cvtWords(op, vdst, opsel, abs, clamp, src0, src1, neg uint32) []uint32 {
	return []uint32{0xd2000000 | op<<16 | clamp<<15 | opsel<<11 | abs<<8 | vdst, src0 | src1<<9 | neg<<29}
}

// TestScaleWidenFP8Forms: the FP8/BF8 widening forms decode their element
// pair with gfx12's OCP decoder on the op_sel word, and the modifiers the
// guest model refuses (abs, neg, clamp, op_sel bits beyond the element
// select) are refused with a reason.
func TestScaleWidenFP8Forms(t *testing.T) {
	site := pair.Site{Kernel: &loader.Kernel{}}
	for _, c := range []struct {
		ws   []uint32
		want string // a substring of the host code, "" for a refusal
	}{
		{cvtWords(0x239, 16, 0, 0, 0, 260, 258, 0), "v_cvt_pk_f32_fp8_e64 v[160:161], v4"},              // pk_f32_fp8
		{cvtWords(0x23a, 18, 1, 0, 0, 260, 259, 0), "v_cvt_pk_f32_bf8_e64 v[160:161], v4 op_sel:[1,0]"}, // pk_f32_bf8 op_sel:[1,0,0]
		{cvtWords(0x23b, 20, 3, 0, 0, 260, 259, 0), "v_ldexp_f32 v20, v161, v162"},                      // f32_fp8 byte 3: word 1, odd byte
		{cvtWords(0x269, 22, 1, 0, 0, 260, 259, 0), "v_perm_b32 v22, v164, v163, 0x7060302"},            // pk_bf16_fp8
		{cvtWords(0x248, 24, 0, 0, 0, 260, 259, 0), "v_perm_b32 v24, v164, v163, 0x5040100"},            // pk_f16_fp8
		{cvtWords(0x239, 16, 0, 1, 0, 260, 258, 0), ""},                                                 // abs
		{cvtWords(0x239, 16, 0, 0, 0, 260, 258, 1), ""},                                                 // neg
		{cvtWords(0x239, 16, 0, 0, 1, 260, 258, 0), ""},                                                 // clamp
		{cvtWords(0x239, 16, 2, 0, 0, 260, 258, 0), ""},                                                 // op_sel[1] on a pk form
		{cvtWords(0x23b, 20, 4, 0, 0, 260, 259, 0), ""},                                                 // op_sel[2] on a scalar form
	} {
		in := decode950(t, c.ws)
		if _, ok := handRules()[in.Name()]; !ok {
			t.Fatalf("%s: no gfx12 rule", gfx9.Print(in))
		}
		code, err := scaleWidenFP8(&fakeCtx{next: 160}, in, site)
		if c.want == "" {
			if err == nil {
				t.Errorf("%s accepted", gfx9.Print(in))
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", gfx9.Print(in), err)
			continue
		}
		if text := hostText(t, code); !strings.Contains(text, c.want) {
			t.Errorf("%s: host code %q lacks %q", gfx9.Print(in), text, c.want)
		}
	}
}
