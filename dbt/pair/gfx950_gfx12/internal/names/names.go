// Package names is the reviewed registry of the gfx950 -> gfx12 pair: the
// renames (a different mnemonic for the same operation) and the shared
// mnemonics whose semantics differ between the two ISAs. The generator
// (../gen) combines it with the two ISA tables into the pair's mapping
// table; the translator never infers a correspondence from structure.
//
// Every rename below is one LLVM 19's gfx1201 assembler accepts as an alias
// of the gfx9 name, or that the gfx12 ISA tables list as the renamed
// operation (research note gfx950-to-gfx12.md §3.1-§3.5, marked [V]).
package names

import (
	"sort"
	"strings"
	"sync"
)

// Rename is one reviewed rename.
type Rename struct {
	// To is the gfx12 operation.
	To string
	// Bound, when set, makes the rename approximate and says how.
	Bound string
}

const nanBound = "sNaN inputs: gfx9 IEEE-mode min/max quiet them, gfx12 *_num implement IEEE 754-2019 minimumNumber/maximumNumber"

// Renames returns the map of gfx950 operations to their gfx12 names. It is
// built on the first call; every call returns the same map, which callers
// must not modify.
var Renames = sync.OnceValue(func() map[string]Rename {
	m := map[string]Rename{
		// SALU (§3.1).
		"s_add_u32": {To: "s_add_co_u32"}, "s_addc_u32": {To: "s_add_co_ci_u32"},
		"s_sub_u32": {To: "s_sub_co_u32"}, "s_subb_u32": {To: "s_sub_co_ci_u32"},
		"s_add_i32": {To: "s_add_co_i32"}, "s_sub_i32": {To: "s_sub_co_i32"},
		"s_addk_i32":  {To: "s_addk_co_i32"},
		"s_andn2_b32": {To: "s_and_not1_b32"}, "s_andn2_b64": {To: "s_and_not1_b64"},
		"s_orn2_b32": {To: "s_or_not1_b32"}, "s_orn2_b64": {To: "s_or_not1_b64"},
		"s_andn2_saveexec_b64": {To: "s_and_not1_saveexec_b64"}, "s_orn2_saveexec_b64": {To: "s_or_not1_saveexec_b64"},
		"s_ff1_i32_b32": {To: "s_ctz_i32_b32"}, "s_ff1_i32_b64": {To: "s_ctz_i32_b64"},
		"s_flbit_i32_b32": {To: "s_clz_i32_u32"}, "s_flbit_i32_b64": {To: "s_clz_i32_u64"},
		"s_flbit_i32": {To: "s_cls_i32"}, "s_flbit_i32_i64": {To: "s_cls_i32_i64"},
		// SMEM (§3.2).
		"s_load_dword": {To: "s_load_b32"}, "s_load_dwordx2": {To: "s_load_b64"}, "s_load_dwordx4": {To: "s_load_b128"},
		"s_load_dwordx8": {To: "s_load_b256"}, "s_load_dwordx16": {To: "s_load_b512"},
		// VALU (§3.5).
		"v_add_u32": {To: "v_add_nc_u32"}, "v_sub_u32": {To: "v_sub_nc_u32"}, "v_subrev_u32": {To: "v_subrev_nc_u32"},
		"v_add_i32": {To: "v_add_nc_i32"}, "v_sub_i32": {To: "v_sub_nc_i32"},
		"v_addc_co_u32": {To: "v_add_co_ci_u32"}, "v_subb_co_u32": {To: "v_sub_co_ci_u32"}, "v_subbrev_co_u32": {To: "v_subrev_co_ci_u32"},
		"v_mad_u64_u32": {To: "v_mad_co_u64_u32"}, "v_mad_i64_i32": {To: "v_mad_co_i64_i32"},
		"v_cvt_pkrtz_f16_f32": {To: "v_cvt_pk_rtz_f16_f32"}, "v_mul_legacy_f32": {To: "v_mul_dx9_zero_f32"},
		"v_cvt_flr_i32_f32": {To: "v_cvt_floor_i32_f32"}, "v_cvt_rpi_i32_f32": {To: "v_cvt_nearest_i32_f32"},
		"v_ffbh_u32": {To: "v_clz_i32_u32"}, "v_ffbl_b32": {To: "v_ctz_i32_b32"}, "v_ffbh_i32": {To: "v_cls_i32"},
		"v_max_f32": {To: "v_max_num_f32", Bound: nanBound}, "v_min_f32": {To: "v_min_num_f32", Bound: nanBound},
		"v_max_f64": {To: "v_max_num_f64", Bound: nanBound}, "v_min_f64": {To: "v_min_num_f64", Bound: nanBound},
		"v_max3_f32": {To: "v_max3_num_f32", Bound: nanBound}, "v_min3_f32": {To: "v_min3_num_f32", Bound: nanBound},
		"v_med3_f32": {To: "v_med3_num_f32", Bound: nanBound},
		// DS (§3.4). ds_cmpst_* swaps its data operands: a rule, not a rename.
		"ds_read_b32": {To: "ds_load_b32"}, "ds_read_b64": {To: "ds_load_b64"}, "ds_read_b96": {To: "ds_load_b96"},
		"ds_read_b128": {To: "ds_load_b128"}, "ds_read_u8": {To: "ds_load_u8"}, "ds_read_i8": {To: "ds_load_i8"},
		"ds_read_u16": {To: "ds_load_u16"}, "ds_read_i16": {To: "ds_load_i16"},
		"ds_write_b32": {To: "ds_store_b32"}, "ds_write_b64": {To: "ds_store_b64"}, "ds_write_b96": {To: "ds_store_b96"},
		"ds_write_b128": {To: "ds_store_b128"}, "ds_write_b8": {To: "ds_store_b8"}, "ds_write_b16": {To: "ds_store_b16"},
		"ds_read2_b32": {To: "ds_load_2addr_b32"}, "ds_read2_b64": {To: "ds_load_2addr_b64"},
		"ds_read2st64_b32": {To: "ds_load_2addr_stride64_b32"}, "ds_read2st64_b64": {To: "ds_load_2addr_stride64_b64"},
		"ds_write2_b32": {To: "ds_store_2addr_b32"}, "ds_write2_b64": {To: "ds_store_2addr_b64"},
		"ds_write2st64_b32": {To: "ds_store_2addr_stride64_b32"}, "ds_write2st64_b64": {To: "ds_store_2addr_stride64_b64"},
		"ds_wrxchg_rtn_b32": {To: "ds_storexchg_rtn_b32"}, "ds_wrxchg_rtn_b64": {To: "ds_storexchg_rtn_b64"},
		"ds_max_f32": {To: "ds_max_num_f32", Bound: nanBound}, "ds_min_f32": {To: "ds_min_num_f32", Bound: nanBound},
		"ds_max_rtn_f32": {To: "ds_max_num_rtn_f32", Bound: nanBound}, "ds_min_rtn_f32": {To: "ds_min_num_rtn_f32", Bound: nanBound},
		"ds_read_addtid_b32": {To: "ds_load_addtid_b32"},
	}
	// FLAT / GLOBAL / SCRATCH (§3.3): data-size and atomic-type suffixes.
	sizes := map[string]string{"dword": "b32", "dwordx2": "b64", "dwordx3": "b96", "dwordx4": "b128",
		"ubyte": "u8", "sbyte": "i8", "ushort": "u16", "sshort": "i16", "byte": "b8", "short": "b16"}
	for _, seg := range []string{"flat", "global", "scratch"} {
		for from, to := range sizes {
			if strings.HasPrefix(from, "dword") || from[0] == 'u' || from[0] == 's' {
				m[seg+"_load_"+from] = Rename{To: seg + "_load_" + to}
			}
			if strings.HasPrefix(from, "dword") || from == "byte" || from == "short" {
				m[seg+"_store_"+from] = Rename{To: seg + "_store_" + to}
			}
		}
	}
	atomics := map[string]string{"add": "add_u32", "sub": "sub_u32", "smin": "min_i32", "umin": "min_u32",
		"smax": "max_i32", "umax": "max_u32", "and": "and_b32", "or": "or_b32", "xor": "xor_b32",
		"inc": "inc_u32", "dec": "dec_u32", "swap": "swap_b32", "cmpswap": "cmpswap_b32"}
	for _, seg := range []string{"flat", "global"} {
		for from, to := range atomics {
			m[seg+"_atomic_"+from] = Rename{To: seg + "_atomic_" + to}
			wide := strings.NewReplacer("_u32", "_u64", "_i32", "_i64", "_b32", "_b64").Replace(to)
			m[seg+"_atomic_"+from+"_x2"] = Rename{To: seg + "_atomic_" + wide}
		}
		m[seg+"_atomic_fmin"] = Rename{To: seg + "_atomic_min_num_f32", Bound: nanBound}
		m[seg+"_atomic_fmax"] = Rename{To: seg + "_atomic_max_num_f32", Bound: nanBound}
	}
	return m
})

