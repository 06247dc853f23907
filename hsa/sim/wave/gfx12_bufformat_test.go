package wave

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestGFX12BufFormatTable: every name of the simulator's unified format
// table assembles (llvm-mc-19 --mcpu=gfx1201) to its index in the FORMAT
// field (VBUFFER word 1 bits 29:23).
func TestGFX12BufFormatTable(t *testing.T) {
	var src strings.Builder
	var ids []int
	for id, f := range bufFormats12() {
		if f.name != "" {
			fmt.Fprintf(&src, "tbuffer_load_format_x v1, v0, s[4:7], null format:[BUF_FMT_%s] offen\n", f.name)
			ids = append(ids, id)
		}
	}
	if len(ids) != 63 {
		t.Fatalf("%d named formats, want 63", len(ids))
	}
	code := assemble12(t, src.String(), false)
	for i, id := range ids {
		if got := int(le.Uint32(code[12*i+4:]) >> 23 & 127); got != id {
			t.Errorf("BUF_FMT_%s assembles to format %d, the table has it at %d", bufFormats12()[id].name, got, id)
		}
	}
}

// TestGFX12BufFormat: typed loads and stores, assembled with llvm-mc-19
// (wave32 and wave64), against Go conversions of the same bytes: tbuffer 8_8_8_8_UNORM
// and 16_16_SNORM (instruction FORMAT), buffer_load_format with the V#'s
// 16_16_FLOAT, missing components (8_8_SINT read as xyzw: z 0, w 1), d16
// loads of 8_8_8_8_UINT, an UNORM store with clamping, ADD_TID_ENABLE, and
// the faults of a packed and an invalid format.
func TestGFX12BufFormat(t *testing.T) {
	for _, wave64 := range []bool{false, true} {
		testBufFormat(t, wave64)
	}
}

