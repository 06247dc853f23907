package dbt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
)

// smfmacInputs are random inputs of one 16x16x128 SMFMAC: per lane A (16
// bytes), B (32 bytes), the index VGPR (two distinct positions per group
// of four, as 2:4 sparse data has) and C (4 f32 small integers). The fp8
// and bf8 codes are 0, or +-1..3.75 with a short mantissa, so every
// product and partial sum is exact in f32.
func smfmacInputs(r *rand.Rand, aBF8, bBF8 bool) (a, b, idx, c []byte) {
	code := func(bf8 bool) byte {
		if r.Intn(8) == 0 {
			return 0
		}
		v := byte(0x38 + r.Intn(16)) // E4M3 1.0 .. 3.75
		if bf8 {
			v = byte(0x3c + r.Intn(8)) // E5M2 1.0 .. 3.5
		}
		if r.Intn(2) == 0 {
			v |= 0x80
		}
		return v
	}
	a, b, idx, c = make([]byte, 64*16), make([]byte, 64*32), make([]byte, 64*4), make([]byte, 64*16)
	for i := range a {
		a[i] = code(aBF8)
	}
	for i := range b {
		b[i] = code(bBF8)
	}
	pairs := [][2]uint32{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}
	for l := range 64 {
		var v uint32
		for g := range 8 {
			p := pairs[r.Intn(len(pairs))]
			v |= (p[0] | p[1]<<2) << (4 * g)
		}
		binary.LittleEndian.PutUint32(idx[4*l:], v)
		for q := range 4 {
			binary.LittleEndian.PutUint32(c[16*l+4*q:], math.Float32bits(float32(r.Intn(9)-4)))
		}
	}
	return a, b, idx, c
}

// smfmacWant is D = C + A * B of the inputs by the SMFMAC layout (lane l:
// row or column l%16, dense k 32*(l/16)..+31; stored value e of A at dense
// k 4*(e/2) + the e-th 2-bit index field; D[i][j] in lane 16*(i/4) + j,
// VGPR i%4).
func smfmacWant(a, b, idx, c []byte, aBF8, bBF8 bool) []byte {
	val := func(v byte, bf8 bool) float64 {
		if bf8 {
			return float64(fp.E5M2.Decode(v))
		}
		return float64(fp.E4M3FN.Decode(v))
	}
	var A [16][128]float64
	var B [128][16]float64
	for l := range 64 {
		row, k0 := l%16, 32*(l/16)
		ix := binary.LittleEndian.Uint32(idx[4*l:])
		for e := range 16 {
			A[row][k0+4*(e/2)+int(ix>>(2*e)&3)] = val(a[16*l+e], aBF8)
		}
		for e := range 32 {
			B[k0+e][row] = val(b[32*l+e], bBF8)
		}
	}
	out := make([]byte, len(c))
	for l := range 64 {
		for q := range 4 {
			i, j := 4*(l/16)+q, l%16
			s := float64(math.Float32frombits(binary.LittleEndian.Uint32(c[16*l+4*q:])))
			for k := range 128 {
				s += A[i][k] * B[k][j]
			}
			binary.LittleEndian.PutUint32(out[16*l+4*q:], math.Float32bits(float32(s)))
		}
	}
	return out
}

