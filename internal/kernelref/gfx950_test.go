package kernelref

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// gfx950Word is one raw gfx950 instruction of testdata/kernels/src/gfx950.h
// with how its encoding is established.
type gfx950Word struct {
	asm    string
	words  []uint32
	source string   // "oracle": verbatim in LLVM's gfx950 MC tests
	lut    uint8    // bitop3: the truth table
	gfx942 string   // mfma: the gfx942 instruction with the same operand fields
	base   string   // selfsrc: the oracle VOP1 line whose src0 field is set to vdst
	kernel []string // the gfx950 guest kernels that contain it
}

var gfx950Words = []gfx950Word{
	{asm: "v_cvt_pk_bf16_f32 v5, v1, v2", words: []uint32{0xd2680005, 0x00020501}, source: "oracle", kernel: []string{"gfx950_cvt_pk_bf16_f32"}},
	{asm: "v_cvt_f32_bf16_e32 v5, v1", words: []uint32{0x7e0ab701}, source: "oracle", kernel: []string{"gfx950_cvt_f32_bf16"}},
	{asm: "v_permlane16_swap_b32_e32 v1, v2", words: []uint32{0x7e02b302}, source: "oracle", kernel: []string{"gfx950_permlane16_swap"}},
	{asm: "v_permlane32_swap_b32_e32 v1, v2", words: []uint32{0x7e02b502}, source: "oracle", kernel: []string{"gfx950_permlane32_swap"}},
	{asm: "v_bitop3_b32 v5, v1, v2, v3 bitop3:0x96", words: []uint32{0xd2340205, 0xd40e0501}, source: "bitop3", lut: 0x96, kernel: []string{"gfx950_bitop3"}},
	{asm: "v_bitop3_b32 v5, v1, v2, v3 bitop3:0xe8", words: []uint32{0xd2340505, 0x1c0e0501}, source: "bitop3", lut: 0xe8, kernel: []string{"gfx950_bitop3"}},
	{asm: "v_bitop3_b32 v5, v1, v2, v3 bitop3:0xca", words: []uint32{0xd2340105, 0x5c0e0501}, source: "bitop3", lut: 0xca, kernel: []string{"gfx950_bitop3"}},
	{asm: "v_bitop3_b32 v5, v1, v2, v3 bitop3:0xa1", words: []uint32{0xd2340405, 0x340e0501}, source: "bitop3", lut: 0xa1, kernel: []string{"gfx950_bitop3"}},
	{asm: "v_cvt_pk_f16_f32 v5, v1, v2", words: []uint32{0xd2670005, 0x00020501}, source: "oracle", kernel: []string{"gfx950_cvt_pk_f16_f32"}},
	{asm: "global_load_lds_dwordx4 v[2:3], off", words: []uint32{0xddf48000, 0x007f0002}, source: "oracle", kernel: []string{"gfx950_global_load_lds"}},
	{asm: "v_minimum3_f32 v0, v1, v2, v3", words: []uint32{0xd2a80000, 0x040e0501}, source: "oracle", kernel: []string{"gfx950_minmax3"}},
	{asm: "v_maximum3_f32 v1, v2, v3, v4", words: []uint32{0xd2a90001, 0x04120702}, source: "oracle", kernel: []string{"gfx950_minmax3"}},
	{asm: "v_cvt_scalef32_pk_fp4_f32 v1, v1, v2, v3", words: []uint32{0xd23d0001, 0x040e0501}, source: "oracle", kernel: []string{"gfx950_scalecvt"}},
	{asm: "v_cvt_scalef32_pk_fp4_f32 v1, v1, v2, v3 op_sel:[0,0,0,1]", words: []uint32{0xd23d4001, 0x040e0501}, source: "oracle", kernel: []string{"gfx950_scalecvt"}},
	{asm: "v_cvt_scalef32_pk_f32_fp4 v[2:3], v2, v3", words: []uint32{0xd23f0002, 0x00020702}, source: "oracle", kernel: []string{"gfx950_scalecvt"}},
	{asm: "v_cvt_scalef32_pk_bf16_fp8 v1, v2, v3", words: []uint32{0xd2690001, 0x00020702}, source: "oracle", kernel: []string{"gfx950_scalecvt"}},
	{asm: "v_permlane16_swap_b32_e32 v1, v1", words: []uint32{0x7e02b301}, source: "selfsrc", base: "v_permlane16_swap_b32_e32 v1, v2", kernel: []string{"gfx950_permlane_self_swap"}},
	{asm: "v_permlane32_swap_b32_e32 v1, v1", words: []uint32{0x7e02b501}, source: "selfsrc", base: "v_permlane32_swap_b32_e32 v1, v2", kernel: []string{"gfx950_permlane_self_swap"}},
	{asm: "v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], a[4:11], a[12:19], v[20:23], v24, v25 op_sel_hi:[0,0,0]", words: []uint32{0xd3ac0000, 0x00023318, 0xd3ad0800, 0x1c521904}, source: "oracle", kernel: []string{"gfx950_mfma_scale_agpr"}},
	{asm: "v_mfma_f32_16x16x32_f16 v[0:3], v[4:7], v[8:11], v[0:3]", words: []uint32{0xd3d40000, 0x04021104}, source: "mfma",
		gfx942: "v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[8:9], v[0:3]", kernel: []string{"gfx950_mfma_f32_16x16x32_f16"}},
	{asm: "v_mfma_f32_32x32x16_f16 v[0:15], v[16:19], v[20:23], v[0:15]", words: []uint32{0xd3d50000, 0x04022910}, source: "mfma",
		gfx942: "v_mfma_f32_32x32x8_f16 v[0:15], v[16:17], v[20:21], v[0:15]", kernel: []string{"gfx950_mfma_f32_32x32x16_f16"}},
}

