// gfx950.h: gfx950-only instructions for the gfx950 guest kernels
// (sources with "// targets: gfx950"). clang-19 cannot assemble gfx950, so
// each instruction is emitted as raw words with its registers pinned by
// inline-asm constraints; the object is compiled for gfx942 and
// retargeted to gfx950 (it is not valid gfx942 code). The words are
// checked against LLVM's gfx950 MC tests by internal/kernelref
// (TestGFX950Encodings). On the host (RJ_HOST, the reference check) each
// macro calls an emulation in the test harness instead.
#ifndef ROCJITSU_KERNELS_GFX950_H
#define ROCJITSU_KERNELS_GFX950_H

typedef half rj950_half8 __attribute__((ext_vector_type(8)));
typedef float rj950_float4 __attribute__((ext_vector_type(4)));
typedef float rj950_float16 __attribute__((ext_vector_type(16)));

#ifndef RJ_HOST

// v_cvt_pk_bf16_f32 v5, v1, v2: r = bf16(b) << 16 | bf16(a), round to
// nearest even.
#define CVT_PK_BF16_F32(r, a, b) \
  __asm__ volatile(".long 0xd2680005, 0x00020501" : "={v5}"(r) : "{v1}"(a), "{v2}"(b))

// v_cvt_f32_bf16_e32 v5, v1: r = the bf16 in the low half of x, as f32.
#define CVT_F32_BF16(r, x) __asm__ volatile(".long 0x7e0ab701" : "={v5}"(r) : "{v1}"(x))

// v_permlane16_swap_b32_e32 v1, v2: exchange the odd 16-lane rows of x
// with the even rows of y (x[l+16] <-> y[l] for l in rows 0 and 2).
#define PERMLANE16_SWAP(x, y) __asm__ volatile(".long 0x7e02b302" : "+{v1}"(x), "+{v2}"(y))

// v_permlane32_swap_b32_e32 v1, v2: exchange the upper 32 lanes of x with
// the lower 32 lanes of y (x[l+32] <-> y[l] for l < 32).
#define PERMLANE32_SWAP(x, y) __asm__ volatile(".long 0x7e02b502" : "+{v1}"(x), "+{v2}"(y))

// v_bitop3_b32 v5, v1, v2, v3 bitop3:LUT: per bit, r = LUT bit
// (a<<2 | b<<1 | c). LUT 0x96 (a^b^c), 0xe8 (majority), 0xca (a ? b : c),
// 0xa1.
#define BITOP3_96(r, a, b, c) \
  __asm__ volatile(".long 0xd2340205, 0xd40e0501" : "={v5}"(r) : "{v1}"(a), "{v2}"(b), "{v3}"(c))
#define BITOP3_E8(r, a, b, c) \
  __asm__ volatile(".long 0xd2340505, 0x1c0e0501" : "={v5}"(r) : "{v1}"(a), "{v2}"(b), "{v3}"(c))
#define BITOP3_CA(r, a, b, c) \
  __asm__ volatile(".long 0xd2340105, 0x5c0e0501" : "={v5}"(r) : "{v1}"(a), "{v2}"(b), "{v3}"(c))
#define BITOP3_A1(r, a, b, c) \
  __asm__ volatile(".long 0xd2340405, 0x340e0501" : "={v5}"(r) : "{v1}"(a), "{v2}"(b), "{v3}"(c))

// v_mfma_f32_16x16x32_f16 v[0:3], v[4:7], v[8:11], v[0:3], with s_nop
// padding for the VALU/MFMA hazards the compiler cannot see.
#define MFMA_F32_16X16X32_F16(acc, a, b)                                            \
  __asm__ volatile("s_nop 4\n.long 0xd3d40000, 0x04021104\ns_nop 7\ns_nop 7\ns_nop 3" \
                   : "+{v[0:3]}"(acc)                                               \
                   : "{v[4:7]}"(a), "{v[8:11]}"(b))

