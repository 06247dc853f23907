package dbt

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/kernelref"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
	"github.com/rocjitsu/rocjitsu/loader"
)

// TestSidecarSpillPerUse runs every LDS test kernel's sidecar in forced
// spill-per-use mode (virtual_lds_base in private memory, an SGPR pair
// borrowed around each access) on the simulated gfx942 agent: it must
// match the guest on the simulated gfx950 and the CPU reference. The
// gfx942 kernel exercising every lowered DS form must match hardware LDS.
func TestSidecarSpillPerUse(t *testing.T) {
	spillPerUseKernels(t, SidecarOptions{AllLDS: true, forceSpillPerUse: true})
}

// TestSpillPerUseSidecarsOnSimulator is TestSidecarSpillPerUse with every
// scratch VGPR (the rules', the lowerings' and the spill sequence's own)
// borrowed from a live register and saved around its use.
func TestSpillPerUseSidecarsOnSimulator(t *testing.T) {
	spillPerUseKernels(t, SidecarOptions{AllLDS: true, forceSpillPerUse: true, forceSpill: true})
}

func spillPerUseKernels(t *testing.T, so SidecarOptions) {
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
		res, err := TranslateWithSidecars(guest, Options{Name: c.Name}, so)
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
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			if !sc.Made || !sc.SpillPerUse {
				t.Fatalf("sidecar made %v, spill-per-use %v: %s", sc.Made, sc.SpillPerUse, sc.Reason)
			}
			assertNoHardwareLDS(t, res.Object, sc)
			if n := borrowSequences(t, res.Object, sc); n < sc.Lowered {
				t.Fatalf("%d borrow sequences for %d lowered accesses", n, sc.Lowered)
			}
			out, _, err := runSidecarOnSim(t, c, res.Object, "gfx942")
			if err != nil {
				t.Fatalf("sidecar on gfx942: %v", err)
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
		})
		ran++
	}
	if ran < 8 {
		t.Fatalf("only %d LDS kernels had sidecars", ran)
	}
	t.Run("ds_ops", func(t *testing.T) {
		code := assembleGFX942(t, dsOpsKernel)
		f, err := loader.Build(loader.BuildSpec{Target: "gfx942", Text: code, Kernels: []loader.KernelConfig{{
			Name: "ds_ops", VGPRCount: 72, SGPRCount: 24, GroupSegmentFixedSize: 32768, ExplicitU64Args: 1,
		}}})
		if err != nil {
			t.Fatal(err)
		}
		everyDSOp(t, f.Raw(), so)
	})
}

// borrowSequences counts, in the sidecar body, the v_readfirstlane_b32
// pairs that load a borrowed pair from private memory (two per access:
// the base, then the guest value back).
func borrowSequences(t testing.TB, obj []byte, sc *Sidecar) int {
	t.Helper()
	f, err := loader.Parse(obj)
	if err != nil {
		t.Fatal(err)
	}
	ts := f.Section(".text")
	body := ts.Data[sc.Entry-ts.Addr:]
	if sc.Bytes > 0 && sc.Bytes < len(body) {
		body = body[:sc.Bytes+260]
	}
	n := 0
	for i := 0; i+4 <= len(body); i += 4 {
		w := binary.LittleEndian.Uint32(body[i:])
		if w&0xfe01fe00 == 0x7e000400 { // v_readfirstlane_b32 sN, vM
			n++
		}
	}
	return n / 4
}

