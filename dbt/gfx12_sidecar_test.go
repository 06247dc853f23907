package dbt

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12"
	"github.com/rocjitsu/rocjitsu/dbt/vlds"
	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/loader/kd"
)

// gfx12SidecarRejected lists the LDS test kernels whose gfx12 sidecar is
// refused, with a substring of the reason.
var gfx12SidecarRejected = map[string]string{}

// TestGFX12SidecarsOnSimulator makes a virtual-LDS sidecar for every
// LDS-using gfx950 test kernel that translates for gfx1201 and gfx1200,
// checks the object with the LLVM oracles, runs the sidecar on the
// simulated gfx12 agent (wave64, CU mode: gfx950 guests are wave64) with a
// backing store and the kernarg wrapper, and compares the buffers with the
// kernelref CPU reference and with the guest run on the simulated gfx950
// with hardware LDS. The borrowed run makes every scratch VGPR of the
// lowering and the rules borrow a live register (saved to private memory
// around it); the spill-per-use runs keep virtual_lds_base in private
// memory and borrow an SGPR pair around each access.
func TestGFX12SidecarsOnSimulator(t *testing.T) {
	root := projectpath.MustRoot(t)
	cases := kernelref.AllCases()
	for _, run := range []struct {
		host          isa.Target
		spill, perUse bool
	}{{isa.GFX1201, false, false}, {isa.GFX1200, false, false}, {isa.GFX1201, true, false}, {isa.GFX1201, false, true}, {isa.GFX1201, true, true}} {
		host := run.host
		ran, rejected := 0, 0
		name := host.String()
		if run.spill {
			name += "/borrowed"
		}
		if run.perUse {
			name += "/spill-per-use"
		}
		t.Run(name, func(t *testing.T) {
			for i := range cases {
				c := &cases[i]
				if !c.HasTarget("gfx950") {
					continue
				}
				guest, err := os.ReadFile(filepath.Join(root, c.Object("gfx950")))
				if err != nil {
					t.Fatal(err)
				}
				res, err := TranslateWithSidecars(guest, Options{Name: c.Name, Host: host}, SidecarOptions{AllLDS: true, forceSpill: run.spill, forceSpillPerUse: run.perUse})
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
				if want, ok := gfx12SidecarRejected[c.Name]; ok {
					if sc.Made || !strings.Contains(sc.Reason, want) {
						t.Errorf("%s: want a refused sidecar (%s), got made=%v reason %q", c.Name, want, sc.Made, sc.Reason)
					}
					rejected++
					continue
				}
				if !sc.Made {
					t.Errorf("%s: no sidecar: %s", c.Name, sc.Reason)
					continue
				}
				if sc.Lowered == 0 {
					t.Errorf("%s: sidecar lowered no LDS access", c.Name)
					continue
				}
				if sc.SpillPerUse != run.perUse {
					t.Errorf("%s: spill-per-use %v, want %v", c.Name, sc.SpillPerUse, run.perUse)
				}
				verifyObject12(t, c.Name, host, guest, res.Object)
				checkGFX12SidecarBody(t, res.Object, sc)
				out, bs, err := runSidecarOnSim(t, c, res.Object, host.String())
				if err != nil {
					t.Errorf("%s: sidecar on %s: %v", c.Name, host, err)
					continue
				}
				if u := bs.used(); u != bs.Slices {
					t.Errorf("%s: %d of %d workgroup slices of the backing store were written", c.Name, u, bs.Slices)
				}
				if err := c.Check(out); err != nil {
					t.Errorf("%s: sidecar vs CPU reference: %v", c.Name, err)
					continue
				}
				want := runGuestOnSim(t, c, guest, "gfx950")
				for k, b := range want {
					if !bytes.Equal(out[k], b) {
						t.Errorf("%s: buffer %d differs from the guest on gfx950", c.Name, k)
					}
				}
				ran++
			}
			t.Logf("gfx950 -> %s: %d LDS test kernels ran through their sidecars and matched kernelref and the gfx950 guest, %d sidecars refused", name, ran, rejected)
			if ran < 8 {
				t.Errorf("only %d LDS kernels ran through sidecars", ran)
			}
		})
	}
}

