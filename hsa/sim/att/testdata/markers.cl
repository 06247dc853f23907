// Test kernels for simulated SQTT captures, with hand-placed markers:
// scope "outer" (id 1) around a loop of n iterations, each holding scope
// "inner" (id 2) around a loop of m iterations and a point "tick" (id 3).
// Per wave: 2 + 3n markers.
// out[global id] = sum over i<n, j<m of in[j]*i + lane.
// MARK_ENTER/MARK_EXIT/MARK_POINT are defined per build (see build.sh).

#if defined(CLOCK_PACKED)
// gfx12 packed headers: shader clock bits [15:4] in marker bits [31:20].
static inline void mark(unsigned word) {
	unsigned c;
	__asm volatile("s_getreg_b32 %0, hwreg(HW_REG_SHADER_CYCLES_LO, 4, 12)" : "=s"(c));
	__builtin_amdgcn_s_ttracedata((int)(c << 20 | word));
}
#define MARK(w) mark(w)
#elif defined(USE_IMM)
#define MARK(w) __builtin_amdgcn_s_ttracedata_imm(w)
#else
#define MARK(w) __builtin_amdgcn_s_ttracedata(w)
#endif

#define ENTER(id) MARK((id) << 2 | 2)
#define EXIT() MARK(1)
#define POINT(id) MARK((id) << 2)

kernel void nested(global unsigned *out, global const unsigned *in, unsigned n, unsigned m) {
	unsigned lane = __builtin_amdgcn_workitem_id_x();
	unsigned gid = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + lane;
	unsigned acc = 0;
	ENTER(1);
	for (unsigned i = 0; i < n; i++) {
		ENTER(2);
		for (unsigned j = 0; j < m; j++)
			acc += in[j] * i + lane;
		EXIT();
		POINT(3);
	}
	EXIT();
	out[gid] = acc;
}

// Points "before" (id 4) and "after" (id 5) around a workgroup barrier;
// wave w of the group first does 4w loads, so the waves reach the barrier
// at different times and leave it together.
// out[global id] = 10w (the sum of 4w loads of in[j & 3] = j + 1).
kernel void barrier_sync(global unsigned *out, global const unsigned *in) {
	unsigned lane = __builtin_amdgcn_workitem_id_x();
	unsigned gid = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + lane;
	unsigned w = __builtin_amdgcn_readfirstlane(lane) / WAVE;
	unsigned acc = 0;
	POINT(4);
	for (unsigned j = 0; j < 4 * w; j++)
		acc += in[j & 3];
	__builtin_amdgcn_s_barrier();
	POINT(5);
	out[gid] = acc;
}
