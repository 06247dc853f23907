package kernelref

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
)

// allTargets is the default target list; mfmaTargets and wmmaTargets are
// for kernels that use matrix instructions of one family.
var (
	allTargets  = []string{"gfx942", "gfx950", "gfx1200", "gfx1201"}
	mfmaTargets = []string{"gfx942", "gfx950"}
	wmmaTargets = []string{"gfx1200", "gfx1201"}
)

// builder assembles a Case: arguments are added in declaration order and
// the kernarg offsets follow the AMDGPU rule (each argument at the next
// multiple of its alignment: 8 for buffers, the size for scalars).
type builder struct {
	c   Case
	off int
	rng *rng
}

func newCase(name, doc string, grid, block [3]uint32) *builder {
	h := fnv.New64a()
	h.Write([]byte(name))
	seed := h.Sum64()
	return &builder{
		c: Case{
			Name:    name,
			Source:  "testdata/kernels/src/" + name + ".cl",
			Doc:     doc,
			Targets: allTargets,
			Grid:    grid,
			Block:   block,
			Seed:    seed,
		},
		rng: newRNG(seed),
	}
}

func (b *builder) place(size, align int) int {
	b.off = (b.off + align - 1) / align * align
	o := b.off
	b.off += size
	return o
}

func (b *builder) add(a Arg) int {
	b.c.Args = append(b.c.Args, a)
	return len(b.c.Args) - 1
}

// in adds an input buffer holding init (a slice of a fixed-size type).
func (b *builder) in(name string, e Elem, init any) int {
	return b.buf(name, BufferIn, e, init)
}

// inout adds a buffer the kernel reads and writes.
func (b *builder) inout(name string, e Elem, init any) int {
	return b.buf(name, BufferInOut, e, init)
}

// out adds a zero-filled output buffer of count elements.
func (b *builder) out(name string, e Elem, count int) int {
	return b.buf(name, BufferOut, e, make([]byte, count*e.Size()))
}

func (b *builder) buf(name string, k ArgKind, e Elem, init any) int {
	raw := encode(init)
	if len(raw)%e.Size() != 0 {
		panic(fmt.Sprintf("kernelref: %s: buffer %s of %d bytes is not a whole number of %s", b.c.Name, name, len(raw), e))
	}
	return b.add(Arg{Name: name, Kind: k, Elem: e, Count: len(raw) / e.Size(), Offset: b.place(8, 8), Size: 8, Init: raw, Expected: raw})
}

// scalar adds a by-value argument.
func (b *builder) scalar(name string, e Elem, v any) int {
	raw := encode(v)
	if len(raw) != e.Size() {
		panic(fmt.Sprintf("kernelref: %s: scalar %s has %d bytes, want %d", b.c.Name, name, len(raw), e.Size()))
	}
	return b.add(Arg{Name: name, Kind: Scalar, Elem: e, Offset: b.place(e.Size(), e.Size()), Size: e.Size(), Value: raw})
}

// dynLDS adds an OpenCL __local pointer argument for count elements; the
// kernarg holds offset 0 (the corpus's dynamic-LDS kernels have no static
// LDS).
func (b *builder) dynLDS(name string, e Elem, count int) int {
	return b.add(Arg{Name: name, Kind: DynamicLDS, Elem: e, Count: count, Offset: b.place(4, 4), Size: 4, Value: make([]byte, 4)})
}

// hidden appends the code-object-v5 implicit arguments clang lists for an
// OpenCL kernel that reads them, with the values a runtime fills for this
// case's grid and block: full block counts, group sizes, remainders (items
// in a partial last group), the global offsets given, and grid dims.
func (b *builder) hidden(globalOffset [3]uint64, gridDims uint16) {
	b.hiddenArgs(globalOffset, gridDims, false)
}

// hiddenWithPointers is hidden plus the pointer-valued implicit arguments
// clang lists when a kernel makes indirect calls (the callee might use
// them): hostcall buffer, multigrid sync, heap, default queue, completion
// action and queue pointer, all 0 here (the corpus uses none of them).
func (b *builder) hiddenWithPointers(globalOffset [3]uint64, gridDims uint16) {
	b.hiddenArgs(globalOffset, gridDims, true)
}

