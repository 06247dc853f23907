package wave

import (
	"fmt"
	"strings"
	"sync"

	"github.com/rocjitsu/rocjitsu/hsa/sim/fp"
)

// GFX12 semantics. An instruction's name is looked up, in order, in
// semantics12 (gfx12-only operations and operations whose gfx12 meaning
// differs from the gfx9 operation of the same name), in alias12 (gfx12
// renames of gfx9 operations with the same meaning) and in same12 (names
// both ISAs share and whose meaning was checked to be the same). Anything
// else faults as "not supported".

// semantics12 holds the gfx12-specific implementations.
var semantics12 = map[string]func(*Wave, *Inst) error{}

func def12(name string, f func(*Wave, *Inst) error) {
	if _, dup := semantics12[name]; dup {
		panic("wave: gfx12 semantics defined twice: " + name)
	}
	semantics12[name] = f
}

// alias12 maps gfx12 mnemonics to the gfx9 mnemonic with the same meaning
// Built on first use; every call returns the same map.
// (the renames of the research notes' mapping tables, §3.1-§3.5).
var alias12 = sync.OnceValue(func() map[string]string {
	return map[string]string{
		// SALU renames.
		"s_add_co_u32": "s_add_u32", "s_add_co_ci_u32": "s_addc_u32", "s_sub_co_u32": "s_sub_u32",
		"s_sub_co_ci_u32": "s_subb_u32", "s_add_co_i32": "s_add_i32", "s_sub_co_i32": "s_sub_i32",
		"s_addk_co_i32":  "s_addk_i32",
		"s_and_not1_b32": "s_andn2_b32", "s_and_not1_b64": "s_andn2_b64", "s_or_not1_b32": "s_orn2_b32", "s_or_not1_b64": "s_orn2_b64",
		"s_and_not1_saveexec_b64": "s_andn2_saveexec_b64", "s_or_not1_saveexec_b64": "s_orn2_saveexec_b64",
		"s_and_not0_saveexec_b64": "s_andn1_saveexec_b64", "s_or_not0_saveexec_b64": "s_orn1_saveexec_b64",
		"s_and_not0_wrexec_b64": "s_andn1_wrexec_b64", "s_and_not1_wrexec_b64": "s_andn2_wrexec_b64",
		"s_ctz_i32_b32": "s_ff1_i32_b32", "s_ctz_i32_b64": "s_ff1_i32_b64", "s_clz_i32_u32": "s_flbit_i32_b32",
		"s_clz_i32_u64": "s_flbit_i32_b64", "s_cls_i32": "s_flbit_i32", "s_cls_i32_i64": "s_flbit_i32_i64",
		// VALU renames.
		"v_add_nc_u32": "v_add_u32", "v_sub_nc_u32": "v_sub_u32", "v_subrev_nc_u32": "v_subrev_u32",
		"v_add_nc_i32": "v_add_i32", "v_sub_nc_i32": "v_sub_i32",
		"v_add_co_ci_u32": "v_addc_co_u32", "v_sub_co_ci_u32": "v_subb_co_u32", "v_subrev_co_ci_u32": "v_subbrev_co_u32",
		"v_max_num_f32": "v_max_f32", "v_min_num_f32": "v_min_f32", "v_max_num_f64": "v_max_f64", "v_min_num_f64": "v_min_f64",
		"v_max_num_f16": "v_max_f16", "v_min_num_f16": "v_min_f16",
		"v_max3_num_f32": "v_max3_f32", "v_min3_num_f32": "v_min3_f32", "v_med3_num_f32": "v_med3_f32",
		"v_max3_num_f16": "v_max3_f16", "v_min3_num_f16": "v_min3_f16", "v_med3_num_f16": "v_med3_f16",
		"v_mad_co_u64_u32": "v_mad_u64_u32", "v_mad_co_i64_i32": "v_mad_i64_i32",
		"v_cvt_pk_rtz_f16_f32": "v_cvt_pkrtz_f16_f32", "v_mul_dx9_zero_f32": "v_mul_legacy_f32",
		"v_cvt_floor_i32_f32": "v_cvt_flr_i32_f32", "v_cvt_nearest_i32_f32": "v_cvt_rpi_i32_f32",
		"v_clz_i32_u32": "v_ffbh_u32", "v_ctz_i32_b32": "v_ffbl_b32", "v_cls_i32": "v_ffbh_i32",
		"v_pk_max_num_f16": "v_pk_max_f16", "v_pk_min_num_f16": "v_pk_min_f16",
		// VOPD halves: the VOP2 operations they pair.
		"v_dual_fmac_f32": "v_fmac_f32", "v_dual_fmaak_f32": "v_fmaak_f32", "v_dual_fmamk_f32": "v_fmamk_f32",
		"v_dual_mul_f32": "v_mul_f32", "v_dual_add_f32": "v_add_f32", "v_dual_sub_f32": "v_sub_f32",
		"v_dual_subrev_f32": "v_subrev_f32", "v_dual_mul_dx9_zero_f32": "v_mul_legacy_f32", "v_dual_mov_b32": "v_mov_b32",
		"v_dual_cndmask_b32": "v_cndmask_b32", "v_dual_max_num_f32": "v_max_f32", "v_dual_min_num_f32": "v_min_f32",
		"v_dual_add_nc_u32": "v_add_u32", "v_dual_lshlrev_b32": "v_lshlrev_b32", "v_dual_and_b32": "v_and_b32",
		"v_dual_dot2acc_f32_f16": "v_dot2c_f32_f16",
		// DS renames.
		"ds_storexchg_rtn_b32": "ds_wrxchg_rtn_b32", "ds_storexchg_rtn_b64": "ds_wrxchg_rtn_b64",
		"ds_storexchg_2addr_rtn_b32": "ds_wrxchg2_rtn_b32", "ds_storexchg_2addr_stride64_rtn_b32": "ds_wrxchg2st64_rtn_b32",
		"ds_storexchg_2addr_rtn_b64": "ds_wrxchg2_rtn_b64", "ds_storexchg_2addr_stride64_rtn_b64": "ds_wrxchg2st64_rtn_b64",
	}
})