// v_mfma_f32_32x32x16_f16 v[0:15], v[16:19], v[20:23], v[0:15].
#define MFMA_F32_32X32X16_F16(acc, a, b)                                                    \
  __asm__ volatile("s_nop 4\n.long 0xd3d50000, 0x04022910\ns_nop 7\ns_nop 7\ns_nop 7\ns_nop 7" \
                   : "+{v[0:15]}"(acc)                                                      \
                   : "{v[16:19]}"(a), "{v[20:23]}"(b))

// v_cvt_pk_f16_f32 v5, v1, v2: r = f16(b) << 16 | f16(a), round to
// nearest even (gfx942 only has v_cvt_pkrtz_f16_f32, round toward zero).
#define CVT_PK_F16_F32(r, a, b) \
  __asm__ volatile(".long 0xd2670005, 0x00020501" : "={v5}"(r) : "{v1}"(a), "{v2}"(b))

// global_load_lds_dwordx4 v[2:3], off with M0 = the LDS byte address of
// dst: every lane copies the 16 bytes at its src to dst + lane*16, then
// the wave waits for it (vmcnt). dst must be wave-uniform.
#define GLOBAL_LOAD_LDS_DWORDX4(src, dst)                                                 \
  __asm__ volatile("s_mov_b32 m0, %1\n.long 0xddf48000, 0x007f0002\ns_waitcnt vmcnt(0)"   \
                   :                                                                      \
                   : "{v[2:3]}"(src), "s"(__builtin_amdgcn_readfirstlane((uint)(size_t)(dst))) \
                   : "memory", "m0")

// v_minimum3_f32 v0, v1, v2, v3 and v_maximum3_f32 v1, v2, v3, v4: IEEE
// 754-2019 minimum/maximum of three (a NaN operand gives NaN; -0 < +0).
#define MINIMUM3_F32(r, a, b, c) \
  __asm__ volatile(".long 0xd2a80000, 0x040e0501" : "={v0}"(r) : "{v1}"(a), "{v2}"(b), "{v3}"(c))
#define MAXIMUM3_F32(r, a, b, c) \
  __asm__ volatile(".long 0xd2a90001, 0x04120702" : "={v1}"(r) : "{v2}"(a), "{v3}"(b), "{v4}"(c))

// Scaled conversions (OCP MX): the scale operand's exponent field E gives
// 2^(E-127); narrowing divides by it, widening multiplies; one rounding to
// nearest even; FP4 narrowing saturates at 6.
// v_cvt_scalef32_pk_fp4_f32 v1, v1, v2, v3: byte 0 of r = FP4 pair
// (r as f32 / s, y / s), the other bytes of r kept.
#define CVT_SCALEF32_PK_FP4_F32_B0(r, y, s) \
  __asm__ volatile(".long 0xd23d0001, 0x040e0501" : "+{v1}"(r) : "{v2}"(y), "{v3}"(s))
// ... op_sel:[0,0,0,1]: byte 2 of r = FP4 pair (y / s, x / s); x must be
// the f32 r held before _B0 (v1 is both src0 and vdst, so src0 is swapped
// in through v1 and the kept bytes restored).
#define CVT_SCALEF32_PK_FP4_F32_B2(r, y, s, x)                                            \
  do {                                                                                    \
    uint rj_keep = (r);                                                                   \
    uint rj_v1 = as_uint(y);                                                              \
    __asm__ volatile(".long 0xd23d4001, 0x040e0501" : "+{v1}"(rj_v1) : "{v2}"(x), "{v3}"(s)); \
    (r) = (rj_keep & 0xff00ffffu) | (rj_v1 & 0x00ff0000u);                                \
  } while (0)
