package wave

import (
	"debug/elf"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
	"github.com/rocjitsu/rocjitsu/hsa/sim/mem"
	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
)

// assemble assembles gfx942 source with llvm-mc-19 and returns the .text bytes.
func assemble(t *testing.T, src string) []byte {
	t.Helper()
	mc := llvmtool.Require(t, "llvm-mc-19")
	dir := t.TempDir()
	s, o := filepath.Join(dir, "t.s"), filepath.Join(dir, "t.o")
	if err := os.WriteFile(s, []byte(src+"\ns_endpgm\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(mc, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-filetype=obj", s, "-o", o).CombinedOutput(); err != nil {
		t.Fatalf("llvm-mc-19: %v\n%s", err, out)
	}
	f, err := elf.Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := f.Section(".text").Data()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// newWave loads code and returns a wave ready to run it with all lanes on.
func newWave(t *testing.T, code []byte, target Target) (*Wave, *mem.Memory) {
	t.Helper()
	m := mem.New()
	addr, err := m.Alloc(uint64(len(code)+64), 256)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Write(addr, code); err != nil {
		t.Fatal(err)
	}
	w := &Wave{}
	w.Reset(NewProgram(m, target), m, &Group{LDS: make([]byte, 4096)}, target, addr, 256, 256)
	w.SetExec(^uint64(0))
	return w, m
}

func run(t *testing.T, w *Wave) {
	t.Helper()
	if err := w.Run(100000); err != nil {
		t.Fatal(err)
	}
	if !w.Done {
		t.Fatal("wave did not reach s_endpgm")
	}
}

// TestOpcodeNames checks the generated tables against llvm-mc-19: every
// probe instruction assembles to an encoding that decodes back to the
// same mnemonic.
func TestOpcodeNames(t *testing.T) {
	src := []string{
		"v_add_f32 v1, v2, v3", "v_fmac_f32 v1, v2, v3", "v_mad_u64_u32 v[0:1], s[2:3], v2, v3, v[4:5]",
		"v_lshl_add_u64 v[0:1], v[2:3], 2, v[4:5]", "s_add_u32 s1, s2, s3", "s_and_saveexec_b64 s[0:1], vcc",
		"global_load_dword v1, v[2:3], off", "scratch_store_dwordx4 off, v[0:3], s0 offset:16",
		"ds_read2_b32 v[0:1], v2 offset1:4", "v_mfma_f32_16x16x16_f16 a[0:3], v[0:1], v[2:3], a[0:3]",
		"v_cvt_pk_fp8_f32 v1, v2, v3", "v_cmpx_lt_i64_e64 s[4:5], v[0:1], v[2:3]", "v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]",
		"buffer_load_dword v1, v2, s[4:7], 0 offen", "s_load_dwordx4 s[0:3], s[4:5], 0x10", "v_dot2_f32_f16 v1, v2, v3, v4",
	}
	code := assemble(t, strings.Join(src, "\n"))
	words := make([]uint32, len(code)/4)
	for i := range words {
		words[i] = le.Uint32(code[4*i:])
	}
	off := 0
	for _, s := range src {
		in, err := Decode(words[off:], GFX942)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		want := strings.Fields(s)[0]
		want = strings.TrimSuffix(strings.TrimSuffix(want, "_e64"), "_e32")
		if in.Name != want {
			t.Errorf("%s decodes as %q", s, in.Name)
		}
		if !Supported(in.Name) {
			t.Errorf("%s: no semantics", in.Name)
		}
		off += in.Size / 4
	}
}

// TestFloatOps checks f32/f64/f16 arithmetic lane by lane against Go's
// float arithmetic and math package.
func TestFloatOps(t *testing.T) {
	code := assemble(t, `
v_add_f32 v10, v0, v1
v_mul_f32 v11, v0, v1
v_fma_f32 v12, v0, v1, v2
v_max_f32 v13, v0, v1
v_cvt_f16_f32 v14, v0
v_cvt_f32_f16 v15, v14
v_add_f64 v[16:17], v[4:5], v[6:7]
v_fma_f64 v[18:19], v[4:5], v[6:7], v[4:5]
v_cvt_i32_f32 v20, v0
v_sqrt_f32 v21, |v1|
v_sub_f32_e64 v22, -v0, v1 clamp
v_cvt_pkrtz_f16_f32 v23, v0, v1`)
	w, _ := newWave(t, code, GFX942)
	rng := rand.New(rand.NewSource(4))
	for l := 0; l < 64; l++ {
		a, b, c := float32(rng.NormFloat64()*100), float32(rng.NormFloat64()), float32(rng.NormFloat64()*10)
		w.V[0][l], w.V[1][l], w.V[2][l] = u32(a), u32(b), u32(c)
		x, y := rng.NormFloat64()*1e10, rng.NormFloat64()
		w.V[4][l], w.V[5][l] = uint32(u64f(x)), uint32(u64f(x)>>32)
		w.V[6][l], w.V[7][l] = uint32(u64f(y)), uint32(u64f(y)>>32)
	}
	run(t, w)
	for l := 0; l < 64; l++ {
		a, b, c := f32(w.V[0][l]), f32(w.V[1][l]), f32(w.V[2][l])
		x := f64(uint64(w.V[4][l]) | uint64(w.V[5][l])<<32)
		y := f64(uint64(w.V[6][l]) | uint64(w.V[7][l])<<32)
		get64 := func(r int) float64 { return f64(uint64(w.V[r][l]) | uint64(w.V[r+1][l])<<32) }
		checks := []struct {
			name      string
			got, want uint64
		}{
			{"v_add_f32", uint64(w.V[10][l]), uint64(u32(a + b))},
			{"v_mul_f32", uint64(w.V[11][l]), uint64(u32(a * b))},
			// float64 fma of float32 inputs, rounded once to float32 by big-precision reasoning:
			{"v_fma_f32", uint64(w.V[12][l]), uint64(u32(float32(math.FMA(float64(a), float64(b), float64(c)))))},
			{"v_max_f32", uint64(w.V[13][l]), uint64(u32(float32(math.Max(float64(a), float64(b)))))},
			{"v_cvt_f32_f16", uint64(w.V[15][l]), uint64(u32(fp.F16ToF32(fp.F32ToF16(a))))},
			{"v_add_f64", u64f(get64(16)), u64f(x + y)},
			{"v_fma_f64", u64f(get64(18)), u64f(math.FMA(x, y, x))},
			{"v_cvt_i32_f32", uint64(w.V[20][l]), uint64(uint32(int32(a)))},
			{"v_sqrt_f32", uint64(w.V[21][l]), uint64(u32(float32(math.Sqrt(math.Abs(float64(b))))))},
			{"v_sub_f32 clamp", uint64(w.V[22][l]), uint64(u32(float32(math.Min(math.Max(float64(-a-b), 0), 1))))},
			{"v_cvt_pkrtz_f16_f32", uint64(w.V[23][l]), uint64(fp.F32ToF16RTZ(a)) | uint64(fp.F32ToF16RTZ(b))<<16},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("lane %d %s: got %#x want %#x", l, c.name, c.got, c.want)
			}
		}
	}
}

// TestFP8Conversions checks that the same instruction words convert with
// FNUZ formats on gfx942 and OCP formats on gfx950.
func TestFP8Conversions(t *testing.T) {
	code := assemble(t, `
v_cvt_pk_fp8_f32 v10, v0, v1
v_cvt_pk_bf8_f32 v11, v0, v1
v_cvt_f32_fp8 v12, v10
v_cvt_f32_bf8 v13, v11`)
	for _, tc := range []struct {
		target Target
		e4, e5 fp.Format
	}{{GFX942, fp.E4M3FNUZ, fp.E5M2FNUZ}, {GFX950, fp.E4M3FN, fp.E5M2}} {
		w, _ := newWave(t, code, tc.target)
		vals := []float32{1, -1, 0.3, 240, 448, -57344, 1e-3, 3.14159, 17.5, -0.0625}
		for l := 0; l < 64; l++ {
			w.V[0][l] = u32(vals[l%len(vals)])
			w.V[1][l] = u32(vals[(l+3)%len(vals)] * 0.5)
		}
		run(t, w)
		for l := 0; l < 64; l++ {
			a, b := f32(w.V[0][l]), f32(w.V[1][l])
			if want := uint32(tc.e4.Encode(a, false)) | uint32(tc.e4.Encode(b, false))<<8; w.V[10][l]&0xffff != want {
				t.Errorf("%v lane %d v_cvt_pk_fp8_f32(%v, %v) = %#x, want %#x", tc.target, l, a, b, w.V[10][l]&0xffff, want)
			}
			if want := uint32(tc.e5.Encode(a, false)) | uint32(tc.e5.Encode(b, false))<<8; w.V[11][l]&0xffff != want {
				t.Errorf("%v lane %d v_cvt_pk_bf8_f32 = %#x, want %#x", tc.target, l, w.V[11][l]&0xffff, want)
			}
			if want := u32(tc.e4.Decode(uint8(w.V[10][l]))); w.V[12][l] != want && !(math.IsNaN(float64(f32(want)))) {
				t.Errorf("%v lane %d v_cvt_f32_fp8 = %#x, want %#x", tc.target, l, w.V[12][l], want)
			}
		}
		// 1.0 has different codes in the two flavours.
		one := fp.E4M3FNUZ.Encode(1, false)
		if tc.target == GFX950 {
			one = fp.E4M3FN.Encode(1, false)
		}
		if uint8(w.V[10][0]) != one {
			t.Errorf("%v: fp8(1.0) = %#x, want %#x", tc.target, uint8(w.V[10][0]), one)
		}
	}
}

// TestScalarAndLanes checks carries, SCC, EXEC masking and cross-lane ops.
func TestScalarAndLanes(t *testing.T) {
	code := assemble(t, `
s_mov_b32 s0, -1
s_add_u32 s2, s0, 5
s_addc_u32 s3, 0, 0
s_mov_b64 exec, 0xff
v_mov_b32 v1, 7
s_mov_b64 exec, -1
v_mbcnt_lo_u32_b32 v2, -1, 0
v_mbcnt_hi_u32_b32 v2, -1, v2
v_add_co_u32 v3, vcc, -1, v2
v_readlane_b32 s4, v2, 37
v_mov_b32_dpp v4, v2 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0
v_lshlrev_b32 v5, 2, v2
ds_bpermute_b32 v6, v5, v2 offset:4
s_waitcnt lgkmcnt(0)`)
	w, _ := newWave(t, code, GFX942)
	run(t, w)
	if w.S[2] != 4 || w.S[3] != 1 {
		t.Errorf("s_add_u32/s_addc_u32: s2=%d s3=%d, want 4 1", w.S[2], w.S[3])
	}
	for l := 0; l < 64; l++ {
		want := uint32(0)
		if l < 8 {
			want = 7
		}
		if w.V[1][l] != want {
			t.Errorf("lane %d: EXEC-masked v_mov = %d, want %d", l, w.V[1][l], want)
		}
		if w.V[2][l] != uint32(l) {
			t.Errorf("lane %d: mbcnt = %d", l, w.V[2][l])
		}
		wantDPP := uint32(0)
		if l%16 != 0 {
			wantDPP = uint32(l - 1)
		}
		if w.V[4][l] != wantDPP {
			t.Errorf("lane %d: row_shr:1 = %d, want %d", l, w.V[4][l], wantDPP)
		}
		if w.V[6][l] != uint32((l+1)&63) {
			t.Errorf("lane %d: bpermute = %d, want %d", l, w.V[6][l], (l+1)&63)
		}
	}
	if vcc := w.VCC(); vcc != ^uint64(0)&^1 {
		t.Errorf("carry-out mask = %#x", vcc)
	}
	if w.S[4] != 37 {
		t.Errorf("v_readlane = %d", w.S[4])
	}
}

// TestFaults checks that traps and bad accesses name the instruction.
func TestFaults(t *testing.T) {
	for _, src := range []string{"s_trap 2", "v_mov_b32 v0, 0\nv_mov_b32 v1, 0\nglobal_load_dword v2, v[0:1], off", "v_mov_b32 v0, 0x10000\nds_read_b32 v1, v0"} {
		w, _ := newWave(t, assemble(t, src), GFX942)
		err := w.Run(1000)
		f, ok := err.(*Fault)
		if !ok {
			t.Fatalf("%q: got %v, want a *Fault", src, err)
		}
		if f.Inst == "" || f.PC == 0 {
			t.Errorf("%q: fault without instruction or PC: %v", src, f)
		}
	}
}

// FuzzDecode feeds arbitrary words to the decoder: it must return an
// instruction or an error, never panic.
func FuzzDecode(f *testing.F) {
	f.Add([]byte{0x00, 0x00, 0x81, 0xbf})
	f.Add([]byte{0x00, 0x80, 0xcd, 0xd3, 0x04, 0x0d, 0x02, 0x1c})
	f.Add([]byte{0xf9, 0x04, 0x94, 0x7d, 0x01, 0x84, 0x01, 0x04})
	f.Add([]byte{0x08, 0x40, 0x40, 0xcc, 0x00, 0x09, 0x22, 0x1c})             // gfx12 v_wmma
	f.Add([]byte{0x01, 0x01, 0x10, 0xca, 0x00, 0x01, 0x00, 0x00})             // gfx12 VOPD
	f.Add([]byte{0xe9, 0x02, 0x00, 0x7e, 0x01, 0x77, 0x39, 0x05})             // gfx12 DPP8
	f.Add([]byte{0x00, 0x00, 0x08, 0xee, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}) // truncated gfx12 VGLOBAL
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzguard.Run(t, b, func() {
			words := make([]uint32, len(b)/4)
			for i := range words {
				words[i] = le.Uint32(b[4*i:])
			}
			if len(words) == 0 {
				return
			}
			for _, tg := range []Target{GFX942, GFX950, GFX1200, GFX1201, GFX1201 | Wave64} {
				in, err := Decode(words, tg)
				if err == nil && (in.Size < 4 || in.Size/4 > len(words)) {
					t.Fatalf("bad size %d for %d words", in.Size, len(words))
				}
			}
		})
	})
}

