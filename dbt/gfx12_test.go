package dbt

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx12"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader"
	"github.com/rocjitsu/rocjitsu/loader/kd"
)

// gfx12Rejected lists the gfx950 test kernels the gfx12 hosts reject, with
// a substring of the reason. TestGFX12TestKernels fails when one of them
// translates (update the list) and when any other kernel is rejected.
var gfx12Rejected = map[string]string{
	"indirect_call": "unrecovered indirect transfer",
}

// gfx12SpillRejected lists the kernels whose rules cannot borrow enough
// live registers when every scratch register must be borrowed: the MFMA
// rules need 6 (16x16), 15 (i8) and 35 (32x32) VGPRs, and these kernels keep their
// accumulators in AGPRs, which leaves few arch VGPRs the MFMA does not name.
var gfx12SpillRejected = map[string]string{
	"mfma_i32_16x16x32i8":          "scratch VGPRs",
	"mfma_f32_16x16x16f16":         "scratch VGPRs",
	"mfma_f32_32x32x8f16":          "scratch VGPRs",
	"gfx950_mfma_f32_32x32x16_f16": "scratch VGPRs",
}

// gfx12NotRun lists translated kernels that cannot run on the simulated
// gfx12 agent, with the reason.
var gfx12NotRun = map[string]string{}

// GFX12Figures are the per-host counts TestGFX12TestKernels measures (the
// README's figures; `go test -run TestGFX12TestKernels -v ./dbt/` prints
// them).
type gfx12Figures struct {
	kernels, translated, matched, sameAsGuest, rejected, notRun int
}

// TestGFX12TestKernels translates every gfx950 test kernel for gfx1201 and
// gfx1200 (wave64, CU mode). Each translation passes llvm-readelf-19 and
// llvm-objdump-19 (--mcpu=<host> --mattr=+wavefrontsize64: no undecodable
// word, branches on instruction starts, entries keep their residue mod
// 256, every VGPR named is allocated), runs on the simulated gfx12 agent
// and matches the kernelref CPU reference; and, differentially, its
// buffers equal those of the gfx950 guest run on the simulated gfx950
// agent bit for bit. Rejections must be the listed ones.
func TestGFX12TestKernels(t *testing.T) {
	testGFX12Kernels(t, "gfx950", []isa.Target{isa.GFX1201, isa.GFX1200}, false, gfx12Rejected)
}

// gfx942ToGFX12Rejected lists the gfx942 test kernels the gfx942 -> gfx12
// pair rejects, with a substring of the reason.
var gfx942ToGFX12Rejected = map[string]string{
	"indirect_call":   "unrecovered indirect transfer",
	"fp8_fnuz_to_f32": "FNUZ on gfx942 and OCP",
}

// TestGFX942ToGFX12TestKernels is TestGFX12TestKernels for the gfx942
// objects of the test kernels (pair dbt/pair/gfx942_gfx12), compared with
// their references and with the guest on the simulated gfx942.
func TestGFX942ToGFX12TestKernels(t *testing.T) {
	testGFX12Kernels(t, "gfx942", []isa.Target{isa.GFX1201}, false, gfx942ToGFX12Rejected)
}

// TestGFX12SpilledExpansions is TestGFX12TestKernels on gfx1201 with every
// scratch register of the rules borrowed from live registers and saved to
// per-lane private memory around its expansion: the results must not
// change.
func TestGFX12SpilledExpansions(t *testing.T) {
	testGFX12Kernels(t, "gfx950", []isa.Target{isa.GFX1201}, true, gfx12Rejected)
}

