package gfx950gfx12

import (
	"fmt"
	"sync"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
	"github.com/rocjitsu/rocjitsu/dbt/rules"
	"github.com/rocjitsu/rocjitsu/loader"
)

// The subroutine form of the f8f6f4 rule (issue 15/18: the FP4 GEMM's
// inline expansions of 283 host instructions each made its gfx1201 .text
// 46x the guest's). One body per kernel and key (guest operation, A and B
// formats, C an inline constant or registers) runs the WMMA expansion of
// scalemfma.go on fixed VGPRs: C/D, A, B, the two scale bytes, then the
// expansion's own scratch registers, all taken in the order the
// translator lists them; the MODE save of the expansion goes to the
// fixed SGPR pair (Shared.SGPRPair). A call site is
//
//	v_mov_b32                    A, B (and C unless it is a constant) into the fixed A, B, C/D
//	v_bfe_u32                    each scale byte into its fixed register (scaled forms)
//	s_call_b64                   the body (ends with s_setpc_b64)
//	v_mov_b32                    the fixed C/D into the guest's D
//
// which is 19 instructions for the scaled 16x16x128 E2M1 MFMA (A, B and C
// 4 registers each), 6+6+2+16+1+16 = 47 for a scaled 32x32x64 E2M3
// one. gfx12 interlocks VALU and WMMA register dependencies, so the site
// needs no waits. The body computes what the inline expansion computes on
// copies of the same values (the scale bytes already extracted, selected
// again as byte 0), so the results are identical.

// f8f6f4SharedKey is the body key: operation, formats, constant C.
func f8f6f4SharedKey(base int) func(in *isa.Inst, raw []byte) (string, bool) {
	return func(in *isa.Inst, _ []byte) (string, bool) {
		sh, ok := f8f6f4Shapes[in.Name()]
		if !ok || f8f6f4Short(in, sh) {
			return "", false
		}
		o, err := f8f6f4Check(in, sharedSite(base), sh)
		if err != nil {
			return "", false
		}
		c := "reg"
		if o.c.Kind != isa.KindReg {
			c = fmt.Sprintf("const%d", o.c.Imm)
		}
		return fmt.Sprintf("gfx12-f8f6f4/%s/%d/%d/%s", in.Name(), in.Mod.CBSZ, in.Mod.BLGP, c), true
	}
}

// f8f6f4Short reports the form that stays inline: the plain 16x16x128
// MFMA on E4M3/E5M2 A and B, whose 41-instruction expansion runs eight
// WMMAs on the guest registers themselves; a call would copy 24 registers
// in and out to save about 16 instructions of code, and execute more.
func f8f6f4Short(in *isa.Inst, sh f8f6f4Shape) bool {
	return !sh.scaled && sh.m == 16 && in.Mod.CBSZ < 2 && in.Mod.BLGP < 2
}

// sharedKernel stands in for the kernel in the operand mapping of the
// shared form (hostOperands only needs one to map AGPRs).
var sharedKernel = &loader.Kernel{}

// sharedSite is the operand-mapping site of a kernel whose guest a0 is
// host VGPR base.
func sharedSite(base int) pair.Site { return pair.Site{Kernel: sharedKernel, AGPRBase: base} }

// fixedCtx hands out the fixed registers of a shared body as a rule
// context: VGPRs in list order, the fixed SGPR pair.
type fixedCtx struct {
	free  []uint16
	used  []uint16
	spair uint16
}

// TempVGPRs implements rules.Context.
func (c *fixedCtx) TempVGPRs(n int) ([]uint16, error) {
	if n > len(c.free) {
		return nil, fmt.Errorf("%d fixed VGPRs wanted, %d left", n, len(c.free))
	}
	out := append([]uint16(nil), c.free[:n]...)
	c.free = c.free[n:]
	c.used = append(c.used, out...)
	return out, nil
}

