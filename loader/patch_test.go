package loader

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/loader/kd"
	"github.com/rocjitsu/rocjitsu/loader/metadata"
	"github.com/rocjitsu/rocjitsu/loader/target"
)

// growSpec is the test patch: 4 KiB of s_nop before the old .text, one
// 64-byte descriptor tail, a .rocjitsu.lds section and another machine.
func growSpec(f *File) PatchSpec {
	text := f.Section(".text")
	nt := make([]byte, 4096, 4096+len(text.Data))
	for i := 0; i < 4096; i += 4 {
		binary.LittleEndian.PutUint32(nt[i:], SNop0)
	}
	nt = append(nt, text.Data...)
	k := f.Kernels()[0]
	tail := k.Descriptor.Encode()
	mach := map[string]target.Mach{
		"gfx942": target.MachGFX1201, "gfx950": target.MachGFX942,
		"gfx1200": target.MachGFX1201, "gfx1201": target.MachGFX1200,
	}[f.Processor.Name]
	return PatchSpec{
		Text:           nt,
		TextMap:        func(off uint64) (uint64, bool) { return off + 4096, true },
		DescriptorTail: tail,
		TailEntries:    map[int]uint64{0: k.EntryAddr - text.Addr + 4096},
		Sections:       []NewSection{{Name: ".rocjitsu.lds", Data: []byte("virtual-lds sidecar test payload")}},
		Mach:           mach,
	}
}

// disasm returns llvm-objdump -d's instruction lines as (address, text).
type insn struct {
	addr uint64
	text string
}

func disasm(t *testing.T, objdump, mcpu, path string) ([]insn, error) {
	m, err := disasmFiles(objdump, mcpu, path)
	return m[path], err
}

// disasmFiles runs one llvm-objdump -d over several files and splits its
// output by file.
func disasmFiles(objdump, mcpu string, paths ...string) (map[string][]insn, error) {
	out, err := exec.Command(objdump, append([]string{"-d", "--mcpu=" + mcpu}, paths...)...).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("objdump -d: %v\n%s", err, out)
	}
	res := map[string][]insn{}
	cur := ""
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasSuffix(l, "file format elf64-amdgpu") {
			cur = strings.TrimSuffix(strings.TrimSuffix(l, "file format elf64-amdgpu"), ":\t")
			continue
		}
		i := strings.LastIndex(l, "// ")
		if i < 0 || !strings.HasPrefix(l, "\t") {
			continue
		}
		rest := l[i+3:]
		c := strings.Index(rest, ":")
		if c < 0 {
			continue
		}
		a, err := strconv.ParseUint(rest[:c], 16, 64)
		if err != nil {
			continue
		}
		res[cur] = append(res[cur], insn{a, strings.TrimSpace(l[:i]) + " |" + rest[c+1:]})
	}
	for _, p := range paths {
		if _, ok := res[p]; !ok {
			return nil, fmt.Errorf("objdump -d printed no instructions for %s", p)
		}
	}
	return res, nil
}

func TestPatchCorpus(t *testing.T) {
	readelf := llvmtool.Require(t, llvmtool.Readelf)
	objdump := llvmtool.Require(t, llvmtool.Objdump)
	files := corpusFiles(t)
	dir := t.TempDir()
	var mu sync.Mutex
	var errs []string
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	insns := 0
	for _, path := range files {
		wg.Add(1)
		sem <- struct{}{}
		go func(path string) {
			defer wg.Done()
			defer func() { <-sem }()
			name := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
			n, msgs := verifyPatch(t, readelf, objdump, dir, path, nil)
			mu.Lock()
			for _, m := range msgs {
				errs = append(errs, name+": "+m)
			}
			insns += n
			mu.Unlock()
		}(path)
	}
	wg.Wait()
	for i, e := range errs {
		if i == 30 {
			t.Errorf("... %d more", len(errs)-30)
			break
		}
		t.Error(e)
	}
	t.Logf("%d objects patched; %d original instructions found at their new addresses; %d failures", len(files), insns, len(errs))
}

