package gfx9

import (
	"encoding/binary"
	"testing"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
)

func words(ws ...uint32) []byte {
	var b []byte
	for _, w := range ws {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	return b
}

func mustDecode(t *testing.T, target isa.Target, ws ...uint32) isa.Inst {
	t.Helper()
	in, err := Decode(words(ws...), 0x100, target)
	if err != nil {
		t.Fatalf("%08x: %v", ws, err)
	}
	return in
}

// TestFacts checks the per-operation facts the translator and simulator use.
func TestFacts(t *testing.T) {
	cases := []struct {
		ws     []uint32
		text   string
		check  func(in *isa.Inst) bool
		target isa.Target
	}{
		{[]uint32{0x80020100}, "s_add_u32 s2, s0, s1", func(in *isa.Inst) bool {
			return in.Info.ImplicitWrites == isa.ImpSCC && in.Info.ImplicitReads == 0 && in.Info.Has(isa.FlagSALU)
		}, isa.GFX942},
		{[]uint32{0x82020100}, "s_addc_u32 s2, s0, s1", func(in *isa.Inst) bool {
			return in.Info.ImplicitReads&isa.ImpSCC != 0 && in.Info.ImplicitWrites&isa.ImpSCC != 0
		}, isa.GFX942},
		{[]uint32{0xBF840012}, "s_cbranch_scc0 18", func(in *isa.Inst) bool {
			tgt, ok := in.BranchTarget()
			return in.Info.Branch == isa.BranchCond && in.Info.ImplicitReads == isa.ImpSCC && ok && tgt == 0x100+4+4*0x12
		}, isa.GFX942},
		{[]uint32{0xBF82FFFB}, "s_branch 65531", func(in *isa.Inst) bool {
			tgt, _ := in.BranchTarget()
			return in.Info.Branch == isa.BranchJump && tgt == 0x100+4-4*5
		}, isa.GFX942},
		{[]uint32{0xBE801D02}, "s_setpc_b64 s[2:3]", func(in *isa.Inst) bool { return in.Info.Branch == isa.BranchIndirect }, isa.GFX942},
		{[]uint32{0xBE821E04}, "s_swappc_b64 s[2:3], s[4:5]", func(in *isa.Inst) bool { return in.Info.Branch == isa.BranchCall }, isa.GFX942},
		{[]uint32{0xBF810000}, "s_endpgm", func(in *isa.Inst) bool { return in.Info.Branch == isa.BranchEnd }, isa.GFX942},
		{[]uint32{0xBE82200A}, "s_and_saveexec_b64 s[2:3], s[10:11]", func(in *isa.Inst) bool {
			return in.Info.ImplicitWrites == isa.ImpSCC|isa.ImpEXEC && in.Info.ImplicitReads == isa.ImpEXEC
		}, isa.GFX942},
		{[]uint32{0xBF8CC07F}, "s_waitcnt lgkmcnt(0)", func(in *isa.Inst) bool { return in.Info.Has(isa.FlagWaitcnt) }, isa.GFX942},
		{[]uint32{0x7D940480}, "v_cmp_eq_u32_e32 vcc, 0, v2", func(in *isa.Inst) bool {
			o := in.Operands[0]
			return o.Class == isa.Special && isa.SpecialReg(o.Reg) == isa.RegVCCLo && o.Width == 2 && o.Role == isa.Def &&
				in.Info.ImplicitReads == isa.ImpEXEC
		}, isa.GFX942},
		{[]uint32{0x7DB40480}, "v_cmpx_eq_u32_e32 vcc, 0, v2", func(in *isa.Inst) bool {
			return in.Info.ImplicitWrites&isa.ImpEXEC != 0
		}, isa.GFX942},
		{[]uint32{0xD1196A26, 0x00002126}, "v_add_co_u32_e64 v38, vcc, v38, s16", func(in *isa.Inst) bool {
			return in.Operands[1].Role == isa.Def && in.Operands[1].Width == 2 && in.Operands[3].Class == isa.SGPR
		}, isa.GFX942},
		{[]uint32{0xDC5C8000, 0x00FF0026}, "global_load_dwordx4 a[0:3], v[38:39], off", func(in *isa.Inst) bool {
			d := in.Operands[0]
			return in.Format == isa.GLOBAL && in.Info.Mem == isa.MemGlobal && in.Info.MemOp == isa.MemLoad && in.Info.Wait == isa.WaitVM &&
				d.Class == isa.AGPR && d.Width == 4 && d.Role == isa.Def && in.Operands[1].Width == 2 && in.Operands[2].Kind == isa.KindOff
		}, isa.GFX942},
		{[]uint32{0xDBFE0040, 0x04000025}, "ds_read_b128 a[4:7], v37 offset:64", func(in *isa.Inst) bool {
			return in.Info.Mem == isa.MemLDS && in.Info.Wait == isa.WaitLGKM && in.Info.Has(isa.FlagLDS) && in.Mod.Offset == 64
		}, isa.GFX942},
		{[]uint32{0xD89A0000, 0x00004C25}, "ds_write_b64 v37, v[76:77]", func(in *isa.Inst) bool {
			return in.Info.MemOp == isa.MemStore && in.Operands[0].Role == isa.Use && in.Operands[1].Role == isa.Use && in.Operands[1].Width == 2
		}, isa.GFX942},
		{[]uint32{0xC0060200, 0x00000000}, "s_load_dwordx2 s[8:9], s[0:1], 0x0", func(in *isa.Inst) bool {
			return in.Info.Mem == isa.MemScalar && in.Info.Wait == isa.WaitLGKM && in.Operands[0].Width == 2
		}, isa.GFX942},
		{[]uint32{0xE0511000, 0x80020807}, "buffer_load_dword v7, s[8:11], 0 offen lds", func(in *isa.Inst) bool {
			return in.Info.Has(isa.FlagLDS) && in.Info.ImplicitReads&isa.ImpM0 != 0 && in.Info.Mem == isa.MemBuffer
		}, isa.GFX942},
		{[]uint32{0xD3F30038, 0x1A028100}, "v_mfma_f32_16x16x32_fp8_fp8 v[56:59], a[0:1], a[64:65], 0", func(in *isa.Inst) bool {
			return in.Info.Has(isa.FlagMFMA|isa.FlagNumericsDiffer) && in.Info.Targets == isa.GFX9 && in.Operands[1].Class == isa.AGPR
		}, isa.GFX942},
		{[]uint32{0xD2A24030, 0x00026732}, "v_cvt_pk_fp8_f32 v48, v50, v51 op_sel:[0,0,1]", func(in *isa.Inst) bool {
			return in.Info.Has(isa.FlagNumericsDiffer)
		}, isa.GFX942},
		{[]uint32{0x7E0AB101}, "v_prng_b32_e32 v5, v1", func(in *isa.Inst) bool {
			return in.Info.Targets == isa.GFX950 && !in.Info.Has(isa.FlagNumericsDiffer)
		}, isa.GFX950},
		{[]uint32{0xD3AC0000, 0x00023318, 0xD3AD8900, 0x9C521904}, "v_mfma_scale_f32_16x16x128_f8f6f4 a[0:3], a[4:11], a[12:15], a[20:23], v24, v25 op_sel_hi:[0,0,0] cbsz:1 blgp:4", func(in *isa.Inst) bool {
			return in.Size == 16 && in.Format == isa.VOP3PX2 && in.Info.Has(isa.FlagMFMA) && in.Operands[2].Width == 4
		}, isa.GFX950},
	}
	for _, c := range cases {
		in := mustDecode(t, c.target, c.ws...)
		if got := Print(&in); got != c.text {
			t.Errorf("%08x: text %q, want %q", c.ws, got, c.text)
		}
		if !c.check(&in) {
			t.Errorf("%s: facts wrong: info %+v operands %+v", c.text, *in.Info, in.Operands)
		}
	}
}

// TestTargets checks that target-specific opcodes decode only where they
// exist.
func TestTargets(t *testing.T) {
	if _, err := Decode(words(0x7E0AB101), 0, isa.GFX942); err == nil {
		t.Error("v_prng_b32 decoded for gfx942")
	}
	xf32 := words(0xD3BE0000, 0x04020902) // v_mfma_f32_16x16x8_xf32
	if _, err := Decode(xf32, 0, isa.GFX942); err != nil {
		t.Errorf("xf32 MFMA on gfx942: %v", err)
	}
	if _, err := Decode(xf32, 0, isa.GFX950); err == nil {
		t.Error("xf32 MFMA decoded for gfx950")
	}
	_, err := Decode(words(0xFFFFFFFF), 0x40, isa.GFX942)
	de, ok := err.(*isa.DecodeError)
	if !ok || de.Offset != 0x40 || de.Field == "" {
		t.Errorf("error %v does not name offset and field", err)
	}
	if _, err := Decode([]byte{1, 2}, 0, isa.GFX942); err == nil {
		t.Error("2 bytes decoded")
	}
	if _, err := Decode(words(0x8601FF01), 0, isa.GFX942); err == nil {
		t.Error("missing literal not reported")
	}
}

// TestEncodeBuilt encodes an instruction built from a decoded one with a
// changed operand, as the translator does.
func TestEncodeBuilt(t *testing.T) {
	in := mustDecode(t, isa.GFX942, 0x0A0862FA, 0xFF015018) // v_mul_f32_dpp v4, v24, v49 row_newbcast:0 ...
	in.Operands[0].Reg = 7
	in.Mod.RowMask = 0x3
	b, err := Encode(&in)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(b, 0, isa.GFX942)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Print(&back), "v_mul_f32_dpp v7, v24, v49 row_newbcast:0 row_mask:0x3 bank_mask:0xf"; got != want {
		t.Errorf("got %q want %q", got, want)
	}
}
