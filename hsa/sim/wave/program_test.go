package wave

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/sim/mem"
)

// movLit returns code: s_mov_b32 s10, lit (a literal: words be8a00ff, lit)
// followed by s_endpgm.
func movLit(lit uint32) []byte {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint32(b[0:], 0xbe8a00ff)
	binary.LittleEndian.PutUint32(b[4:], lit)
	binary.LittleEndian.PutUint32(b[8:], 0xbf810000)
	return b
}

// TestProgramFollowsMappings checks that the decode cache never returns an
// instruction of a region that was unmapped or replaced, without waiting
// for Invalidate (these changes are seen by the very next Fetch), and that
// code rewritten in place is seen after Invalidate.
func TestProgramFollowsMappings(t *testing.T) {
	m := mem.New()
	const at = 0x5555_0000_0000
	p := NewProgram(m, GFX942)
	lit := func(step string, want uint32) {
		t.Helper()
		for i := 0; i < 2; i++ { // decoded, then from the cache
			in, err := p.Fetch(at)
			if err != nil {
				t.Fatalf("%s: %v", step, err)
			}
			if in.Name != "s_mov_b32" || in.Lit != want {
				t.Fatalf("%s: fetched %s with literal %#x, want s_mov_b32 with %#x", step, in, in.Lit, want)
			}
		}
	}
	if err := m.Map(at, movLit(1)); err != nil {
		t.Fatal(err)
	}
	lit("first mapping", 1)
	if err := m.Unmap(at); err != nil {
		t.Fatal(err)
	}
	var f *mem.Fault
	if _, err := p.Fetch(at); !errors.As(err, &f) {
		t.Fatalf("Fetch from unmapped code = %v, want a memory fault", err)
	}
	code := movLit(2)
	if err := m.Map(at, code); err != nil {
		t.Fatal(err)
	}
	lit("other bytes at the same address", 2)
	// Unrelated changes of the address space keep the cache.
	in, _ := p.Fetch(at)
	x, err := m.Alloc(64, 0)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := p.Fetch(at); again != in {
		t.Fatal("an unrelated Alloc dropped the cached instruction")
	}
	if err := m.Free(x); err != nil {
		t.Fatal(err)
	}
	if err := m.Unmap(at); err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(code[4:], 3)
	if err := m.Map(at, code); err != nil {
		t.Fatal(err)
	}
	lit("the same bytes rewritten and mapped again", 3)
	binary.LittleEndian.PutUint32(code[4:], 4)
	lit("rewritten in place, before Invalidate", 3)
	p.Invalidate()
	lit("rewritten in place, after Invalidate", 4)
	p.Invalidate()
	if again, _ := p.Fetch(at); again.Lit != 4 {
		t.Fatal("unchanged code lost after Invalidate")
	}
}

// TestProgramLargeRegion fetches code from both ends of a region larger
// than one cache window, and from an unaligned PC.
func TestProgramLargeRegion(t *testing.T) {
	m := mem.New()
	const at = 0x5555_0000_0000
	code := make([]byte, 3*maxWindow+64)
	copy(code, movLit(5))
	copy(code[len(code)-16:], movLit(6))
	if err := m.Map(at, code); err != nil {
		t.Fatal(err)
	}
	p := NewProgram(m, GFX942)
	for i := 0; i < 3; i++ {
		for _, c := range []struct {
			pc   uint64
			want uint32
		}{{at, 5}, {at + uint64(len(code)) - 16, 6}} {
			in, err := p.Fetch(c.pc)
			if err != nil || in.Lit != c.want || in.PC != c.pc {
				t.Fatalf("Fetch(%#x) = %v, %v; want the literal %d", c.pc, in, err, c.want)
			}
		}
	}
	// An unaligned PC shares a cache slot with the dword below it: it
	// must not get that dword's instruction.
	if in, err := p.Fetch(at + 2); err == nil && in.PC != at+2 {
		t.Fatalf("Fetch(%#x) returned the instruction at %#x", uint64(at+2), in.PC)
	}
}
