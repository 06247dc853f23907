package rules

import (
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// TestReadTrCodeDisassembles: the expansions of every handled transposed
// read, into VGPRs and AGPRs, decode under llvm-mc-19 for gfx942 into the
// expected instruction mix (one ds_bpermute and one element read per
// element, the destination written last; 27 instructions for 16-bit
// elements into VGPRs apart from the address).
func TestReadTrCodeDisassembles(t *testing.T) {
	tmp := []uint16{100, 101, 102, 103, 104}
	for _, c := range []struct {
		bits        int
		vdst, vaddr uint16
		acc         bool
		read        string
		elems       int
		temps       int
		last        string
	}{
		{16, 10, 4, false, "ds_read_u16", 4, 3, "v_lshl_or_b32 v11, v100, 16, v102"},
		{16, 4, 4, false, "ds_read_u16", 4, 4, "v_mov_b32_e32 v4, v103"},
		{8, 10, 4, true, "ds_read_u8", 8, 4, "v_accvgpr_write_b32 a11, v103"},
		{8, 2, 3, false, "ds_read_u8", 8, 4, "v_mov_b32_e32 v3, v103"},
		{4, 10, 4, false, "ds_read_u8", 16, 4, "v_lshl_or_b32 v11, v102, 28, v11"},
		{4, 10, 4, true, "ds_read_u8", 16, 5, "v_accvgpr_write_b32 a11, v104"},
	} {
		if n := ReadTrTemps(c.bits, c.vdst, c.acc, c.vaddr); n != c.temps {
			t.Errorf("b%d: %d temporaries, want %d", c.bits, n, c.temps)
		}
		code, err := ReadTrCode(c.bits, c.vdst, c.acc, c.vaddr, 40, tmp[:c.temps])
		if err != nil {
			t.Fatal(err)
		}
		lines := disasm(t, code)
		count := func(s string) int {
			n := 0
			for _, l := range lines {
				if strings.HasPrefix(l, s) {
					n++
				}
			}
			return n
		}
		if n := count("ds_bpermute_b32"); n != c.elems {
			t.Errorf("b%d: %d ds_bpermute_b32, want %d", c.bits, n, c.elems)
		}
		if n := count(c.read); n != c.elems {
			t.Errorf("b%d: %d %s, want %d", c.bits, n, c.read, c.elems)
		}
		for _, l := range lines {
			if strings.HasPrefix(l, c.read) && !strings.Contains(l, "offset:40") {
				t.Errorf("b%d: element read without the guest offset: %s", c.bits, l)
			}
		}
		if c.bits == 16 && !c.acc && c.vaddr != c.vdst && len(lines) != 24 {
			t.Errorf("b16 into VGPRs: %d instructions, want 24 (permutes and reads batched)", len(lines))
		}
		if last := lines[len(lines)-1]; !strings.HasPrefix(last, c.last) {
			t.Errorf("b%d vdst %d vaddr %d acc %v: last instruction %q, want %q", c.bits, c.vdst, c.vaddr, c.acc, last, c.last)
		}
	}
	if _, err := ReadTrCode(6, 10, false, 4, 0, tmp); err == nil {
		t.Fatal("6-bit elements accepted")
	}
	if _, err := ReadTrCode(16, 10, false, 4, 0, tmp[:2]); err == nil {
		t.Fatal("too few temporaries accepted")
	}
}

func TestReadTrRegistry(t *testing.T) {
	for _, op := range []string{"ds_read_b64_tr_b16", "ds_read_b64_tr_b8", "ds_read_b64_tr_b4"} {
		r := For(isa.GFX950, isa.GFX942, op)
		if r == nil || r.Fidelity != "approximate" || r.Bound == "" {
			t.Fatalf("%s: rule %+v", op, r)
		}
	}
	if For(isa.GFX950, isa.GFX942, "ds_read_b96_tr_b6") != nil {
		t.Fatal("ds_read_b96_tr_b6 must stay rejected")
	}
}
