// Package vlds lowers LDS storage accesses of gfx9 machine code to global
// memory accesses relative to a per-workgroup backing store (virtual LDS),
// builds the virtual-LDS sidecar entry prologue, and defines the
// .rocjitsu.lds metadata section that tells the runtime which sidecar
// descriptor implements which kernel.
//
// A lowered access uses the global "saddr" form: the 64-bit virtual LDS base
// lives in an SGPR pair, the DS address VGPR is the 32-bit unsigned offset,
// and the DS instruction offset becomes the 13-bit immediate (or is added
// into a scratch VGPR when it does not fit). A lowered access is not
// waited for where it is issued: the guest waits for DS results and
// completion with lgkmcnt, and the sidecar turns each such wait into one
// that also waits vmcnt(0) (SidecarWait), waits vmcnt(0) before s_barrier
// and s_endpgm, and before any point where a register a lowered load has
// still in flight could be reused (the caller tracks that; see
// LoadDestination). The rules relied on, for gfx942 (LLVM AMDGPUUsage,
// "Memory Model GFX942"): vector memory operations of a wavefront report
// completion in execution order, so vmcnt counts them like lgkmcnt counted
// the DS operations; the workgroup's waves run on one CU (the sidecar
// clears TG_SPLIT) and share its vector L1, so coherence between the lanes
// of a wavefront and between the waves of a workgroup needs no extra
// action beyond the waits and barriers; and that section's code sequences
// for non-atomic global loads and stores contain no wait, so a wave's
// global load after its own global store to the same address observes it
// (program order per location) without a wait in between, as a DS load
// after a DS store does. A store with more than 64 bits of data is
// followed by s_nop 1: a VALU write of its data VGPRs needs two wait
// states on gfx940 (the VMEM store-data hazard; DS stores have none, so
// the guest does not avoid it). Cross-lane DS operations that do not touch LDS
// storage (ds_swizzle, ds_permute, ds_bpermute, ds_nop) stay native; every
// other DS operation without a lowering is rejected with an error (the
// sidecar fails closed, it never keeps hardware LDS).
//
// Out-of-range LDS addresses are not bounded: hardware LDS reads of
// addresses past the allocation return zero and drops such writes, while a
// lowered access reaches the neighbouring workgroup's slice of the backing
// store. Lowering assumes in-bounds accesses.
package vlds

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
)

// Context hands out scratch VGPRs for one lowered instruction.
type Context interface {
	// TempVGPRs returns n VGPRs that are dead after the instruction and
	// not named by it.
	TempVGPRs(n int) ([]uint16, error)
	// TempVGPRRange returns the first of n consecutive such VGPRs,
	// starting at a multiple of align.
	TempVGPRRange(n, align int) (uint16, error)
}

// AddressCache is implemented by a Context that keeps, from one lowered
// instruction to the next, a scratch VGPR holding a DS address VGPR plus a
// constant, so that accesses with offsets beyond the 13-bit immediate near
// that constant need no add of their own. The Context invalidates the
// entry when the scratch or the address VGPR is written, when EXEC
// changes (the scratch holds the sum only for the lanes active when it was
// computed) and where control flow joins.
type AddressCache interface {
	// CachedAddress returns the VGPR holding addr + k, if one is known.
	CachedAddress(addr uint16) (reg uint16, k uint32, ok bool)
	// CacheAddress records that reg now holds addr + k.
	CacheAddress(addr, reg uint16, k uint32)
}

// DeadTemps is implemented by a Context that can tell whether a scratch
// VGPR is free without borrowing a live register (which costs a save and a
// restore in private memory around the access). When none is, an offset
// beyond the immediate is added into the address VGPR itself: with no
// restore when the access is a load that overwrites that register whole,
// else subtracted again right after the access (which reads its address
// when it issues), provided the access neither writes the address VGPR nor
// reads it as data.
type DeadTemps interface {
	// DeadVGPR returns a scratch VGPR that is dead after the instruction
	// and not named by it, if there is one.
	DeadVGPR() (uint16, bool)
}