// verifyPatch patches the object at path with growSpec (plus edit, when
// given), checks the result with the loader itself, llvm-readelf-19 -a and
// llvm-objdump-19 -d, and returns the number of original instructions
// found at their new addresses and the failures.
func verifyPatch(t *testing.T, readelf, objdump, dir, path string, edit func(*File, *PatchSpec)) (int, []string) {
	name := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
	var errs []string
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Sprintf(format, args...))
	}
	orig, err := os.ReadFile(path)
	if err != nil {
		fail("%v", err)
		return 0, errs
	}
	f, err := Parse(orig)
	if err != nil {
		fail("parse: %v", err)
		return 0, errs
	}
	spec := growSpec(f)
	if edit != nil {
		edit(f, &spec)
	}
	nf, err := Patch(f, spec)
	if err != nil {
		fail("patch: %v", err)
		return 0, errs
	}
	if !bytes.Equal(f.Raw(), orig) {
		fail("patch changed its input")
	}
	out, _ := nf.Write()
	if !bytes.Equal(out, nf.Raw()) {
		fail("patched object does not round-trip")
	}
	np, _ := target.ByMach(spec.Mach)
	if nf.Processor.Name != np.Name {
		fail("machine %s, want %s", nf.Processor.Name, np.Name)
	}
	if np.Family == target.FamilyGFX12 && (nf.Flags.XNACK != 0 || nf.Flags.SRAMECC != 0) {
		fail("xnack/sramecc kept on %s", np.Name)
	}
	if np.Family != target.FamilyGFX12 && (nf.Flags.XNACK != f.Flags.XNACK || nf.Flags.SRAMECC != f.Flags.SRAMECC) {
		fail("xnack/sramecc changed")
	}
	if nf.Header.Flags&^0xfff != f.Header.Flags&^0xfff {
		fail("upper e_flags bits changed: 0x%x -> 0x%x", f.Header.Flags, nf.Header.Flags)
	}
	if s := nf.Section(".rocjitsu.lds"); s == nil || string(s.Data) != string(spec.Sections[0].Data) || s.Alloc() {
		fail(".rocjitsu.lds missing or wrong")
	}
	tail := nf.Section(TailSectionName)
	if tail == nil || tail.Addr%64 != 0 {
		fail("descriptor tail missing or misaligned")
		return 0, errs
	}
	// The tail descriptor enters the moved kernel.
	td, _ := kd.Decode(tail.Data)
	nk := nf.Kernels()[0]
	if td.EntryAddress(tail.Addr) != nk.EntryAddr {
		fail("tail entry 0x%x, kernel entry 0x%x", td.EntryAddress(tail.Addr), nk.EntryAddr)
	}
	ot, nt := f.Section(".text"), nf.Section(".text")
	// Every symbol names the same bytes.
	for _, tab := range [][2][]Symbol{{f.Symbols, nf.Symbols}, {f.DynSymbols, nf.DynSymbols}} {
		if len(tab[0]) != len(tab[1]) {
			fail("symbol count changed")
			continue
		}
		for i, osym := range tab[0] {
			ns := tab[1][i]
			if osym.Name != ns.Name || osym.Shndx != ns.Shndx {
				fail("symbol %d changed name or section", i)
				continue
			}
			if osym.Shndx == SHN_UNDEF || osym.Shndx >= SHN_LORESERVE || !f.Sections[osym.Shndx].Alloc() || f.Sections[osym.Shndx].Type == SHT_NOBITS {
				continue
			}
			n := uint64(4)
			if strings.HasSuffix(osym.Name, ".kd") {
				n = 64
			}
			ob, err1 := f.ReadAt(osym.Value, n)
			nb, err2 := nf.ReadAt(ns.Value, n)
			if err1 != nil || err2 != nil {
				if (err1 == nil) != (err2 == nil) {
					fail("symbol %s: readable before %v, after %v", osym.Name, err1, err2)
				}
				continue
			}
			if n == 64 {
				ob = append(append([]byte(nil), ob[:16]...), ob[24:]...)
				nb = append(append([]byte(nil), nb[:16]...), nb[24:]...)
			}
			if !bytes.Equal(ob, nb) {
				fail("symbol %s: bytes at 0x%x differ from the old bytes at 0x%x", osym.Name, ns.Value, osym.Value)
			}
		}
	}
	for i, k := range f.Kernels() {
		want := k.EntryAddr - ot.Addr + 4096 + nt.Addr
		if nf.Kernels()[i].EntryAddr != want {
			fail("kernel %s entry 0x%x, want 0x%x", k.Name, nf.Kernels()[i].EntryAddr, want)
		}
	}
	tmp := filepath.Join(dir, strings.ReplaceAll(name, "/", "_"))
	if err := os.WriteFile(tmp, nf.Raw(), 0o644); err != nil {
		fail("%v", err)
		return 0, errs
	}
	re, err := exec.Command(readelf, "-a", tmp).CombinedOutput()
	if err != nil || readelfComplains(re) {
		fail("llvm-readelf-19 -a: %v\n%s", err, firstLines(re, "warning", "error", "invalid"))
	}
	mcpu := f.Processor.Name
	if mcpu == "gfx950" {
		mcpu = "gfx942"
	}
	both, err := disasmFiles(objdump, mcpu, path, tmp)
	if err != nil {
		fail("%v", err)
		return 0, errs
	}
	before, after := both[path], both[tmp]
	if len(after) != len(before)+1024 {
		fail("disassembly has %d instructions, want %d + 1024", len(after), len(before))
		return 0, errs
	}
	for i := 0; i < 1024; i++ {
		if !strings.HasPrefix(after[i].text, "s_nop 0") {
			fail("instruction %d is %q, want s_nop 0", i, after[i].text)
			return 0, errs
		}
	}
	shift := nt.Addr + 4096 - ot.Addr
	for i, in := range before {
		a := after[i+1024]
		if a.text != in.text || a.addr != in.addr+shift {
			fail("instruction %d: %#x %q became %#x %q", i, in.addr, in.text, a.addr, a.text)
			return 0, errs
		}
	}
	return len(before), errs
}