func testGFX12Kernels(t *testing.T, guestTarget string, hosts []isa.Target, spill bool, rejected map[string]string) {
	root := projectpath.MustRoot(t)
	cases := kernelref.AllCases()
	for _, host := range hosts {
		var fig gfx12Figures
		t.Run(host.String(), func(t *testing.T) {
			for i := range cases {
				c := &cases[i]
				if !c.HasTarget(guestTarget) {
					continue
				}
				fig.kernels++
				guest := readFile(t, filepath.Join(root, c.Object(guestTarget)))
				res, err := Translate(guest, Options{Name: c.Name, Host: host, forceSpill: spill})
				want, ok := rejected[c.Name]
				if w, sok := gfx12SpillRejected[c.Name]; spill && sok {
					want, ok = w, true
				}
				if ok {
					if err == nil {
						t.Errorf("%s: expected a rejection (%s), got a translation: update gfx12Rejected", c.Name, want)
						continue
					}
					if !rejectedFor(res, want) {
						t.Errorf("%s: rejected for another reason than %q: %v", c.Name, want, err)
					}
					fig.rejected++
					continue
				}
				if err != nil {
					var b strings.Builder
					res.Report.WriteText(&b)
					t.Errorf("%s: %v\n%s", c.Name, err, b.String())
					continue
				}
				fig.translated++
				verifyObject12(t, c.Name, host, guest, res.Object)
				if why, ok := gfx12NotRun[c.Name]; ok {
					t.Logf("%s: translated, not run: %s", c.Name, why)
					fig.notRun++
					continue
				}
				var out map[int][]byte
				if needsVirtualLDS(res, c) {
					// More LDS than the host has (lds_big_dynamic asks for
					// 96 KiB of dynamic LDS): run the translation's
					// virtual-LDS sidecar instead.
					sres, err := TranslateWithSidecars(guest, Options{Name: c.Name, Host: host, forceSpill: spill}, SidecarOptions{AllLDS: true})
					if err != nil {
						t.Errorf("%s: translating with sidecars: %v", c.Name, err)
						continue
					}
					verifyObject12(t, c.Name, host, guest, sres.Object)
					out, _, err = runSidecarOnSim(t, c, sres.Object, host.String())
					if err != nil {
						t.Errorf("%s: running the sidecar on %s: %v", c.Name, host, err)
						continue
					}
				} else {
					out, err = runCase(t, c, res.Object, host.String())
					if err != nil {
						t.Errorf("%s: running the translation on %s: %v", c.Name, host, err)
						continue
					}
				}
				if err := c.Check(out); err != nil {
					t.Errorf("%s on %s: %v", c.Name, host, err)
					continue
				}
				fig.matched++
				ref, err := runCase(t, c, guest, guestTarget)
				if err != nil {
					t.Errorf("%s: running the guest on %s: %v", c.Name, guestTarget, err)
					continue
				}
				for _, k := range c.Buffers() {
					if !bytes.Equal(ref[k], out[k]) {
						t.Errorf("%s: buffer %d differs between the gfx950 guest and its %s translation", c.Name, k, host)
					}
				}
				fig.sameAsGuest++
			}
		})
		t.Logf("%s -> %s: %d test kernels: %d translated, %d match kernelref on the simulated %s (%d bit-identical to the guest on the simulated %s), %d translated but not run, %d rejected",
			guestTarget, host, fig.kernels, fig.translated, fig.matched, host, fig.sameAsGuest, guestTarget, fig.notRun, fig.rejected)
	}
}

// needsVirtualLDS reports whether a kernel of res, or case c's dispatch
// with its dynamic LDS, needs more LDS than a gfx12 host has.
func needsVirtualLDS(res *Result, c *kernelref.Case) bool {
	for _, k := range res.Report.Kernels {
		if k.NeedsVirtualLDS || k.Name == c.Name && k.Before.GroupSegment+c.DynamicLDS() > 65536 {
			return true
		}
	}
	return false
}

func rejectedFor(res *Result, want string) bool {
	if res == nil {
		return false
	}
	for _, k := range res.Report.Kernels {
		for _, r := range k.Rejections {
			if strings.Contains(r.Reason, want) {
				return true
			}
		}
	}
	return false
}

