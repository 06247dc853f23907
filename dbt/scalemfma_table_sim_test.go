package dbt

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/rules"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
)

// Rows of the decode kernels' buffer: A (4 dwords of E2M1), B, the two
// scale dwords, then the host operand pairs of the 8 parts (A pair, B
// pair: 4 dwords a part).
const (
	smtA, smtB, smtSA, smtSB = 0, 4, 8, 9
	smtOut                   = 10
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

// smtKernel writes a gfx942 kernel that loads A, B and the scales, runs
// the expansion of an E2M1 x E2M1 16x16x128 scaled MFMA (scale bytes 1
// of A's dword and 2 of B's) on scratch s with each host MFMA replaced by
// copies of its operand pairs to v[120 + 4p ...], and stores the copies.
func smtKernel(t *testing.T, sb *strings.Builder, name string, s rules.ScaleMFMAScratch) {
	l0 := uint32(0xd3ac0000) | 1<<11
	l1 := uint32(256+30) | uint32(256+31)<<9 | 1<<28
	w0 := uint32(0xd3800000) | 0x2d<<16 | 1<<11 | 4<<8 | 40
	w1 := uint32(256+10) | uint32(256+20)<<9 | 128<<18 | 4<<29
	code, err := rules.ScaleMFMACode(l0, l1, w0, w1, 0x61, 4, s)
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
		t.Fatalf("%s: %d host MFMAs found, want 8", name, parts)
	}
	fmt.Fprintf(sb, ".globl %s\n.p2align 8\n.type %s,@function\n%s:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n  v_lshlrev_b32_e32 v1, 2, v0\n  s_waitcnt lgkmcnt(0)\n", name, name, name)
	for _, rv := range [][2]int{{smtA, 10}, {smtA + 1, 11}, {smtA + 2, 12}, {smtA + 3, 13}, {smtB, 20}, {smtB + 1, 21}, {smtB + 2, 22}, {smtB + 3, 23}, {smtSA, 30}, {smtSB, 31}} {
		fmt.Fprintf(sb, "  v_add_u32_e32 v2, %d, v1\n  global_load_dword v%d, v2, s[8:9]\n", rv[0]*256, rv[1])
	}
	sb.WriteString("  s_waitcnt vmcnt(0)\n")
	sb.WriteString(strings.Join(body, "\n") + "\n")
	for r := 0; r < 32; r++ {
		fmt.Fprintf(sb, "  v_add_u32_e32 v2, %d, v1\n  global_store_dword v2, v%d, s[8:9]\n", (smtOut+r)*256, 120+r)
	}
	sb.WriteString("  s_waitcnt vmcnt(0)\n  s_endpgm\n")
}

// smtBuild assembles and links the named kernels into a gfx942 object.
func smtBuild(t *testing.T, names []string, scratch []rules.ScaleMFMAScratch) []byte {
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n")
	for i, n := range names {
		smtKernel(t, &s, n, scratch[i])
	}
	s.WriteString(".rodata\n")
	for _, n := range names {
		fmt.Fprintf(&s, ".p2align 6\n.amdhsa_kernel %s\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 208\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 208\n.end_amdhsa_kernel\n", n)
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

// TestScaleMFMATableDecodeExhaustive runs the E2M1 table decode (A, B or
// both) and the per-element decode on the simulated gfx942 agent with
// every scale byte 0..255 on A and on B and every E2M1 code in every
// lane, and compares the bf16 operands of all 8 host parts: bit for bit,
// except that a lane whose scale byte is 0xFF must give NaN for every
// element in both decodes (the NaN encodings differ).
func TestScaleMFMATableDecodeExhaustive(t *testing.T) {
	names := []string{"elem", "table", "tableA", "tableB"}
	scratch := []rules.ScaleMFMAScratch{smtScratch, smtScratchTable([2]bool{true, true}), smtScratchTable([2]bool{true, false}), smtScratchTable([2]bool{false, true})}
	obj := smtBuild(t, names, scratch)
	rng := rand.New(rand.NewSource(15))
	for run := 0; run < 4; run++ {
		in := make([]uint32, smtRows*64)
		var scale [2][64]uint32
		for l := 0; l < 64; l++ {
			// Each lane holds every code twice, in a random order.
			for x, row := range []int{smtA, smtB} {
				codes := rng.Perm(32)
				for e, c := range codes {
					in[(row+e/8)*64+l] |= uint32(c%16) << (4 * (e % 8))
				}
				scale[x][l] = uint32(64*run+l+128*x) % 256
			}
			in[smtSA*64+l] = rng.Uint32()&^0xff00 | scale[0][l]<<8
			in[smtSB*64+l] = rng.Uint32()&^0xff0000 | scale[1][l]<<16
		}
		want := smRun(t, obj, "gfx942", "elem", in)
		for _, name := range names[1:] {
			got := smRun(t, obj, "gfx942", name, in)
			for r := 0; r < 32; r++ {
				x := r % 4 / 2 // the A pair, then the B pair
				for l := 0; l < 64; l++ {
					gw, ww := got[(smtOut+r)*64+l], want[(smtOut+r)*64+l]
					for h := 0; h < 2; h++ {
						g, w := gw>>(16*h)&0xffff, ww>>(16*h)&0xffff
						where := fmt.Sprintf("%s run %d part %d dword %d half %d lane %d (scale %#x)", name, run, r/4, r%4, h, l, scale[x][l])
						if scale[x][l] == 0xff {
							if !bf16NaN(g) || !bf16NaN(w) {
								t.Fatalf("%s: %#04x, per element %#04x, want NaN from both", where, g, w)
							}
						} else if g != w {
							t.Fatalf("%s: %#04x, per element %#04x", where, g, w)
						}
					}
				}
			}
		}
	}
}