// same12 lists the names gfx12 shares with gfx9 whose gfx9 semantics apply
// unchanged: integer and bit operations, moves, compares, conversions and
// float arithmetic whose gfx12 definition is the gfx9 one (VOPC compares
// write VCC or an SGPR lane mask on both; v_cmpx is handled by the
// decoder, which drops its gfx9-only lane-mask write).
var same12 = map[string]bool{}

func registerGfx12Ops1() {
	for _, n := range strings.Fields(`
s_mov_b32 s_mov_b64 s_cmov_b32 s_cmov_b64 s_not_b32 s_not_b64 s_brev_b32 s_brev_b64 s_bcnt0_i32_b32 s_bcnt0_i32_b64
s_bcnt1_i32_b32 s_bcnt1_i32_b64 s_sext_i32_i8 s_sext_i32_i16 s_bitset0_b32 s_bitset0_b64 s_bitset1_b32 s_bitset1_b64
s_abs_i32 s_getpc_b64 s_setpc_b64 s_swappc_b64 s_wqm_b32 s_wqm_b64 s_quadmask_b32 s_quadmask_b64 s_bitreplicate_b64_b32
s_and_saveexec_b64 s_or_saveexec_b64 s_xor_saveexec_b64 s_nand_saveexec_b64 s_nor_saveexec_b64 s_xnor_saveexec_b64
s_movrels_b32 s_movrels_b64 s_movreld_b32 s_movreld_b64
s_add_u32 s_and_b32 s_and_b64 s_or_b32 s_or_b64 s_xor_b32 s_xor_b64 s_nand_b32 s_nand_b64 s_nor_b32 s_nor_b64
s_xnor_b32 s_xnor_b64 s_lshl_b32 s_lshl_b64 s_lshr_b32 s_lshr_b64 s_ashr_i32 s_ashr_i64 s_bfm_b32 s_bfm_b64 s_mul_i32
s_bfe_u32 s_bfe_i32 s_bfe_u64 s_bfe_i64 s_absdiff_i32 s_lshl1_add_u32 s_lshl2_add_u32 s_lshl3_add_u32 s_lshl4_add_u32
s_pack_ll_b32_b16 s_pack_lh_b32_b16 s_pack_hh_b32_b16 s_mul_hi_u32 s_mul_hi_i32 s_min_i32 s_min_u32 s_max_i32 s_max_u32
s_cselect_b32 s_cselect_b64 s_movk_i32 s_cmovk_i32 s_mulk_i32 s_call_b64
s_cmp_eq_i32 s_cmp_lg_i32 s_cmp_gt_i32 s_cmp_ge_i32 s_cmp_lt_i32 s_cmp_le_i32 s_cmp_eq_u32 s_cmp_lg_u32 s_cmp_gt_u32
s_cmp_ge_u32 s_cmp_lt_u32 s_cmp_le_u32 s_cmp_eq_u64 s_cmp_lg_u64 s_bitcmp0_b32 s_bitcmp1_b32 s_bitcmp0_b64 s_bitcmp1_b64
s_nop s_endpgm s_code_end s_branch s_cbranch_scc0 s_cbranch_scc1 s_cbranch_execz s_cbranch_execnz s_sleep s_setprio
s_icache_inv s_sendmsg s_sendmsghalt s_trap s_dcache_inv
v_mov_b32 v_not_b32 v_bfrev_b32 v_and_b32 v_or_b32 v_xor_b32 v_xnor_b32 v_lshlrev_b32 v_lshrrev_b32 v_ashrrev_i32
v_lshlrev_b64 v_lshrrev_b64 v_ashrrev_i64 v_add_co_u32 v_sub_co_u32 v_subrev_co_u32 v_cndmask_b32
v_add3_u32 v_lshl_add_u32 v_add_lshl_u32 v_lshl_or_b32 v_and_or_b32 v_or3_b32 v_xad_u32 v_alignbit_b32 v_alignbyte_b32
v_bfe_u32 v_bfe_i32 v_bfi_b32 v_bfm_b32 v_bcnt_u32_b32 v_mbcnt_lo_u32_b32 v_mbcnt_hi_u32_b32 v_perm_b32
v_mul_lo_u32 v_mul_hi_u32 v_mul_hi_i32 v_mul_u32_u24 v_mul_i32_i24 v_mul_hi_u32_u24 v_mul_hi_i32_i24 v_mad_u32_u24 v_mad_i32_i24
v_max_i32 v_max_u32 v_min_i32 v_min_u32 v_max3_i32 v_max3_u32 v_min3_i32 v_min3_u32 v_med3_i32 v_med3_u32
v_readfirstlane_b32 v_readlane_b32 v_writelane_b32 v_nop v_swap_b32
v_add_f32 v_sub_f32 v_subrev_f32 v_mul_f32 v_fma_f32 v_fmac_f32 v_fmaak_f32 v_fmamk_f32 v_ldexp_f32
v_add_f64 v_mul_f64 v_fma_f64 v_ldexp_f64 v_add_f16 v_sub_f16 v_subrev_f16 v_mul_f16 v_fma_f16 v_fmac_f16 v_ldexp_f16
v_exp_f32 v_log_f32 v_rcp_f32 v_rcp_iflag_f32 v_rsq_f32 v_sqrt_f32 v_sin_f32 v_cos_f32 v_rcp_f64 v_rsq_f64 v_sqrt_f64
v_exp_f16 v_log_f16 v_rcp_f16 v_rsq_f16 v_sqrt_f16 v_sin_f16 v_cos_f16
v_frexp_exp_i32_f32 v_frexp_mant_f32 v_frexp_exp_i32_f64 v_frexp_mant_f64 v_fract_f32 v_fract_f64
v_trunc_f32 v_ceil_f32 v_rndne_f32 v_floor_f32 v_trunc_f64 v_ceil_f64 v_rndne_f64 v_floor_f64
v_cvt_f32_i32 v_cvt_f32_u32 v_cvt_i32_f32 v_cvt_u32_f32 v_cvt_f16_f32 v_cvt_f32_f16 v_cvt_f32_f64 v_cvt_f64_f32
v_cvt_f64_i32 v_cvt_f64_u32 v_cvt_i32_f64 v_cvt_u32_f64 v_cvt_f16_u16 v_cvt_f16_i16 v_cvt_u16_f16 v_cvt_i16_f16
v_cvt_f32_ubyte0 v_cvt_f32_ubyte1 v_cvt_f32_ubyte2 v_cvt_f32_ubyte3 v_cvt_pk_u8_f32 v_cvt_off_f32_i4
v_div_scale_f32 v_div_scale_f64 v_div_fmas_f32 v_div_fmas_f64 v_div_fixup_f32 v_div_fixup_f64
v_pk_add_f16 v_pk_mul_f16 v_pk_fma_f16 v_pk_add_u16 v_pk_sub_u16 v_pk_add_i16 v_pk_sub_i16 v_pk_mul_lo_u16
v_pk_lshlrev_b16 v_pk_lshrrev_b16 v_pk_ashrrev_i16 v_pk_max_i16 v_pk_min_i16 v_pk_max_u16 v_pk_min_u16 v_pk_mad_u16 v_pk_mad_i16
v_dot2_f32_f16 v_dot4_u32_u8 v_dot8_u32_u4 v_fma_mix_f32 v_fma_mixlo_f16 v_fma_mixhi_f16 v_pack_b32_f16
v_minimum3_f32 v_maximum3_f32 v_cvt_pk_fp8_f32 v_cvt_pk_bf8_f32
ds_add_u32 ds_sub_u32 ds_rsub_u32 ds_inc_u32 ds_dec_u32 ds_min_i32 ds_max_i32 ds_min_u32 ds_max_u32 ds_and_b32 ds_or_b32
ds_xor_b32 ds_mskor_b32 ds_add_rtn_u32 ds_sub_rtn_u32 ds_rsub_rtn_u32 ds_inc_rtn_u32 ds_dec_rtn_u32 ds_min_rtn_i32
ds_max_rtn_i32 ds_min_rtn_u32 ds_max_rtn_u32 ds_and_rtn_b32 ds_or_rtn_b32 ds_xor_rtn_b32 ds_mskor_rtn_b32
ds_add_u64 ds_sub_u64 ds_rsub_u64 ds_inc_u64 ds_dec_u64 ds_min_i64 ds_max_i64 ds_min_u64 ds_max_u64 ds_and_b64 ds_or_b64
ds_xor_b64 ds_mskor_b64 ds_add_rtn_u64 ds_sub_rtn_u64 ds_rsub_rtn_u64 ds_inc_rtn_u64 ds_dec_rtn_u64 ds_min_rtn_i64
ds_max_rtn_i64 ds_min_rtn_u64 ds_max_rtn_u64 ds_and_rtn_b64 ds_or_rtn_b64 ds_xor_rtn_b64 ds_mskor_rtn_b64
ds_add_f32 ds_add_rtn_f32 ds_pk_add_f16 ds_pk_add_rtn_f16 ds_pk_add_bf16 ds_pk_add_rtn_bf16
ds_swizzle_b32 ds_permute_b32 ds_bpermute_b32 ds_nop
`) {
		same12[n] = true
	}
	// Every integer and float compare keeps its gfx9 meaning.
	for _, n := range namesVOPC {
		if strings.HasPrefix(n, "v_cmp_") || strings.HasPrefix(n, "v_cmpx_") {
			same12[n] = true
		}
	}
}

