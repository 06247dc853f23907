package gfx950gfx12

import (
	"fmt"
	"strings"
	"sync"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/dbt/vlds"
	"github.com/rocjitsu/rocjitsu/loader/kd"
)

// Virtual LDS on gfx12 (pair.VirtualLDS): a sidecar body is the pair's
// normal translation whose host DS storage operations are rewritten into
// global memory operations in saddr form: the 64-bit virtual_lds_base in
// an SGPR pair, the DS address VGPR as the 32-bit unsigned offset and the
// DS offset as the 24-bit signed IOFFSET (a 16-bit DS offset, or 255 times
// the two-address scale, always fits, so no scratch VGPR is needed for the
// address). Each lowered access is followed by s_wait_loadcnt 0 (loads,
// returning atomics) or s_wait_storecnt 0 (stores, atomics without return),
// so it has completed before the next instruction, which preserves the
// guest's DS ordering conservatively (its s_wait_dscnt waits then find
// nothing outstanding). The accesses use the default cache policy (TH_RT,
// SCOPE_CU): the sidecar descriptor runs in CU mode, where a workgroup's
// waves share one CU's caches, which is workgroup scope. Floating-point
// DS atomics, ds_append/ds_consume, GWS and parameter loads are rejected
// (no rule proves their global form equal).

// dsNative are the gfx12 DS operations that do not touch LDS storage.
var dsNative = map[string]bool{
	"ds_nop": true, "ds_swizzle_b32": true, "ds_permute_b32": true,
	"ds_bpermute_b32": true, "ds_bpermute_fi_b32": true,
}

// dsClass is how one gfx12 DS storage operation is lowered.
type dsClass uint8

const (
	dsLoad dsClass = iota + 1
	dsStore
	dsLoad2
	dsStore2
	dsAtomic
)

// dsLowering is the global form of one DS storage operation.
type dsLowering struct {
	class  dsClass
	global string
	// dwords is the data width of one access (1 for sub-dword ones).
	dwords int
	// scale multiplies offset0/offset1 of the two-address forms.
	scale int32
	// ret is a returning atomic; cmp a compare-and-swap.
	ret, cmp bool
}

// dsLowerings returns the map of the gfx12 DS mnemonics with a global form.
// It is built on the first call; every call returns the same map.
var dsLowerings = sync.OnceValue(func() map[string]dsLowering {
	m := map[string]dsLowering{}
	for _, w := range []struct {
		t string
		n int
	}{{"b32", 1}, {"b64", 2}, {"b96", 3}, {"b128", 4}} {
		m["ds_load_"+w.t] = dsLowering{class: dsLoad, global: "global_load_" + w.t, dwords: w.n}
		m["ds_store_"+w.t] = dsLowering{class: dsStore, global: "global_store_" + w.t, dwords: w.n}
	}
	for _, t := range []string{"u8", "i8", "u16", "i16"} {
		m["ds_load_"+t] = dsLowering{class: dsLoad, global: "global_load_" + t, dwords: 1}
	}
	for ds, g := range map[string]string{
		"ds_load_u8_d16": "global_load_d16_u8", "ds_load_u8_d16_hi": "global_load_d16_hi_u8",
		"ds_load_i8_d16": "global_load_d16_i8", "ds_load_i8_d16_hi": "global_load_d16_hi_i8",
		"ds_load_u16_d16": "global_load_d16_b16", "ds_load_u16_d16_hi": "global_load_d16_hi_b16",
	} {
		m[ds] = dsLowering{class: dsLoad, global: g, dwords: 1}
	}
	for ds, g := range map[string]string{
		"ds_store_b8": "global_store_b8", "ds_store_b16": "global_store_b16",
		"ds_store_b8_d16_hi": "global_store_d16_hi_b8", "ds_store_b16_d16_hi": "global_store_d16_hi_b16",
	} {
		m[ds] = dsLowering{class: dsStore, global: g, dwords: 1}
	}
	for _, w := range []struct {
		t string
		n int
	}{{"b32", 1}, {"b64", 2}} {
		s := int32(4 * w.n)
		m["ds_load_2addr_"+w.t] = dsLowering{class: dsLoad2, global: "global_load_" + w.t, dwords: w.n, scale: s}
		m["ds_load_2addr_stride64_"+w.t] = dsLowering{class: dsLoad2, global: "global_load_" + w.t, dwords: w.n, scale: 64 * s}
		m["ds_store_2addr_"+w.t] = dsLowering{class: dsStore2, global: "global_store_" + w.t, dwords: w.n, scale: s}
		m["ds_store_2addr_stride64_"+w.t] = dsLowering{class: dsStore2, global: "global_store_" + w.t, dwords: w.n, scale: 64 * s}
	}
	// Integer atomics: same operation, same operand order, same result.
	for _, a := range []string{"add_u", "sub_u", "inc_u", "dec_u", "min_i", "max_i", "min_u", "max_u", "and_b", "or_b", "xor_b"} {
		for _, w := range []struct {
			bits string
			n    int
		}{{"32", 1}, {"64", 2}} {
			op, ty := a[:len(a)-2], a[len(a)-1:]+w.bits
			m["ds_"+op+"_"+ty] = dsLowering{class: dsAtomic, global: "global_atomic_" + op + "_" + ty, dwords: w.n}
			m["ds_"+op+"_rtn_"+ty] = dsLowering{class: dsAtomic, global: "global_atomic_" + op + "_" + ty, dwords: w.n, ret: true}
		}
	}
	for _, w := range []struct {
		t string
		n int
	}{{"b32", 1}, {"b64", 2}} {
		m["ds_storexchg_rtn_"+w.t] = dsLowering{class: dsAtomic, global: "global_atomic_swap_" + w.t, dwords: w.n, ret: true}
		m["ds_cmpstore_"+w.t] = dsLowering{class: dsAtomic, global: "global_atomic_cmpswap_" + w.t, dwords: w.n, cmp: true}
		m["ds_cmpstore_rtn_"+w.t] = dsLowering{class: dsAtomic, global: "global_atomic_cmpswap_" + w.t, dwords: w.n, cmp: true, ret: true}
	}
	return m
})

