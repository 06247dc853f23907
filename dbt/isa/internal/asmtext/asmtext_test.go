package asmtext

import (
	"strconv"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

func TestAppendReg(t *testing.T) {
	tests := []struct {
		prefix     string
		reg, width uint16
		want       string
	}{
		{"v", 7, 1, "v7"},
		{"s", 0, 0, "s0"},
		{"s", 4, 4, "s[4:7]"},
		{"a", 254, 2, "a[254:255]"},
		{"ttmp", 10, 2, "ttmp[10:11]"},
	}
	for _, tc := range tests {
		if got := string(AppendReg([]byte("x "), tc.prefix, tc.reg, tc.width)); got != "x "+tc.want {
			t.Errorf("AppendReg(%q, %d, %d) = %q, want %q", tc.prefix, tc.reg, tc.width, got, "x "+tc.want)
		}
	}
}

// TestAppendRegAll compares AppendReg with its plain form (prefix,
// strconv numbers) for every prefix the printers use, register and width
// up to the in-place limit and past it, wrapping included.
func TestAppendRegAll(t *testing.T) {
	for _, prefix := range []string{"v", "s", "a", "ttmp", "acc", "vgpr_long"} {
		for reg := 0; reg < 1100; reg++ {
			for _, width := range []uint16{0, 1, 2, 3, 4, 8, 16, 32} {
				var want string
				if width <= 1 {
					want = prefix + strconv.Itoa(reg)
				} else {
					want = prefix + "[" + strconv.Itoa(reg) + ":" + strconv.Itoa(int(uint16(reg)+width-1)) + "]"
				}
				if got := string(AppendReg([]byte("x"), prefix, uint16(reg), width)); got != "x"+want {
					t.Fatalf("AppendReg(%q, %d, %d) = %q, want %q", prefix, reg, width, got, "x"+want)
				}
			}
		}
	}
	if got := string(AppendReg(nil, "s", 65535, 2)); got != "s[65535:0]" {
		t.Errorf("AppendReg wraps as uint16: got %q", got)
	}
}

func TestAppendHex(t *testing.T) {
	for v, want := range map[uint64]string{0: "0x0", 0xabc: "0xabc", 1<<64 - 1: "0xffffffffffffffff"} {
		if got := string(AppendHex(nil, v)); got != want {
			t.Errorf("AppendHex(%d) = %q, want %q", v, got, want)
		}
	}
}

func TestAppendHwreg(t *testing.T) {
	names := func(id uint32) (string, bool) {
		if id == 1 {
			return "HW_REG_MODE", true
		}
		return "", false
	}
	tests := []struct {
		v    uint32
		want string
	}{
		{1 | 31<<11, "hwreg(HW_REG_MODE)"},
		{1 | 3<<6 | 1<<11, "hwreg(HW_REG_MODE, 3, 2)"},
		{5 | 31<<11, "hwreg(5)"},
		{63, "hwreg(63, 0, 1)"},
	}
	for _, tc := range tests {
		if got := string(AppendHwreg(nil, tc.v, names)); got != tc.want {
			t.Errorf("AppendHwreg(%#x) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestAppendSpecial(t *testing.T) {
	names := map[isa.SpecialReg][2]string{isa.RegVCCLo: {"vcc_lo", "vcc"}, isa.RegM0: {"m0", "m0"}}
	tests := []struct {
		o    isa.Operand
		want string
	}{
		{isa.Operand{Reg: uint16(isa.RegVCCLo), Width: 1}, "vcc_lo"},
		{isa.Operand{Reg: uint16(isa.RegVCCLo), Width: 2}, "vcc"},
		{isa.Operand{Reg: uint16(isa.RegM0), Width: 1}, "m0"},
		{isa.Operand{Reg: uint16(isa.RegEncoded), Imm: 141, Width: 1}, "141"},
		{isa.Operand{Reg: uint16(isa.RegEXECLo), Width: 1}, ""}, // not in names
	}
	for _, tc := range tests {
		if got := string(AppendSpecial(nil, &tc.o, names)); got != tc.want {
			t.Errorf("AppendSpecial(%+v) = %q, want %q", tc.o, got, tc.want)
		}
	}
}

func TestAppendDPPCtrl(t *testing.T) {
	tests := []struct {
		c    uint16
		want string
		ok   bool
	}{
		{0xe4, "quad_perm:[0,1,2,3]", true},
		{0x1b, "quad_perm:[3,2,1,0]", true},
		{0x101, "row_shl:1", true},
		{0x11f, "row_shr:15", true},
		{0x128, "row_ror:8", true},
		{0x140, "row_mirror", true},
		{0x141, "row_half_mirror", true},
		{0x100, "", false},
		{0x110, "", false},
		{0x130, "", false},
		{0x150, "", false},
	}
	for _, tc := range tests {
		got, ok := AppendDPPCtrl([]byte(">"), tc.c)
		if ok != tc.ok || string(got) != ">"+tc.want {
			t.Errorf("AppendDPPCtrl(%#x) = %q, %v, want %q, %v", tc.c, got, ok, ">"+tc.want, tc.ok)
		}
	}
}

func TestAppendDPPMasks(t *testing.T) {
	if got, want := string(AppendDPPMasks(nil, 0xf, 0xa, false)), " row_mask:0xf bank_mask:0xa"; got != want {
		t.Errorf("AppendDPPMasks = %q, want %q", got, want)
	}
	if got, want := string(AppendDPPMasks(nil, 0, 0xf, true)), " row_mask:0x0 bank_mask:0xf bound_ctrl:1"; got != want {
		t.Errorf("AppendDPPMasks = %q, want %q", got, want)
	}
}

func TestAppendUint(t *testing.T) {
	for _, n := range []uint{0, 1, 9, 10, 11, 99, 100, 101, 255, 511, 999, 1000, 1001, 65535, 1 << 40} {
		if got, want := string(AppendUint([]byte("x"), n)), "x"+strconv.FormatUint(uint64(n), 10); got != want {
			t.Errorf("AppendUint(%d) = %q, want %q", n, got, want)
		}
	}
	for n := uint(0); n < 2000; n++ {
		if got, want := string(AppendUint(nil, n)), strconv.FormatUint(uint64(n), 10); got != want {
			t.Fatalf("AppendUint(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestAppendReg1 requires AppendReg1 to append what AppendReg does with
// the same one-byte prefix, for every register and width the printers
// may pass and past them.
func TestAppendReg1(t *testing.T) {
	for _, c := range []byte{'v', 's', 'a'} {
		for _, reg := range append([]int{65535, 65534, 4000}, func() (r []int) {
			for i := 0; i < 1100; i++ {
				r = append(r, i)
			}
			return r
		}()...) {
			for _, width := range []uint16{0, 1, 2, 3, 4, 8, 16, 32} {
				want := string(AppendReg([]byte("x"), string(rune(c)), uint16(reg), width))
				if got := string(AppendReg1([]byte("x"), c, uint16(reg), width)); got != want {
					t.Fatalf("AppendReg1(%q, %d, %d) = %q, want %q", c, reg, width, got, want)
				}
			}
		}
	}
}

// TestSmallDecimal: every table entry holds strconv's digits of its index,
// the first digit in the low byte, and their count in the high byte.
func TestSmallDecimal(t *testing.T) {
	for v, d := range smallDecimal {
		s := strconv.Itoa(v)
		if n := int(d >> 24); n != len(s) {
			t.Fatalf("%d: %d digits, want %d", v, n, len(s))
		}
		for i := 0; i < len(s); i++ {
			if c := byte(d >> (8 * i)); c != s[i] {
				t.Fatalf("%d: digit %d is %q, want %q", v, i, c, s[i])
			}
		}
	}
}
