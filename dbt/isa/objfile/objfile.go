// Package objfile reads what a disassembler needs from an AMDGPU code
// object: the executable sections, the symbols that name addresses in them,
// and the target from e_flags. It reads the ELF64 headers itself (only the
// section headers, names and symbols a listing needs), so the disassembler
// depends neither on the full code-object loader nor on debug/elf, which
// reads and allocates every section and symbol name.
package objfile

import (
	"fmt"
	"os"
	"syscall"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/internal/elfcheck"
)

// Section is an executable section.
type Section struct {
	Name string
	Addr uint64
	Data []byte
}

// Symbol is a named address.
type Symbol struct {
	Name string
	Addr uint64
	Size uint64
	Func bool // STT_FUNC
}

// File is the disassembly view of a code object.
type File struct {
	Target   isa.Target // 0 when e_flags names no supported target
	Mach     uint32     // EF_AMDGPU_MACH
	Sections []Section
	Symbols  []Symbol // sorted by address, then by table order
}

// SectionAt returns the section whose data holds address addr (the last
// such one in Sections, should sections overlap), or nil.
func (f *File) SectionAt(addr uint64) *Section {
	var sec *Section
	for i := range f.Sections {
		s := &f.Sections[i]
		if addr >= s.Addr && addr < s.Addr+uint64(len(s.Data)) {
			sec = s
		}
	}
	return sec
}

// EMAMDGPU is the ELF machine number of AMDGPU.
const EMAMDGPU = 224

// Open reads the code object at path.
func Open(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("objfile: %w", err)
	}
	return Parse(b, path)
}

// Parse reads a code object from memory; name is used in errors. The
// sections' Data share b. Parse's work is bounded by len(b): every table,
// section and name is checked to lie in b before it is read (readELF).
func Parse(b []byte, name string) (*File, error) {
	if err := elfcheck.Bounds(b); err != nil {
		return nil, fmt.Errorf("objfile: %s: %w", name, err)
	}
	f, err := readELF(b)
	if err != nil {
		return nil, fmt.Errorf("objfile: %s: %w", name, err)
	}
	return f, nil
}

// OpenInto is Open reading the file into buf's storage when it is large
// enough (buf is overwritten); it returns the File and the storage, for
// the next call once the File is no longer needed (its sections' Data
// share it).
func OpenInto(path string, buf []byte) (*File, []byte, error) {
	b, err := readFile(path, buf)
	if err != nil {
		return nil, buf, fmt.Errorf("objfile: %w", err)
	}
	f, err := Parse(b, path)
	return f, b, err
}

// readFile reads the file at path into buf's storage, or into new storage
// when buf is too small. It uses the system calls directly: a file opened
// by os.Open is also set non-blocking and offered to the runtime's poller,
// four more system calls per object on Linux. A regular file is read to
// the size it has when opened (no read to see the end); others are read to
// their end.
func readFile(path string, buf []byte) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	for err == syscall.EINTR {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	size, regular := st.Size, st.Mode&syscall.S_IFMT == syscall.S_IFREG
	if !regular || size < 0 || size >= 1<<40 {
		size = 0
	}
	if int(size) > cap(buf) {
		buf = make([]byte, 0, int(size)+512)
	}
	b := buf[:0]
	for {
		if regular && len(b) == int(size) {
			return b, nil
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := syscall.Read(fd, b[len(b):cap(b)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return b, nil
		}
		b = b[:len(b)+n]
	}
}
