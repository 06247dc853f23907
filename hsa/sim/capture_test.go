package sim

import (
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/sim/wave"
)

// TestPlaceHWID: workgroups go round-robin over the compute units, shader
// engines first, waves over the SIMDs, and HW_ID (gfx9) / HW_ID1 (gfx12)
// hold the place in their documented fields.
func TestPlaceHWID(t *testing.T) {
	cases := []struct {
		target string
		g      uint64
		wi     int
		want   WaveSlot
		hwid   uint32
	}{
		// gfx942: 4 SEs x 10 CUs x 4 SIMDs x 8 slots.
		{"gfx942", 0, 0, WaveSlot{0, 0, 0, 0}, 0},
		{"gfx942", 1, 0, WaveSlot{1, 0, 0, 0}, 1 << 13},
		{"gfx942", 6, 5, WaveSlot{2, 1, 1, 1}, 1 | 1<<4 | 1<<8 | 2<<13},
		{"gfx942", 39, 15, WaveSlot{3, 9, 3, 3}, 3 | 3<<4 | 9<<8 | 3<<13},
		{"gfx942", 40, 0, WaveSlot{0, 0, 0, 0}, 0},
		// gfx1201: 4 SEs x 8 WGPs x 4 SIMDs x 16 slots; HW_ID1 WAVE_ID
		// [4:0], SIMD_ID [9:8], WGP_ID [13:10], SE_ID [20:18].
		{"gfx1201", 7, 30, WaveSlot{3, 1, 2, 7}, 7 | 2<<8 | 1<<10 | 3<<18},
		// gfx1200: 2 SEs.
		{"gfx1200", 3, 0, WaveSlot{1, 1, 0, 0}, 1<<10 | 1<<18},
	}
	for _, c := range cases {
		a, err := NewAgent(c.target)
		if err != nil {
			t.Fatal(err)
		}
		geo := DefaultGeometry(c.target)
		if s, _ := geo.slot(c.g, c.wi); s != c.want {
			t.Errorf("%s group %d wave %d: slot %+v, want %+v", c.target, c.g, c.wi, s, c.want)
		}
		w := &wave.Wave{}
		a.place(w, c.g, c.wi)
		if w.HWID != c.hwid || w.Cost != nil || w.Marker != nil {
			t.Errorf("%s group %d wave %d: HW_ID %#x, want %#x (hooks set without a capture: %v)", c.target, c.g, c.wi, w.HWID, c.hwid, w.Cost != nil)
		}
	}
}

// TestCycleModelClasses: every instruction class gets its cost.
func TestCycleModelClasses(t *testing.T) {
	m := DefaultCycleModel
	cases := []struct {
		in   wave.Inst
		want uint64
	}{
		{wave.Inst{Fmt: wave.FmtSOP2, Name: "s_add_u32"}, m.SALU},
		{wave.Inst{Fmt: wave.FmtSOPK, Name: "s_getreg_b32"}, m.SALU},
		{wave.Inst{Fmt: wave.FmtSOPP, Name: "s_cbranch_scc1"}, m.Branch},
		{wave.Inst{Fmt: wave.FmtSOP1, Name: "s_swappc_b64"}, m.Branch},
		{wave.Inst{Fmt: wave.FmtSOPP, Name: "s_nop", Imm: 3}, 4 * m.Nop},
		{wave.Inst{Fmt: wave.FmtSOPP, Name: "s_waitcnt"}, m.Wait},
		{wave.Inst{Fmt: wave.FmtSOPP, Name: "s_wait_loadcnt"}, m.Wait},
		{wave.Inst{Fmt: wave.FmtSOPP, Name: "s_ttracedata"}, m.Marker},
		{wave.Inst{Fmt: wave.FmtSOPP, Name: "s_ttracedata_imm"}, m.Marker},
		{wave.Inst{Fmt: wave.FmtSOPP, Name: "s_barrier"}, m.Barrier},
		{wave.Inst{Fmt: wave.FmtSOP1, Name: "s_barrier_signal"}, m.Barrier},
		{wave.Inst{Fmt: wave.FmtSMEM, Name: "s_load_dwordx2"}, m.SMEM},
		{wave.Inst{Fmt: wave.FmtVOP2, Name: "v_add_f32"}, m.VALU},
		{wave.Inst{Fmt: wave.FmtVOP3, Name: "v_fma_f64"}, m.VALU64},
		{wave.Inst{Fmt: wave.FmtVOP1, Name: "v_rcp_f32"}, m.Trans},
		{wave.Inst{Fmt: wave.FmtVOP3P, Name: "v_mfma_f32_32x32x8_f16"}, m.Matrix},
		{wave.Inst{Fmt: wave.FmtVOP3P, Name: "v_wmma_f32_16x16x16_f16"}, m.Matrix},
		{wave.Inst{Fmt: wave.FmtDS, Name: "ds_read_b32"}, m.LDS},
		{wave.Inst{Fmt: wave.FmtFLAT, Name: "global_load_dword"}, m.VMEMLoad},
		{wave.Inst{Fmt: wave.FmtFLAT, Name: "global_store_b32"}, m.VMEMStore},
		{wave.Inst{Fmt: wave.FmtMUBUF, Name: "buffer_atomic_add"}, m.VMEMAtomic},
	}
	for _, c := range cases {
		if got := m.Cost(&c.in); got != c.want {
			t.Errorf("%s: cost %d, want %d", c.in.Name, got, c.want)
		}
	}
}
