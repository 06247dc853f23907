package instrument

import (
	"fmt"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/sqtt"
)

// Address-trace classes (Options.Addresses).
const (
	// AddrMemory traces global/flat (64-bit per lane) and buffer
	// (component protocol) operations.
	AddrMemory = 1 << iota
	// AddrLDS traces LDS operations and ds_permute/ds_bpermute indices
	// (32-bit per lane).
	AddrLDS
)

// ParseAddresses parses "memory", "lds" or "memory,lds".
func ParseAddresses(s string) (int, error) {
	v := 0
	for _, p := range strings.Split(s, ",") {
		switch strings.TrimSpace(p) {
		case "memory":
			v |= AddrMemory
		case "lds":
			v |= AddrLDS
		default:
			return 0, fmt.Errorf("instrument: --addresses %q: want memory, lds or memory,lds", s)
		}
	}
	return v, nil
}

// addrSpec says how one memory op's per-lane addresses are read.
type addrSpec struct {
	name string
	// lo and hi are the VGPRs read per lane (hi -1: a 32-bit stream).
	lo, hi int
	// saddr is the SGPR pair added to a 32-bit lo (global saddr mode),
	// -1 without.
	saddr int
	// off is the instruction's immediate offset, added per lane.
	off int32
	// Buffer: rsrc is the descriptor's first SGPR, soff the soffset
	// operand code (an SGPR number or an inline constant), voff and vindex
	// the VGPRs of the per-lane streams (-1 when absent: voffset is then
	// the immediate offset).
	buffer          bool
	rsrc            int
	soff            uint32
	voff, vindex    int
	payload, lanes  int
	idEntry         *entry
	kernel          string
	structuredIndex bool
}

// firstVGPRUse returns the first VGPR the instruction reads (its address
// operand for FLAT/GLOBAL/DS/MUBUF), and its width.
func firstVGPRUse(in *isa.Inst) (int, int) {
	for _, o := range in.Operands {
		if o.Kind == isa.KindReg && o.Class == isa.VGPR && o.Role.Uses() && !o.Role.Defines() {
			return int(o.Reg), int(o.Width)
		}
	}
	return -1, 0
}

func opKind(in *isa.Inst) string {
	switch {
	case in.Info.MemOp&isa.MemAtomic != 0:
		return "atomic"
	case in.Info.MemOp&isa.MemStore != 0:
		return "store"
	}
	return "load"
}

