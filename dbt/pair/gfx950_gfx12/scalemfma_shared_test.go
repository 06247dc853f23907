package gfx950gfx12

import (
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
)

// TestF8F6F4SharedForm checks the subroutine form of every shape and
// format pair: one pointer per AGPR base and key (C a register or a
// constant, formats, operation), none for the plain 16x16 FP8/BF8 form;
// the call site copies exactly A, B, C (registers) and the two scale
// bytes in and D out, its fixed registers come from the list and miss the
// use's own registers, the site and the body decode as gfx1201 wave64
// code; and too short a list is an error.
func TestF8F6F4SharedForm(t *testing.T) {
	var p Pair
	seen := map[*rules.Shared]string{}
	var regs []uint16
	for v := uint16(100); v < 256; v++ {
		regs = append(regs, v)
	}
	decodes := func(what string, code []byte) int {
		n := 0
		for at := 0; at < len(code); n++ {
			in, err := p.HostDecode(code[at:], uint64(at))
			if err != nil || in.Size == 0 {
				t.Fatalf("%s: offset %d: %v", what, at, err)
			}
			at += int(in.Size)
		}
		return n
	}
	for _, scaled := range []bool{true, false} {
		for _, m := range []int{16, 32} {
			for cb := 0; cb < 5; cb++ {
				for bl := 0; bl < 5; bl++ {
					for _, src2 := range []uint32{256 + 60, 128} {
						in := decode950(t, f8f6f4Words(m, cb, bl, scaled, src2, 0))
						s := p.SharedForm(in, 128)
						short := !scaled && m == 16 && cb < 2 && bl < 2
						if (s == nil) != short {
							t.Fatalf("%s cbsz %d blgp %d: shared form %v, short %v", in.Name(), cb, bl, s != nil, short)
						}
						if s == nil {
							continue
						}
						key, ok := s.Key(in, nil)
						if !ok {
							t.Fatalf("%s: no key", in.Name())
						}
						if other, dup := seen[s]; dup && other != key {
							t.Fatalf("keys %q and %q share a form", other, key)
						}
						seen[s] = key
						if again := p.SharedForm(decode950(t, f8f6f4Words(m, cb, bl, scaled, src2, 0)), 128); again != s {
							t.Fatalf("%s: two forms for one key", key)
						}
						if p.SharedForm(in, 64) == s {
							t.Fatalf("%s: one form for two AGPR bases", key)
						}
						site, err := s.Site(in, nil, rules.SharedRegs{V: regs, SPair: 90})
						if err != nil {
							t.Fatalf("%s: %v", key, err)
						}
						names, ok := s.Names(in, nil)
						if !ok {
							t.Fatalf("%s: no names", key)
						}
						for _, u := range site.Used {
							if u < 100 {
								t.Fatalf("%s: fixed v%d not from the list", key, u)
							}
							for _, nm := range names {
								if nm == u {
									t.Fatalf("%s: fixed v%d is named by the use", key, u)
								}
							}
						}
						nA, nB, cd := rules.F8F6F4Bits(cb), rules.F8F6F4Bits(bl), m*m/64
						pre := nA + nB
						if scaled {
							pre += 2
						}
						if src2 != 128 {
							pre += cd
						}
						if n := decodes(key+" pre", site.Pre); n != pre {
							t.Fatalf("%s: %d instructions before the call, want %d", key, n, pre)
						}
						if n := decodes(key+" post", site.Post); n != cd {
							t.Fatalf("%s: %d instructions after the call, want %d", key, n, cd)
						}
						body, err := s.Body(in, nil, rules.SharedRegs{V: regs, SPair: 90})
						if err != nil {
							t.Fatalf("%s: body: %v", key, err)
						}
						decodes(key+" body", body)
						if _, err := s.Site(in, nil, rules.SharedRegs{V: regs[:20], SPair: 90}); err == nil {
							t.Fatalf("%s: a site on 20 fixed registers", key)
						}
					}
				}
			}
		}
	}
	if len(seen) != 2*(2*25)+2*(25+21) {
		t.Fatalf("%d shared forms", len(seen))
	}
	if p.SharedForm(&isa.Inst{}, 128) != nil {
		t.Fatal("a shared form for an empty instruction")
	}
}
