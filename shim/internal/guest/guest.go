// Package guest describes the GPU that librocjitsu.so advertises to an
// application (the guest) and the GPU that really runs the code (the host),
// following the DBT seed's runtime host configuration (DbtGuestConfig with
// its DbtHostConfig). It reads the description from ROCJITSU_GUEST or a JSON
// config file (ROCJITSU_CONFIG) and rejects guest/host pairs that cannot
// work, with a message saying why.
package guest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ISA is what rocjitsu knows about one processor.
type ISA struct {
	Processor     string // e.g. "gfx950"
	Family        string // "gfx9" or "gfx12"
	MarketingName string
	LDSSize       uint32   // bytes of LDS a workgroup may use
	WaveSizes     []uint32 // wavefront sizes the hardware runs
	WavesPerSIMD  uint32   // resident waves per SIMD
	ScratchSlots  uint32   // scratch waves per compute unit the firmware provides
}

// DefaultWaveSize is the wavefront size code for this ISA uses by default.
func (i ISA) DefaultWaveSize() uint32 { return i.WaveSizes[0] }

// supportsWave reports whether the ISA runs waves of size w.
func (i ISA) supportsWave(w uint32) bool {
	for _, s := range i.WaveSizes {
		if s == w {
			return true
		}
	}
	return false
}

// isas are the processors rocjitsu handles. Numbers: CDNA3/CDNA4 ISA guides
// (64 KiB and 160 KiB LDS, wave64, 8 waves per SIMD) and the RDNA4 ISA guide
// (64 KiB LDS per workgroup, wave32 and wave64, 16 waves per SIMD).
var isas = map[string]ISA{
	"gfx942":  {"gfx942", "gfx9", "AMD Instinct MI300X", 64 << 10, []uint32{64}, 8, 32},
	"gfx950":  {"gfx950", "gfx9", "AMD Instinct MI355X", 160 << 10, []uint32{64}, 8, 32},
	"gfx1200": {"gfx1200", "gfx12", "AMD Radeon RX 9060 XT", 64 << 10, []uint32{32, 64}, 16, 32},
	"gfx1201": {"gfx1201", "gfx12", "AMD Radeon RX 9070 XT", 64 << 10, []uint32{32, 64}, 16, 32},
}

// Lookup returns the ISA description of a processor name. It accepts a bare
// name ("gfx950") or a full ISA name ("amdgcn-amd-amdhsa--gfx950:sramecc+").
func Lookup(name string) (ISA, bool) {
	i, ok := isas[Processor(name)]
	return i, ok
}

