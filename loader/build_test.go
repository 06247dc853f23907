package loader

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/loader/kd"
	"github.com/rocjitsu/rocjitsu/loader/target"
)

// buildText returns two kernels' worth of code: kernel a at 0 (s_nop 0,
// s_nop 1, s_endpgm) and kernel b at 256 (s_nop 2, s_endpgm), padded with
// s_nop 0.
func buildText(endpgm uint32) []byte {
	words := make([]uint32, 128)
	for i := range words {
		words[i] = SNop0
	}
	words[0], words[1], words[2] = SNop0, SNop0|1, endpgm
	words[64], words[65] = SNop0|2, endpgm
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

var silkSections = []string{"", ".note", ".dynsym", ".gnu.hash", ".hash", ".dynstr", ".rodata", ".text", ".dynamic",
	".relro_padding", ".bss", ".AMDGPU.gpr_maximums", ".comment", ".symtab", ".shstrtab", ".strtab"}

func TestBuildOracles(t *testing.T) {
	readelf := llvmtool.Require(t, llvmtool.Readelf)
	objdump := llvmtool.Require(t, llvmtool.Objdump)
	dir := t.TempDir()
	for _, tc := range []struct {
		target, mcpu string
		endpgm       uint32
		wave         int
	}{
		{"amdgcn-amd-amdhsa--gfx942", "gfx942", 0xbf810000, 64},
		{"amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-", "gfx942", 0xbf810000, 64},
		{"gfx1200", "gfx1200", 0xbfb00000, 32},
		{"amdgcn-amd-amdhsa-gfx1201", "gfx1201", 0xbfb00000, 32},
		{"amdgcn-amd-amdhsa--gfx1100", "gfx1100", 0xbfb00000, 32},
		{"gfx1151", "gfx1151", 0xbfb00000, 32},
	} {
		t.Run(tc.mcpu+"_"+strings.ReplaceAll(tc.target, ":", "_"), func(t *testing.T) {
			id, _ := target.ParseID(tc.target)
			p, _ := target.ByName(id.Processor)
			agprs := 0
			if p.Family == target.FamilyGFX90A {
				agprs = 32
			}
			spec := BuildSpec{
				Target: tc.target,
				Text:   buildText(tc.endpgm),
				Kernels: []KernelConfig{
					{Name: "silk_a", TextOffset: 0, CodeSize: 12, VGPRCount: 37, AGPRCount: agprs, SGPRCount: 40, GroupSegmentFixedSize: 16384, ExplicitU64Args: 3, MaxFlatWorkgroupSize: 256},
					{Name: "silk_b", TextOffset: 256, VGPRCount: 3, SGPRCount: 20, PrivateSegmentFixedSize: 64, ExplicitU64Args: 0},
				},
			}
			f, err := Build(spec)
			if err != nil {
				t.Fatal(err)
			}
			if out, _ := f.Write(); !bytes.Equal(out, f.Raw()) {
				t.Error("built object does not round-trip")
			}
			var names []string
			for _, s := range f.Sections {
				names = append(names, s.Name)
			}
			if strings.Join(names, ",") != strings.Join(silkSections, ",") {
				t.Errorf("sections %v, want %v", names, silkSections)
			}
			if f.Target.String() != id.String() || f.Processor.Name != p.Name {
				t.Errorf("target %s / %s, want %s", f.Target, f.Processor.Name, id)
			}
			ks := f.Kernels()
			if len(ks) != 2 {
				t.Fatalf("%d kernels", len(ks))
			}
			text := f.Section(".text")
			for i, k := range ks {
				if k.EntryAddr != text.Addr+spec.Kernels[i].TextOffset || k.EntrySymbol != spec.Kernels[i].Name {
					t.Errorf("kernel %s entry 0x%x (%s), want 0x%x", k.Name, k.EntryAddr, k.EntrySymbol, text.Addr+spec.Kernels[i].TextOffset)
				}
				if k.Descriptor.WavefrontSize(p) != tc.wave || int(k.Metadata.WavefrontSize) != tc.wave {
					t.Errorf("kernel %s wave %d/%d, want %d", k.Name, k.Descriptor.WavefrontSize(p), k.Metadata.WavefrontSize, tc.wave)
				}
				if err := k.Descriptor.Check(p); err != nil {
					t.Errorf("kernel %s: %v", k.Name, err)
				}
			}
			if ks[0].Metadata.KernargSegmentSize != 24+HiddenArgsSize || ks[0].Descriptor.KernargSize != 24+HiddenArgsSize {
				t.Errorf("kernarg size %d", ks[0].Metadata.KernargSegmentSize)
			}
			if got := ks[0].Descriptor.NextFreeVGPR(p); got < 37+agprs {
				t.Errorf("descriptor allocates %d VGPRs for 37+%d", got, agprs)
			}
			path := filepath.Join(dir, "built.co")
			if err := os.WriteFile(path, f.Raw(), 0o644); err != nil {
				t.Fatal(err)
			}
			re, err := exec.Command(readelf, "-a", path).CombinedOutput()
			if err != nil || readelfComplains(re) {
				t.Errorf("llvm-readelf-19 -a: %v\n%s", err, firstLines(re, "warning", "error", "invalid"))
			}
			// Metadata as llvm-readelf sees it.
			notes, err := exec.Command(readelf, "--notes", path).CombinedOutput()
			if err != nil {
				t.Fatal(err)
			}
			y, err := readelfMetadata(string(notes))
			if err != nil {
				t.Fatalf("%v\n%s", err, notes)
			}
			want, got := map[string]string{}, map[string]string{}
			flatten("", y, got)
			flatten("", f.Metadata.Map(), want)
			for k, v := range want {
				if got[k] != v {
					t.Errorf("readelf metadata %s = %q, want %q", k, got[k], v)
				}
			}
			if len(got) != len(want) {
				t.Errorf("readelf shows %d metadata values, built %d", len(got), len(want))
			}
			for _, key := range []string{"/amdhsa.target", "/amdhsa.kernels[0]/.name", "/amdhsa.kernels[0]/.vgpr_count", "/amdhsa.kernels[1]/.private_segment_fixed_size"} {
				if got[key] == "" {
					t.Errorf("readelf shows no %s", key)
				}
			}
			// Descriptors as llvm-objdump sees them.
			out, err := exec.Command(objdump, "-D", "-j", ".rodata", "--mcpu="+tc.mcpu, "--disassemble-symbols=silk_a.kd,silk_b.kd", path).CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			kds := parseObjdumpKDs(string(out))
			llvmProc, _ := target.ByName(tc.mcpu)
			for _, k := range ks {
				o := kds[k.Symbol]
				if o == nil || o.err != "" {
					t.Errorf("objdump cannot decode %s: %+v", k.Symbol, o)
					continue
				}
				var order []string
				for _, d := range k.Descriptor.Directives(llvmProc, 6) {
					order = append(order, d.Name)
					if o.directives[d.Name] != d.Value {
						t.Errorf("%s %s: objdump %d, built %d", k.Symbol, d.Name, o.directives[d.Name], d.Value)
					}
				}
				if strings.Join(order, " ") != strings.Join(o.order, " ") {
					t.Errorf("%s: directives differ:\n%v\n%v", k.Symbol, order, o.order)
				}
			}
			if kds["silk_b.kd"].directives[".amdhsa_enable_private_segment"] != 1 || kds["silk_a.kd"].directives[".amdhsa_group_segment_fixed_size"] != 16384 {
				t.Error("objdump does not show the configured private segment / LDS")
			}
			// Code as llvm-objdump sees it.
			ins, err := disasm(t, objdump, tc.mcpu, path)
			if err != nil {
				t.Fatal(err)
			}
			dis, _ := exec.Command(objdump, "-d", "--mcpu="+tc.mcpu, path).CombinedOutput()
			for _, k := range ks {
				if !bytes.Contains(dis, []byte(fmt.Sprintf("%016x <%s>:", k.EntryAddr, k.Name))) {
					t.Errorf("objdump shows no %s at 0x%x", k.Name, k.EntryAddr)
				}
			}
			if len(ins) != 128 || !strings.HasPrefix(ins[2].text, "s_endpgm") || !strings.HasPrefix(ins[64].text, "s_nop 2") || ins[64].addr != text.Addr+256 {
				t.Errorf("disassembly: %d instructions, [2]=%v [64]=%v", len(ins), ins[min(2, len(ins)-1)], ins[min(64, len(ins)-1)])
			}
		})
	}
}

func TestBuildRejects(t *testing.T) {
	good := BuildSpec{Target: "gfx942", Text: buildText(0xbf810000), Kernels: []KernelConfig{{Name: "k", VGPRCount: 4, SGPRCount: 16}}}
	if _, err := Build(good); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(*BuildSpec){
		"unknown target":  func(s *BuildSpec) { s.Target = "gfx9999" },
		"ragged text":     func(s *BuildSpec) { s.Text = s.Text[:6] },
		"misaligned":      func(s *BuildSpec) { s.Kernels[0].TextOffset = 4 },
		"no kernels":      func(s *BuildSpec) { s.Kernels = nil },
		"too many vgprs":  func(s *BuildSpec) { s.Kernels[0].VGPRCount = 600 },
		"wave32 on gfx9":  func(s *BuildSpec) { s.Kernels[0].WavefrontSize = 32 },
		"duplicate names": func(s *BuildSpec) { s.Kernels = append(s.Kernels, s.Kernels[0]) },
		"bad cov":         func(s *BuildSpec) { s.CodeObjectVersion = 3 },
	} {
		s := good
		s.Kernels = append([]KernelConfig(nil), good.Kernels...)
		edit(&s)
		if _, err := Build(s); err == nil {
			t.Errorf("%s: Build accepted it", name)
		}
	}
	_ = kd.Size
}
