package gfx950gfx12

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
)

// Guest words (gfx950, checked with llvm-objdump-19 --mcpu=gfx942).
var (
	gLoad  = []uint32{0xdc508000, 0x027f0002} // global_load_dword v2, v[2:3], off
	gStore = []uint32{0xdc708000, 0x007f0200} // global_store_dword v[0:1], v2, off
	gDS    = []uint32{0xd81a0000, 0x00000201} // ds_write_b32 v1, v2
	gSMEM  = []uint32{0xc00a0100, 0x00000000} // s_load_dwordx4 s[4:7], s[0:1], 0x0
)

// waitWord is the gfx940-class s_waitcnt vmcnt(vm) expcnt(exp) lgkmcnt(lgkm).
func waitWord(vm, exp, lgkm uint32) []uint32 {
	return []uint32{0xbf8c0000 | vm&15 | vm>>4<<14 | exp<<4 | lgkm<<8}
}

func block(t *testing.T, ws ...[]uint32) []*isa.Inst {
	t.Helper()
	var out []*isa.Inst
	for _, w := range ws {
		var b []byte
		for _, x := range w {
			b = binary.LittleEndian.AppendUint32(b, x)
		}
		in, err := gfx9.Decode(b, 0, isa.GFX950)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, &in)
	}
	return out
}

func hostText(t *testing.T, b []byte) string {
	t.Helper()
	var s []string
	for off := 0; off < len(b); {
		in, err := gfx12.Decode(b[off:], 0, isa.GFX1201|isa.Wave64)
		if err != nil {
			t.Fatal(err)
		}
		s = append(s, gfx12.Print(&in))
		off += int(in.Size)
	}
	return strings.Join(s, "; ")
}

