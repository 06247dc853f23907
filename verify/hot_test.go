package verify

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocjitsu/rocjitsu/hsa/sim/mem"
	"github.com/rocjitsu/rocjitsu/internal/projectpath"
)

// hotRun verifies the kernel object at path with Options.Hot and checks
// that the attribution adds up: the mnemonics' guest executions are the
// guest's, their host executions and the prologue the host's.
func hotRun(t *testing.T, path string, opt Options) (Result, map[string]HotMnemonic) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	opt.Hot = true
	rs, err := Object(filepath.Base(path), b, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 {
		t.Fatalf("%s: %d kernels", path, len(rs))
	}
	r := rs[0]
	if !Counted(r) || r.Hot == nil {
		t.Fatalf("%s: %s (%s), hot %v", path, r.Outcome, r.Reason, r.Hot)
	}
	var g, h uint64
	by := map[string]HotMnemonic{}
	for _, m := range r.Hot.Mnemonics {
		g, h = g+m.Guest, h+m.Host
		if m.Excess != int64(m.Host)-int64(m.Guest) || m.Called+m.Stub > m.Host {
			t.Errorf("%s: %s: %+v does not add up", path, m.Mnemonic, m)
		}
		by[m.Mnemonic] = m
	}
	if g != r.GuestInstructions || h+r.Hot.Prologue != r.HostInstructions {
		t.Errorf("%s: attributed guest %d host %d+%d, ran %d/%d", path, g, h, r.Hot.Prologue, r.GuestInstructions, r.HostInstructions)
	}
	return r, by
}

// TestHotAttribution checks the attribution on kernels where it is known:
// vector_add translates one for one and a guest function call stays the
// guest's (no excess anywhere); v_cvt_pk_bf16_f32 is the only expanded
// instruction of its kernel, so it has all the excess; the FP8 block-scale
// kernel's 16x16x128 MFMAs and LDS-direct loads call per-kernel
// subroutines, and that and the scale multiplies of the fmas after the
// MFMAs (dbt/rules fp8fold.go) are all its excess.
func TestHotAttribution(t *testing.T) {
	dir := filepath.Join(projectpath.MustRoot(t), "testdata", "kernels", "gfx950")
	for _, k := range []string{"vector_add", "call_noinline"} {
		r, by := hotRun(t, filepath.Join(dir, k+".co"), Options{Host: "gfx942", Fill: mem.FillInt})
		for _, m := range by {
			if m.Excess != 0 || m.Called != 0 || m.Stub != 0 {
				t.Errorf("%s: %+v, want no excess", k, m)
			}
		}
		if r.Hot.Prologue != 0 {
			t.Errorf("%s: prologue %d", k, r.Hot.Prologue)
		}
	}
	r, by := hotRun(t, filepath.Join(dir, "gfx950_cvt_pk_bf16_f32.co"), Options{Host: "gfx942", Fill: mem.FillInt})
	for mn, m := range by {
		want := int64(0)
		if mn == "v_cvt_pk_bf16_f32" {
			want = int64(r.HostInstructions) - int64(r.GuestInstructions)
			if len(m.Rules) == 0 || want <= 0 {
				t.Errorf("%s: rules %v, excess %d", mn, m.Rules, want)
			}
		}
		if m.Excess != want {
			t.Errorf("cvt_pk_bf16: %s: excess %d, want %d", mn, m.Excess, want)
		}
	}
	if testing.Short() {
		return
	}
	obj := projectpath.MustShared(t, "corpus", "aiter", "gfx950", "f8_block_scale_mi350_x32.co")
	_, by = hotRun(t, obj, Options{Host: "gfx942", Workgroups: 1, Fill: mem.FillInt, MaxInstructions: 400_000})
	var called uint64
	for mn, m := range by {
		called += m.Called
		if m.Excess != 0 && mn != "v_mfma_f32_16x16x128_f8f6f4" && mn != "buffer_load_dwordx4" && mn != "v_fma_f32" {
			t.Errorf("f8_block_scale: %s: %+v, want no excess", mn, m)
		}
	}
	if m := by["v_mfma_f32_16x16x128_f8f6f4"]; m.Called == 0 || m.Excess <= 0 {
		t.Errorf("f8_block_scale: the FP8 MFMA calls no subroutine: %+v", m)
	}
	if called == 0 {
		t.Error("f8_block_scale: no subroutine attributed")
	}
	t.Logf("f8_block_scale: %+v", by["v_mfma_f32_16x16x128_f8f6f4"])
}
