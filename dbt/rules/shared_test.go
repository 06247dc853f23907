package rules

import (
	"reflect"
	"testing"
)

// TestAGPRSaveDisassembles checks the save and restore stubs of the
// subroutine form with llvm-mc-19: EXEC saved and set to all lanes, one
// v_accvgpr_write (read) per register into (from) a0.., EXEC restored.
func TestAGPRSaveDisassembles(t *testing.T) {
	save, restore := AGPRSave([]uint16{3, 200}, 6)
	want := []string{"s_mov_b64 s[6:7], exec", "s_mov_b64 exec, -1", "v_accvgpr_write_b32 a0, v3", "v_accvgpr_write_b32 a1, v200", "s_mov_b64 exec, s[6:7]", "s_nop 1"}
	if got := disasm(t, save); !reflect.DeepEqual(got, want) {
		t.Fatalf("save %q, want %q", got, want)
	}
	want = []string{"s_mov_b64 s[6:7], exec", "s_mov_b64 exec, -1", "v_accvgpr_read_b32 v3, a0", "v_accvgpr_read_b32 v200, a1", "s_mov_b64 exec, s[6:7]"}
	if got := disasm(t, restore); !reflect.DeepEqual(got, want) {
		t.Fatalf("restore %q, want %q", got, want)
	}
}
