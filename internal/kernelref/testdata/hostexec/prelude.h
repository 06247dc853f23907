// prelude.h: force-included (-include) when a corpus kernel is compiled for
// the host (x86-64 OpenCL C) by TestReferencesAgainstHostExecution. It maps
// the AMDGPU builtins the kernels use onto functions of harness.c, which
// runs every work-item of a group as a thread.
#define RJ_HOST 1 // selects the emulated gfx950-only instructions in gfx950.h
uint rj_workitem_id(uint dim);
uint rj_workgroup_id(uint dim);
__constant void *rj_dispatch_ptr(void);
__constant void *rj_implicitarg_ptr(void);
void rj_barrier(void);
int rj_bpermute(int addr, int v);
float rj_exp2f(float);
float rj_log2f(float);
float rj_rsqf(float);
float rj_rcpf(float);
float rj_sinf(float);
float rj_cosf(float);
ushort rj_fmaf16(ushort, ushort, ushort);
float rj_cvt_f32_fp8(uint w, int sel, int bf8);
void rj_mma(int kind, const void *a, const void *b, const void *c, void *d);

// Wave-size-specific kernels are compiled once per wave size (RJ_WAVE, set
// by the test) and run by the harness binary built for that size.
#ifndef RJ_WAVE
#define RJ_WAVE 64
#endif
#define __AMDGCN_WAVEFRONT_SIZE__ RJ_WAVE
ulong rj_ballot(int pred);
uint rj_mbcnt_lo(uint mask, uint acc);
uint rj_mbcnt_hi(uint mask, uint acc);
#define __builtin_amdgcn_ballot_w64(p) rj_ballot((p) ? 1 : 0)
#define __builtin_amdgcn_ballot_w32(p) ((uint)rj_ballot((p) ? 1 : 0))
#define __builtin_amdgcn_mbcnt_lo(m, a) rj_mbcnt_lo((m), (a))
#define __builtin_amdgcn_mbcnt_hi(m, a) rj_mbcnt_hi((m), (a))

#define __builtin_amdgcn_workitem_id_x() rj_workitem_id(0)
#define __builtin_amdgcn_workitem_id_y() rj_workitem_id(1)
#define __builtin_amdgcn_workitem_id_z() rj_workitem_id(2)
#define __builtin_amdgcn_workgroup_id_x() rj_workgroup_id(0)
#define __builtin_amdgcn_workgroup_id_y() rj_workgroup_id(1)
#define __builtin_amdgcn_workgroup_id_z() rj_workgroup_id(2)
#define __builtin_amdgcn_dispatch_ptr() rj_dispatch_ptr()
#define __builtin_amdgcn_implicitarg_ptr() rj_implicitarg_ptr()
#define __builtin_amdgcn_s_barrier() rj_barrier()
#define __builtin_amdgcn_fence(order, scope) ((void)0)
#define __builtin_amdgcn_ds_bpermute(addr, v) rj_bpermute((addr), (v))
#define __builtin_amdgcn_exp2f(x) rj_exp2f(x)
#define __builtin_amdgcn_logf(x) rj_log2f(x)
#define __builtin_amdgcn_rsqf(x) rj_rsqf(x)
#define __builtin_amdgcn_rcpf(x) rj_rcpf(x)
#define __builtin_amdgcn_sinf(x) rj_sinf(x)
#define __builtin_amdgcn_cosf(x) rj_cosf(x)
#define __builtin_amdgcn_cvt_f32_fp8(w, sel) rj_cvt_f32_fp8((w), (sel), 0)
#define __builtin_amdgcn_cvt_f32_bf8(w, sel) rj_cvt_f32_fp8((w), (sel), 1)
#define __builtin_fmaf16(a, b, c) as_half(rj_fmaf16(as_ushort(a), as_ushort(b), as_ushort(c)))

typedef half rj_half4 __attribute__((ext_vector_type(4)));
typedef half rj_half8 __attribute__((ext_vector_type(8)));
typedef float rj_float4 __attribute__((ext_vector_type(4)));
typedef float rj_float8 __attribute__((ext_vector_type(8)));
typedef float rj_float16 __attribute__((ext_vector_type(16)));
typedef int rj_int4 __attribute__((ext_vector_type(4)));

static inline rj_float16 rj_mfma_32x32x8f16(rj_half4 a, rj_half4 b, rj_float16 c) {
  rj_float16 d;
  rj_mma(0, &a, &b, &c, &d);
  return d;
}
static inline rj_float4 rj_mfma_16x16x16f16(rj_half4 a, rj_half4 b, rj_float4 c) {
  rj_float4 d;
  rj_mma(1, &a, &b, &c, &d);
  return d;
}
static inline rj_int4 rj_mfma_i32_16x16x32i8(long a, long b, rj_int4 c) {
  rj_int4 d;
  rj_mma(2, &a, &b, &c, &d);
  return d;
}
static inline rj_float8 rj_wmma_16x16x16f16(rj_half8 a, rj_half8 b, rj_float8 c) {
  rj_float8 d;
  rj_mma(3, &a, &b, &c, &d);
  return d;
}
#define __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, x, y, z) rj_mfma_32x32x8f16(a, b, c)
#define __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c, x, y, z) rj_mfma_16x16x16f16(a, b, c)
#define __builtin_amdgcn_mfma_i32_16x16x32_i8(a, b, c, x, y, z) rj_mfma_i32_16x16x32i8(a, b, c)
#define __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(a, b, c) rj_wmma_16x16x16f16(a, b, c)

// iu8 WMMA (kinds 4-7: 4 + signed A + 2 * signed B), wave32 and wave64;
// clamp is not emulated (the corpus kernel leaves it off).
typedef int rj_int2 __attribute__((ext_vector_type(2)));
typedef int rj_int8 __attribute__((ext_vector_type(8)));
static inline rj_int8 rj_wmma_iu8_w32(bool sa, rj_int2 a, bool sb, rj_int2 b, rj_int8 c) {
  rj_int4 ab = {a.x, a.y, 0, 0}, bb = {b.x, b.y, 0, 0};
  int cb[16], db[16];
  for (int i = 0; i < 16; i++)
    cb[i] = i < 8 ? c[i] : 0;
  rj_mma(4 + (sa ? 1 : 0) + (sb ? 2 : 0), &ab, &bb, cb, db);
  rj_int8 d;
  for (int i = 0; i < 8; i++)
    d[i] = db[i];
  return d;
}
static inline rj_int4 rj_wmma_iu8_w64(bool sa, int a, bool sb, int b, rj_int4 c) {
  rj_int4 ab = {a, 0, 0, 0}, bb = {b, 0, 0, 0};
  int cb[16], db[16];
  for (int i = 0; i < 16; i++)
    cb[i] = i < 4 ? c[i] : 0;
  rj_mma(4 + (sa ? 1 : 0) + (sb ? 2 : 0), &ab, &bb, cb, db);
  rj_int4 d = {db[0], db[1], db[2], db[3]};
  return d;
}
#define __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32_gfx12(sa, a, sb, b, c, cl) rj_wmma_iu8_w32(sa, a, sb, b, c)
#define __builtin_amdgcn_wmma_i32_16x16x16_iu8_w64_gfx12(sa, a, sb, b, c, cl) rj_wmma_iu8_w64(sa, a, sb, b, c)