// TestMiscOps checks VGPR indexing, byte packing, int4 offsets, scalar
// atomics and LDS-direct global loads.
func TestMiscOps(t *testing.T) {
	code := assemble(t, `
s_mov_b32 s0, 3
s_set_gpr_idx_on s0, gpr_idx(SRC0,DST)
v_mov_b32 v10, v1
s_set_gpr_idx_off
v_cvt_pk_u8_f32 v20, v2, 1, v3
v_cvt_off_f32_i4 v21, v4
s_atomic_add s6, s[8:9], 0x0 glc
s_mov_b32 m0, 16
global_load_lds_dword v[30:31], off
s_waitcnt vmcnt(0)
ds_read_b32 v22, v5`)
	w, m := newWave(t, code, GFX942)
	buf, err := m.Alloc(64*4, 256)
	if err != nil {
		t.Fatal(err)
	}
	for l := 0; l < 64; l++ {
		w.V[4][l] = w.V[1][l] + uint32(l) // v4 = ... set below
		w.V[1][l] = 100 + uint32(l)
		w.V[4][l] = uint32(l) // v[4] = l: v1+idx3 -> v4
		w.V[2][l] = u32(float32(l) * 5.5)
		w.V[3][l] = 0x11223344
		a := buf + uint64(4*l)
		w.V[30][l], w.V[31][l] = uint32(a), uint32(a>>32)
		if err := m.Store32(a, 0xabc0000+uint32(l)); err != nil {
			t.Fatal(err)
		}
		w.V[5][l] = 16 + 4*uint32(l)
	}
	cnt, _ := m.Alloc(8, 256)
	m.Store32(cnt, 41)
	w.S[8], w.S[9] = uint32(cnt), uint32(cnt>>32)
	w.S[6] = 1
	run(t, w)
	for l := 0; l < 64; l++ {
		// v_mov_b32 v10, v1 with index 3 on SRC0 and DST: v13 = v4.
		if w.V[13][l] != uint32(l) {
			t.Errorf("lane %d: indexed move wrote %d", l, w.V[13][l])
		}
		u := math.RoundToEven(float64(l) * 5.5)
		if u > 255 {
			u = 255
		}
		if want := uint32(0x11223344)&^0xff00 | uint32(u)<<8; w.V[20][l] != want {
			t.Errorf("lane %d: v_cvt_pk_u8_f32 = %#x, want %#x", l, w.V[20][l], want)
		}
		if want := float32(int32(uint32(l)<<28)>>28) / 16; f32(w.V[21][l]) != want {
			t.Errorf("lane %d: v_cvt_off_f32_i4 = %v, want %v", l, f32(w.V[21][l]), want)
		}
		if w.V[22][l] != 0xabc0000+uint32(l) {
			t.Errorf("lane %d: LDS-direct load = %#x", l, w.V[22][l])
		}
	}
	if v, _ := m.Load32(cnt); v != 42 || w.S[6] != 41 {
		t.Errorf("s_atomic_add: memory %d, returned %d", v, w.S[6])
	}
}