// Known lists the processor names Lookup accepts, sorted.
func Known() []string {
	var out []string
	for n := range isas {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Processor extracts the processor from a bare or full ISA name.
func Processor(name string) string {
	if i := strings.LastIndex(name, "--"); i >= 0 {
		name = name[i+2:]
	}
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[:i]
	}
	return strings.TrimSpace(name)
}

// Guest is the advertised device (DbtGuestConfig).
type Guest struct {
	ISA           string `json:"isa"`            // processor, e.g. "gfx950"
	Name          string `json:"name"`           // HSA_AGENT_INFO_NAME; defaults to ISA
	MarketingName string `json:"marketing_name"` // HSA_AMD_AGENT_INFO_PRODUCT_NAME
	LDSSize       uint32 `json:"lds_size"`       // bytes; defaults to the ISA's
	WavefrontSize uint32 `json:"wavefront_size"` // defaults to the ISA's default
	WavesPerSIMD  uint32 `json:"waves_per_simd"` // defaults to the ISA's
	ScratchSlots  uint32 `json:"scratch_slots"`  // defaults to the ISA's
	Features      string `json:"features"`       // target-id features, e.g. ":sramecc+:xnack-"
}

// Backend is where translated code runs.
type Backend string

// The two backends of the seed's runtime host configuration.
const (
	Hardware  Backend = "hardware"
	Simulator Backend = "simulator"
)

// Host is the device that runs translated code (DbtHostConfig).
type Host struct {
	ISA             string  `json:"isa"`              // processor; empty = whatever the agent reports
	GPUID           uint32  `json:"gpu_id"`           // topology GPU id; 0 = any
	Backend         Backend `json:"backend"`          // "hardware" (default) or "simulator"
	SimulatorConfig string  `json:"simulator_config"` // simulator backend only; relative to the config file
}

// Config is a full guest/host description.
type Config struct {
	Guest      Guest `json:"guest"`
	Host       Host  `json:"host"`
	VirtualLDS *bool `json:"virtual_lds"` // allow guest LDS above the host's (virtual-LDS sidecars); default true

	// Path is the file the config came from, if any.
	Path string `json:"-"`
	// Simulated is set by the shim when its simulated GPU serves the
	// process: the "simulator" backend is then the device at hand.
	Simulated bool `json:"-"`
}

// AllowVirtualLDS reports whether guest LDS above the host limit may be
// served by virtual-LDS sidecars.
func (c *Config) AllowVirtualLDS() bool { return c.VirtualLDS == nil || *c.VirtualLDS }

// FromEnv reads the configuration: ROCJITSU_CONFIG names a JSON file;
// otherwise ROCJITSU_GUEST names the guest processor. It returns nil, nil
// when neither is set (no guest: the shim only translates for the real
// device).
func FromEnv(getenv func(string) string) (*Config, error) {
	if path := getenv("ROCJITSU_CONFIG"); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("guest: ROCJITSU_CONFIG: %w", err)
		}
		c, err := Parse(data)
		if err != nil {
			return nil, fmt.Errorf("guest: %s: %w", path, err)
		}
		c.Path = path
		if g := getenv("ROCJITSU_GUEST"); g != "" && Processor(g) != c.Guest.ISA {
			return nil, fmt.Errorf("guest: ROCJITSU_GUEST=%s disagrees with guest.isa %q in %s", g, c.Guest.ISA, path)
		}
		if c.Host.SimulatorConfig != "" && !filepath.IsAbs(c.Host.SimulatorConfig) {
			c.Host.SimulatorConfig = filepath.Join(filepath.Dir(path), c.Host.SimulatorConfig)
		}
		return c, nil
	}
	if g := getenv("ROCJITSU_GUEST"); g != "" {
		c := &Config{Guest: Guest{ISA: Processor(g)}}
		if err := c.fill(); err != nil {
			return nil, fmt.Errorf("guest: ROCJITSU_GUEST: %w", err)
		}
		return c, nil
	}
	return nil, nil
}

// Parse decodes a JSON configuration and fills defaults. Unknown fields are
// errors, so a misspelt limit is not silently ignored.
func Parse(data []byte) (*Config, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		if se, ok := err.(*json.SyntaxError); ok {
			return nil, fmt.Errorf("offset %d: %w", se.Offset, err)
		}
		return nil, err
	}
	if err := c.fill(); err != nil {
		return nil, err
	}
	return &c, nil
}

func (c *Config) fill() error {
	c.Guest.ISA = Processor(c.Guest.ISA)
	gi, ok := isas[c.Guest.ISA]
	if !ok {
		return fmt.Errorf("guest.isa %q is not a known processor (known: %s)", c.Guest.ISA, strings.Join(Known(), ", "))
	}
	if c.Guest.Name == "" {
		c.Guest.Name = gi.Processor
	}
	if c.Guest.MarketingName == "" {
		c.Guest.MarketingName = gi.MarketingName
	}
	if c.Guest.LDSSize == 0 {
		c.Guest.LDSSize = gi.LDSSize
	}
	if c.Guest.WavefrontSize == 0 {
		c.Guest.WavefrontSize = gi.DefaultWaveSize()
	}
	if c.Guest.WavesPerSIMD == 0 {
		c.Guest.WavesPerSIMD = gi.WavesPerSIMD
	}
	if c.Guest.ScratchSlots == 0 {
		c.Guest.ScratchSlots = gi.ScratchSlots
	}
	if c.Guest.Features == "" && gi.Family == "gfx9" {
		c.Guest.Features = ":sramecc+:xnack-"
	}
	if c.Host.Backend == "" {
		c.Host.Backend = Hardware
	}
	if c.Host.ISA != "" {
		c.Host.ISA = Processor(c.Host.ISA)
	}
	return nil
}

