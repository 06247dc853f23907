package dbt

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/loader"
)

// inFlight is one memory operation a wave has issued and not yet seen
// complete, in the waitcheck model.
type inFlight struct {
	class    isa.RegClass
	reg, n   int // registers written when it completes (n 0: none)
	lowered  bool
	at       int
	mnemonic string
}

// checkSidecarWaits walks a straight-line sidecar body (no taken branches)
// and models the two counters a gfx942 wave waits on: vector memory
// operations complete in issue order and are retired by s_waitcnt vmcnt(N)
// (leaving the N youngest), DS and scalar memory operations likewise by
// lgkmcnt(N). It fails when an instruction names a register that an
// operation still in flight writes, when a lowered access may be in flight
// at s_barrier or s_endpgm, and when an instruction writes the data of a
// lowered store of more than 64 bits less than two wait states after it. The simulator
// completes every access at once, so this is how a missing wait shows.
func checkSidecarWaits(t *testing.T, obj []byte, sc *Sidecar) (waits int) {
	t.Helper()
	f, err := loader.Parse(obj)
	if err != nil {
		t.Fatal(err)
	}
	ts := f.Section(".text")
	body := ts.Data[sc.Entry-ts.Addr:]
	body = body[:min(len(body), sc.Bytes)]
	var vm, lgkm []inFlight
	retire := func(q []inFlight, n int) []inFlight {
		if len(q) > n {
			q = q[len(q)-n:]
		}
		return q
	}
	// Data registers of the last lowered store of more than 64 bits and
	// the wait states still due before they may be written.
	var wideData []inFlight
	wideLeft := 0
	for off := 0; off+4 <= len(body); {
		in, err := gfx9.Decode(body[off:], sc.Entry+uint64(off), isa.GFX942)
		if err != nil || in.Size == 0 {
			t.Fatalf("sidecar +%#x: does not decode", off)
		}
		name := in.Name()
		w0 := binary.LittleEndian.Uint32(body[off:])
		if wideLeft > 0 {
			switch {
			case name == "s_nop":
				wideLeft -= int(w0&0xf) + 1
			case name == "s_waitcnt" && w0&0xf == 0 && w0>>14&3 == 0:
				wideLeft = 0
			default:
				for _, o := range in.Operands {
					for _, p := range wideData {
						if o.Kind == isa.KindReg && o.Role.Defines() && o.Class == p.class && int(o.Reg) < p.reg+p.n && p.reg < int(o.Reg)+int(max(o.Width, 1)) {
							t.Errorf("sidecar +%#x: %s writes the data of the store at +%#x %d wait states too early", off, gfx9.Print(&in), p.at, wideLeft)
						}
					}
				}
				wideLeft--
			}
		}
		switch {
		case name == "s_waitcnt":
			waits++
			vmN, lgkmN := int(w0&0xf|w0>>14&3<<4), int(w0>>8&0xf)
			vm, lgkm = retire(vm, vmN), retire(lgkm, lgkmN)
			off += int(in.Size)
			continue
		case name == "s_barrier" || name == "s_endpgm":
			for _, p := range vm {
				if p.lowered {
					t.Errorf("sidecar +%#x: %s while the lowered %s at +%#x may be in flight", off, name, p.mnemonic, p.at)
				}
			}
		}
		for _, o := range in.Operands {
			if o.Kind != isa.KindReg {
				continue
			}
			for _, q := range [][]inFlight{vm, lgkm} {
				for _, p := range q {
					if p.n > 0 && p.class == o.Class && int(o.Reg) < p.reg+p.n && p.reg < int(o.Reg)+int(max(o.Width, 1)) {
						t.Errorf("sidecar +%#x: %s names %s%d while %s at +%#x, which writes it, may be in flight", off, gfx9.Print(&in), o.Class, o.Reg, p.mnemonic, p.at)
					}
				}
			}
		}
		op := inFlight{at: off, mnemonic: name}
		for _, o := range in.Operands {
			if o.Kind == isa.KindReg && o.Role.Defines() && (o.Class == isa.VGPR || o.Class == isa.AGPR || o.Class == isa.SGPR) {
				op.class, op.reg, op.n = o.Class, int(o.Reg), int(max(o.Width, 1))
			}
		}
		switch in.Format {
		case isa.GLOBAL, isa.FLAT, isa.SCRATCH, isa.MUBUF:
			// Lowered loads and stores set sc0 (the kernels checked here
			// have no global accesses of their own with it).
			op.lowered = in.Format == isa.GLOBAL && w0>>16&1 != 0
			vm = append(vm, op)
			if op.lowered && (name == "global_store_dwordx3" || name == "global_store_dwordx4") {
				for _, o := range in.Operands {
					if o.Kind == isa.KindReg && o.Role.Uses() && (o.Class == isa.VGPR || o.Class == isa.AGPR) && o.Width >= 3 {
						wideData, wideLeft = []inFlight{{class: o.Class, reg: int(o.Reg), n: int(o.Width), at: off}}, 2
					}
				}
			}
		case isa.DS, isa.SMEM:
			lgkm = append(lgkm, op)
		}
		off += int(in.Size)
	}
	return waits
}