// TestDenormModes checks that the descriptor's denormal mode decides
// whether f32/f64 denormals survive.
func TestDenormModes(t *testing.T) {
	code := assemble(t, "v_mul_f32 v2, v0, v1\nv_add_f64 v[4:5], v[6:7], v[6:7]")
	den := math.Float32frombits(0x00000400) // a denormal
	den64 := math.Float64frombits(0x0000000000001000)
	for _, flush := range []bool{false, true} {
		w, _ := newWave(t, code, GFX942)
		w.FlushF32, w.FlushF64 = flush, flush
		for l := 0; l < 64; l++ {
			w.V[0][l], w.V[1][l] = u32(den), u32(3)
			w.V[6][l], w.V[7][l] = uint32(u64f(den64)), uint32(u64f(den64)>>32)
		}
		run(t, w)
		want32, want64 := u32(den*3), u64f(den64+den64)
		if flush {
			want32, want64 = 0, 0
		}
		if w.V[2][0] != want32 {
			t.Errorf("flush=%v: v_mul_f32 = %#x, want %#x", flush, w.V[2][0], want32)
		}
		if got := uint64(w.V[4][0]) | uint64(w.V[5][0])<<32; got != want64 {
			t.Errorf("flush=%v: v_add_f64 = %#x, want %#x", flush, got, want64)
		}
	}
}

