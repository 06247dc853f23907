package rules

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

// The subroutine form of the transposed LDS reads: one body per kernel and
// element size runs ReadTrCode on fixed registers (address, result pair,
// temporaries) with instruction offset 0. A call site adds the guest's
// instruction offset to a copy of the address VGPR (every lane's address
// moves by the same offset, so the element addresses are the same), calls
// the body and copies the pair out (v_accvgpr_write for AGPR
// destinations): 4-5 instructions instead of 37 (b16), 69 (b8) or 134
// (b4). The body reads LDS, so sidecars (which lower LDS accesses in the
// emitted code) keep the inline form.

var readTrShared = &Shared{Key: readTrSharedKey, Site: readTrSharedSite, Body: readTrSharedBody, Names: readTrSharedNames, LDS: true, MemorySaves: 8}

// readTrFields are a transposed read's fields.
type readTrFields struct {
	bits        int
	acc         bool
	vaddr, vdst uint16
	off         uint32
}

func parseReadTr(in *isa.Inst, raw []byte) (readTrFields, error) {
	var f readTrFields
	if len(raw) != 8 {
		return f, fieldErr(in, "size", uint32(len(raw)))
	}
	w := words(raw)
	if w[0]>>16&1 != 0 {
		return f, fieldErr(in, "gds", 1)
	}
	switch in.Name() {
	case "ds_read_b64_tr_b16":
		f.bits = 16
	case "ds_read_b64_tr_b8":
		f.bits = 8
	case "ds_read_b64_tr_b4":
		f.bits = 4
	default:
		return f, fmt.Errorf("%s at %#x: not a transposed read this rule handles", in.Name(), in.PC)
	}
	f.acc = w[0]>>25&1 != 0
	f.vaddr, f.vdst, f.off = uint16(w[1]&0xff), uint16(w[1]>>24), w[0]&0xffff
	if f.vdst > 254 {
		return f, fieldErr(in, "vdst", uint32(f.vdst))
	}
	return f, nil
}

func readTrSharedKey(in *isa.Inst, raw []byte) (string, bool) {
	f, err := parseReadTr(in, raw)
	if err != nil {
		return "", false
	}
	switch f.bits { // parseReadTr's sizes: constant keys
	case 4:
		return "ds-read-tr/4", true
	case 8:
		return "ds-read-tr/8", true
	case 16:
		return "ds-read-tr/16", true
	}
	return "ds-read-tr/" + strconv.Itoa(f.bits), true
}

// readTrLayout lays out address, result pair and temporaries from regs.
func readTrLayout(bits int, regs []uint16) (addr, dst uint16, t []uint16, used []uint16, err error) {
	p := newRegPool(regs)
	if dst, err = p.run(2, 1); err != nil {
		return
	}
	if addr, err = p.one(); err != nil {
		return
	}
	t = make([]uint16, ReadTrTemps(bits, dst, false, addr))
	for i := range t {
		if t[i], err = p.one(); err != nil {
			return
		}
	}
	return addr, dst, t, p.used, nil
}

func readTrSharedSite(in *isa.Inst, raw []byte, regs SharedRegs) (SharedSite, error) {
	f, err := parseReadTr(in, raw)
	if err != nil {
		return SharedSite{}, err
	}
	addr, dst, _, used, err := readTrLayout(f.bits, regs.V)
	if err != nil {
		return SharedSite{}, err
	}
	pre := readTrAddr(addr, f.vaddr, f.off)
	var post []uint32
	for k := uint16(0); k < 2; k++ {
		if f.acc {
			a := accWrite(f.vdst+k, dst+k)
			post = append(post, a[0], a[1])
		} else {
			post = append(post, smVOP1(smMovB32, f.vdst+k, srcVGPR+dst+k, 0)...)
		}
	}
	return SharedSite{Pre: appendWords(nil, pre...), Post: appendWords(nil, post...), Used: used}, nil
}

func readTrSharedBody(in *isa.Inst, raw []byte, regs SharedRegs) ([]byte, error) {
	f, err := parseReadTr(in, raw)
	if err != nil {
		return nil, err
	}
	addr, dst, t, _, err := readTrLayout(f.bits, regs.V)
	if err != nil {
		return nil, err
	}
	return ReadTrCode(f.bits, dst, false, addr, 0, t)
}

// readTrSharedNames: the address VGPR and the pair (AGPRs as 256+a).
func readTrSharedNames(in *isa.Inst, raw []byte) ([]uint16, bool) {
	f, err := parseReadTr(in, raw)
	if err != nil {
		return nil, false
	}
	if f.acc {
		return []uint16{f.vaddr, 256 + f.vdst, 256 + f.vdst + 1}, true
	}
	return []uint16{f.vaddr, f.vdst, f.vdst + 1}, true
}

// The destination-keyed subroutine form (issue 15: the aiter MLA kernels
// read into the same 32 AGPR pairs 39 times each): where a kernel scope
// has readTrDestMin or more 16-bit transposed reads into one AGPR pair,
// they share a body that writes that pair itself (v_accvgpr_write_b32 in
// the body), so a use is the address copy and the s_call_b64 (8-12 bytes
// instead of 24-28 with the two v_accvgpr_write_b32 after the call). The
// body computes what the inline expansion computes. Fewer uses keep the
// shared form by element size (a body per pair costs more than the copies
// it saves).

