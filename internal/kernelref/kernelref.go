// Package kernelref describes every kernel of rocjitsu's own test-kernel
// corpus (testdata/kernels) as a runnable case: the dispatch shape, the
// kernel arguments with deterministic (seeded) initial buffer contents, and
// the memory image a correct execution leaves behind, computed by a Go CPU
// reference that does exactly what the OpenCL C source does.
//
// A runner (the simulator, a real GPU, a translated object on either) uses
// it like this:
//
//	for _, c := range kernelref.AllCases() {
//		obj, _ := os.ReadFile(filepath.Join(root, c.Object("gfx942")))
//		// allocate one device buffer per buffer argument, copy c.Args[i].Init
//		// into it, remember its address in addrs[i]
//		ka := c.Kernarg(addrs)           // the kernarg segment bytes
//		// dispatch c.Name with grid c.Grid (work-items) and group c.Block,
//		// group_segment_size = the descriptor's static LDS + c.DynamicLDS()
//		// read every buffer back into outs[i]
//		if err := c.Check(outs); err != nil { ... }
//	}
//
// Integer results and IEEE float operations are bit-exact (the corpus is
// compiled with -ffp-contract=off and the references round each operation
// as the source does). Hardware transcendentals and the OpenCL 2.5-ulp
// division carry a Tolerance on their output buffers.
package kernelref

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"path"
	"slices"
)

// Targets of the corpus: the processors the objects are built for (gfx950
// objects are the gfx942 build retargeted).
var Targets = []string{"gfx942", "gfx950", "gfx1200", "gfx1201"}

// Elem is the element type of a buffer or the type of a scalar argument.
type Elem string

// Element types. F32x4 is OpenCL's float4 (a 16-byte, 16-aligned scalar
// argument).
const (
	I8    Elem = "i8"
	U8    Elem = "u8"
	I16   Elem = "i16"
	U16   Elem = "u16"
	F16   Elem = "f16"
	I32   Elem = "i32"
	U32   Elem = "u32"
	F32   Elem = "f32"
	I64   Elem = "i64"
	U64   Elem = "u64"
	F64   Elem = "f64"
	F32x4 Elem = "f32x4"
)

// Size returns the size of one element in bytes, 0 for an unknown type.
func (e Elem) Size() int {
	switch e {
	case I8, U8:
		return 1
	case I16, U16, F16:
		return 2
	case I32, U32, F32:
		return 4
	case I64, U64, F64:
		return 8
	case F32x4:
		return 16
	}
	return 0
}

// ArgKind says how a kernel argument is passed and used.
type ArgKind string

// Argument kinds. Buffers are passed as a 64-bit global address in the
// kernarg segment; scalars by value.
const (
	BufferIn    ArgKind = "buffer_in"    // read by the kernel, must be unchanged after it
	BufferOut   ArgKind = "buffer_out"   // written by the kernel; Init is zeros
	BufferInOut ArgKind = "buffer_inout" // read and written
	Scalar      ArgKind = "scalar"       // passed by value
	// Hidden is an implicit argument the runtime fills (code object v5
	// hidden_* value kinds); Name is the value kind, Value the bytes the
	// case expects there (Kernarg writes them).
	Hidden ArgKind = "hidden"
	// DynamicLDS is an OpenCL __local pointer argument (value kind
	// dynamic_shared_pointer): Count elements of Elem in LDS sized at
	// dispatch time; Value holds the 4-byte group-segment offset the
	// kernarg carries. See Case.DynamicLDS.
	DynamicLDS ArgKind = "dynamic_lds"
)

// IsBuffer reports whether the argument is a global buffer.
func (k ArgKind) IsBuffer() bool {
	return k == BufferIn || k == BufferOut || k == BufferInOut
}

// Tolerance bounds the difference between a produced and an expected
// floating-point element. The zero value means bit-exact. An element
// passes when it is bit-identical, or within ULP units in the last place,
// or within Abs absolutely.
type Tolerance struct {
	ULP uint64  `json:"ulp,omitempty"`
	Abs float64 `json:"abs,omitempty"`
}

// Exact reports whether the tolerance demands identical bytes.
func (t Tolerance) Exact() bool { return t.ULP == 0 && t.Abs == 0 }

// Arg is one kernel argument, in declaration order.
type Arg struct {
	Name   string  // parameter name in the source
	Kind   ArgKind // buffer in/out/inout or scalar
	Elem   Elem    // element type (buffers) or value type (scalars)
	Count  int     // number of elements of a buffer or dynamic LDS area; 0 for scalars
	Offset int     // byte offset in the kernarg segment (as the metadata says)
	Size   int     // bytes in the kernarg segment: 8 for a buffer address, 4 for dynamic LDS, else Elem.Size()

	// Value holds the little-endian kernarg bytes of a scalar, hidden or
	// dynamic-LDS argument (len Size).
	Value []byte
	// Init holds a buffer's initial contents (len Count*Elem.Size()).
	Init []byte
	// Expected holds a buffer's contents after the kernel (for BufferIn it
	// equals Init).
	Expected []byte
	// Tol is the tolerance applied to Expected (float buffers only).
	Tol Tolerance
}