// finish12 completes the gfx12 tables once every init function of the
// package (the gfx9 semantics among them) has run.
var finish12 = sync.OnceFunc(func() {
	registerSemantics()
	for n := range same12 {
		if semantics[n] == nil {
			delete(same12, n) // not in this gfx9 model either
		}
	}
	// DS: ds_load/ds_store are gfx9's ds_read/ds_write.
	for _, n := range namesDS {
		if n == "" {
			continue
		}
		var g string
		for _, r := range [][2]string{{"ds_read2st64_", "ds_load_2addr_stride64_"}, {"ds_read2_", "ds_load_2addr_"},
			{"ds_write2st64_", "ds_store_2addr_stride64_"}, {"ds_write2_", "ds_store_2addr_"}, {"ds_read_", "ds_load_"},
			{"ds_write_", "ds_store_"}} {
			if strings.HasPrefix(n, r[0]) && !strings.Contains(n, "_tr_") && !strings.Contains(n, "addtid") {
				g = r[1] + strings.TrimPrefix(n, r[0])
				break
			}
		}
		if g != "" && semantics[n] != nil {
			alias12()[g] = n
		}
	}
})

// lookup12 finds the semantics of a gfx12 instruction.
func lookup12(in *Inst) func(*Wave, *Inst) error {
	finish12()
	if in.unsupported != "" {
		msg := in.unsupported
		return func(w *Wave, in *Inst) error { return fmt.Errorf("%s is not supported by the simulator", msg) }
	}
	if in.Name == "" {
		return unknownOp
	}
	if f := semantics12[in.Name]; f != nil {
		return f
	}
	if g, ok := alias12()[in.Name]; ok && semantics[g] != nil {
		return semantics[g]
	}
	if same12[in.Name] {
		return semantics[in.Name]
	}
	return unknownOp
}

