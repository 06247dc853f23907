package wave

import "fmt"

// gfx12 VBUFFER untyped loads, stores and atomics with the gfx12 buffer
// resource (research notes §4): base w0 + w1[15:0], STRIDE w1[29:16],
// SWIZZLE_ENABLE w1[31:30], NUM_RECORDS w2, ADD_TID_ENABLE w3[23],
// OOB_SELECT w3[29:28]. The element is index*STRIDE + voffset + the
// instruction offset bytes from base + soffset (index = vaddr with idxen;
// with idxen and offen, index in vaddr and the offset in vaddr+1). Range
// checking by OOB_SELECT (an access out of range reads zero, writes and
// atomics are dropped):
//
//	0: index >= NUM_RECORDS or offset+size > STRIDE (so STRIDE 0 is never in range)
//	1: index >= NUM_RECORDS
//	2: NUM_RECORDS == 0 (no other check)
//	3: raw: index*STRIDE + offset + size > NUM_RECORDS
//
// Modes 1 and 3 follow Mesa's use; 0 and 2 are from the RDNA ISA guides'
// range-checking description and unverified on hardware. A whole access is
// checked at once (hardware checks each dword). ADD_TID_ENABLE w3[23] adds
// the lane id to the index. Swizzled resources fault as unsupported. The
// typed (format) forms are in gfx12_bufformat.go.
func bufferOp12(op memOp) func(*Wave, *Inst) error {
	return func(w *Wave, in *Inst) error {
		r, err := w.vsharp12(in)
		if err != nil {
			return err
		}
		exec := w.Exec()
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			w.Lanes++
			addr, ok := r.lane(w, in, l, uint64(op.size))
			if !ok {
				if !op.store && op.atomic == "" {
					w.loadToRegs(in.Dst, l, make([]byte, op.size), op)
				}
				continue
			}
			b, err := w.slice(spaceGlobal, addr, l, op.size, op.store || op.atomic != "")
			if err != nil {
				return err
			}
			switch {
			case op.atomic != "":
				if err := w.atomic(in, op, b, l, in.Dst, in.Dst, in.Glc); err != nil {
					return err
				}
			case op.store:
				w.storeFromRegs(in.Dst, l, b, op)
			default:
				w.loadToRegs(in.Dst, l, b, op)
			}
		}
		return nil
	}
}

// vsharp12 is a decoded gfx12 buffer resource.
type vsharp12 struct {
	base, stride, numRecords uint64
	oob                      uint32
	addTID                   bool
	format                   uint32 // FORMAT w3[17:12]
	soff                     uint64
}

// vsharp12 reads the V# of a VBUFFER instruction, rejecting swizzled
// resources.
func (w *Wave) vsharp12(in *Inst) (vsharp12, error) {
	rs := in.Src[2]
	w0, w1, w2, w3 := w.S[rs&127], w.S[(rs+1)&127], w.S[(rs+2)&127], w.S[(rs+3)&127]
	if w1>>30 != 0 {
		return vsharp12{}, fmt.Errorf("swizzled buffer resources (V# word 1 SWIZZLE_ENABLE %d) are not supported", w1>>30)
	}
	return vsharp12{
		base:       uint64(w0) | uint64(w1&0xffff)<<32,
		stride:     uint64(w1 >> 16 & 0x3fff),
		numRecords: uint64(w2),
		oob:        w3 >> 28 & 3,
		addTID:     w3>>23&1 != 0,
		format:     w3 >> 12 & 63,
		soff:       uint64(w.s32(in.Soffset, in)),
	}, nil
}

// lane returns the address of lane l's access of size bytes and whether it
// is in range. ADD_TID_ENABLE adds the lane id to the index.
func (r *vsharp12) lane(w *Wave, in *Inst, l int, size uint64) (uint64, bool) {
	index, voff := bufferIndexOffset(w, in, l)
	if r.addTID {
		index += uint64(l)
	}
	off := voff + uint64(uint32(in.Imm))
	var out bool
	switch r.oob {
	case 0:
		out = index >= r.numRecords || off+size > r.stride
	case 1:
		out = index >= r.numRecords
	case 2:
		out = r.numRecords == 0
	case 3:
		out = index*r.stride+off+size > r.numRecords
	}
	return r.base + r.soff + index*r.stride + off, !out
}

func registerGfx12Buffer() {
	for _, t := range []string{"u8", "i8", "u16", "i16", "b32", "b64", "b96", "b128", "d16_u8", "d16_i8", "d16_b16",
		"d16_hi_u8", "d16_hi_i8", "d16_hi_b16"} {
		if op, ok := mem12("buffer_load_" + t); ok {
			def12("buffer_load_"+t, bufferOp12(op))
		}
	}
	for _, t := range []string{"b8", "b16", "b32", "b64", "b96", "b128", "d16_hi_b8", "d16_hi_b16"} {
		if op, ok := mem12("buffer_store_" + t); ok {
			def12("buffer_store_"+t, bufferOp12(op))
		}
	}
	for _, t := range []string{"add_u32", "sub_u32", "and_b32", "or_b32", "xor_b32", "swap_b32", "cmpswap_b32", "min_i32",
		"min_u32", "max_i32", "max_u32", "inc_u32", "dec_u32", "add_u64", "sub_u64", "and_b64", "or_b64", "xor_b64",
		"swap_b64", "cmpswap_b64", "min_i64", "min_u64", "max_i64", "max_u64", "inc_u64", "dec_u64", "add_f32"} {
		if op, ok := mem12("buffer_atomic_" + t); ok {
			def12("buffer_atomic_"+t, bufferOp12(op))
		}
	}
}
