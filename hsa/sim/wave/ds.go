package wave

import (
	"fmt"
	"math"
	"strings"
)

func dsAddr(w *Wave, in *Inst, l int) uint64 {
	return uint64(w.vreg(in.Src[0])[l])
}

func registerDs() {
	sizes := map[string]int{"b8": 1, "u8": 1, "i8": 1, "b16": 2, "u16": 2, "i16": 2, "b32": 4, "b64": 8, "b96": 12, "b128": 16}
	for _, n := range namesDS {
		if n == "" {
			continue
		}
		switch {
		case strings.HasPrefix(n, "ds_write2"), strings.HasPrefix(n, "ds_read2"):
			st64 := strings.Contains(n, "st64")
			size := 4
			if strings.HasSuffix(n, "b64") {
				size = 8
			}
			store := strings.HasPrefix(n, "ds_write")
			def(n, ds2(size, st64, store))
		case strings.Contains(n, "_tr_") || strings.Contains(n, "addtid"):
			// Transposed and lane-id-addressed forms are not plain accesses.
		case strings.HasPrefix(n, "ds_write_"), strings.HasPrefix(n, "ds_read_"):
			store := strings.HasPrefix(n, "ds_write_")
			t := n[strings.LastIndexByte(n, '_')+1:]
			op := memOp{store: store}
			switch {
			case strings.HasSuffix(n, "_d16_hi"):
				op.d16 = 2
				t = strings.TrimSuffix(strings.TrimSuffix(n, "_d16_hi"), "")
				t = t[strings.LastIndexByte(t, '_')+1:]
			case strings.HasSuffix(n, "_d16"):
				op.d16 = 1
				t = strings.TrimSuffix(n, "_d16")
				t = t[strings.LastIndexByte(t, '_')+1:]
			}
			sz, ok := sizes[t]
			if !ok {
				continue
			}
			op.size = sz
			op.sign = t == "i8" || t == "i16"
			def(n, dsOne(op))
		}
	}
	// Atomics: ds_OP_{u32,i32,b32,f32,u64,i64,b64,f64} and their _rtn_ forms.
	dsAtomics := map[string]string{"add": "add", "sub": "sub", "and": "and", "or": "or", "xor": "xor",
		"min": "min", "max": "max", "inc": "inc", "dec": "dec", "wrxchg": "swap"}
	for _, n := range namesDS {
		if n == "" || semantics[n] != nil {
			continue
		}
		t := strings.TrimPrefix(n, "ds_")
		rtn := false
		if strings.Contains(t, "_rtn_") {
			rtn = true
			t = strings.Replace(t, "_rtn_", "_", 1)
		}
		i := strings.LastIndexByte(t, '_')
		if i < 0 {
			continue
		}
		opn, typ := t[:i], t[i+1:]
		wide := strings.HasSuffix(typ, "64")
		switch {
		case opn == "cmpst":
			def(n, dsCmpst(wide, rtn))
			continue
		case opn == "rsub":
			def(n, dsAtomic(func(o, v uint64, wd bool) uint64 { return v - o }, wide, rtn))
			continue
		case opn == "mskor":
			def(n, dsMskor(wide, rtn))
			continue
		case opn == "add" && typ == "f32":
			def(n, dsAtomic(atomicFns()["add_f32"], false, rtn))
			continue
		case opn == "add" && typ == "f64":
			def(n, dsAtomic(atomicFns()["add_f64"], true, rtn))
			continue
		case opn == "pk_add" && (typ == "f16" || typ == "bf16"):
			def(n, dsAtomic(atomicFns()["pk_add_"+typ], false, rtn))
			continue
		case (opn == "min" || opn == "max") && (typ == "f32" || typ == "f64"):
			isMin := opn == "min"
			def(n, dsAtomic(func(o, v uint64, wd bool) uint64 {
				if wd {
					a, b := math.Float64frombits(o), math.Float64frombits(v)
					if isMin == (b < a) {
						return v
					}
					return o
				}
				a, b := math.Float32frombits(uint32(o)), math.Float32frombits(uint32(v))
				if isMin == (b < a) {
					return v
				}
				return o
			}, wide, rtn))
			continue
		}
		base, ok := dsAtomics[opn]
		if !ok {
			continue
		}
		if base == "min" || base == "max" {
			if typ[0] == 'i' {
				base = "s" + base
			} else {
				base = "u" + base
			}
		}
		def(n, dsAtomic(atomicFns()[base], wide, rtn))
	}
	for _, n := range []string{"ds_wrxchg2_rtn_b32", "ds_wrxchg2st64_rtn_b32", "ds_wrxchg2_rtn_b64", "ds_wrxchg2st64_rtn_b64"} {
		def(n, dsWrxchg2(strings.HasSuffix(n, "b64"), strings.Contains(n, "st64")))
	}
	for _, b := range []int{4, 8, 16} {
		def(fmt.Sprintf("ds_read_b64_tr_b%d", b), dsReadTr(b))
	}
	def("ds_swizzle_b32", dsSwizzle)
	def("ds_permute_b32", dsPermute(false))
	def("ds_bpermute_b32", dsPermute(true))
	def("ds_nop", func(w *Wave, in *Inst) error { return nil })
}