// TempVGPRRange implements rules.Context: the first run of n consecutive
// free registers, in list order, starting at a multiple of align.
func (c *fixedCtx) TempVGPRRange(n, align int) (uint16, error) {
	in := map[uint16]bool{}
	for _, r := range c.free {
		in[r] = true
	}
	for _, r := range c.free {
		if int(r)%max(align, 1) != 0 || int(r)+n > 256 {
			continue
		}
		ok := true
		for i := 1; i < n && ok; i++ {
			ok = in[r+uint16(i)]
		}
		if !ok {
			continue
		}
		var rest []uint16
		for _, x := range c.free {
			if x < r || x >= r+uint16(n) {
				rest = append(rest, x)
			}
		}
		c.free = rest
		for i := 0; i < n; i++ {
			c.used = append(c.used, r+uint16(i))
		}
		return r, nil
	}
	return 0, fmt.Errorf("no %d consecutive fixed VGPRs among %d", n, len(c.free))
}

// TempSGPRPair implements rules.Context.
func (c *fixedCtx) TempSGPRPair() (uint16, error) { return c.spair, nil }

// f8f6f4Fixed is the layout of one use: the guest's host operands and the
// fixed registers, the body on them and every fixed register used.
type f8f6f4Fixed struct {
	o        f8f6f4Operands
	cd, a, b uint16
	sc       [2]uint16
	body     []byte
	used     []uint16
}

// f8f6f4Layout lays out in's fixed registers from regs and builds the body.
func f8f6f4Layout(in *isa.Inst, base int, regs rules.SharedRegs) (f8f6f4Fixed, error) {
	var l f8f6f4Fixed
	sh, ok := f8f6f4Shapes[in.Name()]
	if !ok {
		return l, fmt.Errorf("%s is not an f8f6f4 MFMA", in.Name())
	}
	o, err := f8f6f4Check(in, sharedSite(base), sh)
	if err != nil {
		return l, err
	}
	l.o = o
	ctx := &fixedCtx{free: append([]uint16(nil), regs.V...), spair: regs.SPair}
	cd := int(o.d.Width)
	if l.cd, err = ctx.TempVGPRRange(cd, 1); err != nil {
		return l, err
	}
	if l.a, err = ctx.TempVGPRRange(int(o.a.Width), 1); err != nil {
		return l, err
	}
	if l.b, err = ctx.TempVGPRRange(int(o.b.Width), 1); err != nil {
		return l, err
	}
	if sh.scaled {
		sc, err := ctx.TempVGPRs(2)
		if err != nil {
			return l, err
		}
		l.sc = [2]uint16{sc[0], sc[1]}
	}
	// The body's operands: the fixed registers, D = C (the expansion
	// writes D register by register from the sums and C, which D = C
	// allows), the constant C kept, the scale bytes as byte 0.
	bo := f8f6f4Operands{d: vr(l.cd, uint8(cd)), a: vr(l.a, o.a.Width), b: vr(l.b, o.b.Width), c: o.c}
	if o.c.Kind == isa.KindReg {
		bo.c = bo.d
	}
	if sh.scaled {
		bo.sa, bo.sb = v1(l.sc[0]), v1(l.sc[1])
	}
	g := newF8F6F4Gen(ctx, in, sh, bo)
	if err := g.emit(); err != nil {
		return l, err
	}
	if l.body, err = seq(g.hs...); err != nil {
		return l, err
	}
	l.used = ctx.used
	return l, nil
}

// f8f6f4SharedSite returns a use's call-site code.
func f8f6f4SharedSite(base int) func(in *isa.Inst, raw []byte, regs rules.SharedRegs) (rules.SharedSite, error) {
	return func(in *isa.Inst, _ []byte, regs rules.SharedRegs) (rules.SharedSite, error) {
		l, err := f8f6f4Layout(in, base, regs)
		if err != nil {
			return rules.SharedSite{}, err
		}
		mov := func(dst, src uint16, n uint8) []host {
			var hs []host
			for i := uint16(0); i < uint16(n); i++ {
				hs = append(hs, host{mnem: "v_mov_b32_e32", ops: []isa.Operand{v1(dst + i), v1(src + i)}})
			}
			return hs
		}
		o := l.o
		pre := append(mov(l.a, o.a.Reg, o.a.Width), mov(l.b, o.b.Reg, o.b.Width)...)
		if f8f6f4Shapes[in.Name()].scaled {
			pre = append(pre,
				host{mnem: "v_bfe_u32", ops: []isa.Operand{v1(l.sc[0]), o.sa, inl(8 * o.selA), inl(8)}},
				host{mnem: "v_bfe_u32", ops: []isa.Operand{v1(l.sc[1]), o.sb, inl(8 * o.selB), inl(8)}})
		}
		if o.c.Kind == isa.KindReg {
			pre = append(pre, mov(l.cd, o.c.Reg, o.c.Width)...)
		}
		preB, err := seq(pre...)
		if err != nil {
			return rules.SharedSite{}, err
		}
		postB, err := seq(mov(o.d.Reg, l.cd, o.d.Width)...)
		if err != nil {
			return rules.SharedSite{}, err
		}
		return rules.SharedSite{Pre: preB, Post: postB, Used: l.used}, nil
	}
}

