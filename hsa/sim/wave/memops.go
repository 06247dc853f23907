package wave

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
	"github.com/rocjitsu/rocjitsu/hsa/sim/mem"
)

var le = binary.LittleEndian

// Address spaces of vector memory instructions.
const (
	spaceFlat = iota
	spaceScratch
	spaceGlobal
)

// slice returns the bytes a lane's access of n bytes at addr reaches.
func (w *Wave) slice(space int, addr uint64, lane, n int, write bool) ([]byte, error) {
	if space == spaceFlat {
		switch {
		case addr>>32 == SharedBase>>32:
			return w.lds(addr&0xffffffff, n, write)
		case addr>>32 == PrivateBase>>32:
			addr &= 0xffffffff
			space = spaceScratch
		}
	}
	if space == spaceScratch {
		p := w.Private[lane]
		if addr+uint64(n) > uint64(len(p)) {
			return nil, fmt.Errorf("lane %d: private access of %d bytes at offset %#x is outside the %d-byte private segment", lane, n, addr, len(p))
		}
		return p[addr : addr+uint64(n)], nil
	}
	b, err := w.mem.Slice(addr, n, write)
	if err != nil {
		return nil, fmt.Errorf("lane %d: %w", lane, err)
	}
	return b, nil
}

func (w *Wave) lds(off uint64, n int, write bool) ([]byte, error) {
	if w.group == nil || off+uint64(n) > uint64(len(w.group.LDS)) {
		size := 0
		if w.group != nil {
			size = len(w.group.LDS)
		}
		kind := "read"
		if write {
			kind = "write"
		}
		return nil, fmt.Errorf("LDS %s of %d bytes at %#x is outside the %d-byte group segment", kind, n, off, size)
	}
	return w.group.LDS[off : off+uint64(n)], nil
}

// vmemAddr computes a FLAT/GLOBAL/SCRATCH lane address.
func (w *Wave) vmemAddr(in *Inst, lane int) uint64 {
	switch in.Seg {
	case 1: // scratch: a per-lane private offset
		var a uint64
		if in.Saddr != 0x7f {
			a = uint64(w.S[in.Saddr])
		}
		if in.SVE {
			a += uint64(w.vreg(in.Src[0])[lane])
		}
		return uint64(int64(uint32(a) + uint32(in.Imm)))
	case 2:
		if in.Saddr != 0x7f {
			return w.s64(in.Saddr, in) + uint64(w.vreg(in.Src[0])[lane]) + uint64(int64(in.Imm))
		}
	}
	r := (in.Src[0] - opVGPR) & 511
	return (uint64(w.V[r][lane]) | uint64(w.V[(r+1)&511][lane])<<32) + uint64(int64(in.Imm))
}

type memOp struct {
	size   int  // bytes per lane
	sign   bool // sign-extend sub-dword loads
	d16    int  // 0: full, 1: d16 low half, 2: d16 high half
	store  bool
	atomic string
	wide   bool // 64-bit atomic
}

// parseMemName extracts the access from a load/store/atomic mnemonic.
func parseMemName(name string) (memOp, bool) {
	i := strings.IndexByte(name, '_')
	if i < 0 {
		return memOp{}, false
	}
	rest := name[i+1:]
	var op memOp
	switch {
	case strings.HasPrefix(rest, "load_"), strings.HasPrefix(rest, "store_"):
		op.store = strings.HasPrefix(rest, "store_")
		t := rest[strings.IndexByte(rest, '_')+1:]
		if strings.HasSuffix(t, "_d16_hi") {
			op.d16 = 2
			t = strings.TrimSuffix(t, "_d16_hi")
		} else if strings.HasSuffix(t, "_d16") {
			op.d16 = 1
			t = strings.TrimSuffix(t, "_d16")
		}
		switch t {
		case "ubyte", "byte":
			op.size = 1
		case "sbyte":
			op.size, op.sign = 1, true
		case "ushort", "short":
			op.size = 2
		case "sshort":
			op.size, op.sign = 2, true
		case "dword":
			op.size = 4
		case "dwordx2":
			op.size = 8
		case "dwordx3":
			op.size = 12
		case "dwordx4":
			op.size = 16
		default:
			return op, false
		}
		return op, true
	case strings.HasPrefix(rest, "atomic_"):
		t := rest[len("atomic_"):]
		if strings.HasSuffix(t, "_x2") {
			op.wide = true
			t = strings.TrimSuffix(t, "_x2")
		}
		switch t {
		case "add_f64", "min_f64", "max_f64":
			op.wide = true
		}
		op.atomic = t
		op.size = 4
		if op.wide {
			op.size = 8
		}
		if _, ok := atomicFns()[t]; !ok && t != "cmpswap" {
			return op, false
		}
		return op, true
	}
	return op, false
}

