package loader

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rocjitsu/rocjitsu/internal/llvmtool"
	"github.com/rocjitsu/rocjitsu/loader/kd"
	"github.com/rocjitsu/rocjitsu/loader/metadata"
)

// yamlNode is a parsed node of the YAML subset llvm-readelf prints for
// AMDGPU metadata: maps, sequences and plain or quoted scalars.
type yamlLine struct {
	indent int
	text   string
}

func parseYAMLBlock(lines []yamlLine, i, indent int) (any, int, error) {
	if i >= len(lines) {
		return nil, i, fmt.Errorf("unexpected end")
	}
	if strings.HasPrefix(lines[i].text, "- ") || lines[i].text == "-" {
		var seq []any
		for i < len(lines) && lines[i].indent == indent && strings.HasPrefix(lines[i].text, "-") {
			rest := strings.TrimPrefix(strings.TrimPrefix(lines[i].text, "-"), " ")
			if k, _, ok := splitKey(rest); ok && k != "" {
				// A map whose first key sits on the dash line.
				sub := append([]yamlLine{{indent + 2, rest}}, lines[i+1:]...)
				v, n, err := parseYAMLBlock(sub, 0, indent+2)
				if err != nil {
					return nil, i, err
				}
				seq = append(seq, v)
				i = i + n
			} else {
				seq = append(seq, unquote(rest))
				i++
			}
		}
		return seq, i, nil
	}
	m := map[string]any{}
	for i < len(lines) && lines[i].indent == indent && !strings.HasPrefix(lines[i].text, "-") {
		k, v, ok := splitKey(lines[i].text)
		if !ok {
			return nil, i, fmt.Errorf("line %q is not key: value", lines[i].text)
		}
		i++
		if v != "" {
			m[k] = unquote(v)
			continue
		}
		if i < len(lines) && (lines[i].indent > indent || (lines[i].indent == indent && strings.HasPrefix(lines[i].text, "-"))) {
			var err error
			var val any
			val, i, err = parseYAMLBlock(lines, i, lines[i].indent)
			if err != nil {
				return nil, i, err
			}
			m[k] = val
		} else {
			m[k] = ""
		}
	}
	return m, i, nil
}

func splitKey(s string) (string, string, bool) {
	if strings.HasPrefix(s, "'") || strings.HasPrefix(s, "\"") {
		return "", "", false
	}
	j := strings.Index(s, ":")
	if j < 0 || (j+1 < len(s) && s[j+1] != ' ') {
		return "", "", false
	}
	return s[:j], strings.TrimSpace(s[j+1:]), true
}

func unquote(s string) string {
	s = strings.TrimPrefix(s, "!str ")
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	}
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// readelfMetadata extracts the metadata YAML from llvm-readelf --notes.
func readelfMetadata(out string) (any, error) {
	start := strings.Index(out, "\n---\n")
	if start < 0 {
		start = strings.Index(out, "---\n")
		if start < 0 {
			return nil, fmt.Errorf("no YAML document in readelf output")
		}
	}
	body := out[start:]
	body = body[strings.Index(body, "---")+4:]
	end := strings.Index(body, "\n...")
	if end >= 0 {
		body = body[:end]
	}
	var lines []yamlLine
	for _, l := range strings.Split(body, "\n") {
		t := strings.TrimLeft(l, " ")
		if t == "" {
			continue
		}
		lines = append(lines, yamlLine{len(l) - len(t), strings.TrimRight(t, " ")})
	}
	v, n, err := parseYAMLBlock(lines, 0, 0)
	if err == nil && n != len(lines) {
		err = fmt.Errorf("stopped at line %d of %d: %q", n, len(lines), lines[n].text)
	}
	return v, err
}

// flatten turns a decoded value into path -> scalar text.
func flatten(prefix string, v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flatten(prefix+"/"+k, e, out)
		}
	case []any:
		for i, e := range x {
			flatten(fmt.Sprintf("%s[%d]", prefix, i), e, out)
		}
	case []uint64:
		for i, e := range x {
			out[fmt.Sprintf("%s[%d]", prefix, i)] = strconv.FormatUint(e, 10)
		}
	case []string:
		for i, e := range x {
			out[fmt.Sprintf("%s[%d]", prefix, i)] = e
		}
	case nil:
		out[prefix] = "~"
	default:
		out[prefix] = fmt.Sprint(x)
	}
}