func (b *builder) hiddenArgs(globalOffset [3]uint64, gridDims uint16, pointers bool) {
	base := (b.off + 7) &^ 7
	add := func(name string, e Elem, at int, v any) {
		b.add(Arg{Name: name, Kind: Hidden, Elem: e, Offset: base + at, Size: e.Size(), Value: encode(v)})
	}
	g, k := b.c.Grid, b.c.Block
	for d, n := range []string{"x", "y", "z"} {
		add("hidden_block_count_"+n, U32, 4*d, g[d]/k[d])
	}
	for d, n := range []string{"x", "y", "z"} {
		add("hidden_group_size_"+n, U16, 12+2*d, uint16(k[d]))
	}
	for d, n := range []string{"x", "y", "z"} {
		add("hidden_remainder_"+n, U16, 18+2*d, uint16(g[d]%k[d]))
	}
	for d, n := range []string{"x", "y", "z"} {
		add("hidden_global_offset_"+n, U64, 40+8*d, globalOffset[d])
	}
	add("hidden_grid_dims", U16, 64, gridDims)
	if pointers {
		for _, p := range []struct {
			name string
			at   int
		}{
			{"hidden_hostcall_buffer", 80}, {"hidden_multigrid_sync_arg", 88}, {"hidden_heap_v1", 96},
			{"hidden_default_queue", 104}, {"hidden_completion_action", 112}, {"hidden_queue_ptr", 200},
		} {
			add(p.name, U64, p.at, uint64(0))
		}
	}
	b.off = base + 256 // the implicit argument block is 256 bytes
}

// targets restricts the case to a target list.
func (b *builder) targets(t []string) { b.c.Targets = t }

// expect sets the expected image of buffer argument i.
func (b *builder) expect(i int, v any) {
	raw := encode(v)
	if len(raw) != len(b.c.Args[i].Init) {
		panic(fmt.Sprintf("kernelref: %s: expected %s has %d bytes, want %d", b.c.Name, b.c.Args[i].Name, len(raw), len(b.c.Args[i].Init)))
	}
	b.c.Args[i].Expected = raw
}

// tol sets the tolerance of buffer argument i.
func (b *builder) tol(i int, t Tolerance) { b.c.Args[i].Tol = t }

func (b *builder) done() Case {
	b.c.KernargSize = b.off
	return b.c
}

// encode turns a fixed-size value or slice into little-endian bytes.
func encode(v any) []byte {
	if raw, ok := v.([]byte); ok {
		return raw
	}
	out, err := binary.Append(nil, binary.LittleEndian, v)
	if err != nil {
		panic("kernelref: encode: " + err.Error())
	}
	return out
}

// rng is splitmix64: a tiny fixed generator, so inputs never depend on a
// library's choice of algorithm.
type rng struct{ s uint64 }

func newRNG(seed uint64) *rng { return &rng{seed} }

func (r *rng) u64() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *rng) u32() uint32 { return uint32(r.u64() >> 32) }

// below returns a value in [0, n).
func (r *rng) below(n uint32) uint32 { return uint32((r.u64() >> 32) * uint64(n) >> 32) }

// f64 returns a value in [lo, hi).
func (r *rng) f64(lo, hi float64) float64 {
	return lo + (hi-lo)*float64(r.u64()>>11)/(1<<53)
}

// f32 returns a float32 in [lo, hi), never zero.
func (r *rng) f32(lo, hi float32) float32 {
	for {
		if v := float32(r.f64(float64(lo), float64(hi))); v != 0 {
			return v
		}
	}
}

func (r *rng) u32s(n int) []uint32 {
	s := make([]uint32, n)
	for i := range s {
		s[i] = r.u32()
	}
	return s
}

func (r *rng) u32sBelow(n int, max uint32) []uint32 {
	s := make([]uint32, n)
	for i := range s {
		s[i] = r.below(max)
	}
	return s
}

func (r *rng) f32s(n int, lo, hi float32) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = r.f32(lo, hi)
	}
	return s
}

// F16ToFloat64 converts IEEE binary16 bits to float64 (exact).
func F16ToFloat64(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	man := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(man, -24)
	case 0x1f:
		if man != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1024+man, exp-25)
}

// F16FromFloat64 rounds x to IEEE binary16 bits, to nearest even, with
// overflow to infinity and gradual underflow. NaN becomes the quiet NaN
// 0x7e00 (with x's sign).
func F16FromFloat64(x float64) uint16 {
	var sign uint16
	if math.Signbit(x) {
		sign = 0x8000
		x = -x
	}
	switch {
	case math.IsNaN(x):
		return sign | 0x7e00
	case x == 0:
		return sign
	case math.IsInf(x, 0) || x >= 65520: // halfway between 65504 and 2^16 rounds to inf
		return sign | 0x7c00
	}
	_, e := math.Frexp(x)      // x = m * 2^e, m in [0.5, 1)
	qexp := max(e-1, -14) - 10 // exponent of one unit in the last place
	r := math.RoundToEven(math.Ldexp(x, -qexp))
	v := math.Ldexp(r, qexp)
	if v >= 65520 {
		return sign | 0x7c00
	}
	if v < math.Ldexp(1, -14) {
		return sign | uint16(math.Ldexp(v, 24))
	}
	_, e = math.Frexp(v)
	man := math.Ldexp(v, 11-e) - 1024 // v = (1024+man) * 2^(e-11)
	return sign | uint16(e-1+15)<<10 | uint16(man)
}
