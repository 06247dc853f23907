package vlds

import (
	"encoding/binary"
	"fmt"
)

// LDS DMA: MUBUF loads with the lds bit and global_load_lds_* write each
// active lane's data to LDS at (M0 & 0x3ffff) + instruction offset +
// lane * max(size, 4). The lowering loads into a scratch VGPR as the plain
// load would (sub-dword loads zero- or sign-extend to the dword LDS
// receives), computes the lane's LDS address while the load is in flight,
// waits and stores the dword to the backing store. The store is not waited for: the guest waits for
// LDS DMA with vmcnt, which counts the store, the last vector memory
// operation of the lowering, in the load's place.

// LaneAddressCache is implemented by a Context that keeps, from one LDS
// DMA lowering to the next, the VGPR holding each lane's backing-store
// offset (M0 & 0x3ffff) + lane*4, so that a run of DMA loads with one M0
// computes it once (the instruction offsets go into the store's
// immediate). The Context invalidates it where M0, EXEC or the VGPR is
// written and where control flow joins.
//
// It also keeps the VGPR holding each lane's ID (which depends on EXEC
// only), so that a DMA load after a change of M0 needs two instructions
// for its lane offsets instead of four.
type LaneAddressCache interface {
	// CachedLaneAddress returns the VGPR, if one is known.
	CachedLaneAddress() (reg uint16, ok bool)
	// CacheLaneAddress records that reg now holds the lane addresses.
	CacheLaneAddress(reg uint16)
	// CachedLaneID returns the VGPR holding the lane IDs, if one is
	// known.
	CachedLaneID() (reg uint16, ok bool)
	// CacheLaneID records that reg now holds the lane IDs.
	CacheLaneID(reg uint16)
}

// DeferredStores is implemented by a Context that can issue the store of
// an LDS DMA lowering later, after further DMA loads, behind one wait for
// all of them (a run of DMA loads then waits once instead of once per
// load). DeferStore returns false when it cannot; the lowering then waits
// and stores itself. A Context that accepts keeps the data and lane VGPRs
// unchanged and EXEC as it is until it has issued the stores, and issues
// them (after s_waitcnt vmcnt(0)) before anything that could observe or
// need them.
type DeferredStores interface {
	DeferStore(store [2]uint32, data, lane uint16) bool
}

// MUBUF and FLAT opcodes of the LDS DMA forms gfx942 runs natively.
const (
	mubufLoadUbyte  = 16
	mubufLoadDword  = 20
	globalLDSUbyte  = 38 // global_load_lds_ubyte .. _dword are 38..42
	globalLDSDword  = 42
	op2LshlrevB32   = 0x12
	op3BfeU32       = 0x1c8
	inlineInt18     = 128 + 18
	inlineInt2      = 128 + 2
	mubufMajor      = 0x38
	flatMajor       = 0x37
	mubufLDSBit     = 1 << 16
	mubufOffsetMask = 0xfff
)

// IsLDSDMA reports whether the instruction whose first dword is w0 is a
// load-to-LDS form this package lowers (MUBUF ubyte..dword with the lds bit,
// global_load_lds_ubyte..dword). Wider gfx950 forms are expanded by the
// translator's rules into a plain load and a DS store first.
func IsLDSDMA(w0 uint32) bool {
	switch w0 >> 26 {
	case mubufMajor:
		op := w0 >> 18 & 0x7f
		return w0&mubufLDSBit != 0 && op >= mubufLoadUbyte && op <= mubufLoadDword
	case flatMajor:
		op := w0 >> 18 & 0x7f
		return w0>>14&3 == 2 && op >= globalLDSUbyte && op <= globalLDSDword
	}
	return false
}

// TouchesLDS reports whether a host instruction's first dword names an
// operation that accesses LDS storage (a DS operation that is not native
// in a sidecar, or an LDS DMA load, including the forms this package
// cannot lower: MUBUF stores/atomics or wider loads with the lds bit).
func TouchesLDS(w0 uint32) bool {
	switch {
	case IsDS(w0):
		d, ok := Lookup(w0)
		return !ok || d.Kind != Native
	case w0>>26 == mubufMajor:
		return w0&mubufLDSBit != 0
	case w0>>26 == flatMajor && w0>>14&3 == 2:
		op := w0 >> 18 & 0x7f
		return op >= globalLDSUbyte && op <= globalLDSDword || w0>>13&1 != 0
	}
	return false
}