// objdumpDescriptors parses the .amdhsa_kernel blocks (or the byte dump
// printed for descriptors LLVM refuses) of llvm-objdump -D output.
type objdumpKD struct {
	directives map[string]int64
	order      []string
	err        string
	bytes      []byte
}

func parseObjdumpKDs(out string) map[string]*objdumpKD {
	res := map[string]*objdumpKD{}
	var cur *objdumpKD
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasSuffix(t, ".kd>:"):
			name := t[strings.Index(t, "<")+1 : len(t)-2]
			cur = &objdumpKD{directives: map[string]int64{}}
			res[name] = cur
		case cur == nil:
		case strings.HasPrefix(t, "; error decoding"):
			cur.err = t
		case strings.HasPrefix(t, ".byte"):
			v, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(t, ".byte")), 0, 8)
			if err == nil {
				cur.bytes = append(cur.bytes, byte(v))
			}
		case strings.HasPrefix(t, ".amdhsa_") && !strings.HasPrefix(t, ".amdhsa_kernel"):
			f := strings.Fields(t)
			if len(f) == 2 {
				v, err := strconv.ParseInt(f[1], 10, 64)
				if err == nil {
					cur.directives[f[0]] = v
					cur.order = append(cur.order, f[0])
				}
			}
		}
	}
	return res
}