// ISAName is the full ISA name the guest agent reports, e.g.
// "amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-".
func (c *Config) ISAName() string {
	return "amdgcn-amd-amdhsa--" + c.Guest.ISA + c.Guest.Features
}

// Check validates the guest against a host processor (the agent's real
// ISA). It returns an error describing the first limit the host cannot
// provide.
func (c *Config) Check(hostProcessor string) error {
	hostProcessor = Processor(hostProcessor)
	switch {
	case c.Host.Backend == Simulator && !c.Simulated:
		return fmt.Errorf("guest %s: host backend %q, but the process's GPUs are not the simulated ones (librocjitsu.so must be preloaded, with LD_PRELOAD or `rocjitsu exec`, so that the ROCm runtime opens its /dev/kfd)", c.Guest.ISA, c.Host.Backend)
	case c.Host.Backend != Hardware && c.Host.Backend != Simulator:
		return fmt.Errorf("guest %s: unknown host backend %q (want hardware or simulator)", c.Guest.ISA, c.Host.Backend)
	}
	if c.Host.ISA != "" && c.Host.ISA != hostProcessor {
		return fmt.Errorf("guest %s: the config names host %s but the GPU is %s", c.Guest.ISA, c.Host.ISA, hostProcessor)
	}
	gi, ok := isas[c.Guest.ISA]
	if !ok {
		return fmt.Errorf("guest %q is not a known processor", c.Guest.ISA)
	}
	hi, ok := isas[hostProcessor]
	if !ok {
		return fmt.Errorf("guest %s on host %s: the host is not a processor rocjitsu translates for (known: %s)", c.Guest.ISA, hostProcessor, strings.Join(Known(), ", "))
	}
	g := c.Guest
	if !gi.supportsWave(g.WavefrontSize) {
		return fmt.Errorf("guest %s: wavefront size %d is not one %s has (%v)", g.ISA, g.WavefrontSize, g.ISA, gi.WaveSizes)
	}
	if !hi.supportsWave(g.WavefrontSize) {
		return fmt.Errorf("guest %s on host %s: the host cannot run wave%d code (it runs %v) and wave size is never emulated", g.ISA, hostProcessor, g.WavefrontSize, hi.WaveSizes)
	}
	if g.WavesPerSIMD > hi.WavesPerSIMD {
		return fmt.Errorf("guest %s on host %s: %d waves per SIMD advertised, the host provides %d", g.ISA, hostProcessor, g.WavesPerSIMD, hi.WavesPerSIMD)
	}
	if g.ScratchSlots > hi.ScratchSlots {
		return fmt.Errorf("guest %s on host %s: %d scratch slots advertised, the host provides %d", g.ISA, hostProcessor, g.ScratchSlots, hi.ScratchSlots)
	}
	if g.LDSSize > gi.LDSSize {
		return fmt.Errorf("guest %s: LDS size %d exceeds the %d bytes a %s has", g.ISA, g.LDSSize, gi.LDSSize, g.ISA)
	}
	if g.LDSSize > hi.LDSSize && !c.AllowVirtualLDS() {
		return fmt.Errorf("guest %s on host %s: guest LDS %d bytes exceeds the host's %d and virtual_lds is false", g.ISA, hostProcessor, g.LDSSize, hi.LDSSize)
	}
	return nil
}
