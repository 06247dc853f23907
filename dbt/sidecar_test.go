package dbt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/dbt/vlds"
	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/loader/kd"
	"github.com/rocjitsu/rocjitsu/loader/target"
)

// runSidecarOnSim runs a kernelref case through its sidecar on a simulated
// agent the way the runtime hook does: the normal kernarg segment is
// built, a wrapper holds its bytes, the original segment's address and a
// VirtualLdsDispatchState over a backing store of one requested_lds slice
// per workgroup, and the sidecar descriptor is dispatched with no
// group-segment request. It returns the buffers and the backing store.
func runSidecarOnSim(t testing.TB, c *kernelref.Case, image []byte, target string) (map[int][]byte, *backingStore, error) {
	t.Helper()
	f, err := loader.Parse(image)
	if err != nil {
		t.Fatal(err)
	}
	sec := f.Section(vlds.SectionName)
	if sec == nil {
		t.Fatalf("no %s section", vlds.SectionName)
	}
	meta, err := vlds.Parse(sec.Data)
	if err != nil {
		t.Fatal(err)
	}
	a, err := sim.NewAgent(target)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := a.LoadCodeObject(image)
	if err != nil {
		return nil, nil, err
	}
	k, err := ex.Kernel(c.Name)
	if err != nil {
		return nil, nil, err
	}
	e, ok := meta.Lookup(k.KD - ex.Base)
	if !ok {
		t.Fatalf("no sidecar entry for descriptor %#x", k.KD-ex.Base)
	}
	// The sidecar descriptor, loaded with the image.
	raw := make([]byte, kd.Size)
	if err := a.CopyOut(ex.Base+e.Sidecar, raw); err != nil {
		t.Fatal(err)
	}
	d, err := kd.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if d.GroupSegmentFixedSize != 0 || d.KernargSize != e.Wrapper.Size {
		t.Fatalf("sidecar descriptor: group %d kernarg %d", d.GroupSegmentFixedSize, d.KernargSize)
	}
	side := &sim.Kernel{Name: c.Name + ".vlds", KD: ex.Base + e.Sidecar, KernargSegmentSize: int(e.Wrapper.Size), Exec: ex, Desc: sim.Descriptor{
		GroupSegmentFixedSize: d.GroupSegmentFixedSize, PrivateSegmentFixedSize: d.PrivateSegmentFixedSize,
		KernargSize: d.KernargSize, EntryOffset: d.KernelCodeEntryByteOffset,
		RSRC1: binary.LittleEndian.Uint32(raw[48:]), RSRC2: binary.LittleEndian.Uint32(raw[52:]), RSRC3: binary.LittleEndian.Uint32(raw[44:]),
		CodeProperties: binary.LittleEndian.Uint16(raw[56:]), KernargPreload: binary.LittleEndian.Uint16(raw[58:]),
	}}
	ex.Kernels[side.Name] = side
	addrs := map[int]uint64{}
	for _, i := range c.Buffers() {
		arg := c.Args[i]
		addr, err := a.Alloc(uint64(len(arg.Init)))
		if err != nil {
			t.Fatal(err)
		}
		if err := a.CopyIn(addr, arg.Init); err != nil {
			t.Fatal(err)
		}
		addrs[i] = addr
	}
	ka, err := c.Kernarg(addrs)
	if err != nil {
		t.Fatal(err)
	}
	seg := k.KernargSegment(ka, c.Grid, c.Block)
	orig, err := a.Alloc(uint64(len(seg)))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.CopyIn(orig, seg); err != nil {
		t.Fatal(err)
	}
	requested := max(e.StaticLDS, c.DynamicLDS()+k.Desc.GroupSegmentFixedSize)
	stride := (requested + 255) &^ 255
	var groups [3]uint32
	var strides [3]uint32
	n := uint64(1)
	for i := range groups {
		groups[i] = (c.Grid[i] + c.Block[i] - 1) / c.Block[i]
		if groups[i] > 1 {
			if e.Flags&(vlds.FlagWorkgroupIDX<<i) == 0 {
				t.Fatalf("dimension %d has %d workgroups but the sidecar does not read its ID", i, groups[i])
			}
			strides[i] = uint32(n) * stride
		}
		n *= uint64(groups[i])
	}
	backing, err := a.Alloc(n * uint64(stride))
	if err != nil {
		t.Fatal(err)
	}
	w := make([]byte, e.Wrapper.Size)
	copy(w, seg[:min(len(seg), int(e.Wrapper.Prefix))])
	le := binary.LittleEndian
	le.PutUint64(w[e.Wrapper.OrigPtr:], orig)
	le.PutUint64(w[e.Wrapper.State:], backing)
	for i := range strides {
		le.PutUint32(w[e.Wrapper.State+8+4*uint32(i):], strides[i])
	}
	if err := a.Dispatch(side, c.Grid, c.Block, w); err != nil {
		return nil, nil, err
	}
	bs := &backingStore{Slices: int(n), Stride: int(stride), Data: make([]byte, n*uint64(stride))}
	if err := a.CopyOut(backing, bs.Data); err != nil {
		t.Fatal(err)
	}
	out := map[int][]byte{}
	for i, addr := range addrs {
		b := make([]byte, len(c.Args[i].Init))
		if err := a.CopyOut(addr, b); err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out, bs, nil
}

// backingStore is the virtual LDS after a sidecar run.
type backingStore struct {
	Slices, Stride int
	Data           []byte
}

// used counts the workgroup slices with a nonzero byte.
func (b *backingStore) used() int {
	n := 0
	for i := 0; i < b.Slices; i++ {
		for _, x := range b.Data[i*b.Stride : (i+1)*b.Stride] {
			if x != 0 {
				n++
				break
			}
		}
	}
	return n
}

// runGuestOnSim runs the guest with hardware LDS (and the case's dynamic
// LDS request).
func runGuestOnSim(t *testing.T, c *kernelref.Case, image []byte, target string) map[int][]byte {
	t.Helper()
	a, err := sim.NewAgent(target)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := a.LoadCodeObject(image)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ex.Kernel(c.Name)
	if err != nil {
		t.Fatal(err)
	}
	addrs := map[int]uint64{}
	for _, i := range c.Buffers() {
		addr, err := a.Alloc(uint64(len(c.Args[i].Init)))
		if err != nil {
			t.Fatal(err)
		}
		if err := a.CopyIn(addr, c.Args[i].Init); err != nil {
			t.Fatal(err)
		}
		addrs[i] = addr
	}
	ka, err := c.Kernarg(addrs)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.DispatchExt(k, c.Grid, c.Block, ka, c.DynamicLDS(), 0); err != nil {
		t.Fatalf("guest on %s: %v", target, err)
	}
	out := map[int][]byte{}
	for i, addr := range addrs {
		b := make([]byte, len(c.Args[i].Init))
		if err := a.CopyOut(addr, b); err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out
}

// TestSidecarsOnSimulator makes a sidecar for every LDS-using gfx950 test
// kernel, runs it on the simulated gfx942 agent with a backing store and
// the wrapper, and compares the memory image with the guest run on the
// simulated gfx950 agent with hardware LDS and with the CPU reference.
func TestSidecarsOnSimulator(t *testing.T) {
	root := projectpath.MustRoot(t)
	cases := kernelref.AllCases()
	ran := 0
	for i := range cases {
		c := &cases[i]
		if !c.HasTarget("gfx950") {
			continue
		}
		guest, err := os.ReadFile(filepath.Join(root, c.Object("gfx950")))
		if err != nil {
			t.Fatal(err)
		}
		res, err := TranslateWithSidecars(guest, Options{Name: c.Name}, SidecarOptions{AllLDS: true})
		if err != nil {
			continue // the normal translation's rejections are tested elsewhere
		}
		var sc *Sidecar
		for j := range res.Sidecars {
			if res.Sidecars[j].Kernel == c.Name {
				sc = &res.Sidecars[j]
			}
		}
		if sc == nil {
			continue // no LDS
		}
		t.Run(c.Name, func(t *testing.T) {
			if !sc.Made {
				t.Fatalf("no sidecar: %s", sc.Reason)
			}
			if sc.Lowered == 0 {
				t.Fatal("sidecar lowered no LDS access")
			}
			assertNoHardwareLDS(t, res.Object, sc)
			out, bs, err := runSidecarOnSim(t, c, res.Object, "gfx942")
			if err != nil {
				t.Fatalf("sidecar on gfx942: %v", err)
			}
			// Every workgroup used its own slice of the backing store.
			if u := bs.used(); u != bs.Slices {
				t.Errorf("%d of %d workgroup slices of the backing store were written", u, bs.Slices)
			}
			if err := c.Check(out); err != nil {
				t.Errorf("sidecar vs CPU reference: %v", err)
			}
			want := runGuestOnSim(t, c, guest, "gfx950")
			for i, b := range want {
				if !bytes.Equal(out[i], b) {
					t.Errorf("buffer %d differs from the guest on gfx950", i)
				}
			}
			// The normal kernel of the same object still runs.
			if c.DynamicLDS() == 0 {
				norm, err := runOnSim(t, c, res.Object, "gfx942")
				if err != nil {
					t.Fatalf("normal kernel: %v", err)
				}
				if err := c.Check(norm); err != nil {
					t.Errorf("normal kernel: %v", err)
				}
			}
		})
		ran++
	}
	if ran < 8 {
		t.Fatalf("only %d LDS kernels had sidecars", ran)
	}
}

// assertNoHardwareLDS decodes the sidecar body (from its entry, through
// an entry stub if any) and fails on any instruction that touches LDS
// storage, and on any register beyond what the sidecar descriptor
// allocates (VGPRs, AGPRs, SGPRs below VCC).
func assertNoHardwareLDS(t testing.TB, obj []byte, sc *Sidecar) {
	t.Helper()
	checkSidecarBody(t, obj, sc, true)
}

// checkSidecarBody is assertNoHardwareLDS; vgprs false skips the VGPR and
// AGPR bounds (the normal translation's resource feedback, checked by
// dbt's own tests, is inherited by the sidecar).
func checkSidecarBody(t testing.TB, obj []byte, sc *Sidecar, vgprs bool) {
	t.Helper()
	f, err := loader.Parse(obj)
	if err != nil {
		t.Fatal(err)
	}
	tail := f.Section(".rocjitsu.kd")
	if tail == nil || sc.Descriptor < tail.Addr || sc.Descriptor+kd.Size > tail.Addr+tail.Size {
		t.Fatalf("sidecar descriptor %#x is not in the descriptor tail", sc.Descriptor)
	}
	d, err := kd.Decode(tail.Data[sc.Descriptor-tail.Addr:])
	if err != nil {
		t.Fatal(err)
	}
	total, acc := d.NextFreeVGPR(f.Processor), d.AccumOffset()
	allocV, allocA := min(acc, total, 256), max(total-acc, 0)
	allocS := d.NextFreeSGPR() - 6
	ts := f.Section(".text")
	body := ts.Data[sc.Entry-ts.Addr:]
	body = body[:min(len(body), sc.Bytes+260)]
	for off := 0; off+4 <= len(body); {
		w0 := binary.LittleEndian.Uint32(body[off:])
		if vlds.TouchesLDS(w0) {
			t.Fatalf("sidecar +%#x: word %#08x accesses hardware LDS", off, w0)
		}
		in, err := gfx9.Decode(body[off:], sc.Entry+uint64(off), isa.GFX942)
		if err != nil || in.Size == 0 {
			off += 4
			continue
		}
		for _, o := range in.Operands {
			if o.Kind != isa.KindReg {
				continue
			}
			end := int(o.Reg) + int(max(o.Width, 1))
			if vgprs && (o.Class == isa.VGPR && end > allocV || o.Class == isa.AGPR && end > allocA) || o.Class == isa.SGPR && int(o.Reg) < 102 && end > allocS {
				t.Fatalf("sidecar +%#x: %s names %s%d..%d beyond the allocation (%d VGPRs, %d AGPRs, %d SGPRs)", off, gfx9.Print(&in), o.Class, o.Reg, end-1, allocV, allocA, allocS)
			}
		}
		off += int(in.Size)
	}
}

// dsOpsKernel is a gfx942 kernel that runs every lowered DS form (widths,
// offsets beyond the 13-bit global immediate, read2/write2 and st64,
// sub-dword and d16 loads, integer atomics with and without return,
// compare-and-swap, exchange, 64-bit atomics), a native ds_bpermute and a
// global_load_lds_dword, and stores every result of every lane.
const dsOpsKernel = `
s_load_dwordx2 s[12:13], s[4:5], 0x0
v_and_b32 v0, 0x3ff, v0
v_lshlrev_b32 v1, 4, v0
v_mov_b32 v2, 0x1000
v_add_u32 v2, v2, v0
v_add_u32 v2, s8, v2
v_add_u32 v3, 1, v2
v_add_u32 v4, 2, v2
v_add_u32 v5, 3, v2
v_mov_b32 v30, 0xfffe8180
v_xor_b32 v30, v30, v0
v_mov_b32 v41, 0
v_mov_b32 v26, 0x1234
s_waitcnt lgkmcnt(0)
ds_write_b32 v1, v2
ds_write_b32 v1, v3 offset:4
ds_write_b64 v1, v[4:5] offset:8
ds_write_b32 v1, v30 offset:4096
ds_write_b8 v1, v3 offset:4100
ds_write_b16 v1, v4 offset:4102
ds_write_b16_d16_hi v1, v30 offset:4104
ds_write_b8_d16_hi v1, v30 offset:4106
ds_write_b128 v1, v[2:5] offset:6144
ds_write_b96 v1, v[2:4] offset:7168
ds_write2st64_b32 v1, v2, v3 offset0:32 offset1:36
ds_write2_b64 v1, v[2:3], v[4:5] offset0:160 offset1:161
ds_write_b32 v41, v41 offset:12288
ds_write_b32 v41, v41 offset:12292
ds_write_b32 v41, v41 offset:12296
s_waitcnt lgkmcnt(0)
ds_add_u32 v41, v2 offset:12288
ds_add_rtn_u32 v27, v41, v2 offset:12292
ds_max_rtn_u32 v28, v41, v2 offset:12296
ds_cmpst_rtn_b32 v29, v1, v2, v3
ds_wrxchg_rtn_b32 v31, v1, v4 offset:4
ds_add_rtn_u64 v[32:33], v1, v[4:5] offset:8
ds_min_i32 v1, v30 offset:4096
ds_xor_rtn_b32 v43, v1, v2 offset:6148
s_waitcnt lgkmcnt(0)
ds_read_b32 v10, v1
ds_read_b64 v[12:13], v1 offset:8
ds_read_b128 v[16:19], v1
ds_read2_b32 v[20:21], v1 offset0:1 offset1:3
ds_read2st64_b32 v[22:23], v1 offset1:16
ds_read_u8 v24, v1 offset:4100
ds_read_i8 v25, v1 offset:4097
ds_read_u16_d16_hi v26, v1 offset:4102
ds_read_i16 v42, v1 offset:4098
ds_read2st64_b32 v[34:35], v1 offset0:32 offset1:36
ds_read_b32 v36, v41 offset:12288
ds_read_b32 v37, v41 offset:12292
ds_read_b32 v38, v41 offset:12296
ds_read_b64 v[44:45], v1 offset:8
ds_read_b128 v[52:55], v1 offset:6144
ds_read_b96 v[56:58], v1 offset:7168
ds_read2_b64 v[64:67], v1 offset0:160 offset1:161
ds_read_u16 v59, v1 offset:4104
ds_bpermute_b32 v39, v1, v2
s_waitcnt lgkmcnt(0)
v_mov_b32 v46, v1
ds_read2_b32 v[46:47], v46 offset0:1 offset1:2
s_mov_b32 m0, 0x5000
v_lshlrev_b32 v48, 2, v0
v_mov_b32 v49, 0
global_load_lds_dword v48, s[12:13]
s_waitcnt vmcnt(0)
v_add_u32 v48, 0x5000, v48
ds_read_b32 v50, v48
s_waitcnt lgkmcnt(0)
v_lshlrev_b32 v62, 8, v0
s_lshl_b32 s14, s8, 14
v_add_u32 v62, s14, v62
global_store_dwordx4 v62, v[10:13], s[12:13]
global_store_dwordx4 v62, v[16:19], s[12:13] offset:16
global_store_dwordx4 v62, v[20:23], s[12:13] offset:32
global_store_dwordx4 v62, v[24:27], s[12:13] offset:48
global_store_dwordx4 v62, v[28:31], s[12:13] offset:64
global_store_dwordx4 v62, v[32:35], s[12:13] offset:80
global_store_dwordx4 v62, v[36:39], s[12:13] offset:96
global_store_dwordx4 v62, v[42:45], s[12:13] offset:112
global_store_dwordx4 v62, v[46:49], s[12:13] offset:128
global_store_dword v62, v50, s[12:13] offset:144
global_store_dwordx4 v62, v[52:55], s[12:13] offset:160
global_store_dwordx4 v62, v[56:59], s[12:13] offset:176
global_store_dwordx4 v62, v[64:67], s[12:13] offset:192
s_endpgm
`

// TestSidecarEveryDSOp builds dsOpsKernel for gfx942 (a guest the
// translator accepts), makes its sidecar and runs both on the simulated
// gfx942 agent — the guest with hardware LDS, the sidecar with a backing
// store — over two workgroups; every lane's results must be identical.
func TestSidecarEveryDSOp(t *testing.T) {
	code := assembleGFX942(t, dsOpsKernel)
	f, err := loader.Build(loader.BuildSpec{Target: "gfx942", Text: code, Kernels: []loader.KernelConfig{{
		Name: "ds_ops", VGPRCount: 72, SGPRCount: 24, GroupSegmentFixedSize: 32768, ExplicitU64Args: 1,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	guest := f.Raw()
	for _, spill := range []bool{false, true} {
		t.Run(map[bool]string{false: "dead-scratch", true: "borrowed-scratch"}[spill], func(t *testing.T) {
			everyDSOp(t, guest, SidecarOptions{AllLDS: true, forceSpill: spill})
		})
	}
}

// everyDSOp runs the dsOpsKernel comparison; with spill every scratch VGPR
// is borrowed from a live register and saved around its use.
func everyDSOp(t *testing.T, guest []byte, so SidecarOptions) {
	spill := so.forceSpill
	res, err := TranslateWithSidecars(guest, Options{Name: "ds_ops"}, so)
	if err != nil {
		t.Fatal(err)
	}
	if spill {
		// The sidecar body saves borrowed registers (scratch_store_dword
		// off, vN, off: 0xdc704000|offset).
		f, err := loader.Parse(res.Object)
		if err != nil {
			t.Fatal(err)
		}
		ts := f.Section(".text")
		body := ts.Data[res.Sidecars[0].Entry-ts.Addr:]
		saves := 0
		for i := 0; i+8 <= len(body); i += 4 {
			if binary.LittleEndian.Uint32(body[i:])&^0x1fff == 0xdc704000 {
				saves++
			}
		}
		if saves < 10 {
			t.Fatalf("%d register saves in the sidecar body with every scratch request borrowed", saves)
		}
	}
	if len(res.Sidecars) != 1 || !res.Sidecars[0].Made {
		t.Fatalf("sidecars: %+v", res.Sidecars)
	}
	sc := res.Sidecars[0]
	if sc.Lowered < 40 {
		t.Errorf("only %d accesses lowered", sc.Lowered)
	}
	assertNoHardwareLDS(t, res.Object, &sc)
	if !so.forceSpillPerUse {
		checkSidecarWaits(t, res.Object, &sc)
	}
	const lanes, perLane = 128, 256
	init := make([]byte, lanes*perLane)
	for i := range init {
		init[i] = byte(i*7 + 3)
	}
	c := &kernelref.Case{Name: "ds_ops", Grid: [3]uint32{lanes, 1, 1}, Block: [3]uint32{64, 1, 1}, KernargSize: 8,
		Args: []kernelref.Arg{{Name: "out", Kind: kernelref.BufferInOut, Elem: kernelref.U32, Count: len(init) / 4, Offset: 0, Size: 8, Init: init}}}
	want := runGuestOnSim(t, c, guest, "gfx942")
	got, bs, err := runSidecarOnSim(t, c, res.Object, "gfx942")
	if err != nil {
		t.Fatal(err)
	}
	if bs.used() != 2 {
		t.Errorf("%d of 2 workgroup slices used", bs.used())
	}
	if bytes.Equal(want[0], init) {
		t.Fatal("the guest wrote nothing")
	}
	for off := 0; off < len(init); off += 4 {
		if !bytes.Equal(got[0][off:off+4], want[0][off:off+4]) {
			t.Errorf("lane %d word %d: sidecar %#08x, hardware LDS %#08x", off/perLane, off%perLane/4,
				binary.LittleEndian.Uint32(got[0][off:]), binary.LittleEndian.Uint32(want[0][off:]))
		}
	}
}

// buildGFX942 assembles src with llvm-mc-19 and builds a one-kernel gfx942
// code object with static LDS.
func buildGFX942(t *testing.T, name, src string, lds uint32) []byte {
	t.Helper()
	code := assembleGFX942(t, src)
	f, err := loader.Build(loader.BuildSpec{Target: "gfx942", Text: code, Kernels: []loader.KernelConfig{{
		Name: name, VGPRCount: 8, SGPRCount: 16, GroupSegmentFixedSize: lds, ExplicitU64Args: 1,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return f.Raw()
}

// TestSidecarFailsClosed: a storage operation without a lowering (LDS
// float atomics, ds_append) rejects the sidecar, never the object; the
// report says why and the object has no .rocjitsu.lds entry for it. The
// normal translation is byte-identical to Translate's.
func TestSidecarFailsClosed(t *testing.T) {
	for _, op := range []string{"ds_add_f32 v1, v2", "ds_append v1", "ds_read_addtid_b32 v1"} {
		guest := buildGFX942(t, "k", "v_mov_b32 v1, 0\nv_mov_b32 v2, 1.0\n"+op+"\ns_waitcnt lgkmcnt(0)\ns_endpgm\n", 98304)
		res, err := TranslateWithSidecars(guest, Options{}, SidecarOptions{})
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		if len(res.Sidecars) != 1 || res.Sidecars[0].Made || res.Sidecars[0].Reason == "" || res.LDS != nil {
			t.Fatalf("%s: sidecars %+v", op, res.Sidecars)
		}
		f, err := loader.Parse(res.Object)
		if err != nil {
			t.Fatal(err)
		}
		if f.Section(vlds.SectionName) != nil {
			t.Errorf("%s: object has %s without a sidecar", op, vlds.SectionName)
		}
		found := false
		for _, n := range res.Report.Kernels[0].Notes {
			found = found || strings.HasPrefix(n, "no virtual-LDS sidecar: ")
		}
		if !found {
			t.Errorf("%s: report notes %q", op, res.Report.Kernels[0].Notes)
		}
		plain, err := Translate(guest, Options{})
		if err != nil || !bytes.Equal(plain.Object, res.Object) {
			t.Errorf("%s: object differs from Translate's (%v)", op, err)
		}
	}
	// A sidecar that is made leaves the normal kernel's .text untouched.
	guest := buildGFX942(t, "k", "v_mov_b32 v1, 0\nds_write_b32 v1, v1\ns_waitcnt lgkmcnt(0)\ns_endpgm\n", 98304)
	plain, err := Translate(guest, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := TranslateWithSidecars(guest, Options{}, SidecarOptions{})
	if err != nil || res.LDS == nil {
		t.Fatalf("%v %+v", err, res.Sidecars)
	}
	pf, _ := loader.Parse(plain.Object)
	sf, _ := loader.Parse(res.Object)
	pt, st := pf.Section(".text"), sf.Section(".text")
	if pt.Addr != st.Addr || len(st.Data) <= len(pt.Data) || !bytes.Equal(st.Data[:len(pt.Data)], pt.Data) {
		t.Error("the sidecar object's .text does not start with the normal translation")
	}
	if pk, sk := pf.Kernels()[0], sf.Kernels()[0]; pk.EntryAddr != sk.EntryAddr || pk.Descriptor != sk.Descriptor {
		t.Error("the normal descriptor changed")
	}
}

// TestSidecarKernargPreload: a kernarg-preload kernel's sidecar has entry
// stubs at its entry and entry+256 that both run the prologue; the
// preloaded SGPRs come from the wrapper's guest prefix. Run on the
// simulated gfx942 (which enters at entry+256 for preload kernels) it
// matches the guest on the simulated gfx950.
func TestSidecarKernargPreload(t *testing.T) {
	clang := llvmtool.Require(t, llvmtool.Clang)
	lld := llvmtool.Require(t, llvmtool.LLD)
	dir := t.TempDir()
	obj, co := filepath.Join(dir, "k.o"), filepath.Join(dir, "k.co")
	if out, err := exec.Command(clang, "-x", "assembler", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-c", "testdata/vlds_preload.s", "-o", obj).CombinedOutput(); err != nil {
		t.Fatalf("clang: %v\n%s", err, out)
	}
	if out, err := exec.Command(lld, "-shared", obj, "-o", co).CombinedOutput(); err != nil {
		t.Fatalf("ld.lld: %v\n%s", err, out)
	}
	hf, err := loader.Parse(readFile(t, co))
	if err != nil {
		t.Fatal(err)
	}
	gf, err := loader.Patch(hf, loader.PatchSpec{Mach: target.MachGFX950})
	if err != nil {
		t.Fatal(err)
	}
	guest := gf.Raw()
	if gf.Kernels()[0].Descriptor.Get(kd.KERNARG_PRELOAD_SPEC_LENGTH) != 2 {
		t.Fatal("test kernel has no kernarg preload")
	}
	res, err := TranslateWithSidecars(guest, Options{Name: "preload"}, SidecarOptions{AllLDS: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sidecars) != 1 || !res.Sidecars[0].Made {
		t.Fatalf("sidecars %+v", res.Sidecars)
	}
	if e := res.LDS.Entries[0]; e.Wrapper.Prefix < 8 {
		t.Fatalf("wrapper prefix %d does not cover the preloaded range", e.Wrapper.Prefix)
	}
	const lanes = 256
	c := &kernelref.Case{Name: "k", Grid: [3]uint32{lanes, 1, 1}, Block: [3]uint32{64, 1, 1}, KernargSize: 8,
		Args: []kernelref.Arg{{Name: "out", Kind: kernelref.BufferOut, Elem: kernelref.U32, Count: lanes, Offset: 0, Size: 8, Init: make([]byte, 4*lanes)}}}
	want := runGuestOnSim(t, c, guest, "gfx950")
	got, bs, err := runSidecarOnSim(t, c, res.Object, "gfx942")
	if err != nil {
		t.Fatal(err)
	}
	for l := 0; l < lanes; l++ {
		if w := binary.LittleEndian.Uint32(want[0][4*l:]); w != uint32(l/64+l%64+7) {
			t.Fatalf("guest lane %d: %d", l, w)
		}
	}
	if !bytes.Equal(got[0], want[0]) {
		t.Fatal("sidecar output differs from the guest's")
	}
	if bs.used() != 4 {
		t.Errorf("%d of 4 slices used", bs.used())
	}
}

// TestSidecarDescriptor checks the sidecar descriptor: no hardware LDS,
// kernarg size = wrapper, SGPRs covering the base pair, the entry in the
// sidecar body, TG_SPLIT cleared (the backing store relies on the
// workgroup's waves sharing a CU), everything else as the normal one.
func TestSidecarDescriptor(t *testing.T) {
	guest := buildGFX942(t, "k", "v_mov_b32 v1, 0\nds_write_b32 v1, v1\ns_waitcnt lgkmcnt(0)\ns_endpgm\n", 98304)
	gf, err := loader.Parse(guest)
	if err != nil {
		t.Fatal(err)
	}
	d := gf.Kernels()[0].Descriptor
	if err := d.Set(kd.RSRC3_TG_SPLIT, 1); err != nil {
		t.Fatal(err)
	}
	pf, err := loader.Patch(gf, loader.PatchSpec{Descriptors: map[string]kd.Descriptor{"k.kd": d}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := TranslateWithSidecars(pf.Raw(), Options{}, SidecarOptions{})
	if err != nil || res.LDS == nil {
		t.Fatalf("%v %+v", err, res.Sidecars)
	}
	f, err := loader.Parse(res.Object)
	if err != nil {
		t.Fatal(err)
	}
	e := res.LDS.Entries[0]
	tail := f.Section(".rocjitsu.kd")
	sd, err := kd.Decode(tail.Data[e.Sidecar-tail.Addr:])
	if err != nil {
		t.Fatal(err)
	}
	nd := f.Kernels()[0].Descriptor
	if sd.GroupSegmentFixedSize != 0 || sd.KernargSize != e.Wrapper.Size || sd.Flag(kd.RSRC3_TG_SPLIT) || !nd.Flag(kd.RSRC3_TG_SPLIT) {
		t.Fatalf("sidecar descriptor %+v", sd)
	}
	if sd.NextFreeSGPR() < int(res.Sidecars[0].BaseSGPR)+2+6 {
		t.Fatalf("SGPRs %d do not cover s[%d:%d]", sd.NextFreeSGPR(), res.Sidecars[0].BaseSGPR, res.Sidecars[0].BaseSGPR+1)
	}
	if entry := uint64(int64(e.Sidecar) + sd.KernelCodeEntryByteOffset); entry != res.Sidecars[0].Entry || entry%256 != 0 {
		t.Fatalf("sidecar entry %#x, want %#x (256-aligned)", entry, res.Sidecars[0].Entry)
	}
	if sd.ComputePgmRsrc2 != nd.ComputePgmRsrc2 || sd.KernelCodeProperties != nd.KernelCodeProperties || sd.PrivateSegmentFixedSize != nd.PrivateSegmentFixedSize {
		t.Fatal("sidecar descriptor differs from the normal one beyond LDS, kernarg, SGPRs and TG_SPLIT")
	}
}

// TestSidecarsTwoKernels: an object with two LDS kernels gets two sidecars
// with distinct descriptors; each .rocjitsu.lds entry maps its own kernel,
// and each sidecar computes its own kernel's result.
func TestSidecarsTwoKernels(t *testing.T) {
	kernel := func(add int) string {
		return fmt.Sprintf(`s_load_dwordx2 s[12:13], s[4:5], 0x0
v_and_b32 v0, 0x3ff, v0
v_lshlrev_b32 v1, 2, v0
v_add_u32 v2, %d, v0
v_add_u32 v2, s8, v2
ds_write_b32 v1, v2 offset:8192
s_waitcnt lgkmcnt(0)
ds_read_b32 v3, v1 offset:8192
s_lshl_b32 s14, s8, 8
v_add_u32 v1, s14, v1
s_waitcnt lgkmcnt(0)
global_store_dword v1, v3, s[12:13]
s_endpgm
`, add)
	}
	a := assembleGFX942(t, kernel(7))
	b := assembleGFX942(t, kernel(9))
	text := append([]byte(nil), a...)
	for len(text) < 256 {
		text = binary.LittleEndian.AppendUint32(text, 0xbf800000)
	}
	text = append(text, b...)
	cfg := func(name string, off uint64) loader.KernelConfig {
		return loader.KernelConfig{Name: name, TextOffset: off, VGPRCount: 8, SGPRCount: 24, GroupSegmentFixedSize: 16384, ExplicitU64Args: 1}
	}
	f, err := loader.Build(loader.BuildSpec{Target: "gfx942", Text: text, Kernels: []loader.KernelConfig{cfg("ka", 0), cfg("kb", 256)}})
	if err != nil {
		t.Fatal(err)
	}
	guest := f.Raw()
	res, err := TranslateWithSidecars(guest, Options{}, SidecarOptions{AllLDS: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.LDS.Entries) != 2 || res.LDS.Entries[0].Sidecar == res.LDS.Entries[1].Sidecar || res.LDS.Entries[0].Normal == res.LDS.Entries[1].Normal {
		t.Fatalf("entries %+v", res.LDS.Entries)
	}
	for i, name := range []string{"ka", "kb"} {
		const lanes = 128
		c := &kernelref.Case{Name: name, Grid: [3]uint32{lanes, 1, 1}, Block: [3]uint32{64, 1, 1}, KernargSize: 8,
			Args: []kernelref.Arg{{Name: "out", Kind: kernelref.BufferOut, Elem: kernelref.U32, Count: lanes, Size: 8, Init: make([]byte, 4*lanes)}}}
		got, _, err := runSidecarOnSim(t, c, res.Object, "gfx942")
		if err != nil {
			t.Fatal(err)
		}
		for l := 0; l < lanes; l++ {
			want := uint32(l%64 + l/64 + 7 + 2*i)
			if v := binary.LittleEndian.Uint32(got[0][4*l:]); v != want {
				t.Fatalf("%s lane %d: %d, want %d", name, l, v, want)
			}
		}
	}
}

// assembleGFX942 returns llvm-mc-19's gfx942 machine code for src.
func assembleGFX942(t *testing.T, src string) []byte {
	t.Helper()
	cmd := exec.Command(llvmtool.Require(t, llvmtool.MC), "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-show-encoding")
	cmd.Stdin = strings.NewReader(src)
	asm, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("llvm-mc: %v\n%s", err, asm)
	}
	var code []byte
	for _, m := range regexp.MustCompile(`encoding: \[([^\]]*)\]`).FindAllStringSubmatch(string(asm), -1) {
		for _, x := range strings.Split(m[1], ",") {
			v, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(x), "0x"), 16, 8)
			if err != nil {
				t.Fatal(err)
			}
			code = append(code, byte(v))
		}
	}
	return code
}