// touchesLDS reports whether a gfx12 mnemonic names an operation on LDS
// storage.
func touchesLDS(m string) bool {
	return strings.HasPrefix(m, "ds_") && !dsNative[m] || strings.Contains(m, "_lds")
}

// TouchesLDS implements pair.VirtualLDS: h accesses LDS storage, or does
// not decode (LowerLDS then reports the error).
func (Pair) TouchesLDS(h []byte) bool {
	in, err := gfx12.Decode(h, 0, isa.GFX1201|isa.Wave64)
	if err != nil || int(in.Size) != len(h) {
		return true
	}
	return touchesLDS(gfx12.Mnemonic(&in))
}

// LowerLDS implements pair.VirtualLDS for one gfx12 host instruction h.
func (Pair) LowerLDS(ctx vlds.Context, h []byte, base uint16) ([]byte, bool, error) {
	in, err := gfx12.Decode(h, 0, isa.GFX1201|isa.Wave64)
	if err != nil {
		return nil, false, fmt.Errorf("vlds: gfx12 host instruction does not decode: %w", err)
	}
	if int(in.Size) != len(h) {
		return nil, false, fmt.Errorf("vlds: gfx12 host instruction of %d bytes decodes as %d", len(h), in.Size)
	}
	m := gfx12.Mnemonic(&in)
	if !touchesLDS(m) {
		return h, false, nil
	}
	l, ok := dsLowerings()[m]
	if !ok {
		return nil, false, fmt.Errorf("vlds: %s accesses LDS and has no gfx12 virtual-LDS lowering", m)
	}
	out, err := lowerDS(ctx, &in, m, l, base)
	if err != nil {
		return nil, false, fmt.Errorf("vlds: %s: %w", m, err)
	}
	return out, true, nil
}