// Case is one dispatch of one corpus kernel with its inputs and expected
// outputs.
type Case struct {
	// Name is the kernel's name: its symbol is Name, its descriptor
	// Name+".kd"; the source is Source and the object for target T is
	// Object(T).
	Name   string
	Source string // path relative to the project root
	// Doc is a one-line description.
	Doc string
	// Targets lists the processors the kernel is built for (MFMA kernels
	// only for gfx942/gfx950, WMMA only for gfx1200/gfx1201).
	Targets []string
	// Grid is the AQL grid size in work-items per dimension (not in
	// groups); it need not be a multiple of Block (partial groups).
	Grid [3]uint32
	// Block is the work-group size per dimension.
	Block [3]uint32
	// KernargSize is the kernarg segment size the metadata declares.
	KernargSize int
	// Args are the kernel arguments in order.
	Args []Arg
	// Seed is the seed the inputs were generated from.
	Seed uint64
}

// Object returns the path, relative to the project root, of the code
// object holding the kernel for target (e.g. "gfx942").
func (c *Case) Object(target string) string {
	return path.Join("testdata", "kernels", target, c.Name+".co")
}

// HasTarget reports whether the kernel is built for target.
func (c *Case) HasTarget(target string) bool { return slices.Contains(c.Targets, target) }

// Kernarg returns the kernarg segment: every scalar's bytes and every
// buffer's address (addrs[argument index]) at its offset. A buffer
// argument missing from addrs is an error.
func (c *Case) Kernarg(addrs map[int]uint64) ([]byte, error) {
	ka := make([]byte, c.KernargSize)
	for i, a := range c.Args {
		if a.Offset+a.Size > len(ka) {
			return nil, fmt.Errorf("kernelref: %s arg %d (%s): offset %d size %d past kernarg size %d", c.Name, i, a.Name, a.Offset, a.Size, len(ka))
		}
		if !a.Kind.IsBuffer() {
			copy(ka[a.Offset:], a.Value)
			continue
		}
		addr, ok := addrs[i]
		if !ok {
			return nil, fmt.Errorf("kernelref: %s arg %d (%s): no buffer address", c.Name, i, a.Name)
		}
		binary.LittleEndian.PutUint64(ka[a.Offset:], addr)
	}
	return ka, nil
}

// DynamicLDS returns the bytes of LDS the dispatch must add to the
// kernel's static group segment size (the AQL packet's group_segment_size
// is the static size from the descriptor plus this). The corpus's kernels
// with dynamic LDS have no static LDS, so their offsets are 0.
func (c *Case) DynamicLDS() uint32 {
	var n uint32
	for _, a := range c.Args {
		if a.Kind == DynamicLDS {
			n += uint32(a.Count * a.Elem.Size())
		}
	}
	return n
}

// ImplicitArgOffset returns the kernarg offset where the implicit (hidden)
// arguments begin, what __builtin_amdgcn_implicitarg_ptr() points to, and
// whether the kernel has any.
func (c *Case) ImplicitArgOffset() (int, bool) {
	for _, a := range c.Args {
		if a.Kind == Hidden && a.Name == "hidden_block_count_x" {
			return a.Offset, true
		}
	}
	return 0, false
}

// Buffers returns the indexes of the buffer arguments.
func (c *Case) Buffers() []int {
	var idx []int
	for i, a := range c.Args {
		if a.Kind.IsBuffer() {
			idx = append(idx, i)
		}
	}
	return idx
}

// Check compares the buffers read back after the kernel (outputs[argument
// index]) with the expected images. Every buffer argument must be present;
// inputs must be unchanged. The error names the argument, the first
// mismatching element, its byte offset and both values, and counts the
// mismatches.
func (c *Case) Check(outputs map[int][]byte) error {
	for _, i := range c.Buffers() {
		a := &c.Args[i]
		got, ok := outputs[i]
		if !ok {
			return fmt.Errorf("kernelref: %s: no output for arg %d (%s)", c.Name, i, a.Name)
		}
		if err := a.check(got); err != nil {
			return fmt.Errorf("kernelref: %s: arg %d (%s): %w", c.Name, i, a.Name, err)
		}
	}
	return nil
}

func (a *Arg) check(got []byte) error {
	if len(got) != len(a.Expected) {
		return fmt.Errorf("got %d bytes, want %d", len(got), len(a.Expected))
	}
	if bytes.Equal(got, a.Expected) {
		return nil
	}
	es := a.Elem.Size()
	bad, first := 0, -1
	for off := 0; off < len(got); off += es {
		g, w := got[off:off+es], a.Expected[off:off+es]
		if bytes.Equal(g, w) || a.within(g, w) {
			continue
		}
		if first < 0 {
			first = off
		}
		bad++
	}
	if bad == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d elements differ; first: element %d (byte offset %d) = %s, want %s (tolerance %+v)",
		bad, len(got)/es, first/es, first, a.Elem.Format(got[first:first+es]), a.Elem.Format(a.Expected[first:first+es]), a.Tol)
}