// runCase runs a kernelref case (with its dynamic LDS) on a simulated
// agent and returns the buffers.
func runCase(t *testing.T, c *kernelref.Case, image []byte, target string) (map[int][]byte, error) {
	t.Helper()
	a, err := sim.NewAgent(target)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := a.LoadCodeObject(image)
	if err != nil {
		return nil, err
	}
	k, err := ex.Kernel(c.Name)
	if err != nil {
		return nil, err
	}
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
	if err := a.DispatchExt(k, c.Grid, c.Block, ka, c.DynamicLDS(), 0); err != nil {
		return nil, err
	}
	out := map[int][]byte{}
	for i, addr := range addrs {
		b := make([]byte, len(c.Args[i].Init))
		if err := a.CopyOut(addr, b); err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out, nil
}

// verifyObject12 checks a gfx12 translation with the LLVM oracles and the
// gfx12 decoder.
func verifyObject12(t *testing.T, name string, host isa.Target, src, out []byte) {
	t.Helper()
	readelf := llvmtool.Require(t, llvmtool.Readelf)
	objdump := llvmtool.Require(t, llvmtool.Objdump)
	path := filepath.Join(t.TempDir(), "out.co")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(readelf, "-a", path)
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil || stderr.Len() > 0 || bytes.Contains(bytes.ToLower(stdout), []byte("warning")) {
		t.Fatalf("%s: llvm-readelf-19 -a: %v\n%s", name, err, stderr.String())
	}
	stderr.Reset()
	cmd = exec.Command(objdump, "-d", "--mcpu="+host.String(), "--mattr=+wavefrontsize64", path)
	cmd.Stderr = &stderr
	dis, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("%s: llvm-objdump-19: %v\n%s", name, err, stderr.String())
	}
	starts := map[uint64]bool{}
	type branch struct {
		at   uint64
		word uint32
		mn   string
	}
	var branches []branch
	for _, l := range strings.Split(string(dis), "\n") {
		m := lineRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if m[1] == ".long" || strings.Contains(l, "<unknown>") {
			t.Fatalf("%s: undecodable word for %s: %s", name, host, strings.TrimSpace(l))
		}
		a, _ := strconv.ParseUint(m[2], 16, 64)
		w, _ := strconv.ParseUint(m[3], 16, 32)
		starts[a] = true
		if strings.HasPrefix(m[1], "s_branch") || strings.HasPrefix(m[1], "s_cbranch") || strings.HasPrefix(m[1], "s_call_b64") {
			branches = append(branches, branch{a, uint32(w), m[1]})
		}
	}
	for _, b := range branches {
		tgt := uint64(int64(b.at) + 4 + 4*int64(int16(b.word)))
		if !starts[tgt] {
			t.Fatalf("%s: %s at %#x targets %#x, not an instruction start", name, b.mn, b.at, tgt)
		}
	}
	sf, err := loader.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	of, err := loader.Parse(out)
	if err != nil {
		t.Fatalf("%s: output does not parse: %v", name, err)
	}
	if of.Processor.Name != host.String() {
		t.Fatalf("%s: output processor %q, want %s", name, of.Processor.Name, host)
	}
	srcK := map[string]uint64{}
	for _, k := range sf.Kernels() {
		srcK[k.Symbol] = k.EntryAddr
	}
	alloc := 0
	for _, k := range of.Kernels() {
		if !starts[k.EntryAddr] || k.EntryAddr%256 != srcK[k.Symbol]%256 {
			t.Fatalf("%s: kernel %s entry %#x is not an instruction start with the source residue of %#x", name, k.Name, k.EntryAddr, srcK[k.Symbol])
		}
		if k.Descriptor.WavefrontSize(of.Processor) != 64 {
			t.Fatalf("%s: kernel %s is not wave64", name, k.Name)
		}
		alloc = max(alloc, k.Descriptor.NextFreeVGPR(of.Processor))
	}
	if tail := of.Section(".rocjitsu.kd"); tail != nil {
		// Virtual-LDS sidecar descriptors: wave64 too, and their bodies
		// may use more VGPRs than the normal ones.
		for o := 0; o+kd.Size <= len(tail.Data); o += kd.Size {
			d, err := kd.Decode(tail.Data[o:])
			if err != nil {
				t.Fatalf("%s: sidecar descriptor at %#x: %v", name, tail.Addr+uint64(o), err)
			}
			if d.WavefrontSize(of.Processor) != 64 {
				t.Fatalf("%s: sidecar descriptor at %#x is not wave64", name, tail.Addr+uint64(o))
			}
			alloc = max(alloc, d.NextFreeVGPR(of.Processor))
		}
	}
	tx := of.Section(".text")
	for off := 0; off < len(tx.Data); {
		in, err := gfx12.Decode(tx.Data[off:], tx.Addr+uint64(off), host|isa.Wave64)
		if err != nil {
			t.Fatalf("%s: host code at %#x does not decode: %v", name, tx.Addr+uint64(off), err)
		}
		for _, o := range in.Operands {
			if o.Kind == isa.KindReg && o.Class == isa.VGPR && int(o.Reg)+int(o.Width) > alloc {
				t.Fatalf("%s: %s at %#x names v%d beyond the %d VGPRs allocated", name, gfx12.Print(&in), in.PC, int(o.Reg)+int(o.Width)-1, alloc)
			}
		}
		off += int(in.Size)
	}
}

