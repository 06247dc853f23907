package wave

import "testing"

type marker struct {
	clock uint64
	value uint32
	imm   bool
}

func recordMarkers(w *Wave) *[]marker {
	var got []marker
	w.Marker = func(w *Wave, v uint32, imm bool) { got = append(got, marker{w.Clock, v, imm}) }
	return &got
}

// TestClockAndMarkersGFX9: s_ttracedata delivers M0 at the issue clock,
// Cost advances Clock, and s_getreg of HW_ID reads Wave.HWID.
func TestClockAndMarkersGFX9(t *testing.T) {
	w, _ := newWave(t, assemble(t, `s_mov_b32 m0, 0x1236
s_nop 0
s_ttracedata
v_mov_b32 v1, 1
s_mov_b32 m0, 1
s_ttracedata
s_getreg_b32 s4, hwreg(HW_REG_HW_ID)
s_getreg_b32 s5, hwreg(HW_REG_HW_ID, 8, 4)`), GFX942)
	w.Cost = func(in *Inst) uint64 {
		if in.Fmt == FmtVOP1 {
			return 4
		}
		return 1
	}
	w.Clock = 1000
	w.HWID = 0x0000_2a35
	got := recordMarkers(w)
	run(t, w)
	want := []marker{{1002, 0x1236, false}, {1008, 1, false}}
	if len(*got) != len(want) {
		t.Fatalf("markers %v, want %v", *got, want)
	}
	for i := range want {
		if (*got)[i] != want[i] {
			t.Errorf("marker %d = %+v, want %+v", i, (*got)[i], want[i])
		}
	}
	if w.S[4] != 0x2a35 || w.S[5] != 0xa {
		t.Errorf("HW_ID reads %#x, CU field %#x; want 0x2a35, 0xa", w.S[4], w.S[5])
	}
	if w.Clock != 1000+1+1+1+4+1+1+1+1+1 {
		t.Errorf("Clock = %d after the program", w.Clock)
	}
}

// TestClockAndMarkersGFX12: s_ttracedata_imm delivers its 8-bit immediate,
// SHADER_CYCLES_LO reads Clock, HW_ID1/HW_ID2 read HWID/HWID2, and without
// Cost the clock counts instructions.
func TestClockAndMarkersGFX12(t *testing.T) {
	w, _ := newWave12(t, assemble12(t, `s_ttracedata_imm 0x1a
s_getreg_b32 s2, hwreg(HW_REG_SHADER_CYCLES_LO, 4, 12)
s_mov_b32 m0, 0x40000006
s_ttracedata
s_getreg_b32 s3, hwreg(HW_REG_HW_ID1)
s_getreg_b32 s4, hwreg(HW_REG_HW_ID2)`, false), false)
	w.Clock = 0x12345
	w.HWID, w.HWID2 = 0x00150203, 0x00030000
	got := recordMarkers(w)
	run(t, w)
	want := []marker{{0x12345, 0x1a, true}, {0x12348, 0x40000006, false}}
	if len(*got) != 2 || (*got)[0] != want[0] || (*got)[1] != want[1] {
		t.Fatalf("markers %+v, want %+v", *got, want)
	}
	if w.S[2] != 0x12346>>4&0xfff {
		t.Errorf("SHADER_CYCLES_LO[15:4] = %#x, want %#x", w.S[2], 0x12346>>4&0xfff)
	}
	if w.S[3] != 0x00150203 || w.S[4] != 0x00030000 {
		t.Errorf("HW_ID1 %#x HW_ID2 %#x", w.S[3], w.S[4])
	}
	if w.Clock != 0x12345+w.Count {
		t.Errorf("Clock %#x, want start + %d instructions", w.Clock, w.Count)
	}
}

// TestMemtimeReadsClock: gfx9 s_memtime and s_memrealtime return the
// wave's Clock at their issue (64 bits), not the instruction count.
func TestMemtimeReadsClock(t *testing.T) {
	w, _ := newWave(t, assemble(t, `s_memtime s[4:5]
v_mov_b32 v1, 1
s_memrealtime s[6:7]
s_waitcnt lgkmcnt(0)`), GFX942)
	w.Cost = func(in *Inst) uint64 {
		if in.Fmt == FmtVOP1 {
			return 4
		}
		return 20
	}
	const start = 0x1_0000_0100
	w.Clock = start
	run(t, w)
	memtime := uint64(w.S[5])<<32 | uint64(w.S[4])
	realtime := uint64(w.S[7])<<32 | uint64(w.S[6])
	if memtime != start || realtime != start+20+4 {
		t.Errorf("s_memtime %#x, s_memrealtime %#x; want %#x, %#x", memtime, realtime, uint64(start), uint64(start+24))
	}
}

// TestRealtimeReadsClockGFX12: s_sendmsg_rtn MSG_RTN_GET_REALTIME returns
// the wave's Clock at its issue.
func TestRealtimeReadsClockGFX12(t *testing.T) {
	w, _ := newWave12(t, assemble12(t, `s_nop 0
s_sendmsg_rtn_b64 s[4:5], sendmsg(MSG_RTN_GET_REALTIME)
s_wait_kmcnt 0`, false), false)
	w.Cost = func(in *Inst) uint64 { return 7 }
	const start = 0x2_0000_0010
	w.Clock = start
	run(t, w)
	if got := uint64(w.S[5])<<32 | uint64(w.S[4]); got != start+7 {
		t.Errorf("GET_REALTIME %#x, want %#x", got, uint64(start+7))
	}
}