// within applies the tolerance to one float element.
func (a *Arg) within(g, w []byte) bool {
	if a.Tol.Exact() {
		return false
	}
	switch a.Elem {
	case F32:
		gf := math.Float32frombits(binary.LittleEndian.Uint32(g))
		wf := math.Float32frombits(binary.LittleEndian.Uint32(w))
		return closeEnough(float64(gf), float64(wf), ulpDiff32(gf, wf), a.Tol)
	case F64:
		gf := math.Float64frombits(binary.LittleEndian.Uint64(g))
		wf := math.Float64frombits(binary.LittleEndian.Uint64(w))
		return closeEnough(gf, wf, ulpDiff64(gf, wf), a.Tol)
	}
	return false
}

func closeEnough(g, w float64, ulps uint64, t Tolerance) bool {
	if math.IsNaN(g) || math.IsNaN(w) {
		return false
	}
	return ulps <= t.ULP || math.Abs(g-w) <= t.Abs
}

// ulpDiff32 is the distance in representable values between two finite
// float32s (maps sign-magnitude to a monotone integer line).
func ulpDiff32(a, b float32) uint64 {
	ia, ib := orderKey32(a), orderKey32(b)
	if ia > ib {
		return uint64(ia - ib)
	}
	return uint64(ib - ia)
}

func orderKey32(f float32) int64 {
	b := math.Float32bits(f)
	if b&0x80000000 != 0 {
		return -int64(b & 0x7fffffff)
	}
	return int64(b)
}

func ulpDiff64(a, b float64) uint64 {
	ia, ib := orderKey64(a), orderKey64(b)
	if ia > ib {
		return uint64(ia) - uint64(ib)
	}
	return uint64(ib) - uint64(ia)
}

func orderKey64(f float64) int64 {
	b := math.Float64bits(f)
	if b&(1<<63) != 0 {
		return -int64(b &^ (1 << 63))
	}
	return int64(b)
}

// Format renders one little-endian element of type e for messages.
func (e Elem) Format(b []byte) string {
	if len(b) < e.Size() {
		return fmt.Sprintf("% x", b)
	}
	switch e {
	case I8:
		return fmt.Sprint(int8(b[0]))
	case U8:
		return fmt.Sprint(b[0])
	case I16:
		return fmt.Sprint(int16(binary.LittleEndian.Uint16(b)))
	case U16:
		return fmt.Sprint(binary.LittleEndian.Uint16(b))
	case F16:
		h := binary.LittleEndian.Uint16(b)
		return fmt.Sprintf("%g (0x%04x)", F16ToFloat64(h), h)
	case I32:
		return fmt.Sprint(int32(binary.LittleEndian.Uint32(b)))
	case U32:
		return fmt.Sprintf("%d (0x%08x)", binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b))
	case F32:
		u := binary.LittleEndian.Uint32(b)
		return fmt.Sprintf("%g (0x%08x)", math.Float32frombits(u), u)
	case I64:
		return fmt.Sprint(int64(binary.LittleEndian.Uint64(b)))
	case U64:
		return fmt.Sprintf("%d (0x%016x)", binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b))
	case F64:
		u := binary.LittleEndian.Uint64(b)
		return fmt.Sprintf("%g (0x%016x)", math.Float64frombits(u), u)
	case F32x4:
		var s [4]float32
		for i := range s {
			s[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return fmt.Sprint(s)
	}
	return fmt.Sprintf("% x", b)
}

// Cases returns the corpus cases built from portable sources (for gfx942,
// gfx950, gfx1200, gfx1201) that run with nothing but a grid, a block and
// the kernarg segment (Case.Kernarg), freshly built (callers may modify
// them). Inputs are generated from fixed seeds, so every call returns the
// same bytes.
func Cases() []Case {
	var out []Case
	for _, c := range AllCases() {
		if c.DynamicLDS() == 0 && !c.GFX950Only() {
			out = append(out, c)
		}
	}
	return out
}

// GFX950Only reports whether the case exists only as a gfx950 object:
// the gfx950_* guests with gfx950-only instructions (raw words), and
// lds_big_dynamic, whose 96 KiB of LDS only gfx950 has.
func (c *Case) GFX950Only() bool { return len(c.Targets) == 1 && c.Targets[0] == "gfx950" }

// AllCases returns every corpus case: Cases plus those that need
// dispatch-time LDS (Case.DynamicLDS bytes added to the packet's
// group_segment_size: dynamic_lds) and the gfx950-only guests
// (Case.GFX950Only: gfx950_*).
func AllCases() []Case {
	out := make([]Case, 0, len(registry))
	for _, e := range registry {
		out = append(out, e.mk())
	}
	return out
}

// Lookup returns the case for kernel name.
func Lookup(name string) (Case, bool) {
	for _, e := range registry {
		if e.name == name {
			return e.mk(), true
		}
	}
	return Case{}, false
}