// checkGFX12SidecarBody decodes the gfx12 sidecar body from its entry and
// fails on any instruction that touches hardware LDS storage.
func checkGFX12SidecarBody(t testing.TB, obj []byte, sc *Sidecar) {
	t.Helper()
	f, err := loader.Parse(obj)
	if err != nil {
		t.Fatal(err)
	}
	ts := f.Section(".text")
	body := ts.Data[sc.Entry-ts.Addr:]
	body = body[:min(len(body), sc.Bytes+260)]
	native := map[string]bool{"ds_nop": true, "ds_swizzle_b32": true, "ds_permute_b32": true, "ds_bpermute_b32": true, "ds_bpermute_fi_b32": true}
	globals := 0
	for off := 0; off+4 <= len(body); {
		in, err := gfx12.Decode(body[off:], sc.Entry+uint64(off), isa.GFX1201|isa.Wave64)
		if err != nil || in.Size == 0 {
			off += 4
			continue
		}
		m := gfx12.Mnemonic(&in)
		if strings.HasPrefix(m, "ds_") && !native[m] || strings.Contains(m, "_lds") {
			t.Fatalf("%s: sidecar +%#x: %s accesses hardware LDS", sc.Kernel, off, gfx12.Print(&in))
		}
		if strings.HasPrefix(m, "global_") {
			globals++
		}
		off += int(in.Size)
	}
	if globals < sc.Lowered {
		t.Errorf("%s: %d global accesses in the sidecar body for %d lowered LDS accesses", sc.Kernel, globals, sc.Lowered)
	}
}

// TestGFX12SidecarsCorpus translates every aiter gfx950 object for
// gfx1201 with sidecars: every kernel of a translated object whose static
// LDS exceeds the 64 KiB of gfx12 must get a sidecar, the object must pass
// the LLVM oracles for gfx1201 (llvm-readelf-19 without warnings,
// llvm-objdump-19 --mcpu=gfx1201 with no undecodable word, branches on
// instruction starts), the sidecar body must not touch hardware LDS, and
// the .rocjitsu.lds section must point at descriptors without LDS.
func TestGFX12SidecarsCorpus(t *testing.T) {
	dir := projectpath.MustShared(t, "corpus", "aiter", "gfx950")
	paths, err := filepath.Glob(filepath.Join(dir, "*.co"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("corpus: %v", err)
	}
	for _, perUse := range []bool{false, true} {
		t.Run(map[bool]string{false: "base-in-sgprs", true: "spill-per-use"}[perUse], func(t *testing.T) {
			gfx12SidecarsCorpus(t, paths, perUse)
		})
	}
}

// gfx12SidecarsCorpus is one TestGFX12SidecarsCorpus pass (perUse forces
// spill-per-use mode).
func gfx12SidecarsCorpus(t *testing.T, paths []string, perUse bool) {
	need, made := 0, 0
	for _, p := range paths {
		guest, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := TranslateWithSidecars(guest, Options{Name: filepath.Base(p), Host: isa.GFX1201}, SidecarOptions{forceSpillPerUse: perUse})
		if err != nil {
			continue // rejected by the normal translation (TestGFX12AiterCorpus)
		}
		for _, s := range res.Sidecars {
			need++
			if !s.Made {
				t.Errorf("%s %s: no sidecar: %s", filepath.Base(p), s.Kernel, s.Reason)
				continue
			}
			if s.SpillPerUse != perUse {
				t.Errorf("%s %s: spill-per-use %v, want %v", filepath.Base(p), s.Kernel, s.SpillPerUse, perUse)
			}
			made++
			sc := s
			checkGFX12SidecarBody(t, res.Object, &sc)
			t.Logf("%s %s: static LDS %d, %d accesses lowered, %d bytes", filepath.Base(p), s.Kernel, s.StaticLDS, s.Lowered, s.Bytes)
		}
		if res.LDS == nil {
			continue
		}
		verifyObject12(t, filepath.Base(p), isa.GFX1201, guest, res.Object)
		f, err := loader.Parse(res.Object)
		if err != nil {
			t.Fatal(err)
		}
		sec, err := vlds.Parse(f.Section(vlds.SectionName).Data)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(p), err)
		}
		tail := f.Section(".rocjitsu.kd")
		for _, e := range sec.Entries {
			if tail == nil || e.Sidecar < tail.Addr || e.Sidecar+kd.Size > tail.Addr+tail.Size {
				t.Fatalf("%s: sidecar descriptor %#x outside the descriptor tail", filepath.Base(p), e.Sidecar)
			}
			d, err := kd.Decode(tail.Data[e.Sidecar-tail.Addr:])
			if err != nil {
				t.Fatalf("%s: %v", filepath.Base(p), err)
			}
			if d.GroupSegmentFixedSize != 0 || d.Flag(kd.KCP_ENABLE_WAVEFRONT_SIZE32) || d.Flag(kd.RSRC1_WGP_MODE) {
				t.Errorf("%s: sidecar descriptor %#x: LDS %d, wave32 %v, WGP mode %v (want 0, wave64, CU mode)", filepath.Base(p), e.Sidecar, d.GroupSegmentFixedSize, d.Flag(kd.KCP_ENABLE_WAVEFRONT_SIZE32), d.Flag(kd.RSRC1_WGP_MODE))
			}
		}
	}
	t.Logf("aiter gfx950 -> gfx1201: %d of %d kernels needing virtual LDS (in translated objects) have sidecars", made, need)
	if need == 0 {
		t.Fatal("no translated corpus kernel needs virtual LDS")
	}
}