func firstLines(b []byte, words ...string) string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		for _, w := range words {
			if strings.Contains(strings.ToLower(l), w) {
				out = append(out, l)
				break
			}
		}
		if len(out) == 5 {
			break
		}
	}
	return strings.Join(out, "\n")
}

// TestPatchGrowsNote rewrites the metadata note with a payload larger than
// the whole first page, so the note, everything after it (descriptors,
// .text, .dynamic) and the segments move; then runs the same checks.
func TestPatchGrowsNote(t *testing.T) {
	readelf := llvmtool.Require(t, llvmtool.Readelf)
	objdump := llvmtool.Require(t, llvmtool.Objdump)
	dir := t.TempDir()
	seen := map[string]int{}
	pad := strings.Repeat("rocjitsu", 1200)
	for _, path := range corpusFiles(t) {
		fam := filepath.Dir(path)
		if seen[fam] >= 2 {
			continue
		}
		seen[fam]++
		n, errs := verifyPatch(t, readelf, objdump, dir, path, func(f *File, s *PatchSpec) {
			md := *f.Metadata
			md.Extra = map[string]any{"rocjitsu.pad": pad}
			for k, v := range f.Metadata.Extra {
				md.Extra[k] = v
			}
			s.Metadata = &md
		})
		for _, e := range errs {
			t.Errorf("%s: %s", path, e)
		}
		f, _ := Parse(readFile(t, path))
		s := growSpec(f)
		md := *f.Metadata
		md.Extra = map[string]any{"rocjitsu.pad": pad}
		s.Metadata = &md
		nf, err := Patch(f, s)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if nf.Metadata.Extra["rocjitsu.pad"] != pad {
			t.Errorf("%s: new metadata key lost", path)
		}
		if nf.Section(".text").Addr == f.Section(".text").Addr {
			t.Errorf("%s: .text did not move although the note grew by %d bytes", path, len(pad))
		}
		t.Logf("%s: %d instructions checked", path, n)
	}
	if len(seen) < 2 {
		t.Fatalf("corpus has only %v", seen)
	}
}

// TestPatchAllOrNothing checks that a failing patch reports the problem
// and leaves the input alone.
func TestPatchAllOrNothing(t *testing.T) {
	path := corpusFiles(t)[0]
	orig := readFile(t, path)
	f, err := Parse(orig)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(*PatchSpec){
		"ragged text":    func(s *PatchSpec) { s.Text = s.Text[:4094] },
		"unmapped label": func(s *PatchSpec) { s.TextMap = func(o uint64) (uint64, bool) { return o, false } },
		"ragged tail":    func(s *PatchSpec) { s.DescriptorTail = s.DescriptorTail[:10] },
		"bad tail entry": func(s *PatchSpec) { s.TailEntries = map[int]uint64{3: 0} },
		"alloc section":  func(s *PatchSpec) { s.Sections[0].Flags = SHF_ALLOC },
		"unknown mach":   func(s *PatchSpec) { s.Mach = 0x7e },
	}
	for name, edit := range cases {
		s := growSpec(f)
		edit(&s)
		nf, err := Patch(f, s)
		if err == nil {
			t.Errorf("%s: patch succeeded: %d bytes", name, len(nf.Raw()))
			continue
		}
		t.Logf("%s: %v", name, err)
		if !bytes.Equal(f.Raw(), orig) {
			t.Fatalf("%s: input changed", name)
		}
		if out, _ := f.Write(); !bytes.Equal(out, orig) {
			t.Fatalf("%s: File changed", name)
		}
	}
}

