package dbt

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/rules"
	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
)

// Rows of the decode kernels' buffer: A (up to 8 dwords), B, the two
// scale dwords, then the host operand pairs of the 8 parts (A pair, B
// pair: 4 dwords a part).
const (
	smtA, smtB, smtSA, smtSB = 0, 8, 16, 17
	smtOut                   = 18
	smtRows                  = smtOut + 32
)

// smtScratch are the per-element decode's scratch registers of the
// decode kernels; smtScratchTable adds the table decode's for the
// operands fp4 selects.
var smtScratch = rules.ScaleMFMAScratch{Buf: [2]uint16{160, 164}, Tmp: [4]uint16{170, 171, 172, 173}, Sel: 174, Exp: [2]uint16{175, 176}, Mask: [2]uint16{177, 178}}

func smtScratchTable(fp4 [2]bool) rules.ScaleMFMAScratch {
	s := smtScratch
	s.FP4 = fp4
	s.Hold = [2]uint16{180, 184}
	s.LUT = [2][4]uint16{{188, 189, 190, 191}, {192, 193, 194, 195}}
	s.Extra = [2]uint16{196, 197}
	s.M80, s.SelI = 198, [2]uint16{199, 200}
	return s
}

// smtDecode is one decode kernel: A and B of format f (cbsz = blgp = f)
// decoded on scratch s.
type smtDecode struct {
	name string
	f    int
	s    rules.ScaleMFMAScratch
}

// smtKernel writes a gfx942 kernel that loads A, B and the scales, runs
// the expansion of a 16x16x128 scaled MFMA of k's format (scale bytes 1
// of A's dword and 2 of B's) on k's scratch with each host MFMA replaced
// by copies of its operand pairs to v[120 + 4p ...], and stores the
// copies. f32 and f16 denormals are kept (the kernel descriptor's modes).
func smtKernel(t *testing.T, sb *strings.Builder, k smtDecode) {
	l0 := uint32(0xd3ac0000) | 1<<11
	l1 := uint32(256+30) | uint32(256+31)<<9 | 1<<28
	w0 := uint32(0xd3800000) | 0x2d<<16 | 1<<11 | uint32(k.f)<<8 | 40
	w1 := uint32(256+10) | uint32(256+20)<<9 | 128<<18 | uint32(k.f)<<29
	code, err := rules.ScaleMFMACode(l0, l1, w0, w1, 0x61, 4, k.s)
	if err != nil {
		t.Fatal(err)
	}
	var words []uint32
	for i := 0; i+4 <= len(code); i += 4 {
		words = append(words, uint32(code[i])|uint32(code[i+1])<<8|uint32(code[i+2])<<16|uint32(code[i+3])<<24)
	}
	var body []string
	parts := 0
	for i := 0; i < len(words); i++ {
		// The host MFMA v_mfma_f32_16x16x16_bf16 v[40:43], pa, pb, C
		// (0, then v[40:43]).
		if words[i] == 0xd3e10000|40 && i+1 < len(words) && (words[i+1]>>18&0x1ff == 128 || words[i+1]>>18&0x1ff == 256+40) {
			pa, pb := words[i+1]&0x1ff-256, words[i+1]>>9&0x1ff-256
			for j, r := range []uint32{pa, pa + 1, pb, pb + 1} {
				body = append(body, fmt.Sprintf("  v_mov_b32_e32 v%d, v%d", 120+4*parts+j, r))
			}
			parts++
			i++
			continue
		}
		body = append(body, fmt.Sprintf("  .long %#x", words[i]))
	}
	if parts != 8 {
		t.Fatalf("%s: %d host MFMAs found, want 8", k.name, parts)
	}
	fmt.Fprintf(sb, ".globl %s\n.p2align 8\n.type %s,@function\n%s:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n  v_lshlrev_b32_e32 v1, 2, v0\n  s_waitcnt lgkmcnt(0)\n", k.name, k.name, k.name)
	for r := 0; r < 8; r++ {
		fmt.Fprintf(sb, "  v_add_u32_e32 v2, %d, v1\n  global_load_dword v%d, v2, s[8:9]\n", (smtA+r)*256, 10+r)
		fmt.Fprintf(sb, "  v_add_u32_e32 v2, %d, v1\n  global_load_dword v%d, v2, s[8:9]\n", (smtB+r)*256, 20+r)
	}
	fmt.Fprintf(sb, "  v_add_u32_e32 v2, %d, v1\n  global_load_dword v30, v2, s[8:9]\n", smtSA*256)
	fmt.Fprintf(sb, "  v_add_u32_e32 v2, %d, v1\n  global_load_dword v31, v2, s[8:9]\n", smtSB*256)
	sb.WriteString("  s_waitcnt vmcnt(0)\n")
	sb.WriteString(strings.Join(body, "\n") + "\n")
	for r := 0; r < 32; r++ {
		fmt.Fprintf(sb, "  v_add_u32_e32 v2, %d, v1\n  global_store_dword v2, v%d, s[8:9]\n", (smtOut+r)*256, 120+r)
	}
	sb.WriteString("  s_waitcnt vmcnt(0)\n  s_endpgm\n")
}