// StoreHazards is implemented by a Context that places the wait states
// after a store with more than 64 bits of data itself (only where an
// instruction writing the data registers follows too closely); Lower then
// emits no s_nop after such a store.
type StoreHazards interface {
	// PlacesStoreWaitStates reports whether the Context does.
	PlacesStoreWaitStates() bool
}

// Kind says how an operation is handled in a sidecar.
type Kind uint8

// Kinds of DS operations.
const (
	// Unsupported operations reject the sidecar.
	Unsupported Kind = iota
	// Native operations do not access LDS storage and stay as they are.
	Native
	// Load, Store, Load2, Store2, Atomic and AtomicRtn are lowered.
	Load
	Store
	Load2
	Store2
	Atomic
	AtomicRtn
)

// DSOp describes one GFX9 DS opcode.
type DSOp struct {
	// Name is the DS mnemonic.
	Name string
	// Kind is the lowering class.
	Kind Kind
	// Global is the FLAT (global segment) opcode of the lowered access.
	Global uint8
	// Dwords is the data width in dwords (1 for sub-dword accesses).
	Dwords int
	// Scale multiplies offset0/offset1 of the two-address forms.
	Scale uint32
	// Cmp marks compare-and-swap (DS data order differs from global).
	Cmp bool
}

// FLAT opcodes (GFX9 encoding, bits 24:18 of the first dword).
const (
	gLoadUbyte       = 16
	gLoadSbyte       = 17
	gLoadUshort      = 18
	gLoadSshort      = 19
	gLoadDword       = 20
	gLoadDwordx2     = 21
	gLoadDwordx3     = 22
	gLoadDwordx4     = 23
	gStoreByte       = 24
	gStoreByteD16Hi  = 25
	gStoreShort      = 26
	gStoreShortD16Hi = 27
	gStoreDword      = 28
	gStoreDwordx2    = 29
	gStoreDwordx3    = 30
	gStoreDwordx4    = 31
	gLoadUbyteD16    = 32
	gLoadUbyteD16Hi  = 33
	gLoadSbyteD16    = 34
	gLoadSbyteD16Hi  = 35
	gLoadShortD16    = 36
	gLoadShortD16Hi  = 37
	gAtomicSwap      = 64
	gAtomicCmpswap   = 65
	gAtomicAdd       = 66
	gAtomicSub       = 67
	gAtomicSmin      = 68
	gAtomicUmin      = 69
	gAtomicSmax      = 70
	gAtomicUmax      = 71
	gAtomicAnd       = 72
	gAtomicOr        = 73
	gAtomicXor       = 74
	gAtomicInc       = 75
	gAtomicDec       = 76
	gAtomicX2        = 32 // added to a 32-bit atomic's opcode for its _x2 form
)

// dsOps returns the map of GFX9 DS opcodes (bits 24:17) to their handling.
// It is built on the first call; every call returns the same map.
var dsOps = sync.OnceValue(func() map[uint8]DSOp {
	m := map[uint8]DSOp{}
	defDSOps(func(op uint8, d DSOp) {
		if _, dup := m[op]; dup {
			panic(fmt.Sprintf("vlds: DS opcode %d defined twice", op))
		}
		m[op] = d
	})
	return m
})

