// Package wave is a functional interpreter for gfx9 wave64 machine code
// (gfx942 and gfx950) and for gfx12 (gfx1200, gfx1201) wave32 and wave64
// code, which is decoded with dbt/isa/gfx12 and runs on the same state with
// 32-bit lane masks in wave32 (gfx12_decode.go, gfx12_ops.go). It decodes instructions on the fly (Decode), keeps a
// per-PC cache of decoded instructions per code region (Program), and runs
// them on a wave's architectural state (Wave): SGPRs with VCC, M0, EXEC and
// the trap temporaries at their operand numbers, SCC, 256 VGPRs and 256
// AGPRs of 64 lanes, per-lane private memory, and the workgroup's LDS.
//
// Instruction names come from tables generated with LLVM's disassembler
// (internal/genops, run by go generate) plus the gfx950-only opcodes of the
// shared ISA oracle; semantics are looked up by mnemonic, so an encoding
// form (VOP1/VOP2/VOPC, VOP3, SDWA, DPP) shares one implementation.
//
// What the interpreter models:
//
//   - SALU (SOP1/SOP2/SOPK/SOPC/SOPP), branches, calls, s_getreg/s_setreg on
//     MODE, s_getreg of HW_ID (gfx9) and HW_ID1/HW_ID2 (gfx12) from
//     Wave.HWID/HWID2, VGPR indexing (s_set_gpr_idx_*), scalar loads, stores
//     and atomics.
//   - A per-wave clock (Wave.Clock, advanced by the Wave.Cost hook or by one
//     per instruction) read by gfx12 SHADER_CYCLES and gfx9 s_memtime /
//     s_memrealtime, and s_ttracedata /
//     s_ttracedata_imm delivered to the Wave.Marker hook (SQTT captures).
//   - VALU at 16, 32 and 64 bits with VOP3 abs/neg/clamp/omod/op_sel, SDWA
//     selects and DPP lane permutations with row/bank masks and bound_ctrl;
//     deferred lane masks (carry-outs, compares and v_cmpx write VCC, an SGPR
//     pair or EXEC after every lane is evaluated); 64-bit EXEC always.
//   - VOP3P packed math, dot products, v_fma_mix, and the matrix cores:
//     dense MFMA of every gfx942/gfx950 shape (f32, xf32, f16, bf16, i8,
//     f64, FP8/BF8) with the CBSZ/ABID and BLGP broadcast controls as the
//     CDNA3 ISA describes them, gfx950's f8f6f4 MFMA with v_mfma_ld_scale_b32 E8M0
//     scales, and sparse SMFMAC.
//   - FLAT/GLOBAL/SCRATCH (flat apertures for LDS and private memory),
//     MUBUF with buffer resource descriptors (range checking, LDS-direct
//     loads), DS including atomics, read2/write2, swizzle and permutes,
//     and gfx950's transposed reads ds_read_b64_tr_b{4,8,16} (lane mapping
//     inferred from the MFMA operand layouts; AMD does not document it).
//   - Traps, memory faults, out-of-range LDS or private accesses and
//     unknown or unimplemented instructions stop the wave with a *Fault
//     naming the PC, the wave and the instruction.
//
// Number formats: FP8/BF8 instructions read and write E4M3FNUZ/E5M2FNUZ on
// gfx942 and E4M3FN/E5M2 (OCP) on gfx950 (package fp). Arithmetic rounds to
// nearest even. Denormals are kept or flushed per the descriptor's
// FLOAT_DENORM_MODE fields (Wave.FlushF32, Wave.FlushF64; MODE writes take
// effect). f32 FMA is correctly rounded. Transcendentals (exp, log, rcp,
// rsq, sqrt, sin, cos) are evaluated in float64 and rounded once, so they
// are within 0.5 ulp of the exact value, tighter than the hardware's
// documented 1 ulp. The division macro yields the correctly rounded
// quotient: v_div_scale never scales and v_div_fixup returns the quotient
// in its precision outside the special cases. Matrix products are summed in float64 and rounded once
// to float32 (f64 MFMAs use fused multiply-adds in K order), so results can
// differ from the hardware's internal rounding in the last bit.
//
// Memory operations are performed lane by lane in lane order, and a wave
// runs until it ends or reaches s_barrier, so execution is deterministic;
// s_waitcnt and cache controls are no-ops because memory is coherent.
//
// VSKIP mode (s_setvskip) skips vector instructions while it is set.
//
// Not modelled: buffer format conversions
// (buffer_load_format_*), ds_read_b96_tr_b6, stochastic-rounding
// conversions (v_cvt_sr_*, v_cvt_scalef32_sr_*), the FP6/BF6 and 32-element
// scaled conversions (v_cvt_scalef32_pk32_*, v_cvt_scalef32_2xpk16_*), the
// f16 forms of the scalar scaled ones, v_prng_b32 and GDS;
// these fault with "not supported". s_sendmsg and the other scheduling
// hints are ignored.
package wave