func dsOne(op memOp) func(*Wave, *Inst) error {
	return func(w *Wave, in *Inst) error {
		off := uint64(in.Offset1<<8 | in.Imm)
		exec := w.Exec()
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			w.Lanes++
			b, err := w.lds(dsAddr(w, in, l)+off, op.size, op.store)
			if err != nil {
				return fmt.Errorf("lane %d: %w", l, err)
			}
			if op.store {
				w.storeFromRegs(in.Src[1], l, b, op)
			} else {
				w.loadToRegs(in.Dst, l, b, op)
			}
		}
		return nil
	}
}

func ds2(size int, st64, store bool) func(*Wave, *Inst) error {
	scale := uint64(size)
	if st64 {
		scale *= 64
	}
	op := memOp{size: size, store: store}
	return func(w *Wave, in *Inst) error {
		exec := w.Exec()
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			w.Lanes++
			a := dsAddr(w, in, l)
			b0, err := w.lds(a+uint64(in.Imm)*scale, size, store)
			if err != nil {
				return fmt.Errorf("lane %d: %w", l, err)
			}
			b1, err := w.lds(a+uint64(in.Offset1)*scale, size, store)
			if err != nil {
				return fmt.Errorf("lane %d: %w", l, err)
			}
			if store {
				w.storeFromRegs(in.Src[1], l, b0, op)
				w.storeFromRegs(in.Src[2], l, b1, op)
			} else {
				w.loadToRegs(in.Dst, l, b0, op)
				w.loadToRegs(in.Dst+uint16(size/4), l, b1, op)
			}
		}
		return nil
	}
}

// dsRMW is the shape of every LDS read-modify-write: for each active lane
// it reads the old value at the lane's address, writes next(old), and
// returns old to the destination when rtn is set.
func dsRMW(wide, rtn bool, next func(w *Wave, in *Inst, l int, old uint64) uint64) func(*Wave, *Inst) error {
	size := 4
	if wide {
		size = 8
	}
	return func(w *Wave, in *Inst) error {
		off := uint64(in.Offset1<<8 | in.Imm)
		exec := w.Exec()
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			w.Lanes++
			b, err := w.lds(dsAddr(w, in, l)+off, size, true)
			if err != nil {
				return fmt.Errorf("lane %d: %w", l, err)
			}
			old := readN(b)
			writeN(b, next(w, in, l, old))
			if rtn {
				w.setRegN(in.Dst, l, old, wide)
			}
		}
		return nil
	}
}

func dsAtomic(f func(o, v uint64, wd bool) uint64, wide, rtn bool) func(*Wave, *Inst) error {
	return dsRMW(wide, rtn, func(w *Wave, in *Inst, l int, old uint64) uint64 {
		return f(old, w.regN(in.Src[1], l, wide), wide)
	})
}

func dsCmpst(wide, rtn bool) func(*Wave, *Inst) error {
	return dsRMW(wide, rtn, func(w *Wave, in *Inst, l int, old uint64) uint64 {
		if old == w.regN(in.Src[1], l, wide) { // data0 = compare
			return w.regN(in.Src[2], l, wide) // data1 = new
		}
		return old
	})
}

func dsMskor(wide, rtn bool) func(*Wave, *Inst) error {
	return dsRMW(wide, rtn, func(w *Wave, in *Inst, l int, old uint64) uint64 {
		return old&^w.regN(in.Src[1], l, wide) | w.regN(in.Src[2], l, wide)
	})
}

// dsSwizzle implements ds_swizzle_b32's quad-permute and bit-mask modes.
func dsSwizzle(w *Wave, in *Inst) error {
	pat := uint32(in.Offset1<<8 | in.Imm)
	src := *w.vreg(in.Src[0])
	exec := w.Exec()
	dst := w.vreg(in.Dst)
	for l := 0; l < 64; l++ {
		if exec>>l&1 == 0 {
			continue
		}
		var s int
		if pat&0x8000 != 0 {
			q := l &^ 3
			s = q + int(pat>>(2*(l&3))&3)
		} else {
			and, or, xor := int(pat&0x1f), int(pat>>5&0x1f), int(pat>>10&0x1f)
			g := l &^ 31
			s = g + ((l&31)&and | or) ^ xor
		}
		v := uint32(0)
		if exec>>s&1 != 0 {
			v = src[s]
		}
		dst[l] = v
		w.Lanes++
	}
	return nil
}