// TestMFMAFP8 runs v_mfma_f32_16x16x32_fp8_fp8 with the same bytes on
// gfx942 (E4M3FNUZ) and gfx950 (E4M3FN) and compares with a reference
// that places the operands by the documented 16x16 layout: A[i][k] in lane
// i + 16*(k/8), byte k%8; B[k][j] in lane j + 16*(k/8); D[i][j] in lane
// j + 16*(i/4), register i%4.
func TestMFMAFP8(t *testing.T) {
	code := assemble(t, "v_mfma_f32_16x16x32_fp8_fp8 v[0:3], v[4:5], v[6:7], v[8:11]\ns_nop 7\ns_nop 7")
	rng := rand.New(rand.NewSource(5))
	var A, B [16 * 32]uint8 // codes: A[i*32+k], B[k*16+j]
	for i := range A {
		A[i] = uint8(rng.Intn(256))
		B[i] = uint8(rng.Intn(256))
		for _, c := range []*uint8{&A[i], &B[i]} {
			if *c&0x7f == 0x7f || *c == 0x80 || *c&0x78 == 0x78 { // no NaN, keep values moderate
				*c &= 0x37
			}
		}
	}
	for _, tc := range []struct {
		target Target
		f      fp.Format
	}{{GFX942, fp.E4M3FNUZ}, {GFX950, fp.E4M3FN}} {
		w, _ := newWave(t, code, tc.target)
		for l := 0; l < 64; l++ {
			var a, b uint64
			for e := 0; e < 8; e++ {
				k := 8*(l/16) + e
				a |= uint64(A[(l%16)*32+k]) << (8 * e)
				b |= uint64(B[k*16+l%16]) << (8 * e)
			}
			w.V[4][l], w.V[5][l] = uint32(a), uint32(a>>32)
			w.V[6][l], w.V[7][l] = uint32(b), uint32(b>>32)
			for r := 0; r < 4; r++ {
				w.V[8+r][l] = u32(float32(l*4 + r))
			}
		}
		run(t, w)
		for l := 0; l < 64; l++ {
			for r := 0; r < 4; r++ {
				i, j := 4*(l/16)+r, l%16
				acc := float64(l*4 + r)
				for k := 0; k < 32; k++ {
					acc += float64(tc.f.Decode(A[i*32+k])) * float64(tc.f.Decode(B[k*16+j]))
				}
				if got := f32(w.V[r][l]); got != float32(acc) {
					t.Fatalf("%v D[%d][%d] = %v, want %v", tc.target, i, j, got, float32(acc))
				}
			}
		}
	}
}

// words turns little-endian instruction bytes into code bytes with an
// s_endpgm appended.
func words(b ...byte) []byte { return append(b, 0x00, 0x00, 0x81, 0xbf) }

// TestMFMAF8F6F4 runs gfx950's f8f6f4 MFMA (encodings from LLVM's gfx950
// MC tests) with and without v_mfma_ld_scale_b32 scales and compares with
// a reference built from the fp formats: A[i][k] is element k%32 of lane
// i + 16*(k/32), packed contiguously at the format's bit width.
func TestMFMAF8F6F4(t *testing.T) {
	cases := []struct {
		name   string
		code   []byte
		fa, fb fp.Format
		a, b   int // first VGPR of A and B
		c      int // first VGPR of C
		scaled bool
	}{
		{"v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[20:23], v24, v25",
			words(0x00, 0x00, 0xac, 0xd3, 0x18, 0x33, 0x02, 0x00, 0x00, 0x08, 0xad, 0xd3, 0x04, 0x19, 0x52, 0x04),
			fp.E4M3FN, fp.E4M3FN, 4, 12, 20, true},
		{"v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:9], v[4:11], v[0:3] cbsz:3 blgp:1",
			words(0x00, 0x03, 0xad, 0xd3, 0x04, 0x09, 0x02, 0x24),
			fp.E3M2, fp.E5M2, 4, 4, 0, false},
	}
	rng := rand.New(rand.NewSource(6))
	for _, tc := range cases {
		w, _ := newWave(t, tc.code, GFX950)
		for r := 0; r < 32; r++ {
			for l := 0; l < 64; l++ {
				w.V[r][l] = rng.Uint32() & 0x3b3b3b3b // moderate codes in every format
			}
		}
		for l := 0; l < 64; l++ {
			w.V[24][l] = 120 + uint32(l%16) // E8M0 scales 2^-7 .. 2^8
			w.V[25][l] = 130 - uint32(l%8)
		}
		elem := func(base, lane, e int, f fp.Format) float64 {
			bits := f.Bits
			if bits == 0 {
				bits = 8
			}
			bit := e * bits
			v := uint64(w.V[base+bit/32][lane]) | uint64(w.V[base+bit/32+1][lane])<<32
			return float64(f.Decode(uint8(v >> (bit % 32) & (1<<bits - 1))))
		}
		var want [64][4]float32
		for l := 0; l < 64; l++ {
			for r := 0; r < 4; r++ {
				i, j := 4*(l/16)+r, l%16
				acc := 0.0
				for k := 0; k < 128; k++ {
					la, lb := i+16*(k/32), j+16*(k/32)
					x, y := elem(tc.a, la, k%32, tc.fa), elem(tc.b, lb, k%32, tc.fb)
					if tc.scaled {
						x *= math.Ldexp(1, int(w.V[24][la]&0xff)-127)
						y *= math.Ldexp(1, int(w.V[25][lb]&0xff)-127)
					}
					acc += x * y
				}
				want[l][r] = float32(acc + float64(f32(w.V[tc.c+r][l])))
			}
		}
		run(t, w)
		for l := 0; l < 64; l++ {
			for r := 0; r < 4; r++ {
				if got := f32(w.V[r][l]); got != want[l][r] {
					t.Fatalf("%s: lane %d reg %d = %v, want %v", tc.name, l, r, got, want[l][r])
				}
			}
		}
	}
}

// TestModeRegister checks s_getreg/s_setreg on MODE and an unknown
// instruction fault.
func TestModeRegister(t *testing.T) {
	w, _ := newWave(t, assemble(t, `
s_getreg_b32 s0, hwreg(HW_REG_MODE, 4, 4)
s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 0
s_getreg_b32 s1, hwreg(HW_REG_MODE, 4, 4)
v_mul_f32 v1, v0, 1.0`), GFX942)
	for l := 0; l < 64; l++ {
		w.V[0][l] = 0x00000400 // f32 denormal
	}
	run(t, w)
	if w.S[0] != 0xf || w.S[1] != 0xc || !w.FlushF32 || w.FlushF64 {
		t.Errorf("MODE denorm fields %#x then %#x, flush32 %v flush64 %v", w.S[0], w.S[1], w.FlushF32, w.FlushF64)
	}
	if w.V[1][0] != 0 {
		t.Errorf("denormal survived flush mode: %#x", w.V[1][0])
	}
	// An opcode no gfx9 target has: the fault names it as unknown.
	w, _ = newWave(t, words(0x00, 0x00, 0x94, 0xd3, 0x00, 0x00, 0x00, 0x00), GFX942)
	err := w.Run(10)
	if err == nil || !strings.Contains(err.Error(), "unknown") {
		t.Errorf("got %v, want an unknown-instruction fault", err)
	}
}

