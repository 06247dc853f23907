package guest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/fuzzguard"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFromEnvGuestName(t *testing.T) {
	c, err := FromEnv(env(map[string]string{"ROCJITSU_GUEST": "gfx950"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Guest.Name != "gfx950" || c.Guest.LDSSize != 160<<10 || c.Guest.WavefrontSize != 64 || c.Guest.WavesPerSIMD != 8 {
		t.Errorf("defaults: %+v", c.Guest)
	}
	if c.ISAName() != "amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-" {
		t.Errorf("ISAName %q", c.ISAName())
	}
	if err := c.Check("gfx942"); err != nil {
		t.Errorf("gfx950 on gfx942: %v", err)
	}
	if c, err := FromEnv(env(nil)); c != nil || err != nil {
		t.Errorf("no env: %v %v", c, err)
	}
	if _, err := FromEnv(env(map[string]string{"ROCJITSU_GUEST": "gfx9000"})); err == nil || !strings.Contains(err.Error(), "not a known processor") {
		t.Errorf("unknown guest: %v", err)
	}
}

func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "g.json")
	os.WriteFile(path, []byte(`{"guest":{"isa":"gfx950","lds_size":65536,"waves_per_simd":4},
		"host":{"isa":"gfx1201","backend":"hardware"},"virtual_lds":false}`), 0o644)
	c, err := FromEnv(env(map[string]string{"ROCJITSU_CONFIG": path}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Guest.LDSSize != 65536 || c.Guest.WavesPerSIMD != 4 || c.Host.ISA != "gfx1201" || c.AllowVirtualLDS() {
		t.Errorf("parsed %+v", c)
	}
	if err := c.Check("gfx1201"); err != nil {
		t.Errorf("check: %v", err)
	}
	if err := c.Check("gfx942"); err == nil || !strings.Contains(err.Error(), "names host gfx1201 but the GPU is gfx942") {
		t.Errorf("host mismatch: %v", err)
	}
}

func TestImpossiblePairs(t *testing.T) {
	f := false
	for _, c := range []struct {
		cfg  Config
		host string
		want string
	}{
		{Config{Guest: Guest{ISA: "gfx950", WavefrontSize: 32}}, "gfx1201", "wavefront size 32 is not one gfx950 has"},
		{Config{Guest: Guest{ISA: "gfx1201", WavefrontSize: 32}}, "gfx942", "cannot run wave32"},
		{Config{Guest: Guest{ISA: "gfx1201", WavefrontSize: 64, WavesPerSIMD: 16}}, "gfx942", "16 waves per SIMD advertised, the host provides 8"},
		{Config{Guest: Guest{ISA: "gfx950"}, VirtualLDS: &f}, "gfx942", "exceeds the host's 65536 and virtual_lds is false"},
		{Config{Guest: Guest{ISA: "gfx942", LDSSize: 1 << 20}}, "gfx942", "exceeds the 65536 bytes a gfx942 has"},
		{Config{Guest: Guest{ISA: "gfx950"}, Host: Host{Backend: Simulator}}, "gfx942", "are not the simulated ones"},
		{Config{Guest: Guest{ISA: "gfx950"}}, "gfx90a", "not a processor rocjitsu translates for"},
	} {
		cfg := c.cfg
		if err := cfg.fill(); err != nil {
			t.Fatal(err)
		}
		err := cfg.Check(c.host)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v on %s: %v, want %q", c.cfg.Guest, c.host, err, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for in, want := range map[string]string{
		`{"guest":{"isa":"gfx950","ldssize":1}}`: "unknown field",
		`{"guest":{"isa":"gfx950"`:               "unexpected EOF",
		`{"guest":{"isa":"gfx7"}}`:               "not a known processor",
		`{"guest": 3}`:                           "cannot unmarshal",
	} {
		_, err := Parse([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want %q", in, err, want)
		}
	}
}

func TestProcessor(t *testing.T) {
	for in, want := range map[string]string{"gfx950": "gfx950", "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-": "gfx942", " gfx1201 ": "gfx1201"} {
		if got := Processor(in); got != want {
			t.Errorf("Processor(%q) = %q", in, got)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"guest":{"isa":"gfx950"},"host":{"isa":"gfx942"}}`))
	f.Add([]byte(`{"guest":{"isa":"gfx1201","wavefront_size":32}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzguard.Run(t, b, func() {
			c, err := Parse(b)
			if err != nil {
				return
			}
			for _, h := range Known() {
				_ = c.Check(h)
			}
		})
	})
}