// Supported12 reports whether the interpreter implements the gfx12
// mnemonic.
func Supported12(mnemonic string) bool {
	finish12()
	return semantics12[mnemonic] != nil || semantics[alias12()[mnemonic]] != nil || same12[mnemonic]
}

// laneCount is the wave's width: 32 for gfx12 wave32, else 64.
func (w *Wave) laneCount() int {
	if w.wave32 {
		return 32
	}
	return 64
}

// setMask writes a lane mask: an SGPR pair (VCC, EXEC) in wave64, one SGPR
// (vcc_lo, exec_lo) in wave32.
func (w *Wave) setMask(code uint16, m uint64) {
	if w.wave32 {
		w.setS32(code, uint32(m))
		return
	}
	w.setS64(code, m)
}

// mask reads a lane mask operand of the wave's width.
func (w *Wave) mask(code uint16, in *Inst) uint64 {
	if w.wave32 {
		return uint64(w.s32(code, in))
	}
	return w.s64(code, in)
}

// dppLane12 returns the source lane of lane l under gfx10+ DPP16 control
// (quad_perm, row_shl/shr/ror, row_mirror, row_half_mirror, row_share,
// row_xmask) or DPP8 lane selects.
func dppLane12(d *DPP, l, lanes int) (int, bool) {
	if d.DPP8 {
		return l&^7 + int(d.Sel8>>(3*(l&7))&7), true
	}
	row, r := l&^15, l&15
	c := d.Ctrl
	switch {
	case c <= 0xff, c >= 0x101 && c <= 0x12f, c == 0x140, c == 0x141:
		return dppLane(c, l)
	case c >= 0x150 && c <= 0x15f: // row_share: lane n of the row
		return row + int(c&15), true
	case c >= 0x160 && c <= 0x16f: // row_xmask: lane r ^ n of the row
		return row + (r ^ int(c&15)), true
	}
	return 0, false
}

// vopd executes both halves of a VOPD: every source is read before either
// result is written (X's result goes through a scratch row, V[511], which
// gfx12 code cannot address as it has no AGPRs).
func vopd(w *Wave, in *Inst) error {
	x, y := &in.dual[0], &in.dual[1]
	const tmp = opVGPR + 255 + 256
	real := x.Dst
	w.V[511] = *w.vreg(real)
	xi := *x
	xi.Dst = tmp
	if xi.Src[2] == real {
		xi.Src[2] = tmp
	}
	lanes := w.Lanes
	if err := xi.exec(w, &xi); err != nil {
		return fmt.Errorf("%s: %w", x.Name, err)
	}
	if err := y.exec(w, y); err != nil {
		return fmt.Errorf("%s: %w", y.Name, err)
	}
	*w.vreg(real) = w.V[511]
	w.Lanes = lanes + uint64(popcount(w.Exec())) // one instruction
	return nil
}

// mem12 parses a gfx12 FLAT/GLOBAL/SCRATCH mnemonic into a memOp.
func mem12(name string) (memOp, bool) {
	i := strings.IndexByte(name, '_')
	if i < 0 {
		return memOp{}, false
	}
	rest := name[i+1:]
	var op memOp
	sizes := map[string]int{"u8": 1, "i8": 1, "b8": 1, "u16": 2, "i16": 2, "b16": 2, "b32": 4, "b64": 8, "b96": 12, "b128": 16}
	switch {
	case strings.HasPrefix(rest, "load_"), strings.HasPrefix(rest, "store_"):
		op.store = strings.HasPrefix(rest, "store_")
		t := rest[strings.IndexByte(rest, '_')+1:]
		switch {
		case strings.HasPrefix(t, "d16_hi_"):
			op.d16, t = 2, strings.TrimPrefix(t, "d16_hi_")
		case strings.HasPrefix(t, "d16_"):
			op.d16, t = 1, strings.TrimPrefix(t, "d16_")
		}
		sz, ok := sizes[t]
		if !ok || op.d16 != 0 && sz > 2 {
			return op, false
		}
		op.size, op.sign = sz, t == "i8" || t == "i16"
		return op, true
	case strings.HasPrefix(rest, "atomic_"):
		t := rest[len("atomic_"):]
		j := strings.LastIndexByte(t, '_')
		if j < 0 {
			return op, false
		}
		fn, typ := t[:j], t[j+1:]
		op.wide = strings.HasSuffix(typ, "64")
		switch {
		case fn == "min" || fn == "max":
			if typ[0] == 'i' {
				fn = "s" + fn
			} else {
				fn = "u" + fn
			}
		case fn == "pk_add":
			fn = "pk_add_" + typ
		case typ == "f32":
			if fn != "add" {
				return op, false
			}
			fn = "add_f32"
		}
		op.atomic = fn
		op.size = 4
		if op.wide {
			op.size = 8
		}
		if _, ok := atomicFns()[fn]; !ok && fn != "cmpswap" {
			return op, false
		}
		return op, true
	}
	return op, false
}