// TestSMFMAC checks v_smfmac_f32_16x16x32_f16 against a dense product
// with A expanded from its 2:4 sparse form (two values per group of four
// K positions, 2-bit positions in index byte abid of the index VGPR).
func TestSMFMAC(t *testing.T) {
	code := assemble(t, "v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10 abid:1\ns_nop 7\ns_nop 7")
	w, _ := newWave(t, code, GFX942)
	rng := rand.New(rand.NewSource(7))
	var A [16][32]float64
	var B [32][16]float64
	pairs := [][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}
	for l := 0; l < 64; l++ {
		i, k0 := l%16, 8*(l/16)
		var idx uint32
		var vals [4]uint16
		for g := 0; g < 2; g++ {
			p := pairs[rng.Intn(len(pairs))]
			for e := 0; e < 2; e++ {
				h := fp.F32ToF16(float32(rng.Intn(9) - 4))
				vals[2*g+e] = h
				A[i][k0+4*g+p[e]] = float64(fp.F16ToF32(h))
				idx |= uint32(p[e]) << (2 * (2*g + e))
			}
		}
		w.V[4][l] = uint32(vals[0]) | uint32(vals[1])<<16
		w.V[5][l] = uint32(vals[2]) | uint32(vals[3])<<16
		w.V[10][l] = 0xff | idx<<8 // index set 1 (abid:1); set 0 is a decoy
		for e := 0; e < 8; e += 2 {
			lo, hi := fp.F32ToF16(float32(rng.Intn(7)-3)), fp.F32ToF16(float32(rng.Intn(7)-3))
			B[k0+e][i], B[k0+e+1][i] = float64(fp.F16ToF32(lo)), float64(fp.F16ToF32(hi))
			w.V[6+e/2][l] = uint32(lo) | uint32(hi)<<16
		}
		for r := 0; r < 4; r++ {
			w.V[r][l] = u32(float32(r))
		}
	}
	run(t, w)
	for l := 0; l < 64; l++ {
		for r := 0; r < 4; r++ {
			i, j := 4*(l/16)+r, l%16
			want := float64(r)
			for k := 0; k < 32; k++ {
				want += A[i][k] * B[k][j]
			}
			if got := f32(w.V[r][l]); got != float32(want) {
				t.Fatalf("D[%d][%d] = %v, want %v", i, j, got, want)
			}
		}
	}
}

// TestLaneOps checks single VALU instructions lane by lane: v3 = op(v0,
// v1, v2) on random inputs, against Go computations written from each
// instruction's definition.
func TestLaneOps(t *testing.T) {
	h := func(x uint32) float64 { return float64(fp.F16ToF32(uint16(x))) }
	toH := func(f float64) uint32 { return uint32(fp.F32ToF16(float32(f))) }
	absd := func(x, y uint32) uint32 {
		if x > y {
			return x - y
		}
		return y - x
	}
	cases := []struct {
		asm  string
		gen  func(r *rand.Rand) uint32 // input generator
		want func(a, b, c uint32) uint32
	}{
		{"v_exp_f16 v3, v0", func(r *rand.Rand) uint32 { return toH(r.Float64()*8 - 4) },
			func(a, b, c uint32) uint32 { return toH(math.Exp2(h(a))) }},
		{"v_log_f16 v3, v0", func(r *rand.Rand) uint32 { return toH(r.Float64() * 100) },
			func(a, b, c uint32) uint32 { return toH(math.Log2(h(a))) }},
		{"v_fma_f16 v3, v0, v1, v2", func(r *rand.Rand) uint32 { return toH(r.NormFloat64() * 10) },
			func(a, b, c uint32) uint32 { return toH(math.FMA(h(a), h(b), h(c))) }},
		{"v_max3_i16 v3, v0, v1, v2", func(r *rand.Rand) uint32 { return r.Uint32() & 0xffff },
			func(a, b, c uint32) uint32 { return uint32(uint16(max(int16(a), int16(b), int16(c)))) }},
		{"v_sad_u8 v3, v0, v1, v2", func(r *rand.Rand) uint32 { return r.Uint32() },
			func(a, b, c uint32) uint32 {
				for i := 0; i < 32; i += 8 {
					c += absd(a>>i&0xff, b>>i&0xff)
				}
				return c
			}},
		{"v_dot8_i32_i4 v3, v0, v1, v2", func(r *rand.Rand) uint32 { return r.Uint32() },
			func(a, b, c uint32) uint32 {
				s := int32(c)
				for i := 0; i < 32; i += 4 {
					s += int32(a>>i&15) << 28 >> 28 * (int32(b>>i&15) << 28 >> 28)
				}
				return uint32(s)
			}},
		{"v_cvt_pknorm_i16_f32 v3, v0, v1", func(r *rand.Rand) uint32 { return u32(float32(r.Float64()*3 - 1.5)) },
			func(a, b, c uint32) uint32 {
				n := func(x uint32) uint32 {
					return uint32(uint16(int16(math.RoundToEven(math.Max(-1, math.Min(1, float64(f32(x)))) * 32767))))
				}
				return n(a) | n(b)<<16
			}},
		{"v_bfe_i32 v3, v0, v1, v2", func(r *rand.Rand) uint32 { return r.Uint32() },
			func(a, b, c uint32) uint32 {
				off, wd := b&31, c&31
				if wd == 0 {
					return 0
				}
				if off+wd >= 32 {
					return uint32(int32(a) >> off)
				}
				return uint32(int32(a<<(32-off-wd)) >> (32 - wd))
			}},
		{"v_perm_b32 v3, v0, v1, v2", func(r *rand.Rand) uint32 { return r.Uint32() & 0x07070707 },
			func(a, b, c uint32) uint32 {
				all := uint64(a)<<32 | uint64(b)
				var res uint32
				for i := 0; i < 4; i++ {
					res |= uint32(all>>(8*(c>>(8*i)&7))&0xff) << (8 * i)
				}
				return res
			}},
		{"v_alignbyte_b32 v3, v0, v1, v2", func(r *rand.Rand) uint32 { return r.Uint32() },
			func(a, b, c uint32) uint32 { return uint32((uint64(a)<<32 | uint64(b)) >> (8 * (c & 3))) }},
		{"v_mul_hi_i32 v3, v0, v1", func(r *rand.Rand) uint32 { return r.Uint32() },
			func(a, b, c uint32) uint32 { return uint32(uint64(int64(int32(a))*int64(int32(b))) >> 32) }},
		{"v_cvt_f32_ubyte2 v3, v0", func(r *rand.Rand) uint32 { return r.Uint32() },
			func(a, b, c uint32) uint32 { return u32(float32(a >> 16 & 0xff)) }},
		{"v_pk_add_f16 v3, v0, v1", func(r *rand.Rand) uint32 { return toH(r.NormFloat64()) | toH(r.NormFloat64())<<16 },
			func(a, b, c uint32) uint32 { return toH(h(a)+h(b)) | toH(h(a>>16)+h(b>>16))<<16 }},
		{"v_div_fixup_f32 v3, v0, v1, v2", func(r *rand.Rand) uint32 { return u32(float32(r.NormFloat64() * 1e3)) },
			func(a, b, c uint32) uint32 { return u32(f32(c) / f32(b)) }},
		{"v_pack_b32_f16 v3, v0, -v1 op_sel:[1,0,0]", func(r *rand.Rand) uint32 { return r.Uint32() },
			func(a, b, c uint32) uint32 { return a>>16 | (b^0x8000)<<16 }},
		{"v_fma_f16 v3, v0, v1, v2 op_sel:[0,1,0,1]", func(r *rand.Rand) uint32 { return toH(r.NormFloat64()) | toH(r.NormFloat64())<<16 },
			func(a, b, c uint32) uint32 { return toH(math.FMA(h(a), h(b>>16), h(c))) << 16 }}, // v3 starts at 0
		{"v_pk_mul_lo_u16 v3, v0, v1", func(r *rand.Rand) uint32 { return r.Uint32() },
			func(a, b, c uint32) uint32 { return (a*b)&0xffff | ((a>>16)*(b>>16))<<16 }},
	}
	rng := rand.New(rand.NewSource(8))
	for _, c := range cases {
		w, _ := newWave(t, assemble(t, c.asm), GFX942)
		for l := 0; l < 64; l++ {
			w.V[0][l], w.V[1][l], w.V[2][l] = c.gen(rng), c.gen(rng), c.gen(rng)
		}
		if strings.HasPrefix(c.asm, "v_bfe") {
			for l := 0; l < 64; l++ {
				w.V[1][l], w.V[2][l] = w.V[1][l]&31, w.V[2][l]&31
			}
		}
		run(t, w)
		for l := 0; l < 64; l++ {
			if want := c.want(w.V[0][l], w.V[1][l], w.V[2][l]); w.V[3][l] != want {
				t.Errorf("%s lane %d (%#x, %#x, %#x): got %#x want %#x", c.asm, l, w.V[0][l], w.V[1][l], w.V[2][l], w.V[3][l], want)
				break
			}
		}
	}
}