// addrOf classifies a memory op for address tracing; ok is false when
// the op is not traced (scratch, scalar, loads to LDS, DS ops without an
// address); err is set for a traced op whose operands cannot be read.
func addrOf(in *isa.Inst, classes, lanes int) (*addrSpec, bool, error) {
	if in.Info == nil || in.Mod.LDS {
		return nil, false, nil
	}
	n := in.Name()
	s := &addrSpec{lo: -1, hi: -1, saddr: -1, voff: -1, vindex: -1, rsrc: -1, lanes: lanes, off: in.Mod.Offset}
	switch in.Info.Mem {
	case isa.MemGlobal, isa.MemFlat:
		if classes&AddrMemory == 0 || in.Info.MemOp == 0 {
			return nil, false, nil
		}
		v, w := firstVGPRUse(in)
		if v < 0 {
			return nil, true, fmt.Errorf("%s has no VGPR address", n)
		}
		for _, o := range in.Operands {
			if o.Kind == isa.KindReg && o.Class == isa.SGPR && o.Role.Uses() && o.Width == 2 {
				s.saddr = int(o.Reg)
			}
		}
		switch {
		case s.saddr >= 0 && w == 1:
			s.lo = v
		case s.saddr < 0 && w == 2:
			s.lo, s.hi = v, v+1
		default:
			return nil, true, fmt.Errorf("%s: address of %d VGPRs with saddr %v", n, w, s.saddr >= 0)
		}
		s.name = "addr_trace_" + opKind(in)
		s.payload = 2 + 2*lanes
	case isa.MemBuffer:
		if classes&AddrMemory == 0 || in.Info.MemOp == 0 {
			return nil, false, nil
		}
		s.buffer = true
		for i, o := range in.Operands {
			if o.Kind == isa.KindReg && o.Class == isa.SGPR && o.Role.Uses() && o.Width == 4 && i+1 < len(in.Operands) {
				s.rsrc = int(o.Reg)
				so := in.Operands[i+1]
				switch {
				case so.Kind == isa.KindReg && so.Class == isa.SGPR:
					s.soff = uint32(so.Reg)
				case so.Kind == isa.KindInline && so.Imm >= 128 && so.Imm <= 192:
					s.soff = uint32(so.Imm)
				case so.Kind == isa.KindReg && so.Class == isa.Special && isa.SpecialReg(so.Reg) == isa.RegNull:
					s.soff = 0x80 // gfx12 null reads as 0: the inline constant 0
				default:
					return nil, true, fmt.Errorf("%s: soffset operand is not an SGPR or small constant", n)
				}
			}
		}
		if s.rsrc < 0 {
			return nil, true, fmt.Errorf("%s: no SGPR resource descriptor", n)
		}
		if in.Mod.Offen || in.Mod.Idxen {
			// vaddr is the VGPR operand right before srsrc (vdata, for
			// stores, comes first).
			v, w := -1, 0
			for i, o := range in.Operands {
				if i+1 < len(in.Operands) && o.Kind == isa.KindReg && o.Class == isa.VGPR && o.Role.Uses() && !o.Role.Defines() &&
					in.Operands[i+1].Kind == isa.KindReg && in.Operands[i+1].Class == isa.SGPR && in.Operands[i+1].Width == 4 {
					v, w = int(o.Reg), int(o.Width)
				}
			}
			want := 1
			if in.Mod.Offen && in.Mod.Idxen {
				want = 2
			}
			if v < 0 || w != want {
				return nil, true, fmt.Errorf("%s: vaddr of %d VGPRs, want %d", n, w, want)
			}
			switch {
			case in.Mod.Offen && in.Mod.Idxen:
				s.vindex, s.voff = v, v+1
			case in.Mod.Idxen:
				s.vindex = v
			default:
				s.voff = v
			}
		}
		s.name = "addr_trace_buffer_" + opKind(in)
		s.payload = 2 + 3 + lanes
		if s.vindex >= 0 {
			s.name = "addr_trace_struct_buffer_" + opKind(in)
			s.payload += lanes
		}
	case isa.MemLDS:
		if classes&AddrLDS == 0 || strings.Contains(n, "gws") || strings.Contains(n, "append") || strings.Contains(n, "consume") || strings.Contains(n, "ordered") || n == "ds_nop" {
			return nil, false, nil
		}
		v, w := firstVGPRUse(in)
		if v < 0 || w != 1 {
			return nil, true, fmt.Errorf("%s: no 32-bit VGPR address", n)
		}
		s.lo = v
		switch {
		case strings.HasPrefix(n, "ds_permute"):
			s.name, s.off = "addr_trace_ds_permute", 0
		case strings.HasPrefix(n, "ds_bpermute"):
			s.name, s.off = "addr_trace_ds_bpermute", 0
		default:
			s.name = "addr_trace_lds_" + opKind(in)
			if strings.Contains(n, "2") && (strings.Contains(n, "read2") || strings.Contains(n, "write2") || strings.Contains(n, "load_2") || strings.Contains(n, "store_2") || strings.Contains(n, "2st64") || strings.Contains(n, "xchg2")) {
				s.off = 0 // two offsets in element units: the base address is traced
			}
		}
		s.payload = 2 + lanes
	default:
		return nil, false, nil
	}
	return s, true, nil
}

// planAddresses puts an address trace before every qualifying op.
func (k *kplan) planAddresses(b []*isa.Inst, lanes int) error {
	for _, in := range b {
		s, ok, err := addrOf(in, k.opt.Addresses, lanes)
		if err != nil {
			return reject("kernel %s: %#x: address trace: %v", k.k.Name, in.PC, err)
		}
		if !ok {
			continue
		}
		s.idEntry = k.reg.get(fmt.Sprintf("A%x", in.PC), sqtt.KindPoint, fmt.Sprintf("%s@0x%x", s.name, in.PC), groupAddress)
		s.idEntry.payload = uint32(s.payload)
		k.add(&k.at(in.PC).rest, mark{e: s.idEntry, addr: s})
	}
	return nil
}

