package sqtt

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/rocjitsu/rocjitsu/internal/elfcheck"
)

// SectionName is the ELF section that holds the funcmap.
const SectionName = ".sqtt_funcmap"

// ErrNoFuncmap reports a code object without a .sqtt_funcmap section (the
// common case for code built without the instrument pass).
var ErrNoFuncmap = errors.New("no " + SectionName + " section")

// CodeObject is the marker view of one code object: its funcmap with F and
// K entries resolved against the FUNC symbols.
type CodeObject struct {
	// ID is the code object id (from the capture file name), 0 if unknown.
	ID uint64
	// Path is the file the code object was read from, if any.
	Path string
	// Funcmap is the parsed section; nil when the section is absent.
	Funcmap *Funcmap
	// Symbols maps FUNC symbol names to their values.
	Symbols map[string]uint64
}

// ParseCodeObject is ReadCodeObject for a code object in memory, with the
// ELF tables and sections first checked to lie in b (internal/elfcheck), so
// that untrusted bytes cost time and memory bounded by their size.
func ParseCodeObject(b []byte) (*CodeObject, error) {
	if err := elfcheck.Bounds(b); err != nil {
		return nil, fmt.Errorf("sqtt: code object: %w", err)
	}
	return ReadCodeObject(bytes.NewReader(b))
}

// ReadCodeObject reads the funcmap and FUNC symbols of an ELF64 code
// object. debug/elf trusts the sizes in r; use ParseCodeObject for bytes
// that may be malformed. A missing section is not an error (Funcmap is nil); an empty
// section yields an empty funcmap with a warning. Malformed ELF is an error
// naming the problem.
func ReadCodeObject(r io.ReaderAt) (*CodeObject, error) {
	f, err := elf.NewFile(r)
	if err != nil {
		return nil, fmt.Errorf("sqtt: code object: %w", err)
	}
	defer f.Close()
	if f.Class != elf.ELFCLASS64 {
		return nil, fmt.Errorf("sqtt: code object: class %v at offset 4, want ELFCLASS64", f.Class)
	}
	co := &CodeObject{Symbols: map[string]uint64{}}
	syms, err := f.Symbols()
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
		return nil, fmt.Errorf("sqtt: code object: symbol table: %w", err)
	}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Name != "" {
			co.Symbols[s.Name] = s.Value
		}
	}
	sec := f.Section(SectionName)
	if sec == nil {
		return co, nil
	}
	if sec.Type == elf.SHT_NOBITS {
		return nil, fmt.Errorf("sqtt: code object: %s at offset %#x is SHT_NOBITS", SectionName, sec.Offset)
	}
	data, err := sec.Data()
	if err != nil {
		return nil, fmt.Errorf("sqtt: code object: %s (offset %#x, size %#x): %w", SectionName, sec.Offset, sec.Size, err)
	}
	co.Funcmap = ParseFuncmap(data)
	if len(data) == 0 {
		co.Funcmap.Diagnostics = append(co.Funcmap.Diagnostics, Diagnostic{Warning, 0, "section present but empty"})
	}
	co.resolve()
	return co, nil
}

// resolve fills Vaddr of F and K entries from the FUNC symbols by exact
// (mangled) name.
func (co *CodeObject) resolve() {
	if co.Funcmap == nil {
		return
	}
	for _, e := range co.Funcmap.Entries {
		if e.Kind != KindFunction && e.Kind != KindKernel {
			continue
		}
		if v, ok := co.Symbols[e.Name]; ok {
			e.Vaddr, e.Resolved = v, true
		}
	}
}

var coIDPattern = regexp.MustCompile(`code_object_id_(\d+)`)

// CodeObjectID extracts N from a capture file name containing
// "code_object_id_N".
func CodeObjectID(path string) (uint64, bool) {
	m := coIDPattern.FindStringSubmatch(filepath.Base(path))
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseUint(m[1], 10, 64)
	return v, err == nil
}

// OpenCodeObject reads the code object at path; its ID comes from the file
// name (0 when the name carries none).
func OpenCodeObject(path string) (*CodeObject, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sqtt: %w", err)
	}
	co, err := ParseCodeObject(data)
	if err != nil {
		return nil, fmt.Errorf("%s (%d bytes): %w", path, len(data), err)
	}
	co.Path = path
	co.ID, _ = CodeObjectID(path)
	return co, nil
}
