package instrument

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/sqtt"
)

// blockMachine runs an instrumented address-trace block on a tiny scalar
// model (the SALU subset the pass emits, v_readlane_b32, s_ttracedata) and
// returns the records it writes before reaching the traced op.
type blockMachine struct {
	s      [128]uint32
	v      func(r, lane int) uint32
	m0     uint32
	scc    bool
	exec   [2]uint32
	tokens []uint32
}

func (m *blockMachine) val(t *testing.T, o isa.Operand, in *isa.Inst) uint32 {
	switch o.Kind {
	case isa.KindReg:
		switch o.Class {
		case isa.SGPR:
			return m.s[o.Reg]
		case isa.Special:
			switch isa.SpecialReg(o.Reg) {
			case isa.RegM0:
				return m.m0
			case isa.RegEXECLo:
				return m.exec[0]
			case isa.RegEXECHi:
				return m.exec[1]
			}
		}
	case isa.KindInline:
		switch {
		case o.Imm >= 128 && o.Imm <= 192:
			return uint32(o.Imm - 128)
		case o.Imm >= 193 && o.Imm <= 208:
			return uint32(int32(192 - o.Imm))
		}
	case isa.KindLiteral:
		return in.Literal
	}
	t.Fatalf("%#x: operand %+v not modelled", in.PC, o)
	return 0
}

func (m *blockMachine) set(o isa.Operand, v uint32) {
	if o.Class == isa.Special && isa.SpecialReg(o.Reg) == isa.RegM0 {
		m.m0 = v
		return
	}
	m.s[o.Reg] = v
}

// run executes from is[i] until an instruction outside the subset and
// returns its index.
func (m *blockMachine) run(t *testing.T, is []isa.Inst, i int) int {
	at := map[uint64]int{}
	for j, in := range is {
		at[in.PC] = j
	}
	for steps := 0; ; steps++ {
		if steps > 100000 {
			t.Fatal("address block does not terminate")
		}
		in := &is[i]
		o := in.Operands
		switch in.Name() {
		case "s_mov_b32":
			m.set(o[0], m.val(t, o[1], in))
		case "s_add_u32", "s_add_co_u32":
			a, b := m.val(t, o[1], in), m.val(t, o[2], in)
			m.set(o[0], a+b)
			m.scc = uint64(a)+uint64(b) > 0xffffffff
		case "s_addc_u32", "s_add_co_ci_u32":
			a, b := m.val(t, o[1], in), m.val(t, o[2], in)
			c := uint64(0)
			if m.scc {
				c = 1
			}
			m.set(o[0], uint32(uint64(a)+uint64(b)+c))
			m.scc = uint64(a)+uint64(b)+c > 0xffffffff
		case "s_cmp_lt_u32":
			m.scc = m.val(t, o[0], in) < m.val(t, o[1], in)
		case "s_cmp_lg_u32":
			m.scc = m.val(t, o[0], in) != m.val(t, o[1], in)
		case "s_cselect_b32":
			if m.scc {
				m.set(o[0], m.val(t, o[1], in))
			} else {
				m.set(o[0], m.val(t, o[2], in))
			}
		case "v_readlane_b32":
			m.set(o[0], m.v(int(o[1].Reg), int(m.val(t, o[2], in))))
		case "s_nop":
		case "s_ttracedata":
			m.tokens = append(m.tokens, m.m0)
		case "s_cbranch_scc1":
			if m.scc {
				tgt, _ := in.BranchTarget()
				i = at[tgt]
				continue
			}
		default:
			return i
		}
		i++
	}
}