// defDSOps defines every DS opcode's handling through def.
func defDSOps(def func(op uint8, d DSOp)) {
	atom := []struct {
		name string
		g    uint8
	}{{"add", gAtomicAdd}, {"sub", gAtomicSub}, {"", 0}, {"inc", gAtomicInc}, {"dec", gAtomicDec},
		{"min_i", gAtomicSmin}, {"max_i", gAtomicSmax}, {"min_u", gAtomicUmin}, {"max_u", gAtomicUmax},
		{"and", gAtomicAnd}, {"or", gAtomicOr}, {"xor", gAtomicXor}}
	for i, a := range atom {
		if a.name == "" {
			continue // rsub has no global form
		}
		n32, n64 := "ds_"+a.name+"_u32", "ds_"+a.name+"_u64"
		switch a.name {
		case "min_i", "max_i":
			n32, n64 = "ds_"+a.name+"32", "ds_"+a.name+"64"
		case "min_u", "max_u":
			n32, n64 = "ds_"+a.name+"32", "ds_"+a.name+"64"
		case "and", "or", "xor":
			n32, n64 = "ds_"+a.name+"_b32", "ds_"+a.name+"_b64"
		}
		rtn := func(n string) string { return n[:len(n)-len(tail(n))] + "rtn_" + tail(n) }
		def(uint8(i), DSOp{Name: n32, Kind: Atomic, Global: a.g, Dwords: 1})
		def(uint8(32+i), DSOp{Name: rtn(n32), Kind: AtomicRtn, Global: a.g, Dwords: 1})
		def(uint8(64+i), DSOp{Name: n64, Kind: Atomic, Global: a.g + gAtomicX2, Dwords: 2})
		def(uint8(96+i), DSOp{Name: rtn(n64), Kind: AtomicRtn, Global: a.g + gAtomicX2, Dwords: 2})
	}
	def(16, DSOp{Name: "ds_cmpst_b32", Kind: Atomic, Global: gAtomicCmpswap, Dwords: 1, Cmp: true})
	def(48, DSOp{Name: "ds_cmpst_rtn_b32", Kind: AtomicRtn, Global: gAtomicCmpswap, Dwords: 1, Cmp: true})
	def(80, DSOp{Name: "ds_cmpst_b64", Kind: Atomic, Global: gAtomicCmpswap + gAtomicX2, Dwords: 2, Cmp: true})
	def(112, DSOp{Name: "ds_cmpst_rtn_b64", Kind: AtomicRtn, Global: gAtomicCmpswap + gAtomicX2, Dwords: 2, Cmp: true})
	def(45, DSOp{Name: "ds_wrxchg_rtn_b32", Kind: AtomicRtn, Global: gAtomicSwap, Dwords: 1})
	def(109, DSOp{Name: "ds_wrxchg_rtn_b64", Kind: AtomicRtn, Global: gAtomicSwap + gAtomicX2, Dwords: 2})

	def(13, DSOp{Name: "ds_write_b32", Kind: Store, Global: gStoreDword, Dwords: 1})
	def(77, DSOp{Name: "ds_write_b64", Kind: Store, Global: gStoreDwordx2, Dwords: 2})
	def(222, DSOp{Name: "ds_write_b96", Kind: Store, Global: gStoreDwordx3, Dwords: 3})
	def(223, DSOp{Name: "ds_write_b128", Kind: Store, Global: gStoreDwordx4, Dwords: 4})
	def(30, DSOp{Name: "ds_write_b8", Kind: Store, Global: gStoreByte, Dwords: 1})
	def(31, DSOp{Name: "ds_write_b16", Kind: Store, Global: gStoreShort, Dwords: 1})
	def(84, DSOp{Name: "ds_write_b8_d16_hi", Kind: Store, Global: gStoreByteD16Hi, Dwords: 1})
	def(85, DSOp{Name: "ds_write_b16_d16_hi", Kind: Store, Global: gStoreShortD16Hi, Dwords: 1})
	def(14, DSOp{Name: "ds_write2_b32", Kind: Store2, Global: gStoreDword, Dwords: 1, Scale: 4})
	def(15, DSOp{Name: "ds_write2st64_b32", Kind: Store2, Global: gStoreDword, Dwords: 1, Scale: 256})
	def(78, DSOp{Name: "ds_write2_b64", Kind: Store2, Global: gStoreDwordx2, Dwords: 2, Scale: 8})
	def(79, DSOp{Name: "ds_write2st64_b64", Kind: Store2, Global: gStoreDwordx2, Dwords: 2, Scale: 512})

	def(54, DSOp{Name: "ds_read_b32", Kind: Load, Global: gLoadDword, Dwords: 1})
	def(118, DSOp{Name: "ds_read_b64", Kind: Load, Global: gLoadDwordx2, Dwords: 2})
	def(254, DSOp{Name: "ds_read_b96", Kind: Load, Global: gLoadDwordx3, Dwords: 3})
	def(255, DSOp{Name: "ds_read_b128", Kind: Load, Global: gLoadDwordx4, Dwords: 4})
	def(57, DSOp{Name: "ds_read_i8", Kind: Load, Global: gLoadSbyte, Dwords: 1})
	def(58, DSOp{Name: "ds_read_u8", Kind: Load, Global: gLoadUbyte, Dwords: 1})
	def(59, DSOp{Name: "ds_read_i16", Kind: Load, Global: gLoadSshort, Dwords: 1})
	def(60, DSOp{Name: "ds_read_u16", Kind: Load, Global: gLoadUshort, Dwords: 1})
	def(86, DSOp{Name: "ds_read_u8_d16", Kind: Load, Global: gLoadUbyteD16, Dwords: 1})
	def(87, DSOp{Name: "ds_read_u8_d16_hi", Kind: Load, Global: gLoadUbyteD16Hi, Dwords: 1})
	def(88, DSOp{Name: "ds_read_i8_d16", Kind: Load, Global: gLoadSbyteD16, Dwords: 1})
	def(89, DSOp{Name: "ds_read_i8_d16_hi", Kind: Load, Global: gLoadSbyteD16Hi, Dwords: 1})
	def(90, DSOp{Name: "ds_read_u16_d16", Kind: Load, Global: gLoadShortD16, Dwords: 1})
	def(91, DSOp{Name: "ds_read_u16_d16_hi", Kind: Load, Global: gLoadShortD16Hi, Dwords: 1})
	def(55, DSOp{Name: "ds_read2_b32", Kind: Load2, Global: gLoadDword, Dwords: 1, Scale: 4})
	def(56, DSOp{Name: "ds_read2st64_b32", Kind: Load2, Global: gLoadDword, Dwords: 1, Scale: 256})
	def(119, DSOp{Name: "ds_read2_b64", Kind: Load2, Global: gLoadDwordx2, Dwords: 2, Scale: 8})
	def(120, DSOp{Name: "ds_read2st64_b64", Kind: Load2, Global: gLoadDwordx2, Dwords: 2, Scale: 512})

	def(20, DSOp{Name: "ds_nop", Kind: Native})
	def(61, DSOp{Name: "ds_swizzle_b32", Kind: Native})
	def(62, DSOp{Name: "ds_permute_b32", Kind: Native})
	def(63, DSOp{Name: "ds_bpermute_b32", Kind: Native})
}

