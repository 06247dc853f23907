package gfx9

import (
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/internal/roundtrip"
	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
)

// FuzzDecode checks that Decode never panics on any bytes and that whatever
// decodes re-encodes to the same bytes and prints.
func FuzzDecode(f *testing.F) {
	seeds := [][]byte{
		{0x01, 0xff, 0x01, 0x86, 0xff, 0xff, 0x00, 0x00},                                                 // s_and_b32 with literal
		{0x00, 0x02, 0x06, 0xc0, 0x00, 0x00, 0x00, 0x00},                                                 // s_load_dwordx2
		{0x8a, 0x00, 0x02, 0x20},                                                                         // v_lshrrev_b32_e32
		{0x18, 0x50, 0x01, 0xff, 0xfa, 0x62, 0x08, 0x0a},                                                 // dpp (bytes reversed on purpose)
		{0xfa, 0x62, 0x08, 0x0a, 0x18, 0x50, 0x01, 0xff},                                                 // v_mul_f32_dpp
		{0xf9, 0x1c, 0x5c, 0x7e, 0x2c, 0x16, 0x02, 0x00},                                                 // sdwa
		{0x00, 0x00, 0xf3, 0xd3, 0x00, 0x81, 0x02, 0x1a},                                                 // mfma
		{0x00, 0x10, 0x5c, 0xe0, 0x07, 0x08, 0x02, 0x80},                                                 // buffer_load_dwordx4
		{0x00, 0x80, 0x5c, 0xdc, 0x26, 0x00, 0xff, 0x00},                                                 // global_load_dwordx4
		{0x00, 0x00, 0xfe, 0xdb, 0x25, 0x00, 0x00, 0x00},                                                 // ds_read_b128
		{0x00, 0x00, 0xac, 0xd3, 0x18, 0x33, 0x02, 0x00, 0x00, 0x89, 0xad, 0xd3, 0x04, 0x19, 0x52, 0x9c}, // scaled mfma
		{0x7f, 0xc0, 0x8c, 0xbf},                                                                         // s_waitcnt
	}
	for _, s := range seeds {
		f.Add(s, uint8(0))
		f.Add(s, uint8(1))
	}
	f.Fuzz(func(t *testing.T, b []byte, tsel uint8) {
		fuzzguard.RunArgs(t, []any{b, tsel}, func() {
			target := isa.GFX942
			if tsel&1 != 0 {
				target = isa.GFX950
			}
			family.Check(t, b, target)
		})
	})
}

// family is this package as the round-trip check sees it.
var family = roundtrip.Family{Decode: Decode, Print: Print, Encode: Encode}