// checkDMAStoresBeforeBarrier fails when a lowered store (sc0) of a
// straight-line sidecar body stores a register that a VMEM load without
// sc0 (an LDS DMA lowering's load, in waitsKernel) loaded before the last
// s_barrier or s_getpc_b64: the store of an LDS DMA the guest ordered
// before the barrier was issued after it, or was deferred over host code
// with fixups (a PC-relative window here; subroutine calls in the corpus),
// which the lowering does not inspect (deferred too long).
func checkDMAStoresBeforeBarrier(t *testing.T, obj []byte, sc *Sidecar) {
	t.Helper()
	f, err := loader.Parse(obj)
	if err != nil {
		t.Fatal(err)
	}
	ts := f.Section(".text")
	body := ts.Data[sc.Entry-ts.Addr:][:sc.Bytes]
	loadedAt := map[int]int{}
	barrier := -1
	for off := 0; off+4 <= len(body); {
		in, err := gfx9.Decode(body[off:], sc.Entry+uint64(off), isa.GFX942)
		if err != nil || in.Size == 0 {
			t.Fatalf("sidecar +%#x: does not decode", off)
		}
		w0 := binary.LittleEndian.Uint32(body[off:])
		switch {
		case in.Name() == "s_barrier" || in.Name() == "s_getpc_b64":
			barrier = off
		case (in.Format == isa.MUBUF || in.Format == isa.GLOBAL) && w0>>16&1 == 0:
			for _, o := range in.Operands {
				if o.Kind == isa.KindReg && o.Class == isa.VGPR && o.Role.Defines() {
					loadedAt[int(o.Reg)] = off
				}
			}
		case in.Format == isa.GLOBAL && w0>>16&1 != 0 && strings.HasPrefix(in.Name(), "global_store"):
			for _, o := range in.Operands {
				if at, ok := loadedAt[int(o.Reg)]; ok && o.Kind == isa.KindReg && o.Class == isa.VGPR && o.Role.Uses() && at < barrier {
					t.Errorf("sidecar +%#x: %s stores v%d loaded at +%#x, before the s_barrier at +%#x", off, gfx9.Print(&in), o.Reg, at, barrier)
				}
			}
		}
		off += int(in.Size)
	}
}

// waitsKernel exercises the sidecar's waits: lowered stores then a barrier,
// lowered loads mixed with a native ds_bpermute (still counted by lgkmcnt)
// under a partial lgkmcnt(1) wait, a 128-bit store whose data is rewritten
// at once, a load whose result is never read (v2, the VGPR the
// scratch allocator would pick there) before an access that needs a scratch VGPR for its offset, a store followed by a load of the same
// address, and LDS DMA loads.
const waitsKernel = `
s_load_dwordx2 s[12:13], s[4:5], 0x0
v_and_b32 v0, 0x3ff, v0
v_lshlrev_b32 v1, 4, v0
v_add_u32 v2, s8, v0
v_add_u32 v3, 1, v0
v_mov_b32 v4, v0
v_mov_b32 v5, v1
ds_write_b32 v1, v2
ds_write_b32 v1, v3 offset:8192
ds_write_b128 v1, v[2:5] offset:16384
v_mov_b32 v2, 9
v_mov_b32 v5, 11
v_mov_b32 v19, v1
s_mov_b64 s[16:17], exec
s_mov_b64 exec, 1
ds_write_b32 v19, v2 offset:20480
s_mov_b64 exec, s[16:17]
ds_write_b32 v19, v3 offset:20484
v_add_u32 v19, 4, v19
ds_write_b32 v19, v5 offset:20488
s_waitcnt lgkmcnt(0)
s_barrier
ds_read_b32 v20, v1 offset:20480
ds_read_b32 v21, v1 offset:20484
ds_read_b32 v22, v1 offset:20492
s_waitcnt lgkmcnt(0)
v_add_u32 v20, v20, v21
v_add_u32 v20, v20, v22
ds_read_b32 v6, v1
ds_read_b32 v7, v1 offset:8192
ds_bpermute_b32 v8, v1, v2
ds_read_b32 v9, v1 offset:16388
s_waitcnt lgkmcnt(1)
v_add_u32 v10, v6, v7
v_add_u32 v10, v10, v8
s_waitcnt lgkmcnt(0)
v_add_u32 v10, v10, v9
v_add_u32 v10, v10, v20
ds_read_b32 v2, v1 offset:4
ds_read_b32 v12, v1 offset:12288
s_waitcnt lgkmcnt(0)
v_mov_b32 v11, v12
ds_write_b32 v1, v10 offset:64
ds_read_b32 v13, v1 offset:64
s_mov_b32 m0, 0x6000
v_lshlrev_b32 v14, 2, v0
global_load_lds_dword v14, s[12:13]
global_load_lds_dword v14, s[12:13] offset:256
s_mov_b32 m0, 0x6200
global_load_lds_dword v14, s[12:13] offset:4
s_getpc_b64 s[18:19]
s_add_u32 s18, s18, 0x5a5a5a5a
s_addc_u32 s19, s19, 0xa5a5a5a5
s_waitcnt vmcnt(0)
s_barrier
v_add_u32 v15, 0x6000, v14
ds_read_b32 v16, v15
ds_read_b32 v17, v15 offset:256
ds_read_b32 v23, v15 offset:516
s_waitcnt lgkmcnt(0)
v_add_u32 v17, v17, v23
s_lshl_b32 s14, s8, 6
v_add_u32 v18, s14, v0
v_lshlrev_b32 v18, 5, v18
global_store_dwordx4 v18, v[10:13], s[12:13]
global_store_dwordx4 v18, v[14:17], s[12:13] offset:16
s_endpgm
`