// f8f6f4SharedBody returns a key's body.
func f8f6f4SharedBody(base int) func(in *isa.Inst, raw []byte, regs rules.SharedRegs) ([]byte, error) {
	return func(in *isa.Inst, _ []byte, regs rules.SharedRegs) ([]byte, error) {
		l, err := f8f6f4Layout(in, base, regs)
		return l.body, err
	}
}

// f8f6f4SharedNames lists the guest registers a use reads or writes
// (AGPRs as 256+a): A, B, C, D and VGPR scale operands.
func f8f6f4SharedNames(in *isa.Inst, _ []byte) ([]uint16, bool) {
	var out []uint16
	for _, o := range in.Operands {
		if o.Kind != isa.KindReg {
			continue
		}
		var at uint16
		switch o.Class {
		case isa.VGPR:
		case isa.AGPR:
			at = 256
		case isa.SGPR:
			continue
		default:
			return nil, false
		}
		if int(o.Reg)+int(o.Width) > 256 {
			return nil, false
		}
		for i := uint16(0); i < uint16(o.Width); i++ {
			out = append(out, at+o.Reg+i)
		}
	}
	return out, true
}

// f8f6f4SharedMemorySaves is the most fixed registers a use saves to
// private memory (a store and a load each) when too few VGPRs are free at
// every use: the 74 of a scaled 32x32x64 E2M1 use all saved. The inline
// expansion it replaces (283-563 instructions) borrows as many scratch
// registers and saves the live ones to private memory the same way; the
// calls save every fixed register live at any use of the key, so they
// execute more (fmha_v4_fwd_*: 15% more host instructions on the
// simulator, `rocjitsu verify --host gfx1201 --fill int`) for code a
// quarter the size.
const f8f6f4SharedMemorySaves = 96

// sharedForms caches the f8f6f4 shared forms, one per AGPR base and key,
// so that every use of a key in a kernel gets the same pointer and each
// key has its own plan: its fixed registers are those its own uses do not
// name (the uses of another key may name them).
var sharedForms sync.Map // sharedFormID -> *rules.Shared

// sharedFormID names one shared form.
type sharedFormID struct {
	base int
	key  string
}

// f8f6f4Shared returns the shared form of key for kernels whose guest a0
// is host VGPR base.
func f8f6f4Shared(base int, key string) *rules.Shared {
	id := sharedFormID{base, key}
	if s, ok := sharedForms.Load(id); ok {
		return s.(*rules.Shared)
	}
	s, _ := sharedForms.LoadOrStore(id, &rules.Shared{
		Key: f8f6f4SharedKey(base), Site: f8f6f4SharedSite(base), Body: f8f6f4SharedBody(base),
		Names: f8f6f4SharedNames, SGPRPair: true, MemorySaves: f8f6f4SharedMemorySaves,
	})
	return s.(*rules.Shared)
}

// SharedForm implements pair.SharedForms: the f8f6f4 MFMAs other than the
// short form have one per key.
func (Pair) SharedForm(in *isa.Inst, agprBase int) *rules.Shared {
	if _, ok := f8f6f4Shapes[in.Name()]; !ok || in.Info == nil {
		return nil
	}
	key, ok := f8f6f4SharedKey(agprBase)(in, nil)
	if !ok {
		return nil
	}
	return f8f6f4Shared(agprBase, key)
}

var _ pair.SharedForms = Pair{}