// gfx12AiterReasons are the first rejection reasons the aiter gfx950
// objects are expected to have on gfx1201 (the register budget, V#s the
// analysis cannot prove, buffer operations without a VBUFFER form,
// removed DPP controls, operations without a gfx12 rule: MFMA shapes,
// transposed LDS reads, global loads to LDS); any other reason (a rule
// failing to emit, an encoding error) fails the test.
var gfx12AiterReasons = []string{"more than the 256 a gfx12 wave64 addresses", "V# word3 layout differs",
	"no gfx12 VBUFFER counterpart", "DPP control", "has no gfx12 rule", "has no gfx12 counterpart"}

// TestGFX12AiterCorpus translates the aiter gfx950 corpus for gfx1201:
// every output passes the LLVM oracles, and every rejection names one of
// the expected reasons (the counts are logged).
func TestGFX12AiterCorpus(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(projectpath.MustRoot(t), "..", "shared", "corpus", "aiter", "gfx950", "*.co"))
	if len(paths) == 0 {
		t.Skip("no ../shared/corpus/aiter/gfx950")
	}
	ok, fit := 0, 0
	reasons := map[string]int{}
	fitting := map[string]int{} // every rejection of the objects that fit
	for _, p := range paths {
		guest := readFile(t, p)
		res, err := Translate(guest, Options{Name: filepath.Base(p), Host: isa.GFX1201})
		arch, acc, lowA := namedRegs(t, guest)
		over := false
		if res != nil {
			for _, k := range res.Report.Kernels {
				for _, r := range k.Rejections {
					over = over || strings.Contains(r.Reason, "more than the 256")
				}
			}
		}
		if need := arch + acc; need > 256 != over {
			t.Errorf("%s: names v0..v%d and a%d..a%d (%d VGPRs on gfx12), but the register rejection is %v", filepath.Base(p), arch-1, lowA, acc-1, need, over)
		} else if need <= 256 {
			fit++
			if res != nil {
				for _, k := range res.Report.Kernels {
					for _, r := range k.Rejections {
						why := r.Reason
						if len(why) > 90 {
							why = why[:90]
						}
						fitting[why]++
					}
				}
			}
		}
		if acc > 0 && lowA > 0 {
			t.Logf("%s: AGPRs start at a%d: mapping only the named AGPR range would save %d VGPRs", filepath.Base(p), lowA, lowA)
		}
		if err != nil {
			why := ""
			for _, k := range res.Report.Kernels {
				if len(k.Rejections) > 0 {
					why = k.Rejections[0].Reason
					break
				}
			}
			if why == "" {
				why = err.Error()
			}
			known := false
			for _, k := range gfx12AiterReasons {
				known = known || strings.Contains(why, k)
			}
			if !known {
				t.Errorf("%s: rejected for an unexpected reason: %s", filepath.Base(p), why)
			}
			if len(why) > 90 {
				why = why[:90]
			}
			reasons[why]++
			continue
		}
		verifyObject12(t, filepath.Base(p), isa.GFX1201, guest, res.Object)
		ok++
		t.Logf("%s translates (passes the LLVM oracles)", filepath.Base(p))
	}
	var rs []string
	for r, n := range reasons {
		rs = append(rs, strconv.Itoa(n)+" x "+r)
	}
	sort.Strings(rs)
	t.Logf("aiter gfx950 -> gfx1201: %d of %d objects translate (%d fit in 256 VGPRs); first rejection reasons:\n  %s", ok, len(paths), fit, strings.Join(rs, "\n  "))
	rs = rs[:0]
	for r, n := range fitting {
		rs = append(rs, strconv.Itoa(n)+" x "+r)
	}
	sort.Strings(rs)
	t.Logf("all rejected instructions of the %d objects that fit in 256 VGPRs:\n  %s", fit, strings.Join(rs, "\n  "))
}

// namedRegs returns one past the highest arch VGPR and AGPR a gfx950 code
// object's .text names (a linear sweep; undecodable words are skipped),
// and the lowest AGPR named (0 when none).
func namedRegs(t *testing.T, image []byte) (arch, acc, lowA int) {
	t.Helper()
	f, err := loader.Parse(image)
	if err != nil {
		t.Fatal(err)
	}
	tx := f.Section(".text")
	lowA = 256
	for off := 0; off < len(tx.Data); {
		in, err := gfx9.Decode(tx.Data[off:], tx.Addr+uint64(off), isa.GFX950)
		if err != nil || in.Size == 0 {
			off += 4
			continue
		}
		for _, o := range in.Operands {
			if o.Kind != isa.KindReg {
				continue
			}
			switch o.Class {
			case isa.VGPR:
				arch = max(arch, int(o.Reg)+int(o.Width))
			case isa.AGPR:
				acc, lowA = max(acc, int(o.Reg)+int(o.Width)), min(lowA, int(o.Reg))
			}
		}
		off += int(in.Size)
	}
	if acc == 0 {
		lowA = 0
	}
	return arch, acc, lowA
}