// v_cvt_scalef32_pk_f32_fp4 v[2:3], v2, v3: t = (c, s) in; out the two FP4
// codes of byte 0 of c times s, as f32 bits.
#define CVT_SCALEF32_PK_F32_FP4(t) __asm__ volatile(".long 0xd23f0002, 0x00020702" : "+{v[2:3]}"(t))
// v_cvt_scalef32_pk_bf16_fp8 v1, v2, v3: r = bf16(E4M3 byte 1 of c * s)
// << 16 | bf16(E4M3 byte 0 of c * s).
#define CVT_SCALEF32_PK_BF16_FP8(r, c, s) \
  __asm__ volatile(".long 0xd2690001, 0x00020702" : "={v1}"(r) : "{v2}"(c), "{v3}"(s))

// v_permlane16_swap_b32_e32 v1, v1 / v_permlane32_swap_b32_e32 v1, v1 (the
// oracle's v1, v2 words with src0 = v1): lane l takes lane l ^ 16 / l ^ 32.
#define PERMLANE16_SWAP_SELF(x) __asm__ volatile(".long 0x7e02b301" : "+{v1}"(x))
#define PERMLANE32_SWAP_SELF(x) __asm__ volatile(".long 0x7e02b501" : "+{v1}"(x))

// v_mfma_ld_scale_b32 v24, v25 + v_mfma_scale_f32_16x16x128_f8f6f4
// v[0:3], a[4:11], a[12:19], v[20:23], v24, v25 op_sel_hi:[0,0,0] (E4M3
// x E4M3): A and B are copied into a[4:11] / a[12:19] first; s_nop
// padding for the hazards the compiler cannot see. v26..v95 are declared
// clobbered so the kernel has the register file of a real MFMA kernel
// (the translation's expansion borrows scratch VGPRs from it when none is
// free).
#define MFMA_SCALE_F32_16X16X128_F8F6F4_AGPR(d, a, b, c, sa, sb)                          \
  __asm__ volatile("v_accvgpr_write_b32 a4, v4\nv_accvgpr_write_b32 a5, v5\n"              \
                   "v_accvgpr_write_b32 a6, v6\nv_accvgpr_write_b32 a7, v7\n"              \
                   "v_accvgpr_write_b32 a8, v8\nv_accvgpr_write_b32 a9, v9\n"              \
                   "v_accvgpr_write_b32 a10, v10\nv_accvgpr_write_b32 a11, v11\n"          \
                   "v_accvgpr_write_b32 a12, v12\nv_accvgpr_write_b32 a13, v13\n"          \
                   "v_accvgpr_write_b32 a14, v14\nv_accvgpr_write_b32 a15, v15\n"          \
                   "v_accvgpr_write_b32 a16, v16\nv_accvgpr_write_b32 a17, v17\n"          \
                   "v_accvgpr_write_b32 a18, v18\nv_accvgpr_write_b32 a19, v19\n"          \
                   "s_nop 4\n.long 0xd3ac0000, 0x00023318, 0xd3ad0800, 0x1c521904\n"        \
                   "s_nop 7\ns_nop 7\ns_nop 7\ns_nop 7"                                     \
                   : "={v[0:3]}"(d)                                                        \
                   : "{v[4:11]}"(a), "{v[12:19]}"(b), "{v[20:23]}"(c), "{v24}"(sa), "{v25}"(sb) \
                   : "a4", "a5", "a6", "a7", "a8", "a9", "a10", "a11", "a12", "a13", "a14",   \
                     "a15", "a16", "a17", "a18", "a19", "v26", "v27", "v28", "v29", "v30", "v31", "v32", "v33", "v34", "v35", "v36", "v37", "v38", "v39", "v40", "v41", "v42", "v43", "v44", "v45", "v46", "v47", "v48", "v49", "v50", "v51", "v52", "v53", "v54", "v55", "v56", "v57", "v58", "v59", "v60", "v61", "v62", "v63", "v64", "v65", "v66", "v67", "v68", "v69", "v70", "v71", "v72", "v73", "v74", "v75", "v76", "v77", "v78", "v79", "v80", "v81", "v82", "v83", "v84", "v85", "v86", "v87", "v88", "v89", "v90", "v91", "v92", "v93", "v94", "v95")

