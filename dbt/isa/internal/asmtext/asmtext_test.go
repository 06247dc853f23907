package asmtext

import (
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