// TestMFMAF64 checks v_mfma_f64_16x16x4_f64: A[i][k] in lane i + 16k,
// B[k][j] in lane j + 16k, D[i][j] in lane j + 16*(i/4), pair i%4.
func TestMFMAF64(t *testing.T) {
	code := assemble(t, "v_mfma_f64_16x16x4_f64 v[0:7], v[8:9], v[10:11], v[12:19]\ns_nop 7\ns_nop 7")
	w, _ := newWave(t, code, GFX942)
	rng := rand.New(rand.NewSource(9))
	set := func(r, l int, v float64) { w.V[r][l], w.V[r+1][l] = uint32(u64f(v)), uint32(u64f(v)>>32) }
	get := func(r, l int) float64 { return f64(uint64(w.V[r][l]) | uint64(w.V[r+1][l])<<32) }
	for l := 0; l < 64; l++ {
		set(8, l, rng.NormFloat64())
		set(10, l, rng.NormFloat64())
		for r := 0; r < 4; r++ {
			set(12+2*r, l, rng.NormFloat64())
		}
	}
	var want [64][4]float64
	for l := 0; l < 64; l++ {
		for r := 0; r < 4; r++ {
			i, j := 4*(l/16)+r, l%16
			acc := get(12+2*r, l)
			for k := 0; k < 4; k++ {
				acc = math.FMA(get(8, i+16*k), get(10, j+16*k), acc)
			}
			want[l][r] = acc
		}
	}
	run(t, w)
	for l := 0; l < 64; l++ {
		for r := 0; r < 4; r++ {
			if got := get(2*r, l); got != want[l][r] {
				t.Fatalf("lane %d pair %d = %v, want %v", l, r, got, want[l][r])
			}
		}
	}
}

// FuzzExecute runs arbitrary instruction words on a wave with some memory
// mapped: every instruction must execute or fault, never panic.
func FuzzExecute(f *testing.F) {
	f.Add([]byte{0x00, 0x00, 0x81, 0xbf})
	f.Add([]byte{0x00, 0x80, 0xcd, 0xd3, 0x04, 0x0d, 0x02, 0x1c})
	f.Add([]byte{0xfa, 0x02, 0x02, 0x7e, 0x02, 0x11, 0x09, 0xa5})
	f.Add([]byte{0x00, 0x00, 0x6c, 0xd8, 0x01, 0x02, 0x04, 0x08})
	f.Add([]byte{0x08, 0x40, 0x40, 0xcc, 0x00, 0x09, 0x22, 0x1c})                         // gfx12 v_wmma
	f.Add([]byte{0x02, 0x58, 0x54, 0xcc, 0x00, 0x0d, 0x06, 0x1c})                         // gfx12 v_swmmac_i32_16x16x32_iu8 index_key:3
	f.Add([]byte{0x02, 0x40, 0x47, 0xcc, 0x00, 0x03, 0x0a, 0x1c})                         // gfx12 v_wmma_f32_16x16x16_fp8_bf8
	f.Add([]byte{0x7c, 0x00, 0x05, 0xc4, 0x01, 0x08, 0x80, 0x40, 0x00, 0x00, 0x00, 0x00}) // gfx12 buffer_load_b32 offen
	f.Add([]byte{0x01, 0x01, 0x10, 0xca, 0x00, 0x01, 0x00, 0x00})                         // gfx12 VOPD
	f.Add([]byte{0x00, 0x00, 0xc0, 0xd8, 0x00, 0x01, 0x02, 0x03})                         // gfx12 ds_cmpstore_rtn_b32
	f.Add([]byte{0x00, 0x00, 0x05, 0xee, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}) // gfx12 global_load
	f.Add([]byte{0x7c, 0xc0, 0x20, 0xc4, 0x01, 0x08, 0x00, 0x55, 0x00, 0x00, 0x00, 0x00}) // gfx12 tbuffer_load_format_xyzw 8_8_8_8_UNORM
	f.Add([]byte{0x7c, 0x40, 0x03, 0xc4, 0x01, 0x08, 0x80, 0x40, 0x00, 0x00, 0x00, 0x00}) // gfx12 buffer_store_d16_format_xy
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzguard.Run(t, b, func() {
			if len(b) > 256 {
				b = b[:256]
			}
			for _, tg := range []Target{GFX942, GFX950, GFX1200, GFX1201, GFX1201 | Wave64} {
				m := mem.New()
				end := []byte{0x00, 0x00, 0x81, 0xbf} // s_endpgm
				if tg.GFX12() {
					end = []byte{0x00, 0x00, 0xb0, 0xbf}
				}
				code := append(append([]byte{}, b...), end...)
				addr, _ := m.Alloc(uint64(len(code)+16), 256)
				m.Write(addr, code)
				data, _ := m.Alloc(1<<16, 256)
				w := &Wave{}
				w.Reset(NewProgram(m, tg), m, &Group{LDS: make([]byte, 1024)}, tg, addr, 256, 256)
				w.SetExec(^uint64(0))
				for l := 0; l < 64; l++ {
					w.Private[l] = make([]byte, 64)
					w.V[0][l], w.V[1][l] = uint32(data)+uint32(4*l), uint32(data>>32)
				}
				w.S[0], w.S[1] = uint32(data), uint32(data>>32)
				_ = w.Run(64)
			}
		})
	})
}