// Built on first use; every call returns the same map.
// atomicFns compute the new memory value from the old one and the data.
var atomicFns = sync.OnceValue(func() map[string]func(old, v uint64, wide bool) uint64 {
	return map[string]func(old, v uint64, wide bool) uint64{
		"swap": func(o, v uint64, wd bool) uint64 { return v },
		"add":  func(o, v uint64, wd bool) uint64 { return o + v },
		"sub":  func(o, v uint64, wd bool) uint64 { return o - v },
		"and":  func(o, v uint64, wd bool) uint64 { return o & v },
		"or":   func(o, v uint64, wd bool) uint64 { return o | v },
		"xor":  func(o, v uint64, wd bool) uint64 { return o ^ v },
		"umin": func(o, v uint64, wd bool) uint64 { return min(o, v) },
		"umax": func(o, v uint64, wd bool) uint64 { return max(o, v) },
		"smin": func(o, v uint64, wd bool) uint64 {
			if wd {
				return uint64(min(int64(o), int64(v)))
			}
			return uint64(uint32(min(int32(o), int32(v))))
		},
		"smax": func(o, v uint64, wd bool) uint64 {
			if wd {
				return uint64(max(int64(o), int64(v)))
			}
			return uint64(uint32(max(int32(o), int32(v))))
		},
		"inc": func(o, v uint64, wd bool) uint64 {
			if o >= v {
				return 0
			}
			return o + 1
		},
		"dec": func(o, v uint64, wd bool) uint64 {
			if o == 0 || o > v {
				return v
			}
			return o - 1
		},
		"add_f32": func(o, v uint64, wd bool) uint64 {
			return uint64(math.Float32bits(math.Float32frombits(uint32(o)) + math.Float32frombits(uint32(v))))
		},
		"add_f64": func(o, v uint64, wd bool) uint64 {
			return math.Float64bits(math.Float64frombits(o) + math.Float64frombits(v))
		},
		"pk_add_f16": func(o, v uint64, wd bool) uint64 {
			lo := fp.F32ToF16(fp.F16ToF32(uint16(o)) + fp.F16ToF32(uint16(v)))
			hi := fp.F32ToF16(fp.F16ToF32(uint16(o>>16)) + fp.F16ToF32(uint16(v>>16)))
			return uint64(lo) | uint64(hi)<<16
		},
		"pk_add_bf16": func(o, v uint64, wd bool) uint64 {
			lo := fp.F32ToBF16(fp.BF16ToF32(uint16(o)) + fp.BF16ToF32(uint16(v)))
			hi := fp.F32ToBF16(fp.BF16ToF32(uint16(o>>16)) + fp.BF16ToF32(uint16(v>>16)))
			return uint64(lo) | uint64(hi)<<16
		},
		"min_f64": func(o, v uint64, wd bool) uint64 {
			return math.Float64bits(math.Min(math.Float64frombits(o), math.Float64frombits(v)))
		},
		"max_f64": func(o, v uint64, wd bool) uint64 {
			return math.Float64bits(math.Max(math.Float64frombits(o), math.Float64frombits(v)))
		},
	}
})

func readN(b []byte) uint64 {
	switch len(b) {
	case 4:
		return uint64(le.Uint32(b))
	case 8:
		return le.Uint64(b)
	}
	return 0
}

func writeN(b []byte, v uint64) {
	switch len(b) {
	case 4:
		le.PutUint32(b, uint32(v))
	case 8:
		le.PutUint64(b, v)
	}
}

// lanesLoad stores loaded bytes into the destination registers of a lane.
func (w *Wave) loadToRegs(dst uint16, lane int, b []byte, op memOp) {
	r := (dst - opVGPR) & 511
	switch op.size {
	case 1, 2:
		var v uint32
		if op.size == 1 {
			v = uint32(b[0])
			if op.sign {
				v = uint32(int8(b[0]))
			}
		} else {
			v = uint32(le.Uint16(b))
			if op.sign {
				v = uint32(int16(v))
			}
		}
		switch op.d16 {
		case 1:
			w.V[r][lane] = w.V[r][lane]&0xffff0000 | v&0xffff
		case 2:
			w.V[r][lane] = w.V[r][lane]&0xffff | v<<16
		default:
			w.V[r][lane] = v
		}
	default:
		for i := 0; i < op.size/4; i++ {
			w.V[(r+uint16(i))&511][lane] = le.Uint32(b[4*i:])
		}
	}
}

