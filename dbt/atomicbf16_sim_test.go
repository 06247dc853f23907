package dbt

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/rules"
	"github.com/rocjitsu/rocjitsu/hsa/sim"
)

// runKernelInit runs kernel "k" of obj on a simulated agent for target
// with one buffer initialised to init (its address is the only kernarg)
// and returns the buffer afterwards.
func runKernelInit(t *testing.T, obj []byte, target string, init []byte) []byte {
	t.Helper()
	ag, err := sim.NewAgent(target)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := ag.LoadCodeObject(obj)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	k, err := ex.Kernel("k")
	if err != nil {
		t.Fatal(err)
	}
	buf, err := ag.Alloc(uint64(len(init)))
	if err != nil {
		t.Fatal(err)
	}
	if err := ag.CopyIn(buf, init); err != nil {
		t.Fatal(err)
	}
	if err := ag.Dispatch(k, [3]uint32{64, 1, 1}, [3]uint32{64, 1, 1}, binary.LittleEndian.AppendUint64(nil, buf)); err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	out := make([]byte, len(init))
	if err := ag.CopyOut(buf, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// bf16Special are bf16 codes every run mixes in: signed zeros, denormals,
// the smallest and largest normals, infinities, quiet and signalling NaNs
// and values that produce rounding ties.
var bf16Special = []uint16{0x0000, 0x8000, 0x0001, 0x807f, 0x0080, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffc1, 0x3f80, 0x3f81, 0x3b80, 0xbb80, 0x4000, 0xc000}

// TestAtomicPkAddBF16OnSimulator is a differential test of the
// buffer_atomic_pk_add_bf16 rule: a kernel (the gfx950 atomic given as raw
// words) adds lane-dependent bf16 pairs to distinct dwords with sc0
// (returning the old values), to four dwords shared by 16 lanes each
// (contention: the CAS loop must retry), and once more without sc0 (vdata
// must stay unchanged). The guest runs on the simulated gfx950 agent and
// its translation on the simulated gfx942 agent, for 12 random inputs
// mixed with special values, with dead scratch registers and with every
// scratch register borrowed (saved to private memory around the loop);
// memory and returned values must be equal bit
// for bit, except that a NaN half matches any NaN half (the documented
// bound: the simulated gfx942 v_add_f32 returns the canonical quiet NaN,
// the gfx950 atomic model keeps the input's payload).
func TestAtomicPkAddBF16OnSimulator(t *testing.T) {
	guest := buildGuestFrom(t, atomicBF16Kernel(t, 3))
	for _, spill := range []bool{false, true} {
		checkAtomicBF16(t, guest, spill)
	}
}

// checkAtomicBF16 translates guest (borrowing every scratch register when
// spill) and compares the translation with the guest over 12 inputs.
func checkAtomicBF16(t *testing.T, guest []byte, spill bool) {
	t.Helper()
	res, err := Translate(guest, Options{Name: "atomicbf16", Diff: true, forceSpill: spill})
	if err != nil {
		t.Fatalf("spill %v: %v\n%+v", spill, err, res.Report)
	}
	if spill && !strings.Contains(fmt.Sprint(res.Report.Kernels[0].Notes), "borrowed") {
		t.Fatalf("spill: no scratch register was borrowed: %v", res.Report.Kernels[0].Notes)
	}
	n := 0
	for _, c := range res.Changes {
		if strings.HasPrefix(c.Guest, "buffer_atomic_pk_add_bf16") {
			n++
		}
	}
	if n != 3 {
		t.Fatalf("%d buffer_atomic_pk_add_bf16 translated, want 3", n)
	}
	const size = atomicBF16Size
	for seed := uint64(0); seed < 12; seed++ {
		init := atomicBF16Init(seed)
		want := runKernelInit(t, guest, "gfx950", init)
		got := runKernelInit(t, res.Object, "gfx942", init)
		for o := 0; o < size; o += 4 {
			g, w := binary.LittleEndian.Uint32(got[o:]), binary.LittleEndian.Uint32(want[o:])
			if g != w && !sameUpToNaN(g, w) {
				t.Fatalf("spill %v seed %d byte %d: translated %#08x, gfx950 %#08x (initial %#08x)", spill, seed, o, g, w, binary.LittleEndian.Uint32(init[o:]))
			}
		}
	}
}

// sameUpToNaN reports whether two packed bf16 pairs are equal, counting
// any two NaNs as equal.
func sameUpToNaN(a, b uint32) bool {
	isNaN := func(h uint16) bool { return h&0x7fff > 0x7f80 }
	for i := 0; i < 2; i++ {
		x, y := uint16(a>>(16*i)), uint16(b>>(16*i))
		if x != y && !(isNaN(x) && isNaN(y)) {
			return false
		}
	}
	return true
}

// atomicBF16Kernel writes the test kernel of the bf16 atomic tests (with
// the given FLOAT_DENORM_MODE_32) and returns its path.
func atomicBF16Kernel(t *testing.T, denorm int) string {
	atomic := func(vdata, vaddr, soff int, off uint32, sc0 bool) string {
		w0 := uint32(0xe0000000) | 0x52<<18 | 1<<12 | off
		if sc0 {
			w0 |= 1 << 14
		}
		w1 := uint32(vaddr) | uint32(vdata)<<8 | 12/4<<16 | uint32(soff)<<24
		return fmt.Sprintf("  .long %#x, %#x\n", w0, w1)
	}
	var s strings.Builder
	s.WriteString(".amdgcn_target \"amdgcn-amd-amdhsa--gfx942\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_load_dwordx2 s[8:9], s[0:1], 0x0\n  s_waitcnt lgkmcnt(0)\n")
	s.WriteString("  s_mov_b32 s12, s8\n  s_and_b32 s13, s9, 0xffff\n  s_mov_b32 s14, 0x10000\n  s_mov_b32 s15, 0x27000\n  s_mov_b32 s16, 0\n")
	s.WriteString("  v_lshlrev_b32 v1, 2, v0\n  global_load_dword v2, v1, s[8:9] offset:256\n  s_waitcnt vmcnt(0)\n")
	s.WriteString(atomic(2, 1, 128, 0, true)) // distinct dwords 0..63, returns old
	s.WriteString("  s_waitcnt vmcnt(0)\n  global_store_dword v1, v2, s[8:9] offset:512\n")
	s.WriteString("  v_and_b32 v3, 3, v0\n  v_lshlrev_b32 v3, 2, v3\n  global_load_dword v4, v1, s[8:9] offset:784\n  s_waitcnt vmcnt(0)\n")
	s.WriteString(atomic(4, 3, 128, 768, true)) // dwords 192..195, 16 lanes each
	s.WriteString("  s_waitcnt vmcnt(0)\n  global_store_dword v1, v4, s[8:9] offset:1040\n")
	s.WriteString(atomic(2, 1, 16, 0, false)) // again, no return, soffset s16
	s.WriteString("  s_waitcnt vmcnt(0)\n  global_store_dword v1, v2, s[8:9] offset:1296\n  s_endpgm\n")
	fmt.Fprintf(&s, ".rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_next_free_vgpr 16\n  .amdhsa_next_free_sgpr 24\n  .amdhsa_accum_offset 16\n  .amdhsa_float_denorm_mode_32 %d\n.end_amdhsa_kernel\n", denorm)
	path := filepath.Join(t.TempDir(), "k.s")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// atomicBF16Init returns the buffer of one run: bf16 pairs (random values
// within a few binades mixed with bf16Special) at the memory and data
// dwords, zeros where results are stored.
func atomicBF16Init(seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	half := func() uint16 {
		if r.IntN(3) == 0 {
			return bf16Special[r.IntN(len(bf16Special))]
		}
		return uint16(r.IntN(2))<<15 | uint16(0x3c00+r.IntN(0x600))
	}
	init := make([]byte, atomicBF16Size)
	for d := 0; d < 64+64+64+4+64; d++ {
		o := 4 * d
		if d >= 128 && d < 192 {
			continue // returned values
		}
		if d >= 196 {
			o = 784 + 4*(d-196)
		}
		binary.LittleEndian.PutUint32(init[o:], uint32(half())|uint32(half())<<16)
	}
	return init
}

const atomicBF16Size = 1552

// TestAtomicPkAddBF16FlushBound checks the documented bound under a MODE
// that flushes f32 denormals: on the simulated gfx942 agent the
// translation of the distinct-dword atomics (add with return, then add the
// returned value again) equals a model whose f32 adds flush denormal
// operands and results, and the returned values are the initial ones.
func TestAtomicPkAddBF16FlushBound(t *testing.T) {
	guest := buildGuestFrom(t, atomicBF16Kernel(t, 0))
	res, err := Translate(guest, Options{Name: "atomicbf16-ftz"})
	if err != nil {
		t.Fatalf("%v\n%+v", err, res.Report)
	}
	ftz := func(u uint32) uint32 {
		if u&0x7f800000 == 0 {
			return u & 0x80000000
		}
		return u
	}
	add := func(a, b uint16) uint16 {
		s := math.Float32frombits(ftz(uint32(a)<<16)) + math.Float32frombits(ftz(uint32(b)<<16))
		return rules.BF16(ftz(math.Float32bits(s)))
	}
	pk := func(a, b uint32) uint32 {
		return uint32(add(uint16(a), uint16(b))) | uint32(add(uint16(a>>16), uint16(b>>16)))<<16
	}
	flushed := 0
	for seed := uint64(100); seed < 106; seed++ {
		init := atomicBF16Init(seed)
		got := runKernelInit(t, res.Object, "gfx942", init)
		for l := 0; l < 64; l++ {
			m, d := binary.LittleEndian.Uint32(init[4*l:]), binary.LittleEndian.Uint32(init[256+4*l:])
			want := pk(pk(m, d), m)
			g := binary.LittleEndian.Uint32(got[4*l:])
			if g != want && !sameUpToNaN(g, want) {
				t.Fatalf("seed %d lane %d: translated %#08x, flush model %#08x (memory %#08x, data %#08x)", seed, l, g, want, m, d)
			}
			if r := binary.LittleEndian.Uint32(got[512+4*l:]); r != m {
				t.Fatalf("seed %d lane %d: returned %#08x, want the initial %#08x", seed, l, r, m)
			}
			for _, h := range []uint32{m, d} {
				if h&0x7f80 == 0 && h&0x7f != 0 || h&0x7f800000 == 0 && h&0x7f0000 != 0 {
					flushed++
				}
			}
		}
	}
	if flushed == 0 {
		t.Fatal("no denormal operand was exercised")
	}
}