// readelfComplains reports whether llvm-readelf output carries a warning,
// an error or an "Invalid AMDGPU Metadata" verdict.
func readelfComplains(out []byte) bool {
	l := bytes.ToLower(out)
	return bytes.Contains(l, []byte("warning")) || bytes.Contains(l, []byte("error")) || bytes.Contains(l, []byte("invalid"))
}

// TestPatchTwice patches a patched object again: the first descriptor
// tail moves and its entry point follows the kernel.
func TestPatchTwice(t *testing.T) {
	for _, path := range corpusFiles(t)[:3] {
		f, err := Parse(readFile(t, path))
		if err != nil {
			t.Fatal(err)
		}
		p1, err := Patch(f, growSpec(f))
		if err != nil {
			t.Fatal(err)
		}
		p2, err := Patch(p1, growSpec(p1))
		if err != nil {
			t.Fatal(err)
		}
		entry := p2.Kernels()[0].EntryAddr
		if entry != p1.Kernels()[0].EntryAddr+4096 {
			t.Errorf("%s: kernel entry 0x%x after the second patch, want 0x%x", path, entry, p1.Kernels()[0].EntryAddr+4096)
		}
		n := 0
		for _, s := range p2.Sections {
			if s.Name != TailSectionName {
				continue
			}
			n++
			d, _ := kd.Decode(s.Data)
			if d.EntryAddress(s.Addr) != entry {
				t.Errorf("%s: tail at 0x%x enters 0x%x, want 0x%x", path, s.Addr, d.EntryAddress(s.Addr), entry)
			}
		}
		if n != 2 {
			t.Errorf("%s: %d descriptor tails, want 2", path, n)
		}
		if err := p2.CheckLayout(); err != nil {
			t.Error(err)
		}
	}
}

// TestPatchPadsShortText checks that a shorter .text is padded with s_nop 0
// to the old size.
func TestPatchPadsShortText(t *testing.T) {
	f, err := Parse(readFile(t, corpusFiles(t)[0]))
	if err != nil {
		t.Fatal(err)
	}
	old := f.Section(".text")
	code := old.Data[:8]
	nf, err := Patch(f, PatchSpec{Text: code})
	if err != nil {
		t.Fatal(err)
	}
	nt := nf.Section(".text")
	if nt.Size != old.Size || !bytes.Equal(nt.Data[:8], code) {
		t.Fatalf(".text is %d bytes", nt.Size)
	}
	for i := 8; i < len(nt.Data); i += 4 {
		if binary.LittleEndian.Uint32(nt.Data[i:]) != SNop0 {
			t.Fatalf("word at %d is 0x%x, want s_nop 0", i, binary.LittleEndian.Uint32(nt.Data[i:]))
		}
	}
}

// TestPatchSyncMetadata grows a kernel's scratch, LDS and VGPRs through a
// replaced descriptor and checks that SyncMetadata carries them into the
// metadata note (and the new target into amdhsa.target).
func TestPatchSyncMetadata(t *testing.T) {
	readelf := llvmtool.Require(t, llvmtool.Readelf)
	for _, path := range corpusFiles(t) {
		f, err := Parse(readFile(t, path))
		if err != nil {
			t.Fatal(err)
		}
		if f.Processor.Name != "gfx950" || f.Metadata.Target == "" {
			continue
		}
		k := f.Kernels()[0]
		d := k.Descriptor
		d.PrivateSegmentFixedSize += 256
		d.GroupSegmentFixedSize = 0
		g := d.Get(kd.RSRC1_GRANULATED_WORKITEM_VGPR_COUNT) + 2
		d.Set(kd.RSRC1_GRANULATED_WORKITEM_VGPR_COUNT, g)
		nf, err := Patch(f, PatchSpec{Descriptors: map[string]kd.Descriptor{k.Symbol: d}, Mach: target.MachGFX942, SyncMetadata: true})
		if err != nil {
			t.Fatal(err)
		}
		m := nf.Kernels()[0].Metadata
		gfx942, _ := target.ByName("gfx942")
		if m.PrivateSegmentFixedSize != uint64(d.PrivateSegmentFixedSize) || m.GroupSegmentFixedSize != 0 || m.VGPRCount != uint64(d.NextFreeVGPR(gfx942)) {
			t.Errorf("%s: metadata scratch %d lds %d vgprs %d; descriptor %d 0 %d", path, m.PrivateSegmentFixedSize, m.GroupSegmentFixedSize, m.VGPRCount, d.PrivateSegmentFixedSize, d.NextFreeVGPR(gfx942))
		}
		if !strings.Contains(nf.Metadata.Target, "gfx942") {
			t.Errorf("%s: amdhsa.target %s", path, nf.Metadata.Target)
		}
		if nd := nf.Kernels()[0].Descriptor; nd.PrivateSegmentFixedSize != d.PrivateSegmentFixedSize || nd.EntryAddress(nf.Kernels()[0].DescriptorAddr) != nf.Kernels()[0].EntryAddr {
			t.Errorf("%s: descriptor not replaced", path)
		}
		tmp := filepath.Join(t.TempDir(), "synced.co")
		os.WriteFile(tmp, nf.Raw(), 0o644)
		out, err := exec.Command(readelf, "-a", tmp).CombinedOutput()
		if err != nil || readelfComplains(out) {
			t.Errorf("%s: readelf: %v %s", path, err, firstLines(out, "warning", "error", "invalid"))
		}
		return
	}
	t.Fatal("no gfx950 object with amdhsa.target in the corpus")
}