func saveexec32(f func(s, e uint32) uint32) func(*Wave, *Inst) error {
	return func(w *Wave, in *Inst) error {
		old := w.S[RegExecLo]
		n := f(w.s32(in.Src[0], in), old)
		w.setS32(in.Dst, old)
		w.S[RegExecLo] = n
		w.SCC = n != 0
		w.Lanes++
		return nil
	}
}

func registerGfx12Ops2() {
	nop := func(w *Wave, in *Inst) error { w.Lanes++; return nil }
	for _, n := range []string{"s_clause", "s_delay_alu", "s_wait_alu", "s_wait_idle", "s_waitcnt", "s_wait_loadcnt",
		"s_wait_storecnt", "s_wait_samplecnt", "s_wait_bvhcnt", "s_wait_expcnt", "s_wait_dscnt", "s_wait_kmcnt",
		"s_wait_loadcnt_dscnt", "s_wait_storecnt_dscnt", "s_wait_event", "s_prefetch_inst", "s_prefetch_inst_pc_rel",
		"s_prefetch_data", "s_prefetch_data_pc_rel", "s_buffer_prefetch_data", "s_nop", "s_sleep_var",
		"s_dcache_inv", "global_inv", "global_wb", "global_wbinv", "s_singleuse_vdst",
		"s_version", "s_set_inst_prefetch_distance"} {
		if semantics12[n] == nil {
			def12(n, nop)
		}
	}
	def12("s_ttracedata", func(w *Wave, in *Inst) error { w.ttrace(w.S[RegM0], false); w.Lanes++; return nil })
	def12("s_ttracedata_imm", func(w *Wave, in *Inst) error { w.ttrace(uint32(in.Imm)&0xff, true); w.Lanes++; return nil })
	// Split barrier: signal is counted by the wait (every wave that waits
	// has signalled; the group releases when all live waves wait).
	def12("s_barrier_wait", func(w *Wave, in *Inst) error { w.AtBarrier = true; w.Lanes++; return nil })
	branch := func(name string, cond func(w *Wave) bool) {
		def12(name, func(w *Wave, in *Inst) error {
			if cond(w) {
				w.PC = uint64(int64(w.PC) + int64(in.Imm)*4)
			}
			w.Lanes++
			return nil
		})
	}
	branch("s_cbranch_vccz", func(w *Wave) bool { return w.mask(RegVCCLo, nil) == 0 })
	branch("s_cbranch_vccnz", func(w *Wave) bool { return w.mask(RegVCCLo, nil) != 0 })

	// 32-bit exec-mask updates of wave32 code.
	for name, f := range map[string]func(s, e uint32) uint32{
		"s_and_saveexec_b32": func(s, e uint32) uint32 { return s & e }, "s_or_saveexec_b32": func(s, e uint32) uint32 { return s | e },
		"s_xor_saveexec_b32": func(s, e uint32) uint32 { return s ^ e }, "s_nand_saveexec_b32": func(s, e uint32) uint32 { return ^(s & e) },
		"s_nor_saveexec_b32": func(s, e uint32) uint32 { return ^(s | e) }, "s_xnor_saveexec_b32": func(s, e uint32) uint32 { return ^(s ^ e) },
		"s_and_not0_saveexec_b32": func(s, e uint32) uint32 { return ^s & e }, "s_and_not1_saveexec_b32": func(s, e uint32) uint32 { return s &^ e },
		"s_or_not0_saveexec_b32": func(s, e uint32) uint32 { return ^s | e }, "s_or_not1_saveexec_b32": func(s, e uint32) uint32 { return s | ^e },
	} {
		def12(name, saveexec32(f))
	}
	wrexec := func(name string, f func(s, e uint32) uint32) {
		def12(name, func(w *Wave, in *Inst) error {
			n := f(w.s32(in.Src[0], in), w.S[RegExecLo])
			w.S[RegExecLo] = n
			w.setS32(in.Dst, n)
			w.SCC = n != 0
			w.Lanes++
			return nil
		})
	}
	wrexec("s_and_not0_wrexec_b32", func(s, e uint32) uint32 { return ^s & e })
	wrexec("s_and_not1_wrexec_b32", func(s, e uint32) uint32 { return s &^ e })

	// 64-bit scalar arithmetic.
	sop2w := func(name string, f func(a, b uint64) uint64) {
		def12(name, func(w *Wave, in *Inst) error {
			w.setS64(in.Dst, f(w.s64(in.Src[0], in), w.s64(in.Src[1], in)))
			w.Lanes++
			return nil
		})
	}
	sop2w("s_add_nc_u64", func(a, b uint64) uint64 { return a + b })
	sop2w("s_sub_nc_u64", func(a, b uint64) uint64 { return a - b })
	sop2w("s_mul_u64", func(a, b uint64) uint64 { return a * b })

	// Scalar float (gfx12 SALU floating point), with the wave's f32 denormal mode.
	sf := func(name string, n int, f func(a, b, c float32) float32) {
		def12(name, func(w *Wave, in *Inst) error {
			rd := func(code uint16) float32 {
				u := uint32(w.scalar64(code, in, kF32))
				if w.FlushF32 {
					u = ftz32(u)
				}
				return f32(u)
			}
			var a, b, c float32
			a = rd(in.Src[0])
			if n > 1 {
				b = rd(in.Src[1])
			}
			if n > 2 {
				c = rd(in.Dst)
			}
			r := u32(f(a, b, c))
			if w.FlushF32 {
				r = ftz32(r)
			}
			w.setS32(in.Dst, r)
			w.Lanes++
			return nil
		})
	}
	sf("s_add_f32", 2, func(a, b, c float32) float32 { return a + b })
	sf("s_sub_f32", 2, func(a, b, c float32) float32 { return a - b })
	sf("s_mul_f32", 2, func(a, b, c float32) float32 { return a * b })
	sf("s_max_num_f32", 2, func(a, b, c float32) float32 { return maxF32(a, b) })
	sf("s_min_num_f32", 2, func(a, b, c float32) float32 { return minF32(a, b) })
	sf("s_fmac_f32", 3, fma32)
	sc := func(name string, f func(w *Wave, a uint32) uint32) {
		def12(name, func(w *Wave, in *Inst) error {
			w.setS32(in.Dst, f(w, w.s32(in.Src[0], in)))
			w.Lanes++
			return nil
		})
	}
	sc("s_cvt_f32_u32", func(w *Wave, a uint32) uint32 { return u32(float32(a)) })
	sc("s_cvt_f32_i32", func(w *Wave, a uint32) uint32 { return u32(float32(int32(a))) })
	sc("s_cvt_u32_f32", func(w *Wave, a uint32) uint32 { return cvtU32(float64(f32(a))) })
	sc("s_cvt_i32_f32", func(w *Wave, a uint32) uint32 { return cvtI32(float64(f32(a))) })
	sc("s_cvt_f16_f32", func(w *Wave, a uint32) uint32 { return f2h(f32(a)) })
	sc("s_cvt_f32_f16", func(w *Wave, a uint32) uint32 { return u32(h2f(a)) })
	for _, c := range []struct {
		n string
		f func(a, b float32) bool
	}{{"lt", func(a, b float32) bool { return a < b }}, {"eq", func(a, b float32) bool { return a == b }},
		{"le", func(a, b float32) bool { return a <= b }}, {"gt", func(a, b float32) bool { return a > b }},
		{"lg", func(a, b float32) bool { return a < b || a > b }}, {"ge", func(a, b float32) bool { return a >= b }},
		{"o", func(a, b float32) bool { return a == a && b == b }}, {"u", func(a, b float32) bool { return a != a || b != b }},
		{"nge", func(a, b float32) bool { return !(a >= b) }}, {"nlg", func(a, b float32) bool { return !(a < b || a > b) }},
		{"ngt", func(a, b float32) bool { return !(a > b) }}, {"nle", func(a, b float32) bool { return !(a <= b) }},
		{"neq", func(a, b float32) bool { return a != b }}, {"nlt", func(a, b float32) bool { return !(a < b) }}} {
		f := c.f
		def12("s_cmp_"+c.n+"_f32", func(w *Wave, in *Inst) error {
			w.SCC = f(f32(w.s32(in.Src[0], in)), f32(w.s32(in.Src[1], in)))
			w.Lanes++
			return nil
		})
	}

	// Hardware registers with the gfx12 ids (§3.1 of the research notes).
	def12("s_getreg_b32", func(w *Wave, in *Inst) error {
		id, off, size := in.Imm&0x3f, uint(in.Imm>>6&31), uint(in.Imm>>11&31)+1
		var v uint32
		switch id {
		case 1: // MODE: FP_ROUND [3:0] and FP_DENORM [7:4] as on gfx9; no DX10/IEEE bits
			v = w.mode() & 0xff
		case 29: // SHADER_CYCLES_LO: the wave's Clock
			v = uint32(w.Clock)
		case 30: // SHADER_CYCLES_HI
			v = uint32(w.Clock >> 32)
		case 23: // HW_ID1
			v = w.HWID
		case 24: // HW_ID2
			v = w.HWID2
		case 20, 21: // SCRATCH_BASE_LO/HI: the private aperture
			v = uint32(uint64(PrivateBase) >> (32 * uint(id-20)))
		}
		w.setS32(in.Dst, v>>off&uint32(uint64(1)<<size-1))
		w.Lanes++
		return nil
	})
	// s_setreg: MODE (id 1) has the gfx9 layout of the denormal bits, so the
	// gfx9 implementation (which ignores the other ids) applies.
	same12["s_setreg_b32"], same12["s_setreg_imm32_b32"] = true, true
	def12("s_denorm_mode", func(w *Wave, in *Inst) error {
		// simm16[1:0] f32, [3:2] f16/f64: 3 keeps denormals, else flush.
		w.FlushF32, w.FlushF64 = in.Imm&3 != 3, in.Imm>>2&3 != 3
		w.Lanes++
		return nil
	})
	def12("s_round_mode", func(w *Wave, in *Inst) error {
		if in.Imm&0xf != 0 {
			return fmt.Errorf("rounding modes other than round-to-nearest-even are not supported")
		}
		return nil
	})
	def12("s_sendmsg_rtn_b32", sendmsgRtn(false))
	def12("s_sendmsg_rtn_b64", sendmsgRtn(true))

	// SMEM loads: dword sizes as gfx9 (address aligned to 4), plus
	// sub-dword loads at their natural alignment.
	for _, c := range []struct {
		suf string
		n   int
	}{{"b32", 1}, {"b64", 2}, {"b96", 3}, {"b128", 4}, {"b256", 8}, {"b512", 16}} {
		def12("s_load_"+c.suf, smemOp(c.n, false, false))
		def12("s_buffer_load_"+c.suf, smemOp(c.n, true, false))
	}
	for _, c := range []struct {
		suf        string
		size       int
		signed     bool
		bufferForm bool
	}{{"u8", 1, false, false}, {"i8", 1, true, false}, {"u16", 2, false, false}, {"i16", 2, true, false}} {
		c := c
		for _, buffer := range []bool{false, true} {
			name := "s_load_" + c.suf
			if buffer {
				name = "s_buffer_load_" + c.suf
			}
			buffer := buffer
			def12(name, func(w *Wave, in *Inst) error {
				off := uint64(int64(in.Imm))
				if in.Soffset != 0xffff {
					off += uint64(w.s32(in.Soffset, in))
				}
				base := w.s64(in.Src[0], in)
				if buffer {
					base &= 0xffffffffffff
				}
				addr := (base + off) &^ uint64(c.size-1)
				b, err := w.mem.Slice(addr, c.size, false)
				var v uint32
				switch {
				case err != nil && !buffer:
					return err
				case err != nil:
				case c.size == 1 && c.signed:
					v = uint32(int8(b[0]))
				case c.size == 1:
					v = uint32(b[0])
				case c.signed:
					v = uint32(int16(le.Uint16(b)))
				default:
					v = uint32(le.Uint16(b))
				}
				w.setS32(in.Dst, v)
				w.Lanes++
				return nil
			})
		}
	}

	// Vector memory.
	for _, seg := range []string{"flat_", "global_", "scratch_"} {
		for _, t := range []string{"u8", "i8", "u16", "i16", "b32", "b64", "b96", "b128", "d16_u8", "d16_i8", "d16_b16",
			"d16_hi_u8", "d16_hi_i8", "d16_hi_b16"} {
			if op, ok := mem12(seg + "load_" + t); ok {
				def12(seg+"load_"+t, flatOp(op))
			}
		}
		for _, t := range []string{"b8", "b16", "b32", "b64", "b96", "b128", "d16_hi_b8", "d16_hi_b16"} {
			if op, ok := mem12(seg + "store_" + t); ok {
				def12(seg+"store_"+t, flatOp(op))
			}
		}
		if seg == "scratch_" {
			continue
		}
		for _, t := range []string{"add_u32", "sub_u32", "and_b32", "or_b32", "xor_b32", "swap_b32", "cmpswap_b32", "min_i32",
			"min_u32", "max_i32", "max_u32", "inc_u32", "dec_u32", "add_u64", "sub_u64", "and_b64", "or_b64", "xor_b64",
			"swap_b64", "cmpswap_b64", "min_i64", "min_u64", "max_i64", "max_u64", "inc_u64", "dec_u64", "add_f32",
			"pk_add_f16", "pk_add_bf16"} {
			if op, ok := mem12(seg + "atomic_" + t); ok {
				def12(seg+"atomic_"+t, flatOp(op))
			}
		}
	}

	// gfx12 ds_cmpstore: data0 is the new value, data1 the compare value
	// (gfx9 ds_cmpst has them the other way round, §3.4).
	for _, c := range []struct {
		n         string
		wide, rtn bool
	}{{"ds_cmpstore_b32", false, false}, {"ds_cmpstore_rtn_b32", false, true}, {"ds_cmpstore_b64", true, false}, {"ds_cmpstore_rtn_b64", true, true}} {
		wide := c.wide
		def12(c.n, dsRMW(c.wide, c.rtn, func(w *Wave, in *Inst, l int, old uint64) uint64 {
			if old == w.regN(in.Src[2], l, wide) {
				return w.regN(in.Src[1], l, wide)
			}
			return old
		}))
	}

	// VALU operations that are new on gfx12 or differ from gfx9. v_minmax
	// is max(min(S0, S1), S2) and v_maxmin min(max(S0, S1), S2): clang-19
	// clamps x to [-1, 1] as v_minmax_num_f32 x, 1.0, -1.0.
	F3 := func(name string, fn func(a, b, c float32) float32) {
		keep := v32(kF32, 3, func(a, b, c uint32) uint32 { return u32(fn(f32(a), f32(b), f32(c))) })
		flush := v32(kF32, 3, func(a, b, c uint32) uint32 {
			return ftz32(u32(fn(f32(ftz32(a)), f32(ftz32(b)), f32(ftz32(c)))))
		})
		def12(name, func(w *Wave, in *Inst) error {
			if w.FlushF32 {
				return flush(w, in)
			}
			return keep(w, in)
		})
	}
	F3("v_minmax_num_f32", func(a, b, c float32) float32 { return maxF32(minF32(a, b), c) })
	F3("v_maxmin_num_f32", func(a, b, c float32) float32 { return minF32(maxF32(a, b), c) })
	def12("v_minmax_num_f16", v32(kF16, 3, func(a, b, c uint32) uint32 { return f2h(maxF32(minF32(h2f(a), h2f(b)), h2f(c))) }))
	def12("v_maxmin_num_f16", v32(kF16, 3, func(a, b, c uint32) uint32 { return f2h(minF32(maxF32(h2f(a), h2f(b)), h2f(c))) }))
	for _, c := range []struct {
		n  string
		fn func(a, b, c uint32) uint32
	}{{"v_minmax_i32", func(a, b, c uint32) uint32 { return uint32(max(min(int32(a), int32(b)), int32(c))) }},
		{"v_maxmin_i32", func(a, b, c uint32) uint32 { return uint32(min(max(int32(a), int32(b)), int32(c))) }},
		{"v_minmax_u32", func(a, b, c uint32) uint32 { return max(min(a, b), c) }},
		{"v_maxmin_u32", func(a, b, c uint32) uint32 { return min(max(a, b), c) }}} {
		def12(c.n, v32(kB32, 3, c.fn))
	}
	def12("v_add_nc_u16", v32(kB16, 2, func(a, b, c uint32) uint32 { return a + b }))
	def12("v_sub_nc_u16", v32(kB16, 2, func(a, b, c uint32) uint32 { return a - b }))
	def12("v_mul_lo_u16", v32(kB16, 2, func(a, b, c uint32) uint32 { return a * b }))
	def12("v_permlane64_b32", func(w *Wave, in *Inst) error {
		src := *w.vreg(in.Src[0])
		dst := w.vreg(in.Dst)
		exec := w.Exec()
		if w.wave32 {
			w.Lanes += uint64(popcount(exec))
			for l := 0; l < 32; l++ { // wave32: a move
				if exec>>l&1 != 0 {
					dst[l] = src[l]
				}
			}
			return nil
		}
		for l := 0; l < 64; l++ {
			if exec>>l&1 != 0 {
				dst[l] = src[l^32]
			}
		}
		w.Lanes += uint64(popcount(exec))
		return nil
	})
	permlane16 := func(name string, x, varSel bool) {
		def12(name, func(w *Wave, in *Inst) error {
			src := *w.vreg(in.Src[0])
			dst := w.vreg(in.Dst)
			exec := w.Exec()
			var sel uint64
			var selv *[64]uint32
			if varSel {
				selv = w.vreg(in.Src[1])
			} else {
				sel = uint64(w.s32(in.Src[1], in)) | uint64(w.s32(in.Src[2], in))<<32
			}
			fi, bc := in.Opsel&1 != 0, in.Opsel&2 != 0
			for l := 0; l < w.laneCount(); l++ {
				if exec>>l&1 == 0 {
					continue
				}
				var s uint32
				if varSel {
					s = selv[l] & 15
				} else {
					s = uint32(sel >> (4 * (l & 15)) & 15)
				}
				row := l &^ 15
				if x {
					row ^= 16
				}
				sl := row + int(s)
				if sl >= w.laneCount() || !fi && exec>>sl&1 == 0 {
					if bc {
						dst[l] = 0
					}
					continue
				}
				dst[l] = src[sl]
			}
			w.Lanes += uint64(popcount(exec))
			return nil
		})
	}
	permlane16("v_permlane16_b32", false, false)
	permlane16("v_permlanex16_b32", true, false)
	permlane16("v_permlane16_var_b32", false, true)
	permlane16("v_permlanex16_var_b32", true, true)

	// FP8/BF8 conversions: OCP formats; VOP3 byte_sel (op_sel[0] is bit 1
	// of the byte index, op_sel[1] bit 0) picks the source byte.
	for _, bf := range []bool{false, true} {
		f, suf := fp.E4M3FN, "fp8"
		if bf {
			f, suf = fp.E5M2, "bf8"
		}
		def12("v_cvt_f32_"+suf, func(w *Wave, in *Inst) error {
			sel := uint(in.Opsel&1)<<1 | uint(in.Opsel>>1&1)
			in2 := *in
			in2.Opsel = 0
			return v32(kB32, 1, func(a, b, c uint32) uint32 { return u32(f.Decode(uint8(a >> (8 * sel)))) })(w, &in2)
		})
		def12("v_cvt_pk_f32_"+suf, func(w *Wave, in *Inst) error {
			sh := uint(0)
			if in.Opsel&1 != 0 {
				sh = 16
			}
			in2 := *in
			in2.Opsel = 0
			return v64(kB32, 1, [4]bool{false, false, false, true}, func(a, b, c uint64) uint64 {
				v := uint32(a) >> sh
				return uint64(u32(f.Decode(uint8(v)))) | uint64(u32(f.Decode(uint8(v>>8))))<<32
			})(w, &in2)
		})
	}
}

// sendmsgRtn implements s_sendmsg_rtn: MSG_RTN_GET_REALTIME (0x83) returns
// the wave's modelled clock at issue (Clock, as s_memtime on gfx9); other
// messages return 0.
func sendmsgRtn(wide bool) func(*Wave, *Inst) error {
	return func(w *Wave, in *Inst) error {
		var v uint64
		if in.Src[0]&0xff == 0x83 {
			v = w.Clock
		}
		if wide {
			w.setS64(in.Dst, v)
		} else {
			w.setS32(in.Dst, uint32(v))
		}
		w.Lanes++
		return nil
	}
}
