package verify

import (
	"encoding/binary"
	"math"
	"sort"

	"github.com/rocjitsu/rocjitsu/dbt"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/hsa/sim/mem"
	"github.com/rocjitsu/rocjitsu/loader"
)

// Bound is the largest relative error a differing word may have for a
// kernel with approximate rules to count as WithinBound: the word is
// read as an f32, as two bf16 or as two f16 halves, whichever is closest.
const Bound = 1.0 / 64

// compare compares the final images of every page either side touched
// (a page only one side materialized is compared with its initial
// content) and sets r's outcome.
func compare(r *Result, g, h *side, pcmap *dbt.PCMap, code codeNames) {
	pages := map[uint64][2][]byte{}
	for i, s := range []*side{g, h} {
		for _, p := range s.mem.PagedRegions() {
			v := pages[p.Addr]
			v[i] = p.Data
			pages[p.Addr] = v
		}
	}
	addrs := make([]uint64, 0, len(pages))
	for a := range pages {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i] < addrs[j] })
	r.Pages = len(addrs)
	written := map[uint64]bool{}
	for w := range g.writer {
		written[w] = true
	}
	for w := range h.writer {
		written[w] = true
	}
	r.WrittenWords = len(written)
	le := binary.LittleEndian
	var fill []byte
	for _, a := range addrs {
		v := pages[a]
		for i := range v {
			if v[i] == nil {
				if fill == nil {
					fill = make([]byte, mem.PageSize)
				}
				g.pager.FillPage(a, fill)
				v[i] = fill
			}
		}
		gb, hb := v[0], v[1]
		if string(gb) == string(hb) {
			continue
		}
		for off := 0; off+4 <= len(gb); off += 4 {
			gw, hw := le.Uint32(gb[off:]), le.Uint32(hb[off:])
			if gw == hw {
				continue
			}
			r.DifferingWords++
			if e := relError(gw, hw); math.IsInf(e, 0) {
				r.NonFinite = true
			} else if e > r.MaxError {
				r.MaxError = e
			}
			if len(r.Samples) < MaxSamples {
				r.Samples = append(r.Samples, Difference{Addr: a + uint64(off), Guest: gw, Host: hw})
			}
			if r.First == nil {
				addr := a + uint64(off)
				d := &Difference{Addr: addr, Guest: gw, Host: hw}
				if pc, ok := g.writer[addr]; ok {
					d.GuestPC, d.GuestInst = pc, code.guestInst(pc)
				}
				if pc, ok := h.writer[addr]; ok {
					d.HostPC, d.HostInst = pc, code.hostInst(pc)
					d.HostGuestPC, _ = pcmap.Guest(pc)
				}
				r.First = d
			}
		}
	}
	switch {
	case r.DifferingWords == 0:
		r.Outcome = Identical
	case len(r.Approximate) > 0 && !r.NonFinite && r.MaxError <= Bound:
		r.Outcome = WithinBound
	default:
		r.Outcome = Different
	}
}

// relError is the smallest relative error between two words read as one
// f32, two bf16 or two f16 values (+Inf when no reading is finite on both
// sides; two NaNs count as equal). The error is relative to the larger
// magnitude but never to less than the format's smallest normal, so that
// a last-place difference of two subnormals counts as small as it is.
func relError(a, b uint32) float64 {
	best := rel(float64(math.Float32frombits(a)), float64(math.Float32frombits(b)), 0x1p-126)
	halves := []struct {
		dec   func(uint16) float64
		floor float64
	}{{bf16, 0x1p-126}, {f16, 0x1p-14}}
	for _, h := range halves {
		e := math.Max(rel(h.dec(uint16(a)), h.dec(uint16(b)), h.floor), rel(h.dec(uint16(a>>16)), h.dec(uint16(b>>16)), h.floor))
		best = math.Min(best, e)
	}
	return best
}

func rel(x, y, floor float64) float64 {
	if x == y || math.IsNaN(x) && math.IsNaN(y) {
		// Two NaNs: sign and payload are outside every rule's bound.
		return 0
	}
	if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return math.Inf(1)
	}
	return math.Abs(x-y) / math.Max(math.Max(math.Abs(x), math.Abs(y)), floor)
}

func bf16(h uint16) float64 { return float64(math.Float32frombits(uint32(h) << 16)) }

func f16(h uint16) float64 {
	e := int(h >> 10 & 0x1f)
	m := float64(h & 0x3ff)
	var v float64
	switch e {
	case 0:
		v = math.Ldexp(m, -24)
	case 31:
		if m != 0 {
			return math.NaN()
		}
		v = math.Inf(1)
	default:
		v = math.Ldexp(1024+m, e-25)
	}
	if h>>15 != 0 {
		v = -v
	}
	return v
}

// codeNames prints the instructions at code-object offsets of the guest
// and the host objects.
type codeNames struct {
	guest, host       *loader.File
	guestISA, hostISA isa.Target
	// paired: host is another object of the guest's target (Compare),
	// not a translation.
	paired bool
}

func (c codeNames) guestInst(pc uint64) string { return printAt(c.guest, c.guestISA, pc) }
func (c codeNames) hostInst(pc uint64) string  { return printAt(c.host, c.hostISA, pc) }

// printAt disassembles the instruction at ELF virtual address pc of f.
func printAt(f *loader.File, t isa.Target, pc uint64) string {
	if f == nil {
		return ""
	}
	s := f.Section(".text")
	if s == nil || pc < s.Addr || pc-s.Addr >= uint64(len(s.Data)) {
		return ""
	}
	b := s.Data[pc-s.Addr:]
	if t == isa.GFX1200 || t == isa.GFX1201 {
		in, err := gfx12.Decode(b, pc, t)
		if err != nil {
			return ""
		}
		return gfx12.Print(&in)
	}
	in, err := gfx9.Decode(b, pc, t)
	if err != nil {
		return ""
	}
	return gfx9.Print(&in)
}