// d16Bound is the premise of the d16 buffer renames: which 16 bits the
// access reads or writes is the same (d16: bits [15:0], d16_hi: [31:16]; a
// byte load zero- or sign-extends into that half), but the other half of
// the VGPR is preserved by gfx12 always and by gfx9 only with SRAMECC off
// (LLVM's d16PreservesUnusedBits is false on an SRAMECC gfx9 target, so
// code compiled for one does not read it).
const d16Bound = "the unwritten half of a d16 load's VGPR: gfx12 preserves it, gfx9 only with SRAMECC off (LLVM d16PreservesUnusedBits)"

// BufferD16 maps the gfx9 MUBUF d16 operations to their gfx12 VBUFFER
// names (llvm-mc-19 -mcpu=gfx1201 assembles each; the gfx12 tables list
// them as VBUFFER loads/stores). Loads name the half they write: _d16 the
// low one, _d16_hi the high one; stores the half they read (a store reads
// only that half, so the stores are exact). It is built on the first call;
// every call returns the same map, which callers must not modify.
var BufferD16 = sync.OnceValue(func() map[string]Rename {
	return map[string]Rename{
		"buffer_load_short_d16":     {To: "buffer_load_d16_b16", Bound: d16Bound},
		"buffer_load_short_d16_hi":  {To: "buffer_load_d16_hi_b16", Bound: d16Bound},
		"buffer_load_ubyte_d16":     {To: "buffer_load_d16_u8", Bound: d16Bound},
		"buffer_load_ubyte_d16_hi":  {To: "buffer_load_d16_hi_u8", Bound: d16Bound},
		"buffer_load_sbyte_d16":     {To: "buffer_load_d16_i8", Bound: d16Bound},
		"buffer_load_sbyte_d16_hi":  {To: "buffer_load_d16_hi_i8", Bound: d16Bound},
		"buffer_store_short_d16_hi": {To: "buffer_store_d16_hi_b16"},
		"buffer_store_byte_d16_hi":  {To: "buffer_store_d16_hi_b8"},
	}
})