// addrWords appends the address block of s (header, EXEC, fixed tokens,
// per-lane readlane loops) using temporaries c, t, u.
func (k *kplan) addrWords(inst func(...uint32), lit func(uint32), pos func() int, s *addrSpec, c, t, u uint32) {
	w := k.o.w
	gfx9 := w == gfx9Words
	emitM0 := func(src uint32) { inst(w.movToM0(src)); inst(nopWord); inst(w.ttrace) }
	inst(w.movToM0(opLiteral))
	lit(sqtt.Encode(s.idEntry.id, false, false))
	inst(nopWord)
	inst(w.ttrace)
	emitM0(126) // exec_lo
	if s.lanes == 64 {
		emitM0(127)
	} else {
		emitM0(0x80)
	}
	if s.buffer {
		emitM0(uint32(s.rsrc))
		emitM0(uint32(s.rsrc + 1))
		emitM0(s.soff)
	}
	addLit := func(dst uint32, carry bool, v uint32) {
		op := uint32(0)
		if carry {
			op = 4
		}
		if c, ok := inline(v); ok {
			inst(sop2(op, dst, dst, c))
			return
		}
		if v == 0xffffffff {
			inst(sop2(op, dst, dst, 0xc1))
			return
		}
		inst(sop2(op, dst, dst, opLiteral))
		lit(v)
	}
	loop := func(body func()) {
		inst(0xbe800000 | c<<16 | 0x80) // s_mov_b32 c, 0
		top := pos()
		if gfx9 {
			inst(nopWord | 3) // the lane select was just written by SALU
		}
		body()
		inst(sop2(0, c, c, 0x81))                      // s_add_u32 c, c, 1
		inst(0xbf0a0000 | uint32(0x80+s.lanes)<<8 | c) // s_cmp_lt_u32 c, lanes
		d := (top - (pos() + 4)) / 4
		inst(k.cbrSCC1() | uint32(uint16(int16(d))))
	}
	readlane := func(dst uint32, v int) {
		inst(w.readlane(dst), uint32(256+v)|c<<9)
		if gfx9 {
			inst(nopWord | 4)
		}
	}
	off := uint32(s.off)
	offHi := uint32(0)
	if s.off < 0 {
		offHi = 0xffffffff
	}
	switch {
	case s.buffer:
		loop(func() {
			if s.voff >= 0 {
				readlane(t, s.voff)
				if off != 0 {
					addLit(t, false, off)
				}
			} else {
				inst(0xbe800000 | t<<16 | opLiteral)
				lit(off)
			}
			emitM0(t)
		})
		if s.vindex >= 0 {
			loop(func() { readlane(t, s.vindex); emitM0(t) })
		}
	case s.hi >= 0 || s.saddr >= 0:
		loop(func() {
			readlane(t, s.lo)
			if s.saddr >= 0 {
				inst(sop2(0, t, t, uint32(s.saddr)))      // s_add_u32 t, t, s[saddr]
				inst(sop2(4, u, uint32(s.saddr+1), 0x80)) // s_addc_u32 u, s[saddr+1], 0
			} else {
				readlane(u, s.hi)
			}
			if off != 0 {
				addLit(t, false, off)
				addLit(u, true, offHi)
			}
			emitM0(t)
			emitM0(u)
		})
	default:
		loop(func() {
			readlane(t, s.lo)
			if off != 0 {
				addLit(t, false, off)
			}
			emitM0(t)
		})
	}
}

// readlane is the first dword of v_readlane_b32 sdst, vN, sC.
func (w *words) readlane(sdst uint32) uint32 {
	if w == gfx9Words {
		return 0xd2890000 | sdst
	}
	return 0xd7600000 | sdst
}

func (k *kplan) cbrSCC1() uint32 {
	if k.o.w == gfx9Words {
		return 0xbf850000
	}
	return 0xbfa20000
}