// testBufFormat runs TestGFX12BufFormat in one wave size.
func testBufFormat(t *testing.T, wave64 bool) {
	lanes := 32
	if wave64 {
		lanes = 64
	}
	code := assemble12(t, `tbuffer_load_format_xyzw v[10:13], v0, s[4:7], null format:[BUF_FMT_8_8_8_8_UNORM] offen
tbuffer_load_format_xy v[14:15], v0, s[4:7], null format:[BUF_FMT_16_16_SNORM] offen
buffer_load_format_xy v[16:17], v0, s[8:11], null offen
tbuffer_load_format_xyzw v[18:21], v0, s[4:7], null format:[BUF_FMT_8_8_SINT] offen
tbuffer_load_d16_format_xyzw v[22:23], v0, s[4:7], null format:[BUF_FMT_8_8_8_8_UINT] offen
tbuffer_load_d16_format_xy v24, v0, s[4:7], null format:[BUF_FMT_16_16_FLOAT] offen
tbuffer_store_format_xy v[2:3], v0, s[4:7], null format:[BUF_FMT_16_16_UNORM] offen offset:1024
buffer_load_format_x v25, off, s[12:15], null`, wave64)
	w, m := newWave12(t, code, wave64)
	buf, err := m.Alloc(4096, 256)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 4096)
	for i := range data {
		data[i] = byte(i*37 + i>>8)
	}
	if err := m.Write(buf, data); err != nil {
		t.Fatal(err)
	}
	set := func(s int, stride, num, w3 uint32) {
		w.S[s], w.S[s+1], w.S[s+2], w.S[s+3] = uint32(buf), uint32(buf>>32)&0xffff|stride<<16, num, w3
	}
	set(4, 0, 2048, 3<<28)             // raw; the format comes from the instructions
	set(8, 0, 2048, 3<<28|29<<12)      // raw, FORMAT 16_16_FLOAT
	set(12, 4, 64, 1<<28|1<<23|20<<12) // structured, stride 4, 32_UINT, ADD_TID
	for l := 0; l < lanes; l++ {
		w.V[0][l] = uint32(4 * l)
		w.V[2][l] = math.Float32bits(float32(l)/16 - 0.5) // -0.5 .. 1.44: clamps at both ends
		w.V[3][l] = math.Float32bits(float32(l) / 31)
		w.V[23][l] = 0xdeadbeef
		w.V[24][l] = 0xdeadbeef
	}
	run(t, w)
	out := make([]byte, 4096)
	if err := m.Read(buf, out); err != nil {
		t.Fatal(err)
	}
	f32 := func(v uint32) float32 { return math.Float32frombits(v) }
	for l := 0; l < lanes; l++ {
		b := data[4*l:]
		for c := 0; c < 4; c++ {
			if want := float32(float64(b[c]) / 255); f32(w.V[10+c][l]) != want {
				t.Errorf("wave64=%v lane %d 8_8_8_8_UNORM comp %d = %v, want %v", wave64, l, c, f32(w.V[10+c][l]), want)
			}
		}
		for c := 0; c < 2; c++ {
			s := int16(uint16(b[2*c]) | uint16(b[2*c+1])<<8)
			want := float32(math.Max(float64(s)/32767, -1))
			if f32(w.V[14+c][l]) != want {
				t.Errorf("wave64=%v lane %d 16_16_SNORM comp %d = %v, want %v", wave64, l, c, f32(w.V[14+c][l]), want)
			}
			h := uint32(b[2*c]) | uint32(b[2*c+1])<<8
			if want := h2f(h); math.Float32bits(want) != w.V[16+c][l] {
				t.Errorf("wave64=%v lane %d V# 16_16_FLOAT comp %d = %#x, want %v", wave64, l, c, w.V[16+c][l], want)
			}
		}
		want := [4]uint32{uint32(int32(int8(b[0]))), uint32(int32(int8(b[1]))), 0, 1}
		for c := 0; c < 4; c++ {
			if w.V[18+c][l] != want[c] {
				t.Errorf("wave64=%v lane %d 8_8_SINT as xyzw comp %d = %#x, want %#x", wave64, l, c, w.V[18+c][l], want[c])
			}
		}
		if d := uint32(b[0]) | uint32(b[1])<<16; w.V[22][l] != d {
			t.Errorf("wave64=%v lane %d d16 8_8_8_8_UINT xy = %#x, want %#x", wave64, l, w.V[22][l], d)
		}
		if d := uint32(b[2]) | uint32(b[3])<<16; w.V[23][l] != d {
			t.Errorf("wave64=%v lane %d d16 8_8_8_8_UINT zw = %#x, want %#x", wave64, l, w.V[23][l], d)
		}
		if d := uint32(le.Uint32(b)); w.V[24][l] != d {
			t.Errorf("wave64=%v lane %d d16 16_16_FLOAT = %#x, want the raw halves %#x", wave64, l, w.V[24][l], d)
		}
		for c := 0; c < 2; c++ {
			x := math.Max(0, math.Min(1, float64(f32(w.V[2+c][l]))))
			want := uint16(math.RoundToEven(x * 65535))
			if got := le.Uint16(out[1024+4*l+2*c:]); got != want {
				t.Errorf("wave64=%v lane %d 16_16_UNORM store comp %d = %d, want %d", wave64, l, c, got, want)
			}
		}
		// ADD_TID: index = lane, stride 4, 64 records.
		if want := le.Uint32(data[4*l:]); w.V[25][l] != want {
			t.Errorf("wave64=%v lane %d ADD_TID load = %#x, want %#x", wave64, l, w.V[25][l], want)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"tbuffer_load_format_x v1, v0, s[4:7], null format:[BUF_FMT_2_10_10_10_UNORM] offen", "BUF_FMT_2_10_10_10_UNORM"},
		{"tbuffer_load_format_x v1, v0, s[4:7], null format:0 offen", "format 0"},
		{"tbuffer_load_format_x v1, v0, s[4:7], null format:100 offen", "format 100"},
		{"buffer_load_format_x v1, v0, s[4:7], null offen", "V# word 3"},
	} {
		w, _ := newWave12(t, assemble12(t, c.src, wave64), wave64)
		if err := w.Run(10); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "not supported") {
			t.Errorf("%s: %v, want an error naming %q", c.src, err, c.want)
		}
	}
}