// TestGFX12SMFMAC is the differential test of the fp8/bf8 16x16x128
// SMFMAC -> four SWMMAC rule: a gfx950 guest (the SMFMAC as raw words,
// VGPR or AGPR accumulator) loads random 2:4-sparse inputs, runs the
// SMFMAC and stores D. The guest on the simulated gfx950 must store the
// product computed here from the SMFMAC layout, and the translation on
// the simulated gfx1201 the same bytes; llvm-objdump-19 shows the four
// SWMMACs with index_key 0-3.
func TestGFX12SMFMAC(t *testing.T) {
	cases := []struct {
		name       string
		op         uint32
		aBF8, bBF8 bool
		acc        bool
	}{
		{"v_smfmac_f32_16x16x128_fp8_fp8", 0x43, false, false, false},
		{"v_smfmac_f32_16x16x128_fp8_fp8", 0x43, false, false, true},
		{"v_smfmac_f32_16x16x128_fp8_bf8", 0x3d, false, true, false},
		{"v_smfmac_f32_16x16x128_bf8_fp8", 0x3c, true, false, false},
		{"v_smfmac_f32_16x16x128_bf8_bf8", 0x3b, true, true, true},
	}
	for ci, c := range cases {
		t.Run(fmt.Sprintf("%s_acc%v", c.name, c.acc), func(t *testing.T) {
			var s strings.Builder
			s.WriteString(`.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl k
.p2align 8
.type k,@function
k:
  s_load_dwordx8 s[8:15], s[0:1], 0x0
  s_load_dwordx2 s[16:17], s[0:1], 0x20
  v_lshlrev_b32 v1, 4, v0
  v_lshlrev_b32 v2, 5, v0
  v_lshlrev_b32 v3, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dwordx4 v[10:13], v1, s[8:9]
  global_load_dwordx4 v[14:17], v2, s[10:11]
  global_load_dwordx4 v[18:21], v2, s[10:11] offset:16
  global_load_dword v22, v3, s[12:13]
  global_load_dwordx4 v[30:33], v1, s[14:15]
  s_waitcnt vmcnt(0)
`)
			d := uint32(30)
			w0 := 0xd3800000 | c.op<<16
			if c.acc {
				for r := 0; r < 4; r++ {
					fmt.Fprintf(&s, "  v_accvgpr_write_b32 a%d, v%d\n", r, 30+r)
				}
				d, w0 = 0, w0|1<<15
			}
			w0 |= d
			w1 := uint32(256+10) | (256+14)<<9 | (256+22)<<18
			fmt.Fprintf(&s, "  s_nop 4\n  .long %#x, %#x\n  s_nop 7\n  s_nop 7\n  s_nop 7\n", w0, w1)
			if c.acc {
				for r := 0; r < 4; r++ {
					fmt.Fprintf(&s, "  v_accvgpr_read_b32 v%d, a%d\n", 30+r, r)
				}
			}
			s.WriteString(`  global_store_dwordx4 v1, v[30:33], s[16:17]
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 48
  .amdhsa_next_free_sgpr 24
  .amdhsa_accum_offset 40
.end_amdhsa_kernel
`)
			path := filepath.Join(t.TempDir(), "k.s")
			if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			guest := buildGuestFrom(t, path)
			res, err := Translate(guest, Options{Name: c.name, Host: isa.GFX1201})
			if err != nil {
				var b strings.Builder
				res.Report.WriteText(&b)
				t.Fatalf("%v\n%s", err, b.String())
			}
			verifyObject12(t, c.name, isa.GFX1201, guest, res.Object)
			out := filepath.Join(t.TempDir(), "out.co")
			if err := os.WriteFile(out, res.Object, 0o644); err != nil {
				t.Fatal(err)
			}
			dis, err := exec.Command(llvmtool.Require(t, llvmtool.Objdump), "-d", "--mcpu=gfx1201", "--mattr=+wavefrontsize64", out).Output()
			if err != nil {
				t.Fatal(err)
			}
			swmmac := strings.Replace(c.name, "v_smfmac_f32_16x16x128", "v_swmmac_f32_16x16x32", 1)
			if n := bytes.Count(dis, []byte(swmmac)); n != 4 {
				t.Errorf("%d %s in the translation, want 4:\n%s", n, swmmac, dis)
			}
			for k := 1; k < 4; k++ {
				if !bytes.Contains(dis, []byte(fmt.Sprintf("index_key:%d", k))) {
					t.Errorf("no SWMMAC with index_key:%d:\n%s", k, dis)
				}
			}
			a, b, idx, cc := smfmacInputs(rand.New(rand.NewSource(int64(ci+1))), c.aBF8, c.bBF8)
			run := func(image []byte, target string) []byte {
				ag, err := sim.NewAgent(target)
				if err != nil {
					t.Fatal(err)
				}
				ex, err := ag.LoadCodeObject(image)
				if err != nil {
					t.Fatal(err)
				}
				k, err := ex.Kernel("k")
				if err != nil {
					t.Fatal(err)
				}
				var ka []byte
				for _, in := range [][]byte{a, b, idx, cc, make([]byte, len(cc))} {
					p, err := ag.Alloc(uint64(len(in)))
					if err != nil {
						t.Fatal(err)
					}
					if err := ag.CopyIn(p, in); err != nil {
						t.Fatal(err)
					}
					ka = binary.LittleEndian.AppendUint64(ka, p)
				}
				if err := ag.Dispatch(k, [3]uint32{64, 1, 1}, [3]uint32{64, 1, 1}, ka); err != nil {
					t.Fatalf("%s: %v", target, err)
				}
				got := make([]byte, len(cc))
				if err := ag.CopyOut(binary.LittleEndian.Uint64(ka[32:]), got); err != nil {
					t.Fatal(err)
				}
				return got
			}
			want := smfmacWant(a, b, idx, cc, c.aBF8, c.bBF8)
			if got := run(guest, "gfx950"); !bytes.Equal(got, want) {
				i := firstDiff(got, want) &^ 3
				t.Fatalf("the guest on the simulated gfx950 differs from the SMFMAC layout's product at dword %d: %#x, want %#x", i/4, binary.LittleEndian.Uint32(got[i:]), binary.LittleEndian.Uint32(want[i:]))
			}
			if got := run(res.Object, "gfx1201"); !bytes.Equal(got, want) {
				i := firstDiff(got, want) &^ 3
				t.Errorf("the translation on the simulated gfx1201 differs from the guest at dword %d: %#x, want %#x", i/4, binary.LittleEndian.Uint32(got[i:]), binary.LittleEndian.Uint32(want[i:]))
			}
		})
	}
}