// TestLdScaleOperands decodes v_mfma_ld_scale_b32 forms from LLVM's gfx950
// MC tests: sources are VGPRs (never AGPRs) and op_sel/op_sel_hi survive.
func TestLdScaleOperands(t *testing.T) {
	for _, c := range []struct {
		b             []byte
		src0, src1    uint16
		opsel, opselh uint8
	}{
		{[]byte{0x00, 0x40, 0xac, 0xd3, 0x01, 0x03, 0x02, 0x18}, opVGPR + 1, opVGPR + 1, 0, 3},
		{[]byte{0x00, 0x48, 0xac, 0xd3, 0x01, 0x03, 0x02, 0x18}, opVGPR + 1, opVGPR + 1, 1, 3},
		{[]byte{0x00, 0x40, 0xac, 0xd3, 0x01, 0x03, 0x02, 0x08}, opVGPR + 1, opVGPR + 1, 0, 1},
		{[]byte{0x00, 0x40, 0xac, 0xd3, 0x00, 0x00, 0x00, 0x18}, 0, 0, 0, 3},
	} {
		in, err := Decode([]uint32{le.Uint32(c.b), le.Uint32(c.b[4:])}, GFX950)
		if err != nil {
			t.Fatal(err)
		}
		if in.Name != "v_mfma_ld_scale_b32" || in.Src[0] != c.src0 || in.Src[1] != c.src1 || in.Opsel&3 != c.opsel || in.OpselHi&3 != c.opselh {
			t.Errorf("% x: %s src %d,%d op_sel %d op_sel_hi %d", c.b, in.Name, in.Src[0], in.Src[1], in.Opsel, in.OpselHi)
		}
	}
}

// TestDPPAndSDWA checks DPP lane patterns and SDWA byte/word selects
// against their definitions.
func TestDPPAndSDWA(t *testing.T) {
	code := assemble(t, `
v_mov_b32_dpp v10, v0 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v11, v0 row_mirror row_mask:0xf bank_mask:0xf
v_mov_b32_dpp v12, v0 row_bcast:15 row_mask:0xa bank_mask:0xf
v_mov_b32_dpp v13, v0 wave_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0
v_add_u32_dpp v14, v0, v1 row_shl:2 row_mask:0xf bank_mask:0x3
v_add_u32_sdwa v15, v2, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_2 src1_sel:WORD_0
v_mul_u32_u24_sdwa v16, sext(v2), v3 dst_sel:BYTE_0 dst_unused:UNUSED_SEXT src0_sel:BYTE_3 src1_sel:BYTE_1
v_mov_b32_dpp v17, v0 row_newbcast:5 row_mask:0xf bank_mask:0xf
v_add_u32_dpp v18, v0, v1 row_newbcast:14 row_mask:0x6 bank_mask:0xf`)
	w, _ := newWave(t, code, GFX942)
	rng := rand.New(rand.NewSource(10))
	for l := 0; l < 64; l++ {
		w.V[0][l], w.V[1][l] = 1000+uint32(l), 7
		w.V[2][l], w.V[3][l] = rng.Uint32(), rng.Uint32()
		for r := 10; r <= 18; r++ {
			w.V[r][l] = 0xdead0000 + uint32(r)
		}
	}
	run(t, w)
	for l := 0; l < 64; l++ {
		row, q := l/16, l%16
		check := func(name string, got, want uint32) {
			if got != want {
				t.Errorf("lane %d %s: got %#x want %#x", l, name, got, want)
			}
		}
		check("quad_perm", w.V[10][l], 1000+uint32(l&^3+3-l&3))
		check("row_mirror", w.V[11][l], 1000+uint32(16*row+15-q))
		want12 := uint32(0xdead000c) // rows 0 and 2 masked off by row_mask 0xa
		if row == 1 || row == 3 {
			want12 = 1000 + uint32(16*row-1)
		}
		check("row_bcast:15", w.V[12][l], want12)
		want13 := uint32(0) // lane 0 reads out of range: bound_ctrl writes 0
		if l > 0 {
			want13 = 1000 + uint32(l-1)
		}
		check("wave_shr:1", w.V[13][l], want13)
		want14 := uint32(0xdead000e) // banks 2 and 3 masked off; row_shl past the row: no write
		if q < 8 && q+2 < 16 {
			want14 = 1000 + uint32(l+2) + 7
		}
		check("row_shl:2", w.V[14][l], want14)
		a, b := w.V[2][l], w.V[3][l]
		sum := (a>>16&0xff + b&0xffff) & 0xffff
		check("sdwa add", w.V[15][l], sum<<16|0xdead000f&0xffff)
		p := uint32(int32(int8(a>>24))) & 0xffffff * (b >> 8 & 0xff)
		check("sdwa mul sext", w.V[16][l], uint32(int32(int8(p))))
		check("row_newbcast:5", w.V[17][l], 1000+uint32(16*row+5))
		want18 := uint32(0xdead0012) // rows 0 and 3 masked off by row_mask 0x6
		if row == 1 || row == 2 {
			want18 = 1000 + uint32(16*row+14) + 7
		}
		check("row_newbcast:14 add", w.V[18][l], want18)
	}
}