// LowerLDSDMA returns host code for one LDS DMA load (raw, 8 bytes) with
// LDS storage at SGPRs base, base+1.
func LowerLDSDMA(ctx Context, raw []byte, base uint16) ([]byte, error) {
	if len(raw) != 8 {
		return nil, fmt.Errorf("vlds: LDS DMA instruction of %d bytes, want 8", len(raw))
	}
	w0 := binary.LittleEndian.Uint32(raw)
	w1 := binary.LittleEndian.Uint32(raw[4:])
	if !IsLDSDMA(w0) {
		return nil, fmt.Errorf("vlds: word %#08x is not a lowerable LDS DMA load", w0)
	}
	cache, _ := ctx.(LaneAddressCache)
	lane, cached := uint16(0), false
	id, idCached := uint16(0), false
	if cache != nil {
		lane, cached = cache.CachedLaneAddress()
		id, idCached = cache.CachedLaneID()
	}
	n := 3
	switch {
	case cached:
		n = 1
	case idCached:
		n = 2
	}
	t, err := ctx.TempVGPRs(n)
	if err != nil {
		return nil, fmt.Errorf("vlds: LDS DMA load: %w", err)
	}
	data, m0 := t[0], uint16(0)
	switch {
	case cached:
	case idCached:
		lane = t[1]
	default:
		id, lane, m0 = t[1], t[1], t[2]
	}
	var load0, load1 uint32
	var off uint32
	if w0>>26 == mubufMajor {
		if w1>>23&1 != 0 {
			return nil, fmt.Errorf("vlds: MUBUF LDS DMA: field acc/tfe is set")
		}
		load0 = w0 &^ mubufLDSBit
		load1 = w1&^(0xff<<8) | uint32(data)<<8
		off = w0 & mubufOffsetMask
	} else {
		imm := int32(w0<<19) >> 19
		if imm < 0 {
			return nil, fmt.Errorf("vlds: global_load_lds: negative offset %d", imm)
		}
		if w1>>23&1 != 0 {
			return nil, fmt.Errorf("vlds: global_load_lds: field acc is set")
		}
		op := w0>>18&0x7f - globalLDSUbyte + gLoadUbyte
		load0 = w0&^(0x7f<<18) | op<<18
		load1 = w1&^(0xff<<24) | uint32(data)<<24
		off = uint32(imm) & 0xfff
	}
	// The lane offsets do not depend on the data: they are computed
	// while the load is in flight.
	out := []uint32{load0, load1}
	switch {
	case cached:
	case idCached:
		// lane = (M0 & 0x3ffff) + id*4.
		out = append(out, vop3(op3BfeU32, lane, srcM0, srcZero, inlineInt18)...)
		out = append(out, vop3(op3LshlAd, lane, srcVGPR+id, inlineInt2, srcVGPR+lane)...)
		cache.CacheLaneAddress(lane)
	default:
		if dead, ok := ctx.(DeadTemps); ok && cache != nil {
			// The lane IDs stay in their own VGPR for the next M0 when
			// one more is dead.
			if r, ok := dead.DeadVGPR(); ok {
				lane = r
			}
		}
		out = append(out, vop3(op3MbLo, id, srcOnes, srcZero, 0)...)
		out = append(out, vop3(op3MbHi, id, srcOnes, srcVGPR+id, 0)...)
		out = append(out, vop3(op3BfeU32, m0, srcM0, srcZero, inlineInt18)...)
		out = append(out, vop3(op3LshlAd, lane, srcVGPR+id, inlineInt2, srcVGPR+m0)...)
		if cache != nil {
			if lane != id {
				cache.CacheLaneID(id)
			}
			cache.CacheLaneAddress(lane)
		}
	}
	st := flat(gStoreDword, 0, lane, data, base, int32(off), true, false)
	if ds, ok := ctx.(DeferredStores); ok && ds.DeferStore(st, data, lane) {
		return appendWords(nil, out...), nil
	}
	out = append(out, waitVM0, st[0], st[1])
	return appendWords(nil, out...), nil
}