// TestGFX12RuleDifferential runs the rule guests of testdata/gfx12_rules.s
// (ds_cmpst operand order, packed f32 with op_sel/neg, v_mov_b64, s_cmpk,
// AGPR moves, v_cmpx e32/e64, MODE s_getreg/s_setreg, shared DPP controls,
// row_bcast:15/31 with inactive sources and row/bank masks,
// f64 atomic adds on global memory and LDS (contended and returning),
// f64 atomic min/max on global memory, the
// gfx950 16x16x64 i8 MFMA, bf16 16x16 and 32x32 MFMAs with register C, kernarg preload with workgroup
// ids X and Y) on the simulated gfx950 agent and their translations on the
// simulated gfx1201 agent: the output buffers must be identical and not
// all zero.
func TestGFX12RuleDifferential(t *testing.T) {
	guest := buildGuest(t, "gfx12_rules")
	res, err := Translate(guest, Options{Name: "gfx12_rules", Host: isa.GFX1201})
	if err != nil {
		var b strings.Builder
		res.Report.WriteText(&b)
		t.Fatalf("%v\n%s", err, b.String())
	}
	verifyObject12(t, "gfx12_rules", isa.GFX1201, guest, res.Object)
	run := func(image []byte, target, kernel string, grid [3]uint32) []byte {
		a, err := sim.NewAgent(target)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := a.LoadCodeObject(image)
		if err != nil {
			t.Fatal(err)
		}
		k, err := ex.Kernel(kernel)
		if err != nil {
			t.Fatal(err)
		}
		const size = 4096
		out, err := a.Alloc(size)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.CopyIn(out, make([]byte, size)); err != nil {
			t.Fatal(err)
		}
		ka := make([]byte, 8)
		for i := range 8 {
			ka[i] = byte(out >> (8 * i))
		}
		if err := a.Dispatch(k, grid, [3]uint32{64, 1, 1}, ka); err != nil {
			t.Fatalf("%s on %s: %v", kernel, target, err)
		}
		b := make([]byte, size)
		if err := a.CopyOut(out, b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, k := range []struct {
		name string
		grid [3]uint32
	}{{"k_cmpst", [3]uint32{64, 1, 1}}, {"k_pk", [3]uint32{64, 1, 1}}, {"k_mov", [3]uint32{64, 1, 1}},
		{"k_mfma", [3]uint32{64, 1, 1}}, {"k_mfma32", [3]uint32{64, 1, 1}}, {"k_cmpx", [3]uint32{64, 1, 1}}, {"k_mode", [3]uint32{64, 1, 1}}, {"k_dpp", [3]uint32{64, 1, 1}}, {"k_bcast", [3]uint32{64, 1, 1}}, {"k_af64", [3]uint32{64, 1, 1}}, {"k_amm64", [3]uint32{64, 1, 1}}, {"k_dsf64", [3]uint32{64, 1, 1}}, {"k_mfmai8", [3]uint32{64, 1, 1}}, {"k_pre", [3]uint32{128, 2, 1}}} {
		want := run(guest, "gfx950", k.name, k.grid)
		got := run(res.Object, "gfx1201", k.name, k.grid)
		if bytes.Equal(want, make([]byte, len(want))) {
			t.Fatalf("%s: the guest wrote nothing", k.name)
		}
		if !bytes.Equal(want, got) {
			for i := 0; i < len(want); i += 4 {
				if !bytes.Equal(want[i:i+4], got[i:i+4]) {
					t.Errorf("%s: first difference at byte %d: guest % x, translation % x", k.name, i, want[i:i+4], got[i:i+4])
					break
				}
			}
		}
	}
}

// TestGFX12SidecarsFailClosed: a gfx12 sidecar is refused, with its
// reason in the sidecar and in the kernel's report, where no rule exists
// (an LDS float atomic or ds_append: no proven global form); the object
// still commits with the normal body and no .rocjitsu.lds. The 96 KiB
// gfx950 kernel gets its sidecar, also in spill-per-use mode.
func TestGFX12SidecarsFailClosed(t *testing.T) {
	for _, op := range []string{"ds_add_f32 v1, v2", "ds_append v1"} {
		guest := buildGFX942(t, "k", "v_mov_b32 v1, 0\nv_mov_b32 v2, 1.0\n"+op+"\ns_waitcnt lgkmcnt(0)\ns_endpgm\n", 98304)
		sres, err := TranslateWithSidecars(guest, Options{Host: isa.GFX1201}, SidecarOptions{})
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		verifyObject12(t, op, isa.GFX1201, guest, sres.Object)
		of, err := loader.Parse(sres.Object)
		if err != nil {
			t.Fatal(err)
		}
		if of.Section(".rocjitsu.lds") != nil {
			t.Errorf("%s: a refused gfx12 sidecar left a .rocjitsu.lds section", op)
		}
		mnem := strings.Fields(op)[0]
		if len(sres.Sidecars) != 1 || sres.Sidecars[0].Made || !strings.Contains(sres.Sidecars[0].Reason, mnem) || !strings.Contains(sres.Sidecars[0].Reason, "no gfx12 virtual-LDS lowering") {
			t.Errorf("%s: sidecars %+v, want one refused naming %s", op, sres.Sidecars, mnem)
			continue
		}
		noted := false
		for _, k := range sres.Report.Kernels {
			for _, n := range k.Notes {
				noted = noted || strings.HasPrefix(n, "no virtual-LDS sidecar: ") && strings.Contains(n, mnem)
			}
		}
		if !noted {
			t.Errorf("%s: the kernel's report does not say why it has no sidecar", op)
		}
	}
	root := projectpath.MustRoot(t)
	guest := readFile(t, filepath.Join(root, "testdata", "kernels", "gfx950", "lds_big_dynamic.co"))
	for _, perUse := range []bool{false, true} {
		ok, err := TranslateWithSidecars(guest, Options{Host: isa.GFX1201}, SidecarOptions{AllLDS: true, forceSpillPerUse: perUse})
		if err != nil {
			t.Fatal(err)
		}
		if len(ok.Sidecars) != 1 || !ok.Sidecars[0].Made || ok.Sidecars[0].SpillPerUse != perUse || ok.LDS == nil {
			t.Fatalf("lds_big_dynamic (spill-per-use %v): sidecars %+v, want one made", perUse, ok.Sidecars)
		}
	}
}

// TestGFX12PCRelative: the clang-built guests with s_getpc_b64-relative
// code (a helper shared by two kernels through s_swappc_b64, duplicated
// per scope) and data (a global in .data after .text, re-biased when
// .text grows) translate for gfx1201, and each kernel stores what the
// guest stores on the simulated gfx950.
func TestGFX12PCRelative(t *testing.T) {
	for _, name := range []string{"global", "shared_helper"} {
		guest := buildGuest(t, name)
		res, err := Translate(guest, Options{Name: name, Host: isa.GFX1201})
		if err != nil {
			var b strings.Builder
			res.Report.WriteText(&b)
			t.Fatalf("%s: %v\n%s", name, err, b.String())
		}
		verifyObject12(t, name, isa.GFX1201, guest, res.Object)
		f, err := loader.Parse(guest)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range f.Kernels() {
			run := func(image []byte, target string) []byte {
				a, err := sim.NewAgent(target)
				if err != nil {
					t.Fatal(err)
				}
				ex, err := a.LoadCodeObject(image)
				if err != nil {
					t.Fatal(err)
				}
				kk, err := ex.Kernel(k.Name)
				if err != nil {
					t.Fatal(err)
				}
				buf, err := a.Alloc(4)
				if err != nil {
					t.Fatal(err)
				}
				ka := make([]byte, 8)
				for i := range 8 {
					ka[i] = byte(buf >> (8 * i))
				}
				if err := a.Dispatch(kk, [3]uint32{64, 1, 1}, [3]uint32{64, 1, 1}, ka); err != nil {
					t.Fatalf("%s/%s on %s: %v", name, k.Name, target, err)
				}
				got := make([]byte, 4)
				if err := a.CopyOut(buf, got); err != nil {
					t.Fatal(err)
				}
				return got
			}
			want, got := run(guest, "gfx950"), run(res.Object, "gfx1201")
			if bytes.Equal(want, make([]byte, 4)) || !bytes.Equal(want, got) {
				t.Errorf("%s/%s: guest stored % x, translation % x", name, k.Name, want, got)
			}
		}
	}
}