// TestSidecarWaits checks the waits of a sidecar whose lowered accesses
// (and address sums not each recomputed) are not each waited for: its results equal the guest's with hardware LDS
// on the simulator, checkSidecarWaits finds no register read or written
// while an access writing it may be in flight (the old lowering failed it
// at the partial lgkmcnt(1), which no longer covered the ds_bpermute), and
// the body waits no more often than the guest does (the old lowering
// waited after each lowered access).
func TestSidecarWaits(t *testing.T) {
	guest := buildWaitsKernel(t)
	for _, mode := range []struct {
		name string
		so   SidecarOptions
	}{{"dead-scratch", SidecarOptions{AllLDS: true}}, {"borrowed-scratch", SidecarOptions{AllLDS: true, forceSpill: true}}, {"spill-per-use", SidecarOptions{AllLDS: true, forceSpillPerUse: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			res, err := TranslateWithSidecars(guest, Options{Name: "waits"}, mode.so)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Sidecars) != 1 || !res.Sidecars[0].Made {
				t.Fatalf("sidecars: %+v", res.Sidecars)
			}
			sc := res.Sidecars[0]
			assertNoHardwareLDS(t, res.Object, &sc)
			waits := checkSidecarWaits(t, res.Object, &sc)
			checkDMAStoresBeforeBarrier(t, res.Object, &sc)
			// The sidecar may add a wait per barrier, one per LDS DMA load
			// (between its load and its store), one at the end and the
			// prologue's to the guest's.
			guestWaits, barriers, dma := strings.Count(waitsKernel, "s_waitcnt"), strings.Count(waitsKernel, "s_barrier"), strings.Count(waitsKernel, "global_load_lds")
			if mode.name == "dead-scratch" && waits > guestWaits+barriers+dma+2 {
				t.Errorf("%d s_waitcnt in the sidecar body for %d lowered accesses and %d guest waits", waits, sc.Lowered, guestWaits)
			}
			const lanes = 128
			init := make([]byte, lanes*32)
			for i := range init {
				init[i] = byte(i*7 + 3)
			}
			c := &kernelref.Case{Name: "waits", Grid: [3]uint32{lanes, 1, 1}, Block: [3]uint32{64, 1, 1}, KernargSize: 8,
				Args: []kernelref.Arg{{Name: "out", Kind: kernelref.BufferInOut, Elem: kernelref.U32, Count: lanes * 8, Offset: 0, Size: 8, Init: init}}}
			want := runGuestOnSim(t, c, guest, "gfx942")
			got, _, err := runSidecarOnSim(t, c, res.Object, "gfx942")
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(want[0], init) {
				t.Fatal("the guest wrote nothing")
			}
			if !bytes.Equal(got[0], want[0]) {
				t.Errorf("sidecar results differ from the guest's with hardware LDS")
			}
		})
	}
}

// buildWaitsKernel builds waitsKernel as a one-kernel gfx942 object with
// 32 KiB of static LDS (so that the guest runs on the simulated gfx942).
func buildWaitsKernel(t *testing.T) []byte {
	t.Helper()
	code := assembleGFX942(t, waitsKernel)
	// The PC-relative pair's literals become 0 (llvm-mc encodes a 0 inline):
	// s[18:19] = the address of the s_add_u32 itself, code the window maps.
	for _, lit := range []uint32{0x5a5a5a5a, 0xa5a5a5a5} {
		at := bytes.Index(code, binary.LittleEndian.AppendUint32(nil, lit))
		if at < 0 {
			t.Fatalf("literal %#x not in the code", lit)
		}
		binary.LittleEndian.PutUint32(code[at:], 0)
	}
	f, err := loader.Build(loader.BuildSpec{Target: "gfx942", Text: code, Kernels: []loader.KernelConfig{{
		Name: "waits", VGPRCount: 32, SGPRCount: 32, GroupSegmentFixedSize: 32768, ExplicitU64Args: 1,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return f.Raw()
}