func wordBytes(w []uint32) []byte {
	var b []byte
	for _, x := range w {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}

// oracleEncodings maps instruction text to encoding bytes from every
// "GFX950: TEXT ; encoding: [..]" line of LLVM's gfx950 MC tests.
func oracleEncodings(t *testing.T) map[string][]byte {
	t.Helper()
	dir := projectpath.MustShared(t, "isa-oracle", "gfx950")
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	re := regexp.MustCompile(`GFX950:\s+(\S.*?)\s*; encoding: \[([0-9a-fx,]+)\]`)
	m := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range re.FindAllStringSubmatch(string(b), -1) {
			var enc []byte
			for _, h := range strings.Split(g[2], ",") {
				v, err := strconv.ParseUint(h, 0, 8)
				if err != nil {
					t.Fatalf("%s: %q: %v", f, g[0], err)
				}
				enc = append(enc, byte(v))
			}
			m[strings.Join(strings.Fields(g[1]), " ")] = enc
		}
	}
	if len(m) < 500 {
		t.Fatalf("only %d gfx950 encodings in %s", len(m), dir)
	}
	return m
}

// bitop3Encode is the VOP3 encoding of v_bitop3_b32 with 9-bit source
// codes: the table sits in {OMOD, ABS, NEG} = {lut[7:6], lut[5:3], lut[2:0]}.
func bitop3Encode(vdst uint32, src [3]uint32, lut uint8) []uint32 {
	l := uint32(lut)
	return []uint32{
		0xd2340000 | (l>>3&7)<<8 | vdst,
		(l&7)<<29 | (l>>6&3)<<27 | src[2]<<18 | src[1]<<9 | src[0],
	}
}

func srcCode(t *testing.T, op string) uint32 {
	t.Helper()
	switch {
	case op == "m0":
		return 124
	case op == "0.5":
		return 240
	case strings.HasPrefix(op, "v"):
		n, err := strconv.Atoi(op[1:])
		if err == nil {
			return 256 + uint32(n)
		}
	case strings.HasPrefix(op, "s"):
		n, err := strconv.Atoi(op[1:])
		if err == nil {
			return uint32(n)
		}
	}
	t.Fatalf("operand %q", op)
	return 0
}