#else // RJ_HOST: emulations in internal/kernelref/testdata/hostexec/harness.c

uint rj950_cvt_pk_bf16_f32(float a, float b);
float rj950_cvt_f32_bf16(uint x);
void rj950_permlane_swap(int rows, uint *x, uint *y);
uint rj950_bitop3(uint lut, uint a, uint b, uint c);
void rj950_mma(int kind, const void *a, const void *b, void *acc);
uint rj950_cvt_pk_f16_f32(float a, float b);
void rj950_global_load_lds16(const void *src, void *dst);
float rj950_minmax3(int max, float a, float b, float c);
uint rj950_scale_pk_fp4_f32(uint old, int byte, float x, float y, float s);
uint rj950_scale_pk_f32_fp4(uint c, float s, int hi);
uint rj950_scale_pk_bf16_fp8(uint c, float s);
void rj950_permlane_self_swap(int rows, uint *x);
void rj950_mfma_scale(const void *a, const void *b, const void *c, uint sa, uint sb, void *d);

#define CVT_PK_BF16_F32(r, a, b) ((r) = rj950_cvt_pk_bf16_f32((a), (b)))
#define CVT_F32_BF16(r, x) ((r) = rj950_cvt_f32_bf16(x))
#define PERMLANE16_SWAP(x, y) rj950_permlane_swap(16, &(x), &(y))
#define PERMLANE32_SWAP(x, y) rj950_permlane_swap(32, &(x), &(y))
#define BITOP3_96(r, a, b, c) ((r) = rj950_bitop3(0x96, (a), (b), (c)))
#define BITOP3_E8(r, a, b, c) ((r) = rj950_bitop3(0xe8, (a), (b), (c)))
#define BITOP3_CA(r, a, b, c) ((r) = rj950_bitop3(0xca, (a), (b), (c)))
#define BITOP3_A1(r, a, b, c) ((r) = rj950_bitop3(0xa1, (a), (b), (c)))
#define MFMA_F32_16X16X32_F16(acc, a, b) rj950_mma(0, &(a), &(b), &(acc))
#define MFMA_F32_32X32X16_F16(acc, a, b) rj950_mma(1, &(a), &(b), &(acc))
#define CVT_PK_F16_F32(r, a, b) ((r) = rj950_cvt_pk_f16_f32((a), (b)))
#define GLOBAL_LOAD_LDS_DWORDX4(src, dst) rj950_global_load_lds16((src), (dst))
#define MINIMUM3_F32(r, a, b, c) ((r) = rj950_minmax3(0, (a), (b), (c)))
#define MAXIMUM3_F32(r, a, b, c) ((r) = rj950_minmax3(1, (a), (b), (c)))
#define CVT_SCALEF32_PK_FP4_F32_B0(r, y, s) ((r) = rj950_scale_pk_fp4_f32((r), 0, as_float(r), (y), (s)))
#define CVT_SCALEF32_PK_FP4_F32_B2(r, y, s, x) ((r) = rj950_scale_pk_fp4_f32((r), 2, (y), (x), (s)))
#define CVT_SCALEF32_PK_F32_FP4(t) \
  ((t) = (uint2)(rj950_scale_pk_f32_fp4((t).x, as_float((t).y), 0), rj950_scale_pk_f32_fp4((t).x, as_float((t).y), 1)))
#define CVT_SCALEF32_PK_BF16_FP8(r, c, s) ((r) = rj950_scale_pk_bf16_fp8((c), (s)))
#define PERMLANE16_SWAP_SELF(x) rj950_permlane_self_swap(16, &(x))
#define PERMLANE32_SWAP_SELF(x) rj950_permlane_self_swap(32, &(x))
#define MFMA_SCALE_F32_16X16X128_F8F6F4_AGPR(d, a, b, c, sa, sb) rj950_mfma_scale(&(a), &(b), &(c), (sa), (sb), &(d))

#endif
#endif