// lowerDS builds the global form of one decoded DS storage operation.
func lowerDS(ctx vlds.Context, in *isa.Inst, m string, l dsLowering, base uint16) ([]byte, error) {
	ops := in.Operands
	reg := func(i int) (isa.Operand, error) {
		if i >= len(ops) || ops[i].Kind != isa.KindReg || ops[i].Class != isa.VGPR {
			return isa.Operand{}, fmt.Errorf("operand %d is not a VGPR", i)
		}
		return ops[i], nil
	}
	saddr := sr(base, 2)
	mem := func(mnem string, dst *isa.Operand, addr isa.Operand, data *isa.Operand, off int32, ret bool) host {
		h := host{mnem: mnem, ret: ret}
		if dst != nil {
			h.ops = append(h.ops, *dst)
		}
		h.ops = append(h.ops, addr)
		if data != nil {
			h.ops = append(h.ops, *data)
		}
		h.ops = append(h.ops, saddr)
		h.mod.Offset = off
		return h
	}
	loadWait := host{mnem: "s_wait_loadcnt", ops: []isa.Operand{imm(0)}}
	storeWait := host{mnem: "s_wait_storecnt", ops: []isa.Operand{imm(0)}}
	off := in.Mod.Offset
	switch l.class {
	case dsLoad:
		// ds_load vdst, addr
		dst, err := reg(0)
		if err != nil {
			return nil, err
		}
		a, err := reg(1)
		if err != nil {
			return nil, err
		}
		return seq(mem(l.global, &dst, a, nil, off, false), loadWait)
	case dsStore:
		// ds_store addr, data
		a, err := reg(0)
		if err != nil {
			return nil, err
		}
		d, err := reg(1)
		if err != nil {
			return nil, err
		}
		return seq(mem(l.global, nil, a, &d, off, false), storeWait)
	case dsLoad2:
		// ds_load_2addr vdst(2n), addr offset0 offset1
		dst, err := reg(0)
		if err != nil {
			return nil, err
		}
		a, err := reg(1)
		if err != nil {
			return nil, err
		}
		n := uint16(l.dwords)
		if int(dst.Width) != 2*l.dwords {
			return nil, fmt.Errorf("destination of %d dwords, want %d", dst.Width, 2*l.dwords)
		}
		o0, o1 := off&0xff*l.scale, off>>8&0xff*l.scale
		d0, d1 := vr(dst.Reg, uint8(n)), vr(dst.Reg+n, uint8(n))
		first, second := mem(l.global, &d0, a, nil, o0, false), mem(l.global, &d1, a, nil, o1, false)
		// The first load must not overwrite the address the second reads.
		if a.Reg >= dst.Reg && a.Reg < dst.Reg+n {
			first, second = second, first
		}
		return seq(first, second, loadWait)
	case dsStore2:
		// ds_store_2addr addr, data0, data1 offset0 offset1
		a, err := reg(0)
		if err != nil {
			return nil, err
		}
		d0, err := reg(1)
		if err != nil {
			return nil, err
		}
		d1, err := reg(2)
		if err != nil {
			return nil, err
		}
		o0, o1 := off&0xff*l.scale, off>>8&0xff*l.scale
		return seq(mem(l.global, nil, a, &d0, o0, false), mem(l.global, nil, a, &d1, o1, false), storeWait)
	case dsAtomic:
		// ds_<op>[_rtn] [vdst,] addr, data0[, data1]
		i := 0
		var dst *isa.Operand
		if l.ret {
			d, err := reg(0)
			if err != nil {
				return nil, err
			}
			dst, i = &d, 1
		}
		a, err := reg(i)
		if err != nil {
			return nil, err
		}
		data, err := reg(i + 1)
		if err != nil {
			return nil, err
		}
		var hs []host
		if l.cmp {
			// gfx12 DS: data0 = new value, data1 = compare; the global
			// form reads {new value, compare} from one register range.
			d1, err := reg(i + 2)
			if err != nil {
				return nil, err
			}
			n := uint16(l.dwords)
			if d1.Reg != data.Reg+n {
				t, err := ctx.TempVGPRRange(2*l.dwords, 2)
				if err != nil {
					return nil, err
				}
				for j := uint16(0); j < n; j++ {
					hs = append(hs,
						host{mnem: "v_mov_b32_e32", ops: []isa.Operand{vr(t+j, 1), vr(data.Reg+j, 1)}},
						host{mnem: "v_mov_b32_e32", ops: []isa.Operand{vr(t+n+j, 1), vr(d1.Reg+j, 1)}})
				}
				data = vr(t, uint8(2*n))
			} else {
				data = vr(data.Reg, uint8(2*n))
			}
		}
		hs = append(hs, mem(l.global, dst, a, &data, off, l.ret))
		if l.ret {
			hs = append(hs, loadWait)
		} else {
			hs = append(hs, storeWait)
		}
		return seq(hs...)
	}
	return nil, fmt.Errorf("no lowering class")
}