// tail returns the "u32"-style type suffix of a DS atomic name.
func tail(n string) string {
	for i := len(n) - 1; i >= 0; i-- {
		if n[i] == '_' {
			return n[i+1:]
		}
	}
	return n
}

// Lookup returns the handling of the DS instruction whose first dword is
// w0 (GFX9 encoding).
func Lookup(w0 uint32) (DSOp, bool) {
	d, ok := dsOps()[uint8(w0>>17)]
	return d, ok
}

// IsDS reports whether w0 is the first dword of a GFX9 DS instruction.
func IsDS(w0 uint32) bool { return w0>>26 == 0x36 }

// Host words.
const (
	waitVM0   = 0xbf8c0f70 // s_waitcnt vmcnt(0)
	nop1      = 0xbf800001 // s_nop 1
	waitLGKM0 = 0xbf8cc07f // s_waitcnt lgkmcnt(0)
	srcLit    = 255
	srcVGPR   = 256
	srcM0     = 124
	srcZero   = 128
	srcOnes   = 193
	op2AddU32 = 0x34
	op1MovB32 = 0x01
	op3MbLo   = 0x28c
	op3MbHi   = 0x28d
	op3LshlAd = 0x1fd
)

// flat encodes global_<op> in saddr form: vaddr is the 32-bit offset VGPR,
// base the SGPR pair, off the signed 13-bit offset. sc0 is the GLC bit
// (workgroup scope for loads and stores, "return" for atomics); acc
// selects AGPRs for data/vdst.
func flat(op uint8, vdst, vaddr, data, base uint16, off int32, sc0, acc bool) [2]uint32 {
	w0 := uint32(0x37)<<26 | uint32(op&0x7f)<<18 | 2<<14 | uint32(off)&0x1fff
	if sc0 {
		w0 |= 1 << 16
	}
	w1 := uint32(vaddr&0xff) | uint32(data&0xff)<<8 | uint32(base&0x7f)<<16 | uint32(vdst&0xff)<<24
	if acc {
		w1 |= 1 << 23
	}
	return [2]uint32{w0, w1}
}