// TestPatchNonUniformTextMap inserts an s_nop after every 64th word of
// .text, so each label moves by a different amount, and checks that every
// symbol still names its old bytes and every descriptor enters its moved
// kernel.
func TestPatchNonUniformTextMap(t *testing.T) {
	readelf := llvmtool.Require(t, llvmtool.Readelf)
	files := corpusFiles(t)
	for _, path := range []string{files[0], files[len(files)/2], files[len(files)-1]} {
		f, err := Parse(readFile(t, path))
		if err != nil {
			t.Fatal(err)
		}
		old := f.Section(".text").Data
		var nt []byte
		for off := 0; off < len(old); off += 4 {
			nt = append(nt, old[off:min(off+4, len(old))]...)
			if off%256 == 252 {
				nt = binary.LittleEndian.AppendUint32(nt, SNop0)
			}
		}
		m := func(off uint64) (uint64, bool) { return off + 4*(off/256), off <= uint64(len(old)) }
		nf, err := Patch(f, PatchSpec{Text: nt, TextMap: m})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		labels := 0
		for i, osym := range f.Symbols {
			ns := nf.Symbols[i]
			if osym.Shndx == SHN_UNDEF || osym.Shndx >= SHN_LORESERVE || !f.Sections[osym.Shndx].Alloc() || f.Sections[osym.Shndx].Type == SHT_NOBITS || osym.Type() == STT_SECTION {
				continue
			}
			ob, err1 := f.ReadAt(osym.Value, 4)
			nb, err2 := nf.ReadAt(ns.Value, 4)
			if err1 != nil || err2 != nil {
				continue
			}
			if !bytes.Equal(ob, nb) {
				t.Errorf("%s: %s moved 0x%x -> 0x%x but names other bytes", path, osym.Name, osym.Value, ns.Value)
			}
			if int(osym.Shndx) == f.SectionIndex(".text") && osym.Value != ns.Value {
				labels++
			}
		}
		text := f.Section(".text")
		for i, k := range f.Kernels() {
			want, _ := m(k.EntryAddr - text.Addr)
			if got := nf.Kernels()[i].EntryAddr; got != nf.Section(".text").Addr+want {
				t.Errorf("%s: %s entry 0x%x, want 0x%x", path, k.Name, got, nf.Section(".text").Addr+want)
			}
		}
		tmp := filepath.Join(t.TempDir(), "nu.co")
		os.WriteFile(tmp, nf.Raw(), 0o644)
		if out, err := exec.Command(readelf, "-a", tmp).CombinedOutput(); err != nil || readelfComplains(out) {
			t.Errorf("%s: readelf: %v %s", path, err, firstLines(out, "warning", "error", "invalid"))
		}
		t.Logf("%s: %d text symbols moved by their own offsets", path, labels)
	}
}