// Differ lists shared mnemonics (and prefixes ending in "*") whose gfx950
// and gfx12 semantics or operand meanings differ; they never pass as the
// same operation (a rule may still handle them). It is built on the first
// call; every call returns the same map, which callers must not modify.
var Differ = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"v_cmpx_*":             "gfx12 v_cmpx writes only EXEC; gfx9 also writes VCC or its SGPR destination",
		"s_getreg_b32":         "hardware register ids differ (gfx12 ids 3, 4, 15, 20-24 mean other registers)",
		"s_setreg_b32":         "hardware register ids differ",
		"s_setreg_imm32_b32":   "hardware register ids differ",
		"s_sendmsg":            "message ids differ (doorbell, ddid, savewave are returning messages on gfx12)",
		"s_sendmsghalt":        "message ids differ",
		"s_waitcnt*":           "gfx12 counts loads, stores, LDS and SMEM separately (rule)",
		"s_memtime":            "no gfx12 opcode (SHADER_CYCLES)",
		"s_memrealtime":        "no gfx12 opcode (s_sendmsg_rtn)",
		"s_dcache_*":           "gfx12 has only s_dcache_inv",
		"s_buffer_*":           "V# word3 layout differs (gfx9 DATA/NUM_FORMAT vs gfx12 FORMAT/OOB_SELECT)",
		"buffer_*":             "V# word3 layout differs (gfx9 DATA/NUM_FORMAT vs gfx12 FORMAT/OOB_SELECT): MUBUF is re-encoded by the V# rule (vsharp.go), never by name",
		"tbuffer_*":            "V# word3 layout and format encoding differ",
		"ds_gws_*":             "GWS is not on gfx12",
		"s_getpc_b64":          "handled by the pipeline (PC-relative re-biasing)",
		"s_setpc_b64":          "handled by the pipeline",
		"s_swappc_b64":         "handled by the pipeline",
		"s_cbranch_*":          "handled by the pipeline",
		"s_branch":             "handled by the pipeline",
		"s_call_b64":           "handled by the pipeline",
		"*_d16*":               "16-bit halves: gfx12 non-true16 forms select halves differently",
		"v_readlane_b32":       "lane select and hazards: kept only through the VOP3 form with an SGPR or inline lane",
		"s_set_gpr_idx_*":      "VGPR indexing mode is not on gfx12 (rule: regions of DST-indexed v_writelane_b32 and DST/SRC0-indexed v_mov_b32, gpridx.go)",
		"v_mov_b64":            "not on gfx12",
		"s_setprio":            "kept: priority hint",
		"s_icache_inv":         "kept",
		"v_cmp_class_f16":      "16-bit operand",
		"v_interp_*":           "graphics",
		"s_rfe_b64":            "trap handler only",
		"s_cbranch_cdbgsys*":   "debugger",
		"v_writelane_b32":      "kept through the VOP3 form",
		"s_nop":                "gfx9 wait-state padding: kept as s_nop (harmless on gfx12)",
		"v_accvgpr_*":          "no AGPRs on gfx12 (rule: AGPRs are VGPRs above the arch ones)",
		"v_mfma_*":             "no MFMA on gfx12: rules exist for the 16x16 and 32x32 f16/bf16 shapes (WMMA), 16x16x32 fp8/bf8 (fp8 WMMA) and 16x16 i8 (VALU dot products); 32x32 fp8, f8f6f4, f32, f64, scaled and 32x32 i8 shapes have none",
		"v_smfmac_*":           "no MFMA on gfx12: rules exist for the 16x16 shapes (fp8/bf8/i8 16x16x128, f16/bf16 16x16x64: chained SWMMAC 16x16x32, smfmac.go); the 32x32 shapes have none",
		"v_cvt_scalef32_*":     "gfx950-only",
		"v_permlane*_swap_*":   "gfx950-only",
		"global_load_lds_*":    "no load-to-LDS on gfx12",
		"s_barrier":            "split barrier on gfx12 (rule)",
		"v_prng_b32":           "gfx950-only",
		"s_ttracedata*":        "trace",
		"s_trap":               "kept: the same trap ids",
		"s_endpgm_saved":       "not on gfx12",
		"s_set_vskip":          "not on gfx12",
		"s_cbranch_join":       "not on gfx12",
		"v_screen_partition_*": "not on gfx12",
	}
})