// TestWaitcntSplit checks the split of gfx9 waits by the kinds of the
// outstanding operations: the N newest vector-memory operations decide
// loadcnt and storecnt (not loadcnt(N) + storecnt(N)), unknown older ones
// are waited for, and lgkmcnt separates LDS from SMEM.
func TestWaitcntSplit(t *testing.T) {
	cases := []struct {
		name string
		ops  [][]uint32
		wait []uint32
		want string
	}{
		{"newest is a load", [][]uint32{gLoad, gStore, gLoad}, waitWord(1, 7, 15), "s_wait_loadcnt 0x1; s_wait_storecnt 0x0"},
		{"load and store", [][]uint32{gLoad, gStore, gLoad}, waitWord(2, 7, 15), "s_wait_loadcnt 0x1; s_wait_storecnt 0x1"},
		{"two loads", [][]uint32{gStore, gLoad, gLoad}, waitWord(2, 7, 15), "s_wait_loadcnt 0x2; s_wait_storecnt 0x0"},
		{"older unknown", [][]uint32{gLoad}, waitWord(3, 7, 15), "s_wait_loadcnt 0x1; s_wait_storecnt 0x0"},
		{"lds newest", [][]uint32{gSMEM, gDS, gDS}, waitWord(63, 7, 1), "s_wait_dscnt 0x1; s_wait_kmcnt 0x0"},
		{"smem and lds", [][]uint32{gDS, gSMEM, gDS}, waitWord(63, 7, 2), "s_wait_dscnt 0x1; s_wait_kmcnt 0x1"},
		{"all", [][]uint32{gLoad, gDS}, waitWord(0, 7, 0), "s_wait_loadcnt 0x0; s_wait_storecnt 0x0; s_wait_dscnt 0x0; s_wait_kmcnt 0x0"},
		{"nothing", nil, waitWord(63, 7, 15), "s_nop 0"},
	}
	for _, c := range cases {
		blk := block(t, append(c.ops, c.wait)...)
		b, err := waitcnt(nil, blk[len(blk)-1], pair.Site{Block: blk, Index: len(blk) - 1})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := hostText(t, b); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// TestMappingIsReviewed checks that the generated mapping has no entry
// the registry marks as differing, and that renames point at gfx12
// operations.
func TestMappingIsReviewed(t *testing.T) {
	host := map[string]bool{}
	for _, n := range gfx12.Mnemonics() {
		host[n] = true
	}
	for from, op := range hostOps() {
		if !host[op.to] {
			t.Errorf("%s -> %s: not a gfx12 operation", from, op.to)
		}
		if !op.renamed && op.to != from {
			t.Errorf("%s -> %s: a different name without the registry", from, op.to)
		}
	}
	for _, n := range []string{"v_cmpx_gt_u32", "s_getreg_b32", "s_waitcnt", "buffer_load_dword", "ds_cmpst_b32", "s_sendmsg"} {
		if _, ok := hostOps()[n]; ok {
			t.Errorf("%s passes as the same operation", n)
		}
	}
}

// TestConvertWord3 checks the gfx9 -> gfx12 V# word3 conversion on the
// constants of research note §4 and its refusals.
func TestConvertWord3(t *testing.T) {
	for _, c := range []struct{ in, want uint32 }{
		{0x00020000, 0x30004000}, // DATA_FORMAT 32, NUM_FORMAT 0
		{0x00027000, 0x30004000}, // 32 float
		{0x00020fac, 0x30004fac}, // DST_SEL kept
		{0x00620000, 0x30604000}, // INDEX_STRIDE kept
	} {
		got, err := convertWord3(c.in)
		if err != nil || got != c.want {
			t.Errorf("convertWord3(%#x) = %#x, %v; want %#x", c.in, got, err, c.want)
		}
	}
	for _, bad := range []uint32{0, 0x7000, 0x00820000, 0x00120000, 0x08020000, 0x31004000, 0xc0020000} {
		if got, err := convertWord3(bad); err == nil {
			t.Errorf("convertWord3(%#x) = %#x, want an error", bad, got)
		}
	}
}

// TestBufferName checks the MUBUF -> VBUFFER renames and refusals.
func TestBufferName(t *testing.T) {
	for in, want := range map[string]string{"buffer_load_dword": "buffer_load_b32", "buffer_load_dwordx4": "buffer_load_b128",
		"buffer_load_ubyte": "buffer_load_u8", "buffer_store_short": "buffer_store_b16", "buffer_store_dwordx3": "buffer_store_b96",
		"buffer_atomic_add": "buffer_atomic_add_u32", "buffer_atomic_cmpswap_x2": "buffer_atomic_cmpswap_b64",
		"buffer_atomic_pk_add_bf16": "buffer_atomic_pk_add_bf16", "buffer_load_short_d16": "buffer_load_d16_b16",
		"buffer_load_short_d16_hi": "buffer_load_d16_hi_b16", "buffer_load_ubyte_d16": "buffer_load_d16_u8",
		"buffer_load_ubyte_d16_hi": "buffer_load_d16_hi_u8", "buffer_load_sbyte_d16": "buffer_load_d16_i8",
		"buffer_load_sbyte_d16_hi": "buffer_load_d16_hi_i8", "buffer_store_short_d16_hi": "buffer_store_d16_hi_b16",
		"buffer_store_byte_d16_hi": "buffer_store_d16_hi_b8"} {
		if got, ok := bufferName(in); !ok || got != want {
			t.Errorf("bufferName(%s) = %s, %v; want %s", in, got, ok, want)
		}
		if len(gfx12.New(want, true)) == 0 {
			t.Errorf("%s: the gfx12 tables have no %s", in, want)
		}
	}
	for _, in := range []string{"buffer_load_format_d16_x", "buffer_store_short_d16", "buffer_store_ubyte", "buffer_load_byte", "buffer_atomic_add_f64", "buffer_atomic_fmin", "buffer_wbl2"} {
		if got, ok := bufferName(in); ok {
			t.Errorf("bufferName(%s) = %s, want no counterpart", in, got)
		}
	}
}
