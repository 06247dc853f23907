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

// smfmacType is the element type of an SMFMAC operand: "fp8", "bf8",
// "i8" (8-bit, 16x16x128) or "f16", "bf16" (16-bit, 16x16x64).
type smfmacType string

func (t smfmacType) bits() int {
	if t == "f16" || t == "bf16" {
		return 16
	}
	return 8
}

// code returns a random element code: 0, or a value with a short
// mantissa (+-1..3.75 for the floats, -8..8 for i8), so every product and
// partial sum is exact in f32.
func (t smfmacType) code(r *rand.Rand) uint32 {
	if r.Intn(8) == 0 {
		return 0
	}
	var v, sign uint32
	switch t {
	case "fp8":
		v, sign = uint32(0x38+r.Intn(16)), 0x80 // E4M3 1.0 .. 3.75
	case "bf8":
		v, sign = uint32(0x3c+r.Intn(8)), 0x80 // E5M2 1.0 .. 3.5
	case "f16":
		v, sign = uint32(0x3c00+0x100*r.Intn(8)), 0x8000 // 1.0 .. 3.5
	case "bf16":
		v, sign = uint32(0x3f80+0x20*r.Intn(8)), 0x8000 // 1.0 .. 3.5
	default:
		return uint32(r.Intn(17)-8) & 0xff
	}
	if r.Intn(2) == 0 {
		v |= sign
	}
	return v
}

func (t smfmacType) value(c uint32) float64 {
	switch t {
	case "fp8":
		return float64(fp.E4M3FN.Decode(uint8(c)))
	case "bf8":
		return float64(fp.E5M2.Decode(uint8(c)))
	case "f16":
		return float64(fp.F16ToF32(uint16(c)))
	case "bf16":
		return float64(fp.BF16ToF32(uint16(c)))
	}
	return float64(int8(c))
}

// put writes element e of a lane's operand (packed little-endian).
func (t smfmacType) put(b []byte, e int, c uint32) {
	if t.bits() == 16 {
		binary.LittleEndian.PutUint16(b[2*e:], uint16(c))
	} else {
		b[e] = byte(c)
	}
}

func (t smfmacType) get(b []byte, e int) uint32 {
	if t.bits() == 16 {
		return uint32(binary.LittleEndian.Uint16(b[2*e:]))
	}
	return uint32(b[e])
}

// smfmacInputs are random inputs of one 16x16 SMFMAC: per lane A (4
// VGPRs), B (8 VGPRs), the index VGPR (two distinct positions per group of
// four in every index set, as 2:4 sparse data has) and C (4 small
// integers, f32 or i32).
func smfmacInputs(r *rand.Rand, at, bt smfmacType) (a, b, idx, c []byte) {
	a, b, idx, c = make([]byte, 64*16), make([]byte, 64*32), make([]byte, 64*4), make([]byte, 64*16)
	per := 32 / at.bits()
	for l := range 64 {
		for e := 0; e < 4*per; e++ {
			at.put(a[16*l:], e, at.code(r))
		}
		for e := 0; e < 8*per; e++ {
			bt.put(b[32*l:], e, bt.code(r))
		}
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
			n := r.Intn(9) - 4
			w := uint32(int32(n))
			if at != "i8" {
				w = math.Float32bits(float32(n))
			}
			binary.LittleEndian.PutUint32(c[16*l+4*q:], w)
		}
	}
	return a, b, idx, c
}

// smfmacWant is D = C + A * B of the inputs by the SMFMAC layout (lane l:
// row or column l%16, dense k K/4*(l/16)..; stored value e of A at dense k
// 4*(e/2) + the e-th 2-bit field of index set abid; D[i][j] in lane
// 16*(i/4) + j, VGPR i%4).
func smfmacWant(a, b, idx, c []byte, at, bt smfmacType, abid int) []byte {
	per := 32 / at.bits()
	kPer := 8 * per // dense k per lane: B's elements
	nA := kPer / 2
	K := 4 * kPer
	A := make([][]float64, 16)
	B := make([][]float64, K)
	for i := range A {
		A[i] = make([]float64, K)
	}
	for k := range B {
		B[k] = make([]float64, 16)
	}
	for l := range 64 {
		row, k0 := l%16, kPer*(l/16)
		ix := binary.LittleEndian.Uint32(idx[4*l:]) >> (2 * nA * abid)
		for e := 0; e < nA; e++ {
			A[row][k0+4*(e/2)+int(ix>>(2*e)&3)] = at.value(at.get(a[16*l:], e))
		}
		for e := 0; e < kPer; e++ {
			B[k0+e][row] = bt.value(bt.get(b[32*l:], e))
		}
	}
	out := make([]byte, len(c))
	for l := range 64 {
		for q := range 4 {
			i, j := 4*(l/16)+q, l%16
			cw := binary.LittleEndian.Uint32(c[16*l+4*q:])
			if at == "i8" {
				acc := int32(cw)
				for k := 0; k < K; k++ {
					acc += int32(A[i][k]) * int32(B[k][j])
				}
				binary.LittleEndian.PutUint32(out[16*l+4*q:], uint32(acc))
				continue
			}
			sum := float64(math.Float32frombits(cw))
			for k := 0; k < K; k++ {
				sum += A[i][k] * B[k][j]
			}
			binary.LittleEndian.PutUint32(out[16*l+4*q:], math.Float32bits(float32(sum)))
		}
	}
	return out
}

