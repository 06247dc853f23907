package enc32

import "testing"

func TestClassify(t *testing.T) {
	tests := []struct {
		w    uint32
		want Kind
	}{
		{0x7e000280, VOP1}, // v_mov_b32 v0, 0
		{0x02000501, VOP2}, // v_add class: bit 31 clear, not 0x3e/0x3f
		{0x7c000000, VOPC}, // bits [30:25] = 0x3e
		{0xbe800080, SOP1}, // s_mov_b32 s0, 0
		{0xbf800000, SOPP}, // s_nop 0
		{0xbf000000, SOPC}, // bits [31:23] = 0x17e
		{0xb0000000, SOPK}, // bits [31:28] = 0xb
		{0x80000000, SOP2}, // s_add_u32 class
		{0xc0000000, None}, // SMEM on GFX9: 64-bit
		{0xd4000000, None}, // VOP3 on GFX12
		{0xffffffff, None}, // bits [31:30] = 3
	}
	for _, tc := range tests {
		if got := Classify(tc.w); got != tc.want {
			t.Errorf("Classify(%#08x) = %d, want %d", tc.w, got, tc.want)
		}
	}
}