// SidecarPrologue implements pair.VirtualLDS: the gfx12 encoding of the
// sidecar entry prologue (vlds.PrologueSpec),
//
//	virtual_lds_base = backing_base + id_x*stride_x + id_y*stride_y + id_z*stride_z
//
// with 64-bit products and the kernarg pointer pair restored to the
// original kernarg segment. The workgroup ids are read where gfx12
// delivers them: X in TTMP9, Y in TTMP7 (its low 16 bits when Z is
// enabled) and Z in TTMP7[31:16], for the dimensions spec.WorkgroupID
// enables (the SGPR numbers there are the guest's, which the pair's own
// prologue fills after this one). An extracted id goes to the stride
// register of a dimension already added (Temps[0] after X).
func (Pair) SidecarPrologue(p vlds.PrologueSpec) ([]byte, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	w := p.Wrapper
	ka := sr(p.Kernarg, 2)
	load := func(dst isa.Operand, mnem string, at uint32) host {
		h := host{mnem: mnem, ops: []isa.Operand{dst, ka, imm(int64(at))}}
		h.mod.Offset = int32(at)
		return h
	}
	hs := []host{
		load(sr(p.Base, 2), "s_load_b64", w.State),
		load(sr(p.Temps[0], 2), "s_load_b64", w.State+8),
		load(sr(p.Temps[2], 1), "s_load_b32", w.State+16),
		load(ka, "s_load_b64", w.OrigPtr),
		{mnem: "s_wait_kmcnt", ops: []isa.Operand{imm(0)}},
	}
	stride := [3]uint16{p.Temps[0], p.Temps[1], p.Temps[2]}
	hi := sr(p.Temps[3], 1)
	z := p.WorkgroupID[2] >= 0
	for d, g := range p.WorkgroupID {
		if g < 0 {
			continue
		}
		var id isa.Operand
		switch {
		case d == 0:
			id = ttmp(9)
		case d == 1 && !z:
			id = ttmp(7)
		case d == 1:
			if p.WorkgroupID[0] < 0 {
				return nil, fmt.Errorf("vlds: gfx12 prologue: workgroup id Y and Z without X (no free register for the extracted id)")
			}
			id = sr(p.Temps[0], 1)
			hs = append(hs, host{mnem: "s_and_b32", ops: []isa.Operand{id, ttmp(7), lit(0xffff)}})
		default:
			if p.WorkgroupID[0] < 0 {
				return nil, fmt.Errorf("vlds: gfx12 prologue: workgroup id Z without X (no free register for the extracted id)")
			}
			id = sr(p.Temps[0], 1)
			hs = append(hs, host{mnem: "s_lshr_b32", ops: []isa.Operand{id, ttmp(7), inl(16)}})
		}
		s := sr(stride[d], 1)
		hs = append(hs,
			host{mnem: "s_mul_hi_u32", ops: []isa.Operand{hi, s, id}},
			host{mnem: "s_mul_i32", ops: []isa.Operand{s, s, id}},
			host{mnem: "s_add_co_u32", ops: []isa.Operand{sr(p.Base, 1), sr(p.Base, 1), s}},
			host{mnem: "s_add_co_ci_u32", ops: []isa.Operand{sr(p.Base+1, 1), sr(p.Base+1, 1), hi}})
	}
	out, err := seq(hs...)
	if err != nil {
		return nil, fmt.Errorf("vlds: gfx12 prologue: %w", err)
	}
	return out, nil
}

// SidecarSGPRs implements pair.VirtualLDS: gfx12 allocates every SGPR to
// each wave (the descriptor has no SGPR count), so the sidecar's top SGPRs
// only have to be addressable.
func (Pair) SidecarSGPRs(d *kd.Descriptor, top int) error {
	if top > 106 {
		return fmt.Errorf("the sidecar needs s%d, beyond the 106 SGPRs of gfx12", top-1)
	}
	return nil
}

var _ pair.VirtualLDS = Pair{}
