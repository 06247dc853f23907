package rules

import (
	"sort"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
)

// FuzzHelperRuleCode feeds arbitrary guest fields to the transposed-read,
// bf16-atomic and SMFMAC expansions: they must return an error or code
// whose length is a whole number of dwords, never panic.
func FuzzHelperRuleCode(f *testing.F) {
	f.Add(uint32(0xd9c60000), uint32(0x00000001), uint8(0))                            // ds_read_b64_tr_b16 v[0:1], v1
	f.Add(uint32(0xe1485000|12), uint32(0x03020501), uint8(1))                         // buffer_atomic_pk_add_bf16 ... offen offset:12 sc0
	f.Add(uint32(0xd3c30000|1<<15), uint32(256+10|(256+14)<<9|(256+22)<<18), uint8(2)) // v_smfmac_f32_16x16x128_fp8_fp8
	f.Add(uint32(0xd3da0800|30), uint32(256+10|(256+14)<<9|(256+22)<<18), uint8(7))
	var names []string
	for n := range smfmacShapes {
		names = append(names, n)
	}
	sort.Strings(names)
	tmp := []uint16{100, 101, 102, 103, 104}
	f.Fuzz(func(t *testing.T, w0, w1 uint32, sel uint8) {
		fuzzguard.RunArgs(t, []any{w0, w1, sel}, func() {
			check := func(code []byte, err error) {
				if err == nil && len(code)%4 != 0 {
					t.Fatalf("%d bytes of code", len(code))
				}
			}
			bits := []int{16, 8, 4, 6, 0}[int(sel)%5]
			check(ReadTrCode(bits, uint16(w1>>24), w0>>25&1 != 0, uint16(w1&0xff), w0&0xffff, tmp[:int(sel)%6]))
			check(AtomicPkAddBF16Code(w0, w1, uint16(sel)&^1, tmp[:int(sel>>4)%5], uint16(sel)))
			s := smfmacShapes[names[int(sel)%len(names)]]
			check(SMFMACCode(s, w0, w1, 100, 104, 110))
		})
	})
}