func (w *Wave) storeFromRegs(data uint16, lane int, b []byte, op memOp) {
	r := (data - opVGPR) & 511
	v := w.V[r][lane]
	if op.d16 == 2 {
		v >>= 16
	}
	switch op.size {
	case 1:
		b[0] = byte(v)
	case 2:
		le.PutUint16(b, uint16(v))
	default:
		for i := 0; i < op.size/4; i++ {
			le.PutUint32(b[4*i:], w.V[(r+uint16(i))&511][lane])
		}
	}
}

func (w *Wave) regN(code uint16, lane int, wide bool) uint64 {
	r := (code - opVGPR) & 511
	v := uint64(w.V[r][lane])
	if wide {
		v |= uint64(w.V[(r+1)&511][lane]) << 32
	}
	return v
}

func (w *Wave) setRegN(code uint16, lane int, v uint64, wide bool) {
	r := (code - opVGPR) & 511
	w.V[r][lane] = uint32(v)
	if wide {
		w.V[(r+1)&511][lane] = uint32(v >> 32)
	}
}

// flatOp builds the semantics of a FLAT/GLOBAL/SCRATCH instruction.
func flatOp(op memOp) func(*Wave, *Inst) error {
	slow := flatOpSlow(op)
	fast := op.atomic == "" && op.d16 == 0 && op.size%4 == 0
	return func(w *Wave, in *Inst) error {
		if !fast || in.Seg == 1 || in.Lds || op.store && w.mem.WriteHooked() {
			return slow(w, in)
		}
		// Fast path: whole-dword global accesses within one cached region;
		// any other lane (aperture, fault, other region) takes the slow path.
		exec := w.Exec()
		var rbase uint64
		var rdata []byte
		n := uint64(op.size)
		words := op.size / 4
		dr := (in.Dst - opVGPR) & 511
		sr := (in.Src[1] - opVGPR) & 511
		var rest uint64
		// Per-instruction address form: SGPR base + 32-bit VGPR offset, or
		// a 64-bit VGPR pair.
		imm := uint64(int64(in.Imm))
		vr := (in.Src[0] - opVGPR) & 511
		lo, hi := &w.V[vr], &w.V[(vr+1)&511]
		sbase, useS := uint64(0), in.Seg == 2 && in.Saddr != 0x7f
		if useS {
			sbase = w.s64(in.Saddr, in) + imm
		}
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			var addr uint64
			if useS {
				addr = sbase + uint64(lo[l])
			} else {
				addr = (uint64(lo[l]) | uint64(hi[l])<<32) + imm
			}
			off := addr - rbase
			if off+n > uint64(len(rdata)) || off+n < off {
				if addr>>48 != 0 {
					rest |= 1 << l
					continue
				}
				b, d, ok := w.mem.RegionBytes(addr)
				if !ok || addr-b+n > uint64(len(d)) {
					rest |= 1 << l
					continue
				}
				rbase, rdata, off = b, d, addr-b
			}
			w.Lanes++
			p := rdata[off : off+n]
			if words == 1 {
				if op.store {
					le.PutUint32(p, w.V[sr][l])
				} else {
					w.V[dr][l] = le.Uint32(p)
				}
				continue
			}
			if op.store {
				for i := 0; i < words; i++ {
					le.PutUint32(p[4*i:], w.V[(sr+uint16(i))&511][l])
				}
			} else {
				for i := 0; i < words; i++ {
					w.V[(dr+uint16(i))&511][l] = le.Uint32(p[4*i:])
				}
			}
		}
		if rest == 0 {
			return nil
		}
		saved := w.Exec()
		w.SetExec(rest)
		err := slow(w, in)
		w.SetExec(saved)
		return err
	}
}

