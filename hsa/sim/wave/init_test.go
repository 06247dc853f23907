package wave

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoInitFunctions: the semantics tables are built on first use
// (registerSemantics), in a fixed order; an init function would run before
// them, out of that order, in every process that links the simulator.
func TestNoInitFunctions(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
				t.Errorf("%s: func init at %v: add a register function to registerSemantics instead", f, fset.Position(fn.Pos()))
			}
		}
	}
}

// TestRegisteredOnFirstUse: a lookup fills the tables (Supported and
// Supported12 see them without any instruction having run).
func TestRegisteredOnFirstUse(t *testing.T) {
	for _, n := range []string{"v_add_f32", "s_mov_b32", "ds_read_b32", "buffer_load_dword", "v_mfma_f32_16x16x16_f16"} {
		if !Supported(n) {
			t.Errorf("Supported(%q) = false", n)
		}
	}
	for _, n := range []string{"s_mov_b32", "ds_load_b32", "v_add_nc_u32"} {
		if !Supported12(n) {
			t.Errorf("Supported12(%q) = false", n)
		}
	}
}