// TestLLVMFieldByField compares, for every corpus object, the decoded
// metadata with llvm-readelf-19 --notes and every kernel descriptor field
// with llvm-objdump-19's .amdhsa_* directives.
func TestLLVMFieldByField(t *testing.T) {
	readelf := llvmtool.Require(t, llvmtool.Readelf)
	objdump := llvmtool.Require(t, llvmtool.Objdump)
	files := corpusFiles(t)

	type result struct {
		mdFields, kdFields, kdRefused, kdCleared int
		errs                                     []string
	}
	notes, kdDump, err := batchLLVM(readelf, objdump, files)
	if err != nil {
		t.Fatal(err)
	}
	results := make([]result, len(files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for fi, path := range files {
		wg.Add(1)
		sem <- struct{}{}
		go func(fi int, path string) {
			defer wg.Done()
			defer func() { <-sem }()
			r := &results[fi]
			fail := func(format string, args ...any) {
				r.errs = append(r.errs, filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path)+": "+fmt.Sprintf(format, args...))
			}
			b, err := os.ReadFile(path)
			if err != nil {
				fail("%v", err)
				return
			}
			f, err := Parse(b)
			if err != nil {
				fail("parse: %v", err)
				return
			}
			// Metadata, through the typed form and back.
			out, ok := notes[path]
			if !ok {
				fail("llvm-readelf printed nothing for the file")
				return
			}
			want, err := readelfMetadata(string(out))
			if err != nil {
				fail("readelf YAML: %v", err)
				return
			}
			enc, err := f.Metadata.Encode()
			if err != nil {
				fail("encode metadata: %v", err)
				return
			}
			md2, err := metadata.Decode(enc)
			if err != nil {
				fail("decode re-encoded metadata: %v", err)
				return
			}
			wantFlat, gotFlat := map[string]string{}, map[string]string{}
			flatten("", want, wantFlat)
			flatten("", md2.Map(), gotFlat)
			for k, w := range wantFlat {
				g, ok := gotFlat[k]
				if !ok {
					fail("metadata %s: readelf has %q, loader has nothing", k, w)
				} else if g != w {
					fail("metadata %s: readelf %q, loader %q", k, w, g)
				}
				r.mdFields++
			}
			for k, g := range gotFlat {
				if _, ok := wantFlat[k]; !ok {
					fail("metadata %s: loader has %q, readelf has nothing", k, g)
				}
			}
			// Typed fields agree with the map.
			for _, k := range f.Kernels() {
				m := k.Metadata
				if m == nil {
					fail("kernel %s: no metadata", k.Name)
					continue
				}
				if m.Symbol != k.Symbol {
					fail("kernel %s: metadata symbol %s, descriptor symbol %s", k.Name, m.Symbol, k.Symbol)
				}
				if uint64(k.Descriptor.GroupSegmentFixedSize) != m.GroupSegmentFixedSize || uint64(k.Descriptor.PrivateSegmentFixedSize) != m.PrivateSegmentFixedSize {
					fail("kernel %s: descriptor LDS/scratch %d/%d, metadata %d/%d", k.Name, k.Descriptor.GroupSegmentFixedSize,
						k.Descriptor.PrivateSegmentFixedSize, m.GroupSegmentFixedSize, m.PrivateSegmentFixedSize)
				}
			}

			// Descriptors.
			var names []string
			secs := map[string]bool{}
			for _, k := range f.Kernels() {
				names = append(names, k.Symbol)
				secs[f.Sections[k.DescriptorSection].Name] = true
			}
			args := []string{"-D"}
			for s := range secs {
				args = append(args, "-j", s)
			}
			args = append(args, "--disassemble-symbols="+strings.Join(names, ","))
			llvmProc := f.Processor
			if f.Processor.Name == "gfx950" {
				args = append(args, "--mcpu=gfx942")
			}
			args = append(args, path)
			kds := parseObjdumpKDs(kdDump[path])
			// LLVM 19 refuses gfx10+ descriptors whose
			// GRANULATED_WAVEFRONT_SGPR_COUNT is not zero (clang-19 writes
			// such descriptors for gfx12). Decode those once more from a
			// copy with that field cleared, so every other field still
			// meets the oracle; the cleared field is compared with the raw
			// bytes below.
			var retry []string
			patched := append([]byte(nil), f.Raw()...)
			for _, k := range f.Kernels() {
				if o := kds[k.Symbol]; o != nil && o.err != "" && strings.Contains(o.err, "GRANULATED_WAVEFRONT_SGPR_COUNT") {
					d := k.Descriptor
					_ = d.Set(kd.RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT, 0)
					d.EncodeTo(patched[k.DescriptorOffset:])
					retry = append(retry, k.Symbol)
				}
			}
			if len(retry) > 0 {
				tmp := filepath.Join(t.TempDir(), filepath.Base(path))
				if err := os.WriteFile(tmp, patched, 0o644); err != nil {
					fail("%v", err)
					return
				}
				args[len(args)-1] = tmp
				out, err := exec.Command(objdump, args...).CombinedOutput()
				if err != nil {
					fail("objdump: %v\n%s", err, out)
					return
				}
				again := parseObjdumpKDs(string(out))
				for _, sym := range retry {
					k, _ := f.Kernel(sym)
					if a := again[sym]; a != nil && a.err == "" {
						a.directives[".amdhsa_next_free_sgpr"] = int64(k.Descriptor.NextFreeSGPR())
						r.kdCleared++
						kds[sym] = a
					}
				}
			}
			for _, k := range f.Kernels() {
				o := kds[k.Symbol]
				if o == nil {
					fail("objdump printed nothing for %s", k.Symbol)
					continue
				}
				raw := f.Raw()[k.DescriptorOffset : k.DescriptorOffset+kd.Size]
				if enc := k.Descriptor.Encode(); string(enc) != string(raw) {
					fail("%s: Encode(Decode(kd)) differs from the file", k.Symbol)
				}
				if o.err != "" {
					// LLVM 19 refuses the descriptor; it then dumps it as
					// bytes. The bytes must be ours and our Check must
					// refuse it too.
					r.kdRefused++
					if string(o.bytes) != string(raw) {
						fail("%s: objdump byte dump differs from the descriptor bytes", k.Symbol)
					}
					if k.Descriptor.Check(f.Processor) == nil {
						fail("%s: LLVM says %q but kd.Check accepts it", k.Symbol, o.err)
					}
					continue
				}
				got := k.Descriptor.Directives(llvmProc, f.CodeObjectVersion())
				gotMap := map[string]int64{}
				var gotOrder []string
				for _, d := range got {
					gotMap[d.Name] = d.Value
					gotOrder = append(gotOrder, d.Name)
				}
				for name, w := range o.directives {
					g, ok := gotMap[name]
					if !ok {
						fail("%s %s: objdump %d, loader has no such directive", k.Symbol, name, w)
					} else if g != w {
						fail("%s %s: objdump %d, loader %d", k.Symbol, name, w, g)
					}
					r.kdFields++
				}
				if strings.Join(gotOrder, " ") != strings.Join(o.order, " ") {
					fail("%s: directive list differs:\n  objdump %v\n  loader  %v", k.Symbol, o.order, gotOrder)
				}
			}
		}(fi, path)
	}
	wg.Wait()
	var md, kdf, refused, cleared, bad int
	var all []string
	for _, r := range results {
		md += r.mdFields
		kdf += r.kdFields
		refused += r.kdRefused
		cleared += r.kdCleared
		all = append(all, r.errs...)
	}
	sort.Strings(all)
	for i, e := range all {
		if i == 40 {
			t.Errorf("... %d more", len(all)-40)
			break
		}
		t.Error(e)
		bad++
	}
	t.Logf("%d objects: %d metadata fields and %d descriptor directives compared with LLVM 19; %d gfx12 descriptors decoded by LLVM 19 only with GRANULATED_WAVEFRONT_SGPR_COUNT cleared; %d refused outright (byte dump compared); %d mismatches",
		len(files), md, kdf, cleared, refused, len(all))
}

// batchLLVM runs llvm-readelf-19 --notes and llvm-objdump-19 -D on the
// descriptor sections over many files per process (grouped by the --mcpu
// LLVM 19 needs) and returns each file's part of the output.
func batchLLVM(readelf, objdump string, files []string) (map[string]string, map[string]string, error) {
	const batch = 48
	notes := map[string]string{}
	for i := 0; i < len(files); i += batch {
		chunk := files[i:min(i+batch, len(files))]
		out, err := exec.Command(readelf, append([]string{"--notes"}, chunk...)...).CombinedOutput()
		if err != nil {
			return nil, nil, fmt.Errorf("llvm-readelf --notes: %v\n%s", err, out)
		}
		parts := strings.Split("\n"+string(out), "\nFile: ")
		for _, p := range parts[1:] {
			nl := strings.IndexByte(p, '\n')
			notes[p[:nl]] = p[nl:]
		}
		if len(chunk) == 1 {
			notes[chunk[0]] = string(out)
		}
	}
	type group struct {
		args  []string
		files []string
		syms  map[string]bool
	}
	groups := map[string]*group{}
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		f, err := Parse(b)
		if err != nil {
			continue // reported by the caller
		}
		secs := map[string]bool{}
		var secList []string
		for _, k := range f.Kernels() {
			n := f.Sections[k.DescriptorSection].Name
			if !secs[n] {
				secs[n] = true
				secList = append(secList, n)
			}
		}
		sort.Strings(secList)
		key := strings.Join(secList, ",")
		var args []string
		for _, s := range secList {
			args = append(args, "-j", s)
		}
		// One objdump process decodes all its files for one processor.
		mcpu := f.Processor.Name
		if mcpu == "gfx950" {
			mcpu = "gfx942"
		}
		key += "|" + mcpu
		args = append(args, "--mcpu="+mcpu)
		g := groups[key]
		if g == nil {
			g = &group{args: args, syms: map[string]bool{}}
			groups[key] = g
		}
		g.files = append(g.files, path)
		for _, k := range f.Kernels() {
			g.syms[k.Symbol] = true
		}
	}
	dumps := map[string]string{}
	for _, g := range groups {
		for i := 0; i < len(g.files); i += batch {
			chunk := g.files[i:min(i+batch, len(g.files))]
			syms := map[string]bool{}
			for _, path := range chunk {
				b, _ := os.ReadFile(path)
				f, _ := Parse(b)
				for _, k := range f.Kernels() {
					syms[k.Symbol] = true
				}
			}
			var names []string
			for n := range syms {
				names = append(names, n)
			}
			sort.Strings(names)
			args := append([]string{"-D"}, g.args...)
			args = append(args, "--disassemble-symbols="+strings.Join(names, ","))
			out, err := exec.Command(objdump, append(args, chunk...)...).CombinedOutput()
			if err != nil {
				return nil, nil, fmt.Errorf("llvm-objdump -D: %v\n%s", err, out)
			}
			cur := ""
			var sb strings.Builder
			for _, l := range strings.Split(string(out), "\n") {
				if strings.HasSuffix(l, "file format elf64-amdgpu") {
					if cur != "" {
						dumps[cur] = sb.String()
					}
					cur = strings.TrimSuffix(strings.TrimSuffix(l, "file format elf64-amdgpu"), ":\t")
					sb.Reset()
					continue
				}
				sb.WriteString(l)
				sb.WriteByte('\n')
			}
			if cur != "" {
				dumps[cur] = sb.String()
			}
		}
	}
	return notes, dumps, nil
}