// Kept are Differ entries that are nevertheless the same operation: they
// document why the name is listed but pass as themselves. It is built on
// the first call; every call returns the same map, which callers must not
// modify.
var Kept = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"s_setprio": true, "s_icache_inv": true, "s_nop": true, "s_trap": true,
		"v_readlane_b32": true, "v_writelane_b32": true}
})

// Differs returns the reason a shared mnemonic is not the same operation
// on both ISAs, or "".
func Differs(name string) string {
	if Kept()[name] {
		return ""
	}
	differ := Differ()
	if r, ok := differ[name]; ok {
		return r
	}
	for _, k := range globs() {
		if matchGlob(name, strings.Split(k, "*")) {
			return differ[k]
		}
	}
	return ""
}

// globs are the Differ patterns, longest first then by name, so that the
// most specific pattern gives the reason; built on first use.
var globs = sync.OnceValue(func() []string {
	var g []string
	for k := range Differ() {
		if strings.Contains(k, "*") {
			g = append(g, k)
		}
	}
	sort.Slice(g, func(i, j int) bool {
		if len(g[i]) != len(g[j]) {
			return len(g[i]) > len(g[j])
		}
		return g[i] < g[j]
	})
	return g
})

func matchGlob(s string, parts []string) bool {
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for i, p := range parts[1:] {
		last := i == len(parts)-2
		if last {
			return strings.HasSuffix(s, p)
		}
		j := strings.Index(s, p)
		if j < 0 {
			return false
		}
		s = s[j+len(p):]
	}
	return true
}