// readTrDestMin is the fewest reads into one AGPR pair given its own body
// (a body is about 190 bytes; a use saves 16).
const readTrDestMin = 12

var readTrDestShared = &Shared{Key: readTrDestKey, Site: readTrDestSite, Body: readTrDestBody, Names: readTrSharedNames, LDS: true, MemorySaves: 8}

var (
	readTrDestOnce sync.Once
	readTrDest     *Rule
)

// readTrDestsKey is the pair.Site.Memo entry counting a scope's 16-bit
// transposed reads per AGPR destination pair.
const readTrDestsKey = "rules.ds-read-tr-dests"

// ReadTrDestRuleAt returns the transposed-read rule for in with the
// destination-keyed subroutine form when in is a ds_read_b64_tr_b16 into
// AGPRs and the kernel scope (scope walks its instructions; memo is the
// pair's per-scope cache) has readTrDestMin or more such reads into the
// same pair, and nil otherwise (the rule as registered).
func ReadTrDestRuleAt(in *isa.Inst, memo map[string]any, scope func(fn func(*isa.Inst))) *Rule {
	m, _, ok := readTrMemberOf(in)
	if !ok || !m.acc || memo == nil || scope == nil {
		return nil
	}
	counts, _ := memo[readTrDestsKey].(map[uint16]int)
	if counts == nil {
		counts = map[uint16]int{}
		scope(func(x *isa.Inst) {
			if u, _, ok := readTrMemberOf(x); ok && u.acc {
				counts[u.vdst]++
			}
		})
		memo[readTrDestsKey] = counts
	}
	if counts[m.vdst] < readTrDestMin {
		return nil
	}
	readTrDestOnce.Do(func() {
		if base := For(isa.GFX950, isa.GFX942, "ds_read_b64_tr_b16"); base != nil {
			r := *base
			r.Shared = readTrDestShared
			readTrDest = &r
		}
	})
	return readTrDest
}

// readTrDestFields parses a 16-bit transposed read into AGPRs.
func readTrDestFields(in *isa.Inst, raw []byte) (readTrFields, error) {
	f, err := parseReadTr(in, raw)
	if err == nil && (f.bits != 16 || !f.acc) {
		err = fieldErr(in, "destination-keyed form", uint32(f.bits))
	}
	return f, err
}

// readTrDestKeys are the destination-keyed subroutine keys by AGPR pair
// (parseReadTr allows destinations up to 254), made once.
var readTrDestKeys = func() (keys [255]string) {
	for a := range keys {
		keys[a] = "ds-read-tr/16/a" + strconv.Itoa(a)
	}
	return keys
}()

func readTrDestKey(in *isa.Inst, raw []byte) (string, bool) {
	f, err := readTrDestFields(in, raw)
	if err != nil {
		return "", false
	}
	return readTrDestKeys[f.vdst], true
}

// readTrDestLayout lays out the address and the temporaries (the result
// dwords are assembled in the last one) from regs.
func readTrDestLayout(vdst uint16, regs []uint16) (addr uint16, t, used []uint16, err error) {
	p := newRegPool(regs)
	if addr, err = p.one(); err != nil {
		return
	}
	t = make([]uint16, ReadTrTemps(16, vdst, true, addr))
	for i := range t {
		if t[i], err = p.one(); err != nil {
			return
		}
	}
	return addr, t, p.used, nil
}

func readTrDestSite(in *isa.Inst, raw []byte, regs SharedRegs) (SharedSite, error) {
	f, err := readTrDestFields(in, raw)
	if err != nil {
		return SharedSite{}, err
	}
	addr, _, used, err := readTrDestLayout(f.vdst, regs.V)
	if err != nil {
		return SharedSite{}, err
	}
	pre := readTrAddr(addr, f.vaddr, f.off)
	return SharedSite{Pre: appendWords(nil, pre...), Used: used}, nil
}

func readTrDestBody(in *isa.Inst, raw []byte, regs SharedRegs) ([]byte, error) {
	f, err := readTrDestFields(in, raw)
	if err != nil {
		return nil, err
	}
	addr, t, _, err := readTrDestLayout(f.vdst, regs.V)
	if err != nil {
		return nil, err
	}
	return ReadTrCode(16, f.vdst, true, addr, 0, t)
}

// readTrAddr is the call site's address set-up of a transposed-read
// subroutine: addr = vaddr + off (a move, an inline or a literal add).
func readTrAddr(addr, vaddr uint16, off uint32) []uint32 {
	switch {
	case off == 0:
		return smVOP1(smMovB32, addr, srcVGPR+vaddr, 0)
	case off <= 64:
		return vop2(op2AddU32, addr, inlineInt(int(off)), vaddr, 0)
	default:
		return vop2(op2AddU32, addr, srcLit, vaddr, off)
	}
}