// TestGFX950Encodings checks every raw word of the gfx950 guest kernels:
// verbatim oracle encodings, the bitop3 formula (itself checked on every
// v_bitop3_b32 oracle line), and MFMA words that are the llvm-mc-19 gfx942
// encoding of the same operands with the gfx950 opcode the oracle shows.
// It also checks the words are in gfx950.h and in the built objects.
func TestGFX950Encodings(t *testing.T) {
	mc := llvmtool.Require(t, llvmtool.MC)
	oracle := oracleEncodings(t)
	r := root(t)
	header, err := os.ReadFile(filepath.Join(r, "testdata", "kernels", "src", "gfx950.h"))
	if err != nil {
		t.Fatal(err)
	}

	// The bitop3 formula against every oracle line for v_bitop3_b32.
	re := regexp.MustCompile(`^v_bitop3_b32 v(\d+), ([^,]+), ([^,]+), (\S+)(?: bitop3:(\S+))?$`)
	checked := 0
	for asm, enc := range oracle {
		g := re.FindStringSubmatch(asm)
		if g == nil {
			continue
		}
		lut := uint64(0)
		if g[5] != "" {
			lut, err = strconv.ParseUint(g[5], 0, 8)
			if err != nil {
				t.Fatal(err)
			}
		}
		vd, _ := strconv.Atoi(g[1])
		got := wordBytes(bitop3Encode(uint32(vd), [3]uint32{srcCode(t, g[2]), srcCode(t, g[3]), srcCode(t, g[4])}, uint8(lut)))
		if !bytes.Equal(got, enc) {
			t.Errorf("bitop3 formula: %s = % x, oracle % x", asm, got, enc)
		}
		checked++
	}
	if checked < 3 {
		t.Fatalf("only %d v_bitop3_b32 oracle lines", checked)
	}

	for _, w := range gfx950Words {
		want := wordBytes(w.words)
		switch w.source {
		case "oracle":
			enc, ok := oracle[w.asm]
			if !ok || !bytes.Equal(enc, want) {
				t.Errorf("%s: oracle % x (found %v), header words % x", w.asm, enc, ok, want)
			}
		case "selfsrc": // the oracle's VOP1 word with src0 = vdst (the only change)
			enc, ok := oracle[w.base]
			if !ok || len(enc) != 4 || len(w.words) != 1 {
				t.Fatalf("%s: no 4-byte oracle line %q", w.asm, w.base)
			}
			b := binary.LittleEndian.Uint32(enc)
			if got := b&^0x1ff | (256 + b>>17&0xff); got != w.words[0] {
				t.Errorf("%s: derived %#08x, header word %#08x", w.asm, got, w.words[0])
			}
		case "bitop3":
			got := wordBytes(bitop3Encode(5, [3]uint32{257, 258, 259}, w.lut))
			if !bytes.Equal(got, want) || !strings.HasSuffix(w.asm, fmt.Sprintf("bitop3:0x%02x", w.lut)) {
				t.Errorf("%s: formula % x, header words % x", w.asm, got, want)
			}
		case "mfma":
			cmd := exec.Command(mc, "-arch=amdgcn", "-mcpu=gfx942", "-show-encoding")
			cmd.Stdin = strings.NewReader(w.gfx942 + "\n")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("llvm-mc-19 %q: %v\n%s", w.gfx942, err, out)
			}
			m := regexp.MustCompile(`encoding: \[([0-9a-fx,]+)\]`).FindStringSubmatch(string(out))
			if m == nil {
				t.Fatalf("llvm-mc-19 %q: no encoding in %s", w.gfx942, out)
			}
			var enc []byte
			for _, h := range strings.Split(m[1], ",") {
				v, _ := strconv.ParseUint(h, 0, 8)
				enc = append(enc, byte(v))
			}
			// The gfx950 opcode byte: from the oracle line of the same
			// mnemonic with all-v[0:n] operands.
			mnem := strings.Fields(w.asm)[0]
			var op byte
			for asm, oe := range oracle {
				if strings.HasPrefix(asm, mnem+" v[") && len(oe) == 8 {
					op = oe[2]
					break
				}
			}
			if op == 0 || len(enc) != 8 {
				t.Fatalf("%s: no oracle opcode (%#x) or gfx942 encoding % x", w.asm, op, enc)
			}
			enc[2] = op
			if !bytes.Equal(enc, want) {
				t.Errorf("%s: derived % x, header words % x", w.asm, enc, want)
			}
		}
		for _, x := range w.words {
			if !bytes.Contains(header, []byte(fmt.Sprintf("0x%08x", x))) {
				t.Errorf("%s: word 0x%08x not in gfx950.h", w.asm, x)
			}
		}
		for _, k := range w.kernel {
			obj, err := os.ReadFile(filepath.Join(r, "testdata", "kernels", "gfx950", k+".co"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(obj, want) {
				t.Errorf("%s: words % x not in gfx950/%s.co", w.asm, want, k)
			}
		}
	}
}

func TestBF16AndBitop3(t *testing.T) {
	for _, c := range []struct {
		in   uint32
		want uint16
	}{
		{0x3f800000, 0x3f80}, {0x3f808000, 0x3f80}, {0x3f818000, 0x3f82}, {0x3f808001, 0x3f81},
		{0x7f7fffff, 0x7f80}, {0xff800000, 0xff80}, {0x7fc00001, 0x7fc0}, {0x7f800001, 0x7fc0},
	} {
		if got := BF16(c.in); got != c.want {
			t.Errorf("BF16(%#x) = %#x, want %#x", c.in, got, c.want)
		}
	}
	a, b, c := uint32(0xf0f0f0f0), uint32(0xcccccccc), uint32(0xaaaaaaaa)
	for _, lut := range []uint8{0x96, 0xe8, 0xca, 0xa1, 0x00, 0xff} {
		// With a, b, c the canonical patterns, every byte is the table.
		if got := Bitop3(lut, a, b, c); got != uint32(lut)*0x01010101 {
			t.Errorf("Bitop3(%#x) = %#x", lut, got)
		}
	}
}