func flatOpSlow(op memOp) func(*Wave, *Inst) error {
	return func(w *Wave, in *Inst) error {
		space := spaceFlat
		switch in.Seg {
		case 1:
			space = spaceScratch
		case 2:
			space = spaceGlobal
		}
		if in.Lds {
			return fmt.Errorf("LDS-direct global loads are not supported")
		}
		exec := w.Exec()
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			w.Lanes++
			addr := w.vmemAddr(in, l)
			b, err := w.slice(space, addr, l, op.size, op.store || op.atomic != "")
			if err != nil {
				return err
			}
			switch {
			case op.atomic != "":
				if err := w.atomic(in, op, b, l, in.Src[1], in.Dst, in.Glc); err != nil {
					return err
				}
			case op.store:
				w.storeFromRegs(in.Src[1], l, b, op)
			default:
				w.loadToRegs(in.Dst, l, b, op)
			}
		}
		return nil
	}
}

// atomic performs one lane's atomic on b; data holds the operand (and, for
// cmpswap, the compare value in the next register(s)).
func (w *Wave) atomic(in *Inst, op memOp, b []byte, l int, data, dst uint16, ret bool) error {
	old := readN(b)
	v := w.regN(data, l, op.wide)
	var nv uint64
	if op.atomic == "cmpswap" {
		step := uint16(1)
		if op.wide {
			step = 2
		}
		cmp := w.regN(data+step, l, op.wide)
		nv = old
		if old == cmp {
			nv = v
		}
	} else {
		nv = atomicFns()[op.atomic](old, v, op.wide)
	}
	writeN(b, nv)
	if ret {
		w.setRegN(dst, l, old, op.wide)
	}
	return nil
}

// bufferOp builds the semantics of a MUBUF instruction.
func bufferOp(op memOp) func(*Wave, *Inst) error {
	return func(w *Wave, in *Inst) error {
		if in.Lds && (op.store || op.atomic != "") {
			return fmt.Errorf("lds bit on a buffer store or atomic")
		}
		rs := in.Src[2]
		base := (uint64(w.S[rs&127]) | uint64(w.S[(rs+1)&127])<<32) & 0xffffffffffff
		stride := uint64(w.S[(rs+1)&127] >> 16 & 0x3fff)
		numRecords := uint64(w.S[(rs+2)&127])
		soff := uint64(w.s32(in.Soffset, in))
		exec := w.Exec()
		for l := 0; l < 64; l++ {
			if exec>>l&1 == 0 {
				continue
			}
			w.Lanes++
			index, voff := bufferIndexOffset(w, in, l)
			off := voff + uint64(in.Imm)
			// gfx9 decides the check by IDXEN, not by STRIDE: only an
			// idxen access to a strided buffer checks its index; an
			// offen-only access (any STRIDE) checks its byte offset
			// against NUM_RECORDS (LLVM keeps IDXEN on gfx9 for this
			// reason; aiter's gfx950 kernels set STRIDE 4 on raw V#s).
			var inRange bool
			if stride == 0 || !in.Idxen {
				inRange = off+uint64(op.size) <= numRecords
			} else {
				inRange = index < numRecords && off+uint64(op.size) <= stride
			}
			if !inRange {
				// Out-of-range buffer accesses read zero and drop writes;
				// an LDS-direct load writes the zero to its LDS slot.
				if in.Lds {
					n := max(op.size, 4)
					dst, err := w.lds(uint64(w.S[RegM0]&0x3ffff)+uint64(in.Imm)+uint64(l*n), n, true)
					if err != nil {
						return fmt.Errorf("lane %d: %w", l, err)
					}
					clear(dst)
				} else if !op.store && op.atomic == "" {
					w.loadToRegs(in.Dst, l, make([]byte, op.size), op)
				}
				continue
			}
			addr := base + soff + index*stride + off
			b, err := w.slice(spaceGlobal, addr, l, op.size, op.store || op.atomic != "")
			if err != nil {
				return err
			}
			if in.Lds {
				// LDS-direct: M0 + offset + lane * size (at least a dword).
				n := max(op.size, 4)
				dst, err := w.lds(uint64(w.S[RegM0]&0x3ffff)+uint64(in.Imm)+uint64(l*n), n, true)
				if err != nil {
					return fmt.Errorf("lane %d: %w", l, err)
				}
				var tmp [16]byte
				copy(tmp[:], b)
				if op.size < 4 {
					v := uint32(tmp[0])
					switch {
					case op.size == 1 && op.sign:
						v = uint32(int8(tmp[0]))
					case op.size == 2:
						v = uint32(le.Uint16(tmp[:]))
						if op.sign {
							v = uint32(int16(v))
						}
					}
					le.PutUint32(tmp[:], v)
				}
				copy(dst, tmp[:n])
				continue
			}
			switch {
			case op.atomic != "":
				if err := w.atomic(in, op, b, l, in.Src[1], in.Dst, in.Glc); err != nil {
					return err
				}
			case op.store:
				w.storeFromRegs(in.Src[1], l, b, op)
			default:
				w.loadToRegs(in.Dst, l, b, op)
			}
		}
		return nil
	}
}