// TestGFX12SMFMAC is the differential test of the 16x16 SMFMAC -> chained
// SWMMAC rules (fp8/bf8 and i8 16x16x128, f16/bf16 16x16x64 with both index
// sets): a gfx950 guest (the SMFMAC as raw words, VGPR or AGPR
// accumulator) loads random 2:4-sparse inputs, runs the SMFMAC and stores
// D. The guest on the simulated gfx950 must store the product computed
// here from the SMFMAC layout, and the translation on the simulated
// gfx1201 the same bytes; llvm-objdump-19 shows the SWMMACs with their
// index_key (and neg_lo for signed i8).
func TestGFX12SMFMAC(t *testing.T) {
	cases := []struct {
		name   string
		op     uint32
		at, bt smfmacType
		abid   int
		acc    bool
		steps  int
	}{
		{"v_smfmac_f32_16x16x128_fp8_fp8", 0x43, "fp8", "fp8", 0, false, 4},
		{"v_smfmac_f32_16x16x128_fp8_fp8", 0x43, "fp8", "fp8", 0, true, 4},
		{"v_smfmac_f32_16x16x128_fp8_bf8", 0x3d, "fp8", "bf8", 0, false, 4},
		{"v_smfmac_f32_16x16x128_bf8_fp8", 0x3c, "bf8", "fp8", 0, false, 4},
		{"v_smfmac_f32_16x16x128_bf8_bf8", 0x3b, "bf8", "bf8", 0, true, 4},
		{"v_smfmac_i32_16x16x128_i8", 0x3a, "i8", "i8", 0, false, 4},
		{"v_smfmac_i32_16x16x128_i8", 0x3a, "i8", "i8", 0, true, 4},
		{"v_smfmac_f32_16x16x64_f16", 0x5a, "f16", "f16", 0, false, 2},
		{"v_smfmac_f32_16x16x64_f16", 0x5a, "f16", "f16", 1, true, 2},
		{"v_smfmac_f32_16x16x64_bf16", 0x39, "bf16", "bf16", 1, false, 2},
		{"v_smfmac_f32_16x16x64_bf16", 0x39, "bf16", "bf16", 0, true, 2},
	}
	for ci, c := range cases {
		t.Run(fmt.Sprintf("%s_abid%d_acc%v", c.name, c.abid, c.acc), func(t *testing.T) {
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
			w0 := 0xd3800000 | c.op<<16 | uint32(c.abid)<<11
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
			swmmac := strings.NewReplacer("v_smfmac_f32_16x16x128", "v_swmmac_f32_16x16x32", "v_smfmac_f32_16x16x64", "v_swmmac_f32_16x16x32",
				"v_smfmac_i32_16x16x128_i8", "v_swmmac_i32_16x16x32_iu8").Replace(c.name)
			if n := bytes.Count(dis, []byte(swmmac)); n != c.steps {
				t.Errorf("%d %s in the translation, want %d:\n%s", n, swmmac, c.steps, dis)
			}
			for n := 0; n < c.steps; n++ {
				if k := c.abid*c.steps + n; k > 0 && !bytes.Contains(dis, []byte(fmt.Sprintf("index_key:%d", k))) {
					t.Errorf("no SWMMAC with index_key:%d:\n%s", k, dis)
				}
			}
			if c.at == "i8" && !bytes.Contains(dis, []byte("neg_lo:[1,1,0]")) {
				t.Errorf("the iu8 SWMMACs are not signed (neg_lo:[1,1,0]):\n%s", dis)
			}
			a, b, idx, cc := smfmacInputs(rand.New(rand.NewSource(int64(ci+1))), c.at, c.bt)
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
			want := smfmacWant(a, b, idx, cc, c.at, c.bt, c.abid)
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
