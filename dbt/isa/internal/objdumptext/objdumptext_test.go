package objdumptext

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	out := "\nfoo.o:\tfile format elf64-amdgpu\n\n" +
		"Disassembly of section .text:\n\n" +
		"0000000000001000 <k>:\n" +
		"\ts_load_dwordx2 s[0:1], s[4:5], 0x0    // 000000001000: C0060002 00000000\n" +
		"\tv_mov_b32_e32 v0, 0                    // 000000001008: 7E000280 \n" +
		"\ts_nop 0 // no address here\n" +
		"\t.long 0xffffffff // 00000000100C: FFFFFFFF ; comment\n" +
		"s_endpgm // 000000001010: BF810000\n"
	want := []Line{
		{0x1000, "s_load_dwordx2 s[0:1], s[4:5], 0x0", []uint32{0xc0060002, 0}},
		{0x1008, "v_mov_b32_e32 v0, 0", []uint32{0x7e000280}},
		{0x100c, ".long 0xffffffff", []uint32{0xffffffff}},
	}
	if got := Parse([]byte(out)); !reflect.DeepEqual(got, want) {
		t.Errorf("Parse:\n got %+v\nwant %+v", got, want)
	}
	if got := Parse(nil); got != nil {
		t.Errorf("Parse(nil) = %+v", got)
	}
}

func TestNormalize(t *testing.T) {
	if got := Normalize("\t v_add  f32\tv1,  v2 "); got != "v_add f32 v1, v2" {
		t.Errorf("Normalize = %q", got)
	}
}
