package gfx12

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12/internal/enc"
)

// TestSWMMACIndexKeyVsLLVM decodes every v_swmmac_* with index_key 0-3 (and
// neg/clamp bits) in both wave sizes and compares acceptance and text with
// llvm-mc-19 --disassemble: wave64 takes index_key 2 and 3 for the 16-bit
// and 8-bit inputs, which the single table row (wave32's mask) rejected.
func TestSWMMACIndexKeyVsLLVM(t *testing.T) {
	for _, wave64 := range []bool{false, true} {
		var lines []string
		var codes [][]byte
		for i := range table() {
			e := &table()[i]
			if e.kind != enc.VOP3P || !strings.HasPrefix(e.mnem, "v_swmmac_") {
				continue
			}
			for key := uint32(0); key < 4; key++ {
				for _, extra := range [][2]uint32{{0, 0}, {0x8000, 0x60000000}} { // clamp; neg_lo[0:1]
					w0 := 0xcc000000 | uint32(e.op)<<16 | key<<11 | 0x4000 | extra[0] | 2
					w1 := uint32(0x18000000) | 0x101<<18 | 0x106<<9 | 0x100 | extra[1]
					b := binary.LittleEndian.AppendUint32(nil, w0)
					b = binary.LittleEndian.AppendUint32(b, w1)
					lines = append(lines, bytesKey(b))
					codes = append(codes, b)
				}
			}
		}
		if len(codes) < 11*8 {
			t.Fatalf("wave64=%v: %d SWMMAC probes, want 11 opcodes x 8", wave64, len(codes))
		}
		want := mcRun(t, lines, wave64)
		target := isa.GFX1201
		if wave64 {
			target |= isa.Wave64
		}
		for i, b := range codes {
			in, err := Decode(b, 0, target)
			switch {
			case want[i] == "" && err == nil:
				t.Errorf("wave64=%v [%s]: decoded %q, LLVM rejects it", wave64, lines[i], Print(&in))
			case want[i] != "" && err != nil:
				t.Errorf("wave64=%v [%s]: %v, LLVM prints %q", wave64, lines[i], err, want[i])
			case err == nil:
				if got := normalize(Print(&in)); got != want[i] {
					t.Errorf("wave64=%v [%s]: %q, LLVM %q", wave64, lines[i], got, want[i])
				}
				if out, err := Encode(&in); err != nil || string(out) != string(b) {
					t.Errorf("wave64=%v [%s]: re-encoded % x (%v)", wave64, lines[i], out, err)
				}
			}
		}
	}
}
