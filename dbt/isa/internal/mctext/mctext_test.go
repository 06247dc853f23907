package mctext

import "testing"

func TestWordsKey(t *testing.T) {
	tests := []struct {
		w    []uint32
		want string
	}{
		{nil, ""},
		{[]uint32{0xbf810000}, "0x00,0x00,0x81,0xbf"},
		{[]uint32{0x7e000280, 0x12345678}, "0x80,0x02,0x00,0x7e,0x78,0x56,0x34,0x12"},
	}
	for _, tc := range tests {
		if got := WordsKey(tc.w); got != tc.want {
			t.Errorf("WordsKey(%#x) = %q, want %q", tc.w, got, tc.want)
		}
	}
}

func TestReg(t *testing.T) {
	pre := []string{"ttmp", "s", "v", "a"}
	tests := []struct {
		s          string
		class      byte
		num, width int
		ok         bool
	}{
		{"v7", 'v', 7, 1, true},
		{"s[4:7]", 's', 4, 4, true},
		{"ttmp[10:11]", 't', 10, 2, true},
		{"ttmp3", 't', 3, 1, true},
		{"a[0:15]", 'a', 0, 16, true},
		{"src_scc", 0, 0, 0, false},
		{"vcc", 0, 0, 0, false},
		{"s[4:x]", 0, 0, 0, false},
		{"s[4]", 0, 0, 0, false},
		{"0x10", 0, 0, 0, false},
	}
	for _, tc := range tests {
		c, n, w, ok := Reg(tc.s, pre...)
		if c != tc.class || n != tc.num || w != tc.width || ok != tc.ok {
			t.Errorf("Reg(%q) = %q %d %d %v, want %q %d %d %v", tc.s, c, n, w, ok, tc.class, tc.num, tc.width, tc.ok)
		}
	}
	if _, _, _, ok := Reg("a1", "ttmp", "s", "v"); ok {
		t.Error(`Reg("a1") without the "a" prefix parsed`)
	}
}

func TestNegAbs(t *testing.T) {
	tests := []struct {
		s        string
		rest     string
		neg, abs bool
	}{
		{"-v1", "v1", true, false},
		{"|v1|", "v1", false, true},
		{"-|s[2:3]|", "s[2:3]", true, true},
		{"-1", "-1", false, false},   // a negative number, not neg
		{"-a1", "-a1", false, false}, // 'a' not listed
		{"||", "||", false, false},
		{"-", "-", false, false},
	}
	for _, tc := range tests {
		rest, neg, abs := NegAbs(tc.s, "|vs")
		if rest != tc.rest || neg != tc.neg || abs != tc.abs {
			t.Errorf("NegAbs(%q) = %q %v %v, want %q %v %v", tc.s, rest, neg, abs, tc.rest, tc.neg, tc.abs)
		}
	}
}