// smtBuild assembles and links the decode kernels into a gfx942 object.
func smtBuild(t *testing.T, ks []smtDecode) []byte {
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n")
	for _, k := range ks {
		smtKernel(t, &s, k)
	}
	s.WriteString(".rodata\n")
	for _, k := range ks {
		fmt.Fprintf(&s, ".p2align 6\n.amdhsa_kernel %s\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 208\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 208\n  .amdhsa_float_denorm_mode_32 3\n  .amdhsa_float_denorm_mode_16_64 3\n.end_amdhsa_kernel\n", k.name)
	}
	dir := t.TempDir()
	src, obj, co := filepath.Join(dir, "k.s"), filepath.Join(dir, "k.o"), filepath.Join(dir, "k.co")
	if err := os.WriteFile(src, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(llvmtool.Require(t, llvmtool.Clang), "-x", "assembler", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-c", src, "-o", obj).CombinedOutput(); err != nil {
		t.Fatalf("clang: %v\n%s", err, out)
	}
	if out, err := exec.Command(llvmtool.Require(t, llvmtool.LLD), "-shared", obj, "-o", co).CombinedOutput(); err != nil {
		t.Fatalf("ld.lld: %v\n%s", err, out)
	}
	return readFile(t, co)
}

// bf16NaN tells whether the bf16 b is a NaN.
func bf16NaN(b uint32) bool { return b&0x7f80 == 0x7f80 && b&0x7f != 0 }

// smtWant is the rule's bf16 of code c of format f under scale byte s:
// NaN (ok false) for a NaN code or scale, else the upper half of the f32
// c * 2^(s-127) rounded to nearest (f32 subnormals kept).
func smtWant(f fp.Format, c uint8, s uint32) (uint32, bool) {
	v := f.Decode(c)
	if s == 0xff || v != v {
		return 0, false
	}
	return math.Float32bits(float32(math.Ldexp(float64(v), int(s)-127))) >> 16, true
}

// TestScaleMFMADecodeExhaustive runs the per-element decode of every
// format, the E2M1 table decode and the E4M3/E2M3/E3M2 byte decode (A, B
// or both) on the simulated gfx942
// agent with every scale byte 0..255 on A and on B and every code of the
// format under every scale byte, and checks the bf16 operands of all 8
// host parts against the rule's model (smtWant) bit for bit; a NaN code or
// a scale byte of 0xFF must give a NaN (the NaN encodings differ between
// the decodes).
func TestScaleMFMADecodeExhaustive(t *testing.T) {
	var ks []smtDecode
	for f := 0; f < 5; f++ {
		ks = append(ks, smtDecode{fmt.Sprintf("elem%d", f), f, smtScratch})
	}
	for i, fp4 := range [][2]bool{{true, true}, {true, false}, {false, true}} {
		ks = append(ks, smtDecode{fmt.Sprintf("table%d", i), 4, smtScratchTable(fp4)})
		// The E4M3 byte decode on the same operands.
		s := smtScratchTable([2]bool{})
		s.Bytes = fp4
		ks = append(ks, smtDecode{fmt.Sprintf("bytes%d", i), 0, s})
	}
	// The FP6 byte decode (E2M3 read as FNUZ E4M3, E3M2 as E5M2).
	for f := 2; f <= 3; f++ {
		for i, on := range [][2]bool{{true, true}, {false, true}} {
			s := smtScratchTable([2]bool{})
			s.Bytes = on
			ks = append(ks, smtDecode{fmt.Sprintf("fp6bytes%d_%d", f, i), f, s})
		}
	}
	obj := smtBuild(t, ks)
	rng := rand.New(rand.NewSource(15))
	checked := 0
	for _, k := range ks {
		f := smFormats[k.f]
		bits := rules.F8F6F4Bits(k.f)
		codes := 1 << bits
		// Lane-run q has scale byte q mod 256 on A ((q+128) mod 256 on
		// B) and the 32 codes of chunk q/256 (every code twice for E2M1).
		chunks := max(1, codes/32)
		for run := 0; run < 4*chunks; run++ {
			in := make([]uint32, smtRows*64)
			var scale [2][64]uint32
			var code [2][64][32]uint8
			for l := 0; l < 64; l++ {
				q := 64*run + l
				for x, row := range []int{smtA, smtB} {
					for e, p := range rng.Perm(32) {
						c := uint8((32*(q/256) + p) % codes)
						code[x][l][e] = c
						bit := e * bits
						in[(row+bit/32)*64+l] |= uint32(c) << (bit % 32)
						if bit%32+bits > 32 {
							in[(row+bit/32+1)*64+l] |= uint32(c) >> (32 - bit%32)
						}
					}
					scale[x][l] = uint32(q+128*x) % 256
				}
				in[smtSA*64+l] = rng.Uint32()&^0xff00 | scale[0][l]<<8
				in[smtSB*64+l] = rng.Uint32()&^0xff0000 | scale[1][l]<<16
			}
			got := smRun(t, obj, "gfx942", k.name, in)
			for r := 0; r < 32; r++ {
				p, x, j := r/4, r%4/2, r%2
				for l := 0; l < 64; l++ {
					for h := 0; h < 2; h++ {
						e := 8*(p/2) + p%2 + 4*j + 2*h // the rule's K order
						c := code[x][l][e]
						g := got[(smtOut+r)*64+l] >> (16 * h) & 0xffff
						w, ok := smtWant(f, c, scale[x][l])
						where := fmt.Sprintf("%s run %d part %d operand %d dword %d half %d lane %d: code %#x scale %#x", k.name, run, p, x, j, h, l, c, scale[x][l])
						if !ok {
							if !bf16NaN(g) {
								t.Fatalf("%s: %#04x, want NaN", where, g)
							}
						} else if g != w {
							t.Fatalf("%s: %#04x, want %#04x", where, g, w)
						}
						checked++
					}
				}
			}
		}
	}
	t.Logf("%d kernels, %d bf16 operands checked", len(ks), checked)
}