// TestPatchAlignmentBound checks that Patch refuses a LOAD alignment
// above 64 KiB instead of moving the object's contents by it: the fuzzer
// found a 4 KB object with a 16 MiB p_align (and one with a 0xffffff
// .comment sh_addralign) that took 25-40 ms and 48 MB per patch. The
// largest accepted alignment still patches, and the patched object is
// bounded by a small multiple of the input.
func TestPatchAlignmentBound(t *testing.T) {
	b, err := Build(BuildSpec{Target: "gfx942", Text: buildText(0xbf810000), Kernels: []KernelConfig{{Name: "k", VGPRCount: 4, SGPRCount: 16}}})
	if err != nil {
		t.Fatal(err)
	}
	withAlign := func(a uint64) *File {
		raw := append([]byte(nil), b.Raw()...)
		for i, g := range b.Segments {
			if g.Type == PT_LOAD {
				off := b.Header.Phoff + uint64(i)*56 + 48
				binary.LittleEndian.PutUint64(raw[off:], a)
			}
		}
		f, err := Parse(raw)
		if err != nil {
			t.Fatalf("p_align %#x: %v", a, err)
		}
		return f
	}
	for _, a := range []uint64{1 << 17, 1 << 24} {
		f := withAlign(a)
		if _, err := Patch(f, growSpec(f)); err == nil || !strings.Contains(err.Error(), "too large") {
			t.Errorf("p_align %#x: err = %v, want too large", a, err)
		}
	}
	// 64 KiB is accepted (this object's offsets and addresses are not
	// congruent modulo it, which Patch then reports as a layout error).
	f := withAlign(1 << 16)
	if _, err := Patch(f, growSpec(f)); err != nil && strings.Contains(err.Error(), "too large") {
		t.Errorf("p_align 64 KiB refused: %v", err)
	}
	f = withAlign(0x1000)
	nf, err := Patch(f, growSpec(f))
	if err != nil {
		t.Fatalf("p_align 4 KiB: %v", err)
	}
	if n := len(nf.Raw()); n > len(f.Raw())+4*0x1000 {
		t.Errorf("p_align 4 KiB: %d-byte input patched to %d bytes", len(f.Raw()), n)
	}
}

// TestPatchNobitsText checks that Patch refuses a .text without its bytes
// in the file: the fuzzer found an object whose .text was SHT_NOBITS with
// a 3.8 GB sh_size, which Patch padded the new .text to (over 5 s per
// input; testdata/fuzz/FuzzPatch/slowest-nobits-text-*).
func TestPatchNobitsText(t *testing.T) {
	b, err := Build(BuildSpec{Target: "gfx942", Text: buildText(0xbf810000), Kernels: []KernelConfig{{Name: "k", VGPRCount: 4, SGPRCount: 16}}})
	if err != nil {
		t.Fatal(err)
	}
	raw := append([]byte(nil), b.Raw()...)
	h := b.Header.Shoff + uint64(b.SectionIndex(".text"))*64
	binary.LittleEndian.PutUint32(raw[h+4:], SHT_NOBITS)
	binary.LittleEndian.PutUint64(raw[h+32:], 0xe3000990)
	f, err := Parse(raw)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if _, err := Patch(f, growSpec(f)); err == nil || !strings.Contains(err.Error(), "want SHT_PROGBITS") {
		t.Errorf("NOBITS .text: err = %v, want SHT_PROGBITS", err)
	}
}

// TestPatchMetadataIsItsNoteDecoded checks that the metadata of a patched
// object, which Patch works out from the metadata it wrote instead of
// decoding the note again, is what decoding the new note gives, for every
// corpus object and the changes translation makes; and that it shares
// nothing with the spec's metadata.
func TestPatchMetadataIsItsNoteDecoded(t *testing.T) {
	checked := 0
	for _, path := range corpusFiles(t) {
		f, err := Parse(readFile(t, path))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if f.Metadata == nil || f.Header.Type != ET_DYN {
			continue
		}
		md := f.Metadata.Clone()
		md.Target = strings.Replace(md.Target, f.Processor.Name, "gfx942", 1)
		for i := range md.Kernels {
			md.Kernels[i].VGPRCount += 8
			md.Kernels[i].MarkPresent(".vgpr_count", ".agpr_count")
		}
		s := growSpec(f)
		s.Metadata = md
		nf, err := Patch(f, s)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		want, err := metadata.Decode(nf.MetadataNote.Desc)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !reflect.DeepEqual(nf.Metadata, want) {
			t.Fatalf("%s: the patched object's metadata is not its note decoded:\n%#v\nwant\n%#v", path, nf.Metadata, want)
		}
		if len(md.Kernels) > 0 {
			md.Kernels[0].Name = "changed after the patch"
			if nf.Metadata.Kernels[0].Name == md.Kernels[0].Name {
				t.Fatalf("%s: the patched object's metadata shares the spec's", path)
			}
		}
		checked++
	}
	if checked < 20 {
		t.Fatalf("only %d objects checked", checked)
	}
}