// addLit encodes v_add_u32_e32 vdst, lit, vsrc (gfx9 no-carry add).
func addLit(vdst, vsrc uint16, lit uint32) []uint32 {
	return []uint32{op2AddU32<<25 | uint32(vdst&0xff)<<17 | uint32(vsrc&0xff)<<9 | srcLit, lit}
}

// mov encodes v_mov_b32_e32 vdst, vsrc.
func mov(vdst, vsrc uint16) uint32 {
	return 0x3f<<25 | uint32(vdst&0xff)<<17 | op1MovB32<<9 | uint32(srcVGPR+vsrc)
}

// vop3 encodes a VOP3a instruction without modifiers.
func vop3(op uint16, vdst uint16, src0, src1, src2 uint16) []uint32 {
	return []uint32{0xd0000000 | uint32(op&0x3ff)<<16 | uint32(vdst&0xff), uint32(src0&0x1ff) | uint32(src1&0x1ff)<<9 | uint32(src2&0x1ff)<<18}
}

func appendWords(b []byte, ws ...uint32) []byte {
	for _, w := range ws {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	return b
}

// maxImm and minImm bound the global instruction offset (13-bit signed;
// the saddr form adds it, sign-extended, to the base and the 32-bit VGPR
// offset).
const (
	maxImm = 4095
	minImm = -4096
)

// Lower returns host code for one GFX9 DS instruction (raw, 8 bytes) with
// LDS storage at the 64-bit address in SGPRs base, base+1. Native
// operations come back unchanged; unsupported ones return an error.
func Lower(ctx Context, raw []byte, base uint16) ([]byte, error) {
	if len(raw) != 8 {
		return nil, fmt.Errorf("vlds: DS instruction of %d bytes, want 8", len(raw))
	}
	w0 := binary.LittleEndian.Uint32(raw)
	w1 := binary.LittleEndian.Uint32(raw[4:])
	if !IsDS(w0) {
		return nil, fmt.Errorf("vlds: word %#08x is not a DS instruction", w0)
	}
	op := uint8(w0 >> 17)
	d, ok := dsOps()[op]
	if !ok || d.Kind == Unsupported {
		return nil, fmt.Errorf("vlds: DS opcode %d has no virtual-LDS lowering", op)
	}
	if d.Kind == Native {
		return append([]byte(nil), raw...), nil
	}
	if w0>>16&1 != 0 {
		return nil, fmt.Errorf("vlds: %s: field gds is set (GDS is not LDS storage)", d.Name)
	}
	acc := w0>>25&1 != 0
	addr, data0, data1, vdst := uint16(w1&0xff), uint16(w1>>8&0xff), uint16(w1>>16&0xff), uint16(w1>>24)
	off0, off1 := w0&0xff, w0>>8&0xff
	offset := w0 & 0xffff
	var out []uint32
	// address returns a VGPR and immediate for byte offset off.
	cache, _ := ctx.(AddressCache)
	dead, _ := ctx.(DeadTemps)
	sh, _ := ctx.(StoreHazards)
	placesNops := sh != nil && sh.PlacesStoreWaitStates()
	var restore []uint32
	address := func(off uint32) (uint16, int32, error) {
		if off <= maxImm {
			return addr, int32(off), nil
		}
		if cache != nil {
			if r, k, ok := cache.CachedAddress(addr); ok && int64(off)-int64(k) >= minImm && int64(off)-int64(k) <= maxImm {
				return r, int32(int64(off) - int64(k)), nil
			}
		}
		var t []uint16
		if dead != nil {
			if r, ok := dead.DeadVGPR(); ok {
				t = []uint16{r}
			} else if inPlace, keep := inPlaceAddress(d, acc, addr, data0, vdst); inPlace {
				out = append(out, addLit(addr, addr, off)...)
				if !keep {
					restore = addLit(addr, addr, -off)
				}
				return addr, 0, nil
			}
		}
		if t == nil {
			var err error
			if t, err = ctx.TempVGPRs(1); err != nil {
				return 0, 0, fmt.Errorf("vlds: %s offset %d: %w", d.Name, off, err)
			}
		}
		if cache == nil {
			out = append(out, addLit(t[0], addr, off)...)
			return t[0], 0, nil
		}
		// Offsets of an unrolled sequence mostly grow: the sum is taken
		// 4096 above this one, so the immediates -4096..4095 reach the
		// next 8 KiB from it.
		k := off + -minImm
		out = append(out, addLit(t[0], addr, k)...)
		cache.CacheAddress(addr, t[0], k)
		return t[0], minImm, nil
	}
	emit := func(w [2]uint32) { out = append(out, w[0], w[1]) }
	switch d.Kind {
	case Load:
		a, imm, err := address(offset)
		if err != nil {
			return nil, err
		}
		emit(flat(d.Global, vdst, a, 0, base, imm, true, acc))
	case Store:
		a, imm, err := address(offset)
		if err != nil {
			return nil, err
		}
		emit(flat(d.Global, 0, a, data0, base, imm, true, acc))
		if d.Dwords > 2 && !placesNops {
			out = append(out, nop1)
		}
	case Load2:
		a0, i0, err := address(off0 * d.Scale)
		if err != nil {
			return nil, err
		}
		a1, i1, err := address(off1 * d.Scale)
		if err != nil {
			return nil, err
		}
		n := uint16(d.Dwords)
		first := flat(d.Global, vdst, a0, 0, base, i0, true, acc)
		second := flat(d.Global, vdst+n, a1, 0, base, i1, true, acc)
		// A load must not overwrite an address VGPR that a later load
		// reads: issue the load whose destination holds it last.
		if !acc && a1 >= vdst && a1 < vdst+n {
			if a0 >= vdst+n && a0 < vdst+2*n {
				return nil, fmt.Errorf("vlds: %s: both halves overwrite the other's address", d.Name)
			}
			first, second = second, first
		}
		emit(first)
		emit(second)
	case Store2:
		a0, i0, err := address(off0 * d.Scale)
		if err != nil {
			return nil, err
		}
		a1, i1, err := address(off1 * d.Scale)
		if err != nil {
			return nil, err
		}
		emit(flat(d.Global, 0, a0, data0, base, i0, true, acc))
		emit(flat(d.Global, 0, a1, data1, base, i1, true, acc))
	case Atomic, AtomicRtn:
		a, imm, err := address(offset)
		if err != nil {
			return nil, err
		}
		data := data0
		if d.Cmp {
			// DS: data0 = compare, data1 = new value. Global: data =
			// new value, data+N = compare.
			n := d.Dwords
			t, err := ctx.TempVGPRRange(2*n, 2)
			if err != nil {
				return nil, fmt.Errorf("vlds: %s: %w", d.Name, err)
			}
			if acc {
				return nil, fmt.Errorf("vlds: %s: field acc is set (AGPR compare-and-swap operands)", d.Name)
			}
			for i := 0; i < n; i++ {
				out = append(out, mov(t+uint16(i), data1+uint16(i)), mov(t+uint16(n+i), data0+uint16(i)))
			}
			data = t
		}
		emit(flat(d.Global, vdst, a, data, base, imm, d.Kind == AtomicRtn, acc))
		if d.Cmp && d.Dwords == 2 && !placesNops {
			out = append(out, nop1) // 128 bits of data
		}
	}
	out = append(out, restore...)
	return appendWords(nil, out...), nil
}

// inPlaceAddress reports whether an access of d with address VGPR addr
// (data0, vdst its data and destination fields; acc: AGPR data) can take
// an offset added into addr itself, and whether it then needs no restore
// (keep: a load that overwrites addr whole). Two-address forms add two
// offsets and never qualify.
func inPlaceAddress(d DSOp, acc bool, addr, data0, vdst uint16) (inPlace, keep bool) {
	in := func(r, first uint16, n int) bool { return r >= first && int(r) < int(first)+n }
	switch d.Kind {
	case Load, AtomicRtn:
		if !acc && in(addr, vdst, d.Dwords) {
			// Sub-dword d16 loads keep half of the register.
			whole := d.Kind == Load && !strings.Contains(d.Name, "_d16")
			return whole, whole
		}
		if d.Kind == AtomicRtn && !acc && in(addr, data0, d.Dwords) {
			return false, false
		}
		return !d.Cmp, false
	case Store, Atomic:
		if !acc && in(addr, data0, d.Dwords) || d.Cmp {
			return false, false
		}
		return true, false
	}
	return false, false
}

// WaitVMCNT0 is the host word s_waitcnt vmcnt(0).
const WaitVMCNT0 uint32 = waitVM0

// SidecarWait returns the s_waitcnt a sidecar runs for the GFX9 s_waitcnt
// word w (SOPP simm16: vmcnt in bits 3:0 and 15:14, expcnt 6:4, lgkmcnt
// 11:8). A wait on lgkmcnt may be waiting for DS operations that are now
// lowered global accesses: it waits vmcnt(0) as well, and lgkmcnt(0),
// because the lgkm operations left (scalar loads, the native cross-lane DS
// operations) are fewer than the guest counted, so a count N above 0 could
// leave one of them in flight that the guest's count covered. Other waits
// come back unchanged. ok is false when w is not an s_waitcnt.
func SidecarWait(w uint32) (uint32, bool) {
	if w>>16 != 0xbf8c {
		return w, false
	}
	if w>>8&0xf == 0xf {
		return w, true
	}
	return w &^ (0xf | 3<<14 | 0xf<<8), true
}

// WaitsAllVM reports whether the s_waitcnt word w waits for every vector
// memory operation (vmcnt 0).
func WaitsAllVM(w uint32) bool {
	return w>>16 == 0xbf8c && w&0xf == 0 && w>>14&3 == 0
}

// WideStoreData returns the data registers of a global (FLAT, global
// segment) store or atomic of host code with more than 64 bits of data
// (w0, w1 its words): a VALU write of them needs two wait states after it
// on gfx940. n is 0 for anything else; acc selects AGPRs.
func WideStoreData(w0, w1 uint32) (first uint16, n int, acc bool) {
	if w0>>26 != 0x37 || w0>>14&3 != 2 {
		return 0, 0, false
	}
	switch w0 >> 18 & 0x7f {
	case gStoreDwordx3:
		n = 3
	case gStoreDwordx4, gAtomicCmpswap + gAtomicX2:
		n = 4
	default:
		return 0, 0, false
	}
	return uint16(w1 >> 8 & 0xff), n, w1>>23&1 != 0
}

// LoadDestination returns the registers a global (FLAT, global segment)
// instruction of host code writes when its data returns (w0, w1 its two
// words): loads, and atomics with sc0 (return). n is 0 for anything else.
// acc selects AGPRs.
func LoadDestination(w0, w1 uint32) (first uint16, n int, acc bool) {
	if w0>>26 != 0x37 || w0>>14&3 != 2 {
		return 0, 0, false
	}
	op := w0 >> 18 & 0x7f
	switch {
	case op >= gLoadUbyte && op <= gLoadDwordx4:
		n = max(1, int(op)-gLoadDword+1)
	case op >= gLoadUbyteD16 && op <= gLoadShortD16Hi:
		n = 1
	case op >= gAtomicSwap && op <= gAtomicDec && w0>>16&1 != 0:
		n = 1
	case op >= gAtomicSwap+gAtomicX2 && op <= gAtomicDec+gAtomicX2 && w0>>16&1 != 0:
		n = 2
	default:
		return 0, 0, false
	}
	return uint16(w1 >> 24), n, w1>>23&1 != 0
}