// TestAddressBlocks runs every address block of a crafted kernel (global
// with a VGPR pair and with saddr, buffer offen and idxen+offen, LDS with
// an offset, ds_bpermute) on the model and compares the records with the
// seed's framing: header, EXEC lo/hi, fixed buffer tokens, then per-lane
// values; the count equals the R: row.
func TestAddressBlocks(t *testing.T) {
	for _, tc := range []struct {
		mcpu  string
		lanes int
		src   string
	}{
		{"gfx942", 64, `
global_load_dword v1, v[2:3], off offset:16
global_load_dword v1, v4, s[6:7] offset:-8
buffer_load_dword v1, v5, s[8:11], s3 offen offset:4
buffer_store_dword v1, v[6:7], s[8:11], 0 idxen offen
ds_read_b32 v1, v2 offset:8
ds_bpermute_b32 v1, v2, v3
s_endpgm
`},
		{"gfx1201", 32, `
global_load_b32 v1, v[2:3], off offset:16
global_load_b32 v1, v4, s[6:7] offset:-8
buffer_load_b32 v1, v5, s[8:11], s3 offen offset:4
ds_load_b32 v1, v2 offset:8
ds_bpermute_b32 v1, v2, v3
s_endpgm
`},
	} {
		obj := build(t, tc.mcpu, tc.src)
		src := insts(t, obj)
		res, err := Instrument(obj, Options{Addresses: AddrMemory | AddrLDS})
		if err != nil {
			t.Fatal(err)
		}
		fm := sqtt.ParseFuncmap(res.Funcmap)
		if fm.WaveSize != uint32(tc.lanes) || len(fm.Diagnostics) > 0 {
			t.Fatalf("%s: W:%d %v", tc.mcpu, fm.WaveSize, fm.Diagnostics)
		}
		out := insts(t, res.Object)
		vreg := func(r, lane int) uint32 { return uint32(r)<<20 | uint32(lane)*4 | 0x100 }
		for si, site := range res.Sites {
			in := src[si]
			m := &blockMachine{v: vreg, exec: [2]uint32{0xfff0000f, 0x0ff000f0}}
			for r := range m.s {
				m.s[r] = 0xfffffff0 - uint32(r)*16 // forces carries in saddr adds
			}
			start := -1
			hdr := site.Values[0]
			for j, x := range out {
				if x.Name() == "s_mov_b32" && x.HasLiteral && x.Literal == hdr {
					start = j
				}
			}
			if start < 0 {
				t.Fatalf("%s: no header %#x", tc.mcpu, hdr)
			}
			end := m.run(t, out, start)
			if out[end].Name() != in.Name() {
				t.Fatalf("%s: block of %s ends at %s", tc.mcpu, in.Name(), out[end].Name())
			}
			e, _ := fm.Lookup(hdr >> 2)
			if uint32(len(m.tokens)) != 1+e.ExtraPayloadCount || uint32(site.Payload) != e.ExtraPayloadCount {
				t.Fatalf("%s %s: %d records, R: says %d+1", tc.mcpu, e.Name, len(m.tokens), e.ExtraPayloadCount)
			}
			hi := m.exec[1]
			if tc.lanes == 32 {
				hi = 0
			}
			want := []uint32{hdr, m.exec[0], hi}
			s := func(r int) uint32 { return 0xfffffff0 - uint32(r)*16 }
			for lane := 0; lane < tc.lanes; lane++ {
				switch {
				case strings.HasPrefix(in.Name(), "global") && si == 0:
					a := uint64(vreg(3, lane))<<32 | uint64(vreg(2, lane))
					a += 16
					want = append(want, uint32(a), uint32(a>>32))
				case strings.HasPrefix(in.Name(), "global"):
					a := uint64(s(7))<<32 | uint64(s(6))
					a += uint64(vreg(4, lane))
					a -= 8
					want = append(want, uint32(a), uint32(a>>32))
				case strings.HasPrefix(in.Name(), "buffer_load"):
					if lane == 0 {
						want = append(want, s(8), s(9), s(3))
					}
					want = append(want, vreg(5, lane)+4)
				case strings.HasPrefix(in.Name(), "buffer_store"):
					if lane == 0 {
						want = append(want, s(8), s(9), 0)
					}
					want = append(want, vreg(7, lane))
				case strings.HasPrefix(in.Name(), "ds_bpermute"):
					want = append(want, vreg(2, lane))
				default:
					want = append(want, vreg(2, lane)+8)
				}
			}
			if strings.HasPrefix(in.Name(), "buffer_store") {
				for lane := 0; lane < tc.lanes; lane++ {
					want = append(want, vreg(6, lane))
				}
			}
			// The decoder's protocol reads the same block.
			name, _, _ := strings.Cut(e.Name, "@")
			p, ok := sqtt.AddressProtocolFor(name)
			if !ok || p.PayloadWords(tc.lanes) != int(e.ExtraPayloadCount) {
				t.Errorf("%s: protocol %+v for %d payload words", e.Name, p, e.ExtraPayloadCount)
			} else if blk, err := sqtt.DecodeAddressBlock(p, tc.lanes, m.tokens[1:]); err != nil || len(blk.Lanes) == 0 {
				t.Errorf("%s: decoder: %v %+v", e.Name, err, blk)
			}
			if fmt.Sprint(m.tokens) != fmt.Sprint(want) {
				t.Errorf("%s %s (%s):\n got %x\nwant %x", tc.mcpu, in.Name(), e.Name, m.tokens, want)
			}
		}
	}
}
