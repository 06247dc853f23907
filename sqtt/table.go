package sqtt

import (
	"fmt"
	"io"
	"sort"

	"github.com/ianlancetaylor/demangle"
)

// Demangle returns the demangled form of an Itanium C++ name, or name
// itself when it is not mangled.
func Demangle(name string) string {
	if d, err := demangle.ToString(name); err == nil {
		return d
	}
	return name
}

// TableOptions controls WriteTable.
type TableOptions struct {
	// Demangle prints demangled names.
	Demangle bool
}

func typeLabel(k Kind) string {
	switch k {
	case KindFunction:
		return "func"
	case KindKernel:
		return "kernel"
	case KindUser:
		return "user"
	case KindPoint:
		return "point"
	}
	return "?"
}

// WriteTable prints the funcmap of co as the SPEC table: an optional
// marker_encoding and wave_size line, then one row per entry with columns
// Type, ID, Vaddr and Name (with "  @ loc"). Kernels come first, then the
// other entries by id. F entries without a symbol are marked "(inlined)";
// entries with payload records get "(+N payload records)".
func WriteTable(w io.Writer, co *CodeObject, opt TableOptions) error {
	fm := co.Funcmap
	if fm == nil {
		return ErrNoFuncmap
	}
	ew := &errWriter{w: w}
	if fm.Encoding.Packed() {
		ew.printf("marker_encoding: shader_clock_bits=%d shader_clock_shift=%d\n", fm.Encoding.ShaderClockBits, fm.Encoding.ShaderClockShift)
	}
	if fm.WaveSize != 0 {
		ew.printf("  wave_size: %d\n", fm.WaveSize)
	}
	ew.printf("%6s  %8s  %18s  %s\n", "Type", "ID", "Vaddr", "Name")
	ew.printf("%6s  %8s  %18s  %s\n", "----", "---", "-----", "----")
	rows := make([]*Entry, len(fm.Entries))
	copy(rows, fm.Entries)
	sort.SliceStable(rows, func(i, j int) bool {
		ki, kj := rows[i].Kind == KindKernel, rows[j].Kind == KindKernel
		if ki != kj {
			return ki
		}
		return rows[i].ID < rows[j].ID
	})
	for _, e := range rows {
		id := "-"
		if e.Kind != KindKernel {
			id = fmt.Sprint(e.ID)
		}
		vaddr := "-"
		if e.Resolved {
			vaddr = fmt.Sprintf("0x%016x", e.Vaddr)
		}
		name := e.Name
		if opt.Demangle {
			name = Demangle(name)
		}
		if e.SourceLoc != "" {
			name += "  @ " + e.SourceLoc
		}
		if e.Kind == KindFunction && !e.Resolved {
			name += "  (inlined)"
		}
		if e.ExtraPayloadCount > 0 {
			name += fmt.Sprintf("  (+%d payload records)", e.ExtraPayloadCount)
		}
		ew.printf("%6s  %8s  %18s  %s\n", typeLabel(e.Kind), id, vaddr, name)
	}
	return ew.err
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