func smemOp(n int, buffer, store bool) func(*Wave, *Inst) error {
	return func(w *Wave, in *Inst) error {
		var off uint64
		if in.SImm {
			off = uint64(int64(in.Imm))
			if in.Soffset != 0xffff {
				off += uint64(w.s32(in.Soffset, in))
			}
		} else {
			off = uint64(w.s32(in.Soffset, in))
		}
		base := w.s64(in.Src[0], in)
		if buffer {
			base &= 0xffffffffffff
		}
		addr := (base + off) &^ 3
		w.Lanes++
		for i := 0; i < n; i++ {
			a := addr + uint64(4*i)
			if store {
				if err := w.mem.Store32(a, w.S[(in.Dst+uint16(i))&127]); err != nil {
					return err
				}
				continue
			}
			v, err := w.mem.Load32(a)
			if err != nil {
				if buffer {
					v = 0
				} else {
					return err
				}
			}
			if in.Dst+uint16(i) < 128 {
				w.S[in.Dst+uint16(i)] = v
			}
		}
		return nil
	}
}

var _ = mem.Base

func registerMemops() {
	for fmtName, names := range map[string][]string{"flat": namesFLAT[:], "global": namesGLOBAL[:], "scratch": namesSCRATCH[:]} {
		_ = fmtName
		for _, n := range names {
			if n == "" {
				continue
			}
			if _, dup := semantics[n]; dup {
				continue
			}
			if op, ok := parseMemName(n); ok {
				def(n, flatOp(op))
			}
		}
	}
	for _, n := range namesMUBUF {
		if n == "" || !strings.HasPrefix(n, "buffer_") || semantics[n] != nil {
			continue
		}
		if op, ok := parseMemName(n); ok {
			def(n, bufferOp(op))
		}
	}
	for _, c := range []struct {
		suf string
		n   int
	}{{"dword", 1}, {"dwordx2", 2}, {"dwordx4", 4}, {"dwordx8", 8}, {"dwordx16", 16}} {
		def("s_load_"+c.suf, smemOp(c.n, false, false))
		def("s_buffer_load_"+c.suf, smemOp(c.n, true, false))
		if c.n <= 4 {
			def("s_store_"+c.suf, smemOp(c.n, false, true))
			def("s_buffer_store_"+c.suf, smemOp(c.n, true, true))
		}
	}
	// Both counters read the wave's modelled clock at issue (the cycle
	// model has one clock, the one gfx12 SHADER_CYCLES reads): under a
	// capture it is the capture's timeline, else one per instruction.
	// The real-time counter's fixed reference frequency is not modelled.
	def("s_memtime", func(w *Wave, in *Inst) error { w.setS64(in.Dst, w.Clock); return nil })
	def("s_memrealtime", func(w *Wave, in *Inst) error { w.setS64(in.Dst, w.Clock); return nil })
	for _, n := range []string{"s_dcache_inv", "s_dcache_wb", "s_dcache_inv_vol", "s_dcache_wb_vol"} {
		def(n, func(w *Wave, in *Inst) error { return nil })
	}
	for _, n := range []string{"buffer_wbl2", "buffer_inv", "buffer_wbinvl1", "buffer_wbinvl1_vol"} {
		if _, ok := semantics[n]; !ok {
			def(n, func(w *Wave, in *Inst) error { return nil })
		}
	}
}

// bufferIndexOffset reads lane l's index and offset VGPRs of a buffer
// instruction (idxen: index in the first VGPR; offen: offset in the first,
// or in the second after the index).
func bufferIndexOffset(w *Wave, in *Inst, l int) (index, voff uint64) {
	vr := (in.Src[0] - opVGPR) & 511
	switch {
	case in.Idxen && in.Off:
		index, voff = uint64(w.V[vr][l]), uint64(w.V[(vr+1)&511][l])
	case in.Idxen:
		index = uint64(w.V[vr][l])
	case in.Off:
		voff = uint64(w.V[vr][l])
	}
	return index, voff
}