// TestGFX12SidecarEveryDSOp translates dsOpsKernel (a gfx942 guest that
// runs every lowered DS form, through the gfx942 -> gfx12 pair) for
// gfx1201 with a sidecar and runs it on the simulated gfx1201 over two
// workgroups against the guest on the simulated gfx942 with hardware LDS
// and against the normal translation on the simulated gfx1201 (its LDS
// fits): every lane's results must be identical. Also with every scratch
// VGPR borrowed, and in spill-per-use mode. The d16_hi forms are left out
// (see below).
func TestGFX12SidecarEveryDSOp(t *testing.T) {
	// The d16_hi forms have no gfx12 rule in the normal translation
	// (16-bit halves), so the kernel runs without them.
	var src []string
	for _, l := range strings.Split(dsOpsKernel, "\n") {
		if !strings.Contains(l, "d16_hi") {
			src = append(src, l)
		}
	}
	if len(src) == len(strings.Split(dsOpsKernel, "\n")) {
		t.Fatal("dsOpsKernel has no d16_hi forms to drop: update the test")
	}
	code := assembleGFX942(t, strings.Join(src, "\n"))
	f, err := loader.Build(loader.BuildSpec{Target: "gfx942", Text: code, Kernels: []loader.KernelConfig{{
		Name: "ds_ops", VGPRCount: 72, SGPRCount: 24, GroupSegmentFixedSize: 32768, ExplicitU64Args: 1,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	guest := f.Raw()
	const lanes, perLane = 128, 256
	init := make([]byte, lanes*perLane)
	for i := range init {
		init[i] = byte(i*7 + 3)
	}
	c := &kernelref.Case{Name: "ds_ops", Grid: [3]uint32{lanes, 1, 1}, Block: [3]uint32{64, 1, 1}, KernargSize: 8,
		Args: []kernelref.Arg{{Name: "out", Kind: kernelref.BufferInOut, Elem: kernelref.U32, Count: len(init) / 4, Offset: 0, Size: 8, Init: init}}}
	want := runGuestOnSim(t, c, guest, "gfx942")
	if bytes.Equal(want[0], init) {
		t.Fatal("the guest wrote nothing")
	}
	for _, v := range []struct{ spill, perUse bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		spill := v.spill
		name := map[bool]string{false: "dead-scratch", true: "borrowed-scratch"}[spill]
		if v.perUse {
			name += "/spill-per-use"
		}
		t.Run(name, func(t *testing.T) {
			res, err := TranslateWithSidecars(guest, Options{Name: "ds_ops", Host: isa.GFX1201}, SidecarOptions{AllLDS: true, forceSpill: spill, forceSpillPerUse: v.perUse})
			if err != nil {
				var b strings.Builder
				res.Report.WriteText(&b)
				t.Fatalf("%v\n%s", err, b.String())
			}
			if len(res.Sidecars) != 1 || !res.Sidecars[0].Made {
				t.Fatalf("sidecars: %+v", res.Sidecars)
			}
			sc := res.Sidecars[0]
			if sc.Lowered < 40 {
				t.Errorf("only %d accesses lowered", sc.Lowered)
			}
			verifyObject12(t, "ds_ops", isa.GFX1201, guest, res.Object)
			checkGFX12SidecarBody(t, res.Object, &sc)
			got, bs, err := runSidecarOnSim(t, c, res.Object, "gfx1201")
			if err != nil {
				t.Fatal(err)
			}
			if bs.used() != 2 {
				t.Errorf("%d of 2 workgroup slices used", bs.used())
			}
			norm, err := runCase(t, c, res.Object, "gfx1201")
			if err != nil {
				t.Fatal(err)
			}
			bad := 0
			for off := 0; off < len(init) && bad < 10; off += 4 {
				if !bytes.Equal(got[0][off:off+4], want[0][off:off+4]) {
					bad++
					t.Errorf("lane %d word %d: sidecar %#08x, gfx942 hardware LDS %#08x", off/perLane, off%perLane/4,
						binary.LittleEndian.Uint32(got[0][off:]), binary.LittleEndian.Uint32(want[0][off:]))
				}
				if !bytes.Equal(norm[0][off:off+4], want[0][off:off+4]) {
					bad++
					t.Errorf("lane %d word %d: normal gfx1201 translation %#08x, gfx942 hardware LDS %#08x", off/perLane, off%perLane/4,
						binary.LittleEndian.Uint32(norm[0][off:]), binary.LittleEndian.Uint32(want[0][off:]))
				}
			}
		})
	}
}