// TestCorpusSpillPerUseSidecars translates the aiter gfx950 corpus with
// sidecars in forced spill-per-use mode: every kernel above the host's LDS
// must still get one, the objects must pass the LLVM oracles, and the
// sidecars must behave like the guests on the simulator.
func TestCorpusSpillPerUseSidecars(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus")
	}
	dir := projectpath.MustShared(t, "corpus", "aiter", "gfx950")
	paths, err := filepath.Glob(filepath.Join(dir, "*.co"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("corpus: %v", err)
	}
	sort.Strings(paths)
	need, made := 0, 0
	for _, p := range paths {
		guest, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := TranslateWithSidecars(guest, Options{Name: filepath.Base(p)}, SidecarOptions{forceSpillPerUse: true})
		if err != nil {
			continue // rejected by the normal translation
		}
		for _, s := range res.Sidecars {
			need++
			if !s.Made || !s.SpillPerUse {
				t.Errorf("%s %s: made %v, spill-per-use %v: %s", filepath.Base(p), s.Kernel, s.Made, s.SpillPerUse, s.Reason)
				continue
			}
			made++
			sc := s
			checkSidecarBody(t, res.Object, &sc, false)
			if n := borrowSequences(t, res.Object, &sc); n < sc.Lowered {
				t.Errorf("%s %s: %d borrow sequences for %d lowered accesses", filepath.Base(p), s.Kernel, n, sc.Lowered)
			}
		}
		if res.LDS != nil {
			oracleCheck(t, filepath.Base(p), res.Object)
		}
	}
	t.Logf("spill-per-use: %d of %d kernels needing virtual LDS have sidecars", made, need)
	if need == 0 || made != need {
		t.Fatalf("%d of %d sidecars made", made, need)
	}
	// Behaviourally on the simulator, as TestCorpusSidecarsOnSimulator:
	// both complete, or both fault in the same wave at the same
	// instruction with the same cause.
	ran, completed := corpusSimCompare(t, 300000, func(_ string, guest []byte) (*SidecarResult, error) {
		return TranslateWithSidecars(guest, Options{}, SidecarOptions{forceSpillPerUse: true})
	})
	t.Logf("spill-per-use: %d corpus sidecars compared on the simulator, %d ran to completion", ran, completed)
	if ran == 0 || completed == 0 {
		t.Fatalf("%d ran, %d completed", ran, completed)
	}
}

// TestSpillPerUseChosenWhenNoPairIsFree: a kernel naming every SGPR pair
// below s102 gets a spill-per-use sidecar without forcing, and the report
// says so.
func TestSpillPerUseChosenWhenNoPairIsFree(t *testing.T) {
	var src strings.Builder
	src.WriteString("s_load_dwordx2 s[2:3], s[4:5], 0x0\ns_waitcnt lgkmcnt(0)\nv_and_b32 v0, 0x3ff, v0\nv_lshlrev_b32 v2, 2, v0\n")
	for r := 4; r < 102; r++ {
		src.WriteString("s_mov_b32 s" + itoa10(r) + ", " + itoa10(r) + "\n")
	}
	src.WriteString("s_waitcnt lgkmcnt(0)\nds_write_b32 v2, v0\ns_waitcnt lgkmcnt(0)\nds_read_b32 v3, v2\ns_waitcnt lgkmcnt(0)\n")
	for r := 4; r < 102; r++ {
		src.WriteString("v_add_u32 v3, s" + itoa10(r) + ", v3\n")
	}
	src.WriteString("global_store_dword v2, v3, s[2:3]\ns_endpgm\n")
	code := assembleGFX942(t, src.String())
	f, err := loader.Build(loader.BuildSpec{Target: "gfx942", Text: code, Kernels: []loader.KernelConfig{{
		Name: "k", VGPRCount: 8, SGPRCount: 102, GroupSegmentFixedSize: 98304, ExplicitU64Args: 1,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := TranslateWithSidecars(f.Raw(), Options{}, SidecarOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sidecars) != 1 || !res.Sidecars[0].Made || !res.Sidecars[0].SpillPerUse {
		t.Fatalf("sidecars %+v", res.Sidecars)
	}
	found := false
	for _, n := range res.Report.Kernels[0].Notes {
		found = found || strings.Contains(n, "spill-per-use")
	}
	if !found {
		t.Fatalf("notes %q", res.Report.Kernels[0].Notes)
	}
	c := &kernelref.Case{Name: "k", Grid: [3]uint32{128, 1, 1}, Block: [3]uint32{64, 1, 1}, KernargSize: 8,
		Args: []kernelref.Arg{{Name: "out", Kind: kernelref.BufferInOut, Elem: kernelref.U32, Count: 64, Offset: 0, Size: 8, Init: make([]byte, 256)}}}
	got, _, err := runSidecarOnSim(t, c, res.Object, "gfx942")
	if err != nil {
		t.Fatal(err)
	}
	sum := uint32(0)
	for r := 4; r < 102; r++ {
		sum += uint32(r)
	}
	for l := 0; l < 64; l++ {
		if v := binary.LittleEndian.Uint32(got[0][4*l:]); v != uint32(l)+sum {
			t.Fatalf("lane %d: %d, want %d", l, v, uint32(l)+sum)
		}
	}
}

func itoa10(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa10(n/10) + string(rune('0'+n%10))
}