// dsPermute implements ds_permute_b32 (forward) and ds_bpermute_b32
// (backward): the lane index is the address bits [7:2] plus the offset.
func dsPermute(back bool) func(*Wave, *Inst) error {
	return func(w *Wave, in *Inst) error {
		off := uint32(in.Offset1<<8 | in.Imm)
		addr := *w.vreg(in.Src[0])
		data := *w.vreg(in.Src[1])
		exec := w.Exec()
		dst := w.vreg(in.Dst)
		var out [64]uint32
		if back {
			out = *dst
			for l := 0; l < 64; l++ {
				if exec>>l&1 == 0 {
					continue
				}
				s := int((addr[l]+off)>>2) & (w.laneCount() - 1)
				v := uint32(0)
				if exec>>s&1 != 0 {
					v = data[s]
				}
				out[l] = v
				w.Lanes++
			}
		} else {
			for l := 0; l < 64; l++ {
				if exec>>l&1 == 0 {
					continue
				}
				d := int((addr[l]+off)>>2) & (w.laneCount() - 1)
				out[d] = data[l]
				w.Lanes++
			}
			for l := 0; l < 64; l++ {
				if exec>>l&1 == 0 {
					out[l] = dst[l]
				}
			}
		}
		*dst = out
		return nil
	}
}

// dsReadTr implements gfx950's transposed LDS reads ds_read_b64_tr_b{4,8,16}
// on groups of 16 lanes. Each lane addresses 64 bits = E elements of b bits
// (E = 64/b); rows of the 16-lane block are R = 16/E consecutive lanes'
// 64-bit blocks, and lane l of a group receives column l:
//
//	elem[j] of lane 16g+l = element l%E of the block at lane 16g + R*j + l/E
//
// This lane mapping is inferred from the MFMA operand layouts the
// instructions feed (AMD does not document it); it is the same formula the
// translator's expansion uses. Source lanes are read whether or not they
// are active.
func dsReadTr(bitsN int) func(*Wave, *Inst) error {
	e := 64 / bitsN
	r := 16 / e
	return func(w *Wave, in *Inst) error {
		off := uint64(in.Offset1<<8 | in.Imm)
		addr := w.vreg(in.Src[0])
		exec := w.Exec()
		var out [64]uint64
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			g, q := l&^15, l&15
			var v uint64
			for j := 0; j < e; j++ {
				src := g + r*j + q/e
				bit := (q % e) * bitsN
				b, err := w.lds(uint64(addr[src])+off+uint64(bit/8), max(1, bitsN/8), false)
				if err != nil {
					return fmt.Errorf("lane %d: %w", l, err)
				}
				var x uint64
				switch bitsN {
				case 16:
					x = uint64(le.Uint16(b))
				case 8:
					x = uint64(b[0])
				case 4:
					x = uint64(b[0]>>(bit%8)) & 0xf
				}
				v |= x << (j * bitsN)
			}
			out[l] = v
			w.Lanes++
		}
		d := (in.Dst - opVGPR) & 511
		for l := 0; l < 64; l++ {
			if exec>>l&1 != 0 {
				w.V[d][l], w.V[(d+1)&511][l] = uint32(out[l]), uint32(out[l]>>32)
			}
		}
		return nil
	}
}

// dsWrxchg2 implements ds_wrxchg2[st64]_rtn: two exchanges at offset0 and
// offset1 (in elements, times 64 for st64); the old values return in vdst.
func dsWrxchg2(wide, st64 bool) func(*Wave, *Inst) error {
	size := 4
	if wide {
		size = 8
	}
	scale := uint64(size)
	if st64 {
		scale *= 64
	}
	return func(w *Wave, in *Inst) error {
		exec := w.Exec()
		step := uint16(size / 4)
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			a := dsAddr(w, in, l)
			for k, off := range []uint64{uint64(in.Imm), uint64(in.Offset1)} {
				b, err := w.lds(a+off*scale, size, true)
				if err != nil {
					return fmt.Errorf("lane %d: %w", l, err)
				}
				old := readN(b)
				writeN(b, w.regN(in.Src[1+k], l, wide))
				w.setRegN(in.Dst+uint16(k)*step, l, old, wide)
			}
			w.Lanes++
		}
		return nil
	}
}