// TestDPPUndefinedControl checks that a DPP control gfx942 does not define
// (0x144) decodes as an undefined instruction that faults naming it.
func TestDPPUndefinedControl(t *testing.T) {
	// v_mov_b32_dpp v1, v0 with dpp_ctrl 0x144, row_mask and bank_mask 0xf.
	words := []uint32{0x7e0202fa, 0xff014400}
	for _, target := range []Target{GFX942, GFX950} {
		in, err := Decode(words, target)
		if err != nil {
			t.Fatal(err)
		}
		if in.Name != "" || !strings.Contains(in.String(), "dpp_ctrl 0x144") {
			t.Errorf("%v: decodes as %q (%s)", target, in.Name, in.String())
		}
		if err := in.exec(nil, in); err == nil || !strings.Contains(err.Error(), "dpp_ctrl 0x144") {
			t.Errorf("%v: executing it: %v", target, err)
		}
	}
	ok, err := Decode([]uint32{0x7e0202fa, 0xff015500}, GFX942) // row_newbcast:5
	if err != nil || ok.Name != "v_mov_b32" {
		t.Errorf("row_newbcast:5 decodes as %q, %v", ok.Name, err)
	}
}

// TestTargetOnlyOpcodes checks that gfx950-only opcodes are unknown on
// gfx942 and the XF32 MFMAs gfx950 removed are unknown there.
func TestTargetOnlyOpcodes(t *testing.T) {
	bitop3 := []uint32{0xd2340405, 0x300e0501} // v_bitop3_b32 v5, v1, v2, s3 bitop3:0xa1
	xf32 := assemble(t, "v_mfma_f32_16x16x8_xf32 v[0:3], v[4:5], v[6:7], v[0:3]")
	xw := []uint32{le.Uint32(xf32), le.Uint32(xf32[4:])}
	for _, c := range []struct {
		words  []uint32
		target Target
		known  bool
	}{{bitop3, GFX950, true}, {bitop3, GFX942, false}, {xw, GFX942, true}, {xw, GFX950, false}} {
		in, err := Decode(c.words, c.target)
		if err != nil {
			t.Fatal(err)
		}
		if (in.Name != "") != c.known {
			t.Errorf("%08x on %v decodes as %q", c.words, c.target, in.Name)
		}
	}
}

// TestMFMABLGP checks the B lane group patterns on v_mfma_f32_16x16x16_f16:
// A[i][k] is half k%4 of lane i + 16*(k/4); B[k][j] is read from lane
// pattern(j + 16*(k/4)).
func TestMFMABLGP(t *testing.T) {
	patterns := map[int]func(l int) int{
		1: func(l int) int { return l % 32 },
		2: func(l int) int { return 32 + l%32 },
		3: func(l int) int { return (l + 16) % 64 },
		6: func(l int) int { return 32 + l%16 },
	}
	rng := rand.New(rand.NewSource(11))
	for blgp, pat := range patterns {
		code := assemble(t, fmt.Sprintf("v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[8:11] blgp:%d\ns_nop 7\ns_nop 7", blgp))
		w, _ := newWave(t, code, GFX942)
		half := func(r, l, e int) float64 { return float64(fp.F16ToF32(uint16(w.V[r+e/2][l] >> (16 * uint(e%2))))) }
		for l := 0; l < 64; l++ {
			for r := 4; r < 8; r++ {
				w.V[r][l] = uint32(fp.F32ToF16(float32(rng.Intn(9)-4))) | uint32(fp.F32ToF16(float32(rng.Intn(9)-4)))<<16
			}
			for r := 0; r < 4; r++ {
				w.V[8+r][l] = u32(float32(r + l))
			}
		}
		var want [64][4]float32
		for l := 0; l < 64; l++ {
			for r := 0; r < 4; r++ {
				i, j := 4*(l/16)+r, l%16
				acc := float64(f32(w.V[8+r][l]))
				for k := 0; k < 16; k++ {
					acc += half(4, i+16*(k/4), k%4) * half(6, pat(j+16*(k/4)), k%4)
				}
				want[l][r] = float32(acc)
			}
		}
		run(t, w)
		for l := 0; l < 64; l++ {
			for r := 0; r < 4; r++ {
				if got := f32(w.V[r][l]); got != want[l][r] {
					t.Fatalf("blgp %d lane %d reg %d = %v, want %v", blgp, l, r, got, want[l][r])
				}
			}
		}
	}
}

// TestDSReadTr runs ds_read_b64_tr_b16 (encoding from LLVM's gfx950 MC
// tests: ds_read_b64_tr_b16 v[0:1], v1) on a 16x4 matrix of halves stored
// row-major with each lane pointing at its 64-bit block, and checks that
// lane l receives column l of its 16-lane group.
func TestDSReadTr(t *testing.T) {
	w, _ := newWave(t, words(0x00, 0x00, 0xc6, 0xd9, 0x01, 0x00, 0x00, 0x00), GFX950)
	// Lane L's block (4 halves) at byte 8L holds elements 4L..4L+3.
	for i := 0; i < 256; i++ {
		le.PutUint16(w.group.LDS[2*i:], uint16(1000+i))
	}
	for l := 0; l < 64; l++ {
		w.V[1][l] = uint32(8 * l)
	}
	run(t, w)
	for l := 0; l < 64; l++ {
		g, q := l&^15, l&15
		v := uint64(w.V[0][l]) | uint64(w.V[1][l])<<32
		for j := 0; j < 4; j++ {
			// Row j of the group is lanes g+4j..g+4j+3: element q of the
			// row is element q%4 of lane g+4j+q/4's block.
			want := uint16(1000 + 4*(g+4*j+q/4) + q%4)
			if got := uint16(v >> (16 * j)); got != want {
				t.Fatalf("lane %d elem %d = %d, want %d", l, j, got, want)
			}
		}
	}
}

// TestDSWrxchg2 checks ds_wrxchg2_rtn_b32: two exchanges, old values back.
func TestDSWrxchg2(t *testing.T) {
	w, _ := newWave(t, assemble(t, "ds_wrxchg2_rtn_b32 v[2:3], v0, v4, v5 offset0:1 offset1:3\ns_waitcnt lgkmcnt(0)"), GFX942)
	for i := 0; i < 1024; i++ {
		le.PutUint32(w.group.LDS[4*i:], uint32(i))
	}
	for l := 0; l < 64; l++ {
		w.V[0][l] = uint32(16 * l)
		w.V[4][l], w.V[5][l] = 0xa000+uint32(l), 0xb000+uint32(l)
	}
	run(t, w)
	for l := 0; l < 64; l++ {
		if w.V[2][l] != uint32(4*l+1) || w.V[3][l] != uint32(4*l+3) {
			t.Fatalf("lane %d returned %d, %d", l, w.V[2][l], w.V[3][l])
		}
		if le.Uint32(w.group.LDS[16*l+4:]) != 0xa000+uint32(l) || le.Uint32(w.group.LDS[16*l+12:]) != 0xb000+uint32(l) {
			t.Fatalf("lane %d: LDS not written", l)
		}
	}
}
